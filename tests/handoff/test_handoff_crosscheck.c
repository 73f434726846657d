/*
 * HO-CHECK-1..5, HO-PAY-1..5, HO-OWN-2: every way accept can refuse an offer.
 * After each refusal: the status and error values are the spec's, nothing is
 * handed out, no callback ran, the state is still OFFERED and the producer
 * can withdraw and free its own buffer and event.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_test_support.h"
#include "check_main.h"

typedef struct refusal {
  hurray_status status;
  uint64_t value;
  uint64_t expected;
  size_t index;
} refusal;

/* Offers `handle` + `offer`, expects accept (with transport, caps) to fail
 * exactly as `want`, and checks the aftermath. Also checks that
 * hurray_handoff_check gives the same answer before offering (value handles). */
static void expect_refused_value(const hurray_buffer_handle *handle,
                                 const hurray_buffer_offer *offer, hurray_transport transport,
                                 uint32_t caps, refusal want, release_log *log) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_handoff_check(handle, offer, transport, caps, &err), want.status);
  ck_assert_uint_eq(err.value, want.value);
  ck_assert_uint_eq(err.expected, want.expected);
  ck_assert_uint_eq(err.index, want.index);

  hurray_handoff h;
  hurray_handoff_init(&h);
  ck_assert_int_eq(hurray_handoff_offer(&h, handle, offer, NULL), HURRAY_OK);
  hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
  memset(&out, 0xA5, sizeof out);
  hurray_accepted_buffer untouched = HURRAY_ACCEPTED_BUFFER_INIT;
  memcpy(&untouched, &out, sizeof out);
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_handoff_accept(&h, transport, caps, &out, &err), want.status);
  ck_assert_uint_eq(err.value, want.value);
  ck_assert_uint_eq(err.expected, want.expected);
  ck_assert_uint_eq(err.index, want.index);
  ck_assert_msg(memcmp(&out, &untouched, sizeof out) == 0, "a refused accept wrote its output");
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_OFFERED);
  ck_assert_int_eq(atomic_load(&log->buffer_releases), 0);
  ck_assert_int_eq(atomic_load(&log->event_releases), 0);
  /* HO-OWN-2: the producer takes it back; still no callback. */
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(atomic_load(&log->buffer_releases), 0);
  ck_assert_int_eq(atomic_load(&log->event_releases), 0);
  char msg[256];
  ck_assert_uint_gt(hurray_error_format(&err, msg, sizeof msg), 0);
}

static void expect_refused(const hurray_buffer_handle *handle, const hurray_buffer_offer *offer,
                           refusal want, release_log *log) {
  expect_refused_value(handle, offer, HURRAY_TRANSPORT_IN_PROCESS, 0, want, log);
}

static refusal mismatch(hurray_sync_mode mode, hurray_sync_mismatch reason, size_t tag) {
  refusal r = {HURRAY_ERR_SYNC_MODE_MISMATCH, mode, (uint64_t)reason, tag};
  return r;
}

static void add_event(hurray_sync_payload *sync) { sync->event = FAKE_EVENT; }
static void add_event_release(hurray_sync_payload *sync) {
  sync->event_release = count_event_release;
}
static void add_stream(hurray_sync_payload *sync) { sync->stream = FAKE_STREAM; }
static void drop_event(hurray_sync_payload *sync) { sync->event = NULL; }
static void drop_event_release(hurray_sync_payload *sync) { sync->event_release = NULL; }
static void drop_stream(hurray_sync_payload *sync) { sync->stream = NULL; }
static void event_on_rocm(hurray_sync_payload *sync) {
  sync->event_device_tag = HURRAY_DEVICE_ROCM;
}
static void stream_on_vulkan(hurray_sync_payload *sync) {
  sync->stream_device_tag = HURRAY_DEVICE_VULKAN;
}

/* Payloads wrong for the sync mode a CUDA buffer declares: the one
 * offer_for_mode builds for `built_for`, then `change` applied (none:
 * NULL), and the mismatch accept must report. */
