/*
 * hurray-inspect run end to end, standard output and standard error apart:
 * exit statuses (specs/cli.md CLI-EXIT-1), one JSON object on every --json
 * exit (CLI-JSON-3), option errors (CLI-OPT-1), the table limit in encode
 * (CLI-ENC-3, BP-TABLE-1), --handle trailing bytes (CLI-INPUT-2), output
 * errors, CR line breaks in hex positions (CLI-HEX-3) and escaped names
 * (CLI-OUT-2).
 *
 * Environment: HURRAY_INSPECT (the binary).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_check.h"
#include "run_capture.h"
#include "wire_builder.h"
#include "check_main.h"

static char *binary(void) {
  char *b = getenv("HURRAY_INSPECT");
  ck_assert_msg(b != NULL, "HURRAY_INSPECT is not set");
  return b;
}

/* Runs hurray-inspect with up to 600 arguments. */
static run_result inspect_run(const char *input, const char *output, const char *const args[],
                              size_t n) {
  static char *argv[602];
  ck_assert_uint_le(n, 600);
  argv[0] = binary();
  for (size_t i = 0; i < n; i++) {
    argv[1 + i] = (char *)(uintptr_t)args[i]; /* posix_spawn does not write them */
  }
  argv[1 + n] = NULL;
  return run_capture(argv, input, output);
}

#define RUN(input, ...)                                        \
  inspect_run(input, NULL, (const char *const[]){__VA_ARGS__}, \
              sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* CLI-JSON-3: exactly one JSON object and a newline on stdout, nothing on
 * stderr, with the status named. */
static void assert_one_json_object(const run_result *r, int exit_status, const char *status) {
  ck_assert_msg(r->status == exit_status, "exit %d, expected %d; stdout: %s stderr: %s", r->status,
                exit_status, r->out, r->err);
  ck_assert_msg(r->out_len > 2u && r->out[0] == '{' && r->out[r->out_len - 1u] == '\n',
                "not one object and a newline: '%s'", r->out);
  ck_assert_ptr_eq(strchr(r->out, '\n'), r->out + r->out_len - 1u);
  ck_assert_msg(json_check_document(r->out, r->out_len), "invalid JSON: %s", r->out);
  ck_assert_msg(r->err_len == 0u, "stderr not empty: %s", r->err);
  if (status == NULL) {
    ck_assert_ptr_nonnull(strstr(r->out, "\"error\": null}"));
  } else {
    char want[64];
    snprintf(want, sizeof want, "\"error\": {\"status\": \"%s\",", status);
    ck_assert_msg(strstr(r->out, want) != NULL, "%s not in %s", want, r->out);
  }
}

static char *temp_dir;

static void setup(void) { temp_dir = run_make_temp_dir(); }

static void teardown(void) { run_remove_temp_dir(temp_dir); }

static char *valid_handle_file(const char *name, size_t extra) {
  uint8_t bytes[64];
  memset(bytes, 0xAB, sizeof bytes);
  wire_put_handle(bytes, 64, 64, 0x00, 0x00, 0x00, 0);
  return run_write_file(temp_dir, name, bytes, 16u + extra);
}

START_TEST(test_json_on_every_exit) {
  char *handle = valid_handle_file("valid.handle", 0);
  char *table_path = NULL;
  {
    uint8_t table[17];
    table[0] = 1;
    wire_put_handle(table + 1, 64, 32, 0x00, 0x00, 0x00, 0); /* BP-ALIGN-2 */
    table_path = run_write_file(temp_dir, "rejected.bin", table, sizeof table);
  }
  char *bad_hex = run_write_file(temp_dir, "bad.hex", "01 0x", 5);
  run_result r;

  r = RUN(NULL, "--json", "--frobnicate"); /* usage */
  assert_one_json_object(&r, 2, "USAGE");
  ck_assert_ptr_nonnull(strstr(r.out, "unknown option '--frobnicate'"));
  run_result_free(&r);
  r = RUN(NULL, "--frobnicate", "--json"); /* --json after the bad option */
  assert_one_json_object(&r, 2, "USAGE");
  run_result_free(&r);
  r = RUN(NULL, "--json", "a", "b");
  assert_one_json_object(&r, 2, "USAGE");
  run_result_free(&r);
  r = RUN(NULL, "encode", "--json", "--size", "64");
  assert_one_json_object(&r, 2, "USAGE");
  run_result_free(&r);

  char missing[4096];
  snprintf(missing, sizeof missing, "%s/no-such-file", temp_dir);
  r = RUN(NULL, "--json", missing); /* I/O */
  assert_one_json_object(&r, 2, "INPUT");
  ck_assert_ptr_nonnull(strstr(r.out, "no-such-file: No such file or directory"));
  run_result_free(&r);
  r = RUN(NULL, "--json", temp_dir); /* a directory cannot be read */
  assert_one_json_object(&r, 2, "INPUT");
  run_result_free(&r);

  r = RUN(NULL, "--json", "--hex", bad_hex); /* bad hex text */
  assert_one_json_object(&r, 2, "BAD_HEX");
  ck_assert_ptr_nonnull(strstr(r.out,
                               "\"value\": 4, \"expected\": 0, \"index\": 0, \"line\": 1, "
                               "\"column\": 5,"));
  run_result_free(&r);

  r = RUN(NULL, "--json", "--handle", handle); /* valid */
  assert_one_json_object(&r, 0, NULL);
  run_result_free(&r);
  r = RUN(table_path, "--json", "-"); /* rejected, from standard input */
  assert_one_json_object(&r, 1, "ALIGNMENT_BELOW_MINIMUM");
  run_result_free(&r);
  free(handle);
  free(table_path);
  free(bad_hex);
}
END_TEST

START_TEST(test_errors_without_json_go_to_stderr) {
  run_result r = RUN(NULL, "--frobnicate");
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 2,
                    "hurray-inspect: unknown option '--frobnicate'\n"
                    "Try 'hurray-inspect --help'.\n");
  r = RUN(NULL, "--help");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_eq(strstr(r.out, "Usage: hurray-inspect"), r.out);
  ck_assert_uint_eq(r.err_len, 0);
  run_result_free(&r);
  r = RUN(NULL, "--version");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_nonnull(strstr(r.out, "libhurray"));
  run_result_free(&r);
}
END_TEST

