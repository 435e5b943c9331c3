/* Little-endian field access (docs/protocol.md: "All integers little-endian"). */
#ifndef RF_BYTES_H
#define RF_BYTES_H

#include <stdint.h>

static inline void put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t get_u16(const uint8_t *p) {
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

static inline uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

/* Serial-number arithmetic over the circle 1..65535 (0 is never a seq; seq_prev(1) is 0,
 * "nothing"). The same definitions as firmware_bridge/seq.py. */
#define SEQ_SPACE 65535u
static inline uint16_t seq_next(uint16_t s) { return (uint16_t)(s % SEQ_SPACE + 1u); }
static inline uint16_t seq_prev(uint16_t s) {
    return s == 1u ? 0u : (uint16_t)(((uint32_t)s + SEQ_SPACE - 2u) % SEQ_SPACE + 1u);
}
static inline int seq_before(uint16_t a, uint16_t b) {
    uint32_t d = ((uint32_t)b + SEQ_SPACE - a) % SEQ_SPACE;
    return d > 0u && d < SEQ_SPACE / 2u;
}

/* Time in ms wraps after 49.7 days: compare by difference. */
static inline int time_reached(uint32_t now, uint32_t deadline) {
    return (int32_t)(now - deadline) >= 0;
}

#endif
