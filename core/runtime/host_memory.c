/*
 * Handles for host memory a producer did not align itself: the alignment is
 * measured from the address, never asserted (BP-ALIGN-5).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>

#include "../proven/error_set.h"
#include "hurray/buffer.h"
#include "hurray/plugin_support.h"

uint32_t hurray_alignment_of(const void *address) {
  /* The lowest set bit of the address, capped at 2^31: the largest power of
   * two a u32 alignment field can declare (the one lowest-set-bit function,
   * core/runtime/support_core.c). */
  return hurray_support_alignment_capped((uint64_t)(uintptr_t)address, 0x80000000u);
}

hurray_status hurray_buffer_handle_for_host_memory(const void *address, uint64_t byte_size,
                                                   uint32_t max_alignment,
                                                   hurray_buffer_handle *out, hurray_error *err) {
  if (max_alignment == 0u || (max_alignment & (max_alignment - 1u)) != 0u) {
    return hurray_fail(err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, max_alignment, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3);
  }
  uint32_t measured = hurray_alignment_of(address);
  uint32_t declared = measured < max_alignment ? measured : max_alignment;
  return hurray_buffer_handle_new(byte_size, declared, HURRAY_DEVICE_CPU,
                                  HURRAY_SYNC_PRODUCER_SYNCED, out, err);
}
