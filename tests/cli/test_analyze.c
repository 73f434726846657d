/*
 * hurray-inspect's analysis and text report: the verdicts on the input, on
 * each handle and on each field, with the payloads specs/buffer-protocol.md
 * and specs/cli.md give.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "wire_builder.h"
#include "check_main.h"

static inspect_result r;

static void assert_fields(const inspect_handle_view *h, hurray_status size, hurray_status align,
                          hurray_status tag, hurray_status sync, hurray_status memory_class,
                          hurray_status reserved) {
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_BYTE_SIZE], size);
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_ALIGNMENT], align);
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_DEVICE_TAG], tag);
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_SYNC_MODE], sync);
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_MEMORY_CLASS], memory_class);
  ck_assert_int_eq(h->field_status[INSPECT_FIELD_RESERVED], reserved);
}

static hurray_status analyze_handle(uint64_t size, uint32_t align, uint8_t tag, uint8_t sync,
                                    uint8_t memory_class, uint8_t reserved) {
  uint8_t h[16];
  wire_put_handle(h, size, align, tag, sync, memory_class, reserved);
  return inspect_analyze(h, sizeof h, INSPECT_INPUT_HANDLE, &r);
}

/* Analyzes the table t[0..len) into r: it must be rejected with `status`,
 * blaming handle `index` for `value`. */
static void expect_table_rejected(const uint8_t *t, size_t len, hurray_status status,
                                  uint64_t index, uint64_t value) {
  ck_assert_int_eq(inspect_analyze(t, len, INSPECT_INPUT_TABLE, &r), status);
  ck_assert_uint_eq(r.error.index, index);
  ck_assert_uint_eq(r.error.value, value);
}

START_TEST(test_valid_handle_fields) {
  ck_assert_int_eq(analyze_handle(1u << 20, 4096, 0x01, 0x01, 0x02, 0), HURRAY_OK);
  ck_assert_uint_eq(r.handle_count, 1);
  ck_assert_uint_eq(r.handles[0].fields.byte_size, 1u << 20);
  ck_assert_uint_eq(r.handles[0].fields.alignment, 4096);
  ck_assert_uint_eq(r.handles[0].fields.device_tag, 0x01);
  ck_assert_uint_eq(r.handles[0].fields.sync_mode, 0x01);
  ck_assert_uint_eq(r.handles[0].fields.memory_class, 0x02);
  assert_fields(&r.handles[0], HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_OK);
  ck_assert_str_eq(r.message, "");
  ck_assert_int_eq(r.error.status, HURRAY_OK);
}
END_TEST

START_TEST(test_cpu_sync_rule_blames_sync_field) {
  /* BP-SYNC-2: a CPU buffer must be producer_synced (value: the mode, expected: 0). */
  ck_assert_int_eq(analyze_handle(64, 64, 0x00, 0x01, 0x00, 0), HURRAY_ERR_INVALID_SYNC_MODE);
  ck_assert_uint_eq(r.error.value, 0x01);
  ck_assert_uint_eq(r.error.expected, 0x00);
  assert_fields(&r.handles[0], HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_ERR_INVALID_SYNC_MODE,
                HURRAY_OK, HURRAY_OK);
}
END_TEST

START_TEST(test_pair_blames_class_field) {
  /* BP-PAIR-1: webgpu has only standard memory; BP-PAIR-2: named devices never
   * pair with a private class. */
  ck_assert_int_eq(analyze_handle(64, 64, 0x05, 0x00, 0x01, 0), HURRAY_ERR_INVALID_PAIR);
  ck_assert_uint_eq(r.error.value, 0x01);
  ck_assert_uint_eq(r.error.expected, 0x05);
  assert_fields(&r.handles[0], HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_OK, HURRAY_ERR_INVALID_PAIR,
                HURRAY_OK);
  ck_assert_int_eq(analyze_handle(64, 64, 0x01, 0x00, 0xF0, 0), HURRAY_ERR_INVALID_PAIR);
  ck_assert_int_eq(r.handles[0].field_status[INSPECT_FIELD_MEMORY_CLASS], HURRAY_ERR_INVALID_PAIR);
  /* BP-PAIR-2: a private tag with a private class is valid. */
  ck_assert_int_eq(analyze_handle(64, 64, 0xF3, 0x02, 0xFE, 0), HURRAY_OK);
}
END_TEST

