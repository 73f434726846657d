/*
 * gpu_ipc_event: see gpu_ipc_event.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "gpu_ipc_event.h"

#include <stdint.h>
#include <string.h>

#include "hurray/plugin_support.h"

void plugin_gpu_exported_event(const void *handle, size_t handle_size,
                               hurray_plugin_ipc_event *out) {
  out->kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE;
  out->handle_size = (uint32_t)handle_size;
  memcpy(out->handle, handle, handle_size);
}

hurray_status plugin_gpu_check_event_import(const char *plugin_name, const char *handle_type,
                                            const hurray_plugin_ipc_event *in, size_t handle_size,
                                            hurray_error *err) {
  if (in->handle_size != handle_size) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->handle_size, handle_size,
                                     "%s: a %u-byte event handle, %s is %zu bytes", plugin_name,
                                     (unsigned)in->handle_size, handle_type, handle_size);
  }
  return HURRAY_OK;
}
