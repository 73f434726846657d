/*
 * The annotated text report (specs/cli.md CLI-OUT-1): one row per field with
 * offset, bytes, field name, decoded value, meaning and verdict, so a person
 * sees which byte makes a handle or table fail.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "inspect.h"
#include "text_sink.h"

/* Column widths; longer cells push the row right rather than being cut. */
enum { WIDTH_OFFSET = 6, WIDTH_BYTES = 23, WIDTH_FIELD = 12, WIDTH_VALUE = 20, WIDTH_MEANING = 46 };

static const char *device_meaning(uint8_t tag) {
  switch (tag) {
    case HURRAY_DEVICE_CPU: return "host memory; the address is a host pointer";
    case HURRAY_DEVICE_CUDA: return "CUDA device memory";
    case HURRAY_DEVICE_ROCM: return "ROCm (HIP) device memory";
    case HURRAY_DEVICE_METAL: return "Metal buffer";
    case HURRAY_DEVICE_VULKAN: return "Vulkan device memory";
    case HURRAY_DEVICE_WEBGPU: return "WebGPU buffer";
    case HURRAY_DEVICE_HEXAGON: return "Hexagon DSP memory";
    case HURRAY_DEVICE_LEVEL_ZERO: return "oneAPI Level Zero memory";
    case HURRAY_DEVICE_OPENCL: return "OpenCL buffer";
    case HURRAY_DEVICE_INVALID: return "permanently invalid tag (BP-DEV-4)";
    default: break;
  }
  return hurray_device_tag_is_private(tag)
             ? "implementation-private device, agreed out of band (BP-DEV-3)"
             : "reserved for future versions (BP-DEV-2)";
}

static const char *sync_meaning(uint8_t mode) {
  switch (mode) {
    case HURRAY_SYNC_PRODUCER_SYNCED: return "ready when handed over, on any stream";
    case HURRAY_SYNC_EVENT: return "wait on the producer's event, release it once";
    case HURRAY_SYNC_CONSUMER_STREAM: return "use only on the declared stream(s)";
    default: break;
  }
  return "not a defined sync mode (BP-SYNC-1)";
}

static const char *class_meaning(uint8_t memory_class) {
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: return "device-exclusive memory (the default)";
    case HURRAY_MEMORY_HOST_PINNED: return "page-locked host memory the device reaches";
    case HURRAY_MEMORY_UNIFIED: return "unified (managed) memory, migrates on demand";
    case HURRAY_MEMORY_PEER: return "device memory a peer device reaches";
    case HURRAY_MEMORY_INVALID: return "permanently invalid class (BP-MEM-3)";
    default: break;
  }
  return hurray_memory_class_is_private(memory_class) ? "implementation-private class (BP-MEM-2)"
                                                      : "reserved for future versions (BP-MEM-3)";
}

static const char *verdict(hurray_status status) {
  return status == HURRAY_OK ? "ok" : hurray_status_name(status);
}

/* Pads the current cell, which started at `cell_start`, to `width` plus the
 * two spaces between columns. */
static void pad_to(text_sink *out, size_t cell_start, size_t width) {
  size_t used = out->len - cell_start;
  text_sink_repeat(out, ' ', (used < width ? width - used : 0u) + 2u);
}

/* A cell that holds `text`, padded as pad_to does. */
static void text_cell(text_sink *out, const char *text, size_t width) {
  const size_t start = out->len;
  text_sink_puts(out, text);
  pad_to(out, start, width);
}

static void bytes_cell(text_sink *out, const uint8_t *bytes, size_t n) {
  for (size_t i = 0; i < n; i++) {
    text_sink_printf(out, i == 0u ? "%02X" : " %02X", bytes[i]);
  }
}

/* One row; `bytes` may be NULL for a row that shows none. */
static void row(text_sink *out, size_t offset, const uint8_t *bytes, size_t n, const char *field,
                const char *value, const char *meaning, const char *judgement) {
  text_sink_printf(out, "%*zu", (int)WIDTH_OFFSET, offset);
  text_sink_repeat(out, ' ', 2);
  size_t start = out->len;
  if (bytes != NULL) {
    bytes_cell(out, bytes, n);
  }
  pad_to(out, start, WIDTH_BYTES);
  text_cell(out, field, WIDTH_FIELD);
  text_cell(out, value, WIDTH_VALUE);
  text_cell(out, meaning, WIDTH_MEANING);
  text_sink_puts(out, judgement);
  text_sink_puts(out, "\n");
}

/* A line under the bytes column, for handle headings and verdicts. */
static void note(text_sink *out, const char *text) {
  text_sink_repeat(out, ' ', WIDTH_OFFSET + 2u + WIDTH_BYTES + 2u);
  text_sink_puts(out, text);
  text_sink_puts(out, "\n");
}

static void header(text_sink *out) {
  text_cell(out, "offset", WIDTH_OFFSET);
  text_cell(out, "bytes", WIDTH_BYTES);
  text_cell(out, "field", WIDTH_FIELD);
  text_cell(out, "value", WIDTH_VALUE);
  text_cell(out, "meaning", WIDTH_MEANING);
  text_sink_puts(out, "verdict\n");
}

