/*
 * hurray-devices run end to end (specs/cli.md CLI-DEV-1..8): --path searched
 * recursively, errors about the --path or --plugin given, unknown options,
 * --help on standard output, unavailable reasons printed whole, exit
 * statuses, --require-devices, the advice when nothing was loaded.
 *
 * Environment: HURRAY_DEVICES (the binary), HURRAY_PLUGIN_BUILD_DIR (the
 * build's plugins/ folder, with one subfolder a plugin), HURRAY_LONG_REASON_PLUGIN
 * (tests/cli/long_reason_plugin.c, built).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_capture.h"
#include "check_main.h"

#define RUN(...) RUN_TOOL("HURRAY_DEVICES", __VA_ARGS__)

static char *temp_dir;

static void setup(void) { temp_dir = run_make_temp_dir(); }

static void teardown(void) { run_remove_temp_dir(temp_dir); }

/* A copy of the long-reason plugin two folders below dir. */
static char *plant_plugin(const char *dir) {
  FILE *f = fopen(run_env("HURRAY_LONG_REASON_PLUGIN"), "rb");
  ck_assert_ptr_nonnull(f);
  static char bytes[1 << 20];
  size_t n = fread(bytes, 1, sizeof bytes, f);
  ck_assert(feof(f));
  fclose(f);
  char sub[4096];
  snprintf(sub, sizeof sub, "%s/vendor", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  snprintf(sub, sizeof sub, "%s/vendor/long reason", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  return run_write_file(sub, "hurray-plugin-long-reason.so", bytes, n);
}

START_TEST(test_path_is_searched_recursively) {
  /* CLI-DEV-2: a plugin two folders down (one with a space in its name). */
  char *planted = plant_plugin(temp_dir);
  run_result r = RUN("--path", temp_dir);
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_msg(strstr(r.out, "/vendor/long reason/hurray-plugin-long-reason.so\n") != NULL, "%s",
                r.out);
  ck_assert_ptr_nonnull(strstr(r.out, "  long-reason 0.0.1"));
  ck_assert_uint_eq(r.err_len, 0);
  run_result_free(&r);
  /* A relative --path is the working directory's, as typed; "=" works too. */
  ck_assert_int_eq(chdir(temp_dir), 0);
  r = RUN("--path=vendor");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_nonnull(strstr(r.out, "/vendor/long reason/hurray-plugin-long-reason.so\n"));
  run_result_free(&r);
  free(planted);

  /* The build's own plugins/ folder, where each plugin has a folder. */
  const char *plugins = run_env("HURRAY_PLUGIN_BUILD_DIR");
  char cpu[4096];
  snprintf(cpu, sizeof cpu, "%s/cpu/hurray-plugin-cpu.so", plugins);
  if (access(cpu, R_OK) == 0) {
    r = RUN("--path", plugins);
    ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.out, "/cpu/hurray-plugin-cpu.so\n") != NULL, "%s", r.out);
    ck_assert_ptr_null(strstr(r.out, "(no plugin loaded"));
    run_result_free(&r);
  } else {
    printf("note: %s not built; the build folder case is not checked\n", cpu);
  }
}
END_TEST

START_TEST(test_path_errors_name_the_option) {
  char missing[4096];
  snprintf(missing, sizeof missing, "%s/no-such-dir", temp_dir);
  run_result r = RUN("--path", missing);
  ck_assert_uint_eq(r.out_len, 0);
  ck_assert_ptr_null(strstr(r.err, "HURRAY_PLUGIN_PATH"));
  char want[4200];
  snprintf(want, sizeof want, "hurray-devices: --path '%s': No such file or directory\n", missing);
  run_expect_stderr(&r, 2, want);
  r = RUN("--path");
  run_expect_stderr_holds(&r, 2, "option --path needs a value");
  /* A folder with no plugin file in it or below it. */
  r = RUN("--path", temp_dir);
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr_holds(&r, 2, "no hurray-plugin-*.so in it or in a directory below it");
}
END_TEST

START_TEST(test_missing_plugin_is_an_error) {
  /* CLI-DEV-3 */
  run_result r = RUN("--plugin", "/missing.so");
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 2, "hurray-devices: --plugin '/missing.so': No such file or directory\n");
}
END_TEST

START_TEST(test_refused_named_plugin_exits_1) {
  /* CLI-DEV-6: a named file the loader refuses (not a shared object). */
  char *fake = run_write_file(temp_dir, "hurray-plugin-fake.so", "not an ELF file\n", 16);
  run_result r = RUN("--plugin", fake);
  run_expect_stdout_holds(&r, 1, "  refused: ");
  ck_assert_ptr_nonnull(strstr(r.out, "hurray-plugin-fake.so\n    reason: PLUGIN_"));
  run_result_free(&r);
  free(fake);
}
END_TEST

