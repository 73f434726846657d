/*
 * The plugin support library's names before 0.1.0 (plugin_..., the end of
 * include/hurray/plugin_support.h) still compile, link from
 * libhurray-plugin-support.a and do what the hurray_support_ function
 * their deprecation names does, until their removal in 0.2.0
 * (docs/vendor-guide.md section 14). Compiled with
 * -Wno-deprecated-declarations; check_support_deprecations.py compiles this
 * same file without it and expects a warning for every old name.
 *
 * Usage: test_support_old_names
 * SPDX-License-Identifier: Apache-2.0
 */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hurray/plugin_support.h"

/* No environment variable of this name is set: each test clears it, so the
 * default names are the ones tried. */
#define UNSET_OVERRIDE "HURRAY_TEST_OLD_NAMES_LIBRARY"

START_TEST(fail_fills_the_error_with_index_0) {
  hurray_error err;
  memset(&err, 0xAA, sizeof err);
  ck_assert_int_eq(plugin_fail(&err, HURRAY_ERR_DEVICE_ERROR, 7u, 3u, "old: %s %d", "call", 5),
                   HURRAY_ERR_DEVICE_ERROR);
  ck_assert_int_eq(err.status, HURRAY_ERR_DEVICE_ERROR);
  ck_assert_uint_eq(err.value, 7u);
  ck_assert_uint_eq(err.expected, 3u);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_str_eq(err.detail, "old: call 5");
}
END_TEST

START_TEST(open_runtime_and_resolve_symbols) {
  ck_assert_int_eq(unsetenv(UNSET_OVERRIDE), 0);
  char reason[PLUGIN_REASON_SIZE];
  ck_assert_uint_eq(sizeof reason, HURRAY_SUPPORT_REASON_SIZE);
  const char *missing[] = {"libhurray-test-no-such-runtime.so"};
  const char *library = NULL;
  ck_assert_ptr_null(
      plugin_open_runtime(UNSET_OVERRIDE, missing, 1u, 0, &library, reason, sizeof reason));
  ck_assert_str_eq(library, missing[0]);
  ck_assert_ptr_nonnull(strstr(reason, "dlopen libhurray-test-no-such-runtime.so: "));

  const char *libm[] = {"libm.so.6"};
  void *handle = plugin_open_runtime(UNSET_OVERRIDE, libm, 1u, 0, &library, reason, sizeof reason);
  ck_assert_ptr_nonnull(handle);
  double (*cosine)(double) = NULL;
  void (*absent)(void) = NULL;
  plugin_symbol found[] = {{"cos", &cosine, HURRAY_TRUE},
                           {"no_such_symbol", &absent, HURRAY_FALSE}};
  ck_assert_uint_eq(plugin_resolve_symbols(handle, library, found, 2u, reason, sizeof reason),
                    HURRAY_TRUE);
  ck_assert(cosine != NULL && cosine(0.0) == 1.0);
  ck_assert(absent == NULL);
  plugin_symbol required[] = {{"no_such_symbol", &absent, HURRAY_TRUE}};
  ck_assert_uint_eq(plugin_resolve_symbols(handle, library, required, 1u, reason, sizeof reason),
                    HURRAY_FALSE);
  ck_assert_str_eq(reason, "dlsym no_such_symbol in libm.so.6: symbol not found");
  dlclose(handle);
}
END_TEST

START_TEST(alignment_device_reason_and_classes) {
  ck_assert_uint_eq(plugin_alignment_of_address(48u), 16u);
  ck_assert_uint_eq(plugin_alignment_capped(0u, 4096u), 4096u);
  ck_assert_uint_eq(plugin_alignment_capped(24u, 4096u), 8u);

  hurray_error err;
  ck_assert_int_eq(plugin_check_device("old", 0u, 1u, &err), HURRAY_OK);
  ck_assert_int_eq(plugin_check_device("old", 2u, 2u, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err.detail, "old: no device 2");

  char buf[4];
  ck_assert_uint_eq(plugin_copy_reason(buf, sizeof buf, "abcdef"), 6u);
  ck_assert_str_eq(buf, "abc");

  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  plugin_add_memory_class(&info, HURRAY_MEMORY_STANDARD, HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE, 64u);
  ck_assert_uint_eq(info.memory_class_count, 1u);
  ck_assert_uint_eq(info.memory_classes[0].memory_class, HURRAY_MEMORY_STANDARD);
  ck_assert_uint_eq(info.memory_classes[0].max_alignment, 64u);
}
END_TEST

START_TEST(shared_memory_round_trip) {
  hurray_error err;
  plugin_shared_memory made;
  ck_assert_int_eq(plugin_shared_create("old", 100u, 4096u, &made, &err), HURRAY_OK);
  ck_assert_uint_eq((uintptr_t)made.address % 4096u, 0u);
  memcpy(made.address, "shared", 7);

  hurray_plugin_ipc_memory exported;
  memset(&exported, 0, sizeof exported);
  ck_assert_int_eq(plugin_shared_export("old", &made, &exported, &err), HURRAY_OK);
  ck_assert_uint_eq(exported.kind, HURRAY_PLUGIN_IPC_MEMORY_FD);
  exported.byte_size = 100u;
  exported.alignment = 4096u;

  plugin_shared_memory imported;
  ck_assert_int_eq(plugin_shared_import("old", &exported, &imported, &err), HURRAY_OK);
  ck_assert_str_eq(imported.address, "shared");

  plugin_shared_release(&imported);
  plugin_shared_release(&made);
  ck_assert_int_eq(made.fd, -1);
  ck_assert_ptr_null(made.address);
  close(exported.fd);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("support_old_names");
  TCase *tc = tcase_create("old_names");
  tcase_add_test(tc, fail_fills_the_error_with_index_0);
  tcase_add_test(tc, open_runtime_and_resolve_symbols);
  tcase_add_test(tc, alignment_device_reason_and_classes);
  tcase_add_test(tc, shared_memory_round_trip);
  suite_add_tcase(suite, tc);
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
