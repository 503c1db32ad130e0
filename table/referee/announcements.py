# ruff: noqa: E501  (the phrase catalogue reads best one phrase a line)
"""Announcements: the phrases the referee says, in English and Japanese, and their words.

An :class:`Announcement` is a phrase key with parameters and a priority; :func:`render` turns it
into text in one language (which phrase each engine event is said with is
:mod:`table.referee.said`). Announcements are made from engine events, which carry only public
information, so nothing said can reveal a hidden card. The Japanese catalogue is written as a
Japanese referee speaks, in kanji and kana, with numbers as digits before their counters
(``34点``, ``2枚``): Open JTalk reads them as said (さんじゅうよんてん, にまい), and
:mod:`table.voice.kana` turns them into kana for espeak-ng, which reads no kanji.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from table.cards import Card, Color, parse_card

# Priorities: penalties and verdicts go before routine turn calls.
ROUTINE: Final = 0
INFO: Final = 1
URGENT: Final = 2


@dataclass(frozen=True, slots=True)
class Announcement:
    """A phrase key, its parameters and its priority: what the referee says."""
    key: str
    params: tuple[tuple[str, str | int], ...] = ()
    priority: int = INFO

    def param(self, name: str) -> str | int | None:
        """The value of parameter ``name``, or None."""
        return dict(self.params).get(name)


CATALOGUE: Final[dict[str, dict[str, str]]] = {
    "round-start": {"en": "Round {round}. {player} deals.", "ja": "第{round}ラウンド。親は{player}さんです。"},
    "turned-up": {"en": "The first card is {card}.", "ja": "最初のカードは{card}です。"},
    "buried": {"en": "{card} goes back in the pile. Turn up another card.",
               "ja": "{card}は山札に戻します。もう1枚めくってください。"},
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
                               "ja": "{player}さん、{count}枚引くか、チャレンジしてください。"},
    "draws": {"en": "{player} draws {count}.", "ja": "{player}さん、{count}枚引いてください。"},
    "uno": {"en": "{player} calls UNO!", "ja": "{player}さん、ウノ!"},
    "caught": {"en": "{catcher} caught {player}! {player} forgot to call UNO and draws {count}.",
               "ja": "{catcher}さんが{player}さんのウノ忘れを見つけました!{player}さんは{count}枚引いてください。"},
    "uno-missed": {"en": "{player} forgot to call UNO and draws {count}.",
                   "ja": "{player}さん、ウノの宣言忘れ。{count}枚引いてください。"},
    "caught-loses-turn": {"en": "{catcher} caught {player}! {player} forgot to call UNO and loses the next turn.",
                          "ja": "{catcher}さんが{player}さんのウノ忘れを見つけました!{player}さんは次の番が休みです。"},
    "uno-missed-loses-turn": {"en": "{player} forgot to call UNO and loses the next turn.",
                              "ja": "{player}さん、ウノの宣言忘れ。次の番は休みです。"},
    "false-catch": {"en": "False catch. {player} draws {count}.",
                    "ja": "指摘は間違いです。{player}さん、{count}枚引いてください。"},
    "challenge": {"en": "{player} challenges {offender}.", "ja": "{player}さんが{offender}さんにチャレンジ!"},
    "guilty": {"en": "Challenge upheld: guilty! {offender} draws {count}.",
               "ja": "チャレンジ成功!{offender}さん、{count}枚引いてください。"},
    "guilty-take-back": {"en": "Challenge upheld: guilty! {offender} takes the card back and draws {count}.",
                         "ja": "チャレンジ成功!{offender}さん、カードを戻して、{count}枚引いてください。"},
    "guilty-discard": {"en": "Challenge upheld: guilty! {offender} discards the card and draws {count}.",
                       "ja": "チャレンジ成功!{offender}さん、カードを捨て札にして、{count}枚引いてください。"},
    "innocent": {"en": "Challenge failed: innocent! {player} draws {count}.",
                 "ja": "チャレンジ失敗!{player}さん、{count}枚引いてください。"},
    "show-needed": {"en": "{player}, please show your hand.", "ja": "{player}さん、手札を見せてください。"},
    "reshuffled": {"en": "The discard pile is shuffled into a new draw pile.",
                   "ja": "捨て札を切って、新しい山札にします。"},
    "piles-exhausted": {"en": "No cards left to draw.", "ja": "引けるカードがもうありません。"},
    "shuffle-hands": {"en": "Shuffle hands! Every hand is collected and dealt again.",
                      "ja": "シャッフルワイルド!全員の手札を集めて、配り直します。"},
    "round-won": {"en": "{player} wins the round!", "ja": "{player}さんの上がり!"},
    "round-scored": {"en": "{player} scores {points} points.", "ja": "{player}さん、{points}点です。"},
    "standings": {"en": "Scores: {scores}.", "ja": "得点は、{scores}です。"},
    "eliminated": {"en": "{player} is out of the match.", "ja": "{player}さんは脱落です。"},
    "match-over": {"en": "{player} wins the match!", "ja": "{player}さんの優勝です!"},
    "undone": {"en": "Undone.", "ja": "取り消しました。"},
    "passed": {"en": "{player} passes.", "ja": "{player}さんはパス。"},
    # Polite corrections for rejected actions, by reason.
    "rejected": {"en": "Sorry, that is not allowed.", "ja": "すみません、それはできません。"},
    "rejected-not-your-turn": {"en": "Sorry, it is not your turn.", "ja": "すみません、まだ番ではありません。"},
    "rejected-wrong-color-or-number": {"en": "Sorry, that card does not match.",
                                       "ja": "すみません、そのカードは出せません。"},
    "rejected-card-not-available": {"en": "That card is already played.",
                                    "ja": "そのカードはもう出ています。"},
    "rejected-card-not-in-hand": {"en": "That card is not in your hand.",
                                  "ja": "そのカードは手札にありません。"},
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
                             "ja": "手札を見せるのを待っています。"},
    "rejected-show-mismatch": {"en": "That is not the whole hand. Please show it again.",
                               "ja": "手札が合いません。もう一度見せてください。"},
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
    "rejected-own-wild-draw-four": {
        "en": "Nobody challenges their own Wild Draw Four.",
        "ja": "自分のワイルドドローフォーには、チャレンジできません。"},
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
    "reader-lost": {"en": "The {reader} reader is disconnected.", "ja": "リーダー「{reader}」の接続が切れました。"},
    "reader-waiting": {"en": "The {reader} reader is not plugged in. Waiting for it.", "ja": "リーダー「{reader}」がつながっていません。つながるのをまっています。"},
    "reader-back": {"en": "The {reader} reader is back.", "ja": "リーダー「{reader}」がつながりました。"},
    "unknown-tag": {"en": "Unknown card. Please try another.", "ja": "登録されていないカードです。別のカードをどうぞ。"},
    # Competition, local and Musician rules.
    "pending-draw-stack": {"en": "{player}, draw {count} or stack.",
                           "ja": "{player}さん、{count}枚引くか、重ねてください。"},
    "jump-in": {"en": "{player} jumps in!", "ja": "{player}さんの割り込み!"},
    "swap-needed": {"en": "{player}, choose whose hand to take.",
                    "ja": "{player}さん、手札を交換する相手を選んでください。"},
    "swapped": {"en": "{player} swaps hands with {target}.",
                "ja": "{player}さんと{target}さんの手札を交換します。"},
    "hands-passed": {"en": "Every hand passes to the next player.",
                     "ja": "全員、手札を隣の人に回してください。"},
    "chin": {"en": "Chin! {player} wins the round!", "ja": "チン!{player}さんの上がり!"},
    "don": {"en": "Don! {player} wins the round on {target}'s card!",
            "ja": "ドン!{player}さんが{target}さんのカードで上がり!"},
    "don-called": {"en": "{player} calls Don!", "ja": "{player}さん、ドン!"},
    "multi-don-2": {"en": "Double Don! {player} deals next.",
                    "ja": "ダブルドン!次の親は{player}さん。"},
    "multi-don-3": {"en": "Triple Don! {player} deals next.",
                    "ja": "トリプルドン!次の親は{player}さん。"},
    "false-don": {"en": "Chombo! That was a false Don. {player} draws {count}.",
                  "ja": "チョンボ!{player}さん、{count}枚引いてください。"},
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
                                "ja": "今は手札を選ぶときではありません。"},
    "rejected-swap-with-yourself": {"en": "Please choose another player's hand.",
                                    "ja": "ほかの人の手札を選んでください。"},
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
    "table-assignment": {"en": "Table {table}: {players}.", "ja": "{table}は、{players}です。"},
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
# (tests/test_referee_announcements.py reads the code for every reason a refusal can give).
SAID_GENERALLY: Final = frozenset(
    {"unknown-action", "unknown-button", "unknown-admin-action", "hand-already-known",
     "pile-not-empty", "reshuffle-mismatch"}
)


def corrections() -> dict[str, dict[str, str]]:
    """The polite corrections (``rejected`` phrases, which name no one), by key, in every
    language: what the web pages show for a refused input instead of the program's reason."""
    return {key: dict(words) for key, words in CATALOGUE.items() if key.startswith("rejected")}


