/*
 * HO-THR-1..3 under contention: several threads race accept, the event
 * wait, the event release and the buffer release of many handoffs; each
 * buffer must see exactly one accept, one event release and one buffer
 * release, every other attempt a clean error. Also built with
 * -fsanitize=thread by tools/test.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "handoff_test_support.h"
#include "check_main.h"
#include "racing_threads.h"

#define THREADS 4
#define BUFFERS 4000
#define ROUNDS 3

typedef struct shared_run {
  hurray_handoff *handoffs;
  release_log *logs;
  atomic_int *accept_wins;
  atomic_int *event_release_wins;
  atomic_int *release_wins;
  atomic_int *withdraw_wins;
  atomic_int unexpected;
  int round;
} shared_run;

/* Counts a win; a loss must be ALREADY_RELEASED, or ILLEGAL_TRANSITION where
 * `illegal_loses` (an accept or withdraw that came after the other side's
 * step: the state moved on, possibly all the way to RELEASED). */
static void note(atomic_int *counter, hurray_status status, bool illegal_loses,
                 atomic_int *unexpected) {
  if (status == HURRAY_OK) {
    atomic_fetch_add(counter, 1);
  } else if (status != HURRAY_ERR_ALREADY_RELEASED &&
             !(illegal_loses && status == HURRAY_ERR_ILLEGAL_TRANSITION)) {
    atomic_fetch_add(unexpected, 1);
  }
}

/* Every thread tries every step on every buffer. Round 0: all in the same
 * order (they collide on the same buffer at the same time); round 1: odd
 * threads walk backwards; round 2: each starts at a different place. */
static void *consume_all(void *arg) {
  const racer *w = arg;
  shared_run *run = w->shared;
  pthread_barrier_wait(w->start);
  for (int k = 0; k < BUFFERS; k++) {
    int i = k;
    if (run->round == 1 && w->id % 2 == 1) {
      i = BUFFERS - 1 - k;
    } else if (run->round == 2) {
      i = (k + w->id * (BUFFERS / THREADS)) % BUFFERS;
    }
    hurray_handoff *h = &run->handoffs[i];
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    const hurray_status accepted =
        hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL);
    note(&run->accept_wins[i], accepted, true, &run->unexpected);
    if (i % 2 == 1) { /* event buffers */
      hurray_status waited = hurray_handoff_record_event_wait(h, NULL);
      if (waited != HURRAY_OK && waited != HURRAY_ERR_ALREADY_RELEASED) {
        atomic_fetch_add(&run->unexpected, 1);
      }
      note(&run->event_release_wins[i], hurray_handoff_release_event(h, NULL), false,
           &run->unexpected);
    }
    note(&run->release_wins[i], hurray_handoff_release(h, NULL), false, &run->unexpected);
  }
  return NULL;
}

static void offer_all(shared_run *run) {
  for (int i = 0; i < BUFFERS; i++) {
    release_log_reset(&run->logs[i]);
    atomic_store(&run->accept_wins[i], 0);
    atomic_store(&run->event_release_wins[i], 0);
    atomic_store(&run->release_wins[i], 0);
    atomic_store(&run->withdraw_wins[i], 0);
    const hurray_sync_mode mode = i % 2 == 1 ? HURRAY_SYNC_EVENT : HURRAY_SYNC_PRODUCER_SYNCED;
    const hurray_buffer_handle handle = cuda_handle(mode);
    const hurray_buffer_offer offer = offer_for_mode(mode, &run->logs[i]);
    hurray_handoff_init(&run->handoffs[i]);
    ck_assert_int_eq(hurray_handoff_offer(&run->handoffs[i], &handle, &offer, NULL), HURRAY_OK);
  }
}

static shared_run *new_run(void) {
  shared_run *run = calloc(1, sizeof *run);
  ck_assert_ptr_nonnull(run);
  run->handoffs = calloc(BUFFERS, sizeof *run->handoffs);
  run->logs = calloc(BUFFERS, sizeof *run->logs);
  run->accept_wins = calloc(BUFFERS, sizeof *run->accept_wins);
  run->event_release_wins = calloc(BUFFERS, sizeof *run->event_release_wins);
  run->release_wins = calloc(BUFFERS, sizeof *run->release_wins);
  run->withdraw_wins = calloc(BUFFERS, sizeof *run->withdraw_wins);
  ck_assert(run->handoffs && run->logs && run->accept_wins && run->event_release_wins &&
            run->release_wins && run->withdraw_wins);
  return run;
}

static void free_run(shared_run *run) {
  free(run->handoffs);
  free(run->logs);
  free(run->accept_wins);
  free(run->event_release_wins);
  free(run->release_wins);
  free(run->withdraw_wins);
  free(run);
}

START_TEST(racing_releases_release_each_buffer_once) {
  shared_run *run = new_run();
  for (int round = 0; round < ROUNDS; round++) {
    offer_all(run);
    atomic_store(&run->unexpected, 0);
    run->round = round;
    run_racers(run, consume_all, THREADS);
    const int unexpected = atomic_load(&run->unexpected);
    ck_assert_int_eq(unexpected, 0);
    for (int i = 0; i < BUFFERS; i++) {
      const int is_event = i % 2 == 1;
      ck_assert_int_eq(atomic_load(&run->accept_wins[i]), 1);
      ck_assert_int_eq(atomic_load(&run->release_wins[i]), 1);
      ck_assert_int_eq(atomic_load(&run->event_release_wins[i]), is_event);
      ck_assert_int_eq(atomic_load(&run->logs[i].buffer_releases), 1);
      ck_assert_int_eq(atomic_load(&run->logs[i].event_releases), is_event);
      ck_assert_uint_eq(hurray_handoff_state_of(&run->handoffs[i]), HURRAY_HANDOFF_RELEASED);
      ck_assert_int_eq(hurray_handoff_destroy(&run->handoffs[i], NULL), HURRAY_OK);
    }
  }
  free_run(run);
}
END_TEST

