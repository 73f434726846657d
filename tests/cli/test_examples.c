/*
 * End-to-end runs of the built hurray-inspect over every file in
 * docs/examples/ and over bad command lines: exit statuses (specs/cli.md
 * CLI-EXIT-1) and the key output. The expected verdicts are worked out from
 * specs/buffer-protocol.md for each example (the reasoning is in the example
 * files' comments and docs/examples/README.md), not taken from the tool.
 *
 * Environment: HURRAY_INSPECT (the binary), HURRAY_EXAMPLES (the folder).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "json_check.h"
#include "check_main.h"

typedef struct example {
  const char *file;
  const char *flags; /* besides --json */
  int exit_status;
  const char *status; /* NULL when valid */
  unsigned long long value, expected, index;
  unsigned handles; /* entries in "handles" */
  const char *text_verdict;
} example;

static const example examples[] = {
    /* BP-TABLE-1, BP-ALIGN-2, BP-SYNC-2: one 1024-byte cpu buffer. */
    {"cpu-single.hex", "--hex", 0, NULL, 0, 0, 0, 1, "verdict: VALID table of 1 handle on cpu"},
    {"cpu-single.bin", "", 0, NULL, 0, 0, 0, 1, "verdict: VALID table of 1 handle on cpu"},
    /* BP-COLOC-1: data, scales, zero-points all cuda/standard. */
    {"cuda-quantized.hex", "--hex", 0, NULL, 0, 0, 0, 3,
     "verdict: VALID table of 3 handles on cuda, standard memory"},
    {"cuda-quantized.bin", "", 0, NULL, 0, 0, 0, 3,
     "verdict: VALID table of 3 handles on cuda, standard memory"},
    /* BP-COLOC-2: handle 1 is cpu (0x00), handle 0 cuda (0x01). */
    {"colocation-mismatch.hex", "--hex", 1, "DEVICE_TAG_MISMATCH", 0x00, 0x01, 1, 2,
     "verdict: REJECTED DEVICE_TAG_MISMATCH"},
    {"colocation-mismatch.bin", "", 1, "DEVICE_TAG_MISMATCH", 0x00, 0x01, 1, 2,
     "verdict: REJECTED DEVICE_TAG_MISMATCH"},
    /* BP-WIRE-2: reserved byte 0x80 in handle 0. */
    {"reserved-byte.hex", "--hex", 1, "RESERVED_BYTE_NONZERO", 0x80, 0, 0, 1,
     "verdict: REJECTED RESERVED_BYTE_NONZERO"},
    /* BP-ALIGN-2: 256 bytes at alignment 32, minimum 64. */
    {"bad-alignment.handle.hex", "--hex --handle", 1, "ALIGNMENT_BELOW_MINIMUM", 32, 64, 0, 1,
     "verdict: REJECTED ALIGNMENT_BELOW_MINIMUM"},
    {"bad-alignment.handle.bin", "--handle", 1, "ALIGNMENT_BELOW_MINIMUM", 32, 64, 0, 1,
     "verdict: REJECTED ALIGNMENT_BELOW_MINIMUM"},
    /* BP-PAIR-2: private tag 0xF2 with private class 0xF1. */
    {"private-device.hex", "--hex", 0, NULL, 0, 0, 0, 2,
     "verdict: VALID table of 2 handles on private(0xF2), private(0xF1) memory"},
    /* BP-TABLE-6: 19 bytes, the table occupies 1 + 16 = 17. */
    {"trailing-bytes.hex", "--hex", 1, "TRAILING_BYTES", 19, 17, 0, 1,
     "verdict: REJECTED TRAILING_BYTES"},
};
#define EXAMPLE_COUNT (sizeof examples / sizeof examples[0])

static const char *binary(void) {
  const char *b = getenv("HURRAY_INSPECT");
  ck_assert_msg(b != NULL, "HURRAY_INSPECT is not set");
  return b;
}

static const char *examples_dir(void) {
  const char *d = getenv("HURRAY_EXAMPLES");
  ck_assert_msg(d != NULL, "HURRAY_EXAMPLES is not set");
  return d;
}

