/*
 * The --json output (specs/cli.md CLI-JSON-1) and JSON string escaping
 * (CLI-JSON-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <inttypes.h>
#include <string.h>

#include "inspect.h"
#include "text_sink.h"

static void json_string(text_sink *out, const char *text, size_t len) {
  const uint8_t *s = (const uint8_t *)text;
  text_sink_puts(out, "\"");
  size_t i = 0;
  while (i < len) {
    uint8_t c = s[i];
    switch (c) {
      case '"':
        text_sink_puts(out, "\\\"");
        i++;
        continue;
      case '\\':
        text_sink_puts(out, "\\\\");
        i++;
        continue;
      case '\n':
        text_sink_puts(out, "\\n");
        i++;
        continue;
      case '\r':
        text_sink_puts(out, "\\r");
        i++;
        continue;
      case '\t':
        text_sink_puts(out, "\\t");
        i++;
        continue;
      case '\b':
        text_sink_puts(out, "\\b");
        i++;
        continue;
      case '\f':
        text_sink_puts(out, "\\f");
        i++;
        continue;
      default: break;
    }
    if (c < 0x20u || c == 0x7Fu) {
      /* DEL is legal in JSON but escaped too, so the output is printable. */
      text_sink_printf(out, "\\u%04X", (unsigned)c);
      i++;
      continue;
    }
    size_t n = text_sink_utf8_sequence(s + i, len - i, NULL);
    if (n == 0u) {
      text_sink_puts(out, "\\uFFFD");
      i++;
      continue;
    }
    text_sink_append(out, text + i, n);
    i += n;
  }
  text_sink_puts(out, "\"");
}

size_t inspect_json_write_string(const char *text, size_t len, char *buf, size_t cap) {
  text_sink out;
  text_sink_init(&out, buf, cap);
  json_string(&out, text != NULL ? text : "", text != NULL ? len : 0u);
  return out.len;
}

static void json_name(text_sink *out, size_t (*display)(uint8_t, char *, size_t), uint8_t byte) {
  char name[32];
  size_t n = display(byte, name, sizeof name);
  json_string(out, name, n < sizeof name ? n : sizeof name - 1u);
}

static void json_handle(text_sink *out, const hurray_buffer_handle *h) {
  text_sink_printf(out, "{\"byte_size\": %" PRIu64 ", \"alignment\": %" PRIu32 ", \"device_tag\": ",
                   h->byte_size, h->alignment);
  json_name(out, hurray_device_tag_display, h->device_tag);
  text_sink_printf(out, ", \"device_tag_byte\": %u, \"sync_mode\": ", (unsigned)h->device_tag);
  json_name(out, hurray_sync_mode_display, h->sync_mode);
  text_sink_puts(out, ", \"memory_class\": ");
  json_name(out, hurray_memory_class_display, h->memory_class);
  text_sink_puts(out, "}");
}

size_t inspect_write_json(const inspect_result *r, char *buf, size_t cap) {
  text_sink out;
  text_sink_init(&out, buf, cap);
  text_sink_printf(&out, "{\"valid\": %s, \"handles\": [",
                   r->status == HURRAY_OK ? "true" : "false");
  for (size_t i = 0; i < r->handle_count; i++) {
    if (i > 0u) {
      text_sink_puts(&out, ", ");
    }
    json_handle(&out, &r->handles[i].fields);
  }
  text_sink_puts(&out, "], \"error\": ");
  if (r->status == HURRAY_OK) {
    text_sink_puts(&out, "null");
  } else {
    const hurray_error *e = &r->error;
    text_sink_puts(&out, "{\"status\": ");
    const char *name = hurray_status_name(r->status);
    json_string(&out, name, strlen(name));
    text_sink_printf(
        &out, ", \"value\": %" PRIu64 ", \"expected\": %" PRIu64 ", \"index\": %zu, \"message\": ",
        e->value, e->expected, e->index);
    size_t n = 0;
    while (n < sizeof r->message && r->message[n] != '\0') {
      n++;
    }
    json_string(&out, r->message, n);
    text_sink_puts(&out, "}");
  }
  text_sink_puts(&out, "}\n");
  return out.len;
}

size_t inspect_write_json_failure(const inspect_failure *f, char *buf, size_t cap) {
  text_sink out;
  text_sink_init(&out, buf, cap);
  text_sink_puts(&out, "{\"valid\": false, \"handles\": [], \"error\": {\"status\": ");
  const char *status = f->status != NULL ? f->status : "USAGE";
  json_string(&out, status, strlen(status));
  text_sink_printf(&out, ", \"value\": %" PRIu64 ", \"expected\": 0, \"index\": 0", f->value);
  if (f->has_position) {
    text_sink_printf(&out, ", \"line\": %zu, \"column\": %zu", f->line, f->column);
  }
  text_sink_puts(&out, ", \"message\": ");
  const char *message = f->message != NULL ? f->message : "";
  json_string(&out, message, strlen(message));
  text_sink_puts(&out, "}}\n");
  return out.len;
}
