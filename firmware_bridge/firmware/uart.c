#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#include "board.h"

#define RX_SIZE 64 /* powers of two */
#define TX_SIZE 128

static volatile uint8_t rx_buf[RX_SIZE], tx_buf[TX_SIZE];
static volatile uint8_t rx_head, rx_tail, tx_head, tx_tail;

void uart_init(void)
{
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)((F_CPU / (8UL * BAUD)) - 1); /* 16 at 16 MHz: 117,647 baud, +2.1% */
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);               /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));
    if (next != rx_tail) { /* a full ring drops the byte; the codec resynchronises */
        rx_buf[rx_head] = byte;
        rx_head = next;
    }
}

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)((tx_tail + 1) & (TX_SIZE - 1));
}

void uart_write(const uint8_t *data, uint8_t len)
{
    while (len--) {
        uint8_t next = (uint8_t)((tx_head + 1) & (TX_SIZE - 1));
        while (next == tx_tail)
            ; /* the UDRE interrupt makes room */
        tx_buf[tx_head] = *data++;
        tx_head = next;
        UCSR0B |= _BV(UDRIE0);
    }
}

uint8_t uart_read(uint8_t *byte)
{
    if (rx_head == rx_tail)
        return 0;
    *byte = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
    return 1;
}

uint8_t uart_pending(void)
{
    return rx_head != rx_tail;
}
