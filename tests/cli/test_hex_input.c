/*
 * hurray-inspect hex text parsing (specs/cli.md CLI-HEX-1..4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "check_main.h"

/* Parses a NUL-terminated text into out[0..cap). */
static inspect_hex_status parse(const char *text, uint8_t *out, size_t cap, size_t *len,
                                inspect_hex_error *err) {
  return inspect_parse_hex(text, strlen(text), out, cap, len, err);
}

/* Parses `text`, which must give exactly want[0..n). */
static void expect_bytes(const char *text, const uint8_t *want, size_t n) {
  uint8_t out[8];
  size_t len = 99;
  const inspect_hex_status status = parse(text, out, sizeof out, &len, NULL);
  ck_assert_msg(status == INSPECT_HEX_OK, "\"%s\": status %d", text, (int)status);
  ck_assert_msg(len == n, "\"%s\": %zu bytes, expected %zu", text, len, n);
  ck_assert_mem_eq(out, want, n);
}

/* Parses `text`, which must fail with `status` at `line` and `column` and
 * leave the length untouched; returns the error for further checks. */
static inspect_hex_error expect_failure_at(const char *text, inspect_hex_status status, size_t line,
                                           size_t column) {
  uint8_t out[8];
  size_t len = 77;
  inspect_hex_error err;
  const inspect_hex_status got = parse(text, out, sizeof out, &len, &err);
  ck_assert_msg(got == status && err.status == status,
                "\"%s\": status %d (error says %d), expected %d", text, (int)got, (int)err.status,
                (int)status);
  ck_assert_msg(err.line == line && err.column == column,
                "\"%s\": line %zu column %zu, expected line %zu column %zu", text, err.line,
                err.column, line, column);
  ck_assert_msg(len == 77, "\"%s\": the length was written on failure: %zu", text, len);
  return err;
}

START_TEST(test_hex_pairs_both_cases) {
  /* CLI-HEX-1: two digits a byte, most significant first, either case. */
  const uint8_t want[] = {0x00, 0xFF, 0x7F, 0xA0, 0xBC};
  expect_bytes("00ff7Fa0Bc", want, sizeof want);
}
END_TEST

START_TEST(test_hex_whitespace_everywhere) {
  /* CLI-HEX-2: every ASCII whitespace character, even inside a byte. */
  const uint8_t want[] = {0x01, 0x02, 0x34};
  expect_bytes(" 0\t1\n\r0 2\v\f 3\n4  ", want, sizeof want);
}
END_TEST

START_TEST(test_hex_comments) {
  /* CLI-HEX-2: '#' to end of line; digits and bad characters inside are ignored. */
  const uint8_t want[] = {0x01, 0x02};
  expect_bytes("# header zz 0x\n01 # one\n  # only a comment\n02#two", want, sizeof want);
}
END_TEST

START_TEST(test_hex_odd_digit_count) {
  /* CLI-HEX-3: the unpaired last digit is named by offset, line, column;
   * the length is untouched on failure. */
  const inspect_hex_error err = expect_failure_at("01\n02 3", INSPECT_HEX_ODD_DIGITS, 2, 4);
  ck_assert_uint_eq(err.offset, 6);
}
END_TEST

START_TEST(test_hex_bad_character) {
  /* CLI-HEX-2, CLI-HEX-3: "0x" is not accepted; 'x' is reported where it is. */
  const inspect_hex_error err = expect_failure_at("01\n  0x02", INSPECT_HEX_BAD_CHARACTER, 2, 4);
  ck_assert_uint_eq(err.character, 'x');
  ck_assert_uint_eq(err.offset, 6);
  char message[256];
  inspect_hex_error_format(&err, message, sizeof message);
  ck_assert_ptr_nonnull(strstr(message, "'x'"));
  ck_assert_ptr_nonnull(strstr(message, "offset 6"));
  ck_assert_ptr_nonnull(strstr(message, "line 2"));
  ck_assert_ptr_nonnull(strstr(message, "column 4"));
}
END_TEST

START_TEST(test_hex_bad_character_unprintable) {
  /* A NUL inside the text is a bad character at its offset, not the end. */
  const char text[] = {'0', '1', '\0', '0', '2'};
  uint8_t out[8];
  size_t len = 0;
  inspect_hex_error err;
  ck_assert_int_eq(inspect_parse_hex(text, sizeof text, out, sizeof out, &len, &err),
                   INSPECT_HEX_BAD_CHARACTER);
  ck_assert_uint_eq(err.character, 0);
  ck_assert_uint_eq(err.offset, 2);
  char message[256];
  inspect_hex_error_format(&err, message, sizeof message);
  ck_assert_ptr_nonnull(strstr(message, "0x00"));
}
END_TEST

START_TEST(test_hex_every_byte_value) {
  /* Every character: hex digits and whitespace pass, all else is bad. */
  for (unsigned c = 0; c < 256u; c++) {
    char text[3] = {(char)c, '0', '0'};
    uint8_t out[4];
    size_t len = 0;
    inspect_hex_error err;
    inspect_hex_status status = inspect_parse_hex(text, sizeof text, out, sizeof out, &len, &err);
    bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (digit) {
      /* three digits: odd */
      ck_assert_int_eq(status, INSPECT_HEX_ODD_DIGITS);
    } else if (space) {
      ck_assert_int_eq(status, INSPECT_HEX_OK);
      ck_assert_uint_eq(len, 1);
    } else if (c == '#') {
      ck_assert_int_eq(status, INSPECT_HEX_OK); /* comment swallows the rest */
      ck_assert_uint_eq(len, 0);
    } else {
      ck_assert_int_eq(status, INSPECT_HEX_BAD_CHARACTER);
      ck_assert_uint_eq(err.character, c);
      ck_assert_uint_eq(err.offset, 0);
    }
  }
}
END_TEST

