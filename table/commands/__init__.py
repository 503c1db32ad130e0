"""The `uno-table` command line: one module per group of commands."""
