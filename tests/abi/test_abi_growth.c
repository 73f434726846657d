/*
 * Growth of the ABI (ABI 1.0, point 2): sentinels that a later version's
 * values cannot collide with (HO-ABI-7), headroom in the handoff storage
 * (HO-ABI-8), structs the library writes honouring the caller's
 * struct_size (HO-ABI-9), the sizes of what it reads (HO-ABI-10); and the
 * event kind the payload carries (HO-PAY-6).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/handoff.h"
#include "check_main.h"

static int released;
static void count_release(void *data, void *ctx) {
  (void)data;
  (void)ctx;
  released++;
}

/* The handle every offer of this file declares: 4096 producer_synced CPU
 * bytes. */
static hurray_buffer_handle cpu_handle(void) {
  hurray_buffer_handle handle;
  ck_assert_uint_eq(hurray_buffer_handle_new(4096u, 4096u, HURRAY_DEVICE_CPU,
                                             HURRAY_SYNC_PRODUCER_SYNCED, &handle, NULL),
                    HURRAY_OK);
  return handle;
}

/* An offered producer_synced CPU buffer. */
static void offer_cpu(hurray_handoff *h, void *data) {
  const hurray_buffer_handle handle = cpu_handle();
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(data, count_release, NULL, hurray_sync_payload_none());
  hurray_handoff_init(h);
  ck_assert_uint_eq(hurray_handoff_offer(h, &handle, &offer, NULL), HURRAY_OK);
}

static void release_and_destroy(hurray_handoff *h) {
  ck_assert_uint_eq(hurray_handoff_release(h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_destroy(h, NULL), HURRAY_OK);
}

/* The 1.0 view of hurray_accepted_buffer: its first published layout,
 * followed here by bytes a caller built against it does not have. */
typedef struct accepted_1_0_view {
  uint32_t struct_size;
  uint32_t flags;
  hurray_buffer_handle handle;
  void *data;
  void *event;
  void *stream;
} accepted_1_0_view;
_Static_assert(sizeof(accepted_1_0_view) == HURRAY_ACCEPTED_BUFFER_MIN_SIZE,
               "the 1.0 view is the minimum (HO-ABI-9)");

typedef struct view_and_tail {
  accepted_1_0_view view;
  unsigned char tail[64];
} view_and_tail;

/* HO-ABI-9: accept writes the 1.0 view and not one byte past it, and keeps
 * the caller's struct_size. */
START_TEST(accept_writes_only_the_callers_size) {
  static char bytes[4096] __attribute__((aligned(4096)));
  hurray_handoff h;
  offer_cpu(&h, bytes);
  view_and_tail out;
  memset(&out, 0xA5, sizeof out);
  out.view.struct_size = HURRAY_ACCEPTED_BUFFER_MIN_SIZE;
  ck_assert_uint_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0,
                                          (hurray_accepted_buffer *)(void *)&out, NULL),
                    HURRAY_OK);
  ck_assert_uint_eq(out.view.struct_size, HURRAY_ACCEPTED_BUFFER_MIN_SIZE);
  ck_assert_uint_eq(out.view.flags, 0u);
  ck_assert_uint_eq(out.view.handle.byte_size, 4096u);
  ck_assert_ptr_eq(out.view.data, bytes);
  ck_assert_ptr_null(out.view.event);
  ck_assert_ptr_null(out.view.stream);
  for (size_t i = 0; i < sizeof out.tail; i++) {
    ck_assert_msg(out.tail[i] == 0xA5u, "byte %zu past the 1.0 view written: 0x%02x",
                  sizeof out.view + i, out.tail[i]);
  }
  release_and_destroy(&h);
}
END_TEST

/* HO-ABI-9: a caller built against a larger, later struct keeps the bytes
 * this library does not know; struct_size stays what it set. */
START_TEST(accept_leaves_a_newer_callers_tail) {
  static char bytes[4096] __attribute__((aligned(4096)));
  hurray_handoff h;
  offer_cpu(&h, bytes);
  struct {
    hurray_accepted_buffer known;
    unsigned char later[32];
  } out;
  memset(&out, 0x3C, sizeof out);
  out.known.struct_size = (uint32_t)sizeof out;
  ck_assert_uint_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &out.known, NULL),
                    HURRAY_OK);
  ck_assert_uint_eq(out.known.struct_size, sizeof out);
  ck_assert_ptr_eq(out.known.data, bytes);
  for (size_t i = 0; i < sizeof out.later; i++) {
    ck_assert_uint_eq(out.later[i], 0x3Cu);
  }
  release_and_destroy(&h);
}
END_TEST

