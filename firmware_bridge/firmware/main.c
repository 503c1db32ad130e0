/* uno-table bridge firmware: up to four MFRC522 readers on one ATmega328P, reported to the
 * host over the framed protocol of PROTOCOL.md. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>

#include "board.h"
#include "codec.h"
#include "mfrc522.h"
#include "uart.h"

struct reader {
    uint8_t chip;      /* VersionReg, 0 when no chip answered */
    uint8_t present;   /* a tag is on the reader */
    uint8_t misses;    /* empty polls in a row while present */
    uint8_t placement; /* counts placements, so the host tells a new one from a repeat */
    uint8_t rx_gain;   /* RFCfgReg RxGain (set_radio; the build's GAIN until then) */
    uint8_t removal;   /* empty polls before a tag counts as removed (set_radio; MISSES) */
    uint8_t uid_len;
    uint8_t uid[UID_MAX];
};

static struct reader readers[MAX_READERS];
static volatile uint32_t ticks_ms;
static uint8_t seq;
static uint8_t reset_cause;
static uint16_t poll_ms = POLL_MS_DEFAULT;
static uint16_t poll_us;
static uint8_t rx_errors;
static struct frame_decoder decoder;

/* Keeps the watchdog off after a watchdog reset, before main() runs. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    reset_cause = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

ISR(TIMER0_COMPA_vect)
{
    ticks_ms++;
}

static uint32_t millis(void)
{
    uint32_t t;
    cli();
    t = ticks_ms;
    sei();
    return t;
}

static void timers_init(void)
{
    TCCR0A = _BV(WGM01); /* CTC, 16 MHz / 64 / 250 = 1 kHz */
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    TCCR1A = 0; /* free-running, 16 MHz / 64: 4 us a count, to time the poll */
    TCCR1B = _BV(CS11) | _BV(CS10);
}

