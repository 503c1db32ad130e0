# ruff: noqa: E501  (the phrase catalogue reads best one phrase a line)
"""Announcements: what the referee says about each event, in English and Japanese.

An :class:`Announcement` is a phrase key with parameters and a priority; :func:`render` turns it
into text in one language. Announcements are made from engine events, which carry only public
information, so nothing said can reveal a hidden card. The Japanese catalogue is written in kana
so that a speech engine that cannot read kanji still says it right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from table.cards import Card, Color, parse_card
from table.rules.options import Options
from table.rules.state import Event

# Priorities: penalties and verdicts go before routine turn calls.
ROUTINE: Final = 0
INFO: Final = 1
URGENT: Final = 2


@dataclass(frozen=True, slots=True)
class Announcement:
    key: str
    params: tuple[tuple[str, str | int], ...] = ()
    priority: int = INFO

    def param(self, name: str) -> str | int | None:
        return dict(self.params).get(name)


CATALOGUE: Final[dict[str, dict[str, str]]] = {
    "round-start": {"en": "Round {round}. {player} deals.", "ja": "だい{round}ラウンド。ディーラーは {player}。"},
    "turned-up": {"en": "The first card is {card}.", "ja": "さいしょの カードは {card}。"},
    "buried": {"en": "{card} goes back in the pile. Turn up another card.",
               "ja": "{card}は やまに もどします。もう いちまい めくって ください。"},
    "turn": {"en": "{player}'s turn.", "ja": "{player}の ばん。"},
    "skipped": {"en": "{player} is skipped.", "ja": "{player}は スキップ。"},
    "reversed-clockwise": {"en": "Reverse! Play goes clockwise.", "ja": "リバース! ひだりまわり。"},
    "reversed-counterclockwise": {"en": "Reverse! Play goes counterclockwise.",
                                  "ja": "リバース! みぎまわり。"},
    "wild": {"en": "Wild! The colour is {color}.", "ja": "ワイルド! いろは {color}。"},
    "color-chosen": {"en": "The colour is {color}.", "ja": "いろは {color}。"},
    "color-needed": {"en": "{player}, choose a colour.", "ja": "{player}、いろを えらんで ください。"},
    "color-reminder": {"en": "{player}, please choose a colour for the wild.",
                       "ja": "{player}、ワイルドの いろを えらんで ください。"},
    "pending-draw": {"en": "{player}, draw {count}.", "ja": "{player}、{count}まい ひいて ください。"},
    "pending-draw-challenge": {"en": "{player}, draw {count} or challenge.",
                               "ja": "{player}、{count}まい ひくか、チャレンジ できます。"},
    "draws": {"en": "{player} draws {count}.", "ja": "{player}は {count}まい ひきます。"},
    "uno": {"en": "{player} calls UNO!", "ja": "{player}、ウノ!"},
    "caught": {"en": "{catcher} caught {player}! {player} forgot to call UNO and draws {count}.",
               "ja": "{catcher}が {player}の ウノわすれを みつけました! {player}は {count}まい ひきます。"},
    "uno-missed": {"en": "{player} forgot to call UNO and draws {count}.",
                   "ja": "{player}は ウノを いわなかったので {count}まい ひきます。"},
    "false-catch": {"en": "False catch. {player} draws {count}.",
                    "ja": "まちがい です。{player}は {count}まい ひきます。"},
    "challenge": {"en": "{player} challenges {offender}.", "ja": "{player}が {offender}に チャレンジ!"},
    "guilty": {"en": "Challenge upheld: guilty! {offender} draws {count}.",
               "ja": "チャレンジ せいこう! {offender}が {count}まい ひきます。"},
    "guilty-take-back": {"en": "Challenge upheld: guilty! {offender} takes the card back and draws {count}.",
                         "ja": "チャレンジ せいこう! {offender}は カードを もどして {count}まい ひきます。"},
    "innocent": {"en": "Challenge failed: innocent! {player} draws {count}.",
                 "ja": "チャレンジ しっぱい! {player}は {count}まい ひきます。"},
    "show-needed": {"en": "{player}, please show your hand.", "ja": "{player}、てふだを みせて ください。"},
    "reshuffled": {"en": "The discard pile is shuffled into a new draw pile.",
                   "ja": "すてふだを きって あたらしい やまに します。"},
    "piles-exhausted": {"en": "No cards left to draw.", "ja": "ひく カードが ありません。"},
    "shuffle-hands": {"en": "Shuffle hands! Every hand is collected and dealt again.",
                      "ja": "シャッフル ハンズ! てふだを ぜんぶ あつめて くばりなおします。"},
    "round-won": {"en": "{player} wins the round!", "ja": "{player}の かち!"},
    "round-scored": {"en": "{player} scores {points} points.", "ja": "{player}は {points}てん。"},
    "standings": {"en": "Scores: {scores}.", "ja": "とくてん: {scores}。"},
    "eliminated": {"en": "{player} is out of the match.", "ja": "{player}は だつらく です。"},
    "match-over": {"en": "{player} wins the match!", "ja": "{player}の ゆうしょう!"},
    "undone": {"en": "Undone.", "ja": "とりけしました。"},
    "passed": {"en": "{player} passes.", "ja": "{player}は パス。"},
    # Polite corrections for rejected actions, by reason.
    "rejected": {"en": "Sorry, that is not allowed.", "ja": "ごめんなさい、それは できません。"},
    "rejected-not-your-turn": {"en": "Sorry, it is not your turn.", "ja": "ごめんなさい、いまは あなたの ばんでは ありません。"},
    "rejected-wrong-color-or-number": {"en": "Sorry, that card does not match.",
                                       "ja": "ごめんなさい、その カードは だせません。"},
    "rejected-card-not-available": {"en": "That card is already played.",
                                    "ja": "その カードは もう でて います。"},
    "rejected-card-not-in-hand": {"en": "That card is not in your hand.",
                                  "ja": "その カードは てふだに ありません。"},
    "rejected-must-play-drawn-card": {"en": "Only the card you just drew can be played.",
                                      "ja": "ひいた カードだけ だせます。"},
    "rejected-draw-penalty-pending": {"en": "Please draw your penalty cards first.",
                                      "ja": "さきに カードを ひいて ください。"},
    "rejected-color-not-chosen": {"en": "Please choose the colour first.",
                                  "ja": "さきに いろを えらんで ください。"},
    "rejected-uno-not-due": {"en": "It is not time to call UNO.", "ja": "いまは ウノを いえません。"},
    "rejected-catch-too-late": {"en": "Too late to catch.", "ja": "もう おそい です。"},
    "rejected-false-catch": {"en": "That was not a missed UNO.", "ja": "ウノわすれでは ありません。"},
    "rejected-already-drew": {"en": "You have already drawn.", "ja": "もう ひきました。"},
    "rejected-draw-first": {"en": "Please draw a card before passing.", "ja": "パスの まえに いちまい ひいて ください。"},
    "rejected-show-needed": {"en": "Waiting for the challenged hand to be shown.",
                             "ja": "てふだを みせるのを まって います。"},
    "rejected-show-mismatch": {"en": "That is not the whole hand. Please show it again.",
                               "ja": "てふだが あいません。もう いちど みせて ください。"},
    "rejected-round-over": {"en": "The round is over.", "ja": "この ラウンドは おわりました。"},
    "rejected-nothing-to-undo": {"en": "There is nothing to undo.", "ja": "とりけす ものが ありません。"},
    "reader-lost": {"en": "The {reader} reader is disconnected.", "ja": "{reader}の リーダーが きれました。"},
    "reader-back": {"en": "The {reader} reader is back.", "ja": "{reader}の リーダーが もどりました。"},
    "unknown-tag": {"en": "Unknown card. Please try another.", "ja": "しらない カード です。"},
    # Competition, local and Musician rules.
    "pending-draw-stack": {"en": "{player}, draw {count} or stack.",
                           "ja": "{player}、{count}まい ひくか、かさねて ください。"},
    "jump-in": {"en": "{player} jumps in!", "ja": "{player}の わりこみ!"},
    "swap-needed": {"en": "{player}, choose whose hand to take.",
                    "ja": "{player}、てふだを こうかんする あいてを えらんで ください。"},
    "swapped": {"en": "{player} swaps hands with {target}.",
                "ja": "{player}と {target}の てふだを こうかん します。"},
    "hands-passed": {"en": "Every hand passes to the next player.",
                     "ja": "てふだを ぜんいん となりに まわします。"},
    "chin": {"en": "Chin! {player} wins the round!", "ja": "チン! {player}の あがり!"},
    "don": {"en": "Don! {player} wins the round on {target}'s card!",
            "ja": "ドン! {player}が {target}の カードで あがり!"},
    "don-called": {"en": "{player} calls Don!", "ja": "{player}、ドン!"},
    "multi-don-2": {"en": "Double Don! {player} deals next.",
                    "ja": "ダブルドン! つぎの おやは {player}。"},
    "multi-don-3": {"en": "Triple Don! {player} deals next.",
                    "ja": "トリプルドン! つぎの おやは {player}。"},
    "false-don": {"en": "Chombo! That was a false Don. {player} draws {count}.",
                  "ja": "チョンボ! {player}は {count}まい ひきます。"},
    "tenhou": {"en": "Tenhou! A Don on the first card: every loss is ten times.",
               "ja": "テンホー! みんなの まけてんは じゅうばい!"},
    "renchan": {"en": "{player} has won {count} rounds in a row!",
                "ja": "{player}、{count}れんチャン!"},
    "rendon": {"en": "Rendon! {player} has been Don'd {count} times in a row.",
               "ja": "レンドン! {player}は {count}かいめの ドン。"},
    "panpakapan": {"en": "Panpakapan! Every loser lost the same: {player} pays {points} points.",
                   "ja": "パンパカパーン! かちと まけが ぎゃくてん。{player}は {points}てん まけ。"},
    "color-call": {"en": "Colour call! {player} pays {points} more.",
                   "ja": "いろしてい! {player}は {points}てん ましです。"},
    "reverse-back": {"en": "Reverse back! {player} pays {points} more.",
                     "ja": "リバースがえし! {player}は {points}てん ましです。"},
    "skip-back": {"en": "Skip back! {player} pays {points} more.",
                  "ja": "スキップがえし! {player}は {points}てん ましです。"},
    "same-color-don": {"en": "Same-colour Don! {player} pays {points} more.",
                       "ja": "どうしょく ドン! {player}は {points}てん ましです。"},
    "zero-don": {"en": "Zero Don! {player} pays {points} more.",
                 "ja": "ゼロドン! {player}は {points}てん ましです。"},
    "rejected-no-action-finish": {"en": "Sorry, you cannot go out on an action card. Please draw.",
                                  "ja": "ごめんなさい、きごう カードでは あがれません。いちまい ひいて ください。"},
    "rejected-no-draw-finish": {"en": "Sorry, you cannot go out on a draw card. Please draw.",
                                "ja": "ごめんなさい、ドローカードでは あがれません。いちまい ひいて ください。"},
    "rejected-no-wild-finish": {"en": "Sorry, you cannot go out on a wild card.",
                                "ja": "ごめんなさい、ワイルドでは あがれません。"},
    "rejected-no-wild-to-uno": {"en": "Sorry, with three players or fewer a wild cannot take you down to one card.",
                                "ja": "ごめんなさい、さんにん いかでは ワイルドで ウノに できません。"},
    "rejected-uno-first": {"en": "Please call UNO before going out with two cards.",
                           "ja": "にまいで あがる まえに ウノと いって ください。"},
    "rejected-not-same-card": {"en": "Sorry, only cards of the same number go down together.",
                               "ja": "ごめんなさい、いっしょに だせるのは おなじ すうじの カード だけです。"},
    "rejected-one-card-at-a-time": {"en": "Sorry, one card at a time.",
                                    "ja": "ごめんなさい、いちまいずつ だして ください。"},
    "rejected-swap-needed": {"en": "Waiting for the player of the seven to choose a hand.",
                             "ja": "ななを だした ひとが あいてを えらぶのを まって います。"},
    "rejected-nothing-to-don": {"en": "There is no number card to Don on.",
                                "ja": "ドン できる すうじの カードが ありません。"},
    "rejected-don-own-card": {"en": "You cannot Don your own card.",
                              "ja": "じぶんの カードでは ドン できません。"},
    "rejected-false-don": {"en": "That Don does not win.", "ja": "その ドンは なりたちません。"},
    "rejected-don-needs-seat": {"en": "Tap your seat token first, then Don.",
                                "ja": "さきに せきの トークンを タッチして から ドン して ください。"},
    "rejected-not-in-these-rules": {"en": "Sorry, that is not part of these rules.",
                                    "ja": "ごめんなさい、この ルールでは できません。"},
    # The web view's admin page: a test of the table's voice.
    "voice-test": {"en": "This is the table's voice. Can everyone hear me?",
                   "ja": "テーブルの こえの テスト です。きこえますか?"},
    # The daemon: resuming, the journal, enrolment.
    "match-resumed": {"en": "The match goes on where it stopped: round {round}.",
                      "ja": "とちゅうから つづけます。だい{round}ラウンド。"},
    "journal-full": {"en": "The journal cannot be saved: the disk is full. Refereeing goes on.",
                     "ja": "きろくが ほぞん できません。ディスクが いっぱい です。しんぱんは つづけます。"},
    "journal-back": {"en": "The journal is saved again.", "ja": "きろくを また ほぞん できます。"},
    "journal-repaired": {"en": "The journal was damaged. The match goes on from the last saved play.",
                         "ja": "きろくが こわれて いました。さいごに ほぞんした ところから つづけます。"},
    "enroll-tap": {"en": "Tap the {card}.", "ja": "{card}を タッチ して ください。"},
    "enroll-token": {"en": "Tap the {token} token.", "ja": "{token}の トークンを タッチ して ください。"},
    "enroll-taken": {"en": "That tag is already enrolled. Please tap the {card}.",
                     "ja": "その タグは もう とうろく されて います。{card}を タッチ して ください。"},
    "enroll-done": {"en": "Enrolment complete: {count} tags.", "ja": "とうろく かんりょう。{count}まい。"},
}

# Reasons whose correction names whose turn it is.
_COLOR_WORDS: Final = {
    "en": {Color.RED: "red", Color.YELLOW: "yellow", Color.GREEN: "green", Color.BLUE: "blue"},
    "ja": {Color.RED: "あか", Color.YELLOW: "きいろ", Color.GREEN: "みどり", Color.BLUE: "あお"},
}
_RANK_WORDS: Final = {
    "en": {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "W": "Wild", "W+4": "Wild Draw Four",
           "WSH": "Wild Shuffle Hands", "WC": "Wild Customizable"},
    "ja": {"S": "スキップ", "R": "リバース", "+2": "ドロー ツー", "W": "ワイルド",
           "W+4": "ワイルド ドロー フォー", "WSH": "シャッフル ワイルド", "WC": "カスタマイズ ワイルド"},
}
_EN_NUMBERS: Final = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_JA_DIGITS: Final = ("ぜろ", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう")
_JA_UNITS: Final = ((1000, "せん"), (100, "ひゃく"), (10, "じゅう"))
_JA_IRREGULAR: Final = {300: "さんびゃく", 600: "ろっぴゃく", 800: "はっぴゃく", 3000: "さんぜん", 8000: "はっせん"}

LANGUAGES: Final = ("en", "ja")


def ja_number(n: int) -> str:
    """A whole number read in kana (``34`` -> ``さんじゅうよん``), up to 99,999."""
    if n < 0:
        return "マイナス " + ja_number(-n)
    if n < 10:
        return _JA_DIGITS[n]
    parts: list[str] = []
    if n >= 10000:
        parts.append(ja_number(n // 10000) + "まん")
        n %= 10000
    for unit, word in _JA_UNITS:
        digit, n = divmod(n, unit)
        if not digit:
            continue
        if digit * unit in _JA_IRREGULAR:
            parts.append(_JA_IRREGULAR[digit * unit])
        else:
            parts.append(("" if digit == 1 else _JA_DIGITS[digit]) + word)
    if n:
        parts.append(_JA_DIGITS[n])
    return "".join(parts)


def card_words(card: Card, lang: str) -> str:
    """A card as players say it: ``red seven``, ``あかの なな``, ``ワイルド ドロー フォー``."""
    if card.number is not None:
        rank = _EN_NUMBERS[card.number] if lang == "en" else _JA_DIGITS[card.number]
    else:
        rank = _RANK_WORDS[lang][card.rank]
    if card.color is None:
        return rank
    color = _COLOR_WORDS[lang][card.color]
    return f"{color} {rank}" if lang == "en" else f"{color}の {rank}"


def render(
    ann: Announcement, lang: str = "en", pronounce: Mapping[str, str] | None = None
) -> str:
    """The text of ``ann`` in ``lang``. Player names go through ``pronounce`` when given."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use en or ja")
    template = CATALOGUE[ann.key][lang]
    values: dict[str, str] = {}
    for name, value in ann.params:
        if name in ("player", "catcher", "offender", "turn", "target") and pronounce:
            values[name] = pronounce.get(str(value), str(value))
        elif name == "card":
            values[name] = card_words(parse_card(str(value)), lang)
        elif name == "color":
            values[name] = _COLOR_WORDS[lang][Color(value)]
        elif isinstance(value, int):
            values[name] = ja_number(value) if lang == "ja" else str(value)
        else:
            values[name] = str(value)
    return template.format(**values)



