# ruff: noqa: E501  (the phrase catalogue reads best one phrase a line)
"""Announcements: what the referee says about each event, in English and Japanese.

An :class:`Announcement` is a phrase key with parameters and a priority; :func:`render` turns it
into text in one language. Announcements are made from engine events, which carry only public
information, so nothing said can reveal a hidden card. The Japanese catalogue is written as a
Japanese referee speaks, in kanji and kana, with numbers as digits before their counters
(``34点``, ``2枚``): Open JTalk reads them as said (さんじゅうよんてん, にまい), and
:mod:`table.voice.kana` turns them into kana for espeak-ng, which reads no kanji.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from table.cards import Card, Color, parse_card
from table.errors import TableError
from table.rules.events import EventKind
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
    "round-start": {"en": "Round {round}. {player} deals.", "ja": "第{round}ラウンド。親は{player}さんです。"},
    "turned-up": {"en": "The first card is {card}.", "ja": "最初のカードは{card}です。"},
    "buried": {"en": "{card} goes back in the pile. Turn up another card.",
               "ja": "{card}は山に戻します。もう1枚めくってください。"},
    "turn": {"en": "{player}'s turn.", "ja": "{player}さんの番です。"},
    "skipped": {"en": "{player} is skipped.", "ja": "{player}さんはスキップ。"},
    "reversed-clockwise": {"en": "Reverse! Play goes clockwise.", "ja": "リバース!時計回りになります。"},
    "reversed-counterclockwise": {"en": "Reverse! Play goes counterclockwise.",
                                  "ja": "リバース!反時計回りになります。"},
    "wild": {"en": "Wild! The colour is {color}.", "ja": "ワイルド!色は{color}です。"},
    "color-chosen": {"en": "The colour is {color}.", "ja": "色は{color}です。"},
    "color-needed": {"en": "{player}, choose a colour.", "ja": "{player}さん、色を選んでください。"},
    "color-reminder": {"en": "{player}, please choose a colour for the wild.",
                       "ja": "{player}さん、ワイルドの色を選んでください。"},
    "pending-draw": {"en": "{player}, draw {count}.", "ja": "{player}さん、{count}枚引いてください。"},
    "pending-draw-challenge": {"en": "{player}, draw {count} or challenge.",
                               "ja": "{player}さん、{count}枚引くか、チャレンジできます。"},
    "draws": {"en": "{player} draws {count}.", "ja": "{player}さんは{count}枚引きます。"},
    "uno": {"en": "{player} calls UNO!", "ja": "{player}さん、ウノ!"},
    "caught": {"en": "{catcher} caught {player}! {player} forgot to call UNO and draws {count}.",
               "ja": "{catcher}さんが{player}さんのウノ忘れを見つけました!{player}さんは{count}枚引いてください。"},
    "uno-missed": {"en": "{player} forgot to call UNO and draws {count}.",
                   "ja": "{player}さん、ウノの宣言忘れ。{count}枚引いてください。"},
    "false-catch": {"en": "False catch. {player} draws {count}.",
                    "ja": "指摘は間違いです。{player}さんが{count}枚引きます。"},
    "challenge": {"en": "{player} challenges {offender}.", "ja": "{player}さんが{offender}さんにチャレンジ!"},
    "guilty": {"en": "Challenge upheld: guilty! {offender} draws {count}.",
               "ja": "チャレンジ成功!{offender}さんが{count}枚引きます。"},
    "guilty-take-back": {"en": "Challenge upheld: guilty! {offender} takes the card back and draws {count}.",
                         "ja": "チャレンジ成功!{offender}さんはカードを戻して、{count}枚引きます。"},
    "innocent": {"en": "Challenge failed: innocent! {player} draws {count}.",
                 "ja": "チャレンジ失敗!{player}さんが{count}枚引きます。"},
    "show-needed": {"en": "{player}, please show your hand.", "ja": "{player}さん、てふだを見せてください。"},
    "reshuffled": {"en": "The discard pile is shuffled into a new draw pile.",
                   "ja": "捨て札を切って、新しい山にします。"},
    "piles-exhausted": {"en": "No cards left to draw.", "ja": "引けるカードがもうありません。"},
    "shuffle-hands": {"en": "Shuffle hands! Every hand is collected and dealt again.",
                      "ja": "シャッフルハンズ!全員のてふだを集めて、配り直します。"},
    "round-won": {"en": "{player} wins the round!", "ja": "{player}さんの上がり!"},
    "round-scored": {"en": "{player} scores {points} points.", "ja": "{player}さん、{points}点です。"},
    "standings": {"en": "Scores: {scores}.", "ja": "得点は、{scores}です。"},
    "eliminated": {"en": "{player} is out of the match.", "ja": "{player}さんは脱落です。"},
    "match-over": {"en": "{player} wins the match!", "ja": "{player}さんの優勝です!"},
    "undone": {"en": "Undone.", "ja": "取り消しました。"},
    "passed": {"en": "{player} passes.", "ja": "{player}さんはパス。"},
    # Polite corrections for rejected actions, by reason.
    "rejected": {"en": "Sorry, that is not allowed.", "ja": "すみません、それはできません。"},
    "rejected-not-your-turn": {"en": "Sorry, it is not your turn.", "ja": "すみません、今はあなたの番ではありません。"},
    "rejected-wrong-color-or-number": {"en": "Sorry, that card does not match.",
                                       "ja": "すみません、そのカードは出せません。"},
    "rejected-card-not-available": {"en": "That card is already played.",
                                    "ja": "そのカードはもう出ています。"},
    "rejected-card-not-in-hand": {"en": "That card is not in your hand.",
                                  "ja": "そのカードはてふだにありません。"},
    "rejected-must-play-drawn-card": {"en": "Only the card you just drew can be played.",
                                      "ja": "出せるのは、今引いたカードだけです。"},
    "rejected-draw-penalty-pending": {"en": "Please draw your penalty cards first.",
                                      "ja": "先にカードを引いてください。"},
    "rejected-color-not-chosen": {"en": "Please choose the colour first.",
                                  "ja": "先に色を選んでください。"},
    "rejected-uno-not-due": {"en": "It is not time to call UNO.", "ja": "今はウノを宣言できません。"},
    "rejected-catch-too-late": {"en": "Too late to catch.", "ja": "もう指摘できません。"},
    "rejected-false-catch": {"en": "That was not a missed UNO.", "ja": "ウノ忘れではありません。"},
    "rejected-already-drew": {"en": "You have already drawn.", "ja": "もう引きました。"},
    "rejected-draw-first": {"en": "Please draw a card before passing.", "ja": "パスの前に1枚引いてください。"},
    "rejected-show-needed": {"en": "Waiting for the challenged hand to be shown.",
                             "ja": "てふだを見せるのを待っています。"},
    "rejected-show-mismatch": {"en": "That is not the whole hand. Please show it again.",
                               "ja": "てふだが合いません。もう一度見せてください。"},
    "rejected-round-over": {"en": "The round is over.", "ja": "このラウンドは終わりました。"},
    "rejected-nothing-to-undo": {"en": "There is nothing to undo.", "ja": "取り消すものがありません。"},
    "rejected-already-called": {"en": "You have already called UNO.", "ja": "ウノはもう宣言しました。"},
    "rejected-cannot-catch-yourself": {"en": "You cannot catch yourself.",
                                       "ja": "自分を指摘することはできません。"},
    "rejected-has-playable-card": {"en": "You have a card you can play. Please play it.",
                                   "ja": "出せるカードがあります。そのカードを出してください。"},
    "rejected-keep-drawing": {"en": "Please keep drawing until a card can be played.",
                              "ja": "出せるカードが来るまで引いてください。"},
    "rejected-pile-empty": {"en": "There are no cards left to draw.",
                            "ja": "引けるカードが残っていません。"},
    "rejected-penalty-cards-unnamed": {"en": "Please draw the penalty cards all together.",
                                       "ja": "ペナルティのカードは、まとめて引いてください。"},
    "rejected-wild-draw-four-not-allowed": {
        "en": "Sorry, the Wild Draw Four cannot be played while you hold a matching card.",
        "ja": "すみません、合うカードがあるときは、ワイルドドローフォーは出せません。"},
    "rejected-nothing-to-challenge": {"en": "There is no Wild Draw Four to challenge.",
                                      "ja": "チャレンジできるワイルドドローフォーはありません。"},
    "rejected-only-next-player-challenges": {
        "en": "Only the player who must draw may challenge.",
        "ja": "チャレンジできるのは、カードを引く人だけです。"},
    "rejected-only-next-player-catches": {"en": "Only the next player may catch.",
                                          "ja": "指摘できるのは、次の人だけです。"},
    "rejected-no-color-needed": {"en": "No colour is waiting to be chosen.",
                                 "ja": "今は色を選ぶときではありません。"},
    "rejected-no-card-turned-up": {"en": "Please turn up the first card first.",
                                   "ja": "先に最初のカードをめくってください。"},
    "rejected-already-started": {"en": "The first card is already turned up.",
                                 "ja": "最初のカードはもうめくってあります。"},
    "rejected-not-top-card": {"en": "That is not the top card of the draw pile.",
                              "ja": "それは山札の一番上のカードではありません。"},
    "rejected-round-not-over": {"en": "The round is not over yet.",
                                "ja": "このラウンドはまだ終わっていません。"},
    "rejected-match-over": {"en": "The match is over.", "ja": "この試合は終わりました。"},
    "rejected-no-such-player": {"en": "That seat has no player in this match.",
                                "ja": "その席には、この試合のプレイヤーがいません。"},
    "rejected-token-on-seat-pad": {"en": "Please tap that token where the cards are played.",
                                   "ja": "そのトークンは、カードを出すところにタッチしてください。"},
    "reader-lost": {"en": "The {reader} reader is disconnected.", "ja": "{reader}のリーダーの接続が切れました。"},
    "reader-back": {"en": "The {reader} reader is back.", "ja": "{reader}のリーダーがつながりました。"},
    "unknown-tag": {"en": "Unknown card. Please try another.", "ja": "知らないカードです。別のカードをどうぞ。"},
    # Competition, local and Musician rules.
    "pending-draw-stack": {"en": "{player}, draw {count} or stack.",
                           "ja": "{player}さん、{count}枚引くか、重ねてください。"},
    "jump-in": {"en": "{player} jumps in!", "ja": "{player}さんの割り込み!"},
    "swap-needed": {"en": "{player}, choose whose hand to take.",
                    "ja": "{player}さん、てふだを交換する相手を選んでください。"},
    "swapped": {"en": "{player} swaps hands with {target}.",
                "ja": "{player}さんと{target}さんのてふだを交換します。"},
    "hands-passed": {"en": "Every hand passes to the next player.",
                     "ja": "全員、てふだを隣の人に回してください。"},
    "chin": {"en": "Chin! {player} wins the round!", "ja": "チン!{player}さんの上がり!"},
    "don": {"en": "Don! {player} wins the round on {target}'s card!",
            "ja": "ドン!{player}さんが{target}さんのカードで上がり!"},
    "don-called": {"en": "{player} calls Don!", "ja": "{player}さん、ドン!"},
    "multi-don-2": {"en": "Double Don! {player} deals next.",
                    "ja": "ダブルドン!次の親は{player}さん。"},
    "multi-don-3": {"en": "Triple Don! {player} deals next.",
                    "ja": "トリプルドン!次の親は{player}さん。"},
    "false-don": {"en": "Chombo! That was a false Don. {player} draws {count}.",
                  "ja": "チョンボ!{player}さんは{count}枚引きます。"},
    "tenhou": {"en": "Tenhou! A Don on the first card: every loss is ten times.",
               "ja": "テンホー!負けた人の点は10倍です!"},
    "renchan": {"en": "{player} has won {count} rounds in a row!",
                "ja": "{player}さん、{count}連チャン!"},
    "rendon": {"en": "Rendon! {player} has been Don'd {count} times in a row.",
               "ja": "レンドン!{player}さんは{count}回続けてドンされました。"},
    "panpakapan": {"en": "Panpakapan! Every loser lost the same: {player} pays {points} points.",
                   "ja": "パンパカパーン!勝ち負けが逆転。{player}さんは{points}点の負けです。"},
    "color-call": {"en": "Colour call! {player} pays {points} more.",
                   "ja": "色指定!{player}さんは{points}点追加です。"},
    "reverse-back": {"en": "Reverse back! {player} pays {points} more.",
                     "ja": "リバース返し!{player}さんは{points}点追加です。"},
    "skip-back": {"en": "Skip back! {player} pays {points} more.",
                  "ja": "スキップ返し!{player}さんは{points}点追加です。"},
    "same-color-don": {"en": "Same-colour Don! {player} pays {points} more.",
                       "ja": "同色ドン!{player}さんは{points}点追加です。"},
    "zero-don": {"en": "Zero Don! {player} pays {points} more.",
                 "ja": "ゼロドン!{player}さんは{points}点追加です。"},
    "rejected-no-action-finish": {"en": "Sorry, you cannot go out on an action card. Please draw.",
                                  "ja": "すみません、記号カードでは上がれません。1枚引いてください。"},
    "rejected-no-draw-finish": {"en": "Sorry, you cannot go out on a draw card. Please draw.",
                                "ja": "すみません、ドローカードでは上がれません。1枚引いてください。"},
    "rejected-no-wild-finish": {"en": "Sorry, you cannot go out on a wild card.",
                                "ja": "すみません、ワイルドでは上がれません。"},
    "rejected-no-wild-to-uno": {"en": "Sorry, with three players or fewer a wild cannot take you down to one card.",
                                "ja": "すみません、3人以下では、ワイルドでウノにはできません。"},
    "rejected-uno-first": {"en": "Please call UNO before going out with two cards.",
                           "ja": "2枚で上がる前に、ウノと言ってください。"},
    "rejected-not-same-card": {"en": "Sorry, only cards of the same number go down together.",
                               "ja": "すみません、一緒に出せるのは同じ数字のカードだけです。"},
    "rejected-one-card-at-a-time": {"en": "Sorry, one card at a time.",
                                    "ja": "すみません、1枚ずつ出してください。"},
    "rejected-swap-needed": {"en": "Waiting for the player of the seven to choose a hand.",
                             "ja": "7を出した人が相手を選ぶのを待っています。"},
    "rejected-no-swap-needed": {"en": "No hand is waiting to be chosen.",
                                "ja": "今はてふだを選ぶときではありません。"},
    "rejected-swap-with-yourself": {"en": "Please choose another player's hand.",
                                    "ja": "ほかの人のてふだを選んでください。"},
    "rejected-nothing-to-don": {"en": "There is no number card to Don on.",
                                "ja": "ドンできる数字のカードがありません。"},
    "rejected-don-own-card": {"en": "You cannot Don your own card.",
                              "ja": "自分のカードではドンできません。"},
    "rejected-false-don": {"en": "That Don does not win.", "ja": "そのドンは成立しません。"},
    "rejected-don-needs-seat": {"en": "Tap your seat token first, then Don.",
                                "ja": "先に席のトークンにタッチしてから、ドンしてください。"},
    "rejected-not-in-these-rules": {"en": "Sorry, that is not part of these rules.",
                                    "ja": "すみません、このルールではできません。"},
    # The web view's admin page: a test of the table's voice.
    "voice-test": {"en": "This is the table's voice. Can everyone hear me?",
                   "ja": "テーブルの声のテストです。聞こえますか?"},
    # The daemon: resuming, the journal, enrolment.
    "match-resumed": {"en": "The match goes on where it stopped: round {round}.",
                      "ja": "途中から続けます。第{round}ラウンドです。"},
    "journal-full": {"en": "The journal cannot be saved: the disk is full. Refereeing goes on.",
                     "ja": "ディスクがいっぱいで、記録を保存できません。審判は続けます。"},
    "table-assignment": {"en": "Table {table}: {players}.", "ja": "テーブル{table}、{players}。"},
    "journal-back": {"en": "The journal is saved again.", "ja": "記録をまた保存できるようになりました。"},
    "journal-repaired": {"en": "The journal was damaged. The match goes on from the last saved play.",
                         "ja": "記録が壊れていました。最後に保存したところから続けます。"},
    "enroll-tap": {"en": "Tap the {card}.", "ja": "{card}をタッチしてください。"},
    "enroll-token": {"en": "Tap the {token} token.", "ja": "{token}のトークンをタッチしてください。"},
    "enroll-taken": {"en": "That tag is already enrolled. Please tap the {card}.",
                     "ja": "そのタグはもう登録されています。{card}をタッチしてください。"},
    "enroll-done": {"en": "Enrolment complete: {count} tags.", "ja": "登録完了。{count}枚です。"},
    "enroll-undone": {"en": "Taken back.", "ja": "取り消しました。"},
    "enroll-named": {"en": "{card}.", "ja": "{card}です。"},
    "enroll-named-token": {"en": "The {token} token.", "ja": "{token}のトークンです。"},
    "enroll-unknown": {"en": "That tag is not in this deck.",
                       "ja": "そのタグはこのデッキにありません。"},
    "enroll-verified": {"en": "Check complete: {count} tags never tapped.",
                        "ja": "確認終了。タッチされていないタグは{count}枚です。"},
}

# Reasons of refusal said with the general "rejected" phrase on purpose: they come from the
# software's own inputs (self-play's chance, a scenario, a program calling the API), never from
# a player at the table. Every other reason has its own ``rejected-REASON`` phrase
# (tests/test_announce.py reads the code for every reason a refusal can give).
SAID_GENERALLY: Final = frozenset(
    {"unknown-action", "unknown-button", "hand-already-known", "pile-not-empty",
     "reshuffle-mismatch"}
)


def rejection_key(reason: str | None) -> str:
    """The phrase that corrects a refusal for ``reason``: its own, else the general one."""
    key = f"rejected-{reason}"
    return key if key in CATALOGUE else "rejected"

# Reasons whose correction names whose turn it is.
_COLOR_WORDS: Final = {
    "en": {Color.RED: "red", Color.YELLOW: "yellow", Color.GREEN: "green", Color.BLUE: "blue"},
    "ja": {Color.RED: "赤", Color.YELLOW: "きいろ", Color.GREEN: "緑", Color.BLUE: "青"},
}
_RANK_WORDS: Final = {
    "en": {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "W": "Wild", "W+4": "Wild Draw Four",
           "WSH": "Wild Shuffle Hands", "WC": "Wild Customizable"},
    "ja": {"S": "スキップ", "R": "リバース", "+2": "ドローツー", "W": "ワイルド",
           "W+4": "ワイルドドローフォー", "WSH": "シャッフルワイルド", "WC": "白いワイルド"},
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
    """A card as players say it: ``red seven``, ``赤の7``, ``ワイルドドローフォー``."""
    if card.number is not None:
        rank = _EN_NUMBERS[card.number] if lang == "en" else str(card.number)
    else:
        rank = _RANK_WORDS[lang][card.rank]
    if card.color is None:
        return rank
    color = _COLOR_WORDS[lang][card.color]
    return f"{color} {rank}" if lang == "en" else f"{color}の{rank}"


def color_word(color: Color, lang: str) -> str:
    return _COLOR_WORDS[lang][color]


def number_words(n: int, lang: str) -> str:
    """A count or a score as written in a phrase: digits, which Open JTalk reads with the
    counter after them (``34点`` さんじゅうよんてん); a minus said as a word in Japanese."""
    if lang == "ja" and n < 0:
        return f"マイナス{-n}"
    return str(n)


# Who is already named with a title, or by a family word, takes no さん after the name.
_JA_TITLES: Final = ("さん", "ちゃん", "くん", "君", "さま", "様", "先生", "せんせい")
_JA_FAMILY: Final = frozenset({
    "パパ", "ママ", "お父さん", "お母さん", "おとうさん", "おかあさん", "父", "母",
    "おじいちゃん", "おばあちゃん", "じいじ", "ばあば", "お兄ちゃん", "お姉ちゃん",
    "おにいちゃん", "おねえちゃん", "兄", "姉", "弟", "妹",
})
PERSON_PARAMS: Final = ("player", "catcher", "offender", "turn", "target")


def ja_addressed(name: str) -> bool:
    """True when ``name`` (as said) is already a way to address a person, so that a phrase
    says ``ママの番です`` and not ``ママさんの番です``."""
    return name in _JA_FAMILY or name.endswith(_JA_TITLES)


def _without_title(template: str, names: Mapping[str, str]) -> str:
    for param, said in names.items():
        if ja_addressed(said):
            template = template.replace(f"{{{param}}}さん", f"{{{param}}}")
    return template


def render(
    ann: Announcement, lang: str = "en", pronounce: Mapping[str, str] | None = None
) -> str:
    """The text of ``ann`` in ``lang``. Player names go through ``pronounce`` when given."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use en or ja")
    template = CATALOGUE[ann.key][lang]
    values: dict[str, str] = {}
    for name, value in ann.params:
        if name in PERSON_PARAMS:
            values[name] = (pronounce or {}).get(str(value), str(value))
        elif name == "players":  # names, one a line: "Aki, Ken and Mio" / "Aki、Ken、Mio"
            names = [(pronounce or {}).get(n, n) for n in str(value).split("\n")]
            values[name] = "、".join(names) if lang == "ja" else _and(names)
        elif name == "card":
            values[name] = card_words(parse_card(str(value)), lang)
        elif name == "color":
            values[name] = _COLOR_WORDS[lang][Color(value)]
        elif isinstance(value, int):
            values[name] = number_words(value, lang)
        else:
            values[name] = str(value)
    if lang == "ja":
        template = _without_title(template, {k: v for k, v in values.items() if k in PERSON_PARAMS})
    return template.format(**values)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _ann(key: str, priority: int = INFO, **params: str | int) -> Announcement:
    return Announcement(key, tuple(params.items()), priority)


