/* Frames of protocol v1 (docs/protocol.md, "Frame"): encoding, and a byte-at-a-time stream
 * decoder that never fails, keeps at most 256 bytes and counts what it drops by reason. */
#ifndef RF_FRAME_H
#define RF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

enum frame_result {
    FRAME_NONE = 0,     /* more bytes needed */
    FRAME_OK = 1,       /* *out holds a frame */
    DROP_TOO_LONG = 2,  /* more than 256 bytes without a delimiter */
    DROP_COBS = 3,
    DROP_LENGTH = 4,    /* decoded to fewer than 8 or more than 248 bytes */
    DROP_CRC = 5,
    DROP_VERSION = 6    /* another version, reserved bits, or a reliable frame with seq 0 */
};
#define DROP_REASONS 7

struct frame {
    uint8_t flags; /* FRAME_ACK_REQ | FRAME_RETX */
    uint8_t type;
    uint16_t seq;
    uint8_t len;
    const uint8_t *payload; /* into the decoder; valid until the next byte is pushed */
};

struct frame_decoder {
    uint8_t run[WIRE_MAX_RUN];
    uint8_t body[WIRE_MAX_RUN];
    uint16_t len;
    uint8_t skipping;
    uint32_t frames;
    uint32_t drops[DROP_REASONS]; /* indexed by enum frame_result */
};

void frame_decoder_init(struct frame_decoder *d);

/* One byte of the stream; returns FRAME_OK with *out filled, a DROP_* reason, or
 * FRAME_NONE. */
enum frame_result frame_decoder_push(struct frame_decoder *d, uint8_t byte, struct frame *out);

/* Encode a frame into wire (room for WIRE_MAX bytes): COBS(frame) 00. Returns the wire
 * length, or 0 when the payload is longer than 240 bytes. */
size_t frame_encode(uint8_t flags, uint8_t type, uint16_t seq, const uint8_t *payload,
                    size_t len, uint8_t *wire);

#endif
