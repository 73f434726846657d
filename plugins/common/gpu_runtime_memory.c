/*
 * gpu_runtime_memory: see gpu_runtime_memory.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "gpu_runtime_memory.h"
#include "plugin_allocation.h"

#include <stdint.h>
#include <string.h>

#include "hurray/plugin_support.h"

uint64_t plugin_gpu_base_of(const hurray_plugin_allocation *allocation) {
  return (uint64_t)(uintptr_t)allocation->plugin_data & ~(uint64_t)PLUGIN_GPU_IMPORTED_MARK;
}

bool plugin_gpu_offers(plugin_gpu_device_traits traits, hurray_memory_class memory_class) {
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: return true;
    case HURRAY_MEMORY_HOST_PINNED: return traits.host_pinned;
    case HURRAY_MEMORY_UNIFIED: return traits.managed;
    case HURRAY_MEMORY_PEER: return traits.has_peer;
    default: return false;
  }
}

void plugin_gpu_describe(const char *name, uint64_t memory_bytes, uint32_t ipc_capabilities,
                         plugin_gpu_device_traits traits, uint32_t max_alignment,
                         hurray_plugin_device_info *out) {
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.ipc_capabilities = ipc_capabilities;
  memcpy(info.name, name, sizeof info.name);
  info.memory_bytes = memory_bytes;
  static const hurray_memory_class classes[] = {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED,
                                                HURRAY_MEMORY_UNIFIED, HURRAY_MEMORY_PEER};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    if (plugin_gpu_offers(traits, classes[i])) {
      bool host = classes[i] == HURRAY_MEMORY_HOST_PINNED || classes[i] == HURRAY_MEMORY_UNIFIED;
      hurray_support_add_memory_class(
          &info, classes[i], host ? HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE : 0u, max_alignment);
    }
  }
  hurray_plugin_copy_out(out, &info, sizeof info);
}

hurray_status plugin_gpu_check_allocate(const char *plugin_name, hurray_device_tag device_tag,
                                        plugin_gpu_device_traits traits, uint32_t device_index,
                                        uint64_t byte_size, uint32_t alignment,
                                        hurray_memory_class memory_class, uint32_t flags,
                                        uint32_t max_alignment, uint64_t slack, hurray_error *err) {
  if (!plugin_gpu_offers(traits, memory_class)) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, device_tag,
                                     "%s: memory class 0x%02X is not offered by device %u",
                                     plugin_name, (unsigned)memory_class, (unsigned)device_index);
  }
  if ((flags & ~HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, flags, HURRAY_PLUGIN_ALLOCATE_EXPORTABLE,
        "%s: allocate flags 0x%X: only HURRAY_PLUGIN_ALLOCATE_EXPORTABLE exists", plugin_name,
        (unsigned)flags);
  }
  /* PL-IPC-6: the runtime's IPC handles cover device memory only; every
   * device allocation can be exported, so the flag changes nothing else. */
  if ((flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u && memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, memory_class, device_tag,
        "%s: only standard (device) memory is exported, not class 0x%02X", plugin_name,
        (unsigned)memory_class);
  }
  if (alignment > max_alignment) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, max_alignment,
                                     "%s: alignment %u above the %u this plugin guarantees",
                                     plugin_name, (unsigned)alignment, (unsigned)max_alignment);
  }
  if (byte_size > SIZE_MAX - slack) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                     "%s: %llu bytes do not fit in this address space", plugin_name,
                                     (unsigned long long)byte_size);
  }
  return HURRAY_OK;
}

void plugin_gpu_allocation(uint32_t device_index, hurray_memory_class memory_class, uint64_t base,
                           uint64_t byte_size, uint32_t alignment, uint32_t max_alignment,
                           bool host_memory_device_mapped, void *plugin_data,
                           hurray_plugin_allocation *out) {
  uint64_t address = (base + alignment - 1u) & ~((uint64_t)alignment - 1u);
  hurray_plugin_allocation a;
  plugin_allocation_init(&a, byte_size, device_index, memory_class);
  a.alignment = hurray_support_alignment_capped(address, max_alignment);
  a.address = (void *)(uintptr_t)address;
  a.plugin_data = plugin_data;
  if (memory_class == HURRAY_MEMORY_HOST_PINNED || memory_class == HURRAY_MEMORY_UNIFIED) {
    a.host_address = a.address;
    a.device_address = host_memory_device_mapped ? address : 0u;
    a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  } else {
    a.device_address = address;
    a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  }
  hurray_plugin_copy_out(out, &a, sizeof a);
}

hurray_status plugin_gpu_check_export(const char *plugin_name, hurray_device_tag device_tag,
                                      const hurray_plugin_allocation *allocation,
                                      hurray_error *err) {
  if (allocation->memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, allocation->memory_class, device_tag,
        "%s: only standard (device) memory has an IPC handle", plugin_name);
  }
  return HURRAY_OK;
}

void plugin_gpu_exported_handle(const void *handle, size_t handle_size, uint64_t base,
                                const hurray_plugin_allocation *allocation,
                                hurray_plugin_ipc_memory *out) {
  out->kind = HURRAY_PLUGIN_IPC_MEMORY_HANDLE;
  out->handle_size = (uint32_t)handle_size;
  memcpy(out->handle, handle, handle_size);
  out->offset = (uint64_t)(uintptr_t)allocation->address - base;
  out->segment_size = out->offset + allocation->byte_size;
}

hurray_status plugin_gpu_check_import(const char *plugin_name, const hurray_plugin_ipc_memory *in,
                                      size_t handle_size, hurray_error *err) {
  if (in->kind != HURRAY_PLUGIN_IPC_MEMORY_HANDLE || in->handle_size != handle_size ||
      in->memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, in->kind, HURRAY_PLUGIN_IPC_MEMORY_HANDLE,
        "%s: memory kind %u with a %u-byte handle, class 0x%02X: an import is "
        "a %zu-byte IPC handle of standard memory",
        plugin_name, (unsigned)in->kind, (unsigned)in->handle_size, (unsigned)in->memory_class,
        handle_size);
  }
  return HURRAY_OK;
}

void plugin_gpu_imported_allocation(uint32_t device_index, uint64_t base,
                                    const hurray_plugin_ipc_memory *in, uint32_t max_alignment,
                                    void *plugin_data, hurray_plugin_allocation *out) {
  uint64_t address = base + in->offset;
  hurray_plugin_allocation a;
  plugin_allocation_init(&a, in->byte_size, device_index, HURRAY_MEMORY_STANDARD);
  a.alignment = hurray_support_alignment_capped(address, max_alignment);
  a.address = (void *)(uintptr_t)address;
  a.device_address = address;
  a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  a.plugin_data = plugin_data;
  hurray_plugin_copy_out(out, &a, sizeof a);
}
