/*
 * What the GPU compute runtimes (the CUDA driver, HIP, Level Zero) share in
 * their memory model, so the cuda, rocm and level_zero plugins state it
 * once: the four classes they map to (device memory, page-locked host
 * memory, managed/shared memory, device memory with peer access; facts §5,
 * BP-PAIR-1), the checks of an allocate request, the allocation records of
 * an allocation and of an imported IPC handle, and the IPC handle's export
 * and import checks (PL-IPC-2..4, PL-IPC-6). The vendor calls themselves
 * stay in each plugin. In-tree plugins only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_GPU_RUNTIME_MEMORY_H
#define HURRAY_PLUGINS_COMMON_GPU_RUNTIME_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/plugin_vendor.h"

/* plugin_data holds an allocation's base; bit 0 (free: runtime bases are at
 * least 256-byte aligned) marks memory imported from another process, which
 * free() closes rather than frees (PL-IPC-4). */
#define PLUGIN_GPU_IMPORTED_MARK 1u

/* The runtime base an allocation's plugin_data keeps, without the mark. */
uint64_t plugin_gpu_base_of(const hurray_plugin_allocation *allocation);

/* What a device offers beyond standard (device) memory. */
typedef struct plugin_gpu_device_traits {
  bool host_pinned; /* page-locked host memory the device reads */
  bool managed;     /* managed (shared) memory: the unified class */
  bool has_peer;    /* at least one peer the runtime allows access from */
} plugin_gpu_device_traits;

bool plugin_gpu_offers(plugin_gpu_device_traits traits, hurray_memory_class memory_class);

/* The device description: the name (HURRAY_PLUGIN_DEVICE_NAME_SIZE bytes),
 * memory size, IPC capabilities and each class the device offers,
 * host-accessible for host_pinned and unified. */
void plugin_gpu_describe(const char *name, uint64_t memory_bytes, uint32_t ipc_capabilities,
                         plugin_gpu_device_traits traits, uint32_t max_alignment,
                         hurray_plugin_device_info *out);

/* The checks of allocate() before any runtime call, with the plugin's name
 * and device tag in the errors: the class offered, the flags known,
 * exportable only for standard memory (PL-IPC-6), the alignment within
 * max_alignment, and room in the address space for byte_size plus the
 * `slack` the plugin adds to align the address up itself. */
hurray_status plugin_gpu_check_allocate(const char *plugin_name, hurray_device_tag device_tag,
                                        plugin_gpu_device_traits traits, uint32_t device_index,
                                        uint64_t byte_size, uint32_t alignment,
                                        hurray_memory_class memory_class, uint32_t flags,
                                        uint32_t max_alignment, uint64_t slack, hurray_error *err);

/* The record of `byte_size` bytes at the runtime allocation `base`, aligned
 * up to `alignment`, with the plugin's `plugin_data` for free(). Host-visible
 * classes carry the address as host address, and as device address when
 * `host_memory_device_mapped` (the runtime maps them at the same address). */
void plugin_gpu_allocation(uint32_t device_index, hurray_memory_class memory_class, uint64_t base,
                           uint64_t byte_size, uint32_t alignment, uint32_t max_alignment,
                           bool host_memory_device_mapped, void *plugin_data,
                           hurray_plugin_allocation *out);

/* PL-IPC-2: only standard (device) memory has an IPC handle; UNSUPPORTED
 * for any other class. */
hurray_status plugin_gpu_check_export(const char *plugin_name, hurray_device_tag device_tag,
                                      const hurray_plugin_allocation *allocation,
                                      hurray_error *err);

/* PL-IPC-2: the export of a runtime IPC handle (`handle_size` bytes) of
 * the allocation's base `base`, with the buffer's offset from it. */
void plugin_gpu_exported_handle(const void *handle, size_t handle_size, uint64_t base,
                                const hurray_plugin_allocation *allocation,
                                hurray_plugin_ipc_memory *out);

/* PL-IPC-3: an import must be a `handle_size`-byte IPC handle of standard
 * memory; INVALID_ARGUMENT naming what came otherwise. */
hurray_status plugin_gpu_check_import(const char *plugin_name, const hurray_plugin_ipc_memory *in,
                                      size_t handle_size, hurray_error *err);

/* The record of an imported IPC handle mapped at `base` (PL-IPC-3): the
 * buffer sits at the exporter's offset; `plugin_data` is what tells free()
 * to close the mapping rather than free it (PL-IPC-4). */
void plugin_gpu_imported_allocation(uint32_t device_index, uint64_t base,
                                    const hurray_plugin_ipc_memory *in, uint32_t max_alignment,
                                    void *plugin_data, hurray_plugin_allocation *out);

#endif
