/* A simulated bridge board: the compiled firmware on simavr's ATmega328P, one MFRC522 model
 * per slave-select pin on the SPI bus, the UART on a pseudo-terminal.
 *
 *   avr_board FIRMWARE.elf [--link PATH] [--readers N] [--seed S]
 *
 * Commands on stdin, one a line, each answered by "ok ..." or "error ..." on stdout:
 *   place READER UIDHEX   a tag (4, 7 or 10 bytes) comes to rest on reader 0..3 (on the
 *                         ones already there: up to 8, a pile)
 *   remove READER [UID]   that tag (or every tag) leaves the reader
 *   brownout READER       that chip's supply dips: it resets (registers, antenna off)
 *   overlaps              "ok overlaps N00 N01 .. N33": frames chip i has sent while chip
 *                         j's field was on (row i, column j)
 *   reset                 the board resets (as when the host opens the port of an Uno)
 *   noise N               N random bytes go out on the serial line, between the board's bytes
 *   freeze / thaw         the CPU stops / runs again (a hung board: heartbeats stop)
 *   quit                  (also on end of input)
 * The first line out is "pty PATH", the serial port to open. Simulated time is held to wall
 * time, a real board's pace, by one clock (see pace()). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pins.h" /* the firmware's pins, written from table/circuit/bridge_board.py */

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "sim_time.h"

#define READERS 4
#define F_CPU 16000000u
#define BYTE_CYCLES 1600u /* 100 us, a byte's time on the line at 115,200 baud (87 us), rounded up */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- pace
 *
 * Simulated time is held to wall time by one clock: cycle pace_cycle was at wall time pace_wall.
 * Every wait goes through pace(): the firmware's sleeps (the board's own sleep callback) and,
 * once a simulated millisecond, the stretches where it runs without sleeping. libsimavr's own
 * sleep callback must not be used: it waits against a second clock of its own, started at the
 * firmware's first sleep and never moved, so the two clocks disagreed by however long the first
 * boot took to simulate. The busy boot after a reset then ran ahead of that clock, and the
 * firmware's first sleep after it, between the first two bytes of its boot frame, paid the
 * difference back at once: the line went quiet mid-frame for up to 50 ms, which no real board
 * does (its UART sends a frame's bytes back to back). Nor does pace() wait while the UART is
 * sending: a frame goes out in one piece, and the wait comes after it. */
static avr_t *avr;
static double pace_wall;
static avr_cycle_count_t pace_cycle;
static avr_cycle_count_t last_tx; /* when the UART last sent a byte */

static void pace_restart(void)
{
    pace_wall = wall();
    pace_cycle = avr->cycle;
}

/* Waits until wall time has caught up with simulated cycle `at` (not in the middle of a frame:
 * within two byte times of the last byte sent, more may follow). */
static void pace(avr_cycle_count_t at)
{
    if (avr->cycle - last_tx < 2 * BYTE_CYCLES)
        return;
    double ahead = (double)(at - pace_cycle) / F_CPU - (wall() - pace_wall);
    if (ahead > 0.0002)
        usleep((useconds_t)(ahead * 1e6));
    else if (ahead < -0.5) /* far behind (a busy machine): do not race to catch up */
        pace_restart();
}

static void board_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    pace(a->cycle + how_long);
}

/* ---------------------------------------------------------------- MFRC522 model */

enum { CommandReg = 0x01, ComIEnReg = 0x02, ComIrqReg = 0x04, DivIrqReg = 0x05,
       ErrorReg = 0x06, FIFODataReg = 0x09, FIFOLevelReg = 0x0A, ControlReg = 0x0C,
       BitFramingReg = 0x0D, TxControlReg = 0x14, CRCResultRegH = 0x21, CRCResultRegL = 0x22,
       TModeReg = 0x2A, TPrescalerReg = 0x2B, TReloadRegH = 0x2C, TReloadRegL = 0x2D,
       VersionReg = 0x37 };
enum { CARD_IDLE, CARD_READY, CARD_ACTIVE, CARD_HALT };
enum { PENDING_NONE, PENDING_ANSWER, PENDING_TIMEOUT };

