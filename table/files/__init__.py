"""Files the table reads and writes: text and TOML read safely, files created private."""
