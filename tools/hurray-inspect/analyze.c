/*
 * What the reports print: libhurray's verdict on the whole input
 * (specs/cli.md CLI-INPUT-1, CLI-INPUT-2) and, for every handle present, the
 * verdict on the handle and on each field alone. Every verdict here is the
 * answer of a libhurray call; this file decides no protocol rule itself.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "inspect.h"

static uint64_t load_le(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  for (size_t k = n; k > 0u; k--) {
    v = (v << 8) | p[k - 1u];
  }
  return v;
}

/* A field judged alone: libhurray checks a probe handle in which every other
 * field holds a value known to pass, so the only rule that can fail is the
 * field's own. The probe's base is the empty CPU buffer (BP-ALIGN-3), which
 * every rule accepts. */
static hurray_status probe(uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                           uint8_t sync_mode, uint8_t memory_class) {
  hurray_buffer_handle h = {byte_size, alignment, device_tag, sync_mode, memory_class, 0};
  return hurray_buffer_handle_validate(&h, NULL);
}

static void judge_fields(inspect_handle_view *view) {
  const hurray_buffer_handle *f = &view->fields;
  hurray_status *v = view->field_status;
  uint8_t scratch = 0;

  v[INSPECT_FIELD_BYTE_SIZE] = HURRAY_OK; /* every u64 is a size (BP-WIRE-1) */
  /* BP-ALIGN-1, BP-ALIGN-2 with this handle's size. */
  v[INSPECT_FIELD_ALIGNMENT] = probe(f->byte_size, f->alignment, HURRAY_DEVICE_CPU,
                                     HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_MEMORY_STANDARD);
  /* BP-DEV-2, BP-DEV-4 */
  v[INSPECT_FIELD_DEVICE_TAG] = hurray_device_tag_from_byte(f->device_tag, &scratch, NULL);
  bool tag_ok = v[INSPECT_FIELD_DEVICE_TAG] == HURRAY_OK;

  /* BP-SYNC-1, then the CPU rule BP-SYNC-2 when the tag is acceptable. Every
   * acceptable tag pairs with the standard class (BP-PAIR-1, BP-PAIR-2), so an
   * empty standard probe on this tag can only fail the sync rules. */
  v[INSPECT_FIELD_SYNC_MODE] = hurray_sync_mode_from_byte(f->sync_mode, &scratch, NULL);
  if (v[INSPECT_FIELD_SYNC_MODE] == HURRAY_OK && tag_ok) {
    v[INSPECT_FIELD_SYNC_MODE] = probe(0, 1, f->device_tag, f->sync_mode, HURRAY_MEMORY_STANDARD);
  }

  /* BP-MEM-3, then the pair table BP-PAIR-1..3 when the tag is acceptable. */
  v[INSPECT_FIELD_MEMORY_CLASS] = hurray_memory_class_from_byte(f->memory_class, &scratch, NULL);
  if (v[INSPECT_FIELD_MEMORY_CLASS] == HURRAY_OK && tag_ok &&
      !hurray_pair_is_valid(f->device_tag, f->memory_class)) {
    v[INSPECT_FIELD_MEMORY_CLASS] = HURRAY_ERR_INVALID_PAIR;
  }

  /* BP-WIRE-2: the empty CPU handle's wire form with this reserved byte. */
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  hurray_buffer_handle_encode(&empty, wire);
  wire[15] = view->reserved;
  hurray_buffer_handle decoded;
  v[INSPECT_FIELD_RESERVED] = hurray_buffer_handle_decode(wire, &decoded, NULL);
}

static void view_handle(const uint8_t *bytes, size_t offset, size_t index,
                        inspect_handle_view *view) {
  view->offset = offset;
  memcpy(view->bytes, bytes, HURRAY_BUFFER_HANDLE_SIZE);
  /* The field layout of BP-WIRE-1, read without judging the values. */
  view->fields.byte_size = load_le(bytes, 8);
  view->fields.alignment = (uint32_t)load_le(bytes + 8, 4);
  view->fields.device_tag = bytes[12];
  view->fields.sync_mode = bytes[13];
  view->fields.memory_class = bytes[14];
  view->reserved = bytes[15];
  judge_fields(view);
  hurray_buffer_handle decoded;
  view->status = hurray_buffer_handle_decode(bytes, &decoded, &view->error);
  if (view->status != HURRAY_OK) {
    view->error.index = index;
  }
}

