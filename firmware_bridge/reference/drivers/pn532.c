#include "pn532.h"

#include <string.h>

#define TFI_HOST 0xD4u
#define TFI_CHIP 0xD5u
#define CMD_GET_FIRMWARE_VERSION 0x02u
#define CMD_SAM_CONFIGURATION 0x14u
#define CMD_RF_CONFIGURATION 0x32u
#define CMD_IN_LIST_PASSIVE_TARGET 0x4Au
#define CMD_IN_RELEASE 0x52u
#define I2C_READY 0x01u

static const uint8_t ACK_FRAME[6] = {0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00};

/* Poll the status byte until the chip has an answer of len bytes, then read it. Over I2C
 * every read starts with the status byte (bit 0: ready). */
static int read_ready(struct pn532 *p, uint8_t *out, size_t len) {
    const struct i2c_bus *b = p->bus;
    uint8_t raw[1 + sizeof p->frame];
    uint32_t start = b->now_ms(b->ctx);
    if (len > sizeof p->frame) {
        return -1;
    }
    do {
        if (b->read(b->ctx, PN532_I2C_ADDR, raw, len + 1) == 0 && (raw[0] & I2C_READY)) {
            memcpy(out, raw + 1, len);
            return 0;
        }
    } while (b->now_ms(b->ctx) - start < p->timeout_ms);
    return -1;
}

int pn532_command(struct pn532 *p, uint8_t cmd, const uint8_t *data, size_t len, uint8_t *out,
                  size_t max) {
    uint8_t *f = p->frame;
    size_t n = 0, body = len + 2; /* TFI, command, data */
    uint8_t sum = (uint8_t)(TFI_HOST + cmd);
    if (body > 255 || len + 9 > sizeof p->frame) {
        return -1;
    }
    f[n++] = 0x00; /* preamble */
    f[n++] = 0x00; /* start code */
    f[n++] = 0xFF;
    f[n++] = (uint8_t)body;
    f[n++] = (uint8_t)(0x100u - body); /* LCS: LEN + LCS = 0 */
    f[n++] = TFI_HOST;
    f[n++] = cmd;
    for (size_t i = 0; i < len; i++) {
        f[n++] = data[i];
        sum = (uint8_t)(sum + data[i]);
    }
    f[n++] = (uint8_t)(0x100u - sum); /* DCS: TFI + data + DCS = 0 */
    f[n++] = 0x00;                    /* postamble */
    if (p->bus->write(p->bus->ctx, PN532_I2C_ADDR, f, n) != 0) {
        return -1;
    }
    uint8_t ack[6];
    if (read_ready(p, ack, sizeof ack) != 0 || memcmp(ack, ACK_FRAME, sizeof ack) != 0) {
        return -1;
    }
    /* the answer: 00 00 FF LEN LCS D5 cmd+1 data DCS 00, read whole in one go */
    uint8_t r[sizeof p->frame];
    if (read_ready(p, r, sizeof r) != 0 || r[0] != 0x00 || r[1] != 0x00 || r[2] != 0xFF) {
        return -1;
    }
    uint8_t rlen = r[3];
    if ((uint8_t)(rlen + r[4]) != 0 || rlen < 2 || (size_t)rlen + 7 > sizeof r) {
        return -1; /* an error frame (LEN 1, 0x7F) or a broken length */
    }
    uint8_t rsum = 0;
    for (size_t i = 0; i <= rlen; i++) {
        rsum = (uint8_t)(rsum + r[5 + i]);
    }
    if (rsum != 0 || r[5] != TFI_CHIP || r[6] != (uint8_t)(cmd + 1)) {
        return -1;
    }
    size_t got = (size_t)rlen - 2;
    if (got > max) {
        return -1;
    }
    memcpy(out, r + 7, got);
    return (int)got;
}

static int pn532_init(void *ctx) {
    struct pn532 *p = ctx;
    uint8_t out[8];
    if (p->timeout_ms == 0) {
        p->timeout_ms = 100;
    }
    if (pn532_command(p, CMD_GET_FIRMWARE_VERSION, NULL, 0, out, sizeof out) != 4 ||
        out[0] != 0x32) {
        return RF_FAULT; /* not a PN532 (IC 0x32) */
    }
    p->ic = out[0];
    p->version = out[1];
    p->revision = out[2];
    static const uint8_t sam[3] = {0x01, 0x14, 0x01};         /* normal mode, 1 s, IRQ */
    static const uint8_t retries[4] = {0x05, 0xFF, 0x01, 0x02}; /* MxRtyPassiveActivation 2 */
    if (pn532_command(p, CMD_SAM_CONFIGURATION, sam, sizeof sam, out, sizeof out) != 0 ||
        pn532_command(p, CMD_RF_CONFIGURATION, retries, sizeof retries, out, sizeof out) != 0) {
        return RF_FAULT;
    }
    return 0;
}

/* InListPassiveTarget, 106 kbps type A: NbTg, then per target Tg, SENS_RES(2), SEL_RES,
 * NFCIDLength, NFCID1 (ATS not asked for). The targets are released after each read. */
static int pn532_inventory(void *ctx, struct rf_tag *tags, int max) {
    struct pn532 *p = ctx;
    uint8_t out[60];
    const uint8_t list[2] = {PN532_MAX_TARGETS, 0x00};
    int n = pn532_command(p, CMD_IN_LIST_PASSIVE_TARGET, list, sizeof list, out, sizeof out);
    if (n < 1 || out[0] > PN532_MAX_TARGETS) {
        return RF_FAULT;
    }
    int found = 0;
    size_t i = 1;
    for (uint8_t t = 0; t < out[0]; t++) {
        if (i + 5 > (size_t)n) {
            return RF_FAULT;
        }
        uint8_t id_len = out[i + 4];
        if (id_len == 0 || id_len > UID_MAX || i + 5 + id_len > (size_t)n) {
            return RF_FAULT;
        }
        if (found < max) {
            tags[found].tech = TECH_ISO14443A;
            tags[found].rssi = 0;
            tags[found].uid_len = id_len;
            memcpy(tags[found].uid, out + i + 5, id_len);
        }
        found++;
        i += 5u + id_len;
    }
    if (out[0] > 0) {
        const uint8_t all = 0x00;
        (void)pn532_command(p, CMD_IN_RELEASE, &all, 1, out, sizeof out);
    }
    return found;
}

const struct radio_ops PN532_RADIO = {pn532_init, pn532_inventory};
