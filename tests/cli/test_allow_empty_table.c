/*
 * hurray-inspect --allow-empty-table (CLI-INPUT-4): the option is parsed for
 * table input only, and the analysis then accepts the zero-count table of a
 * composite head (BP-TABLE-7) and nothing else it would not accept without it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "check_main.h"

static inspect_options options;
static char message[512];
static inspect_result result;

static bool parse2(const char *a, const char *b) {
  static char storage[3][64];
  char *argv[4];
  const char *args[3] = {"hurray-inspect", a, b};
  int argc = b == NULL ? 2 : 3;
  for (int i = 0; i < argc; i++) {
    strcpy(storage[i], args[i]);
    argv[i] = storage[i];
  }
  argv[argc] = NULL;
  memset(&options, 0, sizeof options);
  message[0] = '\0';
  return inspect_parse_arguments(argc, argv, &options, message, sizeof message);
}

START_TEST(test_option_parsed) {
  ck_assert(parse2("--allow-empty-table", "table.bin"));
  ck_assert(options.allow_empty_table);
  ck_assert_int_eq(options.kind, INSPECT_INPUT_TABLE);
  ck_assert(parse2("table.bin", NULL));
  ck_assert(!options.allow_empty_table);
  /* A handle has no count byte: the option makes no sense there. */
  ck_assert(!parse2("--handle", "--allow-empty-table"));
  ck_assert_ptr_nonnull(strstr(message, "--allow-empty-table"));
  /* Inspect only: encode does not know it. */
  ck_assert(!parse2("encode", "--allow-empty-table"));
  ck_assert(!parse2("--allow-empty-table=1", NULL));
}
END_TEST

START_TEST(test_zero_count_table) {
  const uint8_t zero[2] = {0x00, 0x00};
  /* Without the option BP-TABLE-3 holds. */
  ck_assert_int_eq(inspect_analyze(zero, 1, INSPECT_INPUT_TABLE, &result),
                   HURRAY_ERR_EMPTY_BUFFER_LIST);
  ck_assert_int_eq(inspect_analyze_flags(zero, 1, INSPECT_INPUT_TABLE, 0, &result),
                   HURRAY_ERR_EMPTY_BUFFER_LIST);
  /* With it the single byte 00 is a valid table of no handle. */
  ck_assert_int_eq(
      inspect_analyze_flags(zero, 1, INSPECT_INPUT_TABLE, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &result),
      HURRAY_OK);
  ck_assert(result.has_count);
  ck_assert_uint_eq(result.count, 0);
  ck_assert_uint_eq(result.handle_count, 0);
  ck_assert_uint_eq(result.expected_len, 1);
  /* The report names no device or class: there is no handle to take them from. */
  static char report[8192];
  inspect_write_text_report(&result, "zero.bin", report, sizeof report);
  ck_assert_ptr_nonnull(strstr(report, "verdict: VALID table of 0 handles"));
  ck_assert_ptr_null(strstr(report, " on cpu"));
  /* The table is still the whole input (BP-TABLE-6) and needs its byte. */
  ck_assert_int_eq(
      inspect_analyze_flags(zero, 2, INSPECT_INPUT_TABLE, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &result),
      HURRAY_ERR_TRAILING_BYTES);
  ck_assert_uint_eq(result.error.value, 2);
  ck_assert_uint_eq(result.error.expected, 1);
  ck_assert_int_eq(
      inspect_analyze_flags(zero, 0, INSPECT_INPUT_TABLE, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &result),
      HURRAY_ERR_TRUNCATED);
  /* A count of 1 with a bad handle is judged as before. */
  uint8_t one[17] = {1};
  one[1 + 8] = 64; /* alignment 64, byte_size 0: a valid CPU handle */
  ck_assert_int_eq(inspect_analyze_flags(one, sizeof one, INSPECT_INPUT_TABLE,
                                         HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &result),
                   HURRAY_OK);
  one[1 + 15] = 1; /* its reserved byte */
  ck_assert_int_eq(inspect_analyze_flags(one, sizeof one, INSPECT_INPUT_TABLE,
                                         HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &result),
                   HURRAY_ERR_RESERVED_BYTE_NONZERO);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("hurray-inspect --allow-empty-table", "allow empty table", 0,
                           test_option_parsed, test_zero_count_table);
}
