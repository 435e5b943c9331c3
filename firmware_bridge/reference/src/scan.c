#include "scan.h"

#include <string.h>

#include "bytes.h"

void scan_init(struct scan *sc, uint8_t antennas, uint32_t poll_interval_ms, uint32_t now) {
    memset(sc, 0, sizeof *sc);
    sc->antennas = antennas > RF_MAX_ANTENNAS ? (uint8_t)RF_MAX_ANTENNAS : antennas;
    sc->poll_interval_ms = poll_interval_ms;
    sc->sweep_start_ms = sc->next_sweep_ms = now;
}

void scan_mark(struct scan *sc, uint8_t antenna, int faulty, uint32_t now) {
    if (antenna >= sc->antennas) {
        return;
    }
    sc->faulty[antenna] = (uint8_t)(faulty != 0);
    sc->retry_ms[antenna] = now + SCAN_FAULT_RETRY_MS;
}

/* Advance `next` past the end of a sweep; returns 0 when the next sweep is not due yet. */
static int sweep_due(struct scan *sc, uint32_t now) {
    if (sc->next < sc->antennas) {
        return 1;
    }
    if (!time_reached(now, sc->next_sweep_ms)) {
        return 0;
    }
    sc->next = 0;
    sc->sweeps++;
    sc->sweep_start_ms = now;
    sc->next_sweep_ms = now + sc->poll_interval_ms;
    return 1;
}

enum scan_result scan_poll(struct scan *sc, const struct board *b, uint32_t now,
                           uint8_t *antenna) {
    if (sc->antennas == 0) {
        return SCAN_WAIT;
    }
    if (sc->settling) {
        if (!time_reached(now, sc->ready_ms)) {
            return SCAN_WAIT;
        }
        sc->settling = 0;
        *antenna = sc->selected;
        return SCAN_READ;
    }
    while (sweep_due(sc, now)) {
        uint8_t a = sc->next++;
        if (sc->faulty[a] && !time_reached(now, sc->retry_ms[a])) {
            continue;
        }
        if (b->mux != NULL && b->mux->select(b->mux_ctx, a) != 0) {
            *antenna = a;
            return SCAN_MUX_FAULT;
        }
        uint16_t settle = b->mux != NULL ? b->mux->settle_ms : 0;
        if (settle == 0) {
            *antenna = a;
            return SCAN_READ;
        }
        sc->selected = a;
        sc->settling = 1;
        sc->ready_ms = now + settle;
        return SCAN_WAIT;
    }
    return SCAN_WAIT;
}