/* Runs a shell command line; returns its exit status, output in out. */
static int run(const char *command, char *out, size_t cap) {
  FILE *p = popen(command, "r");
  ck_assert_ptr_nonnull(p);
  size_t n = fread(out, 1, cap - 1u, p);
  out[n] = '\0';
  ck_assert_msg(n < cap - 1u, "output of '%s' too long", command);
  int status = pclose(p);
  ck_assert_msg(WIFEXITED(status), "'%s' did not exit normally", command);
  return WEXITSTATUS(status);
}

static char output[1 << 16];
static char command[4096];

START_TEST(test_example_json) {
  const example *e = &examples[_i];
  snprintf(command, sizeof command, "'%s' --json %s '%s/%s'", binary(), e->flags, examples_dir(),
           e->file);
  int status = run(command, output, sizeof output);
  ck_assert_msg(status == e->exit_status, "%s: exit %d, expected %d", e->file, status,
                e->exit_status);
  ck_assert_msg(json_check_document(output, strlen(output)), "%s: invalid JSON: %s", e->file,
                output);
  size_t handles = 0;
  for (const char *p = strstr(output, "\"byte_size\":"); p != NULL;
       p = strstr(p + 1, "\"byte_size\":")) {
    handles++;
  }
  ck_assert_uint_eq(handles, e->handles);
  if (e->status == NULL) {
    ck_assert_ptr_eq(strstr(output, "{\"valid\": true,"), output);
    ck_assert_ptr_nonnull(strstr(output, "\"error\": null}"));
  } else {
    char want[256];
    snprintf(
        want, sizeof want,
        "\"error\": {\"status\": \"%s\", \"value\": %llu, \"expected\": %llu, \"index\": %llu,",
        e->status, e->value, e->expected, e->index);
    ck_assert_ptr_eq(strstr(output, "{\"valid\": false,"), output);
    ck_assert_msg(strstr(output, want) != NULL, "%s: %s not in %s", e->file, want, output);
  }
}
END_TEST

START_TEST(test_example_text) {
  const example *e = &examples[_i];
  /* Through standard input, to cover '-'. */
  snprintf(command, sizeof command, "'%s' %s - < '%s/%s'", binary(), e->flags, examples_dir(),
           e->file);
  int status = run(command, output, sizeof output);
  ck_assert_int_eq(status, e->exit_status);
  ck_assert_msg(strstr(output, e->text_verdict) != NULL, "%s: '%s' not in:\n%s", e->file,
                e->text_verdict, output);
  ck_assert_ptr_nonnull(strstr(output, "from standard input"));
  if (e->status != NULL && strcmp(e->status, "TRAILING_BYTES") != 0) {
    /* The row of the offending field names the failure too (CLI-OUT-1). */
    size_t rows = 0;
    for (const char *p = strstr(output, e->status); p != NULL; p = strstr(p + 1, e->status)) {
      rows++;
    }
    ck_assert_uint_ge(rows, 2);
  }
}
END_TEST

START_TEST(test_binary_equals_hex) {
  /* Each .bin example holds the bytes of its .hex twin. */
  for (size_t i = 0; i < EXAMPLE_COUNT; i++) {
    const char *dot = strrchr(examples[i].file, '.');
    if (strcmp(dot, ".bin") != 0) {
      continue;
    }
    char from_bin[8192];
    char from_hex[8192];
    snprintf(command, sizeof command, "'%s' --json %s '%s/%s'", binary(), examples[i].flags,
             examples_dir(), examples[i].file);
    run(command, from_bin, sizeof from_bin);
    snprintf(command, sizeof command, "'%s' --json --hex %s '%s/%.*s.hex'", binary(),
             examples[i].flags, examples_dir(), (int)(dot - examples[i].file), examples[i].file);
    run(command, from_hex, sizeof from_hex);
    ck_assert_str_eq(from_bin, from_hex);
  }
}
END_TEST

START_TEST(test_every_example_is_covered) {
  DIR *d = opendir(examples_dir());
  ck_assert_ptr_nonnull(d);
  size_t seen = 0;
  for (struct dirent *entry = readdir(d); entry != NULL; entry = readdir(d)) {
    const char *name = entry->d_name;
    if (name[0] == '.' || strcmp(name, "README.md") == 0) {
      continue;
    }
    bool known = false;
    for (size_t i = 0; i < EXAMPLE_COUNT; i++) {
      known = known || strcmp(examples[i].file, name) == 0;
    }
    ck_assert_msg(known, "docs/examples/%s has no expected verdict in this test", name);
    seen++;
  }
  closedir(d);
  ck_assert_uint_eq(seen, EXAMPLE_COUNT);
}
END_TEST

