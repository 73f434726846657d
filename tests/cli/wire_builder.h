/*
 * Test inputs written byte by byte from the layout of specs/buffer-protocol.md
 * BP-WIRE-1 (u64 byte_size, u32 alignment, little-endian; then device_tag,
 * sync_mode, memory_class, reserved) and BP-TABLE-1 (a count byte, then the
 * handles) — independently of libhurray's encoder, so the tests do not check
 * the library against itself.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_WIRE_BUILDER_H
#define HURRAY_TESTS_WIRE_BUILDER_H

#include <stdint.h>

static inline void wire_put_handle(uint8_t *p, uint64_t byte_size, uint32_t alignment,
                                   uint8_t device_tag, uint8_t sync_mode, uint8_t memory_class,
                                   uint8_t reserved) {
  for (unsigned k = 0; k < 8u; k++) {
    p[k] = (uint8_t)(byte_size >> (8u * k));
  }
  for (unsigned k = 0; k < 4u; k++) {
    p[8u + k] = (uint8_t)(alignment >> (8u * k));
  }
  p[12] = device_tag;
  p[13] = sync_mode;
  p[14] = memory_class;
  p[15] = reserved;
}

/* Handle i of a table starts at 1 + 16 * i. */
static inline uint8_t *wire_table_handle(uint8_t *table, unsigned i) {
  return table + 1u + 16u * i;
}

#endif
