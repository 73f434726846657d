/*
 * An independent model of specs/buffer-protocol.md for the core tests.
 *
 * Every expected answer the tests compare the library against comes from
 * here or from a literal in a test, written from the spec's tables and rule
 * text (the BP-... IDs below), never from running the library. The model is
 * deliberately written differently from core/ (tables as text rows, ranges
 * spelled out) so that one mistake is unlikely to sit in both.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_CORE_SPEC_ORACLE_H
#define HURRAY_TESTS_CORE_SPEC_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"

/* What the spec says a reader answers for one handle. `has_expected` is false
 * where the spec names no `expected` payload for the status. */
typedef struct spec_verdict {
  hurray_status status;
  uint64_t value;
  uint64_t expected;
  bool has_expected;
  bool has_value; /* false where the spec names no `value` either */
} spec_verdict;

/* BP-DEV-1..4: which range a device_tag byte falls in. */
typedef enum spec_range { SPEC_NAMED, SPEC_RESERVED, SPEC_PRIVATE, SPEC_INVALID } spec_range;
spec_range spec_device_tag_range(uint8_t byte);
/* BP-MEM-1..3. */
spec_range spec_memory_class_range(uint8_t byte);

/* BP-ALIGN-1: a power of two (0 is not one), by counting set bits. */
bool spec_is_power_of_two(uint64_t value);

/* BP-PAIR-1..3 from the table rows of the spec. */
bool spec_pair_is_valid(uint8_t device_tag, uint8_t memory_class);

/* BP-ORDER-1 steps 1..8 for a handle's fields and reserved byte. */
spec_verdict spec_handle_verdict(uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                                 uint8_t sync_mode, uint8_t memory_class, uint8_t reserved);

/* BP-TABLE-1..5 and BP-COLOC-2 for the table at the start of in[0..len)
 * read into a capacity of `cap` handles; *index is the failing handle's
 * position where the spec gives one, SIZE_MAX otherwise. */
spec_verdict spec_table_verdict(const uint8_t *in, size_t len, size_t cap, size_t *index);

/* BP-WIRE-1: the 16 bytes of a handle, written field by field, little-endian. */
void spec_put_handle(uint8_t out[16], uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                     uint8_t sync_mode, uint8_t memory_class, uint8_t reserved);

/* BP-DLPACK-1: the DLDeviceType of a pair, or 0 where DLPack has none. */
int32_t spec_dlpack_type(uint8_t device_tag, uint8_t memory_class);

/* BP-XPORT-2..4 for a defined sync mode (0..2): whether it may cross. */
bool spec_transport_allows(hurray_transport transport, uint8_t sync_mode,
                           uint32_t ipc_capabilities);

#endif /* HURRAY_TESTS_CORE_SPEC_ORACLE_H */
