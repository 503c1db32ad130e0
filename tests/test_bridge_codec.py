"""The bridge's frame codec: golden frames through the Python codec and the firmware's C codec
(compiled for this machine), resynchronisation after garbage and damaged frames."""

from __future__ import annotations

from pathlib import Path

import pytest
from bridge_build import build_codec_cli, run_codec_cli
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import gen_header
from firmware_bridge.codec import MAX_PAYLOAD, Decoder, Frame, FrameError, crc16, encode
from firmware_bridge.errors import BridgeError
from firmware_bridge.messages import TYPES, pack, unpack
from table.errors import TableError
from table.readers.bridge import BridgePort
from table.readers.factory import ReaderError

# (seq, id, payload, frame): one of each message, an empty payload and the longest one.
GOLDEN = [
    (0, 0x01, "01010002033400000092929100", "A50D00010101000203340000009292910005C2"),  # boot
    (1, 0x03, "2E0100003200E4290500", "A50A01032E0100003200E4290500B034"),  # heartbeat
    (2, 0x04, "000104A1B2C3", "A5060204000104A1B2C3D677"),  # tag, 4-byte UID
    (3, 0x04, "03C804112233445566", "A509030403C8041122334455668328"),  # tag, 7-byte UID
    (255, 0x05, "03C804112233445566", "A509FF0503C8041122334455663786"),  # removed
    (7, 0x06, "", "A5000706CD35"),  # pong, empty token
    (8, 0x07, "4101", "A50208074101007B"),  # ack
    (0, 0x40, "6869", "A502004068692E37"),  # ping
    (1, 0x41, "6400", "A5020141640048CE"),  # set_poll 100 ms
    (2, 0x42, "", "A500024278C2"),  # get_info
    (3, 0x43, "022B04", "A5030343022B049A2F"),  # set_radio reader 2, 43 dB, 4 misses
    (9, 0x40, bytes(range(32)).hex().upper(),
     "A5200940" + bytes(range(32)).hex().upper() + "9837"),  # ping, 32 bytes
]

# Garbage, a frame, a frame with a flipped bit, a sync byte with an impossible length, a frame
# cut short by another, two good frames: only the good ones come out, in order.
TAG, HEART, PONG = GOLDEN[2][3], GOLDEN[1][3], GOLDEN[5][3]
DAMAGED = TAG[:10] + "B0" + TAG[12:]
STREAM = "0013FF" + TAG + DAMAGED + "A5FF" + HEART[:14] + PONG + HEART + "A5"
STREAM_FRAMES = [GOLDEN[2], GOLDEN[5], GOLDEN[1]]


@pytest.fixture(scope="module")
def codec_cli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_codec_cli(tmp_path_factory.mktemp("codec"))


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_python_codec_matches_golden_frames() -> None:
    for seq, msg_id, payload, frame in GOLDEN:
        assert encode(Frame(seq, msg_id, bytes.fromhex(payload))).hex().upper() == frame
        assert Decoder().feed(bytes.fromhex(frame)) == [Frame(seq, msg_id, bytes.fromhex(payload))]


def test_c_codec_matches_golden_frames(codec_cli: Path) -> None:
    enc = run_codec_cli(codec_cli, [f"enc {s} {i} {p or '-'}" for s, i, p, _ in GOLDEN])
    assert enc == [frame for *_, frame in GOLDEN]
    dec = run_codec_cli(codec_cli, [f"dec {frame}" for *_, frame in GOLDEN])
    expected = []
    for seq, msg_id, payload, _ in GOLDEN:
        expected += [f"{seq} {msg_id} {payload or '-'}", "end dropped=0 crc_errors=0"]
    assert dec == expected