/* HO-ABI-9: a struct_size of 0 or below the minimum is refused, naming the
 * size; nothing is written, the offer stays, no callback runs. */
START_TEST(accept_refuses_a_size_below_the_minimum) {
  static char bytes[4096] __attribute__((aligned(4096)));
  const uint32_t sizes[] = {0u, 4u, 8u, HURRAY_ACCEPTED_BUFFER_MIN_SIZE - 1u};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    hurray_handoff h;
    offer_cpu(&h, bytes);
    released = 0;
    view_and_tail out;
    memset(&out, 0xA5, sizeof out);
    out.view.struct_size = sizes[i];
    hurray_error err;
    ck_assert_uint_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0,
                                            (hurray_accepted_buffer *)(void *)&out, &err),
                      HURRAY_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(err.value, sizes[i]);
    ck_assert_uint_eq(err.expected, HURRAY_ACCEPTED_BUFFER_MIN_SIZE);
    ck_assert_uint_eq(err.index, 3u);
    ck_assert_msg(strstr(err.detail, "struct_size") != NULL, "%s", err.detail);
    ck_assert_uint_eq(out.view.struct_size, sizes[i]);
    const unsigned char *p = (const unsigned char *)&out;
    for (size_t b = sizeof out.view.struct_size; b < sizeof out; b++) {
      ck_assert_uint_eq(p[b], 0xA5u);
    }
    ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_OFFERED);
    ck_assert_int_eq(released, 0);
    /* The same offer is accepted once the size is right. */
    hurray_accepted_buffer good = HURRAY_ACCEPTED_BUFFER_INIT;
    ck_assert_uint_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &good, NULL),
                      HURRAY_OK);
    release_and_destroy(&h);
    ck_assert_int_eq(released, 1);
  }
}
END_TEST

/* HO-ABI-8: the storage size callers allocate is 256 bytes. */
_Static_assert(HURRAY_HANDOFF_STORAGE_SIZE == 256u, "handoff storage is 256 bytes (HO-ABI-8)");
_Static_assert(sizeof(hurray_handoff) == HURRAY_HANDOFF_STORAGE_SIZE, "storage is the struct");

/* HO-ABI-7: storage that is no handoff reads as the reserved sentinel,
 * 0xFFFFFFFF, not as HURRAY_HANDOFF_STATE_COUNT (12), the value the next
 * state a later version appends would take. */
START_TEST(invalid_storage_reads_as_the_sentinel) {
  ck_assert_uint_eq(HURRAY_HANDOFF_STATE_INVALID, 0xFFFFFFFFu);
  ck_assert_uint_eq(hurray_handoff_state_of(NULL), 0xFFFFFFFFu);
  hurray_handoff h;
  memset(&h, 0, sizeof h);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), 0xFFFFFFFFu);
  memset(&h, 0x5A, sizeof h);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), 0xFFFFFFFFu);
  ck_assert_str_eq(hurray_handoff_state_name(HURRAY_HANDOFF_STATE_INVALID), "invalid");
  hurray_handoff_init(&h);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EMPTY);
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_DESTROYED);
}
END_TEST

/* HO-ABI-7: every state this version defines is below COUNT, and COUNT is
 * a state-to-be (a valid transition argument of a later version): this
 * version reports it as INVALID_ARGUMENT, not as the storage sentinel. */
