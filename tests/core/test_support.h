/*
 * Helpers shared by the core tests: checks that only call into Check when
 * they fail (the sweeps make millions of comparisons, and Check records every
 * passing ck_assert), payload comparisons and the timeout of the sweeps.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_CORE_TEST_SUPPORT_H
#define HURRAY_TESTS_CORE_TEST_SUPPORT_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check_main.h"
#include "hurray/buffer.h"
#include "spec_oracle.h"

/* Fails the running test with a message when cond is false. */
#define REQUIRE(cond, ...)       \
  do {                           \
    if (!(cond)) {               \
      ck_abort_msg(__VA_ARGS__); \
    }                            \
  } while (0)

/* An error record with every field set to a recognisable junk value, so a
 * test can see which fields a call wrote. */
hurray_error junk_error(void);

/* The offset of the first byte of p[0..size) that is no longer `fill`, or
 * size when every byte still is: what a call that must write nothing on
 * failure (BP-TABLE-8, BP-TABLE-9) wrote, from a buffer filled before it. */
size_t first_changed_byte(const void *p, size_t size, uint8_t fill);

/* For an error whose index the spec does not define (TRUNCATED, CAPACITY...). */
#define ANY_INDEX SIZE_MAX

/* Fails unless `got` is `want` and, on failure, err carries the verdict's
 * value (and expected, where the spec names one) and `index` (unless
 * ANY_INDEX). `what` names the case in the failure message. */
void require_verdict(const char *what, hurray_status got, const hurray_error *err,
                     spec_verdict want, size_t index);

/* Fails unless status and the whole payload are as given. */
void require_error(const char *what, hurray_status got, const hurray_error *err, hurray_status want,
                   uint64_t value, uint64_t expected, size_t index);

/* As require_error() where the spec names no `expected` for the status. */
void require_status_value(const char *what, hurray_status got, const hurray_error *err,
                          hurray_status want, uint64_t value, size_t index);

/* Fails unless the handle is empty: no byte, alignment 1 (BP-ALIGN-3), as
 * its accessors read it. */
void require_empty_handle(const hurray_buffer_handle *handle);

/* A small deterministic generator (xorshift64*) for the sweeps. */
uint64_t next_random(uint64_t *state);

/* The timeout of a core test case, in seconds: long enough for the sweeps
 * under sanitizers. */
enum { SWEEP_TIMEOUT_S = 120 };

#endif /* HURRAY_TESTS_CORE_TEST_SUPPORT_H */
