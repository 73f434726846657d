/*
 * Counting callbacks and ready-made offers for the handoff tests.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "handoff_test_support.h"

#include <check.h>

int fake_event_object;
int fake_stream_object;
int fake_other_stream_object;

void release_log_reset(release_log *log) {
  atomic_store(&log->buffer_releases, 0);
  atomic_store(&log->event_releases, 0);
  log->buffer_seen = NULL;
  log->event_seen = NULL;
}

void count_buffer_release(void *buffer, void *ctx) {
  release_log *log = ctx;
  log->buffer_seen = buffer;
  atomic_fetch_add(&log->buffer_releases, 1);
}

void count_event_release(void *event, void *ctx) {
  release_log *log = ctx;
  log->event_seen = event;
  atomic_fetch_add(&log->event_releases, 1);
}

hurray_buffer_handle cuda_handle(hurray_sync_mode mode) {
  hurray_buffer_handle handle = {4096u, 4096u, HURRAY_DEVICE_CUDA, mode, HURRAY_MEMORY_STANDARD, 0};
  return handle;
}

hurray_buffer_offer offer_for_mode(hurray_sync_mode mode, release_log *log) {
  hurray_buffer_offer offer = hurray_buffer_offer_make(FAKE_DEVICE_POINTER, count_buffer_release,
                                                       log, hurray_sync_payload_none());
  if (mode == HURRAY_SYNC_EVENT) {
    offer.sync =
        hurray_sync_payload_event(FAKE_EVENT, HURRAY_DEVICE_CUDA, count_event_release, log);
  } else if (mode == HURRAY_SYNC_CONSUMER_STREAM) {
    offer.sync = hurray_sync_payload_stream(FAKE_STREAM, HURRAY_DEVICE_CUDA);
  }
  return offer;
}

static void must(hurray_status status, const char *what) {
  ck_assert_msg(status == HURRAY_OK, "driving the handoff: %s returned %s", what,
                hurray_status_name(status));
}

hurray_accepted_buffer offer_and_accept_buffer(hurray_handoff *handoff,
                                               const hurray_buffer_handle *handle,
                                               const hurray_buffer_offer *offer) {
  hurray_handoff_init(handoff);
  must(hurray_handoff_offer(handoff, handle, offer, NULL), "offer");
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  must(hurray_handoff_accept(handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, NULL), "accept");
  return accepted;
}

hurray_accepted_buffer offer_and_accept(hurray_handoff *handoff, hurray_sync_mode mode,
                                        release_log *log) {
  const hurray_buffer_handle handle = cuda_handle(mode);
  const hurray_buffer_offer offer = offer_for_mode(mode, log);
  return offer_and_accept_buffer(handoff, &handle, &offer);
}

void drive_to_state(hurray_handoff *handoff, hurray_handoff_state state,
                    hurray_sync_mode mode_for_offered, release_log *log) {
  hurray_handoff_init(handoff);
  const hurray_buffer_handle handle = cuda_handle(mode_for_offered);
  const hurray_buffer_offer offer = offer_for_mode(mode_for_offered, log);
  switch (state) {
    case HURRAY_HANDOFF_EMPTY: break;
    case HURRAY_HANDOFF_OFFERED:
      must(hurray_handoff_offer(handoff, &handle, &offer, NULL), "offer");
      break;
    case HURRAY_HANDOFF_WITHDRAWN:
      must(hurray_handoff_offer(handoff, &handle, &offer, NULL), "offer");
      must(hurray_handoff_withdraw(handoff, NULL), "withdraw");
      break;
    case HURRAY_HANDOFF_READABLE:
      offer_and_accept(handoff, HURRAY_SYNC_PRODUCER_SYNCED, log);
      break;
    case HURRAY_HANDOFF_EVENT_PENDING: offer_and_accept(handoff, HURRAY_SYNC_EVENT, log); break;
    case HURRAY_HANDOFF_EVENT_WAITED:
      offer_and_accept(handoff, HURRAY_SYNC_EVENT, log);
      must(hurray_handoff_record_event_wait(handoff, NULL), "record_event_wait");
      break;
    case HURRAY_HANDOFF_EVENT_RELEASED:
      offer_and_accept(handoff, HURRAY_SYNC_EVENT, log);
      must(hurray_handoff_record_event_wait(handoff, NULL), "record_event_wait");
      must(hurray_handoff_release_event(handoff, NULL), "release_event");
      break;
    case HURRAY_HANDOFF_EVENT_DROPPED:
      offer_and_accept(handoff, HURRAY_SYNC_EVENT, log);
      must(hurray_handoff_release_event(handoff, NULL), "release_event");
      break;
    case HURRAY_HANDOFF_STREAM_BOUND:
      offer_and_accept(handoff, HURRAY_SYNC_CONSUMER_STREAM, log);
      break;
    case HURRAY_HANDOFF_STREAM_WAITED:
      offer_and_accept(handoff, HURRAY_SYNC_CONSUMER_STREAM, log);
      must(hurray_handoff_record_stream_wait(handoff, NULL), "record_stream_wait");
      break;
    case HURRAY_HANDOFF_RELEASED:
      offer_and_accept(handoff, HURRAY_SYNC_PRODUCER_SYNCED, log);
      must(hurray_handoff_release(handoff, NULL), "release");
      break;
    case HURRAY_HANDOFF_DESTROYED: must(hurray_handoff_destroy(handoff, NULL), "destroy"); break;
  }
  ck_assert_uint_eq(hurray_handoff_state_of(handoff), (unsigned)state);
}