START_TEST(state_count_is_not_the_sentinel) {
  ck_assert_uint_ne(HURRAY_HANDOFF_STATE_COUNT, HURRAY_HANDOFF_STATE_INVALID);
  for (uint32_t s = 0; s < HURRAY_HANDOFF_STATE_COUNT; s++) {
    ck_assert_str_ne(hurray_handoff_state_name(s), "invalid");
  }
  ck_assert_uint_eq(
      hurray_handoff_transition(HURRAY_HANDOFF_STATE_COUNT, HURRAY_HANDOFF_OP_DESTROY).status,
      HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(
      hurray_handoff_transition(HURRAY_HANDOFF_STATE_INVALID, HURRAY_HANDOFF_OP_DESTROY).status,
      HURRAY_ERR_INVALID_ARGUMENT);
}
END_TEST

/* HO-ABI-10: the offer's and the payload's sizes and flags are checked
 * first, at offer and in hurray_handoff_check, naming the value. */
static void expect_refused(const hurray_buffer_offer *offer, uint64_t value, uint64_t expected,
                           const char *field) {
  const hurray_buffer_handle handle = cpu_handle();
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  ck_assert_uint_eq(hurray_handoff_offer(&h, &handle, offer, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.expected, expected);
  ck_assert_uint_eq(err.index, 2u);
  ck_assert_msg(strstr(err.detail, field) != NULL, "detail \"%s\" names %s", err.detail, field);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EMPTY);
  ck_assert_uint_eq(hurray_handoff_check(&handle, offer, HURRAY_TRANSPORT_IN_PROCESS, 0, &err),
                    HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
}

START_TEST(offer_refuses_bad_sizes_and_flags) {
  static char bytes[4096] __attribute__((aligned(4096)));
  const hurray_buffer_offer good =
      hurray_buffer_offer_make(bytes, count_release, NULL, hurray_sync_payload_none());
  ck_assert_uint_eq(good.struct_size, HURRAY_BUFFER_OFFER_MIN_SIZE);
  ck_assert_uint_eq(good.sync.struct_size, HURRAY_SYNC_PAYLOAD_MIN_SIZE);
  const uint32_t small[] = {0u, 8u, HURRAY_BUFFER_OFFER_MIN_SIZE - 1u};
  for (size_t i = 0; i < 3; i++) {
    hurray_buffer_offer o = good;
    o.struct_size = small[i];
    expect_refused(&o, small[i], HURRAY_BUFFER_OFFER_MIN_SIZE, "offer->struct_size");
  }
  hurray_buffer_offer o = good;
  o.flags = 0x4u;
  expect_refused(&o, 0x4u, 0, "offer->flags");
  const uint32_t payload[] = {0u, HURRAY_SYNC_PAYLOAD_MIN_SIZE - 1u,
                              HURRAY_SYNC_PAYLOAD_MIN_SIZE + 8u /* past the offer's end */};
  for (size_t i = 0; i < 3; i++) {
    o = good;
    o.sync.struct_size = payload[i];
    expect_refused(&o, payload[i], HURRAY_SYNC_PAYLOAD_MIN_SIZE, "offer->sync.struct_size");
  }
  o = good;
  o.sync.flags = 0x80000000u;
  expect_refused(&o, 0x80000000u, 0, "offer->sync.flags");
  /* A NULL release is still reported, once the sizes are right. */
  o = good;
  o.release = NULL;
  const hurray_buffer_handle handle = cpu_handle();
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  ck_assert_uint_eq(hurray_handoff_offer(&h, &handle, &o, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u); /* argument 2, the offer (HO-CHECK-1) */
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
}
END_TEST

/* HO-ABI-10: an offer from a producer built against a larger, later offer
 * (bytes after the payload) is taken, those bytes unread. */
START_TEST(offer_from_a_newer_producer_is_taken) {
  static char bytes[4096] __attribute__((aligned(4096)));
  struct {
    hurray_buffer_offer known;
    unsigned char later[24];
  } newer;
  memset(&newer, 0x77, sizeof newer);
  newer.known = hurray_buffer_offer_make(bytes, count_release, NULL, hurray_sync_payload_none());
  newer.known.struct_size = (uint32_t)sizeof newer;
  const hurray_buffer_handle handle = cpu_handle();
  hurray_handoff h;
  hurray_handoff_init(&h);
  ck_assert_uint_eq(hurray_handoff_offer(&h, &handle, &newer.known, NULL), HURRAY_OK);
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_uint_eq(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL),
                    HURRAY_OK);
  ck_assert_ptr_eq(got.data, bytes);
  released = 0;
  release_and_destroy(&h);
  ck_assert_int_eq(released, 1);
}
END_TEST

static void count_event(void *event, void *ctx) {
  (void)event;
  (void)ctx;
}

/* Offers `sync` for a CUDA buffer of `mode` and accepts it into `out`. */
static hurray_status offer_and_accept(hurray_handoff *h, hurray_sync_mode mode,
                                      hurray_sync_payload sync, hurray_accepted_buffer *out,
                                      hurray_error *err) {
  static char device_memory[4096] __attribute__((aligned(4096)));
  hurray_buffer_handle handle;
  ck_assert_uint_eq(hurray_buffer_handle_new(4096u, 4096u, HURRAY_DEVICE_CUDA, mode, &handle, NULL),
                    HURRAY_OK);
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(device_memory, count_release, NULL, sync);
  hurray_handoff_init(h);
  ck_assert_uint_eq(hurray_handoff_offer(h, &handle, &offer, NULL), HURRAY_OK);
  return hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, out, err);
}

/* HO-PAY-6: every helper sets the kind, and accept hands it out. */
START_TEST(the_payload_says_what_its_event_is) {
  int cu_event;
  ck_assert_uint_eq(hurray_sync_payload_none().event_kind, HURRAY_EVENT_KIND_NONE);
  ck_assert_uint_eq(hurray_sync_payload_stream(&cu_event, HURRAY_DEVICE_CUDA).event_kind,
                    HURRAY_EVENT_KIND_NONE);
  const hurray_sync_payload native =
      hurray_sync_payload_event(&cu_event, HURRAY_DEVICE_CUDA, count_event, NULL);
  ck_assert_uint_eq(native.event_kind, HURRAY_EVENT_KIND_NATIVE);
  const hurray_sync_payload plugin = hurray_sync_payload_event_of_kind(
      &cu_event, HURRAY_EVENT_KIND_PLUGIN, HURRAY_DEVICE_CUDA, count_event, NULL);
  ck_assert_uint_eq(plugin.event_kind, HURRAY_EVENT_KIND_PLUGIN);

  const hurray_sync_payload kinds[] = {native, plugin};
  for (size_t i = 0; i < 2; i++) {
    hurray_handoff h;
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    ck_assert_uint_eq(offer_and_accept(&h, HURRAY_SYNC_EVENT, kinds[i], &got, NULL), HURRAY_OK);
    ck_assert_ptr_eq(got.event, &cu_event);
    ck_assert_uint_eq(got.event_kind, kinds[i].event_kind);
    ck_assert_uint_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK);
    ck_assert_uint_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
    release_and_destroy(&h);
  }
  hurray_handoff h;
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  got.event_kind = 0xDEADu;
  ck_assert_uint_eq(
      offer_and_accept(&h, HURRAY_SYNC_PRODUCER_SYNCED, hurray_sync_payload_none(), &got, NULL),
      HURRAY_OK);
  ck_assert_uint_eq(got.event_kind, HURRAY_EVENT_KIND_NONE);
  release_and_destroy(&h);
}
END_TEST

