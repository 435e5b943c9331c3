/* The buses the radio drivers talk over, as a board provides them. */
#ifndef RF_BUS_H
#define RF_BUS_H

#include <stddef.h>
#include <stdint.h>

/* I2C master: 0 on success, -1 on NAK or bus error. */
struct i2c_bus {
    void *ctx;
    int (*write)(void *ctx, uint8_t addr, const uint8_t *data, size_t len);
    int (*read)(void *ctx, uint8_t addr, uint8_t *data, size_t len);
    uint32_t (*now_ms)(void *ctx);
};

/* SPI master with the chip's BUSY line (PN5180): one transfer is NSS low, `len` bytes out
 * and in at once (tx NULL clocks out 0xFF, rx NULL discards), NSS high; `wait_ready` waits
 * until BUSY is low (0, or -1 after `timeout_ms`). */
struct spi_bus {
    void *ctx;
    int (*transfer)(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len);
    int (*wait_ready)(void *ctx, uint32_t timeout_ms);
};

#endif
