/*
 * What a benchmark was built with, printed before its figures: the same code
 * runs at very different speeds per buildtype and compiler (issue 12: the
 * table decode at -O3 against -O2), so a figure without them cannot be
 * compared. bench/meson.build passes the values as defines.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_BENCH_BUILD_H
#define HURRAY_BENCH_BUILD_H

#include <stdio.h>

#ifndef HURRAY_BENCH_BUILDTYPE
#define HURRAY_BENCH_BUILDTYPE "unknown (not built by meson)"
#endif
#ifndef HURRAY_BENCH_OPTIMIZATION
#define HURRAY_BENCH_OPTIMIZATION "?"
#endif
#ifndef HURRAY_BENCH_COMPILER
#define HURRAY_BENCH_COMPILER "unknown"
#endif

static inline void bench_print_build(const char *bench_name) {
  printf("%s: built with buildtype %s (-O%s), compiler %s\n", bench_name, HURRAY_BENCH_BUILDTYPE,
         HURRAY_BENCH_OPTIMIZATION, HURRAY_BENCH_COMPILER);
}

#endif
