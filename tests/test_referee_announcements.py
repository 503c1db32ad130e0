"""The referee's announcements (:mod:`table.referee.announcements`): both languages,
renderable, and never a hidden card."""

from __future__ import annotations

import re

import pytest

from table.analysis.selfplay import RandomTable
from table.cards import parse_card
from table.referee.announcements import (
    CATALOGUE,
    Announcement,
    card_words,
    ja_number,
    render,
)
from table.referee.said import from_events
from table.rules import Phase, apply_in_place, make_options, new_game


def test_every_phrase_exists_in_both_languages() -> None:
    for key, texts in CATALOGUE.items():
        assert set(texts) == {"en", "ja"}, key
        assert set(re.findall(r"{(\w+)}", texts["en"])) == set(
            re.findall(r"{(\w+)}", texts["ja"])
        ), key


def test_japanese_is_written_as_a_referee_says_it() -> None:
    """Kanji and kana, UNO as ウノ, numbers as digits before their counters (Open JTalk reads
    34点 as さんじゅうよんてん); kana numbers remain for espeak-ng."""
    assert ja_number(34) == "さんじゅうよん"
    assert ja_number(300) == "さんびゃく"
    assert ja_number(-67) == "マイナス ろくじゅうなな"
    assert card_words(parse_card("R5"), "ja") == "赤の5"
    assert card_words(parse_card("W+4"), "ja") == "ワイルドドローフォー"
    for texts in CATALOGUE.values():
        assert not re.search(r"[A-Za-z]", re.sub(r"{\w+}", "", texts["ja"])), texts["ja"]
    said = render(Announcement("uno-missed", (("player", "ケン"), ("count", 2))), "ja")
    assert said == "ケンさん、ウノの宣言忘れ。2枚引いてください。"
    scored = render(Announcement("round-scored", (("player", "陽菜"), ("points", -34))), "ja")
    assert scored == "陽菜さん、マイナス34点です。"


def test_a_name_that_already_addresses_a_person_takes_no_san() -> None:
    def turn(name: str) -> str:
        return render(Announcement("turn", (("player", name),)), "ja")

    assert turn("山田") == "山田さんの番です。"
    assert turn("ママ") == "ママの番です。"
    assert turn("ゆいちゃん") == "ゆいちゃんの番です。"
    caught = Announcement("caught", (("catcher", "パパ"), ("player", "翔太"), ("count", 2)))
    assert render(caught, "ja").startswith("パパが翔太さんのウノ忘れを")


# Phrases each preset's self-play must come to say (the variant rules' own among them).
EXPECTED_KEYS = {
    "official": {"turn", "round-won"},
    "house": {"pending-draw-stack", "round-won"},
    "musician": {"don", "chin", "pending-draw-stack"},
}


@pytest.mark.parametrize("preset", sorted(EXPECTED_KEYS))
def test_self_play_announcements_render_and_hide_hands(preset: str) -> None:
    """Run many rounds; every announcement renders in both languages, and a card is only ever
    named when it is face up on the table (played or turned up)."""
    options = make_options(preset)
    table = RandomTable(options, 4, seed=11)
    said = 0
    keys: set[str] = set()
    for _ in range(30):
        s, events = new_game(options, table.names, table.dealer(), table.deal())
        while s.phase is Phase.PLAY:
            table.supply_chance(s)
            action = table.choose(s)
            assert action is not None
            events = apply_in_place(s, action)
            late = table.out_of_turn(s)  # a Don, a jump-in, a late UNO call or a catch
            if late is not None:
                events += apply_in_place(s, late)
            public = {e.card.code for e in events if e.kind in ("played", "turned-up", "buried")
                      and e.card is not None}
            for ann in from_events(events, s.players, options):
                keys.add(ann.key)
                for lang in ("en", "ja"):
                    assert render(ann, lang)
                said += 1
                card = ann.param("card")
                assert card is None or card in public
    assert said > 1000
    assert EXPECTED_KEYS[preset] <= keys


