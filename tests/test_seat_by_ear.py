"""A seat page as its player's private channel, in a real browser (Debian's chromium through
Playwright): the player's questions answered from what the page holds (the hand in order, by
colour; what can be played; the top card and colour; everyone's count; the last events),
without a request to anyone, so that nothing of it reaches another seat, the table view or the
table's stream (and so MQTT, which publishes that stream, and the voice); the live regions,
told one at a time, urgent first, each in its language; the page's own speech on request."""

from __future__ import annotations

import itertools
from typing import Any

import test_accessibility_pages as pages_tests
import test_playing_by_ear as ear
import test_web_browser as web_tests
from browser import open_page

from sim.tabletop.virtual import SimTable
from table.cards import sort_key

browser = web_tests.browser
pages = web_tests.pages
mid_round = pages_tests.mid_round
live = web_tests.live

# Every utterance the page hands the browser's speech, kept; each ends at once.
SPEECH = """
window.__spoken = [];
window.speechSynthesis.speak = (u) => {
  window.__spoken.push({ text: u.text, lang: u.lang });
  setTimeout(() => u.onend && u.onend(), 0);
};
"""


def hand_words(table: SimTable, seat: int) -> str:
    """The hand as the page says it: its count, then each colour's cards in order."""
    words = ear.WORDS["en"]
    cards = sorted(table.own_state(seat).hands[seat].known, key=sort_key)
    groups: list[tuple[str, list[str]]] = []
    for card in cards:
        colour = words["colours"][card.code[0]] if card.color is not None else "Wild cards"
        name = ear.card_name(card, "en")
        rank = name if card.color is None else name.split(" ", 1)[1]
        if not groups or groups[-1][0] != colour:
            groups.append((colour, []))
        groups[-1][1].append(rank)
    listed = " ".join(f"{c}: {', '.join(names)}." for c, names in groups)
    return f"{len(cards)} card{'s' if len(cards) != 1 else ''}. {listed}"


def quiet(page: Any) -> None:
    """Until the page has told everything it had to tell."""
    page.wait_for_function("() => !teller.busy && teller.queue.length === 0", polling=20)


def ask(page: Any, button: str) -> str:
    """Press a question's button (found by its name); the answer the assertive region tells."""
    told = page.evaluate("unoTable.told.length")
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_function(
        "(n) => unoTable.told.slice(n).some((m) => m.urgent)", arg=told, polling=20)
    answer = page.evaluate("(n) => unoTable.told.slice(n).find((m) => m.urgent)", told)
    assert answer["text"] in page.locator("[aria-live='assertive'] p").all_text_contents()
    return str(answer["text"])


def test_the_player_asks_and_only_the_player_hears(
        mid_round: tuple[SimTable, Any, dict[str, Any]], browser: Any,
        pages: list[Any]) -> None:
    table, server, shown = mid_round
    aki, tv = shown["seat"], shown["table"]
    ken = open_page(browser, pages, server.web.seat_urls()[1][1] + "?lang=en&pace=20")
    live(ken)
    aki.bring_to_front()
    sent: list[str] = []
    aki.on("request", lambda request: sent.append(request.url))
    mark = server.web.feed.snapshot_mark()[0]
    for page in (aki, ken, tv):
        quiet(page)
    heard = {p: p.evaluate("unoTable.told ? unoTable.told.length : 0") for p in (ken, tv)}
    state = table.state

    assert ask(aki, "My hand") == hand_words(table, 0)
    top = ear.card_name(state.top, "en")
    assert ask(aki, "Top card").startswith(f"Top card: {top}. Colour: {state.color.value}.")
    counts = ask(aki, "Cards held")
    for name, hand in zip(state.players, state.hands, strict=True):
        assert f"{name} {len(hand)} card" in counts
    playable = ask(aki, "What can I play?")
    if state.current_player != 0:
        assert playable == f"Not your turn: {state.players[state.current_player]}'s turn."
    said = [line[4:] for line in table.transcript if line.startswith("  > ")]
    assert len(said) >= 5
    assert ask(aki, "Last events") == " ".join(said[-5:])  # the latest announcements, again

    # Asking sent nothing anywhere: no request, no event on the table's stream, nothing new
    # told on Ken's page or the table view.
    assert sent == []
    assert server.web.feed.snapshot_mark()[0] == mark
    for page, n in heard.items():
        assert page.evaluate("unoTable.told ? unoTable.told.length : 0") == n
    mine = {ear.card_name(c, "en") for c in table.own_state(0).hands[0].known}
    others = {ear.card_name(c, "en") for c in table.own_state(1).hands[1].known}
    only_aki = mine - others - {ear.card_name(c, "en") for c in state.discard}
    for page in (ken, tv):
        tree = page.locator("body").aria_snapshot()
        assert not [n for n in only_aki if ear.named(n, "en").search(tree)], tree


