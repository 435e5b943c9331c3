/* A shoe's card-passage sensor (an optical gate in the shoe's mouth) checked against the tags
 * read: every card that crosses the gate must be read within a window, or the shoe reports
 * MISREAD reason NO_TAG (a dead or missing tag) and counts the draw all the same.
 *
 * Reads and passages are matched first in, first out. The gate may see a card before or
 * after its tag is read, so a read with no passage waiting is kept for the window as well
 * (a passage arriving inside it is that card's); a read the gate never confirms is not an
 * error (the gate can miss a card; the tag cannot be invented). Pure logic: no I/O. */
#ifndef RF_PASSAGE_H
#define RF_PASSAGE_H

#include <stdint.h>

#define PASSAGE_SLOTS 8u
#define PASSAGE_WINDOW_MS 500u

struct passage {
    uint32_t sensed_at[PASSAGE_SLOTS]; /* passages waiting for their read, oldest first */
    uint32_t read_at[PASSAGE_SLOTS];   /* reads waiting for their passage, oldest first */
    uint8_t sensed;
    uint8_t read;
    uint8_t missed; /* passages already known to be missed (pushed out of a full row) */
    uint32_t window_ms;
};

void passage_init(struct passage *p, uint32_t window_ms);
/* A card crossed the gate at `now`. */
void passage_sensed(struct passage *p, uint32_t now);
/* A tag was read at `now` (one TAG_SEEN of the shoe). */
void passage_read(struct passage *p, uint32_t now);
/* 1 when one passage went unread (the caller reports one MISREAD and calls again), else 0.
 * Also lets reads the gate never confirmed expire. */
int passage_missed(struct passage *p, uint32_t now);
/* Passages still waiting for a read. */
unsigned passage_waiting(const struct passage *p);

#endif