class UnannouncedEvent(TableError, LookupError):
    """An event whose kind :data:`SAID` does not say and :data:`SILENT` does not excuse."""


@dataclass(frozen=True, slots=True)
class Telling:
    """What saying one event needs besides the event: the step's events, the names, the rules."""

    events: Sequence[Event]
    at: int  # the event's place in ``events``
    players: Sequence[str]
    options: Options | None

    def name(self, seat: int | None) -> str:
        return self.players[seat] if seat is not None else ""

    def before(self, kind: EventKind) -> list[Event]:
        """The events of ``kind`` earlier in the same step."""
        return [e for e in self.events[: self.at] if e.kind is kind]


@dataclass(frozen=True, slots=True)
class Said:
    """How one kind of event is said: every phrase it may be said with, and the function that
    picks one (``None``: nothing to say for this event, e.g. a play that is not a wild)."""

    phrases: tuple[str, ...]
    say: Callable[[Event, Telling], Announcement | None]


def _player(key: str, priority: int) -> Said:
    """An event said by one phrase that names its player."""
    return Said((key,), lambda e, t: _ann(key, priority, player=t.name(e.player)))


def _plain(key: str, priority: int) -> Said:
    """An event said by one phrase without parameters."""
    return Said((key,), lambda e, t: _ann(key, priority))


