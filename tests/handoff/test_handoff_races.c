/*
 * The concurrent uses specs/handoff.md allows, each driven hard enough that
 * ThreadSanitizer (tools/test builds this suite with -fsanitize=thread) sees
 * every unordered access the library makes:
 *  - a consumer polling accept, access, the state or any other call while
 *    the producer offers (HO-THR-1, HO-THR-4: nothing is read before the
 *    offer is published);
 *  - destroy racing the offer: one of them wins (HO-THR-1);
 *  - a losing releaser that destroys and reuses the storage at once, while
 *    the winner may still be running the callback (HO-THR-5).
 * Each also checks the callbacks fired exactly once with the right context,
 * so the old behaviour fails here even without the sanitizer when a stale
 * read happens to see the reused storage.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_test_support.h"
#include "check_main.h"
#include "racing_threads.h"

#define HANDOFFS 3000

/* The three sync modes in turn, and every other offer in wire form, so
 * both offer functions and every accept operation race. */
static hurray_sync_mode mode_of(int i) { return (hurray_sync_mode)(i % 3); }

static hurray_status offer_number(hurray_handoff *h, int i, release_log *log) {
  const hurray_buffer_handle handle = cuda_handle(mode_of(i));
  const hurray_buffer_offer offer = offer_for_mode(mode_of(i), log);
  if ((i / 3) % 2 == 0) {
    return hurray_handoff_offer(h, &handle, &offer, NULL);
  }
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(&handle, wire);
  return hurray_handoff_offer_encoded(h, wire, &offer, NULL);
}

typedef struct race {
  hurray_handoff *handoffs;
  release_log *logs;
  release_log *reuse_logs;
  atomic_int *wins;
  atomic_int unexpected;
  atomic_int offer_wins;
  atomic_int destroy_wins;
  /* Which handoff the waiting side may go on with. Relaxed on purpose: it
   * only paces the two threads so that they overlap on every handoff, and
   * orders no memory, so the sanitizer still sees every access the library
   * leaves unordered. */
  atomic_int go;
} race;

static race *new_race(void) {
  race *r = calloc(1, sizeof *r);
  ck_assert_ptr_nonnull(r);
  r->handoffs = calloc(HANDOFFS, sizeof *r->handoffs);
  r->logs = calloc(HANDOFFS, sizeof *r->logs);
  r->reuse_logs = calloc(HANDOFFS, sizeof *r->reuse_logs);
  r->wins = calloc(HANDOFFS, sizeof *r->wins);
  ck_assert(r->handoffs && r->logs && r->reuse_logs && r->wins);
  for (int i = 0; i < HANDOFFS; i++) {
    release_log_reset(&r->logs[i]);
    release_log_reset(&r->reuse_logs[i]);
    atomic_init(&r->wins[i], 0);
    hurray_handoff_init(&r->handoffs[i]);
  }
  atomic_init(&r->unexpected, 0);
  atomic_init(&r->offer_wins, 0);
  atomic_init(&r->destroy_wins, 0);
  atomic_init(&r->go, -1);
  return r;
}

static void free_race(race *r) {
  free(r->handoffs);
  free(r->logs);
  free(r->reuse_logs);
  free(r->wins);
  free(r);
}

static void unexpected_if(race *r, bool bad) {
  if (bad) {
    atomic_fetch_add(&r->unexpected, 1);
  }
}

/* Two threads started together, the first running `first`, the second
 * `second`. */
static void run_pair(race *r, racer_body *first, racer_body *second) {
  racer_body *const bodies[] = {first, second};
  run_racer_bodies(r, bodies, 2);
}

static void let_go(race *r, int i) { atomic_store_explicit(&r->go, i, memory_order_relaxed); }

static void wait_for_go(race *r, int i) {
  while (atomic_load_explicit(&r->go, memory_order_relaxed) < i) {
    sched_yield(); /* under valgrind, one thread runs at a time */
  }
}

/* Offers handoff i once the poller has looked at it while still empty. */
static void *offer_every_handoff(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    wait_for_go(r, i);
    unexpected_if(r, offer_number(&r->handoffs[i], i, &r->logs[i]) != HURRAY_OK);
  }
  return NULL;
}

