/*
 * Buffers made through a plugin: allocation with the host's checks around
 * the plugin's allocate, the record an import shares with it, the free, and
 * the accessors. Rules: specs/plugin-abi.md PL-ALLOC-1..5, PL-LIFE-1,
 * PL-LIFE-3; every plugin call goes through the host's own error (PL-CALL-3,
 * PL-CALL-4).
 * Uses, of the plugin files: plugin_buffer_table.c (the records),
 * plugin_lifetime.c (an orphan's free), plugin_call.c; plugin_buffer_ipc.c
 * uses hurray_plugin_make_buffer from here.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hurray/plugin.h"
#include "hurray/plugin_support.h"
#include "plugin_buffer_table.h"
#include "plugin_internal.h"

/* The helpers every allocation runs, inlined into it: as calls they cost
 * the plugin path a measurable share of its overhead (bench_plugin_alloc). */
#define HOT_PATH inline __attribute__((always_inline))

static const hurray_plugin_memory_class_info *find_class(const hurray_plugin_device_info *device,
                                                         hurray_memory_class memory_class) {
  for (uint32_t i = 0; i < device->memory_class_count; i++) {
    if (device->memory_classes[i].memory_class == memory_class) {
      return &device->memory_classes[i];
    }
  }
  return NULL;
}

/* The alignment an address shows: its lowest set bit, capped at 2^31 (the
 * one lowest-set-bit function, core/runtime/support_core.c). */
static uint32_t measured_alignment(uint64_t address) {
  return hurray_support_alignment_capped(address, HURRAY_PLUGIN_MAX_ALIGNMENT);
}

/* PL-ALLOC-3, PL-ALLOC-4: what the plugin says it obtained must be what the
 * addresses it reports show; the host re-measures wherever it can. */
static hurray_status check_allocation(const hurray_plugin *plugin,
                                      const hurray_plugin_allocation *a,
                                      const hurray_plugin_memory_class_info *class_info,
                                      uint32_t device_index, uint64_t byte_size, uint32_t alignment,
                                      hurray_memory_class memory_class, hurray_error *err) {
  const char *name = plugin->table.name;
  if (a->alignment == 0u || (a->alignment & (a->alignment - 1u)) != 0u ||
      a->alignment < alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, alignment, 0,
                              "%s: allocate reported alignment %u for a request of %u", name,
                              (unsigned)a->alignment, (unsigned)alignment);
  }
  if (a->byte_size < byte_size || a->memory_class != memory_class ||
      a->device_index != device_index || a->address == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->byte_size, byte_size, 0,
                              "%s: allocate reported size %llu, class 0x%02X, device %u, "
                              "address %p for a request of %llu bytes, class 0x%02X, device %u",
                              name, (unsigned long long)a->byte_size, (unsigned)a->memory_class,
                              (unsigned)a->device_index, a->address, (unsigned long long)byte_size,
                              (unsigned)memory_class, (unsigned)device_index);
  }
  uint32_t host_measured = measured_alignment((uint64_t)(uintptr_t)a->host_address);
  if (a->host_address != NULL && host_measured < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, host_measured, 0,
                              "%s: reported alignment %u but host address %p measures %u", name,
                              (unsigned)a->alignment, a->host_address, (unsigned)host_measured);
  }
  /* HO-CHECK-3, BP-ALIGN-5: a CPU buffer's address is the host pointer the
   * handoff carries and the consumer's accept measures; a handle declaring
   * more than it shows would be refused there, or trusted elsewhere. */
  uint32_t address_measured = measured_alignment((uint64_t)(uintptr_t)a->address);
  if (plugin->table.device_tag == HURRAY_DEVICE_CPU && address_measured < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, address_measured, 0,
                              "%s: reported alignment %u but address %p measures %u", name,
                              (unsigned)a->alignment, a->address, (unsigned)address_measured);
  }
  if (a->device_address != 0u && measured_alignment(a->device_address) < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, a->device_address, 0,
                              "%s: reported alignment %u but device address 0x%llx has less", name,
                              (unsigned)a->alignment, (unsigned long long)a->device_address);
  }
  bool basis_ok =
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST && a->host_address != NULL) ||
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE && a->device_address != 0u) ||
      a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  if (!basis_ok) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment_basis, 0, 0,
                              "%s: alignment_basis %u without the address it was measured from",
                              name, (unsigned)a->alignment_basis);
  }
  if ((class_info->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u && a->host_address == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, memory_class, 0, 0,
                              "%s: class 0x%02X is declared host-accessible but the allocation "
                              "has no host address",
                              name, (unsigned)memory_class);
  }
  return HURRAY_OK;
}

