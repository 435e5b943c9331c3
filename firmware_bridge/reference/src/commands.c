/* Host commands (docs/protocol.md, "Messages", H->D): SET_CONFIG, SNAPSHOT_REQ, INDICATE,
 * SHOE_RESET, REBOOT. A short payload or a field out of range is reported (STATUS
 * BAD_PAYLOAD, or CONFIG_REJECTED for a value out of range) and changes nothing; a type not
 * in the catalogue is reported as UNKNOWN_TYPE. The frame is acknowledged either way. */
#include "bytes.h"
#include "reader.h"

const char *reader_hex_text(char *out, const char *prefix, unsigned value) {
    static const char HEX[] = "0123456789abcdef";
    unsigned i = 0;
    while (prefix[i] != '\0') {
        out[i] = prefix[i];
        i++;
    }
    out[i++] = '0';
    out[i++] = 'x';
    out[i++] = HEX[(value >> 4) & 0xFu];
    out[i++] = HEX[value & 0xFu];
    out[i] = '\0';
    return out;
}

static int in_catalogue(uint8_t type) {
    return (type >= MSG_HELLO && type <= MSG_NAK) ||
           (type >= MSG_TAG_SEEN && type <= MSG_MISREAD) || type == MSG_BUTTON ||
           type == MSG_STATUS || (type >= MSG_SET_CONFIG && type <= MSG_REBOOT);
}

static uint8_t needed(uint8_t type) {
    switch (type) {
    case MSG_SET_CONFIG:
        return 5;
    case MSG_SNAPSHOT_REQ:
        return 1;
    case MSG_INDICATE:
    case MSG_REBOOT:
        return 4;
    default:
        return 0;
    }
}

static void reject(struct reader *r, uint16_t code, const char *prefix, unsigned value,
                   uint32_t now) {
    char text[40];
    session_report(&r->s, SEV_WARN, code, ANTENNA_NONE, reader_hex_text(text, prefix, value),
                   now);
}

/* Returns 0, or -1 when the value is out of range for the key. */
static int apply_config(struct reader *r, uint8_t key, uint32_t value) {
    switch (key) {
    case CFG_POLL_INTERVAL_MS:
        if (value < 1 || value > 10000) {
            return -1;
        }
        r->sc.poll_interval_ms = value;
        return 0;
    case CFG_GONE_DEBOUNCE_MS:
        if (value > 60000) {
            return -1;
        }
        r->pr.gone_ms = value;
        return 0;
    case CFG_HEARTBEAT_MS:
        if (value < 100 || value >= r->s.timing.dead_ms) {
            return -1;
        }
        r->s.timing.heartbeat_ms = value;
        return 0;
    case CFG_RETRANSMIT_MS:
        if (value < 20 || value > 5000) {
            return -1;
        }
        r->s.timing.retransmit_ms = value;
        return 0;
    default: /* CFG_RSSI_MIN */
        if (value > 255) {
            return -1;
        }
        r->rssi_min = (uint8_t)value;
        return 0;
    }
}

void reader_command(void *ctx, uint8_t type, const uint8_t *p, uint8_t len, uint32_t now) {
    struct reader *r = ctx;
    if (!in_catalogue(type)) {
        reject(r, ST_UNKNOWN_TYPE, "type ", type, now);
        return;
    }
    if (len < needed(type)) {
        reject(r, ST_BAD_PAYLOAD, "type ", type, now);
        return;
    }
    switch (type) {
    case MSG_SET_CONFIG:
        if (p[0] < CFG_POLL_INTERVAL_MS || p[0] > CFG_RSSI_MIN) {
            reject(r, ST_BAD_PAYLOAD, "config key ", p[0], now);
        } else if (apply_config(r, p[0], get_u32(p + 1)) != 0) {
            reject(r, ST_CONFIG_REJECTED, "config key ", p[0], now);
        }
        break;
    case MSG_SNAPSHOT_REQ:
        reader_snapshot(r, p[0], now);
        break;
    case MSG_INDICATE:
        if (r->b->indicate != NULL) {
            r->b->indicate(r->b->ctx, p[0], p[1], get_u16(p + 2));
        }
        break;
    case MSG_SHOE_RESET:
        r->shoe_index = 0;
        passage_init(&r->passage, PASSAGE_WINDOW_MS);
        break;
    case MSG_REBOOT:
        if (get_u32(p) == REBOOT_MAGIC) {
            r->reboot_pending = 1; /* after this batch's ACK went out */
        } else {
            reject(r, ST_BAD_PAYLOAD, "type ", type, now);
        }
        break;
    default:
        break; /* a device->host type sent to us: nothing to do */
    }
}