static void send(uint8_t id, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[FRAME_MAX];
    uint8_t n = frame_encode(frame, seq++, id, payload, len);
    uart_write(frame, n);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void send_info(uint8_t id)
{
    uint8_t p[MSG_BOOT_FIXED_LEN + MAX_READERS];
    p[MSG_BOOT_PROTOCOL] = PROTOCOL_VERSION;
    p[MSG_BOOT_FW_MAJOR] = FW_MAJOR;
    p[MSG_BOOT_FW_MINOR] = FW_MINOR;
    p[MSG_BOOT_RESET_CAUSE] = reset_cause;
    p[MSG_BOOT_READERS] = 0;
    put32(p + MSG_BOOT_UPTIME_MS, millis());
    for (uint8_t r = 0; r < MAX_READERS; r++) {
        p[MSG_BOOT_CHIPS + r] = readers[r].chip;
        if (readers[r].chip)
            p[MSG_BOOT_READERS]++;
    }
    send(id, p, sizeof p);
}

/* tag and removed share their layout: reader, placement, UID */
static void send_tag(uint8_t id, uint8_t r)
{
    uint8_t p[MSG_TAG_FIXED_LEN + UID_MAX];
    p[MSG_TAG_READER] = r;
    p[MSG_TAG_PLACEMENT] = readers[r].placement;
    memcpy(p + MSG_TAG_UID, readers[r].uid, readers[r].uid_len);
    send(id, p, (uint8_t)(MSG_TAG_FIXED_LEN + readers[r].uid_len));
}

static void send_heartbeat(void)
{
    uint8_t p[MSG_HEARTBEAT_FIXED_LEN];
    uint8_t present = 0;
    for (uint8_t r = 0; r < MAX_READERS; r++)
        if (readers[r].present)
            present |= (uint8_t)(1 << r);
    put32(p + MSG_HEARTBEAT_UPTIME_MS, millis());
    p[MSG_HEARTBEAT_POLL_MS] = (uint8_t)poll_ms;
    p[MSG_HEARTBEAT_POLL_MS + 1] = (uint8_t)(poll_ms >> 8);
    p[MSG_HEARTBEAT_POLL_US] = (uint8_t)poll_us;
    p[MSG_HEARTBEAT_POLL_US + 1] = (uint8_t)(poll_us >> 8);
    p[MSG_HEARTBEAT_PRESENT] = present;
    p[MSG_HEARTBEAT_RX_ERRORS] = rx_errors;
    send(MSG_HEARTBEAT, p, sizeof p);
    for (uint8_t r = 0; r < MAX_READERS; r++)
        if (readers[r].present)
            send_tag(MSG_TAG, r); /* repeated, so a frame lost on the line costs a delay, not a read */
}

static void ack(uint8_t command, uint8_t status)
{
    uint8_t p[MSG_ACK_FIXED_LEN];
    p[MSG_ACK_COMMAND] = command;
    p[MSG_ACK_STATUS] = status;
    send(MSG_ACK, p, sizeof p);
}

/* RFCfgReg's RxGain for a gain in dB, or 0 for a gain the chip does not have. */
static uint8_t rx_gain_of(uint8_t db)
{
    static const uint8_t gains[] = {18, 23, 33, 38, 43, 48};
    for (uint8_t i = 0; i < sizeof gains; i++)
        if (gains[i] == db)
            return (uint8_t)(i + 2);
    return 0;
}

static void handle(const struct frame *f)
{
    switch (f->id) {
    case MSG_PING:
        send(MSG_PONG, f->payload, f->len);
        break;
    case MSG_SET_POLL: {
        if (f->len != MSG_SET_POLL_FIXED_LEN) {
            ack(f->id, ACK_STATUS_BAD_LENGTH);
            break;
        }
        uint16_t ms = (uint16_t)(f->payload[0] | (f->payload[1] << 8));
        if (ms < POLL_MS_MIN || ms > POLL_MS_MAX) {
            ack(f->id, ACK_STATUS_BAD_VALUE);
            break;
        }
        poll_ms = ms;
        ack(f->id, ACK_STATUS_OK);
        break;
    }
    case MSG_GET_INFO:
        send_info(MSG_INFO);
        break;
    case MSG_SET_RADIO: {
        if (f->len != MSG_SET_RADIO_FIXED_LEN) {
            ack(f->id, ACK_STATUS_BAD_LENGTH);
            break;
        }
        uint8_t r = f->payload[MSG_SET_RADIO_READER];
        uint8_t gain = rx_gain_of(f->payload[MSG_SET_RADIO_GAIN_DB]);
        uint8_t misses = f->payload[MSG_SET_RADIO_MISSES];
        if (r >= MAX_READERS || !gain || misses < 1 || misses > 20) {
            ack(f->id, ACK_STATUS_BAD_VALUE);
            break;
        }
        readers[r].rx_gain = gain;
        readers[r].removal = misses;
        if (readers[r].chip)
            rc_gain(r, gain);
        ack(f->id, ACK_STATUS_OK);
        break;
    }
    default:
        ack(f->id, ACK_STATUS_UNKNOWN_COMMAND);
    }
}

/* One reader's poll: a new tag is read (and halted); otherwise the tag last read is looked
 * for by its UID, and counted removed after REMOVAL_MISSES polls without it. */
static void poll_reader(uint8_t r)
{
    struct reader *rd = &readers[r];
    uint8_t uid[UID_MAX];
    uint8_t len = rc_read_uid(r, uid);
    if (len) {
        rd->misses = 0;
        if (!rd->present || len != rd->uid_len || memcmp(uid, rd->uid, len) != 0) {
            rd->present = 1;
            rd->placement++;
            rd->uid_len = len;
            memcpy(rd->uid, uid, len);
            send_tag(MSG_TAG, r);
        }
    } else if (rd->present) {
        if (rc_still_there(r, rd->uid, rd->uid_len)) {
            rd->misses = 0;
        } else if (++rd->misses >= rd->removal) {
            rd->present = 0;
            rd->misses = 0;
            send_tag(MSG_REMOVED, r);
        }
    }
}

/* A chip that browned out (its settings back to reset values) is set up again; one that is
 * gone is looked for again now and then; the host hears of either change (an info message). */
static uint8_t check_chip(uint8_t r, uint8_t look)
{
    struct reader *rd = &readers[r];
    if (rd->chip && rc_set_up(r))
        return 1;
    if (!rd->chip && !look)
        return 0;
    uint8_t was = rd->chip;
    rd->chip = rc_init(r);
    if (rd->chip)
        rc_gain(r, rd->rx_gain);
    if (rd->chip && (TURN_FIELDS & (1 << r)))
        rc_field(r, 0);
    if (!was != !rd->chip)
        send_info(MSG_INFO);
    return rd->chip != 0;
}

static void poll_readers(void)
{
    static uint8_t polls;
    uint8_t look = ++polls >= CHIP_RETRY_POLLS;
    if (look)
        polls = 0;
    for (uint8_t r = 0; r < MAX_READERS; r++) {
        if (!check_chip(r, look))
            continue;
        uint8_t turn = (TURN_FIELDS >> r) & 1; /* its field on only while it is polled */
        if (turn)
            rc_field(r, 1);
        poll_reader(r);
        if (turn)
            rc_field(r, 0);
    }
}

int main(void)
{
    uart_init();
    timers_init();
    decoder_init(&decoder);
    sei();
    rc_bus_init();
    for (uint8_t r = 0; r < MAX_READERS; r++) {
        readers[r].rx_gain = RX_GAIN;
        readers[r].removal = REMOVAL_MISSES;
        readers[r].chip = rc_init(r);
        if (readers[r].chip && (TURN_FIELDS & (1 << r)))
            rc_field(r, 0);
    }
    set_sleep_mode(SLEEP_MODE_IDLE);
    wdt_enable(WDTO_1S);
    send_info(MSG_BOOT);

    uint32_t last_poll = millis(), last_beat = last_poll;
    for (;;) {
        wdt_reset();
        uint8_t byte;
        struct frame f;
        while (uart_read(&byte)) {
            decoder_push(&decoder, byte);
            while (decoder_next(&decoder, &f))
                handle(&f);
        }
        rx_errors = decoder.crc_errors > 255 ? 255 : (uint8_t)decoder.crc_errors;
        uint32_t now = millis();
        if (now - last_poll >= poll_ms) {
            last_poll = now;
            uint16_t start = TCNT1;
            poll_readers();
            poll_us = (uint16_t)((uint16_t)(TCNT1 - start) * 4U);
        }
        if (now - last_beat >= HEARTBEAT_MS) {
            last_beat = now;
            send_heartbeat();
        }
        /* Idle until the next interrupt (the 1 ms tick at the latest, or a received byte). */
        cli();
        if (!uart_pending()) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
