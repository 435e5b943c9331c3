#include "boot.h"

#include "bytes.h"
#include "crc32.h"

#define BOOT_MAGIC 0x31535246u /* "FRS1" */

void boot_record_encode(const struct boot_record *rec, uint8_t out[BOOT_RECORD_SIZE]) {
    put_u32(out, BOOT_MAGIC);
    put_u32(out + 4, rec->boot_count);
    put_u32(out + 8, rec->last_boot_id);
    put_u32(out + 12, crc32(out, 12));
}

int boot_record_decode(const uint8_t in[BOOT_RECORD_SIZE], struct boot_record *rec) {
    if (get_u32(in) != BOOT_MAGIC || get_u32(in + 12) != crc32(in, 12)) {
        return -1;
    }
    rec->boot_count = get_u32(in + 4);
    rec->last_boot_id = get_u32(in + 8);
    return 0;
}

/* A 32-bit finaliser (avalanche): every input bit moves half the output bits. */
static uint32_t mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

uint32_t boot_begin(const struct board *b, struct boot_record *rec) {
    uint8_t raw[BOOT_RECORD_SIZE];
    rec->boot_count = 0;
    rec->last_boot_id = 0;
    if (b->store_load != NULL && b->store_load(b->ctx, raw, sizeof raw) == 0) {
        struct boot_record stored;
        if (boot_record_decode(raw, &stored) == 0) {
            *rec = stored;
        }
    }
    uint32_t hw = crc32(b->hw_id, b->hw_id_len);
    uint32_t rnd = b->random32 != NULL ? b->random32(b->ctx) : 0;
    uint32_t id = mix32(rnd ^ mix32(rec->boot_count + 1u) ^ hw);
    while (id == 0 || id == rec->last_boot_id) {
        id = mix32(id + 0x9E3779B9u);
    }
    rec->boot_count++;
    rec->last_boot_id = id;
    if (b->store_save != NULL) {
        boot_record_encode(rec, raw);
        (void)b->store_save(b->ctx, raw, sizeof raw);
    }
    return id;
}
