"""The whole table in software: the virtual table and its world, a match on it, the demo."""
