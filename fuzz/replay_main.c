/*
 * Replays fuzz inputs through a harness without a fuzzing engine, so that a
 * normal build (gcc or clang, no -fsanitize=fuzzer) checks every committed
 * corpus and regression input: `meson test` runs this once per target.
 * Arguments are files or directories (read one level deep). Any oracle
 * disagreement aborts, which fails the test and names the input.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_check.h"

static size_t replayed;

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = 4096;
  size_t len = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (buf == NULL) {
      fprintf(stderr, "out of memory reading %s\n", path);
      fclose(f);
      return 1;
    }
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) {
      break;
    }
    cap *= 2;
    uint8_t *bigger = realloc(buf, cap);
    if (bigger == NULL) {
      free(buf);
    }
    buf = bigger;
  }
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "cannot read %s\n", path);
    free(buf);
    return 1;
  }
  /* An exact-size copy, so that a read past the input is a read past the
   * allocation (caught by ASan in a sanitizer build). */
  uint8_t *exact = malloc(len > 0 ? len : 1);
  if (exact == NULL) {
    free(buf);
    return 1;
  }
  memcpy(exact, buf, len);
  free(buf);
  fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  replayed++;
  return 0;
}

static int replay_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "cannot stat %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    return replay_file(path);
  }
  DIR *dir = opendir(path);
  if (dir == NULL) {
    fprintf(stderr, "cannot open directory %s: %s\n", path, strerror(errno));
    return 1;
  }
  int failures = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') {
      continue; /* ., .. and .gitkeep */
    }
    char child[4096];
    int n = snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
    if (n < 0 || (size_t)n >= sizeof child) {
      fprintf(stderr, "path too long in %s\n", path);
      failures++;
      continue;
    }
    failures += replay_file(child);
  }
  closedir(dir);
  return failures;
}

int main(int argc, char **argv) {
  int failures = 0;
  for (int i = 1; i < argc; i++) {
    failures += replay_path(argv[i]);
  }
  printf("%zu inputs replayed, %d unreadable\n", replayed, failures);
  return failures == 0 ? 0 : 1;
}
