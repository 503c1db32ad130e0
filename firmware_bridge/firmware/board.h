/* Timing of the bridge board (ATmega328P at 16 MHz: Arduino Uno or Nano). Its pins are in
 * pins.h, written from the board's circuit model (table/circuit/bridge_board.py); the UART runs
 * 115200 8N1 on the USB serial port.
 */
#ifndef BRIDGE_BOARD_H
#define BRIDGE_BOARD_H

#define FW_MAJOR 1
#define FW_MINOR 1

#include "pins.h"

#define BAUD 115200UL
/* The SPI clock in kHz: make SPI_KHZ=N, one of F_CPU's halvings (8000 4000 2000 1000 500 250
 * 125). 2000 is what simulating 1 m of Cat5e with 82 ohm in series chose; not measured on
 * real hardware (docs/hardware.md#spi-signals). */
#ifndef SPI_KHZ
#define SPI_KHZ 2000
#endif
#if SPI_KHZ == 8000
#define SPI_SPR 0
#define SPI_2X _BV(SPI2X)
#elif SPI_KHZ == 4000
#define SPI_SPR 0
#define SPI_2X 0
#elif SPI_KHZ == 2000
#define SPI_SPR _BV(SPR0)
#define SPI_2X _BV(SPI2X)
#elif SPI_KHZ == 1000
#define SPI_SPR _BV(SPR0)
#define SPI_2X 0
#elif SPI_KHZ == 500
#define SPI_SPR _BV(SPR1)
#define SPI_2X _BV(SPI2X)
#elif SPI_KHZ == 250
#define SPI_SPR _BV(SPR1)
#define SPI_2X 0
#elif SPI_KHZ == 125
#define SPI_SPR (_BV(SPR1) | _BV(SPR0))
#define SPI_2X 0
#else
#error "SPI_KHZ must be 8000, 4000, 2000, 1000, 500, 250 or 125 (16 MHz halved)"
#endif
#define HEARTBEAT_MS 250
#define POLL_MS_DEFAULT 50
#define POLL_MS_MIN 10
#define POLL_MS_MAX 1000
/* Empty polls in a row before a tag counts as removed: make MISSES=N (1 to 20). Fewer lift a
 * card sooner; more ride out a pile that misses a poll now and then. */
#ifndef REMOVAL_MISSES
#define REMOVAL_MISSES 3
#endif
#if REMOVAL_MISSES < 1 || REMOVAL_MISSES > 20
#error "MISSES must be 1 to 20 (empty polls before a tag counts as removed)"
#endif
/* The readers' receiver gain in dB (RFCfgReg RxGain): make GAIN=N. More reads a tag further
 * from the antenna, and a neighbouring pad's card too; 33 is the chip's reset value. */
#ifndef GAIN_DB
#define GAIN_DB 33
#endif
#if GAIN_DB == 18
#define RX_GAIN 2
#elif GAIN_DB == 23
#define RX_GAIN 3
#elif GAIN_DB == 33
#define RX_GAIN 4
#elif GAIN_DB == 38
#define RX_GAIN 5
#elif GAIN_DB == 43
#define RX_GAIN 6
#elif GAIN_DB == 48
#define RX_GAIN 7
#else
#error "GAIN must be 18, 23, 33, 38, 43 or 48 (dB, the MFRC522's receiver gains)"
#endif
#define CHIP_RETRY_POLLS 20 /* polls between two looks for a chip that is not there */
/* Readers whose field is on only while they are polled, so that close pads never have their
 * fields on at once (cross-talk). A bit a reader; make TURN_FIELDS=0x0E builds the seats' in
 * turn and the play pad's (reader 0, under the pile) always on. A field switched off powers
 * its tags down: a pile would wake at every poll, so a pad that holds a pile keeps its field. */
#ifndef TURN_FIELDS
#define TURN_FIELDS 0x00
#endif

#endif
