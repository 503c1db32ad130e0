#include "mfrc522.h"

#include "board.h"

#include <avr/io.h>
#include <util/delay.h>

/* Registers (MFRC522 datasheet, section 9) */
#define CommandReg 0x01
#define ComIrqReg 0x04
#define ErrorReg 0x06
#define FIFODataReg 0x09
#define FIFOLevelReg 0x0A
#define ControlReg 0x0C
#define BitFramingReg 0x0D
#define ModeReg 0x11
#define TxControlReg 0x14
#define TxASKReg 0x15
#define RFCfgReg 0x26
#define TModeReg 0x2A
#define TPrescalerReg 0x2B
#define TReloadRegH 0x2C
#define TReloadRegL 0x2D
#define VersionReg 0x37

/* Commands */
#define CMD_IDLE 0x00
#define CMD_TRANSCEIVE 0x0C
#define CMD_SOFTRESET 0x0F

/* ComIrqReg bits */
#define IRQ_RX 0x20
#define IRQ_IDLE 0x10
#define IRQ_TIMER 0x01

/* PICC commands (ISO 14443-3) */
#define PICC_REQA 0x26
#define PICC_WUPA 0x52
#define PICC_HLTA 0x50
#define PICC_CT 0x88 /* cascade tag: more UID bytes follow at the next level */

/* Timer ticks of 25 us before "no answer": 1 ms. A tag answers REQA, WUPA, anticollision and
 * select a fixed frame delay time after the request (ISO/IEC 14443-3: 1172/fc or 1236/fc, 86
 * or 91 us), and the chip's timer stops at the answer's fifth bit (MFRC522 datasheet, TModeReg
 * TAuto), 138 us after the request at the latest: 1 ms is seven times that. (It was 2.5 ms,
 * which a reader with no new tag waited out at every poll.) */
#define RELOAD 40

/* A reader's select line: pins.h, written from the board's circuit model. */
#define SS_SET(n, high) \
    do { \
        if (high) \
            SS##n##_PORT |= _BV(SS##n##_BIT); \
        else \
            SS##n##_PORT &= (uint8_t)~_BV(SS##n##_BIT); \
    } while (0)

static void ss(uint8_t reader, uint8_t high)
{
    switch (reader) {
    case 0: SS_SET(0, high); break;
    case 1: SS_SET(1, high); break;
    case 2: SS_SET(2, high); break;
    default: SS_SET(3, high); break;
    }
}

static uint8_t spi(uint8_t byte)
{
    SPDR = byte;
    while (!(SPSR & _BV(SPIF)))
        ;
    return SPDR;
}

static void wr(uint8_t reader, uint8_t reg, uint8_t value)
{
    ss(reader, 0);
    spi((uint8_t)((reg << 1) & 0x7E));
    spi(value);
    ss(reader, 1);
}

static uint8_t rd(uint8_t reader, uint8_t reg)
{
    ss(reader, 0);
    spi((uint8_t)(((reg << 1) & 0x7E) | 0x80));
    uint8_t value = spi(0);
    ss(reader, 1);
    return value;
}

static void wr_fifo(uint8_t reader, const uint8_t *data, uint8_t len)
{
    ss(reader, 0);
    spi((uint8_t)((FIFODataReg << 1) & 0x7E));
    while (len--)
        spi(*data++);
    ss(reader, 1);
}

static void rd_fifo(uint8_t reader, uint8_t *data, uint8_t len)
{
    uint8_t addr = (uint8_t)(((FIFODataReg << 1) & 0x7E) | 0x80);
    ss(reader, 0);
    spi(addr);
    while (len--)
        *data++ = spi(len ? addr : 0);
    ss(reader, 1);
}

void rc_bus_init(void)
{
    SCK_DDR |= _BV(SCK_BIT);
    MOSI_DDR |= _BV(MOSI_BIT);
    SS0_DDR |= _BV(SS0_BIT); /* also the AVR's own SS: an output keeps the SPI a master */
    SS1_DDR |= _BV(SS1_BIT);
    SS2_DDR |= _BV(SS2_BIT);
    SS3_DDR |= _BV(SS3_BIT);
    RST_DDR |= _BV(RST_BIT);
    for (uint8_t r = 0; r < 4; r++)
        ss(r, 1);
    SPCR = _BV(SPE) | _BV(MSTR) | SPI_SPR; /* mode 0, MSB first; SPI_KHZ in board.h */
    SPSR = SPI_2X;
    RST_PORT &= (uint8_t)~_BV(RST_BIT); /* hard reset of every chip */
    _delay_ms(1);
    RST_PORT |= _BV(RST_BIT);
    _delay_ms(50); /* oscillator start-up */
}

