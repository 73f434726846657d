/*
 * hurray-inspect's JSON output: string escaping (specs/cli.md CLI-JSON-2) and
 * the document shape (CLI-JSON-1), checked with an independent JSON parser.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "json_check.h"
#include "wire_builder.h"
#include "check_main.h"

static char out[65536];

static const char *escape(const char *text, size_t len) {
  size_t n = inspect_json_write_string(text, len, out, sizeof out);
  ck_assert_uint_lt(n, sizeof out);
  ck_assert_uint_eq(n, strlen(out));
  ck_assert_msg(json_check_document(out, n), "not a JSON string: %s", out);
  return out;
}

START_TEST(test_json_escape_specials) {
  ck_assert_str_eq(escape("plain", 5), "\"plain\"");
  ck_assert_str_eq(escape("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
  ck_assert_str_eq(escape("\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
  ck_assert_str_eq(escape("\x01\x1f\x7f", 3), "\"\\u0001\\u001F\\u007F\"");
  ck_assert_str_eq(escape("a\0b", 3), "\"a\\u0000b\"");
  ck_assert_str_eq(escape("", 0), "\"\"");
  ck_assert_str_eq(escape(NULL, 4), "\"\"");
}
END_TEST

START_TEST(test_json_escape_utf8) {
  /* Valid UTF-8 of 2, 3 and 4 bytes passes through unchanged. */
  const char *valid = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF";
  char want[128];
  snprintf(want, sizeof want, "\"%s\"", valid);
  ck_assert_str_eq(escape(valid, strlen(valid)), want);
  /* Invalid: each offending byte becomes U+FFFD. */
  ck_assert_str_eq(escape("\x80", 1), "\"\\uFFFD\"");
  ck_assert_str_eq(escape("\xC0\x80", 2), "\"\\uFFFD\\uFFFD\"");            /* overlong */
  ck_assert_str_eq(escape("\xED\xA0\x80", 3), "\"\\uFFFD\\uFFFD\\uFFFD\""); /* surrogate */
  ck_assert_str_eq(escape("\xF4\x90\x80\x80", 4),
                   "\"\\uFFFD\\uFFFD\\uFFFD\\uFFFD\"");          /* > U+10FFFF */
  ck_assert_str_eq(escape("\xE2\x82", 2), "\"\\uFFFD\\uFFFD\""); /* cut short */
  ck_assert_str_eq(escape("\xF5x", 2), "\"\\uFFFDx\"");
}
END_TEST

START_TEST(test_json_escape_any_bytes) {
  /* Every single byte, and pseudo-random strings, always give valid JSON. */
  for (unsigned b = 0; b < 256u; b++) {
    char c = (char)b;
    escape(&c, 1);
  }
  uint32_t state = 12345u;
  char text[64];
  for (int round = 0; round < 20000; round++) {
    size_t len = (size_t)(round % 64);
    for (size_t i = 0; i < len; i++) {
      state = state * 1103515245u + 12345u;
      text[i] = (char)(state >> 16);
    }
    escape(text, len);
  }
}
END_TEST

START_TEST(test_json_escape_truncation) {
  const char *text = "a\"b\xC3\xA9";
  char full[64];
  size_t n = inspect_json_write_string(text, strlen(text), full, sizeof full);
  for (size_t cap = 0; cap <= n + 1u; cap++) {
    char small[64];
    memset(small, 'Z', sizeof small);
    ck_assert_uint_eq(inspect_json_write_string(text, strlen(text), cap ? small : NULL, cap), n);
    if (cap > 0u) {
      size_t kept = cap - 1u < n ? cap - 1u : n;
      ck_assert_uint_eq(strlen(small), kept);
      ck_assert_mem_eq(small, full, kept);
      ck_assert_int_eq(small[cap], 'Z'); /* nothing written past cap */
    }
  }
}
END_TEST

static inspect_result result;

static const char *json_of(const uint8_t *bytes, size_t len, inspect_input_kind kind) {
  inspect_analyze(bytes, len, kind, &result);
  size_t n = inspect_write_json(&result, out, sizeof out);
  ck_assert_uint_lt(n, sizeof out);
  ck_assert_uint_eq(inspect_write_json(&result, NULL, 0), n);
  ck_assert_msg(json_check_document(out, n), "invalid JSON: %s", out);
  ck_assert_int_eq(out[n - 1u], '\n');
  return out;
}

static size_t occurrences(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
    n++;
  }
  return n;
}