def test_referee_never_names_a_hidden_card() -> None:
    """A long self-play driven through the referee, as the daemon drives it: no sentence it
    says names a coloured card that is not face up on the table at that moment."""
    from table.cards import COLORS, NUMBER_RANKS, Card
    from table.inputs import ReaderRole
    from table.referee.referee import Referee
    from table.referee.registry import virtual_deck

    names = {
        card_words(Card(color, rank), lang): Card(color, rank)
        for color in COLORS
        for rank in (*NUMBER_RANKS, "S", "R", "+2")
        for lang in ("en", "ja")
    }
    options = make_options()
    table = RandomTable(options, 3, seed=5)
    spoken = 0
    for _ in range(20):
        ref, _ = Referee.create(options, table.names, virtual_deck(), [ReaderRole("pad", "play")],
                                table.dealer(), table.deal())
        while ref.state.phase is Phase.PLAY:
            table.supply_chance(ref.state)
            action = table.choose(ref.state)
            assert action is not None
            out = ref.act(action)
            top = ref.state.top
            for ann in out.announcements:
                for lang in ("en", "ja"):
                    text = render(ann, lang)
                    spoken += 1
                    for words, card in names.items():
                        if words in text:
                            assert card is top or ann.key in ("turned-up", "buried"), text
    assert spoken > 1000


def _refusal_reasons() -> set[str]:
    """Every reason a refusal can give, read from the code: the rules' ``IllegalPlay("...")``
    and the referee's own ``_refuse("rejected", "...")``."""
    import ast
    from pathlib import Path

    reasons: set[str] = set()
    for path in (Path(__file__).resolve().parent.parent / "table").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            args = [a.value for a in node.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name == "IllegalPlay" and args:
                reasons.add(args[0])
            elif name == "_refuse" and len(args) == 2 and args[0] == "rejected":
                reasons.add(args[1])
    return reasons


def test_every_refusal_a_player_can_meet_has_its_own_correction() -> None:
    """A player at the table hears why a tap was refused, in both languages; only the reasons
    that come from the software's own inputs are said with the general phrase, on purpose."""
    from table.referee.announcements import SAID_GENERALLY, rejection_key

    reasons = _refusal_reasons()
    assert {"not-your-turn", "has-playable-card", "keep-drawing", "token-on-seat-pad"} <= reasons
    general = {r for r in reasons if rejection_key(r) == "rejected"}
    assert general == SAID_GENERALLY & reasons
    assert not {f"rejected-{r}" for r in SAID_GENERALLY} & set(CATALOGUE)


def test_a_refusal_is_corrected_with_its_reason() -> None:
    """Drawing while holding a playable card (draw_by_choice = false) is refused and said as
    such; a player token tapped on a seat pad is told where it goes."""
    from table.cards import parse_card
    from table.inputs import ReaderRole, TagRead
    from table.referee.referee import Referee
    from table.referee.registry import Token, virtual_deck
    from table.rules import Deal, Draw

    options = make_options("official", draw_by_choice=False)
    deck = virtual_deck()
    r5, r7 = parse_card("R5"), parse_card("R7")
    ref, _ = Referee.create(
        options, ("Aki", "Ken"), deck,
        [ReaderRole("pad", "play"), ReaderRole("seat1", "seat", 0)], 1,
        Deal(hands=[((r7,), 6), ((), 7)], start=(r5,)),
    )
    out = ref.act(Draw(0))
    assert (out.verdict, out.reason) == ("rejected", "has-playable-card")
    assert [render(a, "en") for a in out.announcements] == [
        "You have a card you can play. Please play it."
    ]
    said_ja = render(out.announcements[0], "ja")
    assert said_ja == "出せるカードがあります。そのカードを出してください。"
    token = next(uid for uid, tag in deck.tags.items() if isinstance(tag, Token))
    refused = ref.handle(TagRead("seat1", token))
    assert (refused.verdict, refused.reason) == ("rejected", "token-on-seat-pad")
    said = render(refused.announcements[0], "en")
    assert said == "Please tap that token where the cards are played."
