/* The hardware interface of the reference reader: everything the portable core needs from a
 * board, as small tables of functions. A port fills one `struct board` (see host/ for a
 * scripted one and drivers/ for the PN5180 and PN532 radios). */
#ifndef RF_HW_H
#define RF_HW_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct rf_tag {
    uint8_t tech; /* enum tech */
    uint8_t uid_len;
    uint8_t rssi; /* 0 = n/a */
    uint8_t uid[UID_MAX];
};

#define RF_FAULT (-1)

/* A radio front end (PN5180, PN532, a scripted host radio...). */
struct radio_ops {
    /* Bring the chip up; 0 or RF_FAULT. */
    int (*init)(void *ctx);
    /* Every tag in the field of the selected antenna: fills up to `max` tags and returns how
     * many answered (more than `max` when the field held more), or RF_FAULT. */
    int (*inventory)(void *ctx, struct rf_tag *tags, int max);
};

/* An antenna multiplexer (e.g. an analog RF switch tree driven by GPIOs). */
struct mux_ops {
    /* Route the radio to `antenna`; 0 or RF_FAULT. */
    int (*select)(void *ctx, uint8_t antenna);
    uint16_t settle_ms; /* wait after a switch before the radio may read */
};

enum reset_cause { RESET_POWER_ON = 0, RESET_WATCHDOG = 1, RESET_BROWNOUT = 2,
                   RESET_SOFTWARE = 3 };

struct board {
    void *ctx;
    const struct radio_ops *radio;
    void *radio_ctx;
    const struct mux_ops *mux; /* NULL: one antenna, no multiplexer */
    void *mux_ctx;
    void (*uart_write)(void *ctx, const uint8_t *data, size_t len);
    uint32_t (*now_ms)(void *ctx);
    uint32_t (*random32)(void *ctx); /* hardware RNG (or the best entropy the board has) */
    /* Persistent store of a few bytes (flash page, EEPROM, a file): 0 or -1. */
    int (*store_load)(void *ctx, uint8_t *data, size_t len);
    int (*store_save)(void *ctx, const uint8_t *data, size_t len);
    uint8_t (*reset_cause)(void *ctx); /* enum reset_cause */
    void (*reset)(void *ctx);          /* does not return on a microcontroller */
    void (*indicate)(void *ctx, uint8_t target, uint8_t pattern, uint16_t duration_ms);
    /* A shoe's card-passage sensor: how many cards crossed it since the last call (a counter
     * its interrupt increments). NULL: no sensor (the HELLO_ACK then clears caps bit 3). */
    uint8_t (*passages)(void *ctx);
    uint8_t hw_id_len;
    uint8_t hw_id[16];
};

#endif