#define CARDS 8

struct card {
    int state, level, woken; /* woken: READY or ACTIVE after a WUPA from HALT */
    uint8_t uid[10];
    int uid_len;
};

struct chip {
    int exists;
    uint8_t reg[64];
    uint8_t fifo[64];
    int fifo_n;
    /* SPI transaction */
    int selected, pos, reading;
    uint8_t addr;
    /* transceive in flight */
    int pending;
    avr_cycle_count_t tx_done, done;
    uint8_t answer[16];
    int answer_n;
    /* the tags on the reader (a pile of halted ones, a new one on top) */
    struct card cards[CARDS];
    int n_cards;
    long overlaps[READERS]; /* frames sent while chip j's field was on */
    int collided;
    uint8_t version;  /* its VersionReg: 0x92, or a clone's (the version command) */
    long spi_bytes;   /* SPI bytes exchanged with this chip (the spi command) */
    long requests;    /* REQA frames sent: one a poll */
};

static struct chip chips[READERS];

static void chip_reset(struct chip *c)
{
    memset(c->reg, 0, sizeof c->reg);
    c->reg[CommandReg] = 0x20;
    c->reg[ComIEnReg] = 0x80;
    c->reg[ComIrqReg] = 0x14;
    c->reg[ControlReg] = 0x10;
    c->reg[0x11] = 0x3F; /* ModeReg */
    c->reg[0x26] = 0x48; /* RFCfgReg: receiver gain 33 dB */
    c->reg[TxControlReg] = 0x80;
    c->reg[VersionReg] = c->version;
    c->fifo_n = 0;
    c->pending = PENDING_NONE;
    for (int i = 0; i < c->n_cards; i++) /* the field is off: the tags lose power */
        c->cards[i].state = CARD_IDLE;
}

static uint16_t crc_a(const uint8_t *data, int len)
{
    uint16_t crc = 0x6363;
    for (int i = 0; i < len; i++) {
        uint8_t ch = (uint8_t)(data[i] ^ (crc & 0xFF));
        ch = (uint8_t)(ch ^ (ch << 4));
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)ch << 8) ^ ((uint16_t)ch << 3) ^ (ch >> 4));
    }
    return crc;
}

static avr_cycle_count_t usec(double us)
{
    return (avr_cycle_count_t)(us * (F_CPU / 1000000.0));
}

/* Air time at 106 kbit/s: 9.44 us a bit, 9 bits a byte with parity. */
static double air_us(int bytes, int lastbits)
{
    return 9.44 * (lastbits ? (bytes - 1) * 9 + lastbits : bytes * 9);
}

static void fall_back(struct card *k)
{
    k->state = k->woken ? CARD_HALT : CARD_IDLE;
    k->level = 0;
}

