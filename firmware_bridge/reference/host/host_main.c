/* The reference reader built for a Linux host: the portable core on a pty UART, with a
 * radio whose tags the test scripts on stdin. One command per line, each answered on stdout
 * by "ok ..." or "err ..." once applied:
 *
 *   tag ANT UIDHEX [TECH]     a tag lies on antenna ANT until untagged
 *   pass ANT UIDHEX [READS] [late]
 *                             a tag passes antenna ANT: in the field for READS inventories
 *                             (default 2); answered once it was read and left the field.
 *                             On a shoe with --sensor 1 the card also crosses the sensor,
 *                             as it enters the field, or with "late" once it was read
 *   blank                     (shoe, --sensor 1) a card with a dead tag crosses the sensor;
 *                             answered once the MISREAD is queued
 *   untag ANT UIDHEX          a tag leaves antenna ANT
 *   settle ANT                answered once no tag is present on ANT (debounce over)
 *   scans N                   answered after N more sweeps of every antenna
 *   unplug | plug             the USB cable out / in (a new pty behind the same link)
 *   reboot | powercut         watchdog reset / power cut: a new boot, queues lost
 *   radio_fail 0|1            the radio chip fails to start (READER_INIT_FAILED)
 *   antenna_fail ANT 0|1      an antenna's cable is cut (ANTENNA_FAULT)
 *   noise HEX                 raw bytes straight onto the UART (line noise)
 *   stats                     one line of counters
 *   quit
 *
 * Usage: reader-host --link PATH [--kind shoe|table] [--antennas N] [--store FILE]
 *        [--poll MS] [--gone MS] [--control FIFO] [--sensor 0|1]
 * --control also takes commands from a named pipe (for tools run beside the test, such as
 * `python -m firmware_bridge conformance --script`); answers still go to stdout.
 * Prints "ready SLAVE" when the pty is up and "boot BOOTID" at every boot. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../src/reader.h"
#include "host_pty.h"
#include "host_radio.h"

#define FW_VERSION "reference-host-1"

struct host {
    struct board board;
    struct reader reader;
    struct host_radio radio;
    struct host_pty pty;
    struct reader_settings settings;
    const char *store;
    uint8_t cause;
    uint8_t reset_requested;
    uint8_t passed; /* cards across the passage sensor, not yet taken by the reader */
    struct timespec t0;
};

static uint32_t now_ms(void *ctx) {
    struct host *h = ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint32_t)((t.tv_sec - h->t0.tv_sec) * 1000 + (t.tv_nsec - h->t0.tv_nsec) / 1000000);
}

static uint32_t random32(void *ctx) {
    uint32_t v = 0;
    (void)ctx;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        v = (uint32_t)getpid() ^ (uint32_t)time(NULL);
    }
    return v;
}

static int store_load(void *ctx, uint8_t *data, size_t len) {
    struct host *h = ctx;
    FILE *f = h->store ? fopen(h->store, "rb") : NULL;
    if (f == NULL) {
        return -1;
    }
    size_t n = fread(data, 1, len, f);
    fclose(f);
    return n == len ? 0 : -1;
}

static int store_save(void *ctx, const uint8_t *data, size_t len) {
    struct host *h = ctx;
    FILE *f = h->store ? fopen(h->store, "wb") : NULL;
    if (f == NULL) {
        return -1;
    }
    size_t n = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && n == len) ? 0 : -1;
}

static uint8_t reset_cause(void *ctx) { return ((struct host *)ctx)->cause; }

static void reset(void *ctx) {
    struct host *h = ctx;
    h->reset_requested = 1;
    h->cause = RESET_SOFTWARE;
}

static void uart_write(void *ctx, const uint8_t *data, size_t len) {
    host_pty_write(&((struct host *)ctx)->pty, data, len);
}

static void indicate(void *ctx, uint8_t target, uint8_t pattern, uint16_t ms) {
    (void)ctx;
    printf("indicate %u %u %u\n", target, pattern, ms);
}

static uint8_t passages(void *ctx) {
    struct host *h = ctx;
    uint8_t n = h->passed;
    h->passed = 0;
    return n;
}

static void boot(struct host *h) {
    reader_boot(&h->reader, &h->board, &h->settings);
    printf("boot %08x\n", (unsigned)h->reader.s.id.boot_id);
}