START_TEST(test_every_fault_shown_first_one_decides) {
  /* Reserved byte, reserved tag, undefined sync, reserved class and a
   * non-power-of-two alignment at once: each field shows its own fault, the
   * handle gets the first of BP-ORDER-1 (the reserved byte). */
  ck_assert_int_eq(analyze_handle(100, 48, 0x20, 0x07, 0x30, 0x01),
                   HURRAY_ERR_RESERVED_BYTE_NONZERO);
  ck_assert_uint_eq(r.error.value, 0x01);
  assert_fields(&r.handles[0], HURRAY_OK, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO,
                HURRAY_ERR_RESERVED_DEVICE_TAG, HURRAY_ERR_INVALID_SYNC_MODE,
                HURRAY_ERR_RESERVED_MEMORY_CLASS, HURRAY_ERR_RESERVED_BYTE_NONZERO);
  ck_assert_int_eq(r.handles[0].status, HURRAY_ERR_RESERVED_BYTE_NONZERO);
  /* Without the reserved byte, the tag is next (BP-ORDER-1 step 2). */
  ck_assert_int_eq(analyze_handle(100, 48, 0xFF, 0x07, 0xFF, 0x00), HURRAY_ERR_INVALID_DEVICE_TAG);
  ck_assert_int_eq(r.handles[0].field_status[INSPECT_FIELD_MEMORY_CLASS],
                   HURRAY_ERR_INVALID_MEMORY_CLASS);
}
END_TEST

