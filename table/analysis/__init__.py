"""Studies of the rules away from a table: self-play matches."""
