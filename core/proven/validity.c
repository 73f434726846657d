/*
 * The (device_tag, memory_class) validity table: BP-PAIR-1..3.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/buffer.h"

/* One bit per class 0x00..0x03, per named device 0x00..0x08, transcribed from
 * the table of BP-PAIR-1 (bit k set: class k valid). */
static uint8_t named_device_classes(hurray_device_tag tag) {
  switch (tag) {
    case HURRAY_DEVICE_CPU: return 0x7u;
    case HURRAY_DEVICE_CUDA: return 0xFu;
    case HURRAY_DEVICE_ROCM: return 0xFu;
    case HURRAY_DEVICE_METAL: return 0x7u;
    case HURRAY_DEVICE_VULKAN: return 0xFu;
    case HURRAY_DEVICE_WEBGPU: return 0x1u;
    case HURRAY_DEVICE_HEXAGON: return 0x7u;
    case HURRAY_DEVICE_LEVEL_ZERO: return 0xFu;
    case HURRAY_DEVICE_OPENCL: return 0x7u;
    default: return 0x0u;
  }
}

bool hurray_pair_is_valid(hurray_device_tag device_tag, hurray_memory_class memory_class) {
  if (hurray_device_tag_is_private(device_tag)) {
    return memory_class == HURRAY_MEMORY_STANDARD || hurray_memory_class_is_private(memory_class);
  }
  if (memory_class > HURRAY_MEMORY_PEER) {
    return false;
  }
  return ((named_device_classes(device_tag) >> memory_class) & 1u) != 0u;
}
