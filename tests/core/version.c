/*
 * The library version (BP-VER-1): the functions agree with the macros.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(version_functions) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR,
           HURRAY_VERSION_PATCH);
  ck_assert_str_eq(hurray_version(), want);
  ck_assert_str_eq(hurray_version(), HURRAY_VERSION_STRING);
  ck_assert_uint_eq(hurray_version_number(), (uint32_t)(HURRAY_VERSION_MAJOR * 10000 +
                                                        HURRAY_VERSION_MINOR * 100 +
                                                        HURRAY_VERSION_PATCH));
  ck_assert_uint_eq(hurray_version_number(), HURRAY_VERSION_NUMBER);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("versions");
  TCase *tc = sweep_case("versions");
  tcase_add_test(tc, version_functions);
  suite_add_tcase(suite, tc);
  return run_suite(suite);
}