static const struct {
  hurray_sync_mode declared;
  hurray_sync_mode built_for;
  void (*change)(hurray_sync_payload *sync);
  hurray_sync_mismatch reason;
  size_t tag;
} wrong_payloads[] = {
    /* producer_synced: the payload must be empty; a release without an event too. */
    {HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_SYNC_EVENT, NULL, HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT,
     0},
    {HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_SYNC_PRODUCER_SYNCED, add_event_release,
     HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT, 0},
    {HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_SYNC_CONSUMER_STREAM, NULL,
     HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM, 0},
    /* event: an event, its release and its tag, and no stream; a payload
     * built for producer_synced misses the event. */
    {HURRAY_SYNC_EVENT, HURRAY_SYNC_EVENT, add_stream, HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM, 0},
    {HURRAY_SYNC_EVENT, HURRAY_SYNC_EVENT, drop_event, HURRAY_SYNC_MISMATCH_MISSING_EVENT, 0},
    {HURRAY_SYNC_EVENT, HURRAY_SYNC_EVENT, drop_event_release,
     HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE, 0},
    {HURRAY_SYNC_EVENT, HURRAY_SYNC_EVENT, event_on_rocm, HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG,
     0x02},
    {HURRAY_SYNC_EVENT, HURRAY_SYNC_PRODUCER_SYNCED, NULL, HURRAY_SYNC_MISMATCH_MISSING_EVENT, 0},
    /* consumer_stream: a stream and its tag, and no event; an event payload
     * has an unexpected event. */
    {HURRAY_SYNC_CONSUMER_STREAM, HURRAY_SYNC_CONSUMER_STREAM, add_event,
     HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT, 0},
    {HURRAY_SYNC_CONSUMER_STREAM, HURRAY_SYNC_CONSUMER_STREAM, add_event_release,
     HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT, 0},
    {HURRAY_SYNC_CONSUMER_STREAM, HURRAY_SYNC_CONSUMER_STREAM, drop_stream,
     HURRAY_SYNC_MISMATCH_MISSING_STREAM, 0},
    {HURRAY_SYNC_CONSUMER_STREAM, HURRAY_SYNC_CONSUMER_STREAM, stream_on_vulkan,
     HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG, 0x04},
    {HURRAY_SYNC_CONSUMER_STREAM, HURRAY_SYNC_EVENT, NULL, HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT,
     0},
};

/* Offers a CUDA buffer declaring `declared` with each wrong payload of
 * that mode: each is refused with its mismatch. */
static void expect_wrong_payloads_refused(hurray_sync_mode declared) {
  release_log log;
  release_log_reset(&log);
  const hurray_buffer_handle h = cuda_handle(declared);
  for (size_t i = 0; i < sizeof wrong_payloads / sizeof wrong_payloads[0]; i++) {
    if (wrong_payloads[i].declared != declared) {
      continue;
    }
    hurray_buffer_offer offer = offer_for_mode(wrong_payloads[i].built_for, &log);
    if (wrong_payloads[i].change != NULL) {
      wrong_payloads[i].change(&offer.sync);
    }
    expect_refused(&h, &offer, mismatch(declared, wrong_payloads[i].reason, wrong_payloads[i].tag),
                   &log);
  }
}

START_TEST(producer_synced_payload_must_be_empty) {
  expect_wrong_payloads_refused(HURRAY_SYNC_PRODUCER_SYNCED);
}
END_TEST

START_TEST(event_payload_needs_event_release_and_tag) {
  expect_wrong_payloads_refused(HURRAY_SYNC_EVENT);
}
END_TEST

START_TEST(stream_payload_needs_stream_and_tag) {
  expect_wrong_payloads_refused(HURRAY_SYNC_CONSUMER_STREAM);
}
END_TEST

