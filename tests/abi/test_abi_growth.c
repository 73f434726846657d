/*
 * Growth of the ABI (ABI 1.0, point 2): sentinels that a later version's
 * values cannot collide with (HO-ABI-7), headroom in the handoff storage
 * (HO-ABI-8), and structs the library writes honouring the caller's
 * struct_size (HO-ABI-9).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/handoff.h"

static int released;
static void count_release(void *data, void *ctx) {
  (void)data;
  (void)ctx;
  released++;
}

/* An offered producer_synced CPU buffer. */
static void offer_cpu(hurray_handoff *h, void *data) {
  hurray_buffer_handle handle;
  ck_assert_uint_eq(hurray_buffer_handle_new(4096u, 4096u, HURRAY_DEVICE_CPU,
                                             HURRAY_SYNC_PRODUCER_SYNCED, &handle, NULL),
                    HURRAY_OK);
  const hurray_buffer_offer offer = {data, count_release, NULL, hurray_sync_payload_none()};
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

int main(void) {
  Suite *suite = suite_create("abi_growth");
  TCase *tc = tcase_create("growth");
  tcase_add_test(tc, invalid_storage_reads_as_the_sentinel);
  tcase_add_test(tc, state_count_is_not_the_sentinel);
  tcase_add_test(tc, accept_writes_only_the_callers_size);
  tcase_add_test(tc, accept_leaves_a_newer_callers_tail);
  tcase_add_test(tc, accept_refuses_a_size_below_the_minimum);
  suite_add_tcase(suite, tc);
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
