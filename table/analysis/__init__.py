"""Studies of the rules away from a table (self-play, rule variants compared) and an evening's
figures read from its journal."""
