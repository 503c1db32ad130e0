#include "codec.h"

#include <string.h>

uint16_t crc16_ccitt(uint16_t crc, const uint8_t *data, uint8_t len)
{
    while (len--) {
        crc ^= (uint16_t)(*data++) << 8;
        for (uint8_t i = 0; i < 8; i++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

uint8_t frame_encode(uint8_t *out, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t len)
{
    if (len > FRAME_MAX_PAYLOAD)
        return 0;
    out[0] = FRAME_SYNC;
    out[1] = len;
    out[2] = seq;
    out[3] = id;
    if (len)
        memcpy(out + 4, payload, len);
    uint16_t crc = crc16_ccitt(0xFFFF, out + 1, (uint8_t)(len + 3));
    out[4 + len] = (uint8_t)(crc & 0xFF);
    out[5 + len] = (uint8_t)(crc >> 8);
    return (uint8_t)(len + FRAME_OVERHEAD);
}

void decoder_init(struct frame_decoder *d)
{
    memset(d, 0, sizeof *d);
}

static void drop(struct frame_decoder *d, uint8_t count)
{
    memmove(d->buf, d->buf + count, (size_t)(d->n - count));
    d->n = (uint8_t)(d->n - count);
    d->dropped = (uint16_t)(d->dropped + count);
}

void decoder_push(struct frame_decoder *d, uint8_t byte)
{
    if (d->n == FRAME_MAX)
        drop(d, 1); /* cannot happen with a consistent buffer; keeps it safe anyway */
    d->buf[d->n++] = byte;
}

uint8_t decoder_next(struct frame_decoder *d, struct frame *out)
{
    while (d->n) {
        if (d->buf[0] != FRAME_SYNC) {
            uint8_t skip = 1;
            while (skip < d->n && d->buf[skip] != FRAME_SYNC)
                skip++;
            drop(d, skip);
            continue;
        }
        if (d->n < 2)
            return 0;
        uint8_t len = d->buf[1];
        if (len > FRAME_MAX_PAYLOAD) {
            drop(d, 1);
            continue;
        }
        uint8_t end = (uint8_t)(len + FRAME_OVERHEAD);
        if (d->n < end)
            return 0;
        uint16_t crc = crc16_ccitt(0xFFFF, d->buf + 1, (uint8_t)(len + 3));
        if ((uint8_t)(crc & 0xFF) != d->buf[end - 2] || (uint8_t)(crc >> 8) != d->buf[end - 1]) {
            d->crc_errors++;
            drop(d, 1);
            continue;
        }
        out->len = len;
        out->seq = d->buf[2];
        out->id = d->buf[3];
        memcpy(out->payload, d->buf + 4, len);
        memmove(d->buf, d->buf + end, (size_t)(d->n - end));
        d->n = (uint8_t)(d->n - end);
        return 1;
    }
    return 0;
}
