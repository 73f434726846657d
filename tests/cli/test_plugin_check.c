/*
 * hurray-plugin-check run end to end (specs/cli.md CLI-CHK-1..6): the
 * options and their errors, a conforming plugin (the template), one without
 * a device with and without --strict, a plugin that breaks a rule (the
 * check is named, exit 1), one the loader refuses, --json, --check.
 *
 * Environment: HURRAY_PLUGIN_CHECK (the binary), HURRAY_TEMPLATE_PLUGIN (the
 * example-private plugin, built), HURRAY_BROKEN_PLUGINS (tests/plugins'
 * build folder, with the broken variants).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "run_capture.h"
#include "check_main.h"

#define RUN(...) RUN_TOOL("HURRAY_PLUGIN_CHECK", __VA_ARGS__)

static char *broken(const char *variant) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/hurray-plugin-broken-%s.so", run_env("HURRAY_BROKEN_PLUGINS"),
           variant);
  return path;
}

START_TEST(test_template_passes) {
  /* CLI-CHK-2, CLI-CHK-4, CLI-CHK-6: every check, one line each, the summary. */
  run_result r = RUN("--strict", run_env("HURRAY_TEMPLATE_PLUGIN"));
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_ptr_nonnull(strstr(r.out,
                               "plugin: example-private 1.0.0 (tag private(0xF0), ABI 1.1), "
                               "1 device\n"));
  const char *const lines[] = {"PASS  table ",
                               "PASS  devices ",
                               "PASS  allocation ",
                               "PASS  copy ",
                               "PASS  events ",
                               "PASS  native-event ",
                               "PASS  handoff ",
                               "PASS  concurrency ",
                               "PASS  unload-with-buffers-held ",
                               "PASS  unload-idle ",
                               "PASS  double-free ",
                               "PASS  free-after-unload ",
                               "PASS  racing-free ",
                               "PASS  free-racing-unload ",
                               "SKIP  ipc-memory ",
                               "SKIP  ipc-event "};
  const char *at = r.out;
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    const char *found = strstr(at, lines[i]);
    ck_assert_msg(found != NULL, "no line '%s' (in order) in:\n%s", lines[i], r.out);
    at = found;
  }
  /* The alignments obtained, measured, as notes. */
  ck_assert_ptr_nonnull(strstr(r.out,
                               "        device 0 class standard, alignment asked->obtained "
                               "(measured): 64->"));
  ck_assert_ptr_nonnull(strstr(r.out, "result: PASS (14 passed, 0 failed, 2 skipped)\n"));
  ck_assert_uint_eq(r.err_len, 0);
  run_result_free(&r);
}
END_TEST

START_TEST(test_no_device_fails_only_strict) {
  /* CLI-CHK-3: the plugin's runtime missing: device checks skipped with the
   * reason; a pass without --strict, a failure with it. */
  setenv("HURRAY_EXAMPLE_PRIVATE_LIBRARY", "/nonexistent/libacme.so.2", 1);
  run_result r = RUN(run_env("HURRAY_TEMPLATE_PLUGIN"));
  run_result strict = RUN("--strict", run_env("HURRAY_TEMPLATE_PLUGIN"));
  unsetenv("HURRAY_EXAMPLE_PRIVATE_LIBRARY");
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_ptr_nonnull(strstr(r.out, "1.1), 0 devices: dlopen /nonexistent/libacme.so.2: "));
  ck_assert_ptr_nonnull(strstr(r.out, "PASS  table "));
  ck_assert_ptr_nonnull(strstr(r.out,
                               "SKIP  allocation                no device (the plugin's "
                               "reason is above)\n"));
  ck_assert_ptr_nonnull(strstr(r.out, "result: PASS (2 passed, 0 failed, 14 skipped)\n"));
  ck_assert_int_eq(strict.status, 1);
  ck_assert_ptr_nonnull(strstr(strict.out,
                               "result: FAIL (2 passed, 0 failed, 14 skipped): "
                               "--strict: the plugin has no device here\n"));
  run_result_free(&r);
  run_result_free(&strict);
}
END_TEST

START_TEST(test_broken_plugin_names_the_check) {
  /* CLI-CHK-5, CLI-CHK-6: a plugin that claims more alignment than its
   * address shows: allocation fails naming the call and the loader's words. */
  run_result r = RUN("--check", "allocation", broken("alignment-claim"));
  run_expect_stdout_holds(&r, 1,
                          "FAIL  allocation                allocate(device 0, 10000 bytes, "
                          "alignment 64, class standard): returned PLUGIN_INVALID (broken: "
                          "reported alignment 2147483648 but host address ");
  ck_assert_ptr_nonnull(strstr(r.out,
                               "result: FAIL (0 passed, 1 failed, 0 skipped): a check "
                               "failed\n"));
  run_result_free(&r);
  /* A failure that leaves an event held: the checks that watch the unload
   * say why they cannot, rather than fail for it. */
  r = RUN(broken("native-type"));
  run_expect_stdout_holds(&r, 1,
                          "FAIL  native-event              event_native of a recorded "
                          "event (device 0): returned PLUGIN_INVALID");
  ck_assert_ptr_nonnull(strstr(r.out,
                               "SKIP  unload-idle               an earlier failed check "
                               "left buffers or events of the plugin held"));
  run_result_free(&r);
}
END_TEST

