#include <string.h>

#include "fake_chips.h"

static void frame(struct fake_pn532 *f, uint8_t code, const uint8_t *data, size_t len) {
    uint8_t *a = f->answer;
    size_t n = 0;
    uint8_t sum = (uint8_t)(0xD5u + code);
    a[n++] = 0x00;
    a[n++] = 0x00;
    a[n++] = 0xFF;
    a[n++] = (uint8_t)(len + 2);
    a[n++] = (uint8_t)(0x100u - (len + 2));
    a[n++] = 0xD5;
    a[n++] = code;
    for (size_t i = 0; i < len; i++) {
        a[n++] = data[i];
        sum = (uint8_t)(sum + data[i]);
    }
    a[n++] = (uint8_t)(0x100u - sum + (f->corrupt_next ? 1u : 0u));
    a[n++] = 0x00;
    f->corrupt_next = 0;
    f->answer_len = n;
}

static int fake_write(void *ctx, uint8_t addr, const uint8_t *d, size_t n) {
    struct fake_pn532 *f = ctx;
    uint8_t out[60];
    size_t o = 0;
    if (addr != 0x24 || n < 9 || d[0] != 0x00 || d[1] != 0x00 || d[2] != 0xFF ||
        (uint8_t)(d[3] + d[4]) != 0 || (size_t)d[3] + 7 != n || d[5] != 0xD4) {
        f->bad_frames++;
        return -1;
    }
    uint8_t sum = 0;
    for (size_t i = 5; i < n - 1; i++) {
        sum = (uint8_t)(sum + d[i]);
    }
    if (sum != 0 || d[n - 1] != 0x00) {
        f->bad_frames++;
        return -1;
    }
    uint8_t cmd = d[6];
    const uint8_t *data = d + 7;
    size_t len = (size_t)d[3] - 2;
    switch (cmd) {
    case 0x02: /* GetFirmwareVersion: IC, Ver, Rev, Support */
        out[o++] = f->ic;
        out[o++] = 0x01;
        out[o++] = 0x06;
        out[o++] = 0x07;
        break;
    case 0x14: /* SAMConfiguration */
    case 0x32: /* RFConfiguration */
        break;
    case 0x4A: { /* InListPassiveTarget */
        if (len < 2 || data[1] != 0x00 || data[0] < 1 || data[0] > 2) {
            f->bad_frames++;
            return -1;
        }
        int nb = f->tags < data[0] ? f->tags : data[0];
        out[o++] = (uint8_t)nb;
        for (int t = 0; t < nb; t++) {
            out[o++] = (uint8_t)(t + 1);
            out[o++] = 0x00;
            out[o++] = 0x44; /* SENS_RES of an NTAG */
            out[o++] = 0x00; /* SEL_RES */
            out[o++] = f->uid_len[t];
            memcpy(out + o, f->uid[t], f->uid_len[t]);
            o += f->uid_len[t];
        }
        break;
    }
    case 0x52: /* InRelease */
        f->released++;
        out[o++] = 0x00;
        break;
    default:
        f->bad_frames++;
        return -1;
    }
    frame(f, (uint8_t)(cmd + 1), out, o);
    f->stage = 1;
    return 0;
}

static int fake_read(void *ctx, uint8_t addr, uint8_t *d, size_t n) {
    struct fake_pn532 *f = ctx;
    static const uint8_t ACK[6] = {0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00};
    memset(d, 0, n);
    if (addr != 0x24 || n == 0) {
        return -1;
    }
    if (f->silent || f->stage == 0) {
        return 0; /* status byte 0: not ready */
    }
    d[0] = 0x01;
    if (f->stage == 1) {
        memcpy(d + 1, ACK, n - 1 < sizeof ACK ? n - 1 : sizeof ACK);
        f->stage = 2;
    } else {
        memcpy(d + 1, f->answer, n - 1 < f->answer_len ? n - 1 : f->answer_len);
        f->stage = 0;
    }
    return 0;
}

static uint32_t fake_now(void *ctx) { return ((struct fake_pn532 *)ctx)->clock++; }

void fake_pn532_bus(struct fake_pn532 *f, struct i2c_bus *bus) {
    bus->ctx = f;
    bus->write = fake_write;
    bus->read = fake_read;
    bus->now_ms = fake_now;
}
