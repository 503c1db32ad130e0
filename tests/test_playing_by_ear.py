"""A round played as a screen reader user plays it, in a real browser (Debian's chromium
through Playwright): Aki's seat page is driven by controls found only by their role and
accessible name, and what happens is read only from its live regions and its accessibility
tree; the other seats are quick bots on the simulated table. At 2, 3 and 4 players, in English
and in Japanese; no other seat's card is ever in Aki's tree (a card of another hand is named
there only once it has been face up on the pile)."""

from __future__ import annotations

import queue
import re
import threading
import time
from typing import Any

import pytest
import test_web_browser as web_tests
from browser import open_page

from sim.players.bots import make_bot, seat_rng
from sim.tabletop.match import Seat, play_match
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import start_web
from table.cards import Card
from table.rules import Phase, make_options

browser = web_tests.browser
pages = web_tests.pages
live = web_tests.live
Phone = web_tests.Phone

# The page's words a player hears and presses, in each language (table.js's WORDS).
WORDS: dict[str, dict[str, Any]] = {
    "en": {"colours": {"R": "red", "Y": "yellow", "G": "green", "B": "blue"},
           "ranks": {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "W": "Wild",
                     "W+4": "Wild Draw Four", "WSH": "Wild Shuffle Hands",
                     "WC": "Wild Customizable"},
           "card": "{c} {r}", "and": ", ", "ask": "What can I play?", "hand": "Your hand",
           "draw": "Draw", "pass": "Pass", "uno": "UNO!", "can": "You can play: ",
           "pass_now": "Nothing to play: pass.", "draw_now": "Nothing to play: draw a card.",
           "choose": "Choose a colour", "call": "call UNO", "stack": " or stack",
           "must_draw": re.compile(r"^Draw \d+"), "won": "wins the round"},
    "ja": {"colours": {"R": "赤", "Y": "黄", "G": "緑", "B": "青"},
           "ranks": {"S": "スキップ", "R": "リバース", "+2": "ドローツー", "W": "ワイルド",
                     "W+4": "ワイルドドローフォー", "WSH": "シャッフルワイルド",
                     "WC": "白いワイルド"},
           "card": "{c}の{r}", "and": "、", "ask": "出せるカード", "hand": "手札",
           "draw": "引く", "pass": "パス", "uno": "ウノ!", "can": "出せるカード: ",
           "pass_now": "出せるカードがありません。パスしてください。",
           "draw_now": "出せるカードがありません。1枚引いてください。",
           "choose": "色を選", "call": "ウノと言って", "stack": "重ねる",
           "must_draw": re.compile(r"^\d+枚引"), "won": "上がり"},
}


def card_name(card: Card, lang: str) -> str:
    """A card as the page names it."""
    words = WORDS[lang]
    code = card.code
    if card.color is None:
        return str(words["ranks"][code])
    rank = code[1:]
    said = rank if rank.isdigit() else words["ranks"][rank]
    return str(words["card"]).format(c=words["colours"][code[0]], r=said)


def named(name: str, lang: str) -> re.Pattern[str]:
    """``name`` as a whole card name in a text (a Wild is not the start of a Wild Draw Four)."""
    if lang == "en":
        return re.compile(rf"(?<![\w]){re.escape(name)}(?![\w]| Draw| Shuffle| Custom| cards)")
    return re.compile(rf"(?<!シャッフル)(?<!白い)(?<!の){re.escape(name)}(?!ドロー|カード|[0-9])")