static void handle_rows(text_sink *out, const inspect_handle_view *h, size_t index,
                        const inspect_result *r) {
  char heading[96];
  snprintf(heading, sizeof heading, "handle %zu (bytes %zu..%zu)", index, h->offset,
           h->offset + HURRAY_BUFFER_HANDLE_SIZE - 1u);
  note(out, heading);

  const hurray_buffer_handle *f = &h->fields;
  const hurray_status *v = h->field_status;
  char value[64];
  char meaning[96];

  snprintf(value, sizeof value, "%" PRIu64, f->byte_size);
  if (f->byte_size == 0u) {
    snprintf(meaning, sizeof meaning, "empty buffer; never dereferenced (BP-ALIGN-3)");
  } else {
    snprintf(meaning, sizeof meaning, "%" PRIu64 " bytes of data", f->byte_size);
  }
  row(out, h->offset, h->bytes, 8, "byte_size", value, meaning,
      verdict(v[INSPECT_FIELD_BYTE_SIZE]));

  snprintf(value, sizeof value, "%" PRIu32, f->alignment);
  if (v[INSPECT_FIELD_ALIGNMENT] == HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO) {
    snprintf(meaning, sizeof meaning, "not a power of two (BP-ALIGN-1)");
  } else if (v[INSPECT_FIELD_ALIGNMENT] == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
    snprintf(meaning, sizeof meaning, "below the %u-byte minimum for data (BP-ALIGN-2)",
             (unsigned)HURRAY_MIN_BUFFER_ALIGNMENT);
  } else {
    snprintf(meaning, sizeof meaning, "base address is a multiple of %" PRIu32, f->alignment);
  }
  row(out, h->offset + 8u, h->bytes + 8, 4, "alignment", value, meaning,
      verdict(v[INSPECT_FIELD_ALIGNMENT]));

  char name[32];
  hurray_device_tag_display(f->device_tag, name, sizeof name);
  snprintf(value, sizeof value, "%s", name);
  /* A colocation failure (BP-COLOC-2) belongs to the table, but the row of
   * the field that differs is where a reader looks for it. */
  bool mismatch_here = r->error.index == index && h->status == HURRAY_OK;
  bool tag_mismatch = mismatch_here && r->status == HURRAY_ERR_DEVICE_TAG_MISMATCH;
  bool class_mismatch = mismatch_here && r->status == HURRAY_ERR_MEMORY_CLASS_MISMATCH;
  char differs[96];
  hurray_device_tag_display((uint8_t)r->error.expected, name, sizeof name);
  snprintf(differs, sizeof differs, "differs from handle 0's %s (BP-COLOC-2)", name);
  row(out, h->offset + 12u, h->bytes + 12, 1, "device_tag", value,
      tag_mismatch ? differs : device_meaning(f->device_tag),
      tag_mismatch ? hurray_status_name(r->status) : verdict(v[INSPECT_FIELD_DEVICE_TAG]));

  hurray_sync_mode_display(f->sync_mode, name, sizeof name);
  snprintf(value, sizeof value, "%s", name);
  const char *sync_text = sync_meaning(f->sync_mode);
  if (v[INSPECT_FIELD_SYNC_MODE] == HURRAY_ERR_INVALID_SYNC_MODE &&
      f->sync_mode <= HURRAY_SYNC_CONSUMER_STREAM) {
    sync_text = "a CPU buffer must be producer_synced (BP-SYNC-2)";
  }
  row(out, h->offset + 13u, h->bytes + 13, 1, "sync_mode", value, sync_text,
      verdict(v[INSPECT_FIELD_SYNC_MODE]));

  hurray_memory_class_display(f->memory_class, name, sizeof name);
  snprintf(value, sizeof value, "%s", name);
  const char *class_text = class_meaning(f->memory_class);
  if (v[INSPECT_FIELD_MEMORY_CLASS] == HURRAY_ERR_INVALID_PAIR) {
    class_text = "not valid on this device (BP-PAIR-1..3)";
  }
  if (class_mismatch) {
    hurray_memory_class_display((uint8_t)r->error.expected, name, sizeof name);
    snprintf(differs, sizeof differs, "differs from handle 0's %s (BP-COLOC-2)", name);
    class_text = differs;
  }
  row(out, h->offset + 14u, h->bytes + 14, 1, "memory_class", value, class_text,
      class_mismatch ? hurray_status_name(r->status) : verdict(v[INSPECT_FIELD_MEMORY_CLASS]));

  snprintf(value, sizeof value, "0x%02X", h->reserved);
  row(out, h->offset + 15u, h->bytes + 15, 1, "reserved", value, "must be 0x00 (BP-WIRE-2)",
      verdict(v[INSPECT_FIELD_RESERVED]));

  char line[320];
  if (h->status != HURRAY_OK) {
    char message[256];
    hurray_error_format(&h->error, message, sizeof message);
    /* libhurray's message already names the handle. */
    snprintf(line, sizeof line, "REJECTED %s: %s", hurray_status_name(h->status), message);
  } else if (tag_mismatch || class_mismatch) {
    snprintf(line, sizeof line, "handle %zu: valid alone, but not colocated with handle 0 (%s)",
             index, hurray_status_name(r->status));
  } else {
    snprintf(line, sizeof line, "handle %zu: valid", index);
  }
  note(out, line);
}