START_TEST(test_json_valid_table) {
  /* BP-TABLE-1: 2 cuda handles, private class avoided: valid. */
  uint8_t t[33];
  t[0] = 2;
  wire_put_handle(wire_table_handle(t, 0), 4096, 4096, 0x01, 0x01, 0x00, 0);
  wire_put_handle(wire_table_handle(t, 1), 0, 1, 0x01, 0x00, 0x00, 0);
  const char *j = json_of(t, sizeof t, INSPECT_INPUT_TABLE);
  ck_assert_ptr_eq(strstr(j, "{\"valid\": true,"), j);
  ck_assert_ptr_nonnull(strstr(j, "\"error\": null}"));
  ck_assert_uint_eq(occurrences(j, "\"byte_size\":"), 2);
  ck_assert_ptr_nonnull(strstr(j,
                               "{\"byte_size\": 4096, \"alignment\": 4096, \"device_tag\": "
                               "\"cuda\", \"device_tag_byte\": 1, \"sync_mode\": \"event\", "
                               "\"memory_class\": \"standard\"}"));
  ck_assert_ptr_nonnull(strstr(j, "{\"byte_size\": 0, \"alignment\": 1,"));
}
END_TEST

START_TEST(test_json_rejected_table) {
  /* BP-COLOC-2: handle 2 is in host_pinned memory, handle 0 standard. */
  uint8_t t[49];
  t[0] = 3;
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0x02, 0x00, 0x00, 0);
  wire_put_handle(wire_table_handle(t, 1), 64, 64, 0x02, 0x00, 0x00, 0);
  wire_put_handle(wire_table_handle(t, 2), 64, 64, 0x02, 0x00, 0x01, 0);
  const char *j = json_of(t, sizeof t, INSPECT_INPUT_TABLE);
  ck_assert_ptr_eq(strstr(j, "{\"valid\": false,"), j);
  ck_assert_uint_eq(occurrences(j, "\"byte_size\":"), 3);
  ck_assert_ptr_nonnull(strstr(j,
                               "\"error\": {\"status\": \"MEMORY_CLASS_MISMATCH\", "
                               "\"value\": 1, \"expected\": 0, \"index\": 2, \"message\": \""));
  ck_assert_ptr_nonnull(strstr(j, "\"memory_class\": \"host_pinned\""));
}
END_TEST

START_TEST(test_json_every_device_byte) {
  /* A handle with each possible tag: valid JSON, the byte as written, the
   * display name libhurray gives it. */
  for (unsigned tag = 0; tag < 256u; tag++) {
    uint8_t h[16];
    wire_put_handle(h, 128, 128, (uint8_t)tag, 0x00, 0x00, 0);
    const char *j = json_of(h, sizeof h, INSPECT_INPUT_HANDLE);
    char want[64];
    snprintf(want, sizeof want, "\"device_tag_byte\": %u,", tag);
    ck_assert_ptr_nonnull(strstr(j, want));
    char name[32];
    hurray_device_tag_display((uint8_t)tag, name, sizeof name);
    snprintf(want, sizeof want, "\"device_tag\": \"%s\",", name);
    ck_assert_ptr_nonnull(strstr(j, want));
    /* BP-DEV-1..4: 0x00..0x08 and 0xF0..0xFE valid with standard; else not. */
    bool valid = tag <= 0x08u || (tag >= 0xF0u && tag <= 0xFEu);
    ck_assert_ptr_nonnull(strstr(j, valid ? "\"valid\": true" : "\"valid\": false"));
  }
}
END_TEST

START_TEST(test_json_truncated_and_empty) {
  /* BP-TABLE-2: no byte at all: 0 available, 1 needed; no handles. */
  const char *j = json_of(NULL, 0, INSPECT_INPUT_TABLE);
  ck_assert_ptr_nonnull(strstr(j, "\"handles\": []"));
  ck_assert_ptr_nonnull(strstr(j, "\"status\": \"TRUNCATED\", \"value\": 0, \"expected\": 1,"));
  /* count 2, 1 complete handle and 3 bytes: 20 available, 33 needed. */
  uint8_t t[20] = {2};
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0, 0, 0, 0);
  j = json_of(t, sizeof t, INSPECT_INPUT_TABLE);
  ck_assert_uint_eq(occurrences(j, "\"byte_size\":"), 1);
  ck_assert_ptr_nonnull(strstr(j, "\"status\": \"TRUNCATED\", \"value\": 20, \"expected\": 33,"));
}
END_TEST