/* One turn of the main loop without stdin: UART bytes in, one reader step. */
static void step(struct host *h, int wait_ms) {
    struct pollfd fd = {.fd = h->pty.master, .events = POLLIN}; /* fd -1: only waits */
    if (poll(&fd, 1, wait_ms) > 0 && (fd.revents & POLLIN)) {
        uint8_t buf[512];
        ssize_t n = read(h->pty.master, buf, sizeof buf);
        if (n > 0) {
            reader_feed(&h->reader, buf, (size_t)n);
        }
    }
    reader_poll(&h->reader);
    if (h->reset_requested) {
        h->reset_requested = 0;
        boot(h);
    }
}

/* A card with a dead tag crosses the passage sensor: answered once the reader has settled
 * every passage (here: the window ran out and the MISREAD is queued). */
static const char *blank(struct host *h) {
    if (h->board.passages == NULL) {
        return "no passage sensor (--sensor 1 on a shoe)";
    }
    uint32_t start = now_ms(h);
    h->passed++;
    do {
        if (now_ms(h) - start > 2000u) {
            return "the passage was never settled";
        }
        step(h, 1);
    } while (h->passed > 0 || passage_waiting(&h->reader.passage) > 0 ||
             h->reader.passage.missed > 0);
    return NULL;
}

/* A card passing: answered once the radio has read it and it left the field (a dealer's
 * card takes longer than one scan to slide past, so a test never outruns the scan). */
static const char *pass(struct host *h, uint8_t antenna, const struct rf_tag *t, int reads) {
    if (host_radio_place(&h->radio, antenna, t, reads) != 0) {
        return "field full";
    }
    uint32_t start = now_ms(h);
    while (now_ms(h) - start < 2000u) {
        int still = 0;
        for (int k = 0; k < HOST_TAGS; k++) {
            const struct host_tag *s = &h->radio.field[antenna][k];
            still |= s->used && s->tag.uid_len == t->uid_len &&
                     memcmp(s->tag.uid, t->uid, t->uid_len) == 0;
        }
        if (!still) {
            return NULL;
        }
        step(h, 1);
    }
    return "the tag was never read";
}

/* Answered once no tag is present on the antenna any more (its debounce ran out). */
static const char *settle(struct host *h, uint8_t antenna) {
    uint32_t start = now_ms(h);
    while (presence_count(&h->reader.pr, antenna) > 0) {
        if (now_ms(h) - start > 5000u) {
            return "a tag is still present";
        }
        step(h, 1);
    }
    return NULL;
}

