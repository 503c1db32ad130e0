/* Interrupt-driven UART: a receive ring and a transmit ring. */
#ifndef BRIDGE_UART_H
#define BRIDGE_UART_H

#include <stdint.h>

void uart_init(void);
/* Queues bytes for sending; waits for room when the ring is full. */
void uart_write(const uint8_t *data, uint8_t len);
/* 1 and the next received byte in *byte, or 0 when none is waiting. */
uint8_t uart_read(uint8_t *byte);
/* 1 when received bytes are waiting. */
uint8_t uart_pending(void);

#endif
