#include "session.h"

#include <string.h>

#include "bytes.h"
#include "proto.h"

_Static_assert(SESSION_SLOTS <= 255u, "queue positions are u8");

static int fire(struct session *s, enum link_trigger t) {
    int next = link_next_state(s->state, t);
    if (next < 0) {
        return 0;
    }
    s->state = (enum link_state)next;
    return 1;
}

uint32_t session_uptime(const struct session *s, uint32_t now) { return now - s->boot_ms; }

unsigned session_queued(const struct session *s) { return s->count; }

int session_can_send(const struct session *s, unsigned n) {
    return s->count + n <= SESSION_QUEUE;
}

static struct queued_msg *slot(struct session *s, unsigned i) {
    return &s->q[(s->head + i) % SESSION_SLOTS];
}

static void emit(struct session *s, uint8_t flags, uint8_t type, uint16_t seq,
                 const uint8_t *payload, size_t len) {
    uint8_t wire[WIRE_MAX];
    size_t n = frame_encode(flags, type, seq, payload, len, wire);
    if (n > 0) {
        s->hooks.write(s->hooks.ctx, wire, n);
    }
}

static void emit_u16(struct session *s, uint8_t type, uint16_t value) {
    uint8_t p[2];
    put_u16(p, value);
    emit(s, 0, type, 0, p, sizeof p);
}

static void emit_queued(struct session *s, const struct queued_msg *m, int retx) {
    emit(s, (uint8_t)(FRAME_ACK_REQ | (retx ? FRAME_RETX : 0)), m->type, m->seq, m->payload,
         m->len);
}

static uint16_t oldest_unacked(struct session *s) {
    return s->inflight ? slot(s, 0)->seq : s->next_seq;
}

static void send_hello_ack(struct session *s, uint32_t nonce, uint32_t now) {
    uint8_t p[FRAME_MAX_PAYLOAD];
    size_t fw_len = s->id.fw_version ? strlen(s->id.fw_version) : 0;
    if (fw_len > 32) {
        fw_len = 32;
    }
    p[0] = PROTO_MAJOR;
    p[1] = PROTO_MINOR;
    put_u32(p + 2, nonce);
    put_u32(p + 6, s->id.boot_id);
    put_u16(p + 10, oldest_unacked(s));
    put_u32(p + 12, session_uptime(s, now));
    p[16] = s->id.kind;
    p[17] = s->id.antenna_count;
    put_u16(p + 18, s->id.caps);
    p[20] = FRAME_MAX_PAYLOAD;
    size_t i = 21;
    p[i++] = s->id.hw_id_len;
    memcpy(p + i, s->id.hw_id, s->id.hw_id_len);
    i += s->id.hw_id_len;
    p[i++] = (uint8_t)fw_len;
    if (fw_len > 0) {
        memcpy(p + i, s->id.fw_version, fw_len);
    }
    i += fw_len;
    static const uint8_t delimiter = 0;
    s->hooks.write(s->hooks.ctx, &delimiter, 1);
    emit(s, 0, MSG_HELLO_ACK, 0, p, i);
}

static void fill_window(struct session *s, uint32_t now) {
    if (s->state != LS_UP) {
        return;
    }
    while (s->inflight < s->count && s->inflight < s->timing.window) {
        struct queued_msg *m = slot(s, s->inflight++);
        m->seq = s->next_seq;
        s->next_seq = seq_next(s->next_seq);
        emit_queued(s, m, 0);
        if (!s->retx_armed) {
            s->retx_armed = 1;
            s->retx_deadline = now + s->timing.retransmit_ms;
        }
    }
}

static void retransmit(struct session *s, uint32_t now) {
    for (unsigned i = 0; i < s->inflight; i++) {
        emit_queued(s, slot(s, i), 1);
        s->stats.retransmitted++;
    }
    s->retx_armed = s->inflight > 0;
    s->retx_deadline = now + s->timing.retransmit_ms;
}

