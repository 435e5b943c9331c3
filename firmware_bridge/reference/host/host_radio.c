#include "host_radio.h"

#include <string.h>

static int radio_init(void *ctx) {
    struct host_radio *h = ctx;
    return h->init_fails ? RF_FAULT : 0;
}

/* Answers up to `max` tags, oldest arrival first (as a card that entered the field earlier
 * wins the anti-collision rounds earlier); tags not answered stay for the next inventory. */
static int radio_inventory(void *ctx, struct rf_tag *tags, int max) {
    struct host_radio *h = ctx;
    struct host_tag *row;
    int n = 0;
    uint32_t after = 0;
    if (h->selected >= RF_MAX_ANTENNAS || h->antenna_fails[h->selected]) {
        return RF_FAULT;
    }
    h->inventories++;
    row = h->field[h->selected];
    for (int k = 0; k < HOST_TAGS; k++) {
        n += row[k].used;
    }
    for (int i = 0; i < n && i < max; i++) {
        struct host_tag *next = NULL;
        for (int k = 0; k < HOST_TAGS; k++) {
            if (row[k].used && row[k].placed > after &&
                (next == NULL || row[k].placed < next->placed)) {
                next = &row[k];
            }
        }
        if (next == NULL) {
            break;
        }
        after = next->placed;
        tags[i] = next->tag;
        if (next->reads_left > 0 && --next->reads_left == 0) {
            next->used = 0;
        }
    }
    return n;
}

static int mux_select(void *ctx, uint8_t antenna) {
    struct host_radio *h = ctx;
    if (antenna >= h->antennas) {
        return RF_FAULT;
    }
    h->selected = antenna;
    return 0;
}

const struct radio_ops HOST_RADIO = {radio_init, radio_inventory};
const struct mux_ops HOST_MUX = {mux_select, 1};

int host_radio_place(struct host_radio *h, uint8_t antenna, const struct rf_tag *t, int reads) {
    if (antenna >= h->antennas || t->uid_len == 0 || t->uid_len > UID_MAX) {
        return -1;
    }
    struct host_tag *free_slot = NULL;
    for (int k = 0; k < HOST_TAGS; k++) {
        struct host_tag *s = &h->field[antenna][k];
        if (s->used && s->tag.uid_len == t->uid_len &&
            memcmp(s->tag.uid, t->uid, t->uid_len) == 0) {
            s->reads_left = (int16_t)reads;
            return 0;
        }
        if (!s->used && free_slot == NULL) {
            free_slot = s;
        }
    }
    if (free_slot == NULL) {
        return -1;
    }
    free_slot->tag = *t;
    free_slot->used = 1;
    free_slot->placed = ++h->placements;
    free_slot->reads_left = (int16_t)(reads < 0 ? -1 : (reads == 0 ? 1 : reads));
    return 0;
}

int host_radio_remove(struct host_radio *h, uint8_t antenna, const uint8_t *uid, uint8_t len) {
    if (antenna >= h->antennas) {
        return -1;
    }
    for (int k = 0; k < HOST_TAGS; k++) {
        struct host_tag *s = &h->field[antenna][k];
        if (s->used && s->tag.uid_len == len && memcmp(s->tag.uid, uid, len) == 0) {
            s->used = 0;
            return 0;
        }
    }
    return -1;
}