START_TEST(test_refused_plugin) {
  /* CLI-CHK-1, CLI-CHK-6: the loader's refusal, named; no check runs. */
  run_result r = RUN(broken("wrong-major"));
  run_expect_stdout_holds(&r, 1, "plugin: refused by the loader: PLUGIN_ABI_MISMATCH: ");
  ck_assert_ptr_nonnull(strstr(r.out, "majors differ\n"));
  ck_assert_ptr_nonnull(strstr(r.out,
                               "result: FAIL (0 passed, 0 failed, 0 skipped): the loader "
                               "refused the plugin\n"));
  run_result_free(&r);
}
END_TEST

START_TEST(test_json) {
  /* CLI-CHK-4: one JSON object, the fields named, only the checks asked. */
  run_result r =
      RUN("--json", "--check=table", "--check", "handoff", run_env("HURRAY_TEMPLATE_PLUGIN"));
  ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
  ck_assert_msg(json_check_document(r.out, r.out_len), "%s", r.out);
  ck_assert_ptr_nonnull(strstr(r.out,
                               "\"plugin\": {\"name\": \"example-private\", \"version\": "
                               "\"1.0.0\", \"device_tag\": \"private(0xF0)\", \"abi\": "
                               "\"1.1\", \"devices\": 1, \"unavailable_reason\": null}"));
  ck_assert_ptr_nonnull(strstr(r.out, "\"strict\": false, \"checks\": [{\"name\": \"table\", "));
  ck_assert_ptr_nonnull(strstr(r.out, "{\"name\": \"handoff\", \"rules\": "));
  ck_assert_ptr_null(strstr(r.out, "\"name\": \"allocation\""));
  ck_assert_ptr_nonnull(
      strstr(r.out, "], \"passed\": 2, \"failed\": 0, \"skipped\": 0, \"result\": \"pass\"}\n"));
  run_result_free(&r);
  r = RUN("--json", broken("wrong-major"));
  ck_assert_int_eq(r.status, 1);
  ck_assert_msg(json_check_document(r.out, r.out_len), "%s", r.out);
  ck_assert_ptr_nonnull(strstr(r.out, "\"plugin\": null, \"refused\": \"PLUGIN_ABI_MISMATCH: "));
  ck_assert_ptr_nonnull(strstr(r.out, "\"result\": \"fail\"}"));
  run_result_free(&r);
}
END_TEST

START_TEST(test_usage) {
  /* CLI-CHK-1: help and list on stdout; errors named on stderr, exit 2. */
  run_result r = RUN("--help");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_eq(strstr(r.out, "Usage: hurray-plugin-check"), r.out);
  run_result_free(&r);
  r = RUN("--list");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_eq(strstr(r.out, "table "), r.out);
  ck_assert_ptr_nonnull(strstr(r.out, "\nipc-event "));
  run_result_free(&r);
  r = RUN("-x", "file.so");
  run_expect_stderr(&r, 2,
                    "hurray-plugin-check: unknown option '-x'\n"
                    "Try 'hurray-plugin-check --help'.\n");
  r = RUN("--check", "nonsense", "file.so");
  run_expect_stderr_holds(&r, 2, "unknown check 'nonsense' (see --list)");
  r = RUN("--check");
  run_expect_stderr_holds(&r, 2, "option --check needs a value");
  r = run_tool("HURRAY_PLUGIN_CHECK", NULL, 0);
  run_expect_stderr_holds(&r, 2, "no PLUGIN_FILE given");
  r = RUN("/missing/hurray-plugin-x.so");
  ck_assert_uint_eq(r.out_len, 0);
  run_expect_stderr(&r, 2,
                    "hurray-plugin-check: '/missing/hurray-plugin-x.so': No such file or "
                    "directory\n");
  r = RUN("a.so", "b.so");
  run_expect_stderr_holds(&r, 2, "unexpected argument 'b.so'");
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("cli_plugin_check", "plugin_check", 120, test_template_passes,
                           test_no_device_fails_only_strict, test_broken_plugin_names_the_check,
                           test_refused_plugin, test_json, test_usage);
}
