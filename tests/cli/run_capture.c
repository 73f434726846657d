/*
 * Program runs for the CLI tests (see run_capture.h).
 * SPDX-License-Identifier: Apache-2.0
 */
/* realpath() and mkdtemp() with a NULL buffer are XSI/POSIX 2008. */
#define _XOPEN_SOURCE 700

#include "run_capture.h"

#include <check.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t cap = 4096;
  size_t n = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  for (;;) {
    if (n + 1u >= cap) {
      cap *= 2u;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
    size_t got = fread(buf + n, 1, cap - n - 1u, f);
    n += got;
    if (got == 0u) {
      break;
    }
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

char *run_make_temp_dir(void) {
  /* The working directory of the first call: a test that changes directory
   * still gets its folders there, never inside one it removes. */
  static char *base = NULL;
  if (base == NULL) {
    base = realpath(".", NULL);
    ck_assert_ptr_nonnull(base);
  }
  size_t n = strlen(base) + sizeof "/cli-test-XXXXXX";
  char *dir = malloc(n);
  ck_assert_ptr_nonnull(dir);
  snprintf(dir, n, "%s/cli-test-XXXXXX", base);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed in %s", base);
  return dir;
}

void run_remove_temp_dir(char *dir) {
  char *argv[] = {(char *)(uintptr_t) "/bin/rm", (char *)(uintptr_t) "-rf",
                  (char *)(uintptr_t) "--", dir, NULL};
  run_result r = run_capture(argv, NULL, NULL);
  run_result_free(&r);
  free(dir);
}

char *run_write_file(const char *dir, const char *name, const void *data, size_t len) {
  size_t n = strlen(dir) + strlen(name) + 2u;
  char *path = malloc(n);
  ck_assert_ptr_nonnull(path);
  snprintf(path, n, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s", path);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

run_result run_capture(char *const argv[], const char *input_path, const char *output_path) {
  char *dir = run_make_temp_dir();
  size_t n = strlen(dir) + 16u;
  char *out_path = malloc(n);
  char *err_path = malloc(n);
  ck_assert(out_path != NULL && err_path != NULL);
  snprintf(out_path, n, "%s/out", dir);
  snprintf(err_path, n, "%s/err", dir);
  posix_spawn_file_actions_t actions;
  ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
  ck_assert_int_eq(posix_spawn_file_actions_addopen(
                       &actions, 0, input_path != NULL ? input_path : "/dev/null", O_RDONLY, 0),
                   0);
  ck_assert_int_eq(posix_spawn_file_actions_addopen(&actions, 1,
                                                    output_path != NULL ? output_path : out_path,
                                                    O_WRONLY | O_CREAT | O_TRUNC, 0600),
                   0);
  ck_assert_int_eq(
      posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600),
      0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
  ck_assert_msg(rc == 0, "cannot start %s: %s", argv[0], strerror(rc));
  posix_spawn_file_actions_destroy(&actions);
  int wstatus = 0;
  ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
  run_result r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  if (output_path == NULL) {
    r.out = slurp(out_path, &r.out_len);
  } else {
    r.out = strdup("");
    r.out_len = 0;
  }
  r.err = slurp(err_path, &r.err_len);
  unlink(out_path);
  unlink(err_path);
  rmdir(dir);
  free(out_path);
  free(err_path);
  free(dir);
  return r;
}

void run_result_free(run_result *r) {
  free(r->out);
  free(r->err);
  r->out = NULL;
  r->err = NULL;
}

void run_expect_stdout_holds(const run_result *r, int status, const char *part) {
  ck_assert_msg(r->status == status, "exit %d, expected %d; stdout: %s stderr: %s", r->status,
                status, r->out, r->err);
  ck_assert_msg(strstr(r->out, part) != NULL, "'%s' not in stdout: %s", part, r->out);
}

void run_expect_stderr(run_result *r, int status, const char *err) {
  ck_assert_msg(r->status == status, "exit %d, expected %d; stderr: %s", r->status, status, r->err);
  ck_assert_str_eq(r->err, err);
  run_result_free(r);
}

void run_expect_stderr_holds(run_result *r, int status, const char *part) {
  ck_assert_msg(r->status == status, "exit %d, expected %d; stderr: %s", r->status, status, r->err);
  ck_assert_msg(strstr(r->err, part) != NULL, "'%s' not in stderr: %s", part, r->err);
  run_result_free(r);
}

char *run_env(const char *name) {
  char *value = getenv(name);
  ck_assert_msg(value != NULL, "%s is not set", name);
  return value;
}

run_result run_tool(const char *binary_env, const char *const args[], size_t n) {
  static char *argv[16];
  ck_assert_uint_le(n, 14);
  argv[0] = run_env(binary_env);
  for (size_t i = 0; i < n; i++) {
    argv[1 + i] = (char *)(uintptr_t)args[i]; /* posix_spawn does not write them */
  }
  argv[1 + n] = NULL;
  return run_capture(argv, NULL, NULL);
}
