/*
 * Encode mode: handles from flags to hex text or raw bytes, checked by
 * libhurray first (specs/cli.md CLI-ENC-3, CLI-ENC-4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text_sink.h"

static void hex_line(text_sink *out, const uint8_t *bytes, size_t n) {
  for (size_t i = 0; i < n; i++) {
    text_sink_printf(out, i == 0u ? "%02X" : " %02X", bytes[i]);
  }
  text_sink_puts(out, "\n");
}

hurray_status inspect_encode(const inspect_options *options, char *out, size_t cap, size_t *len,
                             hurray_error *err) {
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  uint8_t bytes[HURRAY_BUFFER_TABLE_MAX_SIZE];
  size_t n = 0;
  if (options->kind == INSPECT_INPUT_TABLE &&
      options->handle_count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    /* BP-TABLE-1 comes first, as in the encoder: libhurray refuses the count
     * (CAPACITY, value: the count, expected: 255) before reading a handle. */
    for (size_t i = 0; i < HURRAY_BUFFER_TABLE_MAX_HANDLES; i++) {
      handles[i] = options->handles[i].fields;
    }
    return hurray_buffer_table_encode(handles, options->handle_count, bytes, sizeof bytes, &n, err);
  }
  for (size_t i = 0; i < options->handle_count; i++) {
    const hurray_buffer_handle *f = &options->handles[i].fields;
    hurray_status status = hurray_buffer_handle_with_memory_class(
        f->byte_size, f->alignment, f->device_tag, f->sync_mode, f->memory_class, &handles[i], err);
    if (status != HURRAY_OK) {
      if (err != NULL) {
        err->index = i;
      }
      return status;
    }
  }

  if (options->kind == INSPECT_INPUT_HANDLE) {
    hurray_buffer_handle_encode(&handles[0], bytes);
    n = HURRAY_BUFFER_HANDLE_SIZE;
  } else {
    hurray_status status =
        hurray_buffer_table_encode(handles, options->handle_count, bytes, sizeof bytes, &n, err);
    if (status != HURRAY_OK) {
      return status;
    }
  }

  text_sink sink;
  text_sink_init(&sink, out, cap);
  if (options->raw_output) {
    text_sink_append(&sink, (const char *)bytes, n);
  } else if (options->kind == INSPECT_INPUT_HANDLE) {
    hex_line(&sink, bytes, n);
  } else {
    hex_line(&sink, bytes, 1);
    for (size_t i = 0; i < options->handle_count; i++) {
      hex_line(&sink, bytes + 1 + HURRAY_BUFFER_HANDLE_SIZE * i, HURRAY_BUFFER_HANDLE_SIZE);
    }
  }
  if (sink.len >= cap) {
    if (err != NULL) {
      memset(err, 0, sizeof *err);
      err->status = HURRAY_ERR_CAPACITY;
      err->value = sink.len + 1u;
      err->expected = cap;
    }
    return HURRAY_ERR_CAPACITY;
  }
  *len = sink.len;
  return HURRAY_OK;
}

size_t inspect_encode_error_format(const inspect_options *options, const hurray_error *err,
                                   char *buf, size_t cap) {
  if (err != NULL && err->status == HURRAY_ERR_CAPACITY && options->kind == INSPECT_INPUT_TABLE &&
      options->handle_count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    /* libhurray's CAPACITY text speaks of a buffer; here the limit is the
     * table's count byte. */
    int n = snprintf(buf, cap,
                     "%zu handles given; a buffer table holds at most %u, its count is one "
                     "byte (BP-TABLE-1)",
                     options->handle_count, (unsigned)HURRAY_BUFFER_TABLE_MAX_HANDLES);
    return n < 0 ? 0u : (size_t)n;
  }
  return hurray_error_format(err, buf, cap);
}