void rc_gain(uint8_t reader, uint8_t rx_gain)
{
    wr(reader, RFCfgReg, (uint8_t)((rx_gain & 0x07) << 4 | 0x08)); /* reset value 0x48 */
}

uint8_t rc_init(uint8_t reader)
{
    uint8_t first = rd(reader, VersionReg);
    if (first == 0x00 || first == 0xFF)
        return 0; /* no chip on this line: no reset to wait out */
    wr(reader, CommandReg, CMD_SOFTRESET);
    for (uint8_t i = 0; i < 50 && (rd(reader, CommandReg) & 0x10); i++)
        _delay_ms(1); /* PowerDown bit set until the reset is over */
    uint8_t version = rd(reader, VersionReg);
    if (version == 0x00 || version == 0xFF)
        return 0;
    /* Timer: 13.56 MHz / (2 * 169 + 1) = 40 kHz, 25 us a tick; RELOAD ticks = 1 ms timeout. */
    wr(reader, TModeReg, 0x80); /* TAuto: starts at the end of each transmission */
    wr(reader, TPrescalerReg, 0xA9);
    wr(reader, TReloadRegH, 0);
    wr(reader, TReloadRegL, RELOAD); /* also the mark of a chip set up (reset value 0) */
    wr(reader, TxASKReg, 0x40); /* 100 % ASK */
    wr(reader, ModeReg, 0x3D);  /* CRC preset 0x6363 (ISO 14443A) */
    rc_gain(reader, RX_GAIN); /* the build's gain; set_radio may change it afterwards */
    wr(reader, TxControlReg, (uint8_t)(rd(reader, TxControlReg) | 0x03)); /* antenna on */
    return version;
}

/* Sends tx (the last byte with txbits bits, 0 = 8) and reads the answer into rx.
 * Returns the number of bytes received, or 0 on timeout or error. With rxmax 0 (HLTA, which
 * has no answer) it returns as soon as the chip has started sending: the chip finishes on its
 * own while the other readers are polled, and its next command comes a poll later. */
static uint8_t transceive(uint8_t reader, const uint8_t *tx, uint8_t txlen, uint8_t txbits,
                          uint8_t *rx, uint8_t rxmax)
{
    wr(reader, CommandReg, CMD_IDLE);
    wr(reader, BitFramingReg, txbits); /* StartSend off until the FIFO is loaded */
    wr(reader, ComIrqReg, 0x7F);       /* clear every flag */
    wr(reader, FIFOLevelReg, 0x80);
    wr_fifo(reader, tx, txlen);
    wr(reader, CommandReg, CMD_TRANSCEIVE);
    wr(reader, BitFramingReg, (uint8_t)(0x80 | txbits)); /* StartSend */
    if (!rxmax)
        return 0;
    uint8_t want = IRQ_RX | IRQ_IDLE;
    uint8_t irq = 0;
    for (uint16_t guard = 2000; guard; guard--) { /* the chip's timer ends it first */
        irq = rd(reader, ComIrqReg);
        if (irq & (want | IRQ_TIMER))
            break;
    }
    if (!(irq & want) || (rd(reader, ErrorReg) & 0x1B)) /* timeout, collision, parity... */
        return 0;
    uint8_t n = rd(reader, FIFOLevelReg);
    if (n == 0 || n > rxmax)
        return 0;
    rd_fifo(reader, rx, n);
    if (rd(reader, ControlReg) & 0x07) /* only whole bytes are expected */
        return 0;
    return n;
}

/* CRC_A of ISO/IEC 14443-3 (Annex B: preset 0x6363, reflected polynomial 0x8408), computed
 * here rather than by the chip's CalcCRC, which took some 20 SPI bytes and a wait each time. */
