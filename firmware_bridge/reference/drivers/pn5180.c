#include "pn5180.h"

#include <string.h>

#include "../src/bytes.h"

#define ISO15693_FLAGS_INVENTORY 0x06u /* high data rate, inventory, 16 slots */
#define ISO15693_INVENTORY 0x01u
#define ISO15693_UID_LEN 8u
#define SLOTS 16

static int cmd(struct pn5180 *p, const uint8_t *tx, size_t len) {
    const struct spi_bus *b = p->bus;
    if (b->wait_ready(b->ctx, p->timeout_ms) != 0 || b->transfer(b->ctx, tx, NULL, len) != 0) {
        return -1;
    }
    return b->wait_ready(b->ctx, p->timeout_ms);
}

/* A command whose answer is read in a second transfer once BUSY fell. */
static int query(struct pn5180 *p, const uint8_t *tx, size_t len, uint8_t *rx, size_t rlen) {
    const struct spi_bus *b = p->bus;
    if (cmd(p, tx, len) != 0 || b->transfer(b->ctx, NULL, rx, rlen) != 0) {
        return -1;
    }
    return b->wait_ready(b->ctx, p->timeout_ms);
}

static int write_reg(struct pn5180 *p, uint8_t op, uint8_t reg, uint32_t value) {
    uint8_t tx[6] = {op, reg};
    put_u32(tx + 2, value);
    return cmd(p, tx, sizeof tx);
}

static int read_reg(struct pn5180 *p, uint8_t reg, uint32_t *value) {
    uint8_t tx[2] = {PN5180_READ_REGISTER, reg}, rx[4];
    if (query(p, tx, sizeof tx, rx, sizeof rx) != 0) {
        return -1;
    }
    *value = get_u32(rx);
    return 0;
}

/* Idle, clear the IRQs, then Transceive: the next SEND_DATA goes out and the chip waits for
 * the answer. */
static int arm_transceive(struct pn5180 *p) {
    if (write_reg(p, PN5180_WRITE_REGISTER_AND_MASK, PN5180_SYSTEM_CONFIG, 0xFFFFFFF8u) ||
        write_reg(p, PN5180_WRITE_REGISTER, PN5180_IRQ_CLEAR, 0xFFFFFFFFu) ||
        write_reg(p, PN5180_WRITE_REGISTER_OR_MASK, PN5180_SYSTEM_CONFIG, 0x00000003u)) {
        return -1;
    }
    return 0;
}

static int send(struct pn5180 *p, const uint8_t *data, size_t len) {
    uint8_t tx[2 + 8] = {PN5180_SEND_DATA, 0x00}; /* 0: every bit of the last byte */
    if (len > 0) {
        memcpy(tx + 2, data, len);
    }
    return cmd(p, tx, 2 + len);
}

/* One slot's outcome: 1 a tag (uid filled), 0 silence, 2 a collision, -1 a fault. */
static int read_slot(struct pn5180 *p, uint8_t uid[ISO15693_UID_LEN]) {
    uint32_t irq = 0, rx = 0;
    if (read_reg(p, PN5180_IRQ_STATUS, &irq) != 0) {
        return -1;
    }
    if (irq & PN5180_IRQ_GENERAL_ERROR) {
        return -1;
    }
    if (!(irq & PN5180_IRQ_RX)) {
        return 0;
    }
    if (read_reg(p, PN5180_RX_STATUS, &rx) != 0) {
        return -1;
    }
    if (rx & PN5180_RX_COLLISION) {
        return 2;
    }
    if ((rx & PN5180_RX_BYTES_MASK) != 2u + ISO15693_UID_LEN) {
        return (rx & PN5180_RX_BYTES_MASK) == 0 ? 0 : 2; /* garbled: treat as a collision */
    }
    uint8_t tx[2] = {PN5180_READ_DATA, 0x00}, data[2 + ISO15693_UID_LEN];
    if (query(p, tx, sizeof tx, data, sizeof data) != 0 || (data[0] & 0x01u)) {
        return -1; /* the tag answered with its error flag */
    }
    for (unsigned i = 0; i < ISO15693_UID_LEN; i++) { /* LSB first on air, MSB first for us */
        uid[i] = data[2 + ISO15693_UID_LEN - 1 - i];
    }
    return 1;
}

