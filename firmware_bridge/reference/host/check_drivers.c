/* The radio drivers against byte-level fakes of their chips (host/fake_*.c), and the PN5180
 * driver behind a whole reader. Prints "ok NAME" per check, "FAIL NAME: why" and exits 1 on
 * the first failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../drivers/pn5180.h"
#include "../drivers/pn532.h"
#include "../src/frame.h"
#include "../src/reader.h"
#include "fake_chips.h"

#define CHECK(name, cond)                                                                     \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            printf("FAIL %s: %s (line %d)\n", name, #cond, __LINE__);                         \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static const uint8_t NTAG_A[7] = {0x04, 0x5C, 0xF0, 0x1C, 0x66, 0x84, 0x17};
static const uint8_t NTAG_B[7] = {0x04, 0x7D, 0x60, 0xBC, 0xCF, 0x76, 0xB6};
static const uint8_t MIFARE_C[4] = {0xDE, 0xAD, 0xBE, 0xEF};

static void add532(struct fake_pn532 *f, const uint8_t *uid, uint8_t len) {
    memcpy(f->uid[f->tags], uid, len);
    f->uid_len[f->tags++] = len;
}

static void check_pn532(void) {
    static struct fake_pn532 f;
    static struct pn532 chip;
    struct i2c_bus bus;
    struct rf_tag tags[8];
    memset(&f, 0, sizeof f);
    f.ic = 0x32;
    fake_pn532_bus(&f, &bus);
    chip = (struct pn532){.bus = &bus};
    CHECK("pn532 init", PN532_RADIO.init(&chip) == 0 && chip.version == 1 && f.bad_frames == 0);
    CHECK("pn532 empty field", PN532_RADIO.inventory(&chip, tags, 8) == 0 && f.released == 0);
    add532(&f, NTAG_A, 7);
    CHECK("pn532 one tag", PN532_RADIO.inventory(&chip, tags, 8) == 1);
    CHECK("pn532 one tag uid", tags[0].uid_len == 7 && !memcmp(tags[0].uid, NTAG_A, 7) &&
                                   tags[0].tech == TECH_ISO14443A && f.released == 1);
    add532(&f, NTAG_B, 7);
    add532(&f, MIFARE_C, 4);
    CHECK("pn532 two of three", PN532_RADIO.inventory(&chip, tags, 8) == 2);
    CHECK("pn532 two uids", !memcmp(tags[1].uid, NTAG_B, 7) && f.bad_frames == 0);
    CHECK("pn532 room for one", PN532_RADIO.inventory(&chip, tags, 1) == 2);
    f.corrupt_next = 1;
    CHECK("pn532 bad checksum", PN532_RADIO.inventory(&chip, tags, 8) == RF_FAULT);
    CHECK("pn532 after a bad answer", PN532_RADIO.inventory(&chip, tags, 8) == 2);
    f.silent = 1;
    CHECK("pn532 silent chip", PN532_RADIO.inventory(&chip, tags, 8) == RF_FAULT);
    f.silent = 0;
    f.ic = 0x31;
    CHECK("pn532 another chip", PN532_RADIO.init(&chip) == RF_FAULT);
    printf("ok pn532\n");
}

static void add5180(struct fake_pn5180 *f, uint64_t uid) {
    for (int i = 0; i < 8; i++) {
        f->uid[f->tags][i] = (uint8_t)(uid >> (56 - 8 * i));
    }
    f->tags++;
}

static int has(const struct rf_tag *tags, int n, uint64_t uid) {
    for (int t = 0; t < n; t++) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | tags[t].uid[i];
        }
        if (v == uid && tags[t].uid_len == 8 && tags[t].tech == TECH_ISO15693) {
            return 1;
        }
    }
    return 0;
}

static void check_pn5180(void) {
    static struct fake_pn5180 f;
    static struct pn5180 chip;
    struct spi_bus bus;
    struct rf_tag tags[8];
    memset(&f, 0, sizeof f);
    f.eeprom[PN5180_EEPROM_FIRMWARE_VERSION] = 0x05;
    f.eeprom[PN5180_EEPROM_FIRMWARE_VERSION + 1] = 0x04;
    fake_pn5180_bus(&f, &bus);
    chip = (struct pn5180){.bus = &bus};
    CHECK("pn5180 init", PN5180_RADIO.init(&chip) == 0 && chip.firmware == 0x0405 && f.rf_on);
    CHECK("pn5180 empty field", PN5180_RADIO.inventory(&chip, tags, 8) == 0);
    CHECK("pn5180 sixteen slots", f.requests == 1 && f.eofs == 15 && f.bad_commands == 0);
    add5180(&f, 0xE004010012345671ull);
    add5180(&f, 0xE004010012345682ull);
    add5180(&f, 0xE004010012345693ull);
    CHECK("pn5180 three tags", PN5180_RADIO.inventory(&chip, tags, 8) == 3);
    CHECK("pn5180 uids msb first", has(tags, 3, 0xE004010012345671ull) &&
                                       has(tags, 3, 0xE004010012345682ull) &&
                                       has(tags, 3, 0xE004010012345693ull));
    /* same last nibble: they collide in the first round, the masked round parts them */
    add5180(&f, 0xE0040100AAAAAA13ull);
    CHECK("pn5180 collision resolved", PN5180_RADIO.inventory(&chip, tags, 8) == 4);
    CHECK("pn5180 both colliders", has(tags, 4, 0xE004010012345693ull) &&
                                       has(tags, 4, 0xE0040100AAAAAA13ull));
    CHECK("pn5180 masked round", f.requests == 4 && f.bad_commands == 0);
    /* the same last byte: not parted by one level of masks; counted, not invented */
    add5180(&f, 0xE0040100BBBBBB71ull);
    int n = PN5180_RADIO.inventory(&chip, tags, 8);
    CHECK("pn5180 unresolved counted", n == 3 + 2 && !has(tags, 3, 0xE0040100BBBBBB71ull));
    CHECK("pn5180 room for two", PN5180_RADIO.inventory(&chip, tags, 2) == 5);
    f.busy_stuck = 1;
    CHECK("pn5180 busy stuck", PN5180_RADIO.inventory(&chip, tags, 8) == RF_FAULT);
    f.busy_stuck = 0;
    memset(f.eeprom, 0xFF, sizeof f.eeprom);
    CHECK("pn5180 nothing on the bus", PN5180_RADIO.init(&chip) == RF_FAULT);
    printf("ok pn5180\n");
}

