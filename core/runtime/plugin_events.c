/*
 * Events and streams through a plugin (PL-EVENT-1..5), and events shared
 * with another process (PL-IPC-7..11): the host-side checks around each
 * plugin call, and the event's hold on its plugin (PL-LIFE-1); every plugin
 * call goes through the host's own error (PL-CALL-3, PL-CALL-4).
 * Uses, of the plugin files: plugin_lifetime.c (a released event drops its
 * reference), plugin_call.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"
#include "hurray/plugin_support.h"
#include "plugin_internal.h"

/* A record for an event the plugin is about to make or open; NULL (err
 * filled) when out of memory. */
static hurray_plugin_event *new_event(hurray_error *err) {
  hurray_plugin_event *event = malloc(sizeof *event);
  if (event == NULL) {
    (void)hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, 0, "event record");
    return NULL;
  }
  event->native = NULL;
  return event;
}

/* After the plugin's call that made or opened event->native returned
 * `status`: on success the record becomes the caller's, keeping its plugin
 * loaded (PL-LIFE-1); on failure it is freed. */
static hurray_status keep_event(hurray_plugin *plugin, uint32_t device_index, uint32_t flags,
                                hurray_plugin_event *event, hurray_status status,
                                hurray_plugin_event **out) {
  if (status != HURRAY_OK) {
    free(event);
    return status;
  }
  atomic_fetch_add_explicit(&plugin->references, 1u, memory_order_relaxed);
  atomic_fetch_add_explicit(&plugin->live_events, 1u, memory_order_relaxed);
  event->plugin = plugin;
  event->device_index = device_index;
  event->flags = flags;
  *out = event;
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_create_flags(hurray_plugin *plugin, uint32_t device_index,
                                               uint32_t flags, hurray_plugin_event **out,
                                               hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 3u,
                              "hurray_plugin_event_create_flags: NULL argument");
  }
  /* PL-IPC-7: an unknown bit is refused before anything else is judged. */
  if ((flags & ~HURRAY_PLUGIN_EVENT_KNOWN_FLAGS) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags,
                              HURRAY_PLUGIN_EVENT_KNOWN_FLAGS, 2,
                              "event flags 0x%X: only HURRAY_PLUGIN_EVENT_EXPORTABLE (0x%X) exists",
                              (unsigned)flags, HURRAY_PLUGIN_EVENT_KNOWN_FLAGS);
  }
  if (plugin->table.create_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support events", plugin->table.name);
  }
  hurray_status status = hurray_plugin_check_device(plugin, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  bool exportable = (flags & HURRAY_PLUGIN_EVENT_EXPORTABLE) != 0u;
  if (exportable && plugin->table.create_event_flags == NULL) {
    bool old_table = plugin->declared_struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY;
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 0,
                              "%s cannot export events to another process (PL-IPC-11)%s",
                              plugin->table.name,
                              old_table ? ": its table ends before create_event_flags" : "");
  }
  /* PL-IPC-7, PL-DEV-3: the device's own word on whether its events cross
   * processes (a CUDA device without CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED). */
  if (exportable &&
      (plugin->devices[device_index].ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 1,
                              "%s device %u (%s) does not declare HURRAY_IPC_EXPORTS_EVENTS",
                              plugin->table.name, (unsigned)device_index,
                              plugin->devices[device_index].name);
  }
  hurray_plugin_event *event = new_event(err);
  if (event == NULL) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  if (exportable) {
    status = hurray_plugin_call_result(plugin->table.name, "create_event_flags",
                                       plugin->table.create_event_flags(plugin->state, device_index,
                                                                        flags, &event->native,
                                                                        &call_err),
                                       &call_err, err);
  } else {
    status = hurray_plugin_call_result(
        plugin->table.name, "create_event",
        plugin->table.create_event(plugin->state, device_index, &event->native, &call_err),
        &call_err, err);
  }
  return keep_event(plugin, device_index, flags, event, status, out);
}

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
  return hurray_plugin_event_create_flags(plugin, device_index, 0u, out, err);
}

/* The calls a holder makes on an event it has: each takes the event with a
 * stream or a timeout, and answers through the host's error alone. */
typedef enum event_call { EVENT_RECORD, EVENT_WAIT, EVENT_STREAM_WAIT } event_call;

