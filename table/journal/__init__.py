"""What is kept of an evening: the journal file, the records in it (match set-up, inputs,
snapshots), salvage of a damaged file, the history read back from it, and inputs kept beside it
when it cannot be written."""