/* One 16-slot inventory with a 4-bit mask (mask_len 0 or 4). Tags go into tags[*found...];
 * the slots that collided are set in *collided. */
static int inventory_round(struct pn5180 *p, uint8_t mask_len, uint8_t mask, struct rf_tag *tags,
                           int max, int *found, uint16_t *collided) {
    uint8_t req[4] = {ISO15693_FLAGS_INVENTORY, ISO15693_INVENTORY, mask_len, mask};
    if (write_reg(p, PN5180_WRITE_REGISTER, PN5180_TX_CONFIG, p->tx_config) ||
        arm_transceive(p) || send(p, req, mask_len ? 4u : 3u)) {
        return -1;
    }
    for (int slot = 0; slot < SLOTS; slot++) {
        uint8_t uid[ISO15693_UID_LEN];
        int r = read_slot(p, uid);
        if (r < 0) {
            return -1;
        }
        if (r == 2) {
            *collided |= (uint16_t)(1u << slot);
        } else if (r == 1) {
            if (*found < max) {
                tags[*found].tech = TECH_ISO15693;
                tags[*found].rssi = 0;
                tags[*found].uid_len = ISO15693_UID_LEN;
                memcpy(tags[*found].uid, uid, ISO15693_UID_LEN);
            }
            (*found)++;
        }
        if (slot + 1 < SLOTS) { /* the next slot: an EOF alone (TX_CONFIG: no data, EOF only) */
            if (write_reg(p, PN5180_WRITE_REGISTER_AND_MASK, PN5180_TX_CONFIG, 0xFFFFFB3Fu) ||
                arm_transceive(p) || send(p, NULL, 0)) {
                return -1;
            }
        }
    }
    return 0;
}

static int pn5180_inventory(void *ctx, struct rf_tag *tags, int max) {
    struct pn5180 *p = ctx;
    int found = 0, unresolved = 0;
    uint16_t collided = 0;
    if (inventory_round(p, 0, 0, tags, max, &found, &collided) != 0) {
        return RF_FAULT;
    }
    for (int slot = 0; slot < SLOTS; slot++) { /* one level of masks: 256 tags apart */
        uint16_t again = 0;
        if (!(collided & (1u << slot))) {
            continue;
        }
        if (inventory_round(p, 4, (uint8_t)slot, tags, max, &found, &again) != 0) {
            return RF_FAULT;
        }
        for (uint16_t a = again; a; a &= (uint16_t)(a - 1u)) {
            unresolved++; /* still colliding: at least two tags each, read next time */
        }
    }
    return found + 2 * unresolved;
}

static int pn5180_init(void *ctx) {
    struct pn5180 *p = ctx;
    uint8_t version[2];
    if (p->timeout_ms == 0) {
        p->timeout_ms = 10;
    }
    const uint8_t eeprom[3] = {PN5180_READ_EEPROM, PN5180_EEPROM_FIRMWARE_VERSION, 2};
    if (query(p, eeprom, sizeof eeprom, version, sizeof version) != 0) {
        return RF_FAULT;
    }
    p->firmware = get_u16(version);
    if (p->firmware == 0x0000u || p->firmware == 0xFFFFu) {
        return RF_FAULT; /* nothing on the bus */
    }
    const uint8_t rf_config[3] = {PN5180_LOAD_RF_CONFIG, PN5180_RF_ISO15693_TX,
                                  PN5180_RF_ISO15693_RX};
    const uint8_t rf_on[2] = {PN5180_RF_ON, 0x00};
    if (cmd(p, rf_config, sizeof rf_config) || cmd(p, rf_on, sizeof rf_on) ||
        read_reg(p, PN5180_TX_CONFIG, &p->tx_config) ||
        write_reg(p, PN5180_WRITE_REGISTER, PN5180_IRQ_CLEAR, 0xFFFFFFFFu)) {
        return RF_FAULT;
    }
    return 0;
}

const struct radio_ops PN5180_RADIO = {pn5180_init, pn5180_inventory};
