/* The reference reader: a protocol v1 session, the antenna scan, tag presence and the
 * shoe's read order on one board. Call reader_boot once, then in the main loop
 * reader_feed(bytes from the UART) and reader_poll(). No heap: the whole reader is this
 * struct (place it in static storage). */
#ifndef RF_READER_H
#define RF_READER_H

#include <stdint.h>

#include "boot.h"
#include "hw.h"
#include "passage.h"
#include "presence.h"
#include "scan.h"
#include "session.h"

struct reader_settings {
    uint8_t kind;     /* KIND_SHOE (antenna 0, draw indexes) or KIND_TABLE */
    uint8_t antennas; /* 1..RF_MAX_ANTENNAS */
    uint32_t poll_interval_ms;
    uint32_t gone_debounce_ms;
    const char *fw_version;
};

struct reader {
    const struct board *b;
    struct reader_settings cfg;
    struct session s;
    struct presence pr;
    struct scan sc;
    struct passage passage; /* a shoe with a card-passage sensor only */
    struct boot_record boot;
    uint16_t shoe_index; /* draws since SHOE_RESET (burns included) */
    uint16_t counters[RF_MAX_ANTENNAS];
    uint8_t radio_ok;
    uint32_t radio_retry_ms;
    uint8_t antenna_fault[RF_MAX_ANTENNAS];
    uint8_t crowded[RF_MAX_ANTENNAS]; /* a collision was reported, not yet cleared */
    uint8_t rssi_min;
    uint8_t reboot_pending;
    struct rf_tag found[RF_TAGS_PER_ANTENNA];
};

/* Start (or restart) the reader: new boot id, announce, queue the reset cause. */
void reader_boot(struct reader *r, const struct board *b, const struct reader_settings *cfg);
void reader_feed(struct reader *r, const uint8_t *data, size_t len);
void reader_poll(struct reader *r);

/* A shoe whose board has a card-passage sensor. */
static inline int reader_has_sensor(const struct reader *r) {
    return r->cfg.kind == KIND_SHOE && r->b->passages != NULL;
}

/* internal to the core: events.c and commands.c */
void reader_on_seen(void *ctx, uint8_t antenna, const struct present_tag *t);
void reader_on_gone(void *ctx, uint8_t antenna, const struct present_tag *t, uint32_t now);
void reader_on_full(void *ctx, uint8_t antenna, uint32_t now);
void reader_misread(struct reader *r, uint8_t antenna, uint8_t reason, uint32_t now);
void reader_snapshot(struct reader *r, uint8_t req_id, uint32_t now);
void reader_command(void *ctx, uint8_t type, const uint8_t *payload, uint8_t len, uint32_t now);
/* "<prefix>0xNN" into out (room for prefix + 5) */
const char *reader_hex_text(char *out, const char *prefix, unsigned value);

#endif