/* The link is (back) up: resend what is unacknowledged, then new frames. */
static void resend(struct session *s, uint32_t now, uint32_t heartbeat_at) {
    s->next_heartbeat_ms = heartbeat_at;
    retransmit(s, now);
    fill_window(s, now);
}

static void enqueue(struct session *s, uint8_t type, const uint8_t *payload, uint8_t len) {
    struct queued_msg *m = slot(s, s->count++);
    m->seq = 0;
    m->type = type;
    m->len = len;
    if (len > 0) {
        memcpy(m->payload, payload, len);
    }
}

static void on_ack(struct session *s, uint16_t ack, uint32_t now) {
    if (s->inflight == 0 || ack == 0) {
        return;
    }
    uint16_t last_sent = slot(s, s->inflight - 1u)->seq;
    if (seq_before(last_sent, ack)) {
        return; /* acknowledges what was never sent: stale */
    }
    int progressed = 0;
    while (s->inflight > 0 && !seq_before(ack, slot(s, 0)->seq)) {
        s->head = (uint8_t)((s->head + 1u) % SESSION_SLOTS);
        s->inflight--;
        s->count--;
        progressed = 1;
    }
    if (!progressed) {
        return;
    }
    s->retx_armed = s->inflight > 0;
    s->retx_deadline = now + s->timing.retransmit_ms;
    if (s->overflow_status_due && s->count < SESSION_QUEUE) {
        s->overflow_status_due = 0;
        session_report(s, SEV_ERROR, ST_TX_QUEUE_OVERFLOW, ANTENNA_NONE, "events lost", now);
    }
    fill_window(s, now);
}

static void on_hello(struct session *s, const struct frame *f, uint32_t now) {
    if (f->len < 8) {
        return; /* an undecodable control frame is ignored */
    }
    s->expected = 1;
    s->last_delivered = 0;
    s->nak_valid = 0;
    s->overflowed = 0;
    send_hello_ack(s, get_u32(f->payload + 2), now);
    if (f->payload[0] != PROTO_MAJOR) {
        fire(s, TR_HELLO_BAD);
        return;
    }
    fire(s, TR_HELLO_OK);
    resend(s, now, now + s->timing.heartbeat_ms);
    if (s->hooks.link_up) {
        s->hooks.link_up(s->hooks.ctx, 1, now);
    }
}

static void on_reliable(struct session *s, const struct frame *f, uint32_t now) {
    if (s->state != LS_UP) {
        return; /* the host resends after the handshake */
    }
    s->ack_due = 1;
    if (f->seq != s->expected) {
        if (seq_before(f->seq, s->expected)) {
            s->stats.duplicates++;
            return;
        }
        s->stats.gaps++;
        if (!s->nak_valid || s->nak_seq != s->expected ||
            now - s->nak_ms >= s->timing.retransmit_ms) {
            s->nak_valid = 1;
            s->nak_seq = s->expected;
            s->nak_ms = now;
            s->stats.naks_sent++;
            emit_u16(s, MSG_NAK, s->expected);
        }
        return;
    }
    s->last_delivered = f->seq;
    s->expected = seq_next(f->seq);
    s->stats.delivered++;
    s->hooks.deliver(s->hooks.ctx, f->type, f->payload, f->len, now);
}

static void on_frame(struct session *s, const struct frame *f, uint32_t now) {
    s->last_rx_ms = now;
    if (f->type != MSG_HELLO && fire(s, TR_RESUMED)) {
        resend(s, now, now);
        if (s->hooks.link_up) {
            s->hooks.link_up(s->hooks.ctx, 0, now);
        }
    }
    if (f->flags & FRAME_ACK_REQ) {
        on_reliable(s, f, now);
        return;
    }
    switch (f->type) {
    case MSG_ACK:
        if (f->len >= 2) {
            on_ack(s, get_u16(f->payload), now);
        }
        break;
    case MSG_NAK:
        if (f->len >= 2 && s->inflight > 0) {
            uint16_t expected = get_u16(f->payload);
            if (!seq_before(expected, slot(s, 0)->seq)) {
                on_ack(s, seq_prev(expected), now);
                retransmit(s, now);
            }
        }
        break;
    case MSG_HELLO:
        on_hello(s, f, now);
        break;
    default:
        break; /* heartbeats only refresh liveness; other unreliable frames are ignored */
    }
}