/* After the poller's accept of the published offer of handoff i answered
 * `status`, which must be OK: the consumer's duties, then the release. */
static void finish_accepted(race *r, int i, hurray_status status,
                            const hurray_accepted_buffer *got) {
  unexpected_if(r, status != HURRAY_OK);
  if (status != HURRAY_OK) {
    return;
  }
  hurray_handoff *h = &r->handoffs[i];
  unexpected_if(r, got->data != FAKE_DEVICE_POINTER);
  if (mode_of(i) == HURRAY_SYNC_EVENT) {
    unexpected_if(r, got->event != FAKE_EVENT);
    unexpected_if(r, hurray_handoff_record_event_wait(h, NULL) != HURRAY_OK);
    unexpected_if(r, hurray_handoff_release_event(h, NULL) != HURRAY_OK);
  } else if (mode_of(i) == HURRAY_SYNC_CONSUMER_STREAM) {
    unexpected_if(r, got->stream != FAKE_STREAM);
    void *data = NULL;
    unexpected_if(r, hurray_handoff_access(h, FAKE_STREAM, &data, NULL) != HURRAY_OK);
    unexpected_if(r, data != FAKE_DEVICE_POINTER);
  }
  unexpected_if(r, hurray_handoff_release(h, NULL) != HURRAY_OK);
}

/* HO-THR-1, HO-THR-4: accept polled while the offer is being written. Before
 * the offer is published the answer is ILLEGAL_TRANSITION (state empty). */
static void *poll_accept(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_status status =
        hurray_handoff_accept(&r->handoffs[i], HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL);
    unexpected_if(r, status != HURRAY_ERR_ILLEGAL_TRANSITION); /* not offered yet */
    let_go(r, i);
    while ((status = hurray_handoff_accept(&r->handoffs[i], HURRAY_TRANSPORT_IN_PROCESS, 0, &got,
                                           NULL)) == HURRAY_ERR_ILLEGAL_TRANSITION) {
      sched_yield();
    }
    finish_accepted(r, i, status, &got);
  }
  return NULL;
}

static void check_each_released_once(race *r) {
  ck_assert_int_eq(atomic_load(&r->unexpected), 0);
  for (int i = 0; i < HANDOFFS; i++) {
    ck_assert_int_eq(atomic_load(&r->logs[i].buffer_releases), 1);
    ck_assert_int_eq(atomic_load(&r->logs[i].event_releases), mode_of(i) == HURRAY_SYNC_EVENT);
    ck_assert_uint_eq(hurray_handoff_state_of(&r->handoffs[i]), HURRAY_HANDOFF_RELEASED);
    ck_assert_int_eq(hurray_handoff_destroy(&r->handoffs[i], NULL), HURRAY_OK);
  }
}

/* Every handoff offered while `poller` polls it; each must be released
 * once, its event too, and end RELEASED. */
static void race_offers_against(void *(*poller)(void *)) {
  race *r = new_race();
  run_pair(r, offer_every_handoff, poller);
  check_each_released_once(r);
  free_race(r);
}

START_TEST(accept_polled_during_offer) { race_offers_against(poll_accept); }
END_TEST

/* HO-THR-4: access (with the declared stream and with another one) and the
 * state polled during the offer; access before accept is illegal whatever
 * the state, so the poller waits for OFFERED through the state. */
static void *poll_access(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    hurray_handoff *h = &r->handoffs[i];
    for (bool first = true;; first = false) {
      void *data = NULL;
      unexpected_if(r, hurray_handoff_access(h, FAKE_STREAM, &data, NULL) !=
                           HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, hurray_handoff_access(h, FAKE_OTHER_STREAM, &data, NULL) !=
                           HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, data != NULL);
      if (first) {
        let_go(r, i);
      }
      const uint32_t state = hurray_handoff_state_of(h);
      if (state == HURRAY_HANDOFF_OFFERED) {
        break;
      }
      unexpected_if(r, state != HURRAY_HANDOFF_EMPTY);
      sched_yield();
    }
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    finish_accepted(r, i, hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                    &got);
  }
  return NULL;
}

