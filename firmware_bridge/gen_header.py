"""Write ``firmware/messages.h`` from ``messages.toml``, the one message table.

``python -m firmware_bridge.gen_header`` rewrites the header; ``--check`` exits 1 when the
committed header differs from what the table gives (the test suite checks the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_bridge.messages import TABLE, TYPES, WIDTHS

HEADER_PATH = Path(__file__).parent / "firmware" / "messages.h"


def render() -> str:
    """The C header of the message table, as the firmware includes it."""
    proto = TABLE["protocol"]
    lines = [
        "/* Generated from firmware_bridge/messages.toml by firmware_bridge/gen_header.py.",
        " * Do not edit: change the table and run `python -m firmware_bridge.gen_header`. */",
        "#ifndef BRIDGE_MESSAGES_H",
        "#define BRIDGE_MESSAGES_H",
        "",
        f"#define PROTOCOL_VERSION {proto['version']}",
        f"#define FRAME_SYNC 0x{proto['sync']:02X}",
        f"#define FRAME_MAX_PAYLOAD {proto['max_payload']}",
        f"#define MAX_READERS {proto['max_readers']}",
        "",
    ]
    for mtype in TYPES.values():
        upper = mtype.name.upper()
        lines.append(f"/* {mtype.sender} -> {'host' if mtype.sender == 'board' else 'board'}: "
                     f"{mtype.doc} */")
        lines.append(f"#define MSG_{upper} 0x{mtype.msg_id:02X}")
        fixed = 0
        for field, kind in mtype.fields:
            if kind == "bytes":
                lines.append(f"#define MSG_{upper}_{field.upper()} {fixed} /* bytes, to the end */")
            else:
                lines.append(f"#define MSG_{upper}_{field.upper()} {fixed} /* {kind} */")
                fixed += WIDTHS[kind]
        lines.append(f"#define MSG_{upper}_FIXED_LEN {fixed}")
        lines.append("")
    for group in ("ack_status", "reset_cause"):
        for key, value in TABLE[group].items():
            lines.append(f"#define {group.upper()}_{key.upper()} 0x{value:02X}")
        lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the header (or, with ``--check``, compare it); the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not HEADER_PATH.exists() or HEADER_PATH.read_text() != text:
            print(f"{HEADER_PATH.name}: out of date; run python -m firmware_bridge.gen_header",
                  file=sys.stderr)
            return 1
        return 0
    HEADER_PATH.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
