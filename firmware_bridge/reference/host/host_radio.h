/* A radio and multiplexer whose tags the test scripts (host build only): per antenna a list
 * of tags in the field; a tag "passing" the antenna stays for a number of inventories, as a
 * card sliding out of a shoe stays in the field for a few scans. */
#ifndef RF_HOST_RADIO_H
#define RF_HOST_RADIO_H

#include <stdint.h>

#include "../src/hw.h"
#include "../src/presence.h"

#define HOST_TAGS 24

struct host_tag {
    struct rf_tag tag;
    uint8_t used;
    int16_t reads_left; /* -1: stays until removed */
    uint32_t placed;    /* order of arrival: the radio answers the oldest first */
};

struct host_radio {
    struct host_tag field[RF_MAX_ANTENNAS][HOST_TAGS];
    uint8_t selected;
    uint8_t antennas;
    uint8_t init_fails;
    uint8_t antenna_fails[RF_MAX_ANTENNAS];
    uint32_t inventories;
    uint32_t placements;
};

extern const struct radio_ops HOST_RADIO;
extern const struct mux_ops HOST_MUX;

/* reads < 0: the tag stays; otherwise it leaves after that many inventories. 0 or -1. */
int host_radio_place(struct host_radio *h, uint8_t antenna, const struct rf_tag *t, int reads);
int host_radio_remove(struct host_radio *h, uint8_t antenna, const uint8_t *uid, uint8_t len);

#endif