START_TEST(access_polled_during_offer) { race_offers_against(poll_access); }
END_TEST

/* HO-THR-2, HO-THR-4: every other call that refuses both an empty and an
 * offered object, polled during the offer: the event and stream steps, the
 * release, the transfer into a list. Each must refuse with
 * ILLEGAL_TRANSITION and change nothing, and the offer must then be
 * accepted as usual. (Destroy is legal on an empty object: its race with
 * the offer is the next test; withdraw would take the offer back.) */
static void *poll_other_calls(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  hurray_buffer_list *list = NULL;
  unexpected_if(r, hurray_buffer_list_create(&list, NULL) != HURRAY_OK);
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    hurray_handoff *h = &r->handoffs[i];
    for (bool first = true;; first = false) {
      unexpected_if(r, hurray_handoff_record_event_wait(h, NULL) != HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, hurray_handoff_release_event(h, NULL) != HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, hurray_handoff_record_stream_wait(h, NULL) != HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, hurray_handoff_release(h, NULL) != HURRAY_ERR_ILLEGAL_TRANSITION);
      unexpected_if(r, list != NULL && hurray_buffer_list_push_handoff(list, h, NULL) !=
                                           HURRAY_ERR_ILLEGAL_TRANSITION);
      if (first) {
        let_go(r, i);
      }
      if (hurray_handoff_state_of(h) == HURRAY_HANDOFF_OFFERED) {
        break;
      }
      sched_yield();
    }
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    finish_accepted(r, i, hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                    &got);
  }
  unexpected_if(r, hurray_buffer_list_count(list) != 0u);
  hurray_buffer_list_destroy(&list);
  return NULL;
}

START_TEST(other_calls_polled_during_offer) { race_offers_against(poll_other_calls); }
END_TEST

/* HO-THR-1: destroy racing the offer on an empty object. Exactly one wins:
 * the offer (destroy then answers ILLEGAL_TRANSITION, an object holding an
 * offer cannot be destroyed) or the destroy (the offer then answers
 * USE_AFTER_DESTROY and the object stays destroyed). */
static void *offer_racing_destroy(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    let_go(r, i);
    const hurray_status status = offer_number(&r->handoffs[i], i, &r->logs[i]);
    if (status == HURRAY_OK) {
      atomic_fetch_add(&r->offer_wins, 1);
      atomic_fetch_add(&r->wins[i], 1);
    } else {
      unexpected_if(r, status != HURRAY_ERR_USE_AFTER_DESTROY);
    }
  }
  return NULL;
}

static void *destroy_racing_offer(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    hurray_handoff *h = &r->handoffs[i];
    wait_for_go(r, i); /* the offer of i is about to start, or under way */
    const hurray_status status = hurray_handoff_destroy(h, NULL);
    if (status == HURRAY_OK) {
      atomic_fetch_add(&r->destroy_wins, 1);
      atomic_fetch_add(&r->wins[i], 1);
    } else {
      unexpected_if(r, status != HURRAY_ERR_ILLEGAL_TRANSITION);
    }
  }
  return NULL;
}

START_TEST(destroy_races_offer) {
  race *r = new_race();
  run_pair(r, offer_racing_destroy, destroy_racing_offer);
  ck_assert_int_eq(atomic_load(&r->unexpected), 0);
  for (int i = 0; i < HANDOFFS; i++) {
    hurray_handoff *h = &r->handoffs[i];
    ck_assert_msg(atomic_load(&r->wins[i]) == 1, "handoff %d: %d winners of offer and destroy", i,
                  atomic_load(&r->wins[i]));
    const uint32_t state = hurray_handoff_state_of(h);
    if (state == HURRAY_HANDOFF_OFFERED) {
      ck_assert_int_eq(hurray_handoff_withdraw(h, NULL), HURRAY_OK);
      ck_assert_int_eq(hurray_handoff_destroy(h, NULL), HURRAY_OK);
    } else {
      ck_assert_uint_eq(state, HURRAY_HANDOFF_DESTROYED);
    }
    /* Neither winner fires a callback. */
    ck_assert_int_eq(atomic_load(&r->logs[i].buffer_releases), 0);
  }
  ck_assert_int_eq(atomic_load(&r->offer_wins) + atomic_load(&r->destroy_wins), HANDOFFS);
  free_race(r);
}
END_TEST

