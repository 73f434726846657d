/*
 * The command line of the timing benchmarks, `NAME [repetitions]
 * [items-per-repetition]`: two positive counts, each with the benchmark's
 * default when left out. Each figure is the best over the repetitions.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_BENCH_COUNTS_H
#define HURRAY_BENCH_COUNTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct bench_counts {
  long repetitions;
  long per_repetition;
} bench_counts;

/* Reads argv[1] and argv[2], where given, over the defaults in *counts.
 * When either count is below 1, prints the usage, naming the second count
 * `per_repetition_name`, and returns false. */
static inline bool bench_read_counts(int argc, char **argv, const char *per_repetition_name,
                                     bench_counts *counts) {
  if (argc > 1) {
    counts->repetitions = strtol(argv[1], NULL, 10);
  }
  if (argc > 2) {
    counts->per_repetition = strtol(argv[2], NULL, 10);
  }
  if (counts->repetitions < 1 || counts->per_repetition < 1) {
    fprintf(stderr, "usage: %s [repetitions>=1] [%s>=1]\n", argv[0], per_repetition_name);
    return false;
  }
  return true;
}

#endif
