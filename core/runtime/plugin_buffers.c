/*
 * Buffers and events made through a plugin: the host-side checks around each
 * plugin call, and the bookkeeping that lets unload release everything.
 * Rules: specs/plugin-abi.md PL-ALLOC-1..5, PL-COPY-1..2, PL-EVENT-1..4; every
 * plugin call goes through the host's own error (PL-CALL-3, PL-CALL-4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"

/* ------------------------------------------------------------------------ */
/* Allocation                                                               */
/* ------------------------------------------------------------------------ */

static const hurray_plugin_memory_class_info *find_class(const hurray_plugin_device_info *device,
                                                         hurray_memory_class memory_class) {
  for (uint32_t i = 0; i < device->memory_class_count; i++) {
    if (device->memory_classes[i].memory_class == memory_class) {
      return &device->memory_classes[i];
    }
  }
  return NULL;
}

/* The alignment an address shows: its lowest set bit, capped at 2^31 (as
 * hurray_alignment_of, without the loop: this is on every allocation). */
static uint32_t measured_alignment(uint64_t address) {
  uint64_t lowest = address & (~address + 1u);
  return lowest == 0u || lowest > HURRAY_PLUGIN_MAX_ALIGNMENT ? HURRAY_PLUGIN_MAX_ALIGNMENT
                                                              : (uint32_t)lowest;
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

hurray_status hurray_plugin_allocate(hurray_plugin *plugin, uint32_t device_index,
                                     uint64_t byte_size, uint32_t alignment,
                                     hurray_memory_class memory_class, hurray_plugin_buffer **out,
                                     hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 5u,
                              "hurray_plugin_allocate: NULL argument");
  }
  /* PL-ALLOC-1: the request is checked before the plugin sees it. */
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  if (byte_size == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 2,
                              "byte_size 0: an empty buffer needs no allocation "
                              "(hurray_buffer_handle_empty, BP-ALIGN-3)");
  }
  if (alignment == 0u || (alignment & (alignment - 1u)) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, alignment, 0, 3,
                              "alignment %u", (unsigned)alignment);
  }
  if (alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    return hurray_plugin_fail(err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment,
                              HURRAY_MIN_BUFFER_ALIGNMENT, 3, "alignment %u below 64 (BP-ALIGN-2)",
                              (unsigned)alignment);
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
  if (alignment > class_info->max_alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, class_info->max_alignment, 3,
                              "%s device %u gives at most alignment %u in class 0x%02X",
                              plugin->table.name, (unsigned)device_index,
                              (unsigned)class_info->max_alignment, (unsigned)memory_class);
  }
  hurray_plugin_allocation allocation;
  memset(&allocation, 0, sizeof allocation);
  allocation.struct_size = sizeof allocation;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  hurray_status status = hurray_plugin_call_result(
      plugin->table.name, "allocate",
      plugin->table.allocate(plugin->state, device_index, byte_size, alignment, memory_class, 0u,
                             &allocation, &call_err),
      &call_err, err);
  if (status != HURRAY_OK) {
    return status;
  }
  allocation.struct_size = sizeof allocation;
  status = check_allocation(plugin, &allocation, class_info, device_index, byte_size, alignment,
                            memory_class, err);
  if (status != HURRAY_OK) {
    plugin->table.free(plugin->state, &allocation);
    return status;
  }
  /* malloc, not a cache of our own: glibc serves a block this small from a
   * per-thread cache without a lock or an atomic operation, which no shared
   * cache of records can match. */
  hurray_plugin_buffer *buffer = malloc(sizeof *buffer);
  if (buffer == NULL) {
    plugin->table.free(plugin->state, &allocation);
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *buffer, 0, 0,
                              "buffer record");
  }
  /* PL-LIFE-1: the buffer keeps its plugin loaded. Relaxed: the caller
   * holds a reference already (the registry's), so the count cannot reach
   * zero meanwhile; the release order comes with the drop. */
  atomic_fetch_add_explicit(&plugin->references, 1u, memory_order_relaxed);
  buffer->plugin = plugin;
  buffer->allocation = allocation;
  /* PL-ALLOC-5: the handle declares what the plugin obtained, checked above:
   * the pair PL-DEV-1 (the class is one the device declared), the alignment
   * is a power of two >= the requested one, itself >= 64, and producer_synced
   * suits every device (BP-SYNC-2). */
  buffer->handle.byte_size = byte_size;
  buffer->handle.alignment = allocation.alignment;
  buffer->handle.device_tag = plugin->table.device_tag;
  buffer->handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  buffer->handle.memory_class = memory_class;
  *out = buffer;
  return HURRAY_OK;
}

void hurray_plugin_buffer_free(hurray_plugin_buffer *buffer) {
  if (buffer == NULL) {
    return;
  }
  hurray_plugin *plugin = buffer->plugin;
  plugin->table.free(plugin->state, &buffer->allocation);
  free(buffer);
  /* Last: this may be what unloads the plugin (PL-LIFE-1). */
  hurray_plugin_drop_reference(plugin);
}

void hurray_plugin_buffer_release_callback(void *data, void *ctx) {
  (void)data; /* the offered address; the buffer record travels as ctx */
  hurray_plugin_buffer_free(ctx);
}

const hurray_buffer_handle *hurray_plugin_buffer_handle(const hurray_plugin_buffer *buffer) {
  return &buffer->handle;
}

