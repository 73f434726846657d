/*
 * HO-LIST-1..6: buffer lists own their buffers, keep them colocated, lend
 * them by index and release each exactly once, re-entrant callbacks
 * included.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_test_support.h"
#include "check_main.h"

static hurray_buffer_list *new_list(void) {
  hurray_buffer_list *list = NULL;
  ck_assert_int_eq(hurray_buffer_list_create(&list, NULL), HURRAY_OK);
  ck_assert_ptr_nonnull(list);
  return list;
}

/* Records the order in which buffers are released. */
typedef struct order_log {
  int order[300];
  int n;
} order_log;

static void record_order(void *buffer, void *ctx) {
  order_log *log = ctx;
  log->order[log->n++] = (int)(intptr_t)buffer;
}

START_TEST(push_borrow_destroy_in_order) {
  hurray_buffer_list *list = new_list();
  order_log log = {{0}, 0};
  /* data plus a scale buffer plus an empty one, all on CUDA standard memory */
  const hurray_buffer_handle data = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  hurray_buffer_handle scale = data;
  scale.byte_size = 64;
  scale.alignment = 64;
  const hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CUDA);
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &data, (void *)(intptr_t)1, record_order, &log, NULL),
      HURRAY_OK);
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &scale, (void *)(intptr_t)2, record_order, &log, NULL),
      HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_list_push(list, &empty, NULL, record_order, &log, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_list_count(list), 3);
  hurray_buffer_handle got;
  void *ptr = NULL;
  ck_assert_int_eq(hurray_buffer_list_borrow(list, 1, &got, &ptr, NULL), HURRAY_OK);
  ck_assert(hurray_buffer_handle_equal(&got, &scale));
  ck_assert_ptr_eq(ptr, (void *)(intptr_t)2);
  ck_assert_int_eq(hurray_buffer_list_borrow(list, 2, NULL, &ptr, NULL), HURRAY_OK);
  ck_assert_ptr_null(ptr);
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_list_borrow(list, 3, &got, &ptr, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 3);
  ck_assert_uint_eq(err.expected, 3);
  ck_assert_int_eq(log.n, 0); /* borrowing releases nothing */
  hurray_buffer_list_destroy(&list);
  ck_assert_ptr_null(list);
  ck_assert_int_eq(log.n, 3);
  ck_assert_int_eq(log.order[0], 1);
  ck_assert_int_eq(log.order[1], 2);
  ck_assert_int_eq(log.order[2], 0);
}
END_TEST

