/*
 * What every harness shares: the libFuzzer entry point's prototype and the
 * oracle's failure report. A disagreement aborts, so libFuzzer, AFL++ and the
 * meson replay all record it as a crash with the input that caused it.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_CHECK_H
#define HURRAY_FUZZ_CHECK_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/buffer.h"

/* The oracle (reference decoder, harness checks) is not what is being
 * explored: leaving it out of the coverage instrumentation keeps the engines'
 * feedback on libhurray's own edges and doubles the execution rate. Wrap each
 * harness and the reference decoder in FUZZ_ORACLE_BEGIN / FUZZ_ORACLE_END. */
#if defined(__clang__) && __clang_major__ >= 13
#define FUZZ_ORACLE_BEGIN \
  _Pragma("clang attribute push (__attribute__((no_sanitize(\"coverage\"))), apply_to = function)")
#define FUZZ_ORACLE_END _Pragma("clang attribute pop")
#else
#define FUZZ_ORACLE_BEGIN
#define FUZZ_ORACLE_END
#endif

/* The entry point libFuzzer, libAFLDriver and fuzz/replay_main.c call. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_oracle_failed(const char *what, const char *file, int line) {
  fprintf(stderr, "%s:%d: oracle disagreement: %s\n", file, line, what);
  abort();
}

/* FUZZ_CHECK(cond): the implementation and the oracle must agree on cond. */
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_oracle_failed(#cond, __FILE__, __LINE__))

/* What every status a harness gets from the library must be: a defined
 * hurray_status, and a failure's error filled (status as returned, detail
 * terminated). Returns `s`. */
static inline hurray_status fuzz_checked_status(hurray_status s, const hurray_error *err) {
  FUZZ_CHECK((uint32_t)s < (uint32_t)HURRAY_STATUS_COUNT);
  if (s != HURRAY_OK && err != NULL) {
    FUZZ_CHECK(err->status == s);
    FUZZ_CHECK(memchr(err->detail, '\0', sizeof err->detail) != NULL);
  }
  return s;
}

/* The descriptors this process has open (the transports' harnesses check
 * that an input leaves none behind). */
static inline int fuzz_count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  FUZZ_CHECK(d != NULL);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    n += e->d_name[0] != '.';
  }
  closedir(d);
  return n;
}

/* Little-endian field reads for harness inputs (not for the code under test). */
static inline uint32_t fuzz_read_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; k--) {
    v = (v << 8) | p[k];
  }
  return v;
}

static inline uint64_t fuzz_read_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; k--) {
    v = (v << 8) | p[k];
  }
  return v;
}

#endif /* HURRAY_FUZZ_CHECK_H */
