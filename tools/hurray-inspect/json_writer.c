/*
 * The --json output (specs/cli.md CLI-JSON-1) and JSON string escaping
 * (CLI-JSON-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <inttypes.h>
#include <string.h>

#include "inspect.h"
#include "text_sink.h"

/* Length of the well-formed UTF-8 sequence starting at s[0] (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_sequence_length(const uint8_t *s, size_t available) {
  uint8_t b0 = s[0];
  size_t n;
  uint8_t low = 0x80u; /* bounds of the second byte */
  uint8_t high = 0xBFu;
  if (b0 < 0x80u) {
    return 1;
  } else if (b0 >= 0xC2u && b0 <= 0xDFu) {
    n = 2;
  } else if (b0 >= 0xE0u && b0 <= 0xEFu) {
    n = 3;
    if (b0 == 0xE0u) {
      low = 0xA0u; /* overlong */
    } else if (b0 == 0xEDu) {
      high = 0x9Fu; /* surrogates */
    }
  } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
    n = 4;
    if (b0 == 0xF0u) {
      low = 0x90u; /* overlong */
    } else if (b0 == 0xF4u) {
      high = 0x8Fu; /* above U+10FFFF */
    }
  } else {
    return 0;
  }
  if (available < n || s[1] < low || s[1] > high) {
    return 0;
  }
  for (size_t k = 2; k < n; k++) {
    if (s[k] < 0x80u || s[k] > 0xBFu) {
      return 0;
    }
  }
  return n;
}

static void json_string(text_sink *out, const char *text, size_t len) {
  const uint8_t *s = (const uint8_t *)text;
  text_sink_puts(out, "\"");
  size_t i = 0;
  while (i < len) {
    uint8_t c = s[i];
    switch (c) {
      case '"': text_sink_puts(out, "\\\""); i++; continue;
      case '\\': text_sink_puts(out, "\\\\"); i++; continue;
      case '\n': text_sink_puts(out, "\\n"); i++; continue;
      case '\r': text_sink_puts(out, "\\r"); i++; continue;
      case '\t': text_sink_puts(out, "\\t"); i++; continue;
      case '\b': text_sink_puts(out, "\\b"); i++; continue;
      case '\f': text_sink_puts(out, "\\f"); i++; continue;
      default: break;
    }
    if (c < 0x20u || c == 0x7Fu) {
      /* DEL is legal in JSON but escaped too, so the output is printable. */
      text_sink_printf(out, "\\u%04X", (unsigned)c);
      i++;
      continue;
    }
    size_t n = utf8_sequence_length(s + i, len - i);
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
  text_sink_printf(&out, "{\"valid\": %s, \"handles\": [", r->status == HURRAY_OK ? "true" : "false");
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
    text_sink_printf(&out, ", \"value\": %" PRIu64 ", \"expected\": %" PRIu64 ", \"index\": %zu, \"message\": ",
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