static hurray_status call_on_event(hurray_plugin_event *event, event_call call, void *stream,
                                   uint64_t timeout_ns, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  if (call == EVENT_STREAM_WAIT && plugin->table.stream_wait_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support device-side event waits", plugin->table.name);
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  const char *entry;
  hurray_status returned;
  switch (call) {
    case EVENT_RECORD:
      entry = "record_event";
      returned = plugin->table.record_event(plugin->state, event->native, stream, &call_err);
      break;
    case EVENT_WAIT:
      entry = "wait_event";
      returned = plugin->table.wait_event(plugin->state, event->native, timeout_ns, &call_err);
      break;
    default:
      entry = "stream_wait_event";
      returned = plugin->table.stream_wait_event(plugin->state, stream, event->native, &call_err);
      break;
  }
  return hurray_plugin_call_result(plugin->table.name, entry, returned, &call_err, err);
}

hurray_status hurray_plugin_event_record(hurray_plugin_event *event, void *stream,
                                         hurray_error *err) {
  return call_on_event(event, EVENT_RECORD, stream, 0u, err);
}

hurray_status hurray_plugin_event_wait(hurray_plugin_event *event, uint64_t timeout_ns,
                                       hurray_error *err) {
  return call_on_event(event, EVENT_WAIT, NULL, timeout_ns, err);
}

hurray_status hurray_plugin_event_stream_wait(hurray_plugin_event *event, void *stream,
                                              hurray_error *err) {
  return call_on_event(event, EVENT_STREAM_WAIT, stream, 0u, err);
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

/* PL-EVENT-5: the native types a device's runtime has; a plugin answering
 * another type would make the consumer misread the handle. */
static bool native_type_fits(hurray_device_tag tag, uint32_t type) {
  switch (tag) {
    case HURRAY_DEVICE_CUDA: return type == HURRAY_NATIVE_EVENT_CU_EVENT;
    case HURRAY_DEVICE_ROCM: return type == HURRAY_NATIVE_EVENT_HIP_EVENT;
    case HURRAY_DEVICE_METAL: return type == HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
    case HURRAY_DEVICE_VULKAN:
      return type == HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE ||
             type == HURRAY_NATIVE_EVENT_VK_FENCE;
    case HURRAY_DEVICE_LEVEL_ZERO: return type == HURRAY_NATIVE_EVENT_ZE_EVENT;
    case HURRAY_DEVICE_OPENCL: return type == HURRAY_NATIVE_EVENT_CL_EVENT;
    default:
      return tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST &&
             type >= HURRAY_NATIVE_EVENT_PRIVATE_FIRST;
  }
}

hurray_status hurray_plugin_event_native(const hurray_plugin_event *event,
                                         hurray_plugin_native_event *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = hurray_plugin_check_query(
      event, out, sizeof *out, "hurray_plugin_native_event", "hurray_plugin_event_native", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin *plugin = event->plugin;
  hurray_device_tag tag = plugin->table.device_tag;
  if (plugin->table.native_event == NULL) { /* PL-TABLE-8: ABI 1.0, or none */
    bool table_1_0 = plugin->declared_struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_0;
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, tag, 0,
                              "%s gives no native event handle%s", plugin->table.name,
                              table_1_0 ? " (its table is plugin ABI 1.0)" : "");
  }
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "native_event",
      plugin->table.native_event(plugin->state, event->native, &native, &call_err), &call_err, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (!native_type_fits(tag, native.native_type) || native.handle == 0u) {
    char name[24];
    hurray_device_tag_display(tag, name, sizeof name);
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, native.native_type, tag, 0,
                              "%s: native_event answered type %u, handle 0x%llx: not a native "
                              "event of device %s (PL-EVENT-5)",
                              plugin->table.name, (unsigned)native.native_type,
                              (unsigned long long)native.handle, name);
  }
  native.struct_size = sizeof native;
  native.device_index = event->device_index;
  native.reserved = 0u;
  hurray_plugin_copy_out(out, &native, sizeof native); /* PL-VER-5 */
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* Events shared with another process (PL-IPC-7..11)                        */
/* ------------------------------------------------------------------------ */

hurray_status hurray_plugin_event_export(const hurray_plugin_event *event,
                                         hurray_plugin_ipc_event *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = hurray_plugin_check_query(
      event, out, sizeof *out, "hurray_plugin_ipc_event", "hurray_plugin_event_export", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin *plugin = event->plugin;
  if (plugin->table.export_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot export events to another process (PL-IPC-11)",
                              plugin->table.name);
  }
  /* PL-IPC-8: the host decides what is exported, not the runtime; an
   * import is the exporter's event, not this process's to hand on. */
  if ((event->flags & HURRAY_PLUGIN_EVENT_EXPORTABLE) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, event->flags, plugin->table.device_tag,
                              0,
                              "%s event was %s: create it with HURRAY_PLUGIN_EVENT_EXPORTABLE "
                              "(PL-IPC-7)",
                              plugin->table.name,
                              (event->flags & HURRAY_EVENT_IMPORTED) != 0u
                                  ? "imported from another process, not created exportable"
                                  : "not created exportable");
  }
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "export_event",
      plugin->table.export_event(plugin->state, event->native, &record, &call_err), &call_err, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (record.kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE || record.handle_size == 0u ||
      record.handle_size > HURRAY_PLUGIN_IPC_HANDLE_SIZE) {
    return hurray_plugin_fail(
        err, HURRAY_ERR_PLUGIN_INVALID, record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE, 0,
        "%s: export_event wrote kind %u with a %u-byte handle (PL-IPC-8)", plugin->table.name,
        (unsigned)record.kind, (unsigned)record.handle_size);
  }
  /* What the host knows better than the plugin. */
  record.struct_size = sizeof record;
  record.device_tag = plugin->table.device_tag;
  memset(record.reserved, 0, sizeof record.reserved);
  hurray_plugin_copy_out(out, &record, sizeof record); /* PL-VER-5 */
  return HURRAY_OK;
}

/* PL-IPC-9: what the host can judge of a record before the plugin opens it. */
static hurray_status check_event_record(const hurray_plugin *plugin,
                                        const hurray_plugin_ipc_event *in, hurray_error *err) {
  if (in->struct_size < sizeof *in) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->struct_size, sizeof *in, 2,
                              "hurray_plugin_event_import: record->struct_size %u, the fields "
                              "need %zu",
                              (unsigned)in->struct_size, sizeof *in);
  }
  if (in->device_tag != plugin->table.device_tag) {
    return hurray_plugin_fail(
        err, HURRAY_ERR_DEVICE_TAG_MISMATCH, in->device_tag, plugin->table.device_tag, 2,
        "hurray_plugin_event_import: event of device tag 0x%02X offered to "
        "%s (tag 0x%02X)",
        (unsigned)in->device_tag, plugin->table.name, (unsigned)plugin->table.device_tag);
  }
  if (in->kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->kind,
                              HURRAY_PLUGIN_IPC_EVENT_HANDLE, 2,
                              "hurray_plugin_event_import: event kind %u is not one this version "
                              "defines",
                              (unsigned)in->kind);
  }
  if (in->handle_size == 0u || in->handle_size > HURRAY_PLUGIN_IPC_HANDLE_SIZE) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->handle_size,
                              HURRAY_PLUGIN_IPC_HANDLE_SIZE, 2,
                              "hurray_plugin_event_import: handle_size %u, not 1..%u",
                              (unsigned)in->handle_size, HURRAY_PLUGIN_IPC_HANDLE_SIZE);
  }
  for (size_t i = 0; i < sizeof in->reserved; i++) {
    if (in->reserved[i] != 0u) {
      return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->reserved[i], 0, 2,
                                "hurray_plugin_event_import: reserved byte %zu is 0x%02X, not 0", i,
                                (unsigned)in->reserved[i]);
    }
  }
  if (plugin->table.import_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot import events from another process (PL-IPC-11)",
                              plugin->table.name);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_import(hurray_plugin *plugin, uint32_t device_index,
                                         const hurray_plugin_ipc_event *record,
                                         hurray_plugin_event **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || record == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                              plugin == NULL ? 0u : (record == NULL ? 2u : 3u),
                              "hurray_plugin_event_import: NULL argument");
  }
  hurray_status status = check_event_record(plugin, record, err);
  if (status == HURRAY_OK) {
    status = hurray_plugin_check_device(plugin, device_index, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_event *event = new_event(err);
  if (event == NULL) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "import_event",
      plugin->table.import_event(plugin->state, device_index, record, &event->native, &call_err),
      &call_err, err);
  return keep_event(plugin, device_index, HURRAY_EVENT_IMPORTED, event, status, out);
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
  hurray_status status = hurray_plugin_check_device(plugin, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "wait_stream",
      plugin->table.wait_stream(plugin->state, device_index, stream, timeout_ns, &call_err),
      &call_err, err);
}
