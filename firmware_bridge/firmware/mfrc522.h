/* A small MFRC522 driver: one chip per slave-select line, ISO 14443A REQA/WUPA,
 * anticollision and select over cascade levels 1 to 3 (4-, 7- and 10-byte UIDs), HLTA,
 * CRC_A computed by the chip (CalcCRC). */
#ifndef BRIDGE_MFRC522_H
#define BRIDGE_MFRC522_H

#include <stdint.h>

#define UID_MAX 10

void rc_bus_init(void);
/* Soft-resets the chip and turns its antenna on; returns its VersionReg (0 when absent). */
uint8_t rc_init(uint8_t reader);
/* Wakes the tag in the field (WUPA, so a halted tag answers too), reads its UID and halts it.
 * Returns the UID length (4, 7 or 10) or 0 when no tag answered correctly. */
uint8_t rc_read_uid(uint8_t reader, uint8_t *uid);

#endif
