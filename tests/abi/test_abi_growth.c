/*
 * Growth of the ABI (ABI 1.0, point 2): sentinels that a later version's
 * values cannot collide with (HO-ABI-7) and headroom in the handoff
 * storage (HO-ABI-8).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/handoff.h"

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
  suite_add_tcase(suite, tc);
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
