"""Simulated hardware: the MFRC522 chip, the Pi's SPI and GPIO, serial readers on ptys, the
bridge board in simavr, and faults of a real line."""