/* HO-CHECK-2: undefined sync bytes, in value handles and in wire bytes. */
START_TEST(undefined_sync_byte_is_invalid_sync_mode) {
  release_log log;
  release_log_reset(&log);
  const uint8_t bytes[] = {0x03, 0x04, 0x7F, 0xEF, 0xF0, 0xFE, 0xFF};
  for (size_t i = 0; i < sizeof bytes; i++) {
    hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
    h.sync_mode = bytes[i];
    const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
    const refusal want = {HURRAY_ERR_INVALID_SYNC_MODE, bytes[i], 0, 0};
    expect_refused(&h, &offer, want, &log);
  }
}
END_TEST

/* Wire bytes offered as given are decoded by accept in BP-ORDER-1 order. */
START_TEST(encoded_handles_are_decoded_at_accept) {
  release_log log;
  release_log_reset(&log);
  const hurray_buffer_handle good = cuda_handle(HURRAY_SYNC_EVENT);
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(&good, wire);
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_EVENT, &log);
  struct {
    size_t offset;
    uint8_t byte;
    hurray_status status;
  } cases[] = {
      {15, 0x01, HURRAY_ERR_RESERVED_BYTE_NONZERO}, {13, 0x03, HURRAY_ERR_INVALID_SYNC_MODE},
      {13, 0xFF, HURRAY_ERR_INVALID_SYNC_MODE},     {12, 0x09, HURRAY_ERR_RESERVED_DEVICE_TAG},
      {14, 0x04, HURRAY_ERR_RESERVED_MEMORY_CLASS},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t bad[HURRAY_BUFFER_HANDLE_SIZE];
    memcpy(bad, wire, sizeof bad);
    bad[cases[i].offset] = cases[i].byte;
    hurray_handoff h;
    hurray_handoff_init(&h);
    ck_assert_int_eq(hurray_handoff_offer_encoded(&h, bad, &offer, NULL), HURRAY_OK);
    hurray_error err;
    hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
    ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &out, &err),
                     cases[i].status);
    ck_assert_uint_eq(err.value, cases[i].byte);
    ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_OFFERED);
    ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  }
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 0);
  ck_assert_int_eq(atomic_load(&log.event_releases), 0);

  /* The untouched bytes are accepted and decode to the same handle. */
  hurray_handoff h;
  hurray_handoff_init(&h);
  ck_assert_int_eq(hurray_handoff_offer_encoded(&h, wire, &offer, NULL), HURRAY_OK);
  hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &out, NULL),
                   HURRAY_OK);
  ck_assert(hurray_buffer_handle_equal(&out.handle, &good));
  ck_assert_ptr_eq(out.event, FAKE_EVENT);
}
END_TEST

/* The handle's own rules apply (core validation), CPU sync rule included. */
START_TEST(handle_rules_apply) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);

  hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  h.alignment = 32;
  const refusal below = {HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32, 64, 0};
  expect_refused(&h, &offer, below, &log);

  h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  h.device_tag = HURRAY_DEVICE_INVALID;
  const refusal tag = {HURRAY_ERR_INVALID_DEVICE_TAG, 0xFF, 0, 0};
  expect_refused(&h, &offer, tag, &log);

  /* BP-SYNC-2: a CPU buffer declaring event is refused before its payload is looked at. */
  static _Alignas(64) unsigned char host[64];
  h.byte_size = sizeof host;
  h.alignment = 64;
  h.device_tag = HURRAY_DEVICE_CPU;
  h.sync_mode = HURRAY_SYNC_EVENT;
  h.memory_class = HURRAY_MEMORY_STANDARD;
  offer = offer_for_mode(HURRAY_SYNC_EVENT, &log);
  offer.data = host;
  offer.sync.event_device_tag = HURRAY_DEVICE_CPU;
  const refusal cpu = {HURRAY_ERR_INVALID_SYNC_MODE, HURRAY_SYNC_EVENT, HURRAY_SYNC_PRODUCER_SYNCED,
                       0};
  expect_refused(&h, &offer, cpu, &log);
}
END_TEST

