"""The table's inputs: what readers and buttons report and the referee takes, in one home."""

from table.inputs.kinds import (
    ADMIN_INPUTS,
    ROLES,
    Admin,
    Input,
    JournaledInput,
    Press,
    ReaderRole,
    ReaderStatus,
    Report,
    TagLifted,
    TagRead,
    Tick,
)

__all__ = ["ADMIN_INPUTS", "ROLES", "Admin", "Input", "JournaledInput", "Press", "ReaderRole",
           "ReaderStatus", "Report", "TagLifted", "TagRead", "Tick"]
