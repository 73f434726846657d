/*
 * BP-DLPACK-5 with HO-THR-2: threads racing to export (0.x and 1.x) and to
 * release the same accepted buffers. Exactly one of them wins per buffer,
 * the others get ALREADY_RELEASED, and after the winners' deleters each
 * producer release has run exactly once. Also run under ThreadSanitizer by
 * tools/test (suite handoff-concurrency).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "dlpack_test_support.h"
#include "check_main.h"
#include "racing_threads.h"

#define THREADS 4
#define BUFFERS 2000

typedef struct shared_run {
  hurray_handoff handoffs[BUFFERS];
  release_log logs[BUFFERS];
  atomic_int wins[BUFFERS];
  atomic_int unexpected;
} shared_run;

static void *race(void *arg) {
  const racer *w = arg;
  shared_run *run = w->shared;
  pthread_barrier_wait(w->start);
  for (int k = 0; k < BUFFERS; k++) {
    const int i = w->id % 2 == 0 ? k : BUFFERS - 1 - k;
    hurray_status status;
    if (w->id == 0) {
      status = hurray_handoff_release(&run->handoffs[i], NULL);
    } else if (w->id == 1) {
      hurray_dl_managed_tensor *t = NULL;
      status = hurray_dlpack_export(&run->handoffs[i], NULL, &t, NULL);
      if (status == HURRAY_OK) {
        t->deleter(t);
      }
    } else {
      hurray_dl_managed_tensor_versioned *t = NULL;
      status = hurray_dlpack_export_versioned(&run->handoffs[i], NULL, 0, &t, NULL);
      if (status == HURRAY_OK) {
        t->deleter(t);
      }
    }
    if (status == HURRAY_OK) {
      atomic_fetch_add(&run->wins[i], 1);
    } else if (status != HURRAY_ERR_ALREADY_RELEASED) {
      atomic_fetch_add(&run->unexpected, 1);
    }
  }
  return NULL;
}

START_TEST(export_races_release) {
  shared_run *run = calloc(1, sizeof *run);
  ck_assert_ptr_nonnull(run);
  for (int i = 0; i < BUFFERS; i++) {
    release_log_reset(&run->logs[i]);
    const hurray_buffer_handle handle = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
    accept_buffer(&run->handoffs[i], &handle, FAKE_DEVICE_POINTER, &run->logs[i]);
  }
  run_racers(run, race, THREADS);
  ck_assert_int_eq(atomic_load(&run->unexpected), 0);
  for (int i = 0; i < BUFFERS; i++) {
    const int wins = atomic_load(&run->wins[i]);
    const int releases = atomic_load(&run->logs[i].buffer_releases);
    ck_assert_msg(wins == 1 && releases == 1, "buffer %d: %d wins, %d releases", i, wins, releases);
    ck_assert_int_eq(hurray_handoff_destroy(&run->handoffs[i], NULL), HURRAY_OK);
  }
  free(run);
}
END_TEST

int main(void) { return HURRAY_CHECK_MAIN("dlpack_race", "race", 120, export_races_release); }