START_TEST(test_alignment_depends_on_size) {
  /* BP-ALIGN-2, BP-ALIGN-3: 32 is fine for an empty buffer, too small otherwise. */
  ck_assert_int_eq(analyze_handle(0, 32, 0x00, 0x00, 0x00, 0), HURRAY_OK);
  ck_assert_int_eq(analyze_handle(1, 32, 0x00, 0x00, 0x00, 0), HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  ck_assert_uint_eq(r.error.value, 32);
  ck_assert_uint_eq(r.error.expected, 64);
  ck_assert_int_eq(r.handles[0].field_status[INSPECT_FIELD_ALIGNMENT],
                   HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  /* BP-ALIGN-1: 0 is not a power of two, even when empty. */
  ck_assert_int_eq(analyze_handle(0, 0, 0x00, 0x00, 0x00, 0),
                   HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
}
END_TEST

START_TEST(test_handle_input_length) {
  /* CLI-INPUT-2 */
  uint8_t b[40];
  wire_put_handle(b, 64, 64, 0x00, 0x00, 0x00, 0);
  memset(b + 16, 0xEE, sizeof b - 16u);
  ck_assert_int_eq(inspect_analyze(b, 15, INSPECT_INPUT_HANDLE, &r), HURRAY_ERR_TRUNCATED);
  ck_assert_uint_eq(r.error.value, 15);
  ck_assert_uint_eq(r.error.expected, 16);
  ck_assert_uint_eq(r.handle_count, 0);
  ck_assert_uint_eq(r.extra_len, 15);
  ck_assert(!r.extra_is_trailing);
  ck_assert_int_eq(inspect_analyze(b, 17, INSPECT_INPUT_HANDLE, &r), HURRAY_ERR_TRAILING_BYTES);
  ck_assert_uint_eq(r.error.value, 17);
  ck_assert_uint_eq(r.error.expected, 16);
  ck_assert_uint_eq(r.handle_count, 1);
  ck_assert_uint_eq(r.extra_len, 1);
  ck_assert(r.extra_is_trailing);
  /* The message is about a handle, with what was expected and found. */
  ck_assert_msg(strstr(r.message, "table") == NULL, "%s", r.message);
  ck_assert_str_eq(r.message,
                   "1 trailing byte: a buffer handle is exactly 16 bytes, the input is 17");
  ck_assert_int_eq(inspect_analyze(b, 40, INSPECT_INPUT_HANDLE, &r), HURRAY_ERR_TRAILING_BYTES);
  ck_assert_str_eq(r.message,
                   "24 trailing bytes: a buffer handle is exactly 16 bytes, the input is 40");
  /* A rejected handle is reported before the bytes after it. */
  b[15] = 0x02;
  ck_assert_int_eq(inspect_analyze(b, 17, INSPECT_INPUT_HANDLE, &r),
                   HURRAY_ERR_RESERVED_BYTE_NONZERO);
  ck_assert_int_eq(inspect_analyze(NULL, 0, INSPECT_INPUT_HANDLE, &r), HURRAY_ERR_TRUNCATED);
  ck_assert_uint_eq(r.error.value, 0);
}
END_TEST

START_TEST(test_table_length_rules) {
  uint8_t t[64];
  memset(t, 0, sizeof t);
  /* BP-TABLE-2: empty input. */
  ck_assert_int_eq(inspect_analyze(t, 0, INSPECT_INPUT_TABLE, &r), HURRAY_ERR_TRUNCATED);
  ck_assert_uint_eq(r.error.value, 0);
  ck_assert_uint_eq(r.error.expected, 1);
  ck_assert(!r.has_count);
  /* BP-TABLE-3: count 0. */
  ck_assert_int_eq(inspect_analyze(t, 1, INSPECT_INPUT_TABLE, &r), HURRAY_ERR_EMPTY_BUFFER_LIST);
  ck_assert(r.has_count);
  /* BP-TABLE-2: count 2 but 20 bytes: 33 needed; the complete handle is shown. */
  t[0] = 2;
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0x00, 0x00, 0x00, 0);
  ck_assert_int_eq(inspect_analyze(t, 20, INSPECT_INPUT_TABLE, &r), HURRAY_ERR_TRUNCATED);
  ck_assert_uint_eq(r.error.value, 20);
  ck_assert_uint_eq(r.error.expected, 33);
  ck_assert_uint_eq(r.expected_len, 33);
  ck_assert_uint_eq(r.handle_count, 1);
  ck_assert_uint_eq(r.extra_offset, 17);
  ck_assert_uint_eq(r.extra_len, 3);
  ck_assert(!r.extra_is_trailing);
  /* BP-TABLE-6: a valid 1-handle table and 5 bytes more. */
  t[0] = 1;
  ck_assert_int_eq(inspect_analyze(t, 22, INSPECT_INPUT_TABLE, &r), HURRAY_ERR_TRAILING_BYTES);
  ck_assert_uint_eq(r.error.value, 22);
  ck_assert_uint_eq(r.error.expected, 17);
  ck_assert(r.extra_is_trailing);
  ck_assert_uint_eq(r.extra_len, 5);
  /* BP-TABLE-6 applies after the table is found valid: a bad handle wins. */
  wire_table_handle(t, 0)[12] = 0x09;
  ck_assert_int_eq(inspect_analyze(t, 22, INSPECT_INPUT_TABLE, &r), HURRAY_ERR_RESERVED_DEVICE_TAG);
}
END_TEST

START_TEST(test_table_handle_error_index) {
  /* BP-TABLE-5: the first failing handle, with its position. */
  uint8_t t[1 + 16 * 4];
  t[0] = 4;
  for (unsigned i = 0; i < 4u; i++) {
    wire_put_handle(wire_table_handle(t, i), 64, 64, 0x04, 0x00, 0x00, 0);
  }
  wire_put_handle(wire_table_handle(t, 2), 64, 63, 0x04, 0x00, 0x00, 0);
  wire_put_handle(wire_table_handle(t, 3), 64, 64, 0x04, 0x09, 0x00, 0);
  expect_table_rejected(t, sizeof t, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 2, 63);
  ck_assert_uint_eq(r.handle_count, 4);
  /* Each handle's own verdict, with its own index. */
  ck_assert_int_eq(r.handles[0].status, HURRAY_OK);
  ck_assert_int_eq(r.handles[2].status, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  ck_assert_uint_eq(r.handles[2].error.index, 2);
  ck_assert_int_eq(r.handles[3].status, HURRAY_ERR_INVALID_SYNC_MODE);
  ck_assert_uint_eq(r.handles[3].error.index, 3);
  ck_assert_uint_eq(r.handles[3].offset, 1u + 16u * 3u);
}
END_TEST

START_TEST(test_table_colocation) {
  /* BP-COLOC-2: device before class, first mismatch wins. */
  uint8_t t[1 + 16 * 3];
  t[0] = 3;
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0x07, 0x00, 0x01, 0);
  wire_put_handle(wire_table_handle(t, 1), 64, 64, 0x07, 0x00, 0x02, 0);
  wire_put_handle(wire_table_handle(t, 2), 64, 64, 0x08, 0x00, 0x01, 0);
  expect_table_rejected(t, sizeof t, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 1, 0x02);
  ck_assert_uint_eq(r.error.expected, 0x01);
  wire_table_handle(t, 1)[14] = 0x01;
  expect_table_rejected(t, sizeof t, HURRAY_ERR_DEVICE_TAG_MISMATCH, 2, 0x08);
  ck_assert_uint_eq(r.error.expected, 0x07);
  ck_assert_ptr_nonnull(strstr(r.message, "0x08"));
  ck_assert_ptr_nonnull(strstr(r.message, "0x07"));
}
END_TEST

START_TEST(test_table_of_255) {
  /* BP-TABLE-1: the largest table. */
  static uint8_t t[1 + 16 * 255];
  t[0] = 255;
  for (unsigned i = 0; i < 255u; i++) {
    wire_put_handle(wire_table_handle(t, i), i, 64, 0x02, 0x02, 0x03, 0);
  }
  ck_assert_int_eq(inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &r), HURRAY_OK);
  ck_assert_uint_eq(r.handle_count, 255);
  ck_assert_uint_eq(r.handles[254].fields.byte_size, 254);
  ck_assert_uint_eq(r.extra_len, 0);
  size_t n = inspect_write_text_report(&r, "big", NULL, 0);
  char *text = malloc(n + 1u);
  ck_assert_ptr_nonnull(text);
  ck_assert_uint_eq(inspect_write_text_report(&r, "big", text, n + 1u), n);
  ck_assert_uint_eq(strlen(text), n);
  ck_assert_ptr_nonnull(strstr(text, "handle 254 (bytes 4065..4080)"));
  ck_assert_ptr_nonnull(strstr(text, "verdict: VALID table of 255 handles on rocm, peer memory"));
  free(text);
}
END_TEST

/* The report line that holds `field`, searched from `from`. */
static const char *line_of(const char *text, const char *from_marker, const char *field, char *line,
                           size_t cap) {
  const char *from = strstr(text, from_marker);
  ck_assert_ptr_nonnull(from);
  const char *p = strstr(from, field);
  ck_assert_ptr_nonnull(p);
  while (p > text && p[-1] != '\n') {
    p--;
  }
  size_t n = strcspn(p, "\n");
  ck_assert_uint_lt(n, cap);
  memcpy(line, p, n);
  line[n] = '\0';
  return line;
}

START_TEST(test_text_report_rows) {
  static char text[16384];
  char line[512];
  uint8_t t[1 + 16 * 2];
  t[0] = 2;
  wire_put_handle(wire_table_handle(t, 0), 4096, 4096, 0x01, 0x01, 0x00, 0);
  wire_put_handle(wire_table_handle(t, 1), 64, 64, 0x01, 0x00, 0x01, 0);
  inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &r);
  inspect_write_text_report(&r, "two.bin", text, sizeof text);
  ck_assert_ptr_nonnull(strstr(text, "buffer table from two.bin: 33 bytes"));
  line_of(text, "handle 0 (", "alignment", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "00 10 00 00"));
  ck_assert_ptr_nonnull(strstr(line, "4096"));
  ck_assert_ptr_nonnull(strstr(line, " ok"));
  /* The field that breaks colocation carries the verdict on its own row. */
  line_of(text, "handle 1 (", "memory_class", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "host_pinned"));
  ck_assert_ptr_nonnull(strstr(line, "MEMORY_CLASS_MISMATCH"));
  ck_assert_ptr_nonnull(strstr(line, "    31  01"));
  ck_assert_ptr_nonnull(strstr(text, "verdict: REJECTED MEMORY_CLASS_MISMATCH: handle 1:"));

  /* A field-level fault: the row of that field and the handle's verdict. */
  uint8_t h[16];
  wire_put_handle(h, 64, 64, 0x00, 0x02, 0x00, 0);
  inspect_analyze(h, sizeof h, INSPECT_INPUT_HANDLE, &r);
  inspect_write_text_report(&r, NULL, text, sizeof text);
  ck_assert_ptr_nonnull(strstr(text, "buffer handle from (memory): 16 bytes"));
  line_of(text, "handle 0 (", "sync_mode", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "consumer_stream"));
  ck_assert_ptr_nonnull(strstr(line, "INVALID_SYNC_MODE"));
  line_of(text, "handle 0 (", "device_tag", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, " ok"));
  ck_assert_ptr_nonnull(strstr(text, "REJECTED INVALID_SYNC_MODE: handle 0:"));
}
END_TEST

