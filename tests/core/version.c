/*
 * The library version (BP-VER-1, VER-NUM-1): the functions agree with the macros; the
 * version check a consumer makes once (specs/versioning.md VER-CHK-1,
 * VER-CHK-2) accepts the versions it was compiled with and older minors,
 * and refuses another major, a newer minor or a newer C ABI, naming which.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(version_functions) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR,
           HURRAY_VERSION_PATCH);
  ck_assert_str_eq(hurray_version(), want);
  ck_assert_str_eq(hurray_version(), HURRAY_VERSION_STRING);
  ck_assert_uint_eq(
      hurray_version_number(),
      (uint32_t)(HURRAY_VERSION_MAJOR * 10000 + HURRAY_VERSION_MINOR * 100 + HURRAY_VERSION_PATCH));
  ck_assert_uint_eq(hurray_version_number(), HURRAY_VERSION_NUMBER);
}
END_TEST

START_TEST(init_check_accepts_the_compiled_versions) {
  hurray_error err;
  ck_assert_int_eq(hurray_init_check(&err), HURRAY_OK);
  ck_assert_int_eq(hurray_init_check(NULL), HURRAY_OK);
  ck_assert_int_eq(
      hurray_version_check(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR, HURRAY_C_ABI_VERSION, &err),
      HURRAY_OK);
  /* Older consumers of the same major: everything they know is here. */
  ck_assert_int_eq(hurray_version_check(HURRAY_VERSION_MAJOR, 0, HURRAY_C_ABI_VERSION, &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_version_check(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR, 0, &err),
                   HURRAY_OK);
}
END_TEST

/* VER-CHK-2: UNSUPPORTED, value the consumer's number, expected the
 * library's, index which number, detail both versions. */
static void expect_refused(uint32_t major, uint32_t minor, uint32_t c_abi, size_t index,
                           uint64_t value, uint64_t expected) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_version_check(major, minor, c_abi, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_int_eq(err.status, HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.index, index);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.expected, expected);
  char want[128];
  snprintf(want, sizeof want,
           "compiled against libhurray %u.%u (C ABI %u), running with %d.%d (C ABI %u)",
           (unsigned)major, (unsigned)minor, (unsigned)c_abi, HURRAY_VERSION_MAJOR,
           HURRAY_VERSION_MINOR, (unsigned)HURRAY_C_ABI_VERSION);
  ck_assert_str_eq(err.detail, want);
  /* Without err: the same answer, nothing written. */
  ck_assert_int_eq(hurray_version_check(major, minor, c_abi, NULL), HURRAY_ERR_UNSUPPORTED);
}

START_TEST(version_check_refuses_what_the_library_lacks) {
  expect_refused(HURRAY_VERSION_MAJOR + 1, 0, HURRAY_C_ABI_VERSION, 0, HURRAY_VERSION_MAJOR + 1,
                 HURRAY_VERSION_MAJOR);
  /* An older major too (from major 1 on): majors never mix. */
  const uint32_t major = HURRAY_VERSION_MAJOR;
  if (major > 0u) {
    expect_refused(major - 1u, HURRAY_VERSION_MINOR, HURRAY_C_ABI_VERSION, 0, major - 1u, major);
  }
  expect_refused(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR + 1, HURRAY_C_ABI_VERSION, 1,
                 HURRAY_VERSION_MINOR + 1, HURRAY_VERSION_MINOR);
  expect_refused(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR, HURRAY_C_ABI_VERSION + 1, 2,
                 HURRAY_C_ABI_VERSION + 1, HURRAY_C_ABI_VERSION);
  /* The first number that differs is named: major before minor before ABI. */
  expect_refused(HURRAY_VERSION_MAJOR + 1, HURRAY_VERSION_MINOR + 1, HURRAY_C_ABI_VERSION + 1, 0,
                 HURRAY_VERSION_MAJOR + 1, HURRAY_VERSION_MAJOR);
  expect_refused(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR + 1, HURRAY_C_ABI_VERSION + 1, 1,
                 HURRAY_VERSION_MINOR + 1, HURRAY_VERSION_MINOR);
  expect_refused(UINT32_MAX, UINT32_MAX, UINT32_MAX, 0, UINT32_MAX, HURRAY_VERSION_MAJOR);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("versions", "versions", SWEEP_TIMEOUT_S, version_functions,
                           init_check_accepts_the_compiled_versions,
                           version_check_refuses_what_the_library_lacks);
}