/* ---- the PN5180 behind a whole reader ------------------------------------------------- */

static uint32_t clock_ms;
static uint8_t wire[8192];
static size_t wire_len;
static uint32_t board_now(void *ctx) { (void)ctx; return clock_ms; }
static uint32_t board_random(void *ctx) { (void)ctx; return 7; }
static void board_write(void *ctx, const uint8_t *d, size_t n) {
    (void)ctx;
    if (wire_len + n <= sizeof wire) {
        memcpy(wire + wire_len, d, n);
        wire_len += n;
    }
}
static void board_reset(void *ctx) { (void)ctx; }

static void check_reader_on_pn5180(void) {
    static struct fake_pn5180 f;
    static struct pn5180 chip;
    static struct reader r;
    static struct frame_decoder dec;
    struct spi_bus bus;
    memset(&f, 0, sizeof f);
    f.eeprom[PN5180_EEPROM_FIRMWARE_VERSION] = 0x05;
    fake_pn5180_bus(&f, &bus);
    chip = (struct pn5180){.bus = &bus};
    add5180(&f, 0xE004010012345671ull);
    add5180(&f, 0xE004010012345682ull);
    struct board b = {.radio = &PN5180_RADIO, .radio_ctx = &chip, .uart_write = board_write,
                      .now_ms = board_now, .random32 = board_random, .reset = board_reset};
    struct reader_settings cfg = {.kind = KIND_TABLE, .antennas = 1, .poll_interval_ms = 10,
                                  .gone_debounce_ms = 100, .fw_version = "check"};
    reader_boot(&r, &b, &cfg);
    static const uint8_t hello[] = {0x03, 0x10, 0x01, 0x01, 0x02, 0x01, 0x04, 0xee, 0xff,
                                    0xc0, 0x01, 0x01, 0x05, 0xb5, 0xa7, 0x8e, 0xea, 0x00};
    reader_feed(&r, hello, sizeof hello);
    for (int i = 0; i < 20; i++) {
        clock_ms += 5;
        reader_poll(&r);
    }
    int seen = 0, hello_acks = 0;
    struct frame fr;
    frame_decoder_init(&dec);
    for (size_t i = 0; i < wire_len; i++) {
        if (frame_decoder_push(&dec, wire[i], &fr) == FRAME_OK) {
            seen += fr.type == MSG_TAG_SEEN && fr.payload[9] == 8 && fr.payload[10] == 0xE0;
            hello_acks += fr.type == MSG_HELLO_ACK;
        }
    }
    CHECK("reader on pn5180", seen == 2 && hello_acks == 2 && r.radio_ok);
    printf("ok reader-pn5180\n");
}

int main(void) {
    check_pn532();
    check_pn5180();
    check_reader_on_pn5180();
    return 0;
}
