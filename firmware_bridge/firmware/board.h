/* Pins and timing of the bridge board (ATmega328P at 16 MHz: Arduino Uno or Nano).
 *
 *   reader 0 SDA/SS  D10 (PB2)      SPI  MOSI D11 (PB3)  MISO D12 (PB4)  SCK D13 (PB5)
 *   reader 1 SDA/SS  D9  (PB1)      RST of every reader  D6 (PD6)
 *   reader 2 SDA/SS  D8  (PB0)      UART 115200 8N1 on the USB serial port
 *   reader 3 SDA/SS  D7  (PD7)
 */
#ifndef BRIDGE_BOARD_H
#define BRIDGE_BOARD_H

#define FW_MAJOR 1
#define FW_MINOR 1

#define BAUD 115200UL
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
