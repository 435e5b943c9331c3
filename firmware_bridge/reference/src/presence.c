#include "presence.h"

#include <string.h>

void presence_init(struct presence *p, uint32_t gone_ms, const struct presence_hooks *hooks) {
    memset(p, 0, sizeof *p);
    p->gone_ms = gone_ms;
    p->hooks = *hooks;
}

void presence_clear(struct presence *p) { memset(p->tags, 0, sizeof p->tags); }

static int same(const struct rf_tag *a, const struct rf_tag *b) {
    return a->uid_len == b->uid_len && memcmp(a->uid, b->uid, a->uid_len) == 0;
}

/* A full row makes room by ending the debounce early of the tag missed longest (it is not in
 * the field now); NULL when every tag of the row answered this very scan. */
static struct present_tag *evict(struct presence *p, uint8_t antenna, uint32_t now) {
    struct present_tag *row = p->tags[antenna], *victim = NULL;
    for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
        if (row[k].used && row[k].misses > 0 &&
            (victim == NULL || row[k].last_ms < victim->last_ms)) {
            victim = &row[k];
        }
    }
    if (victim != NULL) {
        victim->used = 0;
        if (p->hooks.gone) {
            p->hooks.gone(p->hooks.ctx, antenna, victim, now);
        }
    }
    return victim;
}

void presence_scan(struct presence *p, uint8_t antenna, const struct rf_tag *found, int n,
                   uint32_t now) {
    if (antenna >= RF_MAX_ANTENNAS) {
        return;
    }
    struct present_tag *row = p->tags[antenna];
    for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
        if (row[k].used && row[k].misses < 255u) {
            row[k].misses++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (found[i].uid_len == 0 || found[i].uid_len > UID_MAX) {
            continue;
        }
        struct present_tag *hit = NULL, *free_slot = NULL;
        for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
            if (row[k].used && same(&row[k].tag, &found[i])) {
                hit = &row[k];
            } else if (!row[k].used && free_slot == NULL) {
                free_slot = &row[k];
            }
        }
        if (hit != NULL) {
            hit->last_ms = now;
            hit->misses = 0;
            hit->tag.rssi = found[i].rssi;
            continue;
        }
        if (free_slot == NULL) {
            free_slot = evict(p, antenna, now);
        }
        if (free_slot == NULL) {
            if (p->hooks.full) {
                p->hooks.full(p->hooks.ctx, antenna, now);
            }
            continue;
        }
        free_slot->tag = found[i];
        free_slot->first_ms = free_slot->last_ms = now;
        free_slot->misses = 0;
        free_slot->used = 1;
        p->hooks.seen(p->hooks.ctx, antenna, free_slot);
    }
    for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
        struct present_tag *t = &row[k];
        if (t->used && t->misses >= 2u && now - t->last_ms >= p->gone_ms) {
            t->used = 0;
            if (p->hooks.gone) {
                p->hooks.gone(p->hooks.ctx, antenna, t, now);
            }
        }
    }
}

unsigned presence_count(const struct presence *p, uint8_t antenna) {
    unsigned n = 0;
    if (antenna < RF_MAX_ANTENNAS) {
        for (unsigned k = 0; k < RF_TAGS_PER_ANTENNA; k++) {
            n += p->tags[antenna][k].used;
        }
    }
    return n;
}