static int parse_hex(const char *s, uint8_t *out, size_t max) {
    size_t n = strlen(s);
    if (n == 0 || n % 2 != 0 || n / 2 > max) {
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    return (int)(n / 2);
}

static const char *command(struct host *h, char *line) {
    char *argv[5] = {0};
    int argc = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && argc < 5; tok = strtok(NULL, " \t\r\n")) {
        argv[argc++] = tok;
    }
    if (argc == 0) {
        return "empty line";
    }
    const char *cmd = argv[0];
    long ant = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
    if (!strcmp(cmd, "tag") || !strcmp(cmd, "pass") || !strcmp(cmd, "untag")) {
        struct rf_tag t = {.tech = TECH_ISO15693};
        int n = argc > 2 ? parse_hex(argv[2], t.uid, UID_MAX) : -1;
        if (n <= 0 || ant < 0 || ant >= h->radio.antennas) {
            return "usage: tag|pass|untag ANT UIDHEX";
        }
        t.uid_len = (uint8_t)n;
        if (!strcmp(cmd, "untag")) {
            return host_radio_remove(&h->radio, (uint8_t)ant, t.uid, t.uid_len) ? "not there"
                                                                                 : NULL;
        }
        int reads = -1;
        if (!strcmp(cmd, "tag") && argc > 3) {
            t.tech = (uint8_t)strtol(argv[3], NULL, 10);
        } else if (!strcmp(cmd, "pass")) {
            reads = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 2;
        }
        if (reads > 0) {
            int late = argc > 4 && !strcmp(argv[4], "late");
            if (h->board.passages != NULL && !late) {
                h->passed++;
            }
            const char *err = pass(h, (uint8_t)ant, &t, reads);
            if (h->board.passages != NULL && late) {
                h->passed++;
            }
            return err;
        }
        return host_radio_place(&h->radio, (uint8_t)ant, &t, reads) ? "field full" : NULL;
    }
    if (!strcmp(cmd, "blank")) {
        return blank(h);
    }
    if (!strcmp(cmd, "settle") && ant >= 0 && ant < h->radio.antennas) {
        return settle(h, (uint8_t)ant);
    }
    if (!strcmp(cmd, "scans") && ant > 0 && ant <= 1000) { /* answered after N more sweeps */
        uint32_t until = h->reader.sc.sweeps + (uint32_t)ant, start = now_ms(h);
        while (h->reader.sc.sweeps < until && now_ms(h) - start < 10000u) {
            step(h, 1);
        }
        return h->reader.sc.sweeps < until ? "the scan stalled" : NULL;
    }
    if (!strcmp(cmd, "unplug")) {
        host_pty_unplug(&h->pty);
        return NULL;
    }
    if (!strcmp(cmd, "plug")) {
        return host_pty_plug(&h->pty) ? "cannot create the pty" : NULL;
    }
    if (!strcmp(cmd, "reboot") || !strcmp(cmd, "powercut")) {
        h->cause = !strcmp(cmd, "reboot") ? RESET_WATCHDOG : RESET_POWER_ON;
        boot(h);
        return NULL;
    }
    if (!strcmp(cmd, "radio_fail") && argc > 1) {
        h->radio.init_fails = ant != 0;
        return NULL;
    }
    if (!strcmp(cmd, "antenna_fail") && argc > 2 && ant >= 0 && ant < RF_MAX_ANTENNAS) {
        h->radio.antenna_fails[ant] = strtol(argv[2], NULL, 10) != 0;
        return NULL;
    }
    if (!strcmp(cmd, "noise") && argc > 1) {
        uint8_t raw[64];
        int n = parse_hex(argv[1], raw, sizeof raw);
        if (n <= 0) {
            return "usage: noise HEX";
        }
        host_pty_write(&h->pty, raw, (size_t)n);
        return NULL;
    }
    if (!strcmp(cmd, "stats")) {
        const struct session *s = &h->reader.s;
        unsigned present = 0;
        for (uint8_t a = 0; a < h->reader.cfg.antennas; a++) {
            present += presence_count(&h->reader.pr, a);
        }
        printf("stats present=%u state=%s boot_id=%08x boots=%u queued=%u delivered=%u duplicates=%u "
               "gaps=%u retransmitted=%u overflows=%u drops_cobs=%u drops_crc=%u "
               "drops_length=%u drops_version=%u drops_too_long=%u lost_bytes=%u sweeps=%u\n",
               present, link_state_name(s->state), (unsigned)s->id.boot_id,
               (unsigned)h->reader.boot.boot_count, session_queued(s),
               (unsigned)s->stats.delivered, (unsigned)s->stats.duplicates,
               (unsigned)s->stats.gaps, (unsigned)s->stats.retransmitted,
               (unsigned)s->stats.overflows, (unsigned)s->decoder.drops[DROP_COBS],
               (unsigned)s->decoder.drops[DROP_CRC], (unsigned)s->decoder.drops[DROP_LENGTH],
               (unsigned)s->decoder.drops[DROP_VERSION],
               (unsigned)s->decoder.drops[DROP_TOO_LONG], (unsigned)h->pty.lost_bytes,
               (unsigned)h->reader.sc.sweeps);
        return NULL;
    }
    return "unknown command";
}

struct command_input {
    int fd;
    size_t used;
    char line[256];
};

/* Read what is waiting on one command input and run every whole line. Returns 0 to go on,
 * 1 on "quit", -1 when the input ended. */
static int read_commands(struct host *h, struct command_input *in) {
    ssize_t n = read(in->fd, in->line + in->used, sizeof in->line - 1 - in->used);
    if (n <= 0) {
        return (n < 0 && errno == EAGAIN) ? 0 : -1;
    }
    in->used += (size_t)n;
    char *nl;
    while ((nl = memchr(in->line, '\n', in->used)) != NULL) {
        *nl = '\0';
        char copy[256];
        snprintf(copy, sizeof copy, "%s", in->line);
        if (!strncmp(in->line, "quit", 4)) {
            return 1;
        }
        const char *err = command(h, in->line);
        printf(err ? "err %s: %s\n" : "ok %s%s\n", copy, err ? err : "");
        in->used -= (size_t)(nl + 1 - in->line);
        memmove(in->line, nl + 1, in->used);
    }
    if (in->used == sizeof in->line - 1) {
        in->used = 0; /* an overlong line: dropped */
        printf("err line too long\n");
    }
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: reader-host --link PATH [--kind shoe|table] [--antennas N] "
                    "[--store FILE] [--poll MS] [--gone MS] [--control FIFO] [--sensor 0|1]\n");
    return 2;
}