/* PL-ALLOC-1 (and PL-IPC-3 for an import): the device, size, alignment and
 * class of a request, checked before the plugin sees it. `who` names the
 * caller in the detail. */
static HOT_PATH hurray_status check_request(const hurray_plugin *plugin, uint32_t device_index,
                                            uint64_t byte_size, uint32_t alignment,
                                            hurray_memory_class memory_class, bool import,
                                            const char *who,
                                            const hurray_plugin_memory_class_info **out_class,
                                            hurray_error *err) {
  hurray_status status = hurray_plugin_check_device(plugin, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (byte_size == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 2,
                              "%s: byte_size 0: an empty buffer needs no allocation "
                              "(hurray_buffer_handle_empty, BP-ALIGN-3)",
                              who);
  }
  if (alignment == 0u || (alignment & (alignment - 1u)) != 0u) {
    /* buffer.h: the BP-ALIGN errors' index is a handle position; this is
     * the buffer's one handle, 0 (not the argument position 3). */
    return hurray_plugin_fail(err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, alignment, 0, 0,
                              "%s: alignment %u requested", who, (unsigned)alignment);
  }
  if (alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    return hurray_plugin_fail(
        err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment, HURRAY_MIN_BUFFER_ALIGNMENT, 0,
        "%s: alignment %u requested, below 64 (BP-ALIGN-2)", who, (unsigned)alignment);
  }
  const hurray_plugin_device_info *device = &plugin->devices[device_index];
  const hurray_plugin_memory_class_info *class_info = find_class(device, memory_class);
  if (class_info == NULL) {
    char name[24];
    hurray_memory_class_display(memory_class, name, sizeof name);
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, plugin->table.device_tag,
                              4, "%s device %u (%s) does not offer memory class %s",
                              plugin->table.name, (unsigned)device_index, device->name, name);
  }
  /* An import is held to the alignment its memory already has (checked on
   * the mapping), not to what this device's allocator can obtain. */
  if (!import && alignment > class_info->max_alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, class_info->max_alignment, 3,
                              "%s device %u gives at most alignment %u in class 0x%02X",
                              plugin->table.name, (unsigned)device_index,
                              (unsigned)class_info->max_alignment, (unsigned)memory_class);
  }
  *out_class = class_info;
  return HURRAY_OK;
}

/* After the plugin's allocate or import_memory returned `status`: checks
 * what it reported (PL-ALLOC-3, PL-ALLOC-4, PL-IPC-3) and, on any failure,
 * frees what the plugin made and returns the unpublished record. */
static HOT_PATH hurray_status keep_or_return(const hurray_plugin *plugin,
                                             hurray_plugin_buffer *buffer, hurray_status status,
                                             const hurray_plugin_memory_class_info *class_info,
                                             uint32_t device_index, uint64_t byte_size,
                                             uint32_t alignment, hurray_memory_class memory_class,
                                             hurray_error *err) {
  hurray_plugin_allocation *allocation = &buffer->allocation;
  if (status == HURRAY_OK) {
    allocation->struct_size = sizeof *allocation;
    status = check_allocation(plugin, allocation, class_info, device_index, byte_size, alignment,
                              memory_class, err);
    if (status != HURRAY_OK) {
      plugin->table.free(plugin->state, allocation);
    }
  }
  if (status != HURRAY_OK) {
    hurray_buffer_record_give_back(buffer); /* never published: still free, same cycle */
  }
  return status;
}