/* One PICC's answer to a frame, per ISO 14443-3; returns its length (0: no answer). */
static int card_answer(struct card *k, const uint8_t *f, int n, int lastbits, uint8_t *out)
{
    int levels = k->uid_len == 4 ? 1 : k->uid_len == 7 ? 2 : 3;
    if (n == 1 && lastbits == 7 && (f[0] == 0x26 || f[0] == 0x52)) { /* REQA, WUPA */
        if (k->state == CARD_IDLE || (f[0] == 0x52 && k->state == CARD_HALT)) {
            k->woken = k->state == CARD_HALT;
            k->state = CARD_READY;
            k->level = 0;
            out[0] = levels == 1 ? 0x04 : levels == 2 ? 0x44 : 0x84;
            out[1] = 0x00;
            return 2;
        }
        if (k->state == CARD_READY || k->state == CARD_ACTIVE)
            fall_back(k); /* an unexpected command */
        return 0;
    }
    if (k->state == CARD_HALT || k->state == CARD_IDLE || lastbits)
        return 0;
    if (n == 4 && f[0] == 0x50 && f[1] == 0x00) { /* HLTA */
        if (k->state == CARD_ACTIVE && crc_a(f, 2) == (f[2] | f[3] << 8)) {
            k->state = CARD_HALT;
            k->level = 0;
        } else {
            fall_back(k);
        }
        return 0;
    }
    int level = (f[0] - 0x93) / 2;
    if (k->state != CARD_READY || f[0] < 0x93 || f[0] > 0x97 || (f[0] & 1) == 0 ||
        level != k->level) {
        fall_back(k);
        return 0;
    }
    uint8_t cl[5];
    int last = level == levels - 1;
    if (last) {
        memcpy(cl, k->uid + 3 * level, 4);
    } else {
        cl[0] = 0x88;
        memcpy(cl + 1, k->uid + 3 * level, 3);
    }
    cl[4] = cl[0] ^ cl[1] ^ cl[2] ^ cl[3];
    if (n == 2 && f[1] == 0x20) { /* anticollision: the whole UID of this level */
        memcpy(out, cl, 5);
        return 5;
    }
    if (n == 9 && f[1] == 0x70 && crc_a(f, 7) == (f[7] | f[8] << 8)) { /* select */
        if (memcmp(f + 2, cl, 5) != 0)
            return 0; /* another tag is selected: this one stays READY */
        out[0] = last ? (k->uid_len == 4 ? 0x08 : 0x00) : 0x04;
        uint16_t crc = crc_a(out, 1);
        out[1] = (uint8_t)crc;
        out[2] = (uint8_t)(crc >> 8);
        if (last)
            k->state = CARD_ACTIVE;
        else
            k->level++;
        return 3;
    }
    fall_back(k);
    return 0;
}

/* What the reader receives: the answers of every tag, superposed; a collision when they
 * differ (ErrorReg CollErr). */
static int field_answer(struct chip *c, const uint8_t *f, int n, int lastbits, uint8_t *out,
                        int *collided)
{
    *collided = 0;
    if (!(c->reg[TxControlReg] & 0x03))
        return 0;
    int got = 0;
    for (int i = 0; i < c->n_cards; i++) {
        uint8_t one[16];
        int m = card_answer(&c->cards[i], f, n, lastbits, one);
        if (!m)
            continue;
        if (got && (m != got || memcmp(out, one, (size_t)m) != 0))
            *collided = 1;
        for (int j = 0; j < m; j++)
            out[j] = (uint8_t)((j < got ? out[j] : 0) | one[j]);
        if (m > got)
            got = m;
    }
    return got;
}

static void start_send(struct chip *c)
{
    int lastbits = c->reg[BitFramingReg] & 0x07;
    uint8_t frame[64];
    int n = c->fifo_n;
    memcpy(frame, c->fifo, (size_t)n);
    c->fifo_n = 0;
    if (n == 1 && lastbits == 7 && frame[0] == 0x26)
        c->requests++;
    c->answer_n = field_answer(c, frame, n, lastbits, c->answer, &c->collided);
    for (int i = 0; i < READERS; i++)
        if (&chips[i] != c && chips[i].exists && (chips[i].reg[TxControlReg] & 0x03))
            c->overlaps[i]++;
    double tx = air_us(n, lastbits);
    c->tx_done = avr->cycle + usec(tx);
    /* The timer starts at the end of the transmission (TAuto) and runs to TReload; it stops
     * at the answer's fifth bit (start bit and four data bits), which comes the frame delay
     * time after the end of the request (ISO/IEC 14443-3: 1172/fc or 1236/fc, 86 or 91 us,
     * for REQA, WUPA, anticollision and select; MFRC522 datasheet, TModeReg TAuto). A timeout
     * shorter than that ends the command before the answer. */
    int presc = ((c->reg[TModeReg] & 0x0F) << 8) | c->reg[TPrescalerReg];
    int reload = (c->reg[TReloadRegH] << 8) | c->reg[TReloadRegL];
    double timeout = (reload + 1) * (2.0 * presc + 1) / 13.56;
    if (c->answer_n && timeout < 86.0 + 5 * 9.44)
        c->answer_n = 0;
    if (c->answer_n) {
        c->pending = PENDING_ANSWER;
        c->done = c->tx_done + usec(86.0 + air_us(c->answer_n, 0));
    } else {
        c->pending = PENDING_TIMEOUT;
        c->done = c->tx_done + usec(timeout);
    }
}