class Listener:
    """Aki's ears: the live regions of her page, message by message."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.heard = 0  # urgent messages taken in so far

    def next_urgent(self) -> str:
        """The next message of the assertive live region (waited for)."""
        self.page.wait_for_function(
            "(n) => unoTable.told.filter((m) => m.urgent).length > n", arg=self.heard,
            polling=20, timeout=30_000)
        self.heard += 1
        text = self.page.evaluate(
            "(n) => unoTable.told.filter((m) => m.urgent)[n].text", self.heard - 1)
        region = self.page.locator("[aria-live='assertive'] p").all_text_contents()
        assert text in region, (text, region)  # it is in the region a screen reader reads
        return str(text)

    def latest(self) -> str:
        """The newest urgent message, taking in any that came meanwhile."""
        total = self.page.evaluate("unoTable.told.filter((m) => m.urgent).length")
        text = ""
        while self.heard < total:
            text = self.next_urgent()
        return text


def press(page: Any, name: str | re.Pattern[str]) -> None:
    page.get_by_role("button", name=name, exact=isinstance(name, str)).first.click()


def move(page: Any, ears: Listener, lang: str) -> None:
    """Aki's move, as she makes it by ear: what the page told her last, then a question, then
    a button found by its name."""
    words = WORDS[lang]
    told = ears.latest() or ears.next_urgent()
    if words["choose"] in told:
        press(page, words["colours"]["B"])
        return
    if words["call"] in told:
        press(page, words["uno"])  # her second-last card: UNO first
        return
    if words["must_draw"].search(told) and words["stack"] not in told:
        press(page, words["draw"])
        return
    press(page, words["ask"])
    answer = ears.next_urgent()
    while not answer.startswith((words["can"], words["pass_now"], words["draw_now"])):
        answer = ears.next_urgent()  # the table told something more first: the answer follows
    if answer.startswith(words["can"]):
        first = answer[len(words["can"]):].rstrip(".。").split(words["and"])[0]
        hand = page.get_by_role("region", name=words["hand"])
        hand.get_by_role("button", name=re.compile("^" + re.escape(first) + r"\s*,")).first.click()
        if first in [words["ranks"][w] for w in ("W", "W+4", "WSH", "WC")]:
            while words["choose"] not in ears.next_urgent():
                pass  # a wild: the page asks for its colour
            press(page, words["colours"]["B"])
        return
    assert answer in (words["pass_now"], words["draw_now"]), answer
    press(page, words["pass"] if answer == words["pass_now"] else words["draw"])


def next_turn(turns: queue.Queue[int | None], table: SimTable, page: Any) -> int | None:
    """The next time the match waits for Aki (``None``: it is over)."""
    try:
        return turns.get(timeout=60)
    except queue.Empty:
        s = table.state
        told = page.evaluate("unoTable.told.slice(-8).map((m) => m.text)")
        raise AssertionError(f"the match waits for nobody: {s.phase}, seat {s.current_player}"
                             f" to act; Aki's page told {told}") from None


@pytest.mark.parametrize(("players", "lang", "seed"), [
    (2, "en", 3), (3, "en", 1), (4, "en", 2), (2, "ja", 4), (3, "ja", 5), (4, "ja", 6)])
def test_a_round_played_by_ear_through_the_accessibility_tree(
        players: int, lang: str, seed: int, browser: Any, pages: list[Any]) -> None:
    names = ["Aki", "Ken", "Mio", "Rin"][:players]
    table = SimTable(make_options("official"), names, seed, lang=lang, hands="full")
    server, remote = start_web(table, "127.0.0.1:0", plays_cards=True)
    turns: queue.Queue[int | None] = queue.Queue()
    seats: list[Seat] = [Phone(remote, 0, turns)] + [
        make_bot("heuristic", seat_rng(seed, i)) for i in range(1, players)]
    public: set[str] = set()  # every card that has been face up on the pile
    failed: list[BaseException] = []

    def after_move(t: SimTable) -> None:
        public.update(card_name(c, lang) for c in t.state.discard)

    def play() -> None:
        try:
            with table:
                public.update(card_name(c, lang) for c in table.state.discard)
                play_match(table, seats, rounds=1, after_move=after_move)
        except BaseException as exc:
            failed.append(exc)
        finally:
            remote.over = True
            turns.put(None)

    try:
        page = open_page(browser, pages, server.web.seat_urls()[0][1] + f"?pace=20&lang={lang}")
        live(page)
        ears = Listener(page)
        threading.Thread(target=play, daemon=True).start()
        moves = 0
        while next_turn(turns, table, page) is not None:
            # Her turn at the table (the match waits for her): nothing of another hand in
            # what her screen reader can reach.
            public.update(card_name(c, lang) for c in table.state.discard)
            own = {card_name(c, lang) for c in table.own_state(0).hands[0].known}
            others = {card_name(c, lang) for seat in range(1, players)
                      for c in table.state.hands[seat].known} - own - public
            tree = page.locator("body").aria_snapshot()
            # The page draws her hand from its event stream: wait (30 s at most) for it.
            deadline = time.monotonic() + 30
            while (own and not any(named(n, lang).search(tree) for n in own)
                   and time.monotonic() < deadline):
                page.wait_for_timeout(100)
                tree = page.locator("body").aria_snapshot()
            leaked = [n for n in others if named(n, lang).search(tree)]
            assert not leaked, (leaked, tree)
            assert not own or any(named(n, lang).search(tree) for n in own), tree  # her own
            move(page, ears, lang)
            moves += 1
        assert not failed, failed
        assert table.state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        assert moves >= 3, moves
        # The end of the round, heard in the polite region, in the table's language.
        page.wait_for_function(
            "(w) => [...document.querySelectorAll('[role=log] p')].some("
            "(p) => p.textContent.includes(w) && p.lang === document.documentElement.lang)",
            arg=WORDS[lang]["won"], polling=20)
    finally:
        remote.over = True
        server.stop()