START_TEST(test_usage_and_io_errors) {
  /* CLI-EXIT-1: 2 for usage and I/O errors, with a message naming the cause. */
  snprintf(command, sizeof command, "'%s' '%s/no-such-file' 2>&1", binary(), examples_dir());
  ck_assert_int_eq(run(command, output, sizeof output), 2);
  ck_assert_ptr_nonnull(strstr(output, "no-such-file"));
  static const struct {
    const char *input; /* printf's format, piped to the tool; NULL: none */
    const char *arguments;
    int exit_status;
    const char *says[2]; /* each in the output; the second may be NULL */
  } cases[] = {
      {"01 0x", "--hex 2>&1", 2, {"'x'", "offset 4"}},
      {"010", "--hex 2>&1", 2, {"offset 2", NULL}},
      {NULL, "--frobnicate 2>&1", 2, {"--frobnicate", NULL}},
      {NULL, "--help", 0, {"Usage: hurray-inspect", NULL}},
      /* CLI-HEX-4: no digits is zero bytes, which BP-TABLE-2 rejects (exit 1). */
      {"# nothing\\n",
       "--hex --json",
       1,
       {"\"status\": \"TRUNCATED\", \"value\": 0, \"expected\": 1", NULL}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].input != NULL) {
      snprintf(command, sizeof command, "printf '%s' | '%s' %s", cases[i].input, binary(),
               cases[i].arguments);
    } else {
      snprintf(command, sizeof command, "'%s' %s", binary(), cases[i].arguments);
    }
    const int status = run(command, output, sizeof output);
    ck_assert_msg(status == cases[i].exit_status, "%s: exit %d, expected %d", command, status,
                  cases[i].exit_status);
    for (size_t k = 0; k < 2u && cases[i].says[k] != NULL; k++) {
      ck_assert_msg(strstr(output, cases[i].says[k]) != NULL, "%s: '%s' not in:\n%s", command,
                    cases[i].says[k], output);
    }
  }
}
END_TEST

START_TEST(test_encode_pipeline) {
  /* CLI-ENC-4: what encode prints, --hex reads back as a valid table. */
  snprintf(command, sizeof command,
           "'%s' encode --size 4096 --align 4096 --device cuda --sync event --size 64 --device "
           "cuda | '%s' --hex --json",
           binary(), binary());
  ck_assert_int_eq(run(command, output, sizeof output), 0);
  ck_assert_ptr_nonnull(strstr(output, "\"valid\": true"));
  ck_assert_ptr_nonnull(strstr(output,
                               "\"byte_size\": 4096, \"alignment\": 4096, \"device_tag\": "
                               "\"cuda\", \"device_tag_byte\": 1, \"sync_mode\": \"event\""));
  /* CLI-ENC-3: a handle libhurray rejects is not printed; exit 1. */
  snprintf(command, sizeof command, "'%s' encode --size 64 --align 32 2>&1", binary());
  ck_assert_int_eq(run(command, output, sizeof output), 1);
  ck_assert_ptr_nonnull(strstr(output, "ALIGNMENT_BELOW_MINIMUM"));
  ck_assert_ptr_nonnull(strstr(output, "32"));
  /* --raw writes the 17 bytes themselves. */
  snprintf(command, sizeof command, "'%s' encode --raw --size 64 | wc -c", binary());
  ck_assert_int_eq(run(command, output, sizeof output), 0);
  ck_assert_int_eq(atoi(output), 17);
}
END_TEST

static Suite *examples_suite(void) {
  Suite *s = suite_create("cli_examples");
  TCase *t = tcase_create("examples");
  tcase_set_timeout(t, 60);
  tcase_add_loop_test(t, test_example_json, 0, (int)EXAMPLE_COUNT);
  tcase_add_loop_test(t, test_example_text, 0, (int)EXAMPLE_COUNT);
  tcase_add_test(t, test_binary_equals_hex);
  tcase_add_test(t, test_every_example_is_covered);
  suite_add_tcase(s, t);
  TCase *c = tcase_create("command_line");
  tcase_set_timeout(c, 60);
  tcase_add_test(c, test_usage_and_io_errors);
  tcase_add_test(c, test_encode_pipeline);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return hurray_check_run(examples_suite()); }