/* Brings the chip up to the present simulated time. */
static void chip_update(struct chip *c)
{
    if (c->pending == PENDING_NONE)
        return;
    if (avr->cycle >= c->tx_done)
        c->reg[ComIrqReg] |= 0x40; /* TxIRq */
    if (avr->cycle < c->done)
        return;
    if (c->pending == PENDING_ANSWER) {
        memcpy(c->fifo, c->answer, (size_t)c->answer_n);
        c->fifo_n = c->answer_n;
        c->reg[ControlReg] = (uint8_t)(c->reg[ControlReg] & ~0x07);
        c->reg[ErrorReg] = c->collided ? 0x08 : 0; /* CollErr */
        c->reg[ComIrqReg] |= 0x30; /* RxIRq, IdleIRq */
        c->reg[CommandReg] = (uint8_t)(c->reg[CommandReg] & ~0x0F);
    } else {
        c->reg[ComIrqReg] |= 0x01; /* TimerIRq */
    }
    c->pending = PENDING_NONE;
}

static uint8_t chip_read(struct chip *c, uint8_t reg)
{
    chip_update(c);
    switch (reg) {
    case FIFODataReg: {
        if (c->fifo_n == 0)
            return 0;
        uint8_t v = c->fifo[0];
        memmove(c->fifo, c->fifo + 1, (size_t)--c->fifo_n);
        return v;
    }
    case FIFOLevelReg:
        return (uint8_t)c->fifo_n;
    default:
        return c->reg[reg];
    }
}

static void chip_write(struct chip *c, uint8_t reg, uint8_t v)
{
    chip_update(c);
    switch (reg) {
    case CommandReg:
        switch (v & 0x0F) {
        case 0x0F:
            chip_reset(c);
            return;
        case 0x03: { /* CalcCRC over the FIFO */
            uint16_t crc = crc_a(c->fifo, c->fifo_n);
            c->fifo_n = 0;
            c->reg[CRCResultRegL] = (uint8_t)crc;
            c->reg[CRCResultRegH] = (uint8_t)(crc >> 8);
            c->reg[DivIrqReg] |= 0x04;
            break;
        }
        case 0x00:
            c->pending = PENDING_NONE;
            break;
        }
        c->reg[CommandReg] = v & 0x3F;
        return;
    case ComIrqReg:
    case DivIrqReg: /* bit 7 set: the bits written as 1 are set, else cleared */
        if (v & 0x80)
            c->reg[reg] |= (uint8_t)(v & 0x7F);
        else
            c->reg[reg] &= (uint8_t)~v;
        return;
    case FIFODataReg:
        if (c->fifo_n < 64)
            c->fifo[c->fifo_n++] = v;
        return;
    case FIFOLevelReg:
        if (v & 0x80)
            c->fifo_n = 0;
        return;
    case BitFramingReg:
        c->reg[reg] = v & 0x7F;
        if ((v & 0x80) && (c->reg[CommandReg] & 0x0F) == 0x0C)
            start_send(c);
        return;
    case TxControlReg:
        c->reg[reg] = v;
        if (!(v & 0x03))
            for (int i = 0; i < c->n_cards; i++)
                c->cards[i].state = CARD_IDLE;
        return;
    case VersionReg:
        return;
    default:
        c->reg[reg] = v;
    }
}

/* One SPI byte: the first of a transaction is the address, then data (write) or the next
 * address, the answer being the register addressed by the byte before (read). */
static uint8_t chip_spi(struct chip *c, uint8_t in)
{
    uint8_t out = 0;
    c->spi_bytes++;
    if (c->pos == 0) {
        c->reading = in & 0x80;
        c->addr = (in >> 1) & 0x3F;
    } else if (c->reading) {
        out = chip_read(c, c->addr);
        c->addr = (in >> 1) & 0x3F;
    } else {
        chip_write(c, c->addr, in);
    }
    c->pos++;
    return out;
}

/* ---------------------------------------------------------------- wiring */

static avr_irq_t *uart_in;
static int master_fd = -1;
static int uart_xoff;

