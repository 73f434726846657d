/*
 * polled_wait: see polled_wait.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "polled_wait.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "hurray/plugin_support.h"

static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

plugin_polled_wait plugin_polled_wait_start(uint64_t timeout_ns, uint64_t first_pause_ns) {
  plugin_polled_wait wait = {monotonic_ns(), timeout_ns, first_pause_ns};
  return wait;
}

bool plugin_polled_wait_again(plugin_polled_wait *wait, hurray_error *err, const char *pending,
                              ...) {
  if (wait->timeout_ns != HURRAY_PLUGIN_WAIT_FOREVER &&
      monotonic_ns() - wait->start_ns >= wait->timeout_ns) {
    char what[256]; /* a call and a result name */
    va_list args;
    va_start(args, pending);
    vsnprintf(what, sizeof what, pending, args);
    va_end(args);
    hurray_support_entry_fail(err, HURRAY_ERR_TIMEOUT, wait->timeout_ns, 0, "%s after %llu ns",
                              what, (unsigned long long)wait->timeout_ns);
    return false;
  }
  struct timespec pause = {0, (long)wait->pause_ns};
  nanosleep(&pause, NULL);
  if (wait->pause_ns < 1000000u) {
    wait->pause_ns *= 2u;
  }
  return true;
}