static struct host H; /* no heap: the whole reader lives here */

int main(int argc, char **argv) {
    struct host *h = &H;
    h->settings = (struct reader_settings){.kind = KIND_SHOE, .antennas = 1,
                                           .poll_interval_ms = 5, .gone_debounce_ms = 100,
                                           .fw_version = FW_VERSION};
    h->pty.master = h->pty.slave = -1;
    const char *control = NULL;
    int sensor = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        long n = strtol(v, NULL, 10);
        if (!strcmp(k, "--link")) {
            h->pty.link = v;
        } else if (!strcmp(k, "--kind") && (!strcmp(v, "shoe") || !strcmp(v, "table"))) {
            h->settings.kind = !strcmp(v, "shoe") ? KIND_SHOE : KIND_TABLE;
        } else if (!strcmp(k, "--antennas") && n >= 1 && n <= (long)RF_MAX_ANTENNAS) {
            h->settings.antennas = (uint8_t)n;
        } else if (!strcmp(k, "--control")) {
            control = v;
        } else if (!strcmp(k, "--store")) {
            h->store = v;
        } else if (!strcmp(k, "--poll") && n >= 1 && n <= 10000) {
            h->settings.poll_interval_ms = (uint32_t)n;
        } else if (!strcmp(k, "--gone") && n >= 0 && n <= 60000) {
            h->settings.gone_debounce_ms = (uint32_t)n;
        } else if (!strcmp(k, "--sensor") && (n == 0 || n == 1)) {
            sensor = (int)n;
        } else {
            return usage();
        }
    }
    if (h->pty.link == NULL || (argc - 1) % 2 != 0) {
        return usage();
    }
    if (h->settings.kind == KIND_SHOE) {
        h->settings.antennas = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &h->t0);
    h->radio.antennas = h->settings.antennas;
    h->board = (struct board){.ctx = h, .radio = &HOST_RADIO, .radio_ctx = &h->radio,
                              .mux = &HOST_MUX, .mux_ctx = &h->radio,
                              .uart_write = uart_write, .now_ms = now_ms,
                              .random32 = random32, .store_load = store_load,
                              .store_save = store_save, .reset_cause = reset_cause,
                              .reset = reset, .indicate = indicate, .hw_id_len = 8,
                              .hw_id = {'R', 'E', 'F', 'H', 'O', 'S', 'T', '1'}};
    if (sensor && h->settings.kind == KIND_SHOE) {
        h->board.passages = passages;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (host_pty_plug(&h->pty) != 0) {
        fprintf(stderr, "reader-host: cannot create a pty at %s: %s\n", h->pty.link,
                strerror(errno));
        return 1;
    }
    printf("ready %s\n", h->pty.slave_name);
    boot(h);
    struct command_input in[2] = {{.fd = 0}, {.fd = -1}};
    if (control != NULL && (in[1].fd = open(control, O_RDWR | O_NONBLOCK)) < 0) {
        fprintf(stderr, "reader-host: cannot open the control fifo %s\n", control);
        return 1;
    }
    for (;;) {
        struct pollfd fds[3] = {{.fd = in[0].fd, .events = POLLIN},
                                {.fd = in[1].fd, .events = POLLIN},
                                {.fd = h->pty.master, .events = POLLIN}};
        int r = poll(fds, 3, 1);
        if (r < 0 && errno != EINTR) {
            return 1;
        }
        for (int i = 0; r > 0 && i < 2; i++) {
            if (fds[i].revents & (POLLIN | POLLHUP)) {
                int done = read_commands(h, &in[i]);
                if (done) {
                    host_pty_unplug(&h->pty);
                    return done > 0 ? 0 : (i == 0 ? 0 : 1);
                }
            }
        }
        step(h, 0);
    }
    host_pty_unplug(&h->pty);
    return 0;
}
