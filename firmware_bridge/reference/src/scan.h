/* The antenna scan scheduler: sweeps antennas 0..n-1 through the multiplexer, one sweep
 * every `poll_interval_ms` at most; after switching it waits the multiplexer's settle time
 * before the radio may read. A faulty antenna is skipped and retried once a second, so one
 * broken cable does not slow the others down. */
#ifndef RF_SCAN_H
#define RF_SCAN_H

#include <stdint.h>

#include "hw.h"
#include "presence.h"

#define SCAN_FAULT_RETRY_MS 1000u

enum scan_result { SCAN_WAIT = 0, SCAN_READ = 1, SCAN_MUX_FAULT = 2 };

struct scan {
    uint8_t antennas;
    uint8_t next;     /* the antenna to switch to next */
    uint8_t selected; /* the antenna the multiplexer routes to (valid while settling) */
    uint8_t settling;
    uint32_t ready_ms; /* settled at */
    uint32_t sweep_start_ms, next_sweep_ms;
    uint32_t poll_interval_ms;
    uint8_t faulty[RF_MAX_ANTENNAS];
    uint32_t retry_ms[RF_MAX_ANTENNAS];
    uint32_t sweeps;
};

void scan_init(struct scan *sc, uint8_t antennas, uint32_t poll_interval_ms, uint32_t now);

/* What to do now: SCAN_READ (*antenna is routed and settled: inventory it), SCAN_MUX_FAULT
 * (*antenna could not be selected) or SCAN_WAIT. */
enum scan_result scan_poll(struct scan *sc, const struct board *b, uint32_t now,
                           uint8_t *antenna);

/* The reader's verdict on an antenna after reading it (faulty ones are retried slowly). */
void scan_mark(struct scan *sc, uint8_t antenna, int faulty, uint32_t now);

#endif
