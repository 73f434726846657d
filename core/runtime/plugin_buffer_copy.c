/*
 * Copies between host memory and a plugin buffer through the plugin's
 * copy entries, range-checked by the host first (PL-COPY-1..2).
 * Uses, of the plugin files: plugin_buffer_table.c (the records),
 * plugin_call.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdint.h>

#include "hurray/plugin.h"
#include "plugin_buffer_table.h"
#include "plugin_internal.h"

static hurray_status check_range(const hurray_plugin_buffer *buffer, uint64_t offset,
                                 const void *host, uint64_t bytes, hurray_error *err) {
  (void)offset;
  if (buffer == NULL || (host == NULL && bytes > 0u)) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, buffer == NULL ? 0u : 2u,
                              "copy: NULL buffer or host pointer");
  }
  return HURRAY_OK;
}

static hurray_status check_body_range(const hurray_plugin_buffer *body, uint64_t offset,
                                      uint64_t bytes, hurray_error *err) {
  uint64_t size = body->handle.byte_size;
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

/* Copies `bytes` at `offset` of a plugin buffer from `src` to the device
 * (to_device) or from the device to `dst`, the host memory of the other
 * direction being unused; every argument is checked before the plugin is
 * called (PL-COPY-2, PL-LIFE-3). `who` names the caller. */
static hurray_status copy_through_plugin(const hurray_plugin_buffer *buffer, uint64_t offset,
                                         bool to_device, const void *src, void *dst, uint64_t bytes,
                                         const char *who, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  const hurray_plugin_buffer *body = NULL;
  hurray_status status = check_range(buffer, offset, to_device ? src : dst, bytes, err);
  if (status == HURRAY_OK) {
    status = hurray_buffer_record_find(buffer, who, &body, err);
  }
  if (status == HURRAY_OK) {
    status = check_body_range(body, offset, bytes, err);
  }
  if (status != HURRAY_OK || bytes == 0u) {
    return status;
  }
  hurray_plugin *plugin = body->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  if (to_device) {
    return hurray_plugin_call_result(plugin->table.name, "copy_to_device",
                                     plugin->table.copy_to_device(plugin->state, &body->allocation,
                                                                  offset, src, bytes, &call_err),
                                     &call_err, err);
  }
  return hurray_plugin_call_result(
      plugin->table.name, "copy_to_host",
      plugin->table.copy_to_host(plugin->state, dst, &body->allocation, offset, bytes, &call_err),
      &call_err, err);
}

hurray_status hurray_plugin_buffer_write(hurray_plugin_buffer *buffer, uint64_t offset,
                                         const void *src, uint64_t bytes, hurray_error *err) {
  return copy_through_plugin(buffer, offset, true, src, NULL, bytes, "hurray_plugin_buffer_write",
                             err);
}

hurray_status hurray_plugin_buffer_read(const hurray_plugin_buffer *buffer, uint64_t offset,
                                        void *dst, uint64_t bytes, hurray_error *err) {
  return copy_through_plugin(buffer, offset, false, NULL, dst, bytes, "hurray_plugin_buffer_read",
                             err);
}