START_TEST(test_unknown_option_is_named) {
  /* CLI-DEV-4 */
  run_result r = RUN("-x");
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 2, "hurray-devices: unknown option '-x'\nTry 'hurray-devices --help'.\n");
  r = RUN("stray");
  run_expect_stderr_holds(&r, 2, "unexpected argument 'stray'");
}
END_TEST

START_TEST(test_help_on_stdout) {
  /* CLI-DEV-4 */
  run_result r = RUN("--help");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_eq(strstr(r.out, "Usage: hurray-devices"), r.out);
  ck_assert_ptr_nonnull(strstr(r.out, "--path DIRS"));
  ck_assert_uint_eq(r.err_len, 0);
  run_result_free(&r);
}
END_TEST

START_TEST(test_long_reason_printed_whole) {
  /* CLI-DEV-5: more than 1000 bytes of reason, none cut. */
  run_result r = RUN("--plugin", run_env("HURRAY_LONG_REASON_PLUGIN"));
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  char want[1200];
  int n = snprintf(want, sizeof want, "    unavailable: dlopen libacme.so: ");
  ck_assert_int_gt(n, 0);
  memset(want + n, 'r', 1000);
  snprintf(want + n + 1000, sizeof want - (size_t)n - 1000u, " END-OF-REASON\n");
  ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
  run_result_free(&r);
}
END_TEST

START_TEST(test_require_devices) {
  /* CLI-DEV-7: a plugin without a device passes a plain run (exit 0, its
   * reason listed, no handoff) but fails --require-devices, which names it
   * and gives its reason whole. */
  const char *no_device = run_env("HURRAY_LONG_REASON_PLUGIN");
  run_result r = RUN("--plugin", no_device, "--handoff");
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_ptr_nonnull(strstr(r.out, "handoffs: 0 run, 0 failed\n"));
  run_result_free(&r);
  r = RUN("--require-devices", "--handoff", "--plugin", no_device);
  ck_assert_msg(r.status == 1, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_msg(
      strstr(r.out, "--require-devices: long-reason has no device (dlopen libacme.so: rrr") != NULL,
      "%s", r.out);
  ck_assert_ptr_nonnull(strstr(r.out, " END-OF-REASON)\n"));
  run_result_free(&r);
  /* With a device (the cpu plugin), it passes. */
  char cpu[4096];
  snprintf(cpu, sizeof cpu, "%s/cpu/hurray-plugin-cpu.so", run_env("HURRAY_PLUGIN_BUILD_DIR"));
  if (access(cpu, R_OK) == 0) {
    r = RUN("--require-devices", "--plugin", cpu, "--handoff");
    ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
    ck_assert_ptr_null(strstr(r.out, "--require-devices:"));
    run_result_free(&r);
    r = RUN("--require-devices", "--plugin", cpu, "--plugin", no_device);
    ck_assert_int_eq(r.status, 1);
    run_result_free(&r);
  }
}
END_TEST

START_TEST(test_nothing_loaded_says_what_to_do) {
  /* CLI-DEV-8: an empty search says how to point the tool at a plugin;
   * CLI-DEV-7: --require-devices fails then. Only where the installed
   * plugin directory holds no plugin of its own (a machine with libhurray
   * installed lists those). */
  setenv("HURRAY_PLUGIN_PATH", temp_dir, 1);
  run_result r = RUN("--require-devices");
  unsetenv("HURRAY_PLUGIN_PATH");
  if (strstr(r.out, "plugins found:\n  (no plugin loaded") == NULL) {
    ck_assert_msg(strstr(r.out, "    from ") != NULL, "%s", r.out);
    printf("note: the installed plugin directory has plugins; the empty case is not checked\n");
    run_result_free(&r);
    return;
  }
  run_expect_stdout_holds(&r, 1,
                          "  (no plugin loaded: put the directory of your hurray-plugin-NAME.so "
                          "in HURRAY_PLUGIN_PATH,\n   or search it with --path DIR, or name the "
                          "file with --plugin FILE)\n");
  ck_assert_ptr_nonnull(strstr(r.out, "--require-devices: no plugin was loaded\n"));
  run_result_free(&r);
}
END_TEST

static Suite *devices_suite(void) {
  Suite *s = suite_create("cli_devices");
  TCase *t = hurray_check_case(s, "devices", setup, teardown, 120);
  tcase_add_test(t, test_path_is_searched_recursively);
  tcase_add_test(t, test_path_errors_name_the_option);
  tcase_add_test(t, test_missing_plugin_is_an_error);
  tcase_add_test(t, test_refused_named_plugin_exits_1);
  tcase_add_test(t, test_unknown_option_is_named);
  tcase_add_test(t, test_help_on_stdout);
  tcase_add_test(t, test_require_devices);
  tcase_add_test(t, test_nothing_loaded_says_what_to_do);
  tcase_add_test(t, test_long_reason_printed_whole);
  return s;
}

int main(void) { return hurray_check_run(devices_suite()); }
