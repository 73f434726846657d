/*
 * How a Check test program runs: its one test case and the run of its
 * suite, written once for every test program of tests/ (the Check
 * dependency of the build, check_dep, puts this folder on the include path).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_CHECK_MAIN_H
#define HURRAY_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stddef.h>
#include <stdlib.h>

/* A test case named `name`, added to the suite, with its checked fixture
 * (setup and teardown run around every test, in the test's process; either
 * may be NULL) and its timeout in seconds (0: Check's default). */
static inline TCase *hurray_check_case(Suite *suite, const char *name, void (*setup)(void),
                                       void (*teardown)(void), double timeout) {
  TCase *tc = tcase_create(name);
  if (setup != NULL || teardown != NULL) {
    tcase_add_checked_fixture(tc, setup, teardown);
  }
  if (timeout > 0) {
    tcase_set_timeout(tc, timeout);
  }
  suite_add_tcase(suite, tc);
  return tc;
}

/* Runs every test of the suite with the given fork status (CK_FORK_GETENV:
 * each test in its own process unless CK_FORK=no) and returns the exit
 * status meson expects: 0 when every test passed, 1 otherwise. */
static inline int hurray_check_run_with(Suite *suite, enum fork_status fork_status) {
  SRunner *runner = srunner_create(suite);
  if (fork_status != CK_FORK_GETENV) {
    srunner_set_fork_status(runner, fork_status);
  }
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static inline int hurray_check_run(Suite *suite) {
  return hurray_check_run_with(suite, CK_FORK_GETENV);
}

/* The main() of a test program whose tests all sit in one case: the suite
 * `suite_name`, its case `case_name` as hurray_check_case() makes it (the
 * fixture, the timeout), the `count` tests in the order given, run as
 * hurray_check_run_with() runs them. */
static inline int hurray_check_main(const char *suite_name, const char *case_name,
                                    void (*setup)(void), void (*teardown)(void), double timeout,
                                    enum fork_status fork_status, const TTest *const *tests,
                                    size_t count) {
  Suite *suite = suite_create(suite_name);
  TCase *tc = hurray_check_case(suite, case_name, setup, teardown, timeout);
  for (size_t i = 0; i < count; i++) {
    tcase_add_test(tc, tests[i]);
  }
  return hurray_check_run_with(suite, fork_status);
}

/* hurray_check_main() with no fixture and the tests named in its
 * arguments, as START_TEST names them (each a `const TTest *`), so that a
 * main() is one statement. */
#define HURRAY_CHECK_MAIN_WITH(fork_status, suite_name, case_name, timeout, ...)     \
  hurray_check_main((suite_name), (case_name), NULL, NULL, (timeout), (fork_status), \
                    (const TTest *[]){__VA_ARGS__},                                  \
                    sizeof((const TTest *[]){__VA_ARGS__}) / sizeof(const TTest *))

/* Each test in its own process unless CK_FORK=no, as hurray_check_run(). */
#define HURRAY_CHECK_MAIN(suite_name, case_name, timeout, ...) \
  HURRAY_CHECK_MAIN_WITH(CK_FORK_GETENV, suite_name, case_name, timeout, __VA_ARGS__)

#endif
