/* A small MFRC522 driver: one chip per slave-select line, ISO 14443A REQA/WUPA,
 * anticollision and select over cascade levels 1 to 3 (4-, 7- and 10-byte UIDs), HLTA,
 * CRC_A computed on the AVR (ISO/IEC 14443-3 Annex B). */
#ifndef BRIDGE_MFRC522_H
#define BRIDGE_MFRC522_H

#include <stdint.h>

#define UID_MAX 10

void rc_bus_init(void);
/* Soft-resets the chip and turns its antenna on; returns its VersionReg (0 when absent). */
uint8_t rc_init(uint8_t reader);
/* Reads the UID of a tag new to the field (REQA: a halted tag stays silent, so a pile of
 * cards already read does not answer with the new one) and halts it. Returns the UID length
 * (4, 7 or 10) or 0 when no new tag answered correctly (none, or two at once). */
uint8_t rc_read_uid(uint8_t reader, uint8_t *uid);
/* Whether the tag with this UID is still in the field: WUPA, then select it by its UID (no
 * anticollision: the other halted tags stay silent), then halt it again. */
uint8_t rc_still_there(uint8_t reader, const uint8_t *uid, uint8_t len);
/* Whether the chip answers and still has the settings rc_init gave it (a brown-out or a
 * reset since has set them back). */
uint8_t rc_set_up(uint8_t reader);
/* Sets the chip's receiver gain (RFCfgReg RxGain, 0 to 7: 18 to 48 dB). */
void rc_gain(uint8_t reader, uint8_t rx_gain);
/* Switches the chip's antenna on or off. */
void rc_field(uint8_t reader, uint8_t on);

#endif
