/* The bridge board's pins, written by `python -m table.commands.circuit_files` from
 * table/circuit/bridge_board.py: edit that model, not this file. */
#ifndef BRIDGE_PINS_H
#define BRIDGE_PINS_H

/* SCK: D13 (PB5) */
#define SCK_PORT PORTB
#define SCK_DDR DDRB
#define SCK_BIT 5
#define SCK_LETTER 'B'
/* MOSI: D11 (PB3) */
#define MOSI_PORT PORTB
#define MOSI_DDR DDRB
#define MOSI_BIT 3
#define MOSI_LETTER 'B'
/* MISO: D12 (PB4) */
#define MISO_PORT PORTB
#define MISO_DDR DDRB
#define MISO_BIT 4
#define MISO_LETTER 'B'
/* SS0: D10 (PB2) */
#define SS0_PORT PORTB
#define SS0_DDR DDRB
#define SS0_BIT 2
#define SS0_LETTER 'B'
/* SS1: D9 (PB1) */
#define SS1_PORT PORTB
#define SS1_DDR DDRB
#define SS1_BIT 1
#define SS1_LETTER 'B'
/* SS2: D8 (PB0) */
#define SS2_PORT PORTB
#define SS2_DDR DDRB
#define SS2_BIT 0
#define SS2_LETTER 'B'
/* SS3: D7 (PD7) */
#define SS3_PORT PORTD
#define SS3_DDR DDRD
#define SS3_BIT 7
#define SS3_LETTER 'D'
/* RST: D6 (PD6) */
#define RST_PORT PORTD
#define RST_DDR DDRD
#define RST_BIT 6
#define RST_LETTER 'D'

#endif