START_TEST(test_text_report_extra_bytes) {
  static char text[8192];
  char line[512];
  uint8_t t[1 + 16 + 11];
  memset(t, 0xAB, sizeof t);
  t[0] = 1;
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0x00, 0x00, 0x00, 0);
  inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &r);
  inspect_write_text_report(&r, "x", text, sizeof text);
  line_of(text, "handle 0 (", "trailing", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "11 bytes"));
  ck_assert_ptr_nonnull(strstr(line, "TRAILING_BYTES"));
  ck_assert_ptr_nonnull(strstr(line, "    17  AB AB"));
  /* count 3, 1 handle and 11 bytes: the second handle is cut short. */
  t[0] = 3;
  inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &r);
  inspect_write_text_report(&r, "x", text, sizeof text);
  line_of(text, "handle 0 (", "(incomplete)", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "handle 1 is cut short: 11 of 16 bytes"));
  line_of(text, "offset", "count", line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "TRUNCATED"));
}
END_TEST

START_TEST(test_text_report_truncation) {
  uint8_t t[17] = {1};
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0, 0, 0, 0);
  inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &r);
  size_t n = inspect_write_text_report(&r, "in", NULL, 0);
  char full[8192];
  ck_assert_uint_eq(inspect_write_text_report(&r, "in", full, sizeof full), n);
  for (size_t cap = 1; cap < n + 2u; cap += 37u) {
    char small[8192];
    memset(small, 'Z', sizeof small);
    ck_assert_uint_eq(inspect_write_text_report(&r, "in", small, cap), n);
    size_t kept = cap - 1u < n ? cap - 1u : n;
    ck_assert_uint_eq(strlen(small), kept);
    ck_assert_mem_eq(small, full, kept);
    ck_assert_int_eq(small[cap], 'Z');
  }
}
END_TEST

static Suite *analyze_suite(void) {
  Suite *s = suite_create("cli_analyze");
  TCase *h = tcase_create("handle");
  tcase_add_test(h, test_valid_handle_fields);
  tcase_add_test(h, test_cpu_sync_rule_blames_sync_field);
  tcase_add_test(h, test_pair_blames_class_field);
  tcase_add_test(h, test_every_fault_shown_first_one_decides);
  tcase_add_test(h, test_alignment_depends_on_size);
  tcase_add_test(h, test_handle_input_length);
  suite_add_tcase(s, h);
  TCase *t = tcase_create("table");
  tcase_add_test(t, test_table_length_rules);
  tcase_add_test(t, test_table_handle_error_index);
  tcase_add_test(t, test_table_colocation);
  tcase_add_test(t, test_table_of_255);
  suite_add_tcase(s, t);
  TCase *x = tcase_create("text_report");
  tcase_add_test(x, test_text_report_rows);
  tcase_add_test(x, test_text_report_extra_bytes);
  tcase_add_test(x, test_text_report_truncation);
  suite_add_tcase(s, x);
  return s;
}

int main(void) { return hurray_check_run(analyze_suite()); }
