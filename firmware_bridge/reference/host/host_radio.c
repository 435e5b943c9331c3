#include "host_radio.h"

#include <string.h>

static int radio_init(void *ctx) {
    struct host_radio *h = ctx;
    return h->init_fails ? RF_FAULT : 0;
}

static int radio_inventory(void *ctx, struct rf_tag *tags, int max) {
    struct host_radio *h = ctx;
    int n = 0;
    if (h->selected >= RF_MAX_ANTENNAS || h->antenna_fails[h->selected]) {
        return RF_FAULT;
    }
    h->inventories++;
    for (int k = 0; k < HOST_TAGS; k++) {
        struct host_tag *t = &h->field[h->selected][k];
        if (!t->used) {
            continue;
        }
        if (n < max) {
            tags[n] = t->tag;
        }
        n++;
        if (t->reads_left > 0 && --t->reads_left == 0) {
            t->used = 0;
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