START_TEST(test_hex_empty_input) {
  /* CLI-HEX-4: no digits is zero bytes, not an error; NULL text with length 0 too. */
  uint8_t out[4];
  size_t len = 5;
  ck_assert_int_eq(parse("", out, sizeof out, &len, NULL), INSPECT_HEX_OK);
  ck_assert_uint_eq(len, 0);
  len = 5;
  ck_assert_int_eq(parse("  \n# nothing here\n\t", out, sizeof out, &len, NULL), INSPECT_HEX_OK);
  ck_assert_uint_eq(len, 0);
  len = 5;
  ck_assert_int_eq(inspect_parse_hex(NULL, 0, out, sizeof out, &len, NULL), INSPECT_HEX_OK);
  ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(test_hex_capacity) {
  uint8_t out[2] = {0, 0};
  size_t len = 0;
  inspect_hex_error err;
  ck_assert_int_eq(parse("01 02 03", out, sizeof out, &len, &err), INSPECT_HEX_CAPACITY);
  ck_assert_uint_eq(err.offset, 6); /* the first digit of the byte that did not fit */
  /* inspect_hex_max_bytes() is always enough */
  const char *text = "0102 03";
  ck_assert_uint_ge(inspect_hex_max_bytes(strlen(text)), 3);
  uint8_t big[3];
  ck_assert_int_eq(parse(text, big, inspect_hex_max_bytes(strlen(text)), &len, NULL),
                   INSPECT_HEX_OK);
  ck_assert_uint_eq(len, 3);
}
END_TEST

START_TEST(test_hex_null_arguments) {
  uint8_t out[2];
  size_t len = 0;
  inspect_hex_error err;
  ck_assert_int_eq(inspect_parse_hex(NULL, 2, out, sizeof out, &len, &err),
                   INSPECT_HEX_NULL_ARGUMENT);
  ck_assert_int_eq(inspect_parse_hex("00", 2, out, sizeof out, NULL, &err),
                   INSPECT_HEX_NULL_ARGUMENT);
  ck_assert_int_eq(inspect_parse_hex("00", 2, NULL, 1, &len, &err), INSPECT_HEX_NULL_ARGUMENT);
}
END_TEST

START_TEST(test_hex_error_format_truncates) {
  inspect_hex_error err = {INSPECT_HEX_ODD_DIGITS, 12, 1, 13, 0};
  char full[256];
  size_t n = inspect_hex_error_format(&err, full, sizeof full);
  ck_assert_uint_eq(n, strlen(full));
  char small[8];
  ck_assert_uint_eq(inspect_hex_error_format(&err, small, sizeof small), n);
  ck_assert_uint_eq(strlen(small), sizeof small - 1u);
  ck_assert_uint_eq(inspect_hex_error_format(&err, NULL, 0), n);
}
END_TEST

START_TEST(test_hex_line_breaks_cr_lf_crlf) {
  /* CLI-HEX-3: CR, LF and CRLF each end one line, for positions and for the
   * end of a comment (CLI-HEX-2). */
  ck_assert_uint_eq(expect_failure_at("01\r02\r x", INSPECT_HEX_BAD_CHARACTER, 3, 2).offset, 7);
  expect_failure_at("01\r\n02\r\n x", INSPECT_HEX_BAD_CHARACTER, 3, 2);
  /* Mixed: LF, CR, CRLF, then CR right before the bad character. */
  expect_failure_at("0\n1\r2\r\n3\rz", INSPECT_HEX_BAD_CHARACTER, 5, 1);
  expect_failure_at("01\r\r0", INSPECT_HEX_ODD_DIGITS, 3, 1);
  /* A comment ends at a lone CR: the digits on the next line count. */
  const uint8_t want[] = {0x01, 0x02};
  expect_bytes("# head\r01 # one\r02", want, sizeof want);
}
END_TEST

static Suite *hex_suite(void) {
  Suite *s = suite_create("cli_hex_input");
  TCase *t = hurray_check_case(s, "parse", NULL, NULL, 0);
  tcase_add_test(t, test_hex_pairs_both_cases);
  tcase_add_test(t, test_hex_whitespace_everywhere);
  tcase_add_test(t, test_hex_comments);
  tcase_add_test(t, test_hex_line_breaks_cr_lf_crlf);
  tcase_add_test(t, test_hex_odd_digit_count);
  tcase_add_test(t, test_hex_bad_character);
  tcase_add_test(t, test_hex_bad_character_unprintable);
  tcase_add_test(t, test_hex_every_byte_value);
  tcase_add_test(t, test_hex_empty_input);
  tcase_add_test(t, test_hex_capacity);
  tcase_add_test(t, test_hex_null_arguments);
  tcase_add_test(t, test_hex_error_format_truncates);
  return s;
}

int main(void) { return hurray_check_run(hex_suite()); }
