/*
 * Reading the whole input, from a file or standard input (specs/cli.md
 * CLI-INPUT-3).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool inspect_read_input(const char *path, uint8_t **data, size_t *len, char *message, size_t cap) {
  bool from_stdin = path == NULL || strcmp(path, "-") == 0;
  /* The name as a terminal may show it (CLI-OUT-2). */
  static const char standard_input[] = "standard input";
  char *escaped = NULL;
  if (!from_stdin) {
    size_t n = inspect_escape_name(path, strlen(path), NULL, 0);
    escaped = malloc(n + 1u);
    if (escaped == NULL) {
      snprintf(message, cap, "out of memory for a file name of %zu bytes", strlen(path));
      return false;
    }
    inspect_escape_name(path, strlen(path), escaped, n + 1u);
  }
  const char *name = from_stdin ? standard_input : escaped;
  FILE *in = from_stdin ? stdin : fopen(path, "rb");
  if (in == NULL) {
    snprintf(message, cap, "cannot open %s: %s", name, strerror(errno));
    free(escaped);
    return false;
  }
  size_t size = 0;
  size_t capacity = 4096;
  uint8_t *buf = malloc(capacity);
  bool ok = buf != NULL;
  if (!ok) {
    snprintf(message, cap, "out of memory reading %s", name);
  }
  while (ok) {
    if (size == capacity) {
      /* One byte more than the limit is enough to know it is exceeded. */
      size_t grown = capacity * 2u > INSPECT_MAX_INPUT_BYTES + 1u ? INSPECT_MAX_INPUT_BYTES + 1u
                                                                  : capacity * 2u;
      uint8_t *bigger = realloc(buf, grown);
      if (bigger == NULL) {
        snprintf(message, cap, "out of memory reading %s", name);
        ok = false;
        break;
      }
      buf = bigger;
      capacity = grown;
    }
    size_t got = fread(buf + size, 1, capacity - size, in);
    size += got;
    if (size > INSPECT_MAX_INPUT_BYTES) {
      snprintf(message, cap, "%s is larger than %zu bytes; a buffer table is at most %u bytes",
               name, INSPECT_MAX_INPUT_BYTES, (unsigned)HURRAY_BUFFER_TABLE_MAX_SIZE);
      ok = false;
    } else if (got == 0u) {
      if (ferror(in)) {
        snprintf(message, cap, "cannot read %s: %s", name, strerror(errno));
        ok = false;
      }
      break;
    }
  }
  if (!from_stdin) {
    fclose(in);
  }
  free(escaped);
  if (!ok) {
    free(buf);
    return false;
  }
  *data = buf;
  *len = size;
  return true;
}
