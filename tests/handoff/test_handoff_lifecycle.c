/*
 * Whole handoffs from offer to destroy, one per sync mode, with every
 * callback counted and its arguments checked (HO-OWN-1..3, HO-SYNC duties in
 * HO-SM-2); the ABI version (HO-ABI-1..2); misuse detection (HO-MIS-1..2);
 * callbacks that call back in (HO-THR-3).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_test_support.h"
#include "check_main.h"

static void assert_counts(release_log *log, int buffer, int event) {
  ck_assert_int_eq(atomic_load(&log->buffer_releases), buffer);
  ck_assert_int_eq(atomic_load(&log->event_releases), event);
}

START_TEST(abi_version_is_the_headers) {
  ck_assert_uint_eq(hurray_c_abi_version(), HURRAY_C_ABI_VERSION);
  ck_assert_uint_ge(hurray_c_abi_version(), 1u);
}
END_TEST

/* HO-SYNC-1: readable at once, on any stream. BP-OWN-2: the consumer releases
 * once, through the producer's callback, and cannot reach the buffer after.
 * BP-OWN-6: the consumer gets the producer's own address, not a copy. */
START_TEST(producer_synced_path) {
  release_log log;
  release_log_reset(&log);
  static _Alignas(4096) unsigned char host[4096];
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(host, sizeof host, 4096, &handle, NULL),
                   HURRAY_OK);
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(host, count_buffer_release, &log, hurray_sync_payload_none());
  hurray_handoff h;
  hurray_handoff_init(&h);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EMPTY);
  ck_assert_int_eq(hurray_handoff_offer(&h, &handle, &offer, NULL), HURRAY_OK);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                   HURRAY_OK);
  ck_assert(hurray_buffer_handle_equal(&got.handle, &handle));
  ck_assert_ptr_eq(got.data, host);
  ck_assert_ptr_null(got.event);
  ck_assert_ptr_null(got.stream);
  void *data = NULL;
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, &data, NULL), HURRAY_OK);
  ck_assert_ptr_eq(data, host);
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_OTHER_STREAM, &data, NULL), HURRAY_OK);
  assert_counts(&log, 0, 0);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 0);
  ck_assert_ptr_eq(log.buffer_seen, host);
  /* Nothing is readable after the release, and a second release is refused. */
  hurray_error err;
  data = NULL;
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, &data, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_ptr_null(data);
  ck_assert_int_eq(hurray_handoff_release(&h, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_RELEASE);
  assert_counts(&log, 1, 0);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 0);
}
END_TEST

/* HO-SYNC-2: not readable until the event wait is recorded; recording again
 * is allowed while the event is held. */
START_TEST(event_path) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  const hurray_accepted_buffer got = offer_and_accept(&h, HURRAY_SYNC_EVENT, &log);
  ck_assert_ptr_eq(got.event, FAKE_EVENT);
  ck_assert_ptr_eq(got.data, FAKE_DEVICE_POINTER);
  /* Not readable before the wait; the buffer cannot be released before the event. */
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_record_stream_wait(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  assert_counts(&log, 0, 0);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK); /* a second stream */
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_STREAM, NULL, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  assert_counts(&log, 0, 1);
  ck_assert_ptr_eq(log.event_seen, FAKE_EVENT);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_STREAM, NULL, NULL), HURRAY_OK);
  assert_counts(&log, 0, 1);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 1);
  ck_assert_ptr_eq(log.buffer_seen, FAKE_DEVICE_POINTER);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 1);
}
END_TEST

/* A consumer giving an event buffer up unread still releases both, once each. */
START_TEST(event_dropped_path) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  drive_to_state(&h, HURRAY_HANDOFF_EVENT_PENDING, HURRAY_SYNC_EVENT, &log);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  assert_counts(&log, 0, 1);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 1);
}
END_TEST

/* HO-SYNC-4: readable on the declared stream only until the stream wait is
 * recorded, then on any stream; there is no event to release. */
START_TEST(consumer_stream_path) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  const hurray_accepted_buffer got = offer_and_accept(&h, HURRAY_SYNC_CONSUMER_STREAM, &log);
  ck_assert_ptr_eq(got.stream, FAKE_STREAM);
  ck_assert_ptr_null(got.event);
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_STREAM, NULL, NULL), HURRAY_OK);
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_OTHER_STREAM, NULL, &err),
                   HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM);
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_record_stream_wait(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_access(&h, FAKE_OTHER_STREAM, NULL, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 0);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
}
END_TEST

/* HO-OWN-2: a withdrawn offer calls nothing; the producer frees its own.
 * BP-OWN-1: ownership is never shared: once withdrawn, no consumer can take it. */
START_TEST(withdraw_calls_nothing) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  drive_to_state(&h, HURRAY_HANDOFF_OFFERED, HURRAY_SYNC_EVENT, &log);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                   HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  assert_counts(&log, 0, 0);
}
END_TEST