/* PL-ALLOC-5, PL-IPC-4: a checked allocation becomes a live buffer. The
 * handle declares what the plugin obtained, checked by check_allocation:
 * the pair PL-DEV-1 (the class is one the device declared), the alignment a
 * power of two >= the requested one, itself >= 64, and producer_synced,
 * which suits every device (BP-SYNC-2). */
static HOT_PATH void publish_buffer(hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                                    uint64_t byte_size, uint32_t alignment,
                                    hurray_memory_class memory_class, uint32_t flags) {
  /* PL-LIFE-1: no count here; an unload finds this buffer in the table. */
  buffer->plugin = plugin;
  buffer->flags = flags;
  buffer->handle.byte_size = byte_size;
  buffer->handle.alignment = alignment;
  buffer->handle.device_tag = plugin->table.device_tag;
  buffer->handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  buffer->handle.memory_class = memory_class;
  hurray_buffer_record_publish(buffer);
}

/* What allocate and import share once the caller's arguments are checked:
 * the request (PL-ALLOC-1, PL-IPC-3), a record, the plugin's call, what it
 * reported (PL-ALLOC-3, PL-ALLOC-4) and the live buffer (PL-ALLOC-5,
 * PL-IPC-4). `memory`: what to import (its byte_size, alignment and
 * memory_class passed as the request, flags 0), NULL to allocate. Inlined
 * into the allocation entries; plugin_buffer_ipc.c calls it for import
 * through hurray_plugin_make_buffer. */
