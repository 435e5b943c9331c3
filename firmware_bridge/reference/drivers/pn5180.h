/* NXP PN5180 over SPI (with its BUSY line) as the reader's radio: ISO/IEC 15693 with the
 * 16-slot inventory, so many tags on one antenna are read in one go (the kind of front end
 * RFID tables use). Written from the PN5180 data sheet's host interface command set
 * (WRITE_REGISTER[_OR|_AND_MASK], READ_REGISTER, READ_EEPROM, SEND_DATA, READ_DATA,
 * LOAD_RF_CONFIG, RF_ON) and ISO/IEC 15693-3's INVENTORY with slot markers (EOF). */
#ifndef RF_PN5180_H
#define RF_PN5180_H

#include "../src/hw.h"
#include "bus.h"

/* host interface commands */
#define PN5180_WRITE_REGISTER 0x00u
#define PN5180_WRITE_REGISTER_OR_MASK 0x01u
#define PN5180_WRITE_REGISTER_AND_MASK 0x02u
#define PN5180_READ_REGISTER 0x04u
#define PN5180_READ_EEPROM 0x07u
#define PN5180_SEND_DATA 0x09u
#define PN5180_READ_DATA 0x0Au
#define PN5180_LOAD_RF_CONFIG 0x11u
#define PN5180_RF_ON 0x16u
/* registers */
#define PN5180_SYSTEM_CONFIG 0x00u
#define PN5180_IRQ_STATUS 0x02u
#define PN5180_IRQ_CLEAR 0x03u
#define PN5180_RX_STATUS 0x13u
#define PN5180_TX_CONFIG 0x18u
/* IRQ_STATUS bits */
#define PN5180_IRQ_RX 0x00000001u
#define PN5180_IRQ_GENERAL_ERROR 0x00020000u
/* RX_STATUS fields */
#define PN5180_RX_BYTES_MASK 0x000001FFu
#define PN5180_RX_COLLISION 0x00040000u
/* EEPROM */
#define PN5180_EEPROM_FIRMWARE_VERSION 0x12u
/* RF configurations: ISO 15693 ASK 100 %, 26 kbit/s */
#define PN5180_RF_ISO15693_TX 0x0Du
#define PN5180_RF_ISO15693_RX 0x8Du

struct pn5180 {
    const struct spi_bus *bus;
    uint32_t timeout_ms; /* per BUSY wait (default 10) */
    uint32_t tx_config;  /* as LOAD_RF_CONFIG left it: restored before each request */
    uint16_t firmware;
};

extern const struct radio_ops PN5180_RADIO; /* ctx: struct pn5180 * */

#endif