/* The producer withdrawing while consumers accept: one side wins each buffer. */
static void *withdraw_all(void *arg) {
  const racer *w = arg;
  shared_run *run = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = BUFFERS - 1; i >= 0; i--) {
    note(&run->withdraw_wins[i], hurray_handoff_withdraw(&run->handoffs[i], NULL), true,
         &run->unexpected);
  }
  return NULL;
}

static void *accept_or_withdraw(void *arg) {
  const racer *w = arg;
  if (w->id == 0) {
    return withdraw_all(arg);
  }
  shared_run *run = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < BUFFERS; i++) {
    hurray_handoff *h = &run->handoffs[i];
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_status status = hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL);
    note(&run->accept_wins[i], status, true, &run->unexpected);
    if (status == HURRAY_OK) {
      if (i % 2 == 1) {
        note(&run->event_release_wins[i], hurray_handoff_release_event(h, NULL), false,
             &run->unexpected);
      }
      note(&run->release_wins[i], hurray_handoff_release(h, NULL), false, &run->unexpected);
    }
  }
  return NULL;
}

START_TEST(withdraw_races_accept) {
  shared_run *run = new_run();
  offer_all(run);
  atomic_store(&run->unexpected, 0);
  run_racers(run, accept_or_withdraw, THREADS);
  const int unexpected = atomic_load(&run->unexpected);
  ck_assert_int_eq(unexpected, 0);
  for (int i = 0; i < BUFFERS; i++) {
    const int accepted = atomic_load(&run->accept_wins[i]);
    const int withdrawn = atomic_load(&run->withdraw_wins[i]);
    ck_assert_int_eq(accepted + withdrawn, 1);
    /* Withdrawn: the producer kept ownership, no callback ran (HO-OWN-2). */
    ck_assert_int_eq(atomic_load(&run->logs[i].buffer_releases), accepted);
    ck_assert_int_eq(atomic_load(&run->logs[i].event_releases), accepted && i % 2 == 1);
    ck_assert_int_eq(hurray_handoff_destroy(&run->handoffs[i], NULL), HURRAY_OK);
  }
  free_run(run);
}
END_TEST

/* Half the threads move each buffer into their own list, half release it:
 * exactly one wins per buffer, and the buffer is released exactly once, by
 * the handoff or by the winning list (HO-LIST-7). A list holds at most 255
 * buffers, so the race runs on that many. */
#define RACED_TRANSFERS 255
static hurray_buffer_list *thread_lists[THREADS];

static void *transfer_or_release(void *arg) {
  const racer *w = arg;
  shared_run *run = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < RACED_TRANSFERS; i++) {
    hurray_handoff *h = &run->handoffs[i];
    hurray_status status = w->id % 2 == 0
                               ? hurray_buffer_list_push_handoff(thread_lists[w->id], h, NULL)
                               : hurray_handoff_release(h, NULL);
    note(&run->release_wins[i], status, false, &run->unexpected);
  }
  return NULL;
}

START_TEST(transfer_races_release) {
  shared_run *run = new_run();
  offer_all(run);
  for (int i = 0; i < BUFFERS; i++) {
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_handoff *h = &run->handoffs[i];
    ck_assert_int_eq(hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                     HURRAY_OK);
    if (i % 2 == 1) {
      ck_assert_int_eq(hurray_handoff_record_event_wait(h, NULL), HURRAY_OK);
      ck_assert_int_eq(hurray_handoff_release_event(h, NULL), HURRAY_OK);
    }
  }
  atomic_store(&run->unexpected, 0);
  for (int t = 0; t < THREADS; t++) {
    ck_assert_int_eq(hurray_buffer_list_create(&thread_lists[t], NULL), HURRAY_OK);
  }
  run_racers(run, transfer_or_release, THREADS);
  size_t listed = 0;
  for (int t = 0; t < THREADS; t++) {
    listed += hurray_buffer_list_count(thread_lists[t]);
    hurray_buffer_list_destroy(&thread_lists[t]);
  }
  const int unexpected = atomic_load(&run->unexpected);
  ck_assert_int_eq(unexpected, 0);
  ck_assert_uint_le(listed, RACED_TRANSFERS);
  for (int i = 0; i < BUFFERS; i++) {
    if (i >= RACED_TRANSFERS) {
      ck_assert_int_eq(hurray_handoff_release(&run->handoffs[i], NULL), HURRAY_OK);
    } else {
      ck_assert_int_eq(atomic_load(&run->release_wins[i]), 1);
    }
    ck_assert_int_eq(atomic_load(&run->logs[i].buffer_releases), 1);
    ck_assert_int_eq(hurray_handoff_destroy(&run->handoffs[i], NULL), HURRAY_OK);
  }
  free_run(run);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("handoff_stress", "stress", 240,
                           racing_releases_release_each_buffer_once, withdraw_races_accept,
                           transfer_races_release);
}
