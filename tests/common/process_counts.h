/*
 * What a fault scenario may leave behind in this process: its open
 * descriptors and its mappings, counted from /proc/self before and after
 * (issue 42), written once for the IPC and network tests (the Check
 * dependency of the build, check_dep, puts this folder on the include path).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_PROCESS_COUNTS_H
#define HURRAY_TESTS_PROCESS_COUNTS_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Open descriptors of this process (/proc/self/fd, the listing's own excluded). */
static inline int hurray_test_count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] != '.') {
      n++;
    }
  }
  closedir(d);
  return n - 1;
}

/* Mappings of this process (lines of /proc/self/maps); with `needle`, only
 * the lines that hold it (NULL: every mapping). */
static inline int hurray_test_count_maps(const char *needle) {
  FILE *f = fopen("/proc/self/maps", "r");
  ck_assert_ptr_nonnull(f);
  int n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f) != NULL) {
    if (needle == NULL || strstr(line, needle) != NULL) {
      n++;
    }
  }
  fclose(f);
  return n;
}

/* Whether this build runs under ASan, which maps shadow and allocator
 * regions as the program first needs them: there the total number of
 * mappings may grow, and only exact counts (descriptors, memfds) hold. */
#if defined(__SANITIZE_ADDRESS__)
#define HURRAY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HURRAY_TEST_ASAN 1
#endif
#endif

#endif /* HURRAY_TESTS_PROCESS_COUNTS_H */
