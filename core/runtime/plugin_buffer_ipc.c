/*
 * Memory shared with another process (PL-IPC-1..6): the export of a buffer
 * allocated exportable, and the host's checks on an import before the
 * plugin maps it.
 * Uses, of the plugin files: plugin_buffers.c (an import becomes a buffer
 * as an allocation does), plugin_buffer_table.c, plugin_call.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hurray/plugin.h"
#include "hurray/plugin_support.h"
#include "plugin_buffer_table.h"
#include "plugin_internal.h"

static bool ipc_kind_known(uint32_t kind) {
  return kind == HURRAY_PLUGIN_IPC_MEMORY_FD || kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE;
}

/* PL-IPC-2: what the plugin wrote must describe this buffer; a descriptor
 * it gave is closed when it does not. */
static hurray_status check_export(const hurray_plugin *plugin, const hurray_plugin_buffer *body,
                                  hurray_plugin_ipc_memory *memory, hurray_error *err) {
  const char *name = plugin->table.name;
  bool fd_ok = memory->kind == HURRAY_PLUGIN_IPC_MEMORY_FD ? memory->fd >= 0 : memory->fd == -1;
  bool handle_ok = memory->kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE
                       ? memory->handle_size > 0u &&
                             memory->handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE
                       : memory->handle_size == 0u;
  bool inside = memory->offset <= memory->segment_size &&
                body->handle.byte_size <= memory->segment_size - memory->offset;
  if (!ipc_kind_known(memory->kind) || !fd_ok || !handle_ok || !inside) {
    if (memory->kind == HURRAY_PLUGIN_IPC_MEMORY_FD && memory->fd >= 0) {
      close(memory->fd);
    }
    return hurray_plugin_fail(
        err, HURRAY_ERR_PLUGIN_INVALID, memory->kind, 0, 0,
        "%s: export_memory wrote kind %u, fd %d, handle_size %u, segment "
        "of %llu bytes at offset %llu for a %llu-byte buffer",
        name, (unsigned)memory->kind, (int)memory->fd, (unsigned)memory->handle_size,
        (unsigned long long)memory->segment_size, (unsigned long long)memory->offset,
        (unsigned long long)body->handle.byte_size);
  }
  /* What the host knows better than the plugin: the handle's own fields. */
  memory->struct_size = sizeof *memory;
  memory->byte_size = body->handle.byte_size;
  memory->alignment = body->handle.alignment;
  memory->device_tag = body->handle.device_tag;
  memory->memory_class = body->handle.memory_class;
  memset(memory->reserved, 0, sizeof memory->reserved);
  return HURRAY_OK;
}

hurray_status hurray_plugin_buffer_export(const hurray_plugin_buffer *buffer,
                                          hurray_plugin_ipc_memory *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = hurray_plugin_check_query(
      buffer, out, sizeof *out, "hurray_plugin_ipc_memory", "hurray_plugin_buffer_export", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin_buffer *body = NULL;
  status = hurray_buffer_record_find(buffer, "hurray_plugin_buffer_export", &body, err);
  if (status != HURRAY_OK) { /* PL-LIFE-3 */
    return status;
  }
  const hurray_plugin *plugin = body->plugin;
  if (plugin->table.export_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot export memory to another process (PL-IPC-6)",
                              plugin->table.name);
  }
  /* PL-IPC-1, PL-IPC-2: only what was allocated exportable is exported;
   * some runtimes would hand out a handle to any allocation (cuIpcGetMemHandle
   * on any cuMemAlloc), so the host decides, not the plugin. An import is
   * not re-exported either. */
  if ((body->flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, body->flags, plugin->table.device_tag, 0,
                              "%s buffer was not allocated exportable: allocate it with "
                              "HURRAY_PLUGIN_ALLOCATE_EXPORTABLE (PL-IPC-1)",
                              plugin->table.name);
  }
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  memory.fd = -1;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "export_memory",
      plugin->table.export_memory(plugin->state, &body->allocation, &memory, &call_err), &call_err,
      err);
  if (status != HURRAY_OK) {
    if (memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD && memory.fd >= 0) {
      close(memory.fd); /* PL-IPC-2: no descriptor left open on failure */
    }
    return status;
  }
  status = check_export(plugin, body, &memory, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_copy_out(out, &memory, sizeof memory); /* PL-VER-5 */
  return HURRAY_OK;
}

/* PL-IPC-3: what the host can judge of an import before the plugin maps
 * anything. */
static hurray_status check_import(const hurray_plugin *plugin, const hurray_plugin_ipc_memory *in,
                                  hurray_error *err) {
  if (in->struct_size < sizeof *in) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->struct_size, sizeof *in, 2,
                              "hurray_plugin_import: memory->struct_size %u, the fields need %zu",
                              (unsigned)in->struct_size, sizeof *in);
  }
  if (in->device_tag != plugin->table.device_tag) {
    return hurray_plugin_fail(
        err, HURRAY_ERR_DEVICE_TAG_MISMATCH, in->device_tag, plugin->table.device_tag, 2,
        "hurray_plugin_import: memory of device tag 0x%02X offered to %s "
        "(tag 0x%02X)",
        (unsigned)in->device_tag, plugin->table.name, (unsigned)plugin->table.device_tag);
  }
  if (!ipc_kind_known(in->kind) || in->reserved[0] != 0u || in->reserved[1] != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->kind, 0, 2,
                              "hurray_plugin_import: memory kind %u (reserved 0x%02X 0x%02X): "
                              "not a kind this version defines, or reserved bytes set",
                              (unsigned)in->kind, (unsigned)in->reserved[0],
                              (unsigned)in->reserved[1]);
  }
  if (in->offset > in->segment_size || in->byte_size > in->segment_size - in->offset) {
    return hurray_plugin_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT,
                              in->offset > UINT64_MAX - in->byte_size ? UINT64_MAX
                                                                      : in->offset + in->byte_size,
                              in->segment_size, 2,
                              "hurray_plugin_import: %llu bytes at offset %llu do not fit a "
                              "%llu-byte segment",
                              (unsigned long long)in->byte_size, (unsigned long long)in->offset,
                              (unsigned long long)in->segment_size);
  }
  if (plugin->table.import_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot import memory from another process (PL-IPC-6)",
                              plugin->table.name);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_import(hurray_plugin *plugin, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *memory,
                                   hurray_plugin_buffer **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || memory == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                              plugin == NULL ? 0u : (memory == NULL ? 2u : 3u),
                              "hurray_plugin_import: NULL argument");
  }
  hurray_status status = check_import(plugin, memory, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return hurray_plugin_make_buffer(plugin, device_index, memory->byte_size, memory->alignment,
                                   memory->memory_class, 0u, memory, out, err);
}
