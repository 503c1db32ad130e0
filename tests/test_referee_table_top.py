"""The referee follows physical cards through what a simulated match exercises: a buried first
card drawn later, hands named again after Shuffle Hands, a next-round token read twice."""

from __future__ import annotations

from table.cards import parse_cards
from table.inputs import Press, ReaderRole, TagRead
from table.referee.referee import Referee
from table.referee.registry import parse_tag, virtual_deck
from table.rules import Deal, Phase, make_options


def table(aki: str, ken: str, deck: str = "classic-108", start: str = "") -> Referee:
    """Aki and Ken (Ken deals), their cards dealt onto their seat pads (copy #1 of each)."""
    hands = [([], len(aki.split())), ([], len(ken.split()))]
    readers = [ReaderRole("pad", "play"), ReaderRole("shoe", "draw"),
               ReaderRole("Aki", "seat", 0), ReaderRole("Ken", "seat", 1)]
    ref, _ = Referee.create(make_options("official", deck=deck), ["Aki", "Ken"],
                            virtual_deck(deck), readers, 1,
                            Deal(hands=hands, start=parse_cards(start.split())))
    for seat, cards in (("Aki", aki), ("Ken", ken)):
        for code in cards.split():
            assert tap(ref, seat, f"{code}#1") == ("accepted", None)
    return ref


def tap(ref: Referee, reader: str, code: str) -> tuple[str, str | None]:
    uid = ref.deck.uid_of(parse_tag(code))
    assert uid is not None
    out = ref.handle(TagRead(reader, uid))
    return out.verdict, out.reason


def test_a_buried_first_card_can_be_drawn_later() -> None:
    ref = table("R1 G2", "B3 Y4")
    assert tap(ref, "pad", "W+4#1")[0] == "accepted"  # turned up, and buried in the pile
    assert ref.state.phase is Phase.START
    assert tap(ref, "pad", "R5#1") == ("accepted", None)
    assert tap(ref, "pad", "G2#1") == ("rejected", "wrong-color-or-number")
    assert tap(ref, "shoe", "W+4#1") == ("accepted", None)  # Aki draws it from the pile
    assert len(ref.state.hands[0]) == 3


def test_shuffled_hands_are_named_again_on_the_seat_pads() -> None:
    ref = table("WSH R1 G2", "B3 Y4 Y5", deck="2018-112", start="R5")
    assert tap(ref, "pad", "WSH#1")[0] == "accepted"
    assert tap(ref, "pad", "token:color:blue")[0] == "accepted"
    assert [h.unknown for h in ref.state.hands] == [2, 3]
    assert tap(ref, "Aki", "B3#1") == ("accepted", None)  # Ken's card, now dealt to Aki
    assert tap(ref, "Ken", "R1#1") == ("accepted", None)
    ref.state.check_conservation()


def test_a_next_round_token_read_twice_starts_one_round() -> None:
    ref = table("R1", "B3 Y4", start="R5")
    assert tap(ref, "pad", "R1#1") == ("accepted", None)  # Aki goes out
    assert ref.state.phase is Phase.ROUND_OVER
    assert tap(ref, "pad", "token:next-round") == ("accepted", None)
    assert tap(ref, "pad", "token:next-round") == ("ignored", "still-on-pad")
    assert ref.state.round == 2


def test_the_last_card_of_a_shown_hand_can_be_played_next() -> None:
    """Only a play pad: Aki's hand is shown on it for a challenge, then Aki plays the card that
    was shown last. It is a new placement (the hand went back to Aki), not a card resting."""
    ref, _ = Referee.create(make_options(), ["Aki", "Ken"], virtual_deck(),
                            [ReaderRole("pad", "play")], 1,
                            Deal(hands=[([], 3), ([], 3)], start=parse_cards(["R5"])))
    assert tap(ref, "pad", "W+4#1") == ("accepted", None)
    assert tap(ref, "pad", "token:color:yellow") == ("accepted", None)
    assert ref.handle(Press(1, "challenge")).verdict == "accepted"  # Ken challenges
    assert ref.state.awaiting_show == 0
    assert tap(ref, "pad", "G1#1") == ("accepted", None)
    assert tap(ref, "pad", "Y2#1")[0] == "penalty"  # innocent: Ken draws six
    assert ref.state.turn == 0
    assert tap(ref, "pad", "Y2#1") == ("accepted", None)  # Aki plays the yellow 2
    assert ref.state.top is not None and ref.state.top.code == "Y2"