def _ann(key: str, priority: int = INFO, **params: str | int) -> Announcement:
    return Announcement(key, tuple(params.items()), priority)


def from_events(
    events: Sequence[Event], players: Sequence[str], options: Options | None = None
) -> list[Announcement]:
    """The announcements for one step's events."""
    out: list[Announcement] = []
    name = players.__getitem__
    caught: int | None = None
    challengeable = options is not None and options.challengeable
    take_back = options is not None and options.challenge_success == "take-back"
    for i, e in enumerate(events):
        k = e.kind
        p = name(e.player) if e.player is not None else ""
        if k == "round-start":
            out.append(_ann("round-start", INFO, round=e.count, player=p))
        elif k == "turned-up" and e.card is not None:
            out.append(_ann("turned-up", INFO, card=e.card.code))
        elif k == "buried" and e.card is not None:
            out.append(_ann("buried", INFO, card=e.card.code))
        elif k == "turn":
            out.append(_ann("turn", ROUTINE, player=p))
        elif k == "skipped":
            out.append(_ann("skipped", INFO, player=p))
        elif k == "reversed":
            way = "clockwise" if e.count > 0 else "counterclockwise"
            out.append(_ann(f"reversed-{way}", INFO))
        elif k == "played" and e.card is not None and e.card.is_wild and e.color is not None:
            out.append(_ann("wild", INFO, color=e.color.value))
        elif k == "color-chosen" and e.color is not None:
            out.append(_ann("color-chosen", INFO, color=e.color.value))
        elif k == "color-needed":
            out.append(_ann("color-needed", URGENT, player=p))
        elif k == "pending-draw":
            key = "pending-draw-challenge" if challengeable and _wd4_pending(events, i) else "pending-draw"
            if key == "pending-draw" and options is not None and options.stacking != "off":
                key = "pending-draw-stack"
            out.append(_ann(key, URGENT, player=p, count=e.count))
        elif k == "uno":
            out.append(_ann("uno", URGENT, player=p))
        elif k == "caught" and e.target is not None:
            caught = e.player
            continue
        elif k == "penalty":
            ann = _penalty(e, p, name, caught)
            if take_back and ann.key == "guilty":
                ann = Announcement("guilty-take-back", ann.params, ann.priority)
            out.append(ann)
        elif k == "challenge" and e.target is not None:
            out.append(_ann("challenge", URGENT, player=p, offender=name(e.target)))
        elif k in ("guilty", "innocent"):
            continue  # said together with the penalty that follows
        elif k == "show-needed":
            out.append(_ann("show-needed", URGENT, player=p))
        elif k in ("reshuffled", "piles-exhausted", "shuffle-hands"):
            out.append(_ann(k, INFO))
        elif k == "round-won":
            if e.reason == "don":
                continue  # said by the Don itself
            if options is not None and options.scoring == "musician":
                out.append(_ann("chin", URGENT, player=p))
            else:
                out.append(_ann("round-won", URGENT, player=p))
        elif k in _VARIANT_EVENTS:
            out.append(_variant(e, p, name))
        elif k == "round-scored":
            out.append(_ann("round-scored", URGENT, player=p, points=e.count))
        elif k == "eliminated":
            out.append(_ann("eliminated", URGENT, player=p))
        elif k == "match-over":
            out.append(_ann("match-over", URGENT, player=p))
        elif k == "passed":
            out.append(_ann("passed", ROUTINE, player=p))
        elif k == "rejected":
            out.append(_ann(f"rejected-{e.reason}" if f"rejected-{e.reason}" in CATALOGUE else "rejected", URGENT))
    return out


