"""The reader's defences against a noisy radio, each against the noise it answers: a read that
noise could explain never reaches the referee. Pads are chip models polled by the real backend
on a simulated clock (sim/hardware/noisy_table.py)."""

from __future__ import annotations

from sim.hardware.noisy_table import NoisyTable, Pad
from sim.hardware.radio_noise import NoiseRates, RadioNoise
from table.readers.guard import Confirmation, ReadGuard

CARD, OTHER = "04A1B2C3", "04112233445566"
PILE = ["04000001", "04000002", "0400000003AA01", "04000004", "04000005"]
DECK = {CARD, OTHER, *PILE}
NEAR = [Pad("pile", near=("Aki",)), Pad("Aki", role="seat")]


def ghosts(**kw: float) -> RadioNoise:
    """Cross-talk only, every ghost an exact copy of the neighbour's card."""
    return RadioNoise(NoiseRates(crosstalk=kw.get("rate", 1.0), shift=0.0, garble=0.0), seed=11)


def test_a_ghost_on_a_neighbouring_pad_is_never_a_read() -> None:
    with NoisyTable(NEAR, ghosts()) as table:
        table.place("pile", CARD)
        table.run(60.0)
        assert table.noise is not None and table.noise.counts["crosstalk"] >= 40
        assert table.reads_on("pile") == [CARD]
        assert table.reads_on("Aki") == []  # seen at single polls: never confirmed
        assert table.state["Aki"].reader.guard.unconfirmed >= 40


def test_without_confirmation_the_same_ghosts_would_be_plays() -> None:
    with NoisyTable(NEAR, ghosts(), confirm=1) as table:
        table.place("pile", CARD)
        table.run(60.0)
        assert table.reads_on("Aki")  # the first ghost already a play


def test_fields_taken_in_turn_cut_cross_talk() -> None:
    counts = {}
    for fields in ("always", "turns"):
        with NoisyTable(NEAR, ghosts(), fields=fields) as table:
            table.place("pile", CARD)
            table.run(60.0)
            assert table.noise is not None
            counts[fields] = table.noise.counts["crosstalk"]
            assert table.reads_on("pile") == [CARD] and table.reads_on("Aki") == []
    assert counts["turns"] < counts["always"] / 2


def test_the_pile_woken_by_a_field_reset_is_not_played_again() -> None:
    with NoisyTable([Pad("pile")]) as table:
        for uid in PILE:
            table.place("pile", uid)
            table.run(0.3)
        assert table.reads_on("pile") == PILE
        reader = table.state["pile"].reader
        reader.pulse_reset()  # every halted card of the pile powers up and answers again
        assert all(t.state == "IDLE" for t in table.chip("pile").tags)
        table.run(1.0)
        assert all(t.state == "HALT" for t in table.chip("pile").tags)  # read, known, halted
        table.place("pile", CARD)
        table.run(0.3)
        assert table.reads_on("pile") == [*PILE, CARD]  # the new card, once; the pile, never


def test_a_card_slid_across_a_pad_counts_only_where_it_stops() -> None:
    with NoisyTable([Pad("Aki", role="seat"), Pad("pile")]) as table:
        table.run(0.1)
        tag = table.place("Aki", CARD)
        table.run(0.03)  # over Aki's pad for a poll or two on its way to the pile
        table.remove("Aki", tag)
        table.place("pile", CARD)
        table.run(0.5)
        assert table.reads_on("Aki") == []
        assert table.reads_on("pile") == [CARD]


def test_a_real_tap_still_counts() -> None:
    with NoisyTable([Pad("pile")], RadioNoise("harsh", seed=2)) as table:
        table.run(0.1)
        tag = table.place("pile", CARD)
        table.run(0.2)  # a quick tap: a fifth of a second on the pad
        table.remove("pile", tag)
        table.run(0.2)
        assert table.reads_on("pile") == [CARD]


def test_a_locked_up_reader_is_reset_within_a_second_without_a_word() -> None:
    with NoisyTable([Pad("pile")]) as table:
        table.run(0.1)
        table.chip("pile").locked = True  # hung: no interrupt, no timer, until RST
        start = table.clock.now
        table.place("pile", CARD)
        assert table.run_until(lambda: table.reads_on("pile") == [CARD], limit=1.0)
        assert table.clock.now - start < 1.0
        assert table.state["pile"].lockups_reset == 1
        assert [s.state for s in table.statuses] == ["live"]  # no lost, no second live


