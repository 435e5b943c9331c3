/* Events a reader sends: TAG_SEEN in the shoe's read order or per table antenna, TAG_GONE,
 * MISREAD, and the snapshot (ANTENNA_STATE per antenna, then SNAPSHOT_DONE). */
#include <string.h>

#include "bytes.h"
#include "reader.h"

void reader_on_seen(void *ctx, uint8_t antenna, const struct present_tag *t) {
    struct reader *r = ctx;
    uint8_t p[12 + UID_MAX];
    uint16_t index;
    if (r->cfg.kind == KIND_SHOE) {
        index = r->shoe_index++; /* the shoe's read order: one index per draw */
        if (reader_has_sensor(r)) {
            passage_read(&r->passage, t->first_ms);
        }
    } else {
        index = r->counters[antenna]++;
    }
    p[0] = antenna;
    p[1] = t->tag.tech;
    put_u32(p + 2, session_uptime(&r->s, t->first_ms));
    put_u16(p + 6, index);
    p[8] = t->tag.rssi;
    p[9] = t->tag.uid_len;
    memcpy(p + 10, t->tag.uid, t->tag.uid_len);
    (void)session_send(&r->s, MSG_TAG_SEEN, p, (uint8_t)(10 + t->tag.uid_len), t->first_ms);
}

void reader_on_gone(void *ctx, uint8_t antenna, const struct present_tag *t, uint32_t now) {
    struct reader *r = ctx;
    uint8_t p[11 + UID_MAX];
    if (r->cfg.kind == KIND_SHOE) {
        return; /* a shoe reports draws only (no TAG_GONE capability) */
    }
    p[0] = antenna;
    p[1] = t->tag.tech;
    put_u32(p + 2, session_uptime(&r->s, t->last_ms));
    put_u32(p + 6, t->last_ms - t->first_ms);
    p[10] = t->tag.uid_len;
    memcpy(p + 11, t->tag.uid, t->tag.uid_len);
    (void)session_send(&r->s, MSG_TAG_GONE, p, (uint8_t)(11 + t->tag.uid_len), now);
}

void reader_misread(struct reader *r, uint8_t antenna, uint8_t reason, uint32_t now) {
    uint8_t p[6];
    p[0] = antenna;
    put_u32(p + 1, session_uptime(&r->s, now));
    p[5] = reason;
    (void)session_send(&r->s, MSG_MISREAD, p, sizeof p, now);
}

void reader_on_full(void *ctx, uint8_t antenna, uint32_t now) {
    struct reader *r = ctx;
    if (!r->crowded[antenna]) {
        r->crowded[antenna] = 1;
        reader_misread(r, antenna, MISREAD_COLLISION, now);
    }
}

void reader_snapshot(struct reader *r, uint8_t req_id, uint32_t now) {
    uint8_t p[FRAME_MAX_PAYLOAD];
    for (uint8_t a = 0; a < r->cfg.antennas; a++) {
        size_t n = 3;
        uint8_t count = 0;
        p[0] = req_id;
        p[1] = a;
        for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
            const struct present_tag *t = &r->pr.tags[a][k];
            if (!t->used || n + 2u + t->tag.uid_len > sizeof p) {
                continue;
            }
            p[n++] = t->tag.tech;
            p[n++] = t->tag.uid_len;
            memcpy(p + n, t->tag.uid, t->tag.uid_len);
            n += t->tag.uid_len;
            count++;
        }
        p[2] = count;
        (void)session_send(&r->s, MSG_ANTENNA_STATE, p, (uint8_t)n, now);
    }
    p[0] = req_id;
    p[1] = r->cfg.antennas;
    (void)session_send(&r->s, MSG_SNAPSHOT_DONE, p, 2, now);
}