static HOT_PATH hurray_status make_buffer(hurray_plugin *plugin, uint32_t device_index,
                                          uint64_t byte_size, uint32_t alignment,
                                          hurray_memory_class memory_class, uint32_t flags,
                                          const hurray_plugin_ipc_memory *memory,
                                          hurray_plugin_buffer **out, hurray_error *err) {
  const hurray_plugin_memory_class_info *class_info = NULL;
  hurray_status status = check_request(
      plugin, device_index, byte_size, alignment, memory_class, memory != NULL,
      memory == NULL ? "hurray_plugin_allocate" : "hurray_plugin_import", &class_info, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_buffer *token = NULL;
  hurray_plugin_buffer *buffer = hurray_buffer_record_take(&token, err);
  if (buffer == NULL) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  if (memory == NULL) {
    status = hurray_plugin_call_result(
        plugin->table.name, "allocate",
        plugin->table.allocate(plugin->state, device_index, byte_size, alignment, memory_class,
                               flags, &buffer->allocation, &call_err),
        &call_err, err);
  } else {
    status =
        hurray_plugin_call_result(plugin->table.name, "import_memory",
                                  plugin->table.import_memory(plugin->state, device_index, memory,
                                                              &buffer->allocation, &call_err),
                                  &call_err, err);
  }
  /* PL-IPC-3: an importer's mapping must show the declared alignment. */
  status = keep_or_return(plugin, buffer, status, class_info, device_index, byte_size, alignment,
                          memory_class, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* PL-IPC-1: exportable memory declares the alignment asked for (the plugin
   * measured at least that): another process maps it elsewhere, and its
   * mapping is held to the declaration, not to what this address shows.
   * PL-IPC-4: an import declares the exporter's alignment, which the
   * mapping was checked to meet. */
  uint32_t declared = (flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u || memory != NULL
                          ? alignment
                          : buffer->allocation.alignment;
  publish_buffer(plugin, buffer, byte_size, declared, memory_class, flags);
  *out = token;
  return HURRAY_OK;
}

/* make_buffer for plugin_buffer_ipc.c's import: a function of its own, since
 * an inline function with external linkage may not use this file's static
 * helpers (C11 6.7.4p3). */
hurray_status hurray_plugin_make_buffer(hurray_plugin *plugin, uint32_t device_index,
                                        uint64_t byte_size, uint32_t alignment,
                                        hurray_memory_class memory_class, uint32_t flags,
                                        const hurray_plugin_ipc_memory *memory,
                                        hurray_plugin_buffer **out, hurray_error *err) {
  return make_buffer(plugin, device_index, byte_size, alignment, memory_class, flags, memory, out,
                     err);
}

/* Both public allocation entries, without a call between them (an exported
 * function called from the library goes through the PLT). `out_index`: the
 * position of `out` among the caller's arguments. */
static HOT_PATH hurray_status allocate_buffer(hurray_plugin *plugin, uint32_t device_index,
                                              uint64_t byte_size, uint32_t alignment,
                                              hurray_memory_class memory_class, uint32_t flags,
                                              hurray_plugin_buffer **out, size_t out_index,
                                              hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : out_index,
                              "hurray_plugin_allocate: NULL argument");
  }
  if ((flags & ~HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags,
                              HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS, 5,
                              "hurray_plugin_allocate_flags: flags 0x%X has bits this version "
                              "does not define",
                              (unsigned)flags);
  }
  /* PL-IPC-1: a plugin that cannot export is never asked for exportable
   * memory (a 1.0 plugin would refuse any flag). */
  if ((flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u && plugin->table.export_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 5,
                              "%s cannot export memory to another process (no export_memory "
                              "entry, PL-IPC-1)",
                              plugin->table.name);
  }
  return make_buffer(plugin, device_index, byte_size, alignment, memory_class, flags, NULL, out,
                     err);
}

hurray_status hurray_plugin_allocate_flags(hurray_plugin *plugin, uint32_t device_index,
                                           uint64_t byte_size, uint32_t alignment,
                                           hurray_memory_class memory_class, uint32_t flags,
                                           hurray_plugin_buffer **out, hurray_error *err) {
  return allocate_buffer(plugin, device_index, byte_size, alignment, memory_class, flags, out, 6u,
                         err);
}

hurray_status hurray_plugin_allocate(hurray_plugin *plugin, uint32_t device_index,
                                     uint64_t byte_size, uint32_t alignment,
                                     hurray_memory_class memory_class, hurray_plugin_buffer **out,
                                     hurray_error *err) {
  return allocate_buffer(plugin, device_index, byte_size, alignment, memory_class, 0u, out, 5u,
                         err);
}

hurray_status hurray_plugin_buffer_release(hurray_plugin_buffer *buffer, hurray_error *err) {
  if (buffer == NULL) {
    return HURRAY_OK;
  }
  hurray_status status = HURRAY_OK;
  bool orphan = false;
  hurray_plugin_buffer *body =
      hurray_buffer_record_retire(buffer, "hurray_plugin_buffer_release", &orphan, &status, err);
  if (body == NULL) {
    return status; /* PL-LIFE-3: nothing is freed, no count changes */
  }
  hurray_plugin *plugin = body->plugin;
  plugin->table.free(plugin->state, &body->allocation);
  /* From here an unload may close the plugin, unless this buffer is one of
   * its orphans: only then is `plugin` touched again, last. */
  hurray_buffer_record_finish(body);
  if (orphan) {
    hurray_plugin_drop_orphan(plugin); /* may close the plugin (PL-LIFE-1) */
  }
  return HURRAY_OK;
}

void hurray_plugin_buffer_free(hurray_plugin_buffer *buffer) {
  /* PL-LIFE-3: a second free is refused without effect; this function has
   * no way to say so, hurray_plugin_buffer_release has. */
  (void)!hurray_plugin_buffer_release(buffer, NULL);
}

void hurray_plugin_buffer_release_callback(void *data, void *ctx) {
  (void)data; /* the offered address; the buffer token travels as ctx */
  hurray_plugin_buffer_free(ctx);
}

/* The accessors read a live slot; a freed or foreign token gives NULL. */
const hurray_buffer_handle *hurray_plugin_buffer_handle(const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = hurray_buffer_record_live(buffer);
  return body == NULL ? NULL : &body->handle;
}

const hurray_plugin_allocation *hurray_plugin_buffer_allocation(
    const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = hurray_buffer_record_live(buffer);
  return body == NULL ? NULL : &body->allocation;
}

hurray_plugin *hurray_plugin_buffer_plugin(const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = hurray_buffer_record_live(buffer);
  return body == NULL ? NULL : body->plugin;
}
