/*
 * The per-handle rules of BP-ORDER-1 steps 2..8, shared by the constructors,
 * hurray_buffer_handle_validate() and the decoders. Internal to the core.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_HANDLE_RULES_H
#define HURRAY_CORE_HANDLE_RULES_H

#include <stdbool.h>
#include "hurray/buffer.h"

/* BP-ALIGN-1: the 32 powers of two a u32 can hold, as a switch. The usual
 * bit trick, (a & (a - 1)) == 0, is beyond what the provers can relate to
 * "a power of two"; the switch compiles to a few comparisons. */
/*@
  terminates \true;
  assigns \nothing;
  ensures \result <==> bp_power_of_two_u32(alignment);
*/
static inline bool hurray_alignment_is_power_of_two(uint32_t alignment) {
  switch (alignment) {
    case 0x1u: case 0x2u: case 0x4u: case 0x8u:
    case 0x10u: case 0x20u: case 0x40u: case 0x80u:
    case 0x100u: case 0x200u: case 0x400u: case 0x800u:
    case 0x1000u: case 0x2000u: case 0x4000u: case 0x8000u:
    case 0x10000u: case 0x20000u: case 0x40000u: case 0x80000u:
    case 0x100000u: case 0x200000u: case 0x400000u: case 0x800000u:
    case 0x1000000u: case 0x2000000u: case 0x4000000u: case 0x8000000u:
    case 0x10000000u: case 0x20000000u: case 0x40000000u: case 0x80000000u:
      return true;
    default:
      return false;
  }
}

/* Checks the five field values in the order of BP-ORDER-1 (steps 2..8); on
 * failure fills err (index: `index`) and returns the first rule broken. */
hurray_status hurray_handle_fields_check(uint64_t byte_size, uint32_t alignment,
                                         uint8_t device_tag, uint8_t sync_mode,
                                         uint8_t memory_class, size_t index, hurray_error *err);

#endif /* HURRAY_CORE_HANDLE_RULES_H */
