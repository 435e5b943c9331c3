#include <string.h>

#include "../drivers/pn5180.h"
#include "fake_chips.h"

#define TX_EOF_BITS 0x000004C0u /* the TX_CONFIG bits the EOF-only mask clears */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void answer(struct fake_pn5180 *f, const uint8_t *data, size_t len) {
    memcpy(f->pending, data, len);
    f->pending_len = len;
    f->reading = 1;
}

/* What the tags answer in the current slot: silence, one UID, or a collision. */
static void slot_answer(struct fake_pn5180 *f) {
    int hits = 0, who = -1;
    for (int t = 0; t < f->tags; t++) {
        uint8_t lsb = f->uid[t][7];
        int slot = f->mask_len == 0 ? (lsb & 0x0F) : ((lsb >> 4) & 0x0F);
        if ((f->mask_len == 0 || (lsb & 0x0F) == f->mask) && slot == f->slot) {
            hits++;
            who = t;
        }
    }
    f->reg[PN5180_IRQ_STATUS] &= ~PN5180_IRQ_RX;
    f->reg[PN5180_RX_STATUS] = 0;
    f->rx_len = 0;
    if (hits == 0) {
        return;
    }
    f->reg[PN5180_IRQ_STATUS] |= PN5180_IRQ_RX;
    if (hits > 1) {
        f->reg[PN5180_RX_STATUS] = PN5180_RX_COLLISION | 3u;
        return;
    }
    f->rx[0] = 0x00; /* response flags: no error */
    f->rx[1] = 0x00; /* DSFID */
    for (int i = 0; i < 8; i++) {
        f->rx[2 + i] = f->uid[who][7 - i]; /* LSB first on air */
    }
    f->rx_len = 10;
    f->reg[PN5180_RX_STATUS] = 10;
}

static void send_data(struct fake_pn5180 *f, const uint8_t *d, size_t n) {
    if ((f->reg[PN5180_SYSTEM_CONFIG] & 7u) != 3u || !f->rf_on) {
        f->bad_commands++; /* not in Transceive, or no field */
        f->reg[PN5180_IRQ_STATUS] |= PN5180_IRQ_GENERAL_ERROR;
        return;
    }
    if (n == 0) { /* an EOF: only with TX_CONFIG set to send EOF alone */
        if (f->reg[PN5180_TX_CONFIG] & TX_EOF_BITS) {
            f->bad_commands++;
            return;
        }
        f->eofs++;
        f->slot++;
        slot_answer(f);
        return;
    }
    if (n < 3 || d[0] != 0x06 || d[1] != 0x01 || (d[2] != 0 && d[2] != 4) ||
        n != (d[2] ? 4u : 3u) || (f->reg[PN5180_TX_CONFIG] & TX_EOF_BITS) != TX_EOF_BITS) {
        f->bad_commands++;
        return;
    }
    f->requests++;
    f->mask_len = d[2];
    f->mask = d[2] ? (uint8_t)(d[3] & 0x0F) : 0;
    f->slot = 0;
    slot_answer(f);
}

static int transfer(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len) {
    struct fake_pn5180 *f = ctx;
    if (f->reading) { /* the second transfer of a read: the answer */
        if (tx != NULL || len != f->pending_len) {
            f->bad_commands++;
        }
        if (rx != NULL) {
            memcpy(rx, f->pending, len < f->pending_len ? len : f->pending_len);
        }
        f->reading = 0;
        return 0;
    }
    if (tx == NULL || len < 2) {
        f->bad_commands++;
        return 0;
    }
    uint8_t reg = tx[1];
    uint8_t buf[4];
    switch (tx[0]) {
    case PN5180_WRITE_REGISTER:
    case PN5180_WRITE_REGISTER_OR_MASK:
    case PN5180_WRITE_REGISTER_AND_MASK:
        if (len != 6 || reg >= 0x30) {
            f->bad_commands++;
            break;
        }
        if (tx[0] == PN5180_WRITE_REGISTER) {
            f->reg[reg] = le32(tx + 2);
        } else if (tx[0] == PN5180_WRITE_REGISTER_OR_MASK) {
            f->reg[reg] |= le32(tx + 2);
        } else {
            f->reg[reg] &= le32(tx + 2);
        }
        if (reg == PN5180_IRQ_CLEAR) {
            f->reg[PN5180_IRQ_STATUS] &= ~f->reg[PN5180_IRQ_CLEAR];
        }
        break;
    case PN5180_READ_REGISTER:
        buf[0] = (uint8_t)f->reg[reg % 0x30];
        buf[1] = (uint8_t)(f->reg[reg % 0x30] >> 8);
        buf[2] = (uint8_t)(f->reg[reg % 0x30] >> 16);
        buf[3] = (uint8_t)(f->reg[reg % 0x30] >> 24);
        answer(f, buf, 4);
        break;
    case PN5180_READ_EEPROM:
        if (len != 3 || (size_t)tx[1] + tx[2] > sizeof f->eeprom) {
            f->bad_commands++;
            break;
        }
        answer(f, f->eeprom + tx[1], tx[2]);
        break;
    case PN5180_SEND_DATA:
        send_data(f, tx + 2, len - 2);
        break;
    case PN5180_READ_DATA:
        answer(f, f->rx, f->rx_len);
        break;
    case PN5180_LOAD_RF_CONFIG:
        if (len != 3 || tx[1] != PN5180_RF_ISO15693_TX || tx[2] != PN5180_RF_ISO15693_RX) {
            f->bad_commands++;
        }
        f->reg[PN5180_TX_CONFIG] = 0x000007F8u;
        break;
    case PN5180_RF_ON:
        f->rf_on = 1;
        break;
    default:
        f->bad_commands++;
    }
    return 0;
}

static int wait_ready(void *ctx, uint32_t timeout_ms) {
    (void)timeout_ms;
    return ((struct fake_pn5180 *)ctx)->busy_stuck ? -1 : 0;
}

void fake_pn5180_bus(struct fake_pn5180 *f, struct spi_bus *bus) {
    bus->ctx = f;
    bus->transfer = transfer;
    bus->wait_ready = wait_ready;
}
