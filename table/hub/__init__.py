"""The tournament hub: every table's results heard on the broker, kept in the hub's own SQLite
store, checked under each table's scoring, seated round by round and ranked."""
