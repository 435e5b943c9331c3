/* Consistent Overhead Byte Stuffing (docs/protocol.md: "On the wire: COBS(frame) 00"). */
#ifndef RF_COBS_H
#define RF_COBS_H

#include <stddef.h>
#include <stdint.h>

/* Encode len bytes into out (room for len + len/254 + 1 bytes); returns the length written.
 * The result holds no zero byte; the caller appends the 0x00 delimiter. */
size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/* Decode len bytes into out (room for len bytes). Returns the decoded length, or -1 when
 * the input is not COBS (a zero byte, or a code running past the end). A trailing 254-byte
 * run is accepted in both forms, as the host's decoder does. */
int cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

#endif