START_TEST(test_json_report_truncation) {
  uint8_t t[17] = {1};
  wire_put_handle(wire_table_handle(t, 0), 64, 64, 0, 0, 0, 0);
  inspect_analyze(t, sizeof t, INSPECT_INPUT_TABLE, &result);
  size_t n = inspect_write_json(&result, NULL, 0);
  char small[40];
  memset(small, 'Z', sizeof small);
  ck_assert_uint_eq(inspect_write_json(&result, small, 20), n);
  ck_assert_uint_eq(strlen(small), 19);
  ck_assert_int_eq(small[20], 'Z');
}
END_TEST

START_TEST(test_json_failure_object) {
  /* CLI-JSON-3: a failure is one object of the CLI-JSON-1 shape. */
  inspect_failure usage = {"USAGE", 0, false, 0, 0, "unknown option '-x'"};
  size_t n = inspect_write_json_failure(&usage, out, sizeof out);
  ck_assert_uint_eq(n, strlen(out));
  ck_assert(json_check_document(out, n));
  ck_assert_str_eq(out,
                   "{\"valid\": false, \"handles\": [], \"error\": {\"status\": \"USAGE\", "
                   "\"value\": 0, \"expected\": 0, \"index\": 0, \"message\": "
                   "\"unknown option '-x'\"}}\n");
  inspect_failure hex = {"BAD_HEX", 4, true, 2, 3, "t.hex: bad \"x\" \\"};
  n = inspect_write_json_failure(&hex, out, sizeof out);
  ck_assert(json_check_document(out, n));
  ck_assert_str_eq(out,
                   "{\"valid\": false, \"handles\": [], \"error\": {\"status\": \"BAD_HEX\", "
                   "\"value\": 4, \"expected\": 0, \"index\": 0, \"line\": 2, \"column\": 3, "
                   "\"message\": \"t.hex: bad \\\"x\\\" \\\\\"}}\n");
  /* snprintf-style: the length without room, a prefix with little. */
  ck_assert_uint_eq(inspect_write_json_failure(&hex, NULL, 0), n);
  char small[8];
  ck_assert_uint_eq(inspect_write_json_failure(&hex, small, sizeof small), n);
  ck_assert_str_eq(small, "{\"valid");
}
END_TEST

START_TEST(test_name_escaping) {
  /* CLI-OUT-2 */
  static const struct {
    const char *name;
    size_t len;
    const char *escaped;
  } cases[] = {
      {"docs/a b.hex", 12, "docs/a b.hex"},
      {"\x1b[31mred", 8, "\\x1B[31mred"},
      {"a\\b", 3, "a\\\\b"},
      {"t\tn\nd\x7f", 6, "t\\x09n\\x0Ad\\x7F"},
      {"a\0b", 3, "a\\x00b"},
      /* Printable UTF-8 kept; C1 controls, bidi overrides, zero-width, BOM and
       * invalid bytes escaped byte by byte. */
      {"donn\xc3\xa9"
       "es",
       8,
       "donn\xc3\xa9"
       "es"},
      {"\xc2\x9b"
       "1m",
       4, "\\xC2\\x9B1m"},
      {"a\xe2\x80\xae"
       "b",
       5, "a\\xE2\\x80\\xAEb"},
      {"\xe2\x80\x8b\xef\xbb\xbf", 6, "\\xE2\\x80\\x8B\\xEF\\xBB\\xBF"},
      {"\xff\xc3(", 3, "\\xFF\\xC3("},
      {"\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const size_t n = inspect_escape_name(cases[i].name, cases[i].len, out, sizeof out);
    ck_assert_uint_eq(n, strlen(out));
    ck_assert_str_eq(out, cases[i].escaped);
  }
  ck_assert_uint_eq(inspect_escape_name("\x01", 1, NULL, 0), 4);
}
END_TEST

static Suite *json_suite(void) {
  Suite *s = suite_create("cli_json_writer");
  TCase *t = tcase_create("escape");
  tcase_add_test(t, test_json_escape_specials);
  tcase_add_test(t, test_json_escape_utf8);
  tcase_add_test(t, test_json_escape_any_bytes);
  tcase_add_test(t, test_json_escape_truncation);
  suite_add_tcase(s, t);
  TCase *d = tcase_create("document");
  tcase_add_test(d, test_json_valid_table);
  tcase_add_test(d, test_json_rejected_table);
  tcase_add_test(d, test_json_every_device_byte);
  tcase_add_test(d, test_json_truncated_and_empty);
  tcase_add_test(d, test_json_report_truncation);
  tcase_add_test(d, test_json_failure_object);
  tcase_add_test(t, test_name_escaping);
  suite_add_tcase(s, d);
  return s;
}

int main(void) { return hurray_check_run(json_suite()); }