def _pays(key: str) -> Said:
    """A Musician scoring event: its player pays ``count`` points."""
    return Said((key,), lambda e, t: _ann(key, URGENT, player=t.name(e.player), points=e.count))


def _counted(key: str) -> Said:
    """A Musician run: its player has ``count`` in a row."""
    return Said((key,), lambda e, t: _ann(key, URGENT, player=t.name(e.player), count=e.count))


def _card(key: str) -> Said:
    """A card face up for all, said by name."""
    return Said((key,), lambda e, t: None if e.card is None else _ann(key, INFO, card=e.card.code))


def _reversed(e: Event, t: Telling) -> Announcement:
    way = "clockwise" if e.count > 0 else "counterclockwise"
    return _ann(f"reversed-{way}", INFO)


def _played(e: Event, t: Telling) -> Announcement | None:
    if e.card is not None and e.card.is_wild and e.color is not None:
        return _ann("wild", INFO, color=e.color.value)
    return None  # the card is on the pile for all to see


def _color_chosen(e: Event, t: Telling) -> Announcement | None:
    return None if e.color is None else _ann("color-chosen", INFO, color=e.color.value)


def _pending_draw(e: Event, t: Telling) -> Announcement:
    o = t.options
    wd4 = any(p.card is not None and p.card.rank == "W+4" for p in t.before(EventKind.PLAYED))
    key = "pending-draw-challenge" if o is not None and o.challengeable and wd4 else "pending-draw"
    if key == "pending-draw" and o is not None and o.stacking != "off":
        key = "pending-draw-stack"
    return _ann(key, URGENT, player=t.name(e.player), count=e.count)