START_TEST(test_unknown_short_option) {
  /* CLI-OPT-1 */
  run_result r = RUN(NULL, "-x");
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 2, "hurray-inspect: unknown option '-x'\nTry 'hurray-inspect --help'.\n");
}
END_TEST

START_TEST(test_encode_256_handles_is_a_protocol_rejection) {
  /* CLI-ENC-3, BP-TABLE-1: libhurray refuses a 256-handle table; exit 1. */
  static const char *args[1 + 2 * 256];
  size_t n = 0;
  args[n++] = "encode";
  for (int i = 0; i < 256; i++) {
    args[n++] = "--size";
    args[n++] = "64";
  }
  run_result r = inspect_run(NULL, NULL, args, n);
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 1,
                    "hurray-inspect: encode: rejected CAPACITY: 256 handles given; a buffer "
                    "table holds at most 255, its count is one byte (BP-TABLE-1)\n");
  r = inspect_run(NULL, NULL, args, n - 2u); /* 255 handles: a table */
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_eq(strstr(r.out, "FF\n"), r.out);
  run_result_free(&r);
}
END_TEST

START_TEST(test_handle_with_trailing_bytes) {
  /* CLI-INPUT-2: said of a handle, with what was expected and found. */
  char *path = valid_handle_file("handle17.bin", 1);
  run_result r = RUN(NULL, "--handle", path);
  ck_assert_int_eq(r.status, 1);
  ck_assert_msg(strstr(r.out,
                       "verdict: REJECTED TRAILING_BYTES: 1 trailing byte: a buffer handle "
                       "is exactly 16 bytes, the input is 17\n") != NULL,
                "%s", r.out);
  ck_assert_ptr_null(strstr(r.out, "table"));
  run_result_free(&r);
  r = RUN(NULL, "--handle", "--json", path);
  assert_one_json_object(&r, 1, "TRAILING_BYTES");
  ck_assert_ptr_nonnull(strstr(r.out, "\"value\": 17, \"expected\": 16,"));
  run_result_free(&r);
  free(path);
}
END_TEST