/* The AVR's SPI port. libsimavr 1.6 times every byte at a fixed 100 us whatever the clock
 * divider (an Uno at F_CPU/2 takes 1 us), so the board takes over SPDR: a byte
 * written goes to the selected chip at once and SPIF rises after 8 SPI clocks, as on the
 * silicon. (SPIE is not modelled; the firmware polls SPIF.) */
#define SPCR_ADDR 0x4C
#define SPSR_ADDR 0x4D
#define SPDR_ADDR 0x4E
static uint8_t spi_answer;

static avr_cycle_count_t spi_done(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)when; (void)param;
    a->data[SPSR_ADDR] |= 0x80;
    return 0;
}

static void spdr_write(avr_t *a, avr_io_addr_t addr, uint8_t value, void *param)
{
    (void)addr; (void)param;
    a->data[SPSR_ADDR] &= (uint8_t)~0x80;
    if (!(a->data[SPCR_ADDR] & 0x40)) /* SPE */
        return;
    spi_answer = 0xFF; /* no chip selected: MISO floats high */
    for (int i = 0; i < READERS; i++)
        if (chips[i].selected && chips[i].exists)
            spi_answer = chip_spi(&chips[i], value);
    static const int div[8] = {4, 16, 64, 128, 2, 8, 32, 64};
    int d = div[(a->data[SPCR_ADDR] & 0x03) | ((a->data[SPSR_ADDR] & 0x01) << 2)];
    avr_cycle_timer_register(a, (avr_cycle_count_t)(8 * d), spi_done, NULL);
}

static uint8_t spdr_read(avr_t *a, avr_io_addr_t addr, void *param)
{
    (void)addr; (void)param;
    a->data[SPSR_ADDR] &= (uint8_t)~0x80;
    return spi_answer;
}

static void on_select(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    struct chip *c = &chips[(intptr_t)param];
    if (!value && !c->selected)
        c->pos = 0;
    c->selected = !value;
}

static void on_rst(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    if (!value)
        for (int i = 0; i < READERS; i++)
            chip_reset(&chips[i]);
}

static void on_uart_out(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    uint8_t b = (uint8_t)value;
    last_tx = avr->cycle;
    if (write(master_fd, &b, 1) < 0) {
        /* nobody has the port open, or its buffer is full: the byte is lost, as on a wire */
    }
}

static void on_xoff(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    uart_xoff = (int)value;
}

/* ---------------------------------------------------------------- host side */

static uint8_t host_in[4096];
static int host_in_n;
static avr_cycle_count_t next_rx;
static char link_path[4096];

static void unlink_link(void)
{
    if (link_path[0])
        unlink(link_path);
}

static int parse_uid(const char *hex, uint8_t *uid)
{
    int n = 0;
    size_t len = strlen(hex);
    if (len != 8 && len != 14 && len != 20)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        unsigned v;
        if (sscanf(hex + i, "%2x", &v) != 1)
            return -1;
        uid[n++] = (uint8_t)v;
    }
    return n;
}

static int frozen;

