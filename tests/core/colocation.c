/*
 * hurray_validate_colocation (BP-COLOC-1, BP-COLOC-2) on lists of handles:
 * every position of a mismatch, device before class, the first mismatch only,
 * the empty list.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(colocation_lists) {
  hurray_buffer_handle list[64];
  for (size_t i = 0; i < 64; i++) {
    ck_assert_int_eq(
        hurray_buffer_handle_with_memory_class(64 * (i + 1), 64, 0xF5, 1, 0xF9, &list[i], NULL),
        HURRAY_OK);
  }
  for (size_t n = 1; n <= 64; n++) {
    hurray_device_tag device = 0;
    ck_assert_int_eq(hurray_validate_colocation(list, n, &device, NULL), HURRAY_OK);
    ck_assert_uint_eq(device, 0xF5);
    ck_assert_int_eq(hurray_validate_colocation(list, n, NULL, NULL), HURRAY_OK);
  }
  for (size_t at = 1; at < 64; at++) {
    hurray_buffer_handle keep = list[at];
    hurray_device_tag device = 0x42;
    list[at].device_tag = 0xF6;
    hurray_error err = junk_error();
    hurray_status status = hurray_validate_colocation(list, 64, &device, &err);
    require_error("device", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0xF6, 0xF5, at);
    list[at].memory_class = 0x00; /* both differ: the device first */
    err = junk_error();
    status = hurray_validate_colocation(list, 64, &device, &err);
    require_error("both", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0xF6, 0xF5, at);
    list[at].device_tag = 0xF5;
    err = junk_error();
    status = hurray_validate_colocation(list, 64, &device, &err);
    require_error("class", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x00, 0xF9, at);
    ck_assert_uint_eq(device, 0x42); /* not written on failure */
    /* Only the first mismatch is reported. */
    list[63].device_tag = 0x01;
    if (at < 63) {
      err = junk_error();
      status = hurray_validate_colocation(list, 64, &device, &err);
      require_error("first of two", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x00, 0xF9, at);
    }
    list[63].device_tag = 0xF5;
    list[at] = keep;
  }
  hurray_error err = junk_error();
  hurray_status status = hurray_validate_colocation(list, 0, NULL, &err);
  ck_assert_int_eq(status, HURRAY_ERR_EMPTY_BUFFER_LIST); /* BP-COLOC-2 */
  ck_assert_int_eq(err.status, HURRAY_ERR_EMPTY_BUFFER_LIST);
  ck_assert_int_eq(hurray_validate_colocation(NULL, 0, NULL, NULL), HURRAY_ERR_EMPTY_BUFFER_LIST);
  ck_assert_int_eq(hurray_validate_colocation(NULL, 2, NULL, NULL), HURRAY_ERR_NULL_ARGUMENT);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("colocation", "colocation", SWEEP_TIMEOUT_S, colocation_lists);
}