void session_feed(struct session *s, const uint8_t *data, size_t len, uint32_t now) {
    struct frame f;
    for (size_t i = 0; i < len; i++) {
        if (frame_decoder_push(&s->decoder, data[i], &f) == FRAME_OK) {
            on_frame(s, &f, now);
        }
    }
    if (s->ack_due && s->state == LS_UP) {
        emit_u16(s, MSG_ACK, s->last_delivered);
    }
    s->ack_due = 0;
    fill_window(s, now);
}

static void send_heartbeat(struct session *s, uint32_t now) {
    uint8_t p[7];
    uint16_t bits = s->hooks.status_bits ? s->hooks.status_bits(s->hooks.ctx) : 0;
    if (s->overflowed) {
        bits |= HB_TX_OVERFLOW;
    }
    s->next_heartbeat_ms = now + s->timing.heartbeat_ms;
    put_u32(p, session_uptime(s, now));
    put_u16(p + 4, bits);
    p[6] = s->count;
    emit(s, 0, MSG_HEARTBEAT, 0, p, sizeof p);
    emit_u16(s, MSG_ACK, s->last_delivered);
}

void session_poll(struct session *s, uint32_t now) {
    if (s->state != LS_UP) {
        return;
    }
    if (now - s->last_rx_ms >= s->timing.dead_ms) {
        fire(s, TR_SILENT);
        s->retx_armed = 0;
        return;
    }
    if (s->retx_armed && time_reached(now, s->retx_deadline)) {
        retransmit(s, now);
    }
    if (time_reached(now, s->next_heartbeat_ms)) {
        send_heartbeat(s, now);
    }
}

void session_lost(struct session *s) {
    if (fire(s, TR_LOST)) {
        s->retx_armed = 0;
    }
    s->ack_due = 0;
}

int session_send(struct session *s, uint8_t type, const uint8_t *payload, uint8_t len,
                 uint32_t now) {
    if (s->count >= SESSION_QUEUE || len > FRAME_MAX_PAYLOAD) {
        s->stats.overflows++;
        s->overflowed = 1;
        s->overflow_status_due = 1;
        return -1;
    }
    enqueue(s, type, payload, len);
    fill_window(s, now);
    return 0;
}

void session_report(struct session *s, uint8_t severity, uint16_t code, uint8_t antenna,
                    const char *text, uint32_t now) {
    uint8_t p[9 + 64];
    size_t n = text ? strlen(text) : 0;
    if (s->count >= SESSION_SLOTS) {
        s->stats.overflows++; /* a flood of bad frames must not grow the queue */
        return;
    }
    if (n > 64) {
        n = 64;
    }
    p[0] = severity;
    put_u16(p + 1, code);
    p[3] = antenna;
    put_u32(p + 4, session_uptime(s, now));
    p[8] = (uint8_t)n;
    if (n > 0) {
        memcpy(p + 9, text, n);
    }
    enqueue(s, MSG_STATUS, p, (uint8_t)(9 + n));
    fill_window(s, now);
}

void session_init(struct session *s, const struct session_identity *id,
                  const struct session_timing *timing, const struct session_hooks *hooks,
                  uint32_t now) {
    memset(s, 0, sizeof *s);
    s->id = *id;
    s->timing = *timing;
    s->hooks = *hooks;
    s->state = LS_IDLE;
    s->boot_ms = now;
    s->next_seq = 1;
    s->expected = 1;
    s->last_rx_ms = now;
    s->next_heartbeat_ms = now + timing->heartbeat_ms;
    frame_decoder_init(&s->decoder);
}

void session_announce(struct session *s, uint32_t now) {
    if (fire(s, TR_ANNOUNCE)) {
        send_hello_ack(s, 0, now);
    }
}