static void crc_a(const uint8_t *data, uint8_t len, uint8_t *out)
{
    uint16_t crc = 0x6363;
    while (len--) {
        uint8_t ch = (uint8_t)(*data++ ^ (uint8_t)crc);
        ch = (uint8_t)(ch ^ (ch << 4));
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)ch << 8) ^ ((uint16_t)ch << 3) ^ (ch >> 4));
    }
    out[0] = (uint8_t)crc;
    out[1] = (uint8_t)(crc >> 8);
}

static void halt(uint8_t reader)
{
    uint8_t cmd[4] = {PICC_HLTA, 0x00, 0, 0};
    crc_a(cmd, 2, cmd + 2);
    transceive(reader, cmd, 4, 0, 0, 0);
}

/* Select the tag whose UID part of this cascade level is part[0..4] (with its BCC): its SAK,
 * or -1 when no tag answered correctly. */
static int16_t select_part(uint8_t reader, uint8_t level, const uint8_t *part)
{
    uint8_t buf[9], sak[3], check[2];
    buf[0] = (uint8_t)(0x93 + 2 * level); /* SEL of cascade level 1, 2, 3 */
    buf[1] = 0x70;                        /* NVB: the whole UID of this level */
    for (uint8_t i = 0; i < 5; i++)
        buf[2 + i] = part[i];
    crc_a(buf, 7, buf + 7);
    if (transceive(reader, buf, 9, 0, sak, 3) != 3)
        return -1;
    crc_a(sak, 1, check);
    if (check[0] != sak[1] || check[1] != sak[2])
        return -1;
    return sak[0];
}

uint8_t rc_read_uid(uint8_t reader, uint8_t *uid)
{
    uint8_t buf[2], answer[5];
    buf[0] = PICC_REQA; /* REQA: a halted tag (the pile under the new card) stays silent */
    if (transceive(reader, buf, 1, 7, answer, 2) != 2)
        return 0;
    uint8_t len = 0;
    for (uint8_t level = 0; level < 3; level++) {
        buf[0] = (uint8_t)(0x93 + 2 * level);
        buf[1] = 0x20; /* NVB: no UID bits known yet */
        if (transceive(reader, buf, 2, 0, answer, 5) != 5)
            return 0; /* nothing, or two new tags at once (a collision) */
        if ((answer[0] ^ answer[1] ^ answer[2] ^ answer[3]) != answer[4])
            return 0; /* BCC */
        int16_t sak = select_part(reader, level, answer);
        if (sak < 0)
            return 0;
        if (sak & 0x04) { /* UID not complete */
            if (answer[0] != PICC_CT)
                return 0;
            for (uint8_t i = 1; i < 4; i++)
                uid[len++] = answer[i];
        } else {
            for (uint8_t i = 0; i < 4; i++)
                uid[len++] = answer[i];
            halt(reader);
            return len;
        }
    }
    return 0;
}

uint8_t rc_still_there(uint8_t reader, const uint8_t *uid, uint8_t len)
{
    uint8_t buf[1], answer[2], part[5];
    buf[0] = PICC_WUPA; /* wakes the halted tags; they fall back to HALT at the next frame */
    transceive(reader, buf, 1, 7, answer, 2); /* the pile's ATQAs may collide: no matter */
    uint8_t levels = len == 4 ? 1 : len == 7 ? 2 : 3;
    for (uint8_t level = 0; level < levels; level++) {
        uint8_t last = level == levels - 1;
        if (last) {
            for (uint8_t i = 0; i < 4; i++)
                part[i] = uid[3 * level + i];
        } else {
            part[0] = PICC_CT;
            for (uint8_t i = 0; i < 3; i++)
                part[1 + i] = uid[3 * level + i];
        }
        part[4] = (uint8_t)(part[0] ^ part[1] ^ part[2] ^ part[3]);
        int16_t sak = select_part(reader, level, part); /* only this tag answers */
        if (sak < 0 || ((sak & 0x04) != 0) == last)
            return 0;
    }
    halt(reader);
    return 1;
}

uint8_t rc_set_up(uint8_t reader)
{
    uint8_t version = rd(reader, VersionReg);
    return version != 0x00 && version != 0xFF && rd(reader, TReloadRegL) == RELOAD;
}

void rc_field(uint8_t reader, uint8_t on)
{
    uint8_t value = rd(reader, TxControlReg);
    wr(reader, TxControlReg, on ? (uint8_t)(value | 0x03) : (uint8_t)(value & ~0x03));
}