/* HO-PAY-6: a kind that does not fit the mode is a payload mismatch naming it. */
START_TEST(accept_checks_the_event_kind) {
  int cu_event;
  int stream;
  struct {
    hurray_sync_mode mode;
    hurray_sync_payload sync;
    uint32_t kind;
  } cases[] = {
      {HURRAY_SYNC_EVENT,
       hurray_sync_payload_event(&cu_event, HURRAY_DEVICE_CUDA, count_event, NULL),
       HURRAY_EVENT_KIND_NONE},
      {HURRAY_SYNC_EVENT,
       hurray_sync_payload_event(&cu_event, HURRAY_DEVICE_CUDA, count_event, NULL), 3u},
      {HURRAY_SYNC_PRODUCER_SYNCED, hurray_sync_payload_none(), HURRAY_EVENT_KIND_NATIVE},
      {HURRAY_SYNC_CONSUMER_STREAM, hurray_sync_payload_stream(&stream, HURRAY_DEVICE_CUDA),
       HURRAY_EVENT_KIND_PLUGIN},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cases[i].sync.event_kind = cases[i].kind;
    hurray_handoff h;
    hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_error err;
    ck_assert_uint_eq(offer_and_accept(&h, cases[i].mode, cases[i].sync, &got, &err),
                      HURRAY_ERR_SYNC_MODE_MISMATCH);
    ck_assert_uint_eq(err.value, cases[i].mode);
    ck_assert_uint_eq(err.expected, HURRAY_SYNC_MISMATCH_EVENT_KIND);
    ck_assert_uint_eq(err.index, cases[i].kind);
    char msg[256];
    char want[32];
    hurray_error_format(&err, msg, sizeof msg);
    snprintf(want, sizeof want, "event_kind %u ", cases[i].kind);
    ck_assert_msg(strstr(msg, want) != NULL, "\"%s\" names the kind", msg);
    ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_OFFERED);
    ck_assert_uint_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
    ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  }
  ck_assert_str_eq(hurray_sync_mismatch_name(HURRAY_SYNC_MISMATCH_EVENT_KIND),
                   "event kind does not match");
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("abi_growth", "growth", 0, invalid_storage_reads_as_the_sentinel,
                           state_count_is_not_the_sentinel, accept_writes_only_the_callers_size,
                           accept_leaves_a_newer_callers_tail,
                           accept_refuses_a_size_below_the_minimum,
                           offer_refuses_bad_sizes_and_flags, offer_from_a_newer_producer_is_taken,
                           the_payload_says_what_its_event_is, accept_checks_the_event_kind);
}
