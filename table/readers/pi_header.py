"""The Raspberry Pi's 40-pin header: physical (BOARD) pin numbers to BCM GPIO numbers, and the
pins each SPI bus uses. Pure data, for checking reader configuration and converting pins."""

from __future__ import annotations

from typing import Final

BOARD_TO_BCM: Final[dict[int, int]] = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10,
    21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19,
    36: 16, 37: 26, 38: 20, 40: 21,
}  # fmt: skip
BCM_TO_BOARD: Final[dict[int, int]] = {bcm: board for board, bcm in BOARD_TO_BCM.items()}

# BCM pins of SPI0 and SPI1 (MISO, MOSI, SCLK, then the chip enables CE0, CE1, CE2).
SPI_PINS: Final[dict[int, tuple[int, ...]]] = {
    0: (9, 10, 11, 8, 7),
    1: (19, 20, 21, 18, 17, 16),
}
