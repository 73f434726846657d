/*
 * Helpers shared by the core tests (see test_support.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

hurray_error junk_error(void) {
  hurray_error err;
  memset(&err, 0xA5, sizeof err);
  err.detail[sizeof err.detail - 1] = '\0';
  return err;
}

size_t first_changed_byte(const void *p, size_t size, uint8_t fill) {
  const uint8_t *bytes = p;
  for (size_t i = 0; i < size; i++) {
    if (bytes[i] != fill) return i;
  }
  return size;
}

void require_verdict(const char *what, hurray_status got, const hurray_error *err,
                     spec_verdict want, size_t index) {
  REQUIRE(got == want.status, "%s: status %s, spec says %s", what, hurray_status_name(got),
          hurray_status_name(want.status));
  if (want.status == HURRAY_OK) {
    return;
  }
  REQUIRE(err->status == want.status, "%s: err.status %s, returned %s", what,
          hurray_status_name(err->status), hurray_status_name(got));
  if (want.has_value) {
    REQUIRE(err->value == want.value, "%s: value %llu, spec says %llu", what,
            (unsigned long long)err->value, (unsigned long long)want.value);
  }
  if (want.has_expected) {
    REQUIRE(err->expected == want.expected, "%s: expected %llu, spec says %llu", what,
            (unsigned long long)err->expected, (unsigned long long)want.expected);
  }
  if (index != ANY_INDEX) {
    REQUIRE(err->index == index, "%s: index %zu, want %zu", what, err->index, index);
  }
  REQUIRE(err->detail[0] == '\0', "%s: the core left detail text \"%s\"", what, err->detail);
}

void require_error(const char *what, hurray_status got, const hurray_error *err, hurray_status want,
                   uint64_t value, uint64_t expected, size_t index) {
  spec_verdict v = {want, value, expected, true, true};
  require_verdict(what, got, err, v, index);
}

void require_status_value(const char *what, hurray_status got, const hurray_error *err,
                          hurray_status want, uint64_t value, size_t index) {
  spec_verdict v = {want, value, 0, false, true};
  require_verdict(what, got, err, v, index);
}

uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

void require_empty_handle(const hurray_buffer_handle *handle) {
  ck_assert(hurray_buffer_handle_is_empty(handle));
  ck_assert_uint_eq(hurray_buffer_handle_byte_size(handle), 0);
  ck_assert_uint_eq(hurray_buffer_handle_alignment(handle), 1);
}
