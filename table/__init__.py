"""uno-table: an automatic referee for UNO played with RFID-tagged cards."""

__version__ = "0.1.0"
