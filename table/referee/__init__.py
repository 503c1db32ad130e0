"""The referee at the table: tag reads and presses in, verdicts and announcements out.

The referee itself, the registry of tags (which UID is which card or token), the phrases it
says, the public views it publishes, and the scenario language that replays it."""
