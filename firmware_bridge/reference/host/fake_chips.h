/* Byte-level fakes of the PN532 (I2C) and PN5180 (SPI) for the driver checks: each parses
 * the frames the data sheet defines, checks them, and answers from a scripted set of tags.
 * Test code only (host build). */
#ifndef RF_FAKE_CHIPS_H
#define RF_FAKE_CHIPS_H

#include <stddef.h>
#include <stdint.h>

#include "../drivers/bus.h"

struct fake_pn532 {
    uint8_t uid[4][10];
    uint8_t uid_len[4];
    int tags;
    uint8_t ic;           /* 0x32 for a PN532 */
    int silent;           /* never ready */
    int corrupt_next;     /* the next answer has a wrong DCS */
    int bad_frames;       /* frames from the driver that broke the format */
    int released;         /* InRelease commands seen */
    uint32_t clock;
    int stage;            /* 0 nothing to read, 1 the ACK, 2 the answer */
    uint8_t answer[64];
    size_t answer_len;
};

struct fake_pn5180 {
    uint32_t reg[0x30];
    uint8_t eeprom[0x100];
    uint8_t uid[8][8]; /* MSB first, as printed */
    int tags;
    int busy_stuck;
    int bad_commands;
    int rf_on;
    uint8_t pending[260];
    size_t pending_len;
    int reading;
    uint8_t mask_len, mask;
    int slot;
    uint8_t rx[10];
    size_t rx_len;
    int requests, eofs;
};

void fake_pn532_bus(struct fake_pn532 *f, struct i2c_bus *bus);
void fake_pn5180_bus(struct fake_pn5180 *f, struct spi_bus *bus);

#endif
