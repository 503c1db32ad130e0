"""The daemon at a real table: configuration, the referee's one thread, seat controls, the
daemon that wires readers, referee, journal and voice together, and its event stream."""