static void command(char *line)
{
    char word[32], arg[64];
    int reader = -1;
    int n = sscanf(line, "%31s %d %63s", word, &reader, arg);
    if (n < 1)
        return;
    if (strcmp(word, "place") == 0 || strcmp(word, "remove") == 0) {
        if (n < 2 || reader < 0 || reader >= READERS) {
            printf("error %s: reader must be 0..%d\n", word, READERS - 1);
            return;
        }
        struct chip *c = &chips[reader];
        if (word[0] == 'r') {
            uint8_t uid[10];
            int len = n >= 3 ? parse_uid(arg, uid) : 0;
            int kept = 0;
            for (int i = 0; i < c->n_cards; i++) /* one tag by UID, or every tag */
                if (len > 0 && (c->cards[i].uid_len != len ||
                                memcmp(c->cards[i].uid, uid, (size_t)len) != 0))
                    c->cards[kept++] = c->cards[i];
            c->n_cards = kept;
        } else {
            struct card k;
            memset(&k, 0, sizeof k);
            if (n < 3 || (k.uid_len = parse_uid(arg, k.uid)) < 0) {
                printf("error place: UID must be 4, 7 or 10 bytes of hex\n");
                return;
            }
            if (c->n_cards == CARDS) {
                printf("error place: %d tags are on reader %d already\n", CARDS, reader);
                return;
            }
            k.state = CARD_IDLE;
            c->cards[c->n_cards++] = k;
        }
    } else if (strcmp(word, "brownout") == 0) {
        if (n < 2 || reader < 0 || reader >= READERS) {
            printf("error brownout: reader must be 0..%d\n", READERS - 1);
            return;
        }
        chip_reset(&chips[reader]); /* its supply dipped: reset values, antenna off */
    } else if (strcmp(word, "reg") == 0) {
        unsigned addr = 0;
        if (n < 3 || reader < 0 || reader >= READERS || sscanf(arg, "%x", &addr) != 1 ||
            addr > 0x3F) {
            printf("error reg: give a reader 0..%d and a register 00..3F in hex\n", READERS - 1);
            return;
        }
        printf("ok reg %u\n", chips[reader].reg[addr]);
        return;
    } else if (strcmp(word, "version") == 0) {
        unsigned v = 0;
        if (n < 3 || reader < 0 || reader >= READERS || sscanf(arg, "%x", &v) != 1 || v > 0xFF) {
            printf("error version: give a reader 0..%d and a VersionReg 00..FF in hex\n",
                   READERS - 1);
            return;
        }
        chips[reader].version = (uint8_t)v; /* another chip on the module: from its next reset */
        chips[reader].reg[VersionReg] = (uint8_t)v;
    } else if (strcmp(word, "spi") == 0) {
        printf("ok spi");
        for (int i = 0; i < READERS; i++)
            printf(" %ld %ld", chips[i].spi_bytes, chips[i].requests);
        printf("\n");
        return;
    } else if (strcmp(word, "overlaps") == 0) {
        printf("ok overlaps");
        for (int i = 0; i < READERS; i++)
            for (int j = 0; j < READERS; j++)
                printf(" %ld", chips[i].overlaps[j]);
        printf("\n");
        return;
    } else if (strcmp(word, "reset") == 0) {
        avr_reset(avr);
    } else if (strcmp(word, "noise") == 0) {
        if (n < 2 || reader < 0 || reader > 65536) {
            printf("error noise: give a count of bytes, 0..65536\n");
            return;
        }
        for (int i = 0; i < reader; i++) {
            uint8_t b = (uint8_t)(rand() & 0xFF);
            if (write(master_fd, &b, 1) < 0)
                break;
        }
    } else if (strcmp(word, "freeze") == 0) {
        frozen = 1;
    } else if (strcmp(word, "thaw") == 0) {
        frozen = 0;
    } else if (strcmp(word, "quit") == 0) {
        printf("ok quit\n");
        fflush(stdout);
        unlink_link();
        exit(0);
    } else {
        printf("error unknown command %s; use place, remove, brownout, reg, version, spi, "
               "overlaps, reset, noise, freeze, thaw, quit\n", word);
        return;
    }
    printf("ok %s\n", word);
}

static char cmd_buf[1024];
static size_t cmd_n;

static void service_stdin(void)
{
    char tmp[256];
    ssize_t r = read(STDIN_FILENO, tmp, sizeof tmp);
    if (r == 0) {
        unlink_link();
        exit(0);
    }
    for (ssize_t i = 0; i < r; i++) {
        if (tmp[i] == '\n') {
            cmd_buf[cmd_n] = 0;
            command(cmd_buf);
            cmd_n = 0;
        } else if (cmd_n < sizeof cmd_buf - 1) {
            cmd_buf[cmd_n++] = tmp[i];
        }
    }
    if (r > 0)
        fflush(stdout);
}

