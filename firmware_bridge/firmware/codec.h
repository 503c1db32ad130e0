/* Frame codec of the bridge protocol (see PROTOCOL.md), shared by the firmware and host tests.
 *
 * A frame is SYNC LEN SEQ ID PAYLOAD[LEN] CRC_LO CRC_HI, the CRC being CRC-16/CCITT-FALSE over
 * LEN, SEQ, ID and the payload. The decoder takes one byte at a time; after a byte, call
 * decoder_next() until it returns 0. Garbage and damaged frames are skipped one byte at a
 * time, so an intact frame after them is still found. Plain C99, no I/O. */
#ifndef BRIDGE_CODEC_H
#define BRIDGE_CODEC_H

#include <stdint.h>

#include "messages.h"

#define FRAME_OVERHEAD 6
#define FRAME_MAX (FRAME_MAX_PAYLOAD + FRAME_OVERHEAD)

struct frame {
    uint8_t seq;
    uint8_t id;
    uint8_t len;
    uint8_t payload[FRAME_MAX_PAYLOAD];
};

struct frame_decoder {
    uint8_t buf[FRAME_MAX];
    uint8_t n;
    uint16_t dropped;    /* bytes skipped while looking for a frame */
    uint16_t crc_errors; /* candidate frames whose CRC did not match */
};

uint16_t crc16_ccitt(uint16_t crc, const uint8_t *data, uint8_t len);

/* Writes the frame into out (room for FRAME_MAX bytes); returns its length, 0 if len is too big. */
uint8_t frame_encode(uint8_t *out, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t len);

void decoder_init(struct frame_decoder *d);
void decoder_push(struct frame_decoder *d, uint8_t byte);
/* 1 and the frame in *out when the bytes pushed so far complete one, else 0. */
uint8_t decoder_next(struct frame_decoder *d, struct frame *out);

#endif
