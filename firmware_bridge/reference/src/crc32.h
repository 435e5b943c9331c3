/* CRC-32/IEEE 802.3 (reflected, poly 0xEDB88320, init and xorout 0xFFFFFFFF): the frame
 * check of docs/protocol.md; check value crc32("123456789") = 0xCBF43926. */
#ifndef RF_CRC32_H
#define RF_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len);
uint32_t crc32(const uint8_t *data, size_t len);

#endif