static void service_pty(void)
{
    if (host_in_n < (int)sizeof host_in) {
        ssize_t r = read(master_fd, host_in + host_in_n, sizeof host_in - (size_t)host_in_n);
        if (r > 0)
            host_in_n += (int)r;
    }
    /* one byte per byte time at 115,200 baud, and only while the UART has room */
    if (host_in_n && !uart_xoff && avr->cycle >= next_rx) {
        avr_raise_irq(uart_in, host_in[0]);
        memmove(host_in, host_in + 1, (size_t)--host_in_n);
        next_rx = avr->cycle + usec(87.0);
    }
}

int main(int argc, char **argv)
{
    const char *elf = NULL;
    int readers = READERS;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--link") == 0 && i + 1 < argc)
            snprintf(link_path, sizeof link_path, "%s", argv[++i]);
        else if (strcmp(argv[i], "--readers") == 0 && i + 1 < argc)
            readers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !elf)
            elf = argv[i];
        else {
            fprintf(stderr, "avr_board: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!elf || readers < 0 || readers > READERS) {
        fprintf(stderr, "usage: avr_board FIRMWARE.elf [--link PATH] [--readers 0..4]"
                        " [--seed S]\n");
        return 2;
    }
    srand(seed);
    setvbuf(stdout, NULL, _IOLBF, 0);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "avr_board: cannot read firmware %s\n", elf);
        return 2;
    }
    strcpy(fw.mmcu, "atmega328p");
    fw.frequency = F_CPU;
    avr = avr_make_mcu_by_name(fw.mmcu);
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr->log = 0;
    avr->sleep = board_sleep;

    uint32_t flags = 0; /* no console echo, no sleeping in UART polls */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);

    for (int i = 0; i < READERS; i++) {
        chips[i].version = 0x92;
        chip_reset(&chips[i]);
        chips[i].exists = i < readers;
    }
    avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].w.c = spdr_write;
    avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].w.param = NULL;
    avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].r.c = spdr_read;
    avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].r.param = NULL;
    static const struct { char port; int pin; } ss[READERS] = {
        {SS0_LETTER, SS0_BIT}, {SS1_LETTER, SS1_BIT}, {SS2_LETTER, SS2_BIT}, {SS3_LETTER, SS3_BIT}};
    for (intptr_t i = 0; i < READERS; i++) {
        chips[i].selected = 0;
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(ss[i].port), ss[i].pin),
                                on_select, (void *)i);
    }
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(RST_LETTER), RST_BIT), on_rst,
                            NULL);

    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_xoff, NULL);

    int slave_fd;
    char slave_name[256];
    struct termios raw;
    if (openpty(&master_fd, &slave_fd, slave_name, NULL, NULL) != 0) {
        perror("avr_board: openpty");
        return 1;
    }
    tcgetattr(slave_fd, &raw);
    cfmakeraw(&raw);
    tcsetattr(slave_fd, TCSANOW, &raw);
    fcntl(master_fd, F_SETFL, O_NONBLOCK);
    fcntl(STDIN_FILENO, F_SETFL, O_NONBLOCK);
    /* slave_fd stays open: the pty lives while the board does, whoever opens and closes it */
    if (link_path[0]) {
        unlink(link_path);
        if (symlink(slave_name, link_path) != 0) {
            fprintf(stderr, "avr_board: cannot make the link %s: %s\n", link_path,
                    strerror(errno));
            link_path[0] = 0;
            return 2;
        }
    }
    printf("pty %s\n", slave_name);

    pace_restart();
    avr_cycle_count_t next_pty = 0, next_stdin = 0, next_sync = 0;
    for (;;) {
        if (frozen) {
            service_stdin();
            usleep(1000);
            pace_restart();
            continue;
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "avr_board: the firmware stopped (state %d)\n", state);
            unlink_link();
            return 1;
        }
        /* Checked by simulated time: the serial line every byte time, commands every ms. */
        if (avr->cycle >= next_pty) {
            service_pty();
            next_pty = avr->cycle + usec(80.0);
        }
        if (avr->cycle >= next_stdin) {
            service_stdin();
            next_stdin = avr->cycle + usec(1000.0);
        }
        if (avr->cycle >= next_sync) { /* the stretches the firmware runs without sleeping */
            next_sync = avr->cycle + usec(1000.0);
            pace(avr->cycle);
        }
    }
}