def test_a_reader_that_stays_hung_is_reported_lost() -> None:
    with NoisyTable([Pad("pile")]) as table:
        table.run(0.1)
        chip = table.chip("pile")
        for _ in range(5):
            chip.locked = True
            table.run(0.02)
        assert [s.state for s in table.statuses] == ["live", "lost"]
        table.run(0.1)
        assert [s.state for s in table.statuses] == ["live", "lost", "live"]


def test_a_corrupted_uid_that_maps_to_no_card_is_never_a_read() -> None:
    noise = RadioNoise(NoiseRates(crosstalk=5.0, shift=0.5, garble=0.5, bad_bcc=0.0), seed=4)
    with NoisyTable(NEAR, noise, confirm=1, known=DECK.__contains__) as table:
        table.place("pile", CARD)
        table.run(20.0)
        assert table.noise is not None and table.noise.counts["crosstalk"] >= 50
        assert table.reads_on("Aki") == []  # shifted or flipped: no card of the deck
        assert table.state["Aki"].reader.guard.counts["noise"] >= 50


def test_without_the_deck_check_corrupted_uids_would_be_plays() -> None:
    noise = RadioNoise(NoiseRates(crosstalk=5.0, shift=0.5, garble=0.5, bad_bcc=0.0), seed=4)
    with NoisyTable(NEAR, noise, confirm=1) as table:
        table.place("pile", CARD)
        table.run(20.0)
        assert [uid for uid in table.reads_on("Aki") if uid not in DECK]


def test_a_uid_with_a_bad_bcc_is_never_read() -> None:
    noise = RadioNoise(NoiseRates(crosstalk=5.0, shift=1.0, bad_bcc=1.0), seed=4)
    with NoisyTable(NEAR, noise, confirm=1) as table:
        table.place("pile", CARD)
        table.run(20.0)
        assert table.reads_on("Aki") == []


def test_a_harsh_evening_of_placements_misses_none_and_invents_none() -> None:
    """Cards tapped, slid and played on a four-pad table with every effect of the harsh level
    on: every real placement is read once, nothing else is (bench/readers.py does 10,000)."""
    from sim.hardware.placements import run

    for seed in (1, 2):
        result = run("harsh", 80, seed)
        assert (result["missed"], result["ghost_verdicts"]) == (0, 0), result
        injected = result["injected"]
        assert isinstance(injected, dict)
        assert all(injected[k] for k in ("flap", "drop", "crosstalk", "detune")), injected


def test_a_read_confirmed_just_before_the_chip_hangs_is_not_lost() -> None:
    with NoisyTable([Pad("pile")]) as table:
        table.run(0.1)
        chip = table.chip("pile")
        table.place("pile", CARD)
        reader = table.state["pile"].reader
        reader.guard.rule = Confirmation(need=1)  # confirmed at its first read
        sent_halt = chip.sent[0x50]
        original = chip._transmit

        def hang_after_the_halt() -> None:
            original()
            if chip.sent[0x50] > sent_halt:
                chip.locked = True  # hangs right after halting the card it just read

        chip._transmit = hang_after_the_halt  # type: ignore[method-assign]
        table.run(0.2)
        assert table.reads_on("pile") == [CARD]
        assert table.state["pile"].lockups_reset >= 1


def test_a_card_just_read_on_one_pad_is_not_confirmed_on_another_meanwhile() -> None:
    """The card just played on the pile leaks into a seat's pad, where a slide had left it
    pending: while the pile reads it as its own, the seat's sightings confirm nothing."""
    table: dict[str, tuple[str, float]] = {}
    pile = ReadGuard("pile", Confirmation(need=1), table=table)
    seat = ReadGuard("Ken", Confirmation(need=2, gap=0.12), table=table)
    uid = bytes.fromhex(CARD)
    assert seat.sighting(uid, 0.00)[0] == "pending"  # the slide over Ken's pad
    assert pile.sighting(uid, 0.03)[0] == "confirmed"  # played on the pile
    assert seat.sighting(uid, 0.05) == ("pending", [])  # leaked: not a second play
    assert seat.sighting(uid, 0.50)[0] == "pending"  # long after: counted from scratch
    assert seat.sighting(uid, 0.56)[0] == "confirmed"  # (it really is on Ken's pad now)