START_TEST(test_output_error_names_the_reason) {
  if (access("/dev/full", W_OK) != 0) {
    /* Not a pass: the check cannot be made here. */
    ck_abort_msg("/dev/full is missing: cannot test output errors on this machine");
  }
  run_result r = inspect_run(NULL, "/dev/full", (const char *const[]){"encode", "--size", "64"}, 3);
  run_expect_stderr(&r, 2,
                    "hurray-inspect: cannot write standard output: No space left on device\n");
  char *path = valid_handle_file("for-full.bin", 0);
  r = inspect_run(NULL, "/dev/full", (const char *const[]){"--handle", path}, 2);
  run_expect_stderr_holds(&r, 2, "cannot write standard output: No space left on device");
  free(path);
}
END_TEST

START_TEST(test_hex_positions_count_cr) {
  /* CLI-HEX-3: CR-only, CRLF and LF line ends each count as one line. */
  char *path = run_write_file(temp_dir, "cr.hex", "01\r00\r\n00\rzz", 12);
  run_result r = RUN(NULL, "--hex", path);
  run_expect_stderr_holds(&r, 2, "bad character 'z' (0x7A) at offset 10 (line 4, column 1)");
  free(path);
}
END_TEST

START_TEST(test_names_are_escaped) {
  /* CLI-OUT-2: a file name cannot drive the terminal, in text or JSON. */
  char name[] = "evil\x1b]0;title\x07\x1b[31m.bin";
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", temp_dir, name);
  run_result r = RUN(NULL, path);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_null(strchr(r.err, '\x1b'));
  ck_assert_ptr_null(strchr(r.err, '\x07'));
  ck_assert_msg(strstr(r.err, "/evil\\x1B]0;title\\x07\\x1B[31m.bin: No such file") != NULL, "%s",
                r.err);
  run_result_free(&r);
  r = RUN(NULL, "--json", path);
  assert_one_json_object(&r, 2, "INPUT");
  ck_assert_ptr_nonnull(strstr(r.out, "/evil\\\\x1B]0;title\\\\x07\\\\x1B[31m.bin: No such file"));
  run_result_free(&r);

  uint8_t bytes[16];
  wire_put_handle(bytes, 64, 64, 0x00, 0x00, 0x00, 0);
  char *existing = run_write_file(temp_dir, name, bytes, sizeof bytes);
  r = RUN(NULL, "--handle", existing);
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_null(strchr(r.out, '\x1b'));
  ck_assert_ptr_nonnull(strstr(r.out, "evil\\x1B]0;title\\x07\\x1B[31m.bin: 16 bytes\n"));
  run_result_free(&r);
  /* Bad hex text in such a file: the name in the message is escaped too. */
  char *hex = run_write_file(temp_dir, "bad\r.hex", "zz", 2);
  r = RUN(NULL, "--hex", hex);
  run_expect_stderr_holds(&r, 2, "bad\\x0D.hex: bad character");
  free(existing);
  free(hex);
}
END_TEST

static Suite *exits_suite(void) {
  Suite *s = suite_create("cli_exits");
  TCase *t = hurray_check_case(s, "exits", setup, teardown, 60);
  tcase_add_test(t, test_json_on_every_exit);
  tcase_add_test(t, test_errors_without_json_go_to_stderr);
  tcase_add_test(t, test_unknown_short_option);
  tcase_add_test(t, test_encode_256_handles_is_a_protocol_rejection);
  tcase_add_test(t, test_handle_with_trailing_bytes);
  tcase_add_test(t, test_output_error_names_the_reason);
  tcase_add_test(t, test_hex_positions_count_cr);
  tcase_add_test(t, test_names_are_escaped);
  return s;
}

int main(void) { return hurray_check_run(exits_suite()); }
