"""``uno-table check-table`` on the rig: every pad reads a card with every other pad silent
(cross-talk between every pair), each chip's version, and no reader lost with every field on.
One line per check, PASS or FAIL; a failure lists the FAIL lines with their fixes."""

from __future__ import annotations

from rig import Rig

from table.commands.check_table import check_table


def test_every_pad_reads_alone_and_every_chip_is_genuine(rig: Rig) -> None:
    op = rig.operator
    lines: list[str] = []

    def ask(action: str, pad: str) -> None:
        if action == "place":
            op.place(pad)
        else:
            op.lift(pad)

    def settle(pad: str) -> None:
        for spec in rig.readers:  # every reader polls a while with the card down
            op.settle(spec.name)

    code = check_table(rig.readers, ask, settle, op.timeout, lines.append)
    fails = [line for line in lines if line.startswith("FAIL")]
    assert code == 0 and not fails, "\n".join(fails)
    for spec in rig.readers:
        assert any(line.startswith(f"PASS  pad {spec.name}: reads ") for line in lines)
        if len(rig.readers) > 1:
            assert f"PASS  pad {spec.name}: every other pad silent" in lines
