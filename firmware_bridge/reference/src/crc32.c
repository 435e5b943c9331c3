/* CRC-32/IEEE, bitwise with a 16-entry nibble table: 64 bytes of flash, fast enough for a
 * 250-byte frame at UART speeds. */
#include "crc32.h"

static const uint32_t NIBBLE[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len) {
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        crc = (crc >> 4) ^ NIBBLE[crc & 0x0Fu];
        crc = (crc >> 4) ^ NIBBLE[crc & 0x0Fu];
    }
    return ~crc;
}

uint32_t crc32(const uint8_t *data, size_t len) { return crc32_update(0, data, len); }