/* HO-MIS-1: a destroyed handoff answers USE_AFTER_DESTROY to everything, calls nothing. */
START_TEST(destroyed_is_poisoned) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  drive_to_state(&h, HURRAY_HANDOFF_RELEASED, HURRAY_SYNC_PRODUCER_SYNCED, &log);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  const hurray_buffer_handle handle = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_offer(&h, &handle, &offer, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_withdraw(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, &err),
                   HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_release_event(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_record_stream_wait(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(hurray_handoff_release(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_RELEASE);
  ck_assert_int_eq(hurray_handoff_destroy(&h, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_DESTROYED);
  char msg[256];
  hurray_error_format(&err, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "destroyed") != NULL && strstr(msg, "destroy") != NULL, "%s", msg);
  assert_counts(&log, 1, 0);
  /* The storage can start a new lifetime. */
  hurray_handoff_init(&h);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EMPTY);
  ck_assert_int_eq(hurray_handoff_offer(&h, &handle, &offer, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
}
END_TEST

/* HO-MIS-2: storage never initialised is reported, not trusted. */
START_TEST(uninitialised_storage_is_refused) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  memset(&h, 0, sizeof h);
  const hurray_buffer_handle handle = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_offer(&h, &handle, &offer, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_msg(strstr(err.detail, "hurray_handoff_init") != NULL, "%s", err.detail);
  memset(&h, 0x5A, sizeof h);
  ck_assert_int_eq(hurray_handoff_release(&h, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, &err), HURRAY_ERR_INVALID_ARGUMENT);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_STATE_INVALID);
  assert_counts(&log, 0, 0);
}
END_TEST

START_TEST(null_handoff_everywhere) {
  hurray_error err;
  hurray_handoff_init(NULL);
  ck_assert_int_eq(hurray_handoff_withdraw(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_record_event_wait(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_release_event(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_record_stream_wait(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_access(NULL, NULL, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_release(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_destroy(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_uint_eq(hurray_handoff_state_of(NULL), HURRAY_HANDOFF_STATE_INVALID);
}
END_TEST

/* HO-THR-3: a release callback that calls back in sees the state after its own release. */
typedef struct reentry {
  hurray_handoff *handoff;
  hurray_status second_release;
  hurray_status second_event_release;
  int calls;
} reentry;

static void release_again(void *buffer, void *ctx) {
  (void)buffer;
  reentry *r = ctx;
  r->calls++;
  r->second_release = hurray_handoff_release(r->handoff, NULL);
}

static void release_event_again(void *event, void *ctx) {
  (void)event;
  reentry *r = ctx;
  r->calls++;
  r->second_event_release = hurray_handoff_release_event(r->handoff, NULL);
}

START_TEST(reentrant_callbacks_cannot_release_twice) {
  hurray_handoff h;
  reentry r = {&h, HURRAY_OK, HURRAY_OK, 0};
  const hurray_buffer_handle handle = cuda_handle(HURRAY_SYNC_EVENT);
  hurray_buffer_offer offer = hurray_buffer_offer_make(
      FAKE_DEVICE_POINTER, release_again, &r,
      hurray_sync_payload_event(FAKE_EVENT, HURRAY_DEVICE_CUDA, release_event_again, &r));
  offer_and_accept_buffer(&h, &handle, &offer);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(r.calls, 1);
  ck_assert_int_eq(r.second_event_release, HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(r.calls, 2);
  ck_assert_int_eq(r.second_release, HURRAY_ERR_ALREADY_RELEASED);
}
END_TEST

/* An event buffer accepted into a fresh handoff; `out` gets what accept
 * writes. The event and the buffer are released before it returns. */
static void accept_event_buffer(hurray_accepted_buffer *out) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  drive_to_state(&h, HURRAY_HANDOFF_OFFERED, HURRAY_SYNC_EVENT, &log);
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, out, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  assert_counts(&log, 1, 1);
}

/* HO-ABI-9: for every struct_size from the 1.0 layout to past ours, accept
 * writes what a full-size caller gets, up to that size and not one byte
 * further, and keeps the caller's struct_size. The sizes that end inside
 * event_kind or reserved take their own path in accept. */
START_TEST(accept_writes_exactly_the_callers_size) {
  hurray_accepted_buffer full = HURRAY_ACCEPTED_BUFFER_INIT;
  accept_event_buffer(&full);
  ck_assert_uint_ne(full.event_kind, HURRAY_EVENT_KIND_NONE);
  const unsigned char *want = (const unsigned char *)&full;
  for (uint32_t size = HURRAY_ACCEPTED_BUFFER_MIN_SIZE; size <= sizeof full + 8u; size++) {
    union {
      hurray_accepted_buffer out;
      unsigned char bytes[sizeof(hurray_accepted_buffer) + 16u];
    } got;
    memset(&got, 0xA5, sizeof got);
    got.out.struct_size = size;
    accept_event_buffer(&got.out);
    ck_assert_uint_eq(got.out.struct_size, size);
    for (size_t b = sizeof got.out.struct_size; b < sizeof got.bytes; b++) {
      const unsigned char expected = b < size && b < sizeof full ? want[b] : 0xA5u;
      ck_assert_msg(got.bytes[b] == expected, "struct_size %u: byte %zu is 0x%02x, not 0x%02x",
                    size, b, got.bytes[b], expected);
    }
  }
}
END_TEST

START_TEST(names) {
  ck_assert_str_eq(hurray_handoff_state_name(HURRAY_HANDOFF_EVENT_PENDING), "event_pending");
  ck_assert_str_eq(hurray_handoff_state_name(HURRAY_HANDOFF_STATE_COUNT), "invalid");
  ck_assert_str_eq(hurray_handoff_op_name(HURRAY_HANDOFF_OP_RELEASE_EVENT), "release_event");
  ck_assert_str_eq(hurray_handoff_op_name(HURRAY_HANDOFF_OP_TRANSFER), "transfer");
  ck_assert_str_eq(hurray_handoff_op_name(HURRAY_HANDOFF_OP_COUNT), "invalid");
  ck_assert_str_eq(hurray_status_name(HURRAY_ERR_SYNC_MODE_MISMATCH), "SYNC_MODE_MISMATCH");
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN(
      "handoff_lifecycle", "lifecycle", 0, abi_version_is_the_headers, producer_synced_path,
      event_path, event_dropped_path, consumer_stream_path, withdraw_calls_nothing,
      destroyed_is_poisoned, uninitialised_storage_is_refused, null_handoff_everywhere,
      reentrant_callbacks_cannot_release_twice, accept_writes_exactly_the_callers_size, names);
}
