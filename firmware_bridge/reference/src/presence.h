/* Which tags lie on which antenna, with debounce: a tag is SEEN at its first read, and
 * GONE once it went unread for `gone_ms` AND for at least two scans of its antenna (so a
 * slow sweep over many antennas never makes a tag blink). No heap: a fixed table per
 * antenna; when it is full, the tag missed longest leaves early to make room, and only when
 * every tag of the row answered the same scan is the newcomer refused (MISREAD collision). */
#ifndef RF_PRESENCE_H
#define RF_PRESENCE_H

#include <stdint.h>

#include "hw.h"

#ifndef RF_MAX_ANTENNAS
#define RF_MAX_ANTENNAS 24u
#endif
#ifndef RF_TAGS_PER_ANTENNA
#define RF_TAGS_PER_ANTENNA 8u
#endif

struct present_tag {
    struct rf_tag tag;
    uint32_t first_ms, last_ms;
    uint8_t misses; /* scans of the antenna since it was last read */
    uint8_t used;
};

struct presence_hooks {
    void *ctx;
    void (*seen)(void *ctx, uint8_t antenna, const struct present_tag *t);
    void (*gone)(void *ctx, uint8_t antenna, const struct present_tag *t, uint32_t now);
    void (*full)(void *ctx, uint8_t antenna, uint32_t now); /* no room for another tag */
};

struct presence {
    struct present_tag tags[RF_MAX_ANTENNAS][RF_TAGS_PER_ANTENNA];
    uint32_t gone_ms;
    struct presence_hooks hooks;
};

void presence_init(struct presence *p, uint32_t gone_ms, const struct presence_hooks *hooks);

/* One scan of `antenna` found `n` tags (in the order the radio answered). */
void presence_scan(struct presence *p, uint8_t antenna, const struct rf_tag *found, int n,
                   uint32_t now);

/* Tags present on `antenna` (used slots), for snapshots. */
unsigned presence_count(const struct presence *p, uint8_t antenna);

/* Forget everything (a reboot); no events. */
void presence_clear(struct presence *p);

#endif
