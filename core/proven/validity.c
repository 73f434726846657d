/*
 * The (device_tag, memory_class) validity table: BP-PAIR-1..3.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include "hurray/buffer.h"

/* Whether a named device (0x00..0x08) takes a named class (0x00..0x03),
 * transcribed from the rows of BP-PAIR-1: each row's valid classes run from
 * standard up to the one returned here. A comparison rather than a bit mask
 * so that the proof needs no bit arithmetic. */
/*@
  requires memory_class <= 0x03;
  terminates \true;
  assigns \nothing;
  ensures \result <==> bp_named_device_tag(tag) && bp_valid_pair(tag, memory_class);
*/
static bool named_device_has_class(hurray_device_tag tag, hurray_memory_class memory_class) {
  switch (tag) {
    case HURRAY_DEVICE_CPU: return memory_class <= HURRAY_MEMORY_UNIFIED;
    case HURRAY_DEVICE_CUDA: return memory_class <= HURRAY_MEMORY_PEER;
    case HURRAY_DEVICE_ROCM: return memory_class <= HURRAY_MEMORY_PEER;
    case HURRAY_DEVICE_METAL: return memory_class <= HURRAY_MEMORY_UNIFIED;
    case HURRAY_DEVICE_VULKAN: return memory_class <= HURRAY_MEMORY_PEER;
    case HURRAY_DEVICE_WEBGPU: return memory_class == HURRAY_MEMORY_STANDARD;
    case HURRAY_DEVICE_HEXAGON: return memory_class <= HURRAY_MEMORY_UNIFIED;
    case HURRAY_DEVICE_LEVEL_ZERO: return memory_class <= HURRAY_MEMORY_PEER;
    case HURRAY_DEVICE_OPENCL: return memory_class <= HURRAY_MEMORY_UNIFIED;
    default: return false;
  }
}

/* For every one of the 65,536 byte pairs: the proof covers all of them. */
/*@
  terminates \true;
  assigns \nothing;
  ensures \result == 1 <==> bp_valid_pair(device_tag, memory_class);  // BP-PAIR-1..3
  ensures \result == 0 || \result == 1;                                // HO-ABI-5
*/
hurray_bool32 hurray_pair_is_valid(hurray_device_tag device_tag,
                                   hurray_memory_class memory_class) {
  if (hurray_device_tag_is_private(device_tag)) {
    return memory_class == HURRAY_MEMORY_STANDARD || hurray_memory_class_is_private(memory_class)
               ? HURRAY_TRUE
               : HURRAY_FALSE;
  }
  if (memory_class > HURRAY_MEMORY_PEER) {
    return HURRAY_FALSE;
  }
  return named_device_has_class(device_tag, memory_class) ? HURRAY_TRUE : HURRAY_FALSE;
}