/* HO-THR-5: two threads release every buffer. The loser (ALREADY_RELEASED)
 * destroys the object and reuses the storage at once for a new offer with
 * another context, accepts it and releases it, while the winner may still be
 * inside its release. The winner must fire the first lifetime's callback
 * with the first lifetime's context, whatever the storage holds by then. */
static void accept_into(race *r, int i, hurray_sync_mode mode) {
  hurray_handoff *h = &r->handoffs[i];
  offer_and_accept(h, mode, &r->logs[i]);
  if (mode == HURRAY_SYNC_EVENT) {
    ck_assert_int_eq(hurray_handoff_record_event_wait(h, NULL), HURRAY_OK);
    ck_assert_int_eq(hurray_handoff_release_event(h, NULL), HURRAY_OK);
  }
}

static void reuse_after_losing(race *r, int i) {
  hurray_handoff *h = &r->handoffs[i];
  unexpected_if(r, hurray_handoff_destroy(h, NULL) != HURRAY_OK);
  /* A new lifetime in the same storage, as HO-MIS-1 allows after destroy. */
  hurray_handoff_init(h);
  const hurray_buffer_handle handle = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &r->reuse_logs[i]);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  unexpected_if(r, hurray_handoff_offer(h, &handle, &offer, NULL) != HURRAY_OK);
  unexpected_if(r,
                hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL) != HURRAY_OK);
  unexpected_if(r, hurray_handoff_release(h, NULL) != HURRAY_OK);
}

static void *release_or_reuse(void *arg) {
  const racer *w = arg;
  race *r = w->shared;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < HANDOFFS; i++) {
    const hurray_status status = hurray_handoff_release(&r->handoffs[i], NULL);
    if (status == HURRAY_OK) {
      atomic_fetch_add(&r->wins[i], 1);
    } else if (status == HURRAY_ERR_ALREADY_RELEASED) {
      reuse_after_losing(r, i);
    } else {
      /* Only the second of the two calls reuses, after both were made. */
      atomic_fetch_add(&r->unexpected, 1);
    }
  }
  return NULL;
}

START_TEST(losing_releaser_reuses_storage) {
  race *r = new_race();
  /* Buffers readable in each way release can leave from. */
  for (int i = 0; i < HANDOFFS; i++) {
    accept_into(r, i, mode_of(i));
  }
  run_pair(r, release_or_reuse, release_or_reuse);
  ck_assert_int_eq(atomic_load(&r->unexpected), 0);
  for (int i = 0; i < HANDOFFS; i++) {
    ck_assert_int_eq(atomic_load(&r->wins[i]), 1);
    /* The first lifetime's buffer released once, through its own context. */
    ck_assert_int_eq(atomic_load(&r->logs[i].buffer_releases), 1);
    ck_assert_ptr_eq(r->logs[i].buffer_seen, FAKE_DEVICE_POINTER);
    /* The reused lifetime released by the loser alone, once. */
    ck_assert_int_eq(atomic_load(&r->reuse_logs[i].buffer_releases), 1);
    ck_assert_int_eq(hurray_handoff_destroy(&r->handoffs[i], NULL), HURRAY_OK);
  }
  free_race(r);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("handoff_races");
  /* One case per race, so CK_RUN_CASE can run one alone. */
  const struct {
    const char *name;
    const TTest *test;
  } races[] = {
      {"accept_polled_during_offer", accept_polled_during_offer},
      {"access_polled_during_offer", access_polled_during_offer},
      {"other_calls_polled_during_offer", other_calls_polled_during_offer},
      {"destroy_races_offer", destroy_races_offer},
      {"losing_releaser_reuses_storage", losing_releaser_reuses_storage},
  };
  for (size_t k = 0; k < sizeof races / sizeof races[0]; k++) {
    TCase *tc = tcase_create(races[k].name);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, races[k].test);
    suite_add_tcase(suite, tc);
  }
  return hurray_check_run(suite);
}