/* HO-CHECK-3: the data pointer. */
START_TEST(data_pointer_rules) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  offer.data = NULL;
  const refusal null_data = {HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1};
  expect_refused(&h, &offer, null_data, &log);

  /* A CPU pointer less aligned than declared. */
  static _Alignas(4096) unsigned char host[8192];
  h.device_tag = HURRAY_DEVICE_CPU;
  h.byte_size = 64;
  h.alignment = 4096;
  offer.data = host + 64;
  const refusal misaligned = {HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 64, 4096, 0};
  expect_refused(&h, &offer, misaligned, &log);

  /* An empty buffer may have a NULL pointer (BP-ALIGN-3). */
  hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CUDA);
  offer.data = NULL;
  hurray_handoff ho;
  const hurray_accepted_buffer out = offer_and_accept_buffer(&ho, &empty, &offer);
  ck_assert_ptr_null(out.data);
  ck_assert_int_eq(hurray_handoff_release(&ho, NULL), HURRAY_OK);
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 1);
  ck_assert_ptr_null(log.buffer_seen);
}
END_TEST

/* HO-CHECK-4: the transport rule, BP-XPORT-2..4. */
START_TEST(transport_rule_applies) {
  release_log log;
  release_log_reset(&log);
  const hurray_buffer_handle event = cuda_handle(HURRAY_SYNC_EVENT);
  const hurray_buffer_offer event_offer = offer_for_mode(HURRAY_SYNC_EVENT, &log);
  const hurray_buffer_handle stream = cuda_handle(HURRAY_SYNC_CONSUMER_STREAM);
  const hurray_buffer_offer stream_offer = offer_for_mode(HURRAY_SYNC_CONSUMER_STREAM, &log);

  const refusal net_event = {HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, 1, HURRAY_TRANSPORT_NETWORK, 0};
  expect_refused_value(&event, &event_offer, HURRAY_TRANSPORT_NETWORK, 0, net_event, &log);
  const refusal ipc_event = {HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, 1, HURRAY_TRANSPORT_IPC, 0};
  expect_refused_value(&event, &event_offer, HURRAY_TRANSPORT_IPC, 0, ipc_event, &log);
  const refusal ipc_stream = {HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, 2, HURRAY_TRANSPORT_IPC, 0};
  expect_refused_value(&stream, &stream_offer, HURRAY_TRANSPORT_IPC, HURRAY_IPC_EXPORTS_EVENTS,
                       ipc_stream, &log);
  const refusal bad_transport = {HURRAY_ERR_INVALID_ARGUMENT, 7, 0, 0};
  expect_refused_value(&event, &event_offer, (hurray_transport)7, 0, bad_transport, &log);

  /* Allowed: IPC events on a device that exports them. */
  ck_assert_int_eq(hurray_handoff_check(&event, &event_offer, HURRAY_TRANSPORT_IPC,
                                        hurray_device_default_ipc_capabilities(HURRAY_DEVICE_CUDA),
                                        NULL),
                   HURRAY_OK);
  /* producer_synced crosses the network. */
  const hurray_buffer_handle ps = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  const hurray_buffer_offer ps_offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  ck_assert_int_eq(hurray_handoff_check(&ps, &ps_offer, HURRAY_TRANSPORT_NETWORK, 0, NULL),
                   HURRAY_OK);
}
END_TEST