def test_both_codecs_resynchronise_alike(codec_cli: Path) -> None:
    decoder = Decoder()
    frames = decoder.feed(bytes.fromhex(STREAM))
    assert frames == [Frame(s, i, bytes.fromhex(p)) for s, i, p, _ in STREAM_FRAMES]
    assert decoder.crc_errors == 2  # the damaged frame and the one cut short
    c_out = run_codec_cli(codec_cli, [f"dec {STREAM}"])
    assert c_out[:-1] == [f"{s} {i} {p or '-'}" for s, i, p, _ in STREAM_FRAMES]
    assert c_out[-1] == f"end dropped={decoder.dropped} crc_errors={decoder.crc_errors}"


def test_frames_split_anywhere_are_reassembled() -> None:
    data = bytes.fromhex(STREAM)
    for cut in range(len(data)):
        decoder = Decoder()
        assert decoder.feed(data[:cut]) + decoder.feed(data[cut:]) == Decoder().feed(data)


@given(
    st.lists(
        st.tuples(
            st.binary(max_size=12),
            st.integers(0, 255),
            st.integers(0, 255),
            st.binary(max_size=MAX_PAYLOAD),
        ),
        max_size=8,
    )
)
def test_garbage_between_frames_loses_no_frame(items: list[tuple[bytes, int, int, bytes]]) -> None:
    sent = [Frame(seq, msg_id, payload) for _, seq, msg_id, payload in items]
    stream = b"".join(garbage + encode(f) for (garbage, *_), f in zip(items, sent, strict=True))
    decoder = Decoder()
    assert decoder.feed(stream) + decoder.idle() == sent


def test_a_stray_sync_holds_frames_back_only_until_the_line_is_quiet() -> None:
    decoder = Decoder()
    assert decoder.feed(bytes.fromhex("A503" + PONG)) == []  # could be a 3-byte frame
    assert decoder.idle() == [Frame(7, 0x06, b"")]


def test_messages_pack_and_unpack() -> None:
    frame = pack("tag", seq=3, reader=3, placement=200, uid=bytes.fromhex("04112233445566"))
    assert encode(frame).hex().upper() == GOLDEN[3][3]
    msg = unpack(frame)
    assert msg is not None and msg.name == "tag" and msg.seq == 3
    assert msg.num("placement") == 200 and msg.raw("uid").hex() == "04112233445566"
    assert unpack(Frame(0, 0x03, b"\x00")) is None  # a heartbeat too short
    assert unpack(Frame(0, 0x99, b"")) is None  # an unknown id


@pytest.mark.parametrize(
    ("name", "fields", "message"),
    [
        ("tap", {}, "unknown message 'tap'"),
        ("set_poll", {"interval": 5}, "takes the fields interval_ms"),
        ("set_poll", {"interval_ms": 70000}, "set_poll.interval_ms must be a u16"),
        ("ping", {"token": bytes(33)}, "at most 32 allowed"),
    ],
)
def test_bad_messages_are_refused_clearly(name: str, fields: dict[str, int], message: str) -> None:
    with pytest.raises(FrameError, match=message):
        encode(pack(name, **fields))


def test_the_codec_stands_alone_and_the_host_says_its_refusal_as_a_reader_error() -> None:
    with pytest.raises(FrameError) as refused:
        encode(pack("set_poll", interval_ms=70000))
    assert isinstance(refused.value, BridgeError) and not isinstance(refused.value, TableError)
    port = BridgePort("/dev/null/no-board")  # never started: the refusal comes before the line
    with pytest.raises(ReaderError, match=r"bridge /dev/null/no-board: .*must be a u16"):
        port.set_poll_interval(70000)


def test_committed_header_is_generated_from_the_table() -> None:
    assert gen_header.HEADER_PATH.read_text() == gen_header.render()
    assert gen_header.main(["--check"]) == 0


def test_protocol_document_lists_every_message() -> None:
    text = (Path(gen_header.__file__).parent / "PROTOCOL.md").read_text()
    for mtype in TYPES.values():
        assert f"| 0x{mtype.msg_id:02X} | `{mtype.name}` |" in text
    for *_, frame in GOLDEN[:11]:  # all but the 32-byte ping
        assert " ".join(frame[i : i + 2] for i in range(0, len(frame), 2)) in text