static void set_error(inspect_result *out, hurray_status status, uint64_t value,
                      uint64_t expected) {
  out->error.status = status;
  out->error.value = value;
  out->error.expected = expected;
  out->error.index = 0;
}

static void keep_extra_bytes(const uint8_t *input, size_t len, inspect_result *out) {
  size_t shown = 0; /* bytes the count row and the handle rows cover */
  if (out->kind == INSPECT_INPUT_TABLE) {
    shown = out->has_count ? 1u + HURRAY_BUFFER_HANDLE_SIZE * out->handle_count : 0u;
    out->extra_is_trailing = out->has_count && out->handle_count == out->count;
  } else {
    shown = HURRAY_BUFFER_HANDLE_SIZE * out->handle_count;
    out->extra_is_trailing = out->handle_count == 1u;
  }
  out->extra_offset = shown;
  out->extra_len = len - shown;
  size_t kept = out->extra_len < INSPECT_EXTRA_BYTES_KEPT ? out->extra_len
                                                          : INSPECT_EXTRA_BYTES_KEPT;
  memcpy(out->extra_bytes, input + shown, kept);
}

hurray_status inspect_analyze(const uint8_t *input, size_t len, inspect_input_kind kind,
                              inspect_result *out) {
  return inspect_analyze_flags(input, len, kind, 0, out);
}

hurray_status inspect_analyze_flags(const uint8_t *input, size_t len, inspect_input_kind kind,
                                    uint32_t table_flags, inspect_result *out) {
  static const uint8_t no_input[1] = {0};
  memset(out, 0, sizeof *out);
  out->kind = kind;
  out->input_len = len;
  if (input == NULL || len == 0u) {
    input = no_input;
    len = 0;
  }

  if (kind == INSPECT_INPUT_HANDLE) {
    out->expected_len = HURRAY_BUFFER_HANDLE_SIZE;
    if (len < HURRAY_BUFFER_HANDLE_SIZE) {
      /* CLI-INPUT-2 */
      out->status = HURRAY_ERR_TRUNCATED;
      set_error(out, out->status, len, HURRAY_BUFFER_HANDLE_SIZE);
    } else {
      view_handle(input, 0, 0, &out->handles[0]);
      out->handle_count = 1;
      hurray_buffer_handle decoded;
      out->status = hurray_buffer_handle_decode(input, &decoded, &out->error);
      if (out->status == HURRAY_OK && len > HURRAY_BUFFER_HANDLE_SIZE) {
        out->status = HURRAY_ERR_TRAILING_BYTES;
        set_error(out, out->status, len, HURRAY_BUFFER_HANDLE_SIZE);
      }
    }
  } else {
    if (len >= 1u) {
      out->has_count = true;
      out->count = input[0];
      out->expected_len = hurray_buffer_table_encoded_size(out->count);
      size_t complete = (len - 1u) / HURRAY_BUFFER_HANDLE_SIZE;
      out->handle_count = complete < out->count ? complete : out->count;
      for (size_t i = 0; i < out->handle_count; i++) {
        size_t offset = 1u + HURRAY_BUFFER_HANDLE_SIZE * i;
        view_handle(input + offset, offset, i, &out->handles[i]);
      }
    }
    hurray_buffer_handle decoded[HURRAY_BUFFER_TABLE_MAX_HANDLES];
    size_t count = 0;
    out->status = hurray_buffer_table_decode_exact_flags(
        input, len, decoded, HURRAY_BUFFER_TABLE_MAX_HANDLES, &count, table_flags, &out->error);
  }

  keep_extra_bytes(input, len, out);
  if (out->status == HURRAY_OK) {
    memset(&out->error, 0, sizeof out->error);
  } else if (kind == INSPECT_INPUT_HANDLE && out->status == HURRAY_ERR_TRAILING_BYTES) {
    /* libhurray's TRAILING_BYTES text speaks of a table; this rule is the
     * tool's (CLI-INPUT-2), so is its wording. */
    snprintf(out->message, sizeof out->message,
             "%zu trailing byte%s: a buffer handle is exactly %u bytes, the input is %zu",
             len - HURRAY_BUFFER_HANDLE_SIZE, len - HURRAY_BUFFER_HANDLE_SIZE == 1u ? "" : "s",
             (unsigned)HURRAY_BUFFER_HANDLE_SIZE, len);
  } else {
    hurray_error_format(&out->error, out->message, sizeof out->message);
  }
  return out->status;
}