def rejection_key(reason: str | None) -> str:
    """The phrase that corrects a refusal for ``reason``: its own, else the general one."""
    key = f"rejected-{reason}"
    return key if key in CATALOGUE else "rejected"

# Reasons whose correction names whose turn it is.
_COLOR_WORDS: Final = {
    "en": {Color.RED: "red", Color.YELLOW: "yellow", Color.GREEN: "green", Color.BLUE: "blue"},
    "ja": {Color.RED: "赤", Color.YELLOW: "黄色", Color.GREEN: "緑", Color.BLUE: "青"},
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
    """A colour as said in ``lang`` (``red``, ``赤``)."""
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
    """True when ``name`` (as written or as said, in kana of either kind) is already a way to
    address a person, so that a phrase says ``ママの番です`` and not ``ママさんの番です``
    (ユイチャン as much as ゆいちゃん)."""
    plain = _hiragana(name)
    return (name in _JA_FAMILY or plain in _JA_FAMILY or plain.endswith(_JA_TITLES)
            or name.endswith(_JA_TITLES))


def _hiragana(text: str) -> str:
    return "".join(chr(ord(ch) - 0x60) if 0x30A1 <= ord(ch) <= 0x30F6 else ch for ch in text)


def _ja_person(written: str, said: str) -> str:
    """A name in a Japanese list of people: with さん unless it already addresses someone."""
    return said if ja_addressed(written) or ja_addressed(said) else f"{said}さん"


def table_words(table: str, lang: str) -> str:
    """A table's id as said: ``3番テーブル`` for an id ending in a number (``3``,
    ``table-3``), else the id after テーブル; ``Table 3`` in English."""
    if lang != "ja":
        return table
    digits = re.search(r"(\d+)$", table)
    return f"{int(digits.group(1))}番テーブル" if digits else f"テーブル「{table}」"


def _without_title(template: str, names: Mapping[str, tuple[str, str]]) -> str:
    for param, (written, said) in names.items():
        if ja_addressed(written) or ja_addressed(said):
            template = template.replace(f"{{{param}}}さん", f"{{{param}}}")
    return template


# Words Open JTalk misreads, written in kanji in the captions and said from this spelling.
SPOKEN_JA: Final[Mapping[str, str]] = {"山札": "やまふだ", "手札": "てふだ", "黄色": "きいろ"}


def speech(text: str, lang: str) -> str:
    """The caption ``text`` as the voice is given it: in Japanese, the words Open JTalk
    misreads (山札 is not やまさつ) spelt as said; in English the text itself."""
    if lang != "ja":
        return text
    for word, said in SPOKEN_JA.items():
        text = text.replace(word, said)
    return text


def names_in(ann: Announcement) -> list[str]:
    """The people ``ann`` names: the names :func:`render` says through ``pronounce``."""
    found: list[str] = []
    for name, value in ann.params:
        if name in PERSON_PARAMS:
            found.append(str(value))
        elif name == "players":
            found.extend(str(value).split("\n"))
    return found


def render(
    ann: Announcement, lang: str = "en", pronounce: Mapping[str, str] | None = None
) -> str:
    """The text of ``ann`` in ``lang``. Player names go through ``pronounce`` when given."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use en or ja")
    template = CATALOGUE[ann.key][lang]
    values: dict[str, str] = {}
    written: dict[str, str] = {}
    for name, value in ann.params:
        if name in PERSON_PARAMS:
            written[name] = str(value)
            values[name] = (pronounce or {}).get(str(value), str(value))
        elif name == "players":  # names, one a line: "Aki, Ken and Mio" / "Aki、Ken、Mio"
            names = str(value).split("\n")
            said = [(pronounce or {}).get(n, n) for n in names]
            values[name] = ("、".join(_ja_person(n, s) for n, s in zip(names, said, strict=True))
                            if lang == "ja" else _and(said))
        elif name == "table":
            values[name] = table_words(str(value), lang)
        elif name == "card":
            values[name] = card_words(parse_card(str(value)), lang)
        elif name == "color":
            values[name] = _COLOR_WORDS[lang][Color(value)]
        elif isinstance(value, int):
            values[name] = number_words(value, lang)
        else:
            values[name] = str(value)
    if lang == "ja":
        template = _without_title(template, {k: (written[k], v) for k, v in values.items()
                                             if k in PERSON_PARAMS})
    return template.format(**values)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