/* Bytes that belong to no complete handle: an incomplete handle, or bytes
 * after the table. */
static void extra_rows(text_sink *out, const inspect_result *r, const char *field,
                       const char *meaning, const char *judgement) {
  if (r->extra_len == 0u) {
    return;
  }
  char value[64]; /* "%zu bytes" (up to 26) and shown (up to 23) */
  size_t n = r->extra_len;
  char shown[24] = "";
  if (n > INSPECT_EXTRA_BYTES_KEPT) {
    snprintf(shown, sizeof shown, " (%u shown)", (unsigned)INSPECT_EXTRA_BYTES_KEPT);
  }
  snprintf(value, sizeof value, "%zu byte%s%s", n, n == 1u ? "" : "s", shown);
  row(out, r->extra_offset, r->extra_bytes,
      n < INSPECT_EXTRA_BYTES_KEPT ? n : INSPECT_EXTRA_BYTES_KEPT, field, value, meaning,
      judgement);
}

size_t inspect_write_text_report(const inspect_result *r, const char *input_name, char *buf,
                                 size_t cap) {
  text_sink out;
  text_sink_init(&out, buf, cap);
  bool table = r->kind == INSPECT_INPUT_TABLE;
  text_sink_printf(&out, "%s from ", table ? "buffer table" : "buffer handle");
  if (input_name != NULL) {
    text_sink_escaped(&out, input_name, strlen(input_name)); /* CLI-OUT-2 */
  } else {
    text_sink_puts(&out, "(memory)");
  }
  text_sink_printf(&out, ": %zu byte%s\n\n", r->input_len, r->input_len == 1u ? "" : "s");
  header(&out);

  if (table) {
    if (r->has_count) {
      char value[16];
      char meaning[96];
      snprintf(value, sizeof value, "%u", (unsigned)r->count);
      snprintf(meaning, sizeof meaning, "%u handle%s; the table is %zu bytes (BP-TABLE-1)",
               (unsigned)r->count, r->count == 1u ? "" : "s", r->expected_len);
      const char *judgement = "ok";
      if (r->status == HURRAY_ERR_TRUNCATED || r->status == HURRAY_ERR_EMPTY_BUFFER_LIST) {
        judgement = hurray_status_name(r->status);
      }
      row(&out, 0, &r->count, 1, "count", value, meaning, judgement);
    } else {
      row(&out, 0, NULL, 0, "count", "(missing)", "no count byte: the input is empty",
          hurray_status_name(r->status));
    }
  }
  for (size_t i = 0; i < r->handle_count; i++) {
    handle_rows(&out, &r->handles[i], i, r);
  }
  if (r->extra_is_trailing) {
    extra_rows(&out, r, "trailing",
               table ? "bytes after the table (BP-TABLE-6)"
                     : "bytes after the handle (CLI-INPUT-2)",
               r->status == HURRAY_ERR_TRAILING_BYTES ? "TRAILING_BYTES" : "-");
  } else {
    char meaning[64];
    snprintf(meaning, sizeof meaning, "handle %zu is cut short: %zu of 16 bytes", r->handle_count,
             r->extra_len);
    extra_rows(&out, r, "(incomplete)", meaning, verdict(r->status));
  }
  text_sink_puts(&out, "\n");
  if (r->status == HURRAY_OK) {
    char device[32];
    char memory_class[32];
    hurray_device_tag_display(r->handles[0].fields.device_tag, device, sizeof device);
    hurray_memory_class_display(r->handles[0].fields.memory_class, memory_class,
                                sizeof memory_class);
    if (table && r->handle_count == 0u) { /* BP-TABLE-7: no handle, so no placement */
      text_sink_printf(&out, "verdict: VALID table of 0 handles (--allow-empty-table)\n");
    } else if (table) {
      text_sink_printf(&out, "verdict: VALID table of %zu handle%s on %s, %s memory\n",
                       r->handle_count, r->handle_count == 1u ? "" : "s", device, memory_class);
    } else {
      text_sink_printf(&out, "verdict: VALID handle on %s, %s memory\n", device, memory_class);
    }
  } else {
    text_sink_printf(&out, "verdict: REJECTED %s: %s\n", hurray_status_name(r->status), r->message);
  }
  return out.len;
}

size_t inspect_escape_name(const char *name, size_t len, char *buf, size_t cap) {
  text_sink out;
  text_sink_init(&out, buf, cap);
  if (name != NULL) {
    text_sink_escaped(&out, name, len);
  }
  return out.len;
}
