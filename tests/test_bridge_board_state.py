"""The host's view of a board, message by message (pure: no board, no port)."""

from __future__ import annotations

import itertools

from firmware_bridge.board_state import BoardState, BoardUp, Read, Removed, Reply
from firmware_bridge.messages import Message

CHIPS = bytes([0x92, 0x92, 0x92, 0x92])
_numbers = itertools.count(1)  # the board numbers its frames one after the other


def number(seq: int | None) -> int:
    return next(_numbers) % 256 if seq is None else seq


def boot(name: str = "boot", uptime: int = 50, seq: int | None = None) -> Message:
    fields: dict[str, int | bytes] = {"protocol": 1, "fw_major": 1, "fw_minor": 0,
                                      "reset_cause": 0, "readers": 4, "uptime_ms": uptime,
                                      "chips": CHIPS}
    return Message(name, fields, 0 if seq is None and name == "boot" else number(seq))


def tag(ch: int, placement: int, uid: str, name: str = "tag", seq: int | None = None
        ) -> Message:
    return Message(name, {"reader": ch, "placement": placement, "uid": bytes.fromhex(uid)},
                   number(seq))


def beat(uptime: int, present: int = 0, seq: int | None = None) -> Message:
    return Message("heartbeat", {"uptime_ms": uptime, "poll_ms": 50, "poll_us": 11000,
                                 "present": present, "rx_errors": 0}, number(seq))


def test_nothing_counts_before_the_board_says_who_it_is() -> None:
    s = BoardState()
    assert s.handle(tag(0, 1, "04A1B2C3")) == []
    info = boot("info", 900)
    assert s.handle(info) == [BoardUp("1.0", 1, tuple(CHIPS), False), Reply(info)]
    assert s.handle(tag(0, 1, "04A1B2C3")) == [Read(0, "04A1B2C3")]


def test_repeats_are_not_reads_and_a_new_placement_is() -> None:
    s = BoardState()
    s.handle(boot())
    assert s.handle(tag(2, 1, "04112233445566")) == [Read(2, "04112233445566")]
    assert s.handle(tag(2, 1, "04112233445566")) == []
    assert s.handle(tag(2, 2, "04112233445566")) == [Read(2, "04112233445566")]


def test_a_tap_whose_tag_frame_was_lost_is_read_from_its_removal() -> None:
    s = BoardState()
    s.handle(boot())
    removed = s.handle(tag(1, 5, "DEADBEEF", "removed"))
    assert removed == [Read(1, "DEADBEEF"), Removed(1, "DEADBEEF")]


def test_a_reset_whose_boot_frame_was_lost_is_seen_in_the_uptime() -> None:
    s = BoardState()
    s.handle(boot())
    s.handle(beat(5000, present=1))
    s.handle(tag(0, 7, "04A1B2C3"))
    s.handle(beat(300))  # uptime went backwards: the board restarted
    assert s.restarts == 2
    assert s.handle(tag(0, 1, "04A1B2C3")) == []  # the card that stayed on the pad
    assert s.handle(tag(0, 2, "DEADBEEF")) == [Read(0, "DEADBEEF")]


def test_a_reset_whose_boot_frame_was_lost_is_seen_in_the_sequence_numbers() -> None:
    """A reset before the board's first heartbeat leaves no uptime to go backwards; its frame
    numbers start again, and the card that stayed on the pad is not played a second time."""
    s = BoardState()
    s.handle(boot("info", uptime=51, seq=1))  # the boot frame came before the port was open
    assert s.handle(tag(0, 1, "04A1B2C3", seq=2)) == [Read(0, "04A1B2C3")]
    s.handle(tag(0, 1, "04A1B2C3", "removed", seq=3))
    assert s.handle(tag(0, 2, "04A1B2C3", seq=4)) == [Read(0, "04A1B2C3")]  # tapped again
    # reset; the new boot frame (seq 0) is lost; the first poll finds the card still there
    assert s.handle(tag(0, 1, "04A1B2C3", seq=1)) == []
    assert (s.restarts, s.missed_frames) == (1, 1)
    assert s.handle(tag(1, 1, "DEADBEEF", seq=2)) == [Read(1, "DEADBEEF")]


def test_a_tag_lifted_during_a_reset_is_read_when_put_back() -> None:
    s = BoardState()
    s.handle(boot())
    s.handle(tag(3, 1, "04A1B2C3"))
    s.handle(boot(uptime=50))
    s.handle(beat(300))  # too early to tell: the first polls may still be under way
    assert s.carried[3] == "04A1B2C3"
    s.handle(beat(550))  # settled, and the reader is empty
    assert s.handle(tag(3, 1, "04A1B2C3")) == [Read(3, "04A1B2C3")]


def test_missed_frames_are_counted_from_sequence_numbers() -> None:
    s = BoardState()
    s.handle(boot(seq=254))
    s.handle(beat(300, seq=255))
    s.handle(beat(550, seq=3))  # 0, 1 and 2 were lost
    assert s.missed_frames == 3
    assert s.restarts == 1  # numbers that went round are not a restart
