/* The device's end of a protocol v1 session (docs/protocol.md, "Link rules"): handshake,
 * reliable sending (window, queue, go-back-N resend), in-order receiving (ACK / NAK),
 * heartbeat and liveness. No clock or port inside: the caller passes `now` (ms) into every
 * call and gives the session a function that writes bytes to the UART.
 *
 * The session knows no commands: reliable frames delivered in order go to `deliver`, and the
 * application answers them (and reports bad ones with session_report). */
#ifndef RF_SESSION_H
#define RF_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "link_state.h"

#ifndef SESSION_QUEUE
#define SESSION_QUEUE 64u /* messages waiting or in flight (the protocol asks for >= 64) */
#endif
#define SESSION_STATUS_RESERVE 4u /* room kept for the device's own STATUS reports */
#define SESSION_SLOTS (SESSION_QUEUE + SESSION_STATUS_RESERVE)

struct session_identity {
    uint8_t kind;
    uint8_t antenna_count;
    uint16_t caps;
    uint32_t boot_id;
    uint8_t hw_id_len;
    uint8_t hw_id[16];
    const char *fw_version; /* ASCII, at most 32 characters */
};

struct session_timing {
    uint8_t window;         /* 1..8 */
    uint32_t retransmit_ms; /* 250 */
    uint32_t heartbeat_ms;  /* 1000 */
    uint32_t dead_ms;       /* 3000 */
};

struct session_hooks {
    void *ctx;
    void (*write)(void *ctx, const uint8_t *data, size_t len);
    /* A reliable frame delivered in order (any type, unknown ones included). */
    void (*deliver)(void *ctx, uint8_t type, const uint8_t *payload, uint8_t len, uint32_t now);
    /* Heartbeat status bits the application adds (reader fault, antenna fault). */
    uint16_t (*status_bits)(void *ctx);
    /* The link came up after a HELLO (fresh == 1) or resumed. May be NULL. */
    void (*link_up)(void *ctx, int fresh, uint32_t now);
};

struct session_stats {
    uint32_t delivered, duplicates, gaps, retransmitted, overflows, naks_sent;
};

struct queued_msg {
    uint16_t seq; /* 0 until it enters the window */
    uint8_t type;
    uint8_t len;
    uint8_t payload[FRAME_MAX_PAYLOAD];
};

struct session {
    enum link_state state;
    struct session_identity id;
    struct session_timing timing;
    struct session_hooks hooks;
    struct frame_decoder decoder;
    struct session_stats stats;
    uint32_t boot_ms;
    /* sending: a ring of SESSION_SLOTS; the first `inflight` are unacknowledged */
    struct queued_msg q[SESSION_SLOTS];
    uint8_t head, count, inflight;
    uint16_t next_seq;
    uint32_t retx_deadline;
    uint8_t retx_armed;
    uint8_t overflowed, overflow_status_due;
    /* receiving */
    uint16_t expected, last_delivered;
    uint16_t nak_seq;
    uint32_t nak_ms;
    uint8_t nak_valid;
    uint8_t ack_due;
    /* liveness */
    uint32_t last_rx_ms, next_heartbeat_ms;
};

void session_init(struct session *s, const struct session_identity *id,
                  const struct session_timing *timing, const struct session_hooks *hooks,
                  uint32_t now);

/* Announce the boot: 00 + unsolicited HELLO_ACK (nonce 0). */
void session_announce(struct session *s, uint32_t now);

/* Bytes from the host (any split). Sends the ACK owed for the batch at the end. */
void session_feed(struct session *s, const uint8_t *data, size_t len, uint32_t now);

/* Timers: retransmission, heartbeat, dead link. Call often (every loop turn). */
void session_poll(struct session *s, uint32_t now);

/* The transport went away (e.g. USB suspended): dead until the host is heard again. */
void session_lost(struct session *s);

/* Queue a reliable message. Returns 0, or -1 when the queue is full: the message is refused,
 * the heartbeat's overflow bit is set and STATUS TX_QUEUE_OVERFLOW follows when room returns. */
int session_send(struct session *s, uint8_t type, const uint8_t *payload, uint8_t len,
                 uint32_t now);

/* Queue a STATUS of the device's own (kept even when the queue is full, within a reserve).
 * `text` is ASCII, cut at 64 characters. */
void session_report(struct session *s, uint8_t severity, uint16_t code, uint8_t antenna,
                    const char *text, uint32_t now);

/* Reliable messages not yet acknowledged (in flight plus waiting). */
unsigned session_queued(const struct session *s);
int session_can_send(const struct session *s, unsigned n);
uint32_t session_uptime(const struct session *s, uint32_t now);

#endif
