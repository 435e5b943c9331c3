/* NXP PN532 over I2C as the reader's radio: ISO/IEC 14443A (MIFARE, NTAG), up to two cards
 * per inventory (the chip's InListPassiveTarget limit). Written from the PN532 user
 * manual's command set: normal information frames, ACK frames, SAMConfiguration,
 * RFConfiguration, InListPassiveTarget, InRelease, GetFirmwareVersion. */
#ifndef RF_PN532_H
#define RF_PN532_H

#include "../src/hw.h"
#include "bus.h"

#define PN532_I2C_ADDR 0x24u
#define PN532_MAX_TARGETS 2

struct pn532 {
    const struct i2c_bus *bus;
    uint32_t timeout_ms; /* per answer (default 100) */
    uint8_t ic, version, revision;
    uint8_t frame[64];
};

extern const struct radio_ops PN532_RADIO; /* ctx: struct pn532 * */

/* Send one command (`data` after the command code) and take its response's data (after the
 * response code) into out; returns its length, or -1 (no ACK, timeout, bad checksum, an
 * error frame, or a response to another command). */
int pn532_command(struct pn532 *p, uint8_t cmd, const uint8_t *data, size_t len, uint8_t *out,
                  size_t max);

#endif
