/*
 * Threads that race each other over shared state, for the concurrency
 * tests of tests/handoff and tests/dlpack: each thread is given the shared
 * state and its own number, and all of them leave a barrier together, so
 * that they collide on the same handoffs at the same time.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_HANDOFF_RACING_THREADS_H
#define HURRAY_TESTS_HANDOFF_RACING_THREADS_H

#include <check.h>
#include <pthread.h>

enum { RACERS_MAX = 8 };

/* What run_racers() hands each thread's body. */
typedef struct racer {
  void *shared;
  int id; /* 0 to count - 1 */
  /* The body waits on it before its first step. */
  pthread_barrier_t *start;
} racer;

/* What each thread runs: given its racer, returns NULL. */
typedef void *racer_body(void *arg);

/* Runs bodies[t] on thread t for each t below `count` (1 to RACERS_MAX),
 * each given its racer, and returns once every one has returned. Fails the
 * running Check test if a thread cannot be started or joined. */
static inline void run_racer_bodies(void *shared, racer_body *const *bodies, int count) {
  ck_assert_int_ge(count, 1);
  ck_assert_int_le(count, RACERS_MAX);
  pthread_barrier_t start;
  pthread_t threads[RACERS_MAX];
  racer racers[RACERS_MAX];
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, (unsigned)count), 0);
  for (int t = 0; t < count; t++) {
    racers[t] = (racer){shared, t, &start};
    ck_assert_int_eq(pthread_create(&threads[t], NULL, bodies[t], &racers[t]), 0);
  }
  for (int t = 0; t < count; t++) {
    ck_assert_int_eq(pthread_join(threads[t], NULL), 0);
  }
  pthread_barrier_destroy(&start);
}

/* The same body on every one of the `count` threads. */
static inline void run_racers(void *shared, racer_body *body, int count) {
  ck_assert_int_le(count, RACERS_MAX);
  racer_body *bodies[RACERS_MAX];
  for (int t = 0; t < count; t++) {
    bodies[t] = body;
  }
  run_racer_bodies(shared, bodies, count);
}

#endif