START_TEST(destroying_null_is_a_no_op) {
  hurray_buffer_list_destroy(NULL);
  hurray_buffer_list *none = NULL;
  hurray_buffer_list_destroy(&none);
  ck_assert_ptr_null(none);
  ck_assert_uint_eq(hurray_buffer_list_count(NULL), 0);
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_list_borrow(NULL, 0, NULL, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  const hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  ck_assert_int_eq(
      hurray_buffer_list_push(NULL, &h, FAKE_DEVICE_POINTER, count_buffer_release, NULL, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_buffer_list_create(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
}
END_TEST

/* HO-LIST-2: refused pushes leave ownership with the caller: no callback, ever. */
START_TEST(refused_pushes_call_nothing) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_list *list = new_list();
  const hurray_buffer_handle first = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &first, FAKE_DEVICE_POINTER, count_buffer_release, &log, NULL),
      HURRAY_OK);
  hurray_error err;

  hurray_buffer_handle other = first;
  other.device_tag = HURRAY_DEVICE_ROCM;
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &other, FAKE_DEVICE_POINTER, count_buffer_release, &log, &err),
      HURRAY_ERR_DEVICE_TAG_MISMATCH);
  ck_assert_uint_eq(err.value, HURRAY_DEVICE_ROCM);
  ck_assert_uint_eq(err.expected, HURRAY_DEVICE_CUDA);
  ck_assert_uint_eq(err.index, 1);

  other = first;
  other.memory_class = HURRAY_MEMORY_UNIFIED;
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &other, FAKE_DEVICE_POINTER, count_buffer_release, &log, &err),
      HURRAY_ERR_MEMORY_CLASS_MISMATCH);
  ck_assert_uint_eq(err.value, HURRAY_MEMORY_UNIFIED);
  ck_assert_uint_eq(err.index, 1);

  other = first;
  other.alignment = 48;
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &other, FAKE_DEVICE_POINTER, count_buffer_release, &log, &err),
      HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  ck_assert_uint_eq(err.index, 1);

  ck_assert_int_eq(hurray_buffer_list_push(list, &first, NULL, count_buffer_release, &log, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  ck_assert_int_eq(hurray_buffer_list_push(list, &first, FAKE_DEVICE_POINTER, NULL, &log, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3);
  ck_assert_int_eq(
      hurray_buffer_list_push(list, NULL, FAKE_DEVICE_POINTER, count_buffer_release, &log, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1);

  ck_assert_uint_eq(hurray_buffer_list_count(list), 1);
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 0);
  hurray_buffer_list_destroy(&list);
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 1); /* only the accepted one */
}
END_TEST

/* HO-LIST-1: at most 255 entries, like a buffer table. */
START_TEST(capacity_is_a_tables) {
  order_log log = {{0}, 0};
  hurray_buffer_list *list = new_list();
  const hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  for (int i = 0; i < 255; i++) {
    ck_assert_int_eq(
        hurray_buffer_list_push(list, &h, (void *)(intptr_t)(i + 1), record_order, &log, NULL),
        HURRAY_OK);
  }
  hurray_error err;
  ck_assert_int_eq(
      hurray_buffer_list_push(list, &h, (void *)(intptr_t)999, record_order, &log, &err),
      HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 256);
  ck_assert_uint_eq(err.expected, 255);
  ck_assert_uint_eq(hurray_buffer_list_count(list), 255);
  hurray_buffer_list_destroy(&list);
  ck_assert_int_eq(log.n, 255);
  for (int i = 0; i < 255; i++) {
    ck_assert_int_eq(log.order[i], i + 1);
  }
}
END_TEST

/* HO-LIST-4, HO-LIST-5: callbacks that re-enter the list being destroyed. */
typedef struct reentrant_ctx {
  hurray_buffer_list *stale; /* a copy of the caller's pointer */
  int releases[3];
  hurray_status borrow_status;
  hurray_status push_status;
  size_t count_seen;
} reentrant_ctx;

static void reenter(void *buffer, void *ctx) {
  reentrant_ctx *r = ctx;
  const int i = (int)(intptr_t)buffer - 1;
  r->releases[i]++;
  r->borrow_status = hurray_buffer_list_borrow(r->stale, 0, NULL, NULL, NULL);
  const hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  r->push_status = hurray_buffer_list_push(r->stale, &h, FAKE_DEVICE_POINTER, reenter, r, NULL);
  r->count_seen = hurray_buffer_list_count(r->stale);
  hurray_buffer_list *again = r->stale;
  hurray_buffer_list_destroy(&again); /* must be a no-op: already being destroyed */
  ck_assert_ptr_null(again);
}

START_TEST(reentrant_callbacks_cannot_double_release) {
  hurray_buffer_list *list = new_list();
  reentrant_ctx r;
  memset(&r, 0, sizeof r);
  r.stale = list;
  const hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(
        hurray_buffer_list_push(list, &h, (void *)(intptr_t)(i + 1), reenter, &r, NULL), HURRAY_OK);
  }
  hurray_buffer_list_destroy(&list);
  ck_assert_ptr_null(list);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(r.releases[i], 1);
  }
  ck_assert_int_eq(r.borrow_status, HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(r.push_status, HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(r.count_seen, 0);
}
END_TEST

/* HO-LIST-7: a consumer moves accepted handoffs into the list that owns them. */
START_TEST(list_of_accepted_handoffs) {
  release_log data_log;
  release_log scale_log;
  release_log_reset(&data_log);
  release_log_reset(&scale_log);
  hurray_buffer_list *list = new_list();
  hurray_handoff data;
  hurray_handoff scales;
  drive_to_state(&data, HURRAY_HANDOFF_EVENT_WAITED, HURRAY_SYNC_EVENT, &data_log);
  drive_to_state(&scales, HURRAY_HANDOFF_READABLE, HURRAY_SYNC_PRODUCER_SYNCED, &scale_log);
  hurray_error err;
  /* The event is still held: the table refuses, nothing changes. */
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &data, &err),
                   HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_TRANSFER);
  ck_assert_uint_eq(err.expected, HURRAY_HANDOFF_EVENT_WAITED);
  ck_assert_uint_eq(hurray_buffer_list_count(list), 0);
  ck_assert_int_eq(hurray_handoff_release_event(&data, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &data, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &scales, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_state_of(&data), HURRAY_HANDOFF_RELEASED);
  ck_assert_uint_eq(hurray_handoff_state_of(&scales), HURRAY_HANDOFF_RELEASED);
  /* The duty moved: the handoff cannot release or transfer again. */
  ck_assert_int_eq(hurray_handoff_release(&data, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &data, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(hurray_buffer_list_count(list), 2);
  hurray_buffer_handle got;
  void *ptr = NULL;
  ck_assert_int_eq(hurray_buffer_list_borrow(list, 0, &got, &ptr, NULL), HURRAY_OK);
  ck_assert_ptr_eq(ptr, FAKE_DEVICE_POINTER);
  ck_assert_int_eq(got.sync_mode, HURRAY_SYNC_EVENT);
  ck_assert_int_eq(atomic_load(&data_log.buffer_releases), 0);
  ck_assert_int_eq(atomic_load(&data_log.event_releases), 1);
  hurray_buffer_list_destroy(&list);
  ck_assert_int_eq(atomic_load(&data_log.buffer_releases), 1);
  ck_assert_int_eq(atomic_load(&scale_log.buffer_releases), 1);
  ck_assert_int_eq(hurray_handoff_destroy(&data, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_destroy(&scales, NULL), HURRAY_OK);
}
END_TEST

/* A list refusal leaves the handoff as it was: the consumer still owes the release. */
START_TEST(refused_transfer_changes_nothing) {
  release_log cuda_log;
  release_log rocm_log;
  release_log_reset(&cuda_log);
  release_log_reset(&rocm_log);
  hurray_buffer_list *list = new_list();
  hurray_handoff first;
  drive_to_state(&first, HURRAY_HANDOFF_READABLE, HURRAY_SYNC_PRODUCER_SYNCED, &cuda_log);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &first, NULL), HURRAY_OK);
  /* A ROCm buffer is not colocated with the CUDA one. */
  hurray_handoff other;
  hurray_handoff_init(&other);
  hurray_buffer_handle rocm = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  rocm.device_tag = HURRAY_DEVICE_ROCM;
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &rocm_log);
  ck_assert_int_eq(hurray_handoff_offer(&other, &rocm, &offer, NULL), HURRAY_OK);
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&other, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, NULL),
                   HURRAY_OK);
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &other, &err),
                   HURRAY_ERR_DEVICE_TAG_MISMATCH);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_uint_eq(hurray_handoff_state_of(&other), HURRAY_HANDOFF_READABLE);
  ck_assert_uint_eq(hurray_buffer_list_count(list), 1);
  ck_assert_int_eq(atomic_load(&rocm_log.buffer_releases), 0);
  ck_assert_int_eq(hurray_handoff_release(&other, NULL), HURRAY_OK);
  ck_assert_int_eq(atomic_load(&rocm_log.buffer_releases), 1);
  /* NULL and never-initialised handoffs. */
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(NULL, &other, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  hurray_handoff garbage;
  memset(&garbage, 0, sizeof garbage);
  ck_assert_int_eq(hurray_buffer_list_push_handoff(list, &garbage, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  hurray_buffer_list_destroy(&list);
  ck_assert_int_eq(atomic_load(&cuda_log.buffer_releases), 1);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("buffer_list", "list", 0, push_borrow_destroy_in_order,
                           destroying_null_is_a_no_op, refused_pushes_call_nothing,
                           capacity_is_a_tables, reentrant_callbacks_cannot_double_release,
                           list_of_accepted_handoffs, refused_transfer_changes_nothing);
}
