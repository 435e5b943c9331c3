/* The reference reader on QEMU's lm3s6965evb (Cortex-M3): the protocol on UART0 (give QEMU
 * `-serial pty`), and a scripted radio whose tags come in on UART1 (`-serial stdio`), one
 * command a line, as the host build's: `pass ANT UIDHEX` (answered once read and gone),
 * `tag ANT UIDHEX`, `untag ANT UIDHEX`, answered `ok ...` or `err ...`; `boot BOOTID` at
 * each boot. Time from SysTick (1 ms); REBOOT resets the core (SCB AIRCR), the boot record
 * lives in RAM that a reset keeps, and QEMU's loader device puts a random word at _entropy
 * for a cold start (the emulated board has no RNG). */
#include <stdint.h>
#include <string.h>

#include "../host/host_radio.h"
#include "../src/reader.h"

#define UART0 0x4000C000u
#define UART1 0x4000D000u
#define UART_DR 0x000u
#define UART_FR 0x018u
#define FR_RXFE 0x10u
#define FR_TXFF 0x20u
#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR 0xE000E010u
#define SYST_RVR 0xE000E014u
#define SYST_CVR 0xE000E018u
#define SCB_AIRCR 0xE000ED0Cu
#define CPU_HZ 12000000u /* the board's clock as QEMU models it */

extern volatile uint32_t _entropy;

static volatile uint32_t ticks;
static struct reader reader;
static struct host_radio radio;
static struct board board;
__attribute__((section(".noinit"))) static uint8_t store[BOOT_RECORD_SIZE];

void systick_handler(void) { ticks++; }

static void uart_put(uint32_t base, const uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i++) {
        while (REG(base + UART_FR) & FR_TXFF) {
        }
        REG(base + UART_DR) = d[i];
    }
}

static void say(const char *s) { uart_put(UART1, (const uint8_t *)s, strlen(s)); }

static void say_hex32(uint32_t v) {
    char out[9];
    for (int i = 7; i >= 0; i--) {
        out[i] = "0123456789abcdef"[v & 0xFu];
        v >>= 4;
    }
    out[8] = '\0';
    say(out);
}

static void uart_write(void *ctx, const uint8_t *d, size_t n) {
    (void)ctx;
    uart_put(UART0, d, n);
}
static uint32_t now_ms(void *ctx) { (void)ctx; return ticks; }
static uint32_t random32(void *ctx) {
    (void)ctx;
    return _entropy ^ REG(SYST_CVR) ^ (ticks << 16);
}
static int store_load(void *ctx, uint8_t *d, size_t n) {
    (void)ctx;
    memcpy(d, store, n);
    return 0;
}
static int store_save(void *ctx, const uint8_t *d, size_t n) {
    (void)ctx;
    memcpy(store, d, n);
    return 0;
}
static void reset(void *ctx) {
    (void)ctx;
    REG(SCB_AIRCR) = 0x05FA0004u; /* SYSRESETREQ */
    for (;;) {
    }
}

/* ---- the scripted radio's command line (UART1) ------------------------------------ */

static char line[128];
static unsigned used;
static struct rf_tag passing;
static uint8_t passing_antenna, pass_pending;

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int parse(const char *s, uint8_t *ant, struct rf_tag *t) {
    if (*s < '0' || *s > '9') return -1;
    unsigned a = 0;
    while (*s >= '0' && *s <= '9') a = a * 10u + (unsigned)(*s++ - '0');
    if (*s++ != ' ' || a >= radio.antennas) return -1;
    memset(t, 0, sizeof *t);
    t->tech = TECH_ISO15693;
    while (s[0] && s[1] && t->uid_len < UID_MAX) {
        int hi = hexval(s[0]), lo = hexval(s[1]);
        if (hi < 0 || lo < 0) return -1;
        t->uid[t->uid_len++] = (uint8_t)(hi << 4 | lo);
        s += 2;
    }
    *ant = (uint8_t)a;
    return (*s == '\0' && t->uid_len > 0) ? 0 : -1;
}

static void reply(int ok, const char *what) {
    say(ok ? "ok " : "err ");
    say(what);
    say("\n");
}

static void command(char *cmd) {
    uint8_t ant;
    struct rf_tag t;
    if (!strncmp(cmd, "pass ", 5) && parse(cmd + 5, &ant, &t) == 0 && !pass_pending) {
        if (host_radio_place(&radio, ant, &t, 2) != 0) {
            reply(0, cmd);
            return;
        }
        passing = t;
        passing_antenna = ant;
        pass_pending = 1; /* answered once it was read and left the field */
        return;
    }
    if (!strncmp(cmd, "tag ", 4) && parse(cmd + 4, &ant, &t) == 0) {
        reply(host_radio_place(&radio, ant, &t, -1) == 0, cmd);
        return;
    }
    if (!strncmp(cmd, "untag ", 6) && parse(cmd + 6, &ant, &t) == 0) {
        reply(host_radio_remove(&radio, ant, t.uid, t.uid_len) == 0, cmd);
        return;
    }
    reply(0, cmd);
}

static void check_pass(void) {
    if (!pass_pending) return;
    for (int k = 0; k < HOST_TAGS; k++) {
        const struct host_tag *s = &radio.field[passing_antenna][k];
        if (s->used && s->tag.uid_len == passing.uid_len &&
            !memcmp(s->tag.uid, passing.uid, passing.uid_len)) {
            return;
        }
    }
    pass_pending = 0;
    say("ok pass\n");
}

static void poll_commands(void) {
    while (!(REG(UART1 + UART_FR) & FR_RXFE) && !pass_pending) {
        char c = (char)(REG(UART1 + UART_DR) & 0xFFu);
        if (c == '\n') {
            line[used] = '\0';
            used = 0;
            command(line);
        } else if (c != '\r' && used < sizeof line - 1) {
            line[used++] = c;
        }
    }
}

int main(void) {
    static const struct reader_settings settings = {
        .kind = KIND_SHOE, .antennas = 1, .poll_interval_ms = 5, .gone_debounce_ms = 100,
        .fw_version = "reference-lm3s6965-1"};
    REG(SYST_RVR) = CPU_HZ / 1000u - 1u;
    REG(SYST_CVR) = 0;
    REG(SYST_CSR) = 7; /* processor clock, interrupt, enable */
    radio.antennas = settings.antennas;
    board = (struct board){.radio = &HOST_RADIO, .radio_ctx = &radio, .mux = &HOST_MUX,
                           .mux_ctx = &radio, .uart_write = uart_write, .now_ms = now_ms,
                           .random32 = random32, .store_load = store_load,
                           .store_save = store_save, .reset = reset, .hw_id_len = 8,
                           .hw_id = {'L', 'M', '3', 'S', '6', '9', '6', '5'}};
    reader_boot(&reader, &board, &settings);
    say("boot ");
    say_hex32(reader.s.id.boot_id);
    say("\n");
    for (;;) {
        uint8_t rx[64];
        size_t n = 0;
        while (n < sizeof rx && !(REG(UART0 + UART_FR) & FR_RXFE)) {
            rx[n++] = (uint8_t)(REG(UART0 + UART_DR) & 0xFFu);
        }
        if (n > 0) {
            reader_feed(&reader, rx, n);
        }
        poll_commands();
        reader_poll(&reader);
        check_pass();
    }
}
