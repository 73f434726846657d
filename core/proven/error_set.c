/*
 * Filling a hurray_error (see error_set.h).
 * Part of the proven core (pure: no allocation, no I/O, no global state).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"

/*@
  requires err == \null || \valid(err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  ensures \result == status;
  ensures bp_error_is(err, status, value, expected, index);
*/
hurray_status hurray_fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, size_t index) {
  if (err != NULL) {
    err->status = status;
    err->value = value;
    err->expected = expected;
    err->index = index;
    err->detail[0] = '\0';
  }
  return status;
}
