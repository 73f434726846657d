/*
 * Runs a program with an argument vector (no shell, so any bytes may be in
 * an argument) and captures its exit status, standard output and standard
 * error separately, for the end-to-end CLI tests.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_RUN_CAPTURE_H
#define HURRAY_TESTS_RUN_CAPTURE_H

#include <stddef.h>

typedef struct run_result {
  /** Exit status, or -1 when the program did not exit normally. */
  int status;
  /** NUL-terminated; malloc'd (run_result_free). */
  char *out;
  size_t out_len;
  char *err;
  size_t err_len;
} run_result;

/**
 * Runs argv[0] (a path) with argv (NULL-terminated). Standard input is the
 * file `input_path` (NULL: /dev/null); standard output goes to
 * `output_path` when not NULL (e.g. "/dev/full"), else it is captured.
 * Fails the current check test when the program cannot be started.
 */
run_result run_capture(char *const argv[], const char *input_path, const char *output_path);

void run_result_free(run_result *r);

/** Checks that `r` exited with `status` and that its standard output holds
 *  `part`; `r` stays for further checks. */
void run_expect_stdout_holds(const run_result *r, int status, const char *part);

/** Checks that `r` exited with `status` and wrote exactly `err` on standard
 *  error, then frees it: a refusal, worded in full. */
void run_expect_stderr(run_result *r, int status, const char *err);

/** Checks that `r` exited with `status` and that its standard error holds
 *  `part`, then frees it: a refusal, by the words that name its cause. */
void run_expect_stderr_holds(run_result *r, int status, const char *part);

/** The value of the environment variable `name`; fails the current check
 *  test when it is not set. */
char *run_env(const char *name);

/** Runs the program the environment variable `binary_env` names with the
 *  arguments args[0..n) (n at most 14), capturing as run_capture does. */
run_result run_tool(const char *binary_env, const char *const args[], size_t n);

/** RUN_TOOL("HURRAY_DEVICES", "--plugin", file): run_tool with a literal
 *  argument list. */
#define RUN_TOOL(binary_env, ...)                            \
  run_tool((binary_env), (const char *const[]){__VA_ARGS__}, \
           sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/** A fresh directory (absolute path, malloc'd) under the working directory
 *  of the first call (the build folder); removed by the caller if wanted. */
char *run_make_temp_dir(void);

/** Removes dir and all it holds (rm -rf) and frees the path: the teardown
 *  of a test that made it with run_make_temp_dir. */
void run_remove_temp_dir(char *dir);

/** Writes len bytes to dir/name; returns the malloc'd path. */
char *run_write_file(const char *dir, const char *name, const void *data, size_t len);

#endif
