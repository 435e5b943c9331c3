/* Fuzz harness of the frame decoder and of a whole reader (host build, run under ASan and
 * UBSan by the Python tests, which feed it random and mutated frames).
 *
 *   fuzz-frames            stdin is one byte stream: print one line per decoder result,
 *                          "frame TYPE SEQ FLAGS PAYLOADHEX" or "drop REASON", then
 *                          "end BUFFERED" (so the test compares with firmware_bridge's decoder)
 *   fuzz-frames --reader   stdin, in chunks, into a booted reader (session, commands, scan)
 *                          on a silent board; prints "end STATE DELIVERED" if nothing broke
 *   fuzz-frames --seq      lines "A B" of u16: prints "seq_next(A) seq_prev(A) seq_before(A,B)"
 *                          (compared with firmware_bridge/seq.py) */
#include <stdio.h>
#include <string.h>

#include "../src/bytes.h"
#include "../src/reader.h"

static const char *const REASONS[DROP_REASONS] = {"", "", "too_long", "cobs", "length", "crc",
                                                  "version"};

static int decoder_main(void) {
    static struct frame_decoder d;
    struct frame f;
    int c;
    frame_decoder_init(&d);
    while ((c = getchar()) != EOF) {
        enum frame_result r = frame_decoder_push(&d, (uint8_t)c, &f);
        if (r == FRAME_OK) {
            printf("frame %u %u %u ", f.type, f.seq, f.flags);
            for (unsigned i = 0; i < f.len; i++) {
                printf("%02x", f.payload[i]);
            }
            printf("\n");
        } else if (r != FRAME_NONE) {
            printf("drop %s\n", REASONS[r]);
        }
    }
    printf("end %u\n", (unsigned)d.len);
    return 0;
}

static uint32_t clock_ms;
static uint32_t written;
static uint32_t fake_now(void *ctx) { (void)ctx; return clock_ms; }
static uint32_t fake_random(void *ctx) { (void)ctx; return 0x12345678u; }
static void fake_write(void *ctx, const uint8_t *d, size_t n) { (void)ctx; (void)d; written += (uint32_t)n; }
static int no_init(void *ctx) { (void)ctx; return 0; }
static int no_tags(void *ctx, struct rf_tag *t, int max) { (void)ctx; (void)t; (void)max; return 0; }
static void no_reset(void *ctx) { (void)ctx; }
static const struct radio_ops SILENT = {no_init, no_tags};

static int reader_main(void) {
    static struct reader r;
    struct board b = {.radio = &SILENT, .uart_write = fake_write, .now_ms = fake_now,
                      .random32 = fake_random, .reset = no_reset};
    struct reader_settings cfg = {.kind = KIND_TABLE, .antennas = 4, .poll_interval_ms = 5,
                                  .gone_debounce_ms = 50, .fw_version = "fuzz"};
    uint8_t chunk[97];
    size_t n;
    reader_boot(&r, &b, &cfg);
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        reader_feed(&r, chunk, n);
        clock_ms += 7;
        reader_poll(&r);
    }
    printf("end %s %u\n", link_state_name(r.s.state), (unsigned)r.s.stats.delivered);
    return 0;
}

static int seq_main(void) {
    unsigned a, b;
    while (scanf("%u %u", &a, &b) == 2) {
        printf("%u %u %d\n", seq_next((uint16_t)a), seq_prev((uint16_t)a),
               seq_before((uint16_t)a, (uint16_t)b));
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--reader") == 0) {
        return reader_main();
    }
    if (argc > 1 && strcmp(argv[1], "--seq") == 0) {
        return seq_main();
    }
    return decoder_main();
}