const hurray_plugin_allocation *hurray_plugin_buffer_allocation(
    const hurray_plugin_buffer *buffer) {
  return &buffer->allocation;
}

hurray_plugin *hurray_plugin_buffer_plugin(const hurray_plugin_buffer *buffer) {
  return buffer->plugin;
}

/* ------------------------------------------------------------------------ */
/* Copies (PL-COPY-1..2)                                                    */
/* ------------------------------------------------------------------------ */

static hurray_status check_range(const hurray_plugin_buffer *buffer, uint64_t offset,
                                 const void *host, uint64_t bytes, hurray_error *err) {
  if (buffer == NULL || (host == NULL && bytes > 0u)) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, buffer == NULL ? 0u : 2u,
                              "copy: NULL buffer or host pointer");
  }
  uint64_t size = buffer->handle.byte_size;
  if (offset > size || bytes > size - offset) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, offset + bytes, size, 1,
                              "copy of %llu bytes at offset %llu outside a %llu-byte buffer",
                              (unsigned long long)bytes, (unsigned long long)offset,
                              (unsigned long long)size);
  }
  if (bytes > SIZE_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, bytes, SIZE_MAX, 3,
                              "copy larger than this address space");
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_buffer_write(hurray_plugin_buffer *buffer, uint64_t offset,
                                         const void *src, uint64_t bytes, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = check_range(buffer, offset, src, bytes, err);
  if (status != HURRAY_OK || bytes == 0u) {
    return status;
  }
  hurray_plugin *plugin = buffer->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(plugin->table.name, "copy_to_device",
                                   plugin->table.copy_to_device(plugin->state, &buffer->allocation,
                                                                offset, src, bytes, &call_err),
                                   &call_err, err);
}

hurray_status hurray_plugin_buffer_read(const hurray_plugin_buffer *buffer, uint64_t offset,
                                        void *dst, uint64_t bytes, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = check_range(buffer, offset, dst, bytes, err);
  if (status != HURRAY_OK || bytes == 0u) {
    return status;
  }
  hurray_plugin *plugin = buffer->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(plugin->table.name, "copy_to_host",
                                   plugin->table.copy_to_host(plugin->state, dst,
                                                              &buffer->allocation, offset, bytes,
                                                              &call_err),
                                   &call_err, err);
}

/* ------------------------------------------------------------------------ */
/* Events and streams (PL-EVENT-1..4)                                       */
/* ------------------------------------------------------------------------ */

hurray_status hurray_plugin_event_create(hurray_plugin *plugin, uint32_t device_index,
                                         hurray_plugin_event **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 2u,
                              "hurray_plugin_event_create: NULL argument");
  }
  if (plugin->table.create_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support events", plugin->table.name);
  }
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  hurray_plugin_event *event = malloc(sizeof *event);
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, 0, "event record");
  }
  event->native = NULL;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  hurray_status status = hurray_plugin_call_result(
      plugin->table.name, "create_event",
      plugin->table.create_event(plugin->state, device_index, &event->native, &call_err),
      &call_err, err);
  if (status != HURRAY_OK) {
    free(event);
    return status;
  }
  /* PL-LIFE-1: the event keeps its plugin loaded. */
  atomic_fetch_add_explicit(&plugin->references, 1u, memory_order_relaxed);
  atomic_fetch_add_explicit(&plugin->live_events, 1u, memory_order_relaxed);
  event->plugin = plugin;
  event->device_index = device_index;
  *out = event;
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_record(hurray_plugin_event *event, void *stream,
                                         hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "record_event",
      plugin->table.record_event(plugin->state, event->native, stream, &call_err), &call_err, err);
}

hurray_status hurray_plugin_event_wait(hurray_plugin_event *event, uint64_t timeout_ns,
                                       hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "wait_event",
      plugin->table.wait_event(plugin->state, event->native, timeout_ns, &call_err), &call_err,
      err);
}

hurray_status hurray_plugin_event_stream_wait(hurray_plugin_event *event, void *stream,
                                              hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  if (plugin->table.stream_wait_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support device-side event waits", plugin->table.name);
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "stream_wait_event",
      plugin->table.stream_wait_event(plugin->state, stream, event->native, &call_err), &call_err,
      err);
}

void hurray_plugin_event_release(hurray_plugin_event *event) {
  if (event == NULL) {
    return;
  }
  hurray_plugin *plugin = event->plugin;
  plugin->table.release_event(plugin->state, event->native);
  free(event);
  atomic_fetch_sub_explicit(&plugin->live_events, 1u, memory_order_relaxed);
  hurray_plugin_drop_reference(plugin); /* may unload the plugin (PL-LIFE-1) */
}

void hurray_plugin_event_release_callback(void *event, void *ctx) {
  (void)ctx;
  hurray_plugin_event_release(event);
}

hurray_plugin *hurray_plugin_event_plugin(const hurray_plugin_event *event) {
  return event->plugin;
}

hurray_status hurray_plugin_stream_wait(hurray_plugin *plugin, uint32_t device_index, void *stream,
                                        uint64_t timeout_ns, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "plugin is NULL");
  }
  if (plugin->table.wait_stream == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support stream waits", plugin->table.name);
  }
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "wait_stream",
      plugin->table.wait_stream(plugin->state, device_index, stream, timeout_ns, &call_err),
      &call_err, err);
}
