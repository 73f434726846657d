/*
 * The allocation record a plugin hands the host (hurray_plugin_allocation,
 * include/hurray/plugin_vendor.h), begun the same way by every plugin:
 * zeroed, its struct_size, and what the host asked for (size, device,
 * class). The plugin then adds the addresses, the alignment and its basis,
 * and its own data.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_ALLOCATION_H
#define HURRAY_PLUGIN_ALLOCATION_H

#include <stdint.h>
#include <string.h>

#include "hurray/plugin_vendor.h"

static inline void plugin_allocation_init(hurray_plugin_allocation *a, uint64_t byte_size,
                                          uint32_t device_index, hurray_memory_class memory_class) {
  memset(a, 0, sizeof *a);
  a->struct_size = sizeof *a;
  a->byte_size = byte_size;
  a->device_index = device_index;
  a->memory_class = memory_class;
}

#endif
