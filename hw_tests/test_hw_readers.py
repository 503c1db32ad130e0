"""Every reader of the table: a card read once while it rests, removal noticed, read again."""

from __future__ import annotations

from rig import Rig, next_report, reads_in, wait_live

from table.inputs import TagRead


def test_every_reader_reads_a_resting_card_once_and_notices_its_removal(rig: Rig) -> None:
    op = rig.operator
    assert rig.readers, "the configuration has no [[readers]]"
    for spec in rig.readers:
        with rig.running(spec) as reports:
            wait_live(reports, op.timeout)
            op.place(spec.name)
            first = next_report(reports, TagRead, op.timeout)
            assert first.reader == spec.name and 8 <= len(first.uid) <= 20
            op.settle(spec.name)
            assert reads_in(reports) == [], f"reader {spec.name} read a resting card twice"
            op.lift(spec.name)
            op.settle(spec.name)
            op.place(spec.name, again=True)
            second = next_report(reports, TagRead, op.timeout)
            assert second.uid == first.uid
            op.lift(spec.name)