def _penalty(e: Event, t: Telling) -> Announcement:
    """A penalty draw, said with what earned it (a catch, a challenge, a false Don...)."""
    p, reason = t.name(e.player), e.reason
    if reason == "uno-not-called":
        catches = [c for c in t.before(EventKind.CAUGHT) if c.target is not None]
        if catches:
            return _ann("caught", URGENT, catcher=t.name(catches[-1].player), player=p,
                        count=e.count)
        return _ann("uno-missed", URGENT, player=p, count=e.count)
    if reason == "illegal-wild-draw-four":
        take_back = t.options is not None and t.options.challenge_success == "take-back"
        return _ann("guilty-take-back" if take_back else "guilty", URGENT, offender=p,
                    count=e.count)
    if reason == "challenge-failed":
        return _ann("innocent", URGENT, player=p, count=e.count)
    if reason in ("false-don", "false-catch"):
        return _ann(reason, URGENT, player=p, count=e.count)
    return _ann("draws", URGENT, player=p, count=e.count)


def _challenge(e: Event, t: Telling) -> Announcement | None:
    if e.target is None:
        return None
    return _ann("challenge", URGENT, player=t.name(e.player), offender=t.name(e.target))


def _round_won(e: Event, t: Telling) -> Announcement | None:
    if e.reason == "don":
        return None  # said by the Don itself
    musician = t.options is not None and t.options.scoring == "musician"
    return _ann("chin" if musician else "round-won", URGENT, player=t.name(e.player))