_VARIANT_EVENTS: Final = frozenset({
    "jump-in", "swap-needed", "swapped", "hands-passed", "don", "multi-don",
    "tenhou", "renchan", "rendon", "panpakapan", "color-call", "reverse-back", "skip-back",
    "same-color-don", "zero-don",
})


def _variant(e: Event, p: str, name: object) -> Announcement:
    """The phrase for an event of the competition, local or Musician rules."""
    assert callable(name)
    k = e.kind
    if k == "swapped":
        return _ann(k, URGENT, player=p, target=name(e.target))
    if k == "don":
        if e.target is None:
            return _ann("don-called", URGENT, player=p)
        return _ann("don", URGENT, player=p, target=name(e.target))
    if k == "multi-don":
        return _ann(f"multi-don-{min(e.count, 3)}", URGENT, player=p)
    if k in ("renchan", "rendon"):
        return _ann(k, URGENT, player=p, count=e.count)
    if k in ("panpakapan", "color-call", "reverse-back", "skip-back", "same-color-don", "zero-don"):
        return _ann(k, URGENT, player=p, points=e.count)
    if k in ("jump-in", "swap-needed"):
        return _ann(k, URGENT, player=p)
    return _ann(k, URGENT)


def _wd4_pending(events: Sequence[Event], upto: int) -> bool:
    return any(e.kind == "played" and e.card is not None and e.card.rank == "W+4" for e in events[:upto])


def _penalty(e: Event, p: str, name: object, caught: int | None) -> Announcement:
    assert callable(name)
    reason = e.reason
    if reason == "uno-not-called":
        if caught is not None:
            return _ann("caught", URGENT, catcher=name(caught), player=p, count=e.count)
        return _ann("uno-missed", URGENT, player=p, count=e.count)
    if reason == "illegal-wild-draw-four":
        return _ann("guilty", URGENT, offender=p, count=e.count)
    if reason == "challenge-failed":
        return _ann("innocent", URGENT, player=p, count=e.count)
    if reason == "false-don":
        return _ann("false-don", URGENT, player=p, count=e.count)
    if reason == "false-catch":
        return _ann("false-catch", URGENT, player=p, count=e.count)
    return _ann("draws", URGENT, player=p, count=e.count)