def test_a_burst_is_told_one_at_a_time_in_order_urgent_first(
        browser: Any, pages: list[Any], tmp_path: Any) -> None:
    from web_harness import web_daemon

    with web_daemon(tmp_path) as t:
        tv = open_page(browser, pages, f"http://127.0.0.1:{t.port}/?lang=en&pace=150")
        live(tv)
        quiet(tv)
        tv.evaluate("""() => { for (let i = 1; i <= 6; i++) teller.say('event ' + i, 'en', false);
                               teller.say('now', 'en', true); }""")
        tv.wait_for_function("() => unoTable.told.length === 7", polling=20)
        told = tv.evaluate("unoTable.told")
        # The first was already out; the urgent one jumps the queue; then the rest in order.
        assert [m["text"] for m in told] == ["event 1", "now"] + [f"event {i}" for i in
                                                                   range(2, 7)]
        for before, after in itertools.pairwise(told):
            assert after["at"] - before["at"] >= 150 * (1 + len(before["text"]) / 40) - 1
        # The table view has no assertive region: the urgent one is told in the polite one.
        assert tv.locator("[aria-live='polite'] p").all_text_contents()[-7:] == [
            m["text"] for m in told]
        assert tv.locator("[aria-live='polite'] p").first.get_attribute("lang") == "en"
        # A real announcement reaches the spectators' region in the table's language.
        t.tap("R5#1")
        tv.wait_for_function("(w) => unoTable.told.some((m) => m.text === w)",
                             arg="Ken's turn.", polling=20)


def test_the_page_speaks_in_the_table_s_language_when_asked(
        browser: Any, pages: list[Any], tmp_path: Any, monkeypatch: Any) -> None:
    import web_harness
    from web_harness import web_daemon

    plain = web_harness.sim_config
    monkeypatch.setattr(web_harness, "sim_config", lambda *a, **k: plain(*a, **k).replace(
        'language = "en"', 'language = "ja"', 1))
    with web_daemon(tmp_path) as t:
        page = browser.new_page()
        pages.append(page)
        page.add_init_script(SPEECH)
        page.goto(f"http://127.0.0.1:{t.port}/seat/{t.token(1)}?pace=20")
        live(page)
        assert page.evaluate("document.documentElement.lang") == "ja"
        page.get_by_role("checkbox", name="この端末で読み上げる (イヤホン)").check()
        t.tap("R5#1")  # Ken's turn: told at once, and spoken
        page.wait_for_function(
            "() => __spoken.some((u) => u.text.startsWith('あなたの番'))"
            " && __spoken.some((u) => u.text.includes('Kenさんの番です'))", polling=20)
        spoken = page.evaluate("__spoken")
        assert all(u["lang"] == "ja-JP" for u in spoken), spoken
        assert any("Kenさんの番です" in u["text"] for u in spoken), spoken
        page.get_by_role("checkbox", name="この端末で読み上げる (イヤホン)").uncheck()
        n = len(spoken)
        page.get_by_role("button", name="場のカード", exact=True).click()
        page.wait_for_function("(w) => unoTable.told.some((m) => m.text.startsWith(w))",
                               arg="場のカード: 赤の5", polling=20)
        assert page.evaluate("__spoken.length") == n  # not spoken once turned off
