/*
 * What the plugin tests ask of /proc/self/maps: whether a file is mapped in
 * this process now, so that "unloaded" can be checked rather than assumed
 * (PL-LOAD-6, PL-LOAD-7, PL-LIFE-1). Included by one test program each.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_MAPPED_FILES_H
#define HURRAY_TESTS_MAPPED_FILES_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline bool file_is_mapped(const char *path) {
  char real[4096];
  if (realpath(path, real) == NULL) {
    return false;
  }
  FILE *maps = fopen("/proc/self/maps", "r");
  ck_assert_ptr_nonnull(maps);
  char line[8192];
  bool found = false;
  while (fgets(line, sizeof line, maps) != NULL) {
    found = found || strstr(line, real) != NULL;
  }
  fclose(maps);
  return found;
}

#endif /* HURRAY_TESTS_MAPPED_FILES_H */