def _rejected(e: Event, t: Telling) -> Announcement:
    return _ann(rejection_key(e.reason), URGENT)


def _don(e: Event, t: Telling) -> Announcement:
    if e.target is None:
        return _ann("don-called", URGENT, player=t.name(e.player))
    return _ann("don", URGENT, player=t.name(e.player), target=t.name(e.target))


# What the referee says for each kind of event. With SILENT, every kind: a kind in neither
# table is an error when it is announced, and tests/test_announce.py checks both tables
# against EventKind and the catalogue.
SAID: Final[Mapping[EventKind, Said]] = {
    EventKind.ROUND_START: Said(("round-start",), lambda e, t: _ann(
        "round-start", INFO, round=e.count, player=t.name(e.player))),
    EventKind.TURNED_UP: _card("turned-up"),
    EventKind.BURIED: _card("buried"),
    EventKind.TURN: _player("turn", ROUTINE),
    EventKind.SKIPPED: _player("skipped", INFO),
    EventKind.REVERSED: Said(("reversed-clockwise", "reversed-counterclockwise"), _reversed),
    EventKind.PLAYED: Said(("wild",), _played),
    EventKind.PASSED: _player("passed", ROUTINE),
    EventKind.COLOR_CHOSEN: Said(("color-chosen",), _color_chosen),
    EventKind.COLOR_NEEDED: _player("color-needed", URGENT),
    EventKind.PENDING_DRAW: Said(("pending-draw", "pending-draw-challenge", "pending-draw-stack"),
                         _pending_draw),
    EventKind.RESHUFFLED: _plain("reshuffled", INFO),
    EventKind.PILES_EXHAUSTED: _plain("piles-exhausted", INFO),
    EventKind.SHUFFLE_HANDS: _plain("shuffle-hands", INFO),
    EventKind.UNO: _player("uno", URGENT),
    EventKind.PENALTY: Said(("caught", "uno-missed", "guilty", "guilty-take-back", "innocent",
                     "false-don", "false-catch", "draws"), _penalty),
    EventKind.CHALLENGE: Said(("challenge",), _challenge),
    EventKind.SHOW_NEEDED: _player("show-needed", URGENT),
    EventKind.REJECTED: Said(tuple(k for k in CATALOGUE if k.startswith("rejected")), _rejected),
    EventKind.ROUND_WON: Said(("round-won", "chin"), _round_won),
    EventKind.ROUND_SCORED: Said(("round-scored",), lambda e, t: _ann(
        "round-scored", URGENT, player=t.name(e.player), points=e.count)),
    EventKind.ELIMINATED: _player("eliminated", URGENT),
    EventKind.MATCH_OVER: _player("match-over", URGENT),
    EventKind.JUMP_IN: _player("jump-in", URGENT),
    EventKind.SWAP_NEEDED: _player("swap-needed", URGENT),
    EventKind.SWAPPED: Said(("swapped",), lambda e, t: _ann(
        "swapped", URGENT, player=t.name(e.player), target=t.name(e.target))),
    EventKind.HANDS_PASSED: _plain("hands-passed", URGENT),
    EventKind.DON: Said(("don", "don-called"), _don),
    EventKind.MULTI_DON: Said(("multi-don-2", "multi-don-3"), lambda e, t: _ann(
        f"multi-don-{min(e.count, 3)}", URGENT, player=t.name(e.player))),
    EventKind.TENHOU: _plain("tenhou", URGENT),
    EventKind.RENCHAN: _counted("renchan"),
    EventKind.RENDON: _counted("rendon"),
    EventKind.PANPAKAPAN: _pays("panpakapan"),
    EventKind.COLOR_CALL: _pays("color-call"),
    EventKind.REVERSE_BACK: _pays("reverse-back"),
    EventKind.SKIP_BACK: _pays("skip-back"),
    EventKind.SAME_COLOR_DON: _pays("same-color-don"),
    EventKind.ZERO_DON: _pays("zero-don"),
}

