/* The card-passage sensor against the reads: see passage.h. */
#include "passage.h"

#include <string.h>

static void drop_first(uint32_t *row, uint8_t *n) {
    memmove(row, row + 1, (size_t)(*n - 1u) * sizeof row[0]);
    (*n)--;
}

void passage_init(struct passage *p, uint32_t window_ms) {
    memset(p, 0, sizeof *p);
    p->window_ms = window_ms;
}

void passage_sensed(struct passage *p, uint32_t now) {
    if (p->read > 0) {
        drop_first(p->read_at, &p->read); /* the card whose tag was read a moment ago */
        return;
    }
    if (p->sensed == PASSAGE_SLOTS) {
        drop_first(p->sensed_at, &p->sensed); /* the oldest cannot be read in time any more */
        if (p->missed < UINT8_MAX) {
            p->missed++;
        }
    }
    p->sensed_at[p->sensed++] = now;
}

void passage_read(struct passage *p, uint32_t now) {
    if (p->sensed > 0) {
        drop_first(p->sensed_at, &p->sensed);
        return;
    }
    if (p->read == PASSAGE_SLOTS) {
        drop_first(p->read_at, &p->read);
    }
    p->read_at[p->read++] = now;
}

int passage_missed(struct passage *p, uint32_t now) {
    while (p->read > 0 && now - p->read_at[0] > p->window_ms) {
        drop_first(p->read_at, &p->read);
    }
    if (p->missed > 0) {
        p->missed--;
        return 1;
    }
    if (p->sensed > 0 && now - p->sensed_at[0] > p->window_ms) {
        drop_first(p->sensed_at, &p->sensed);
        return 1;
    }
    return 0;
}

unsigned passage_waiting(const struct passage *p) { return p->sensed; }
