/* What survives a reboot: a boot counter and the last boot id, in the board's persistent
 * store. Sequence numbers themselves restart at 1 with every boot (docs/protocol.md: seq is
 * "per sender and session"); what must never repeat across reboots is the boot id, because
 * the host tells a restart from a reconnect by it and drops resent seqs of a known boot as
 * duplicates. A board's RNG alone may repeat after a power cut (weak entropy at reset), so
 * the id mixes the RNG with the stored counter and is checked against the last one. */
#ifndef RF_BOOT_H
#define RF_BOOT_H

#include <stdint.h>

#include "hw.h"

#define BOOT_RECORD_SIZE 16u

struct boot_record {
    uint32_t boot_count;
    uint32_t last_boot_id;
};

/* Load the record (a missing or corrupt one starts from zero), pick this boot's id (never 0,
 * never the last one), count the boot and save the record. Returns the boot id. */
uint32_t boot_begin(const struct board *b, struct boot_record *rec);

/* The record's bytes (magic, count, id, CRC-32), exposed for tests of other stores. */
void boot_record_encode(const struct boot_record *rec, uint8_t out[BOOT_RECORD_SIZE]);
int boot_record_decode(const uint8_t in[BOOT_RECORD_SIZE], struct boot_record *rec);

#endif
