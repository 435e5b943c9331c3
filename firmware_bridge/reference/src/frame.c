#include "frame.h"

#include <string.h>

#include "bytes.h"
#include "cobs.h"
#include "crc32.h"

void frame_decoder_init(struct frame_decoder *d) { memset(d, 0, sizeof *d); }

static enum frame_result decode_run(struct frame_decoder *d, struct frame *out) {
    int n = cobs_decode(d->run, d->len, d->body);
    if (n < 0) {
        return DROP_COBS;
    }
    if ((size_t)n < FRAME_MIN || (size_t)n > FRAME_MAX) {
        return DROP_LENGTH;
    }
    size_t body = (size_t)n - FRAME_CRC;
    if (get_u32(d->body + body) != crc32(d->body, body)) {
        return DROP_CRC;
    }
    uint8_t vf = d->body[0];
    uint16_t seq = get_u16(d->body + 2);
    if ((vf >> 4) != FRAME_VERSION || (vf & 0x0Cu) != 0 ||
        ((vf & FRAME_ACK_REQ) != 0 && seq == 0)) {
        return DROP_VERSION;
    }
    out->flags = (uint8_t)(vf & 0x03u);
    out->type = d->body[1];
    out->seq = seq;
    out->len = (uint8_t)(body - FRAME_HEADER);
    out->payload = d->body + FRAME_HEADER;
    return FRAME_OK;
}

enum frame_result frame_decoder_push(struct frame_decoder *d, uint8_t byte, struct frame *out) {
    enum frame_result r = FRAME_NONE;
    if (byte != 0) {
        if (d->skipping) {
            return FRAME_NONE;
        }
        if (d->len == WIRE_MAX_RUN) {
            d->len = 0;
            d->skipping = 1;
            r = DROP_TOO_LONG;
        } else {
            d->run[d->len++] = byte;
            return FRAME_NONE;
        }
    } else if (d->skipping) {
        d->skipping = 0;
        return FRAME_NONE;
    } else if (d->len > 0) {
        r = decode_run(d, out);
        d->len = 0;
    }
    if (r == FRAME_OK) {
        d->frames++;
    } else if (r != FRAME_NONE) {
        d->drops[r]++;
    }
    return r;
}

size_t frame_encode(uint8_t flags, uint8_t type, uint16_t seq, const uint8_t *payload,
                    size_t len, uint8_t *wire) {
    uint8_t raw[FRAME_MAX];
    if (len > FRAME_MAX_PAYLOAD) {
        return 0;
    }
    raw[0] = (uint8_t)((FRAME_VERSION << 4) | (flags & 0x03u));
    raw[1] = type;
    put_u16(raw + 2, seq);
    if (len > 0) {
        memcpy(raw + FRAME_HEADER, payload, len);
    }
    put_u32(raw + FRAME_HEADER + len, crc32(raw, FRAME_HEADER + len));
    size_t n = cobs_encode(raw, FRAME_HEADER + len + FRAME_CRC, wire);
    wire[n++] = 0;
    return n;
}
