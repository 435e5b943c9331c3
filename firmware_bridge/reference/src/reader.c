/* The reader's main loop pieces: boot, feeding UART bytes, and one poll step (radio bring-up,
 * one antenna of the scan, the session's timers, a pending reboot). */
#include "reader.h"

#include <string.h>

#define RADIO_RETRY_MS 1000u

static uint16_t status_bits(void *ctx) {
    struct reader *r = ctx;
    uint16_t bits = r->radio_ok ? 0 : HB_READER_FAULT;
    for (uint8_t a = 0; a < r->cfg.antennas; a++) {
        if (r->antenna_fault[a]) {
            bits |= HB_ANTENNA_FAULT;
        }
    }
    return bits;
}

static void uart_write(void *ctx, const uint8_t *data, size_t len) {
    struct reader *r = ctx;
    r->b->uart_write(r->b->ctx, data, len);
}

static void radio_bring_up(struct reader *r, uint32_t now) {
    if (r->b->radio->init(r->b->radio_ctx) == 0) {
        r->radio_ok = 1;
        if (r->radio_retry_ms != 0) {
            session_report(&r->s, SEV_INFO, ST_READER_INIT_FAILED, ANTENNA_NONE,
                           "radio recovered", now);
        }
        return;
    }
    if (r->radio_retry_ms == 0) { /* report the first failure only, then retry quietly */
        session_report(&r->s, SEV_ERROR, ST_READER_INIT_FAILED, ANTENNA_NONE,
                       "radio init failed", now);
    }
    r->radio_retry_ms = now + RADIO_RETRY_MS;
}

static void antenna_verdict(struct reader *r, uint8_t a, int faulty, uint32_t now) {
    scan_mark(&r->sc, a, faulty, now);
    if (faulty && !r->antenna_fault[a]) {
        session_report(&r->s, SEV_ERROR, ST_ANTENNA_FAULT, a, "antenna fault", now);
    } else if (!faulty && r->antenna_fault[a]) {
        session_report(&r->s, SEV_INFO, ST_ANTENNA_FAULT, a, "antenna recovered", now);
    }
    r->antenna_fault[a] = (uint8_t)(faulty != 0);
}

static void read_antenna(struct reader *r, uint8_t a, uint32_t now) {
    int n = r->b->radio->inventory(r->b->radio_ctx, r->found, (int)RF_TAGS_PER_ANTENNA);
    if (n < 0) {
        antenna_verdict(r, a, 1, now);
        return;
    }
    antenna_verdict(r, a, 0, now);
    if (n > (int)RF_TAGS_PER_ANTENNA) {
        n = (int)RF_TAGS_PER_ANTENNA; /* the others answer in a later scan */
    } else if (n < (int)RF_TAGS_PER_ANTENNA) {
        r->crowded[a] = 0;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (r->found[i].rssi == 0 || r->found[i].rssi >= r->rssi_min) {
            r->found[kept++] = r->found[i];
        }
    }
    presence_scan(&r->pr, a, r->found, kept, now);
}

void reader_boot(struct reader *r, const struct board *b, const struct reader_settings *cfg) {
    uint32_t now = b->now_ms(b->ctx);
    memset(r, 0, sizeof *r);
    r->b = b;
    r->cfg = *cfg;
    passage_init(&r->passage, PASSAGE_WINDOW_MS);
    if (r->cfg.antennas == 0 || r->cfg.antennas > RF_MAX_ANTENNAS) {
        r->cfg.antennas = r->cfg.antennas == 0 ? 1u : (uint8_t)RF_MAX_ANTENNAS;
    }
    struct session_identity id = {
        .kind = cfg->kind,
        .antenna_count = r->cfg.antennas,
        .caps = cfg->kind == KIND_SHOE ? (reader_has_sensor(r) ? CAP_PASSAGE_SENSOR : 0u)
                                       : CAP_TAG_GONE,
        .boot_id = boot_begin(b, &r->boot),
        .hw_id_len = b->hw_id_len > 16 ? 16 : b->hw_id_len,
        .fw_version = cfg->fw_version,
    };
    memcpy(id.hw_id, b->hw_id, id.hw_id_len);
    struct session_timing timing = {
        .window = 8, .retransmit_ms = 250, .heartbeat_ms = 1000, .dead_ms = 3000};
    struct session_hooks hooks = {.ctx = r, .write = uart_write, .deliver = reader_command,
                                  .status_bits = status_bits, .link_up = NULL};
    session_init(&r->s, &id, &timing, &hooks, now);
    struct presence_hooks ph = {.ctx = r, .seen = reader_on_seen, .gone = reader_on_gone,
                                .full = reader_on_full};
    presence_init(&r->pr, cfg->gone_debounce_ms, &ph);
    scan_init(&r->sc, r->cfg.antennas, cfg->poll_interval_ms, now);
    session_announce(&r->s, now);
    uint8_t cause = b->reset_cause != NULL ? b->reset_cause(b->ctx) : RESET_POWER_ON;
    if (cause == RESET_WATCHDOG) {
        session_report(&r->s, SEV_WARN, ST_WATCHDOG_RESET, ANTENNA_NONE, "watchdog reset",
                       now);
    } else if (cause == RESET_BROWNOUT) {
        session_report(&r->s, SEV_WARN, ST_BROWNOUT_RESET, ANTENNA_NONE, "brownout reset",
                       now);
    }
    radio_bring_up(r, now);
}

/* Cards the passage sensor saw against the tags read: one MISREAD (NO_TAG) per card that
 * crossed it unread, and the draw counted, so the next card's index shows the gap. */
static void check_passages(struct reader *r, uint32_t now) {
    for (uint8_t n = r->b->passages(r->b->ctx); n > 0; n--) {
        passage_sensed(&r->passage, now);
    }
    while (passage_missed(&r->passage, now)) {
        reader_misread(r, 0, MISREAD_NO_TAG, now);
        r->shoe_index++;
    }
}

void reader_feed(struct reader *r, const uint8_t *data, size_t len) {
    session_feed(&r->s, data, len, r->b->now_ms(r->b->ctx));
}

void reader_poll(struct reader *r) {
    uint32_t now = r->b->now_ms(r->b->ctx);
    if (r->reboot_pending) {
        r->reboot_pending = 0;
        r->b->reset(r->b->ctx);
        return;
    }
    if (!r->radio_ok) {
        if ((int32_t)(now - r->radio_retry_ms) >= 0) {
            radio_bring_up(r, now);
        }
    } else {
        uint8_t a = 0;
        switch (scan_poll(&r->sc, r->b, now, &a)) {
        case SCAN_READ:
            read_antenna(r, a, now);
            break;
        case SCAN_MUX_FAULT:
            antenna_verdict(r, a, 1, now);
            break;
        default:
            break;
        }
    }
    if (reader_has_sensor(r)) {
        check_passages(r, now);
    }
    session_poll(&r->s, now);
}
