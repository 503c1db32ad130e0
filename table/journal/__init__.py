"""What is kept of an evening: the journal file (its rows, what a path holds, writing it and
reading it back), the records in it (match set-up, inputs, snapshots), salvage of a damaged
file, the history read back from it, and inputs kept beside it when it cannot be written."""