# The kinds the referee never says, each with the reason.
SILENT: Final[Mapping[EventKind, str]] = {
    EventKind.DREW: "the table sees a player draw; the next turn is called",
    EventKind.CAUGHT: "said by the penalty that follows, which names the catcher",
    EventKind.FALSE_CATCH: "said by the penalty that follows, when the rules give one",
    EventKind.GUILTY: "said by the penalty that follows",
    EventKind.INNOCENT: "said by the penalty that follows",
    EventKind.SHOWN: "the cards of a shown hand are hidden information; the verdict is said",
    EventKind.IDENTIFIED: "a card read from a hand is hidden information",
    EventKind.UNVERIFIED: "taken without remark; the state counts what could not be checked",
}


def from_events(
    events: Sequence[Event], players: Sequence[str], options: Options | None = None
) -> list[Announcement]:
    """The announcements for one step's events, in order. Raises :class:`UnannouncedEvent` for
    a kind that is neither said nor silent on purpose."""
    out: list[Announcement] = []
    for at, e in enumerate(events):
        said = SAID.get(e.kind)
        if said is None:
            if e.kind in SILENT:
                continue
            raise UnannouncedEvent(
                f"event kind {str(e.kind)!r} has no announcement: give it a phrase in "
                f"{__name__}.SAID or a reason in SILENT"
            )
        ann = said.say(e, Telling(events, at, players, options))
        if ann is not None:
            out.append(ann)
    return out