/* The order of the checks: the handle before the payload before the transport. */
START_TEST(first_failure_answers) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_EVENT);
  hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log); /* no event */
  hurray_error err;
  /* payload (missing event) before transport (network forbids event) */
  ck_assert_int_eq(hurray_handoff_check(&h, &offer, HURRAY_TRANSPORT_NETWORK, 0, &err),
                   HURRAY_ERR_SYNC_MODE_MISMATCH);
  /* handle (alignment) before payload */
  h.alignment = 3;
  ck_assert_int_eq(hurray_handoff_check(&h, &offer, HURRAY_TRANSPORT_NETWORK, 0, &err),
                   HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  /* data pointer before payload */
  h = cuda_handle(HURRAY_SYNC_EVENT);
  offer.data = NULL;
  ck_assert_int_eq(hurray_handoff_check(&h, &offer, HURRAY_TRANSPORT_IN_PROCESS, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 0);
}
END_TEST

/* HO-CHECK-1: the offer's own argument checks, and nothing changes on them. */
START_TEST(offer_arguments) {
  release_log log;
  release_log_reset(&log);
  const hurray_buffer_handle h = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  hurray_handoff ho;
  hurray_handoff_init(&ho);
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_offer(NULL, &h, &offer, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_int_eq(hurray_handoff_offer(&ho, NULL, &offer, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_int_eq(hurray_handoff_offer_encoded(&ho, NULL, &offer, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_int_eq(hurray_handoff_offer(&ho, &h, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  offer.release = NULL;
  ck_assert_int_eq(hurray_handoff_offer(&ho, &h, &offer, &err), HURRAY_ERR_NULL_ARGUMENT);
  /* HO-CHECK-1: the argument holding the NULL field (offer), not 3 (err). */
  ck_assert_uint_eq(err.index, 2);
  ck_assert_str_eq(err.detail, "offer->release is NULL");
  ck_assert_uint_eq(hurray_handoff_state_of(&ho), HURRAY_HANDOFF_EMPTY);
  ck_assert_int_eq(hurray_handoff_check(NULL, &offer, HURRAY_TRANSPORT_IN_PROCESS, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_check(&h, NULL, HURRAY_TRANSPORT_IN_PROCESS, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_check(&h, &offer, HURRAY_TRANSPORT_IN_PROCESS, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT); /* release missing */
  ck_assert_uint_eq(err.index, 1);            /* the offer is argument 1 of the check */
  ck_assert_str_eq(err.detail, "offer->release is NULL");
  /* A second offer on an offered object is an illegal transition; the first stands. */
  offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, &log);
  ck_assert_int_eq(hurray_handoff_offer(&ho, &h, &offer, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_offer(&ho, &h, &offer, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_OFFER);
  ck_assert_uint_eq(err.expected, HURRAY_HANDOFF_OFFERED);
  hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&ho, HURRAY_TRANSPORT_IN_PROCESS, 0, NULL, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_accept(NULL, HURRAY_TRANSPORT_IN_PROCESS, 0, &out, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_handoff_withdraw(&ho, NULL), HURRAY_OK);
  ck_assert_int_eq(atomic_load(&log.buffer_releases), 0);
}
END_TEST

/* The messages name the reason and the tags involved. */
START_TEST(mismatch_messages_name_the_reason) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  err.status = HURRAY_ERR_SYNC_MODE_MISMATCH;
  err.value = HURRAY_SYNC_EVENT;
  err.expected = HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE;
  char msg[256];
  hurray_error_format(&err, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "event") != NULL && strstr(msg, "missing event release") != NULL, "%s",
                msg);
  err.expected = HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG;
  err.value = HURRAY_SYNC_CONSUMER_STREAM;
  err.index = HURRAY_DEVICE_VULKAN;
  hurray_error_format(&err, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "stream") != NULL && strstr(msg, "0x04") != NULL &&
                    strstr(msg, "vulkan") != NULL,
                "%s", msg);
  for (uint32_t r = 1; r <= HURRAY_SYNC_MISMATCH_EVENT_KIND; r++) {
    ck_assert_str_ne(hurray_sync_mismatch_name(r), "unknown");
  }
  ck_assert_str_eq(hurray_sync_mismatch_name(0), "unknown");
  ck_assert_str_eq(hurray_sync_mismatch_name(HURRAY_SYNC_MISMATCH_EVENT_KIND + 1u), "unknown");
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN(
      "handoff_crosscheck", "crosscheck", 0, producer_synced_payload_must_be_empty,
      event_payload_needs_event_release_and_tag, stream_payload_needs_stream_and_tag,
      undefined_sync_byte_is_invalid_sync_mode, encoded_handles_are_decoded_at_accept,
      handle_rules_apply, data_pointer_rules, transport_rule_applies, first_failure_answers,
      offer_arguments, mismatch_messages_name_the_reason);
}
