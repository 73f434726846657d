/*
 * A wait with a deadline on a runtime that can only be asked whether the
 * work is done (wait_event and wait_stream take a timeout, PL-EVENT-*, that
 * the runtime's blocking calls do not): the caller asks, and between two
 * asks plugin_polled_wait_again sleeps, a little longer each round (up to
 * 1 ms), or fills the TIMEOUT error once the deadline has passed. In-tree
 * plugins only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_POLLED_WAIT_H
#define HURRAY_PLUGINS_COMMON_POLLED_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "hurray/plugin_vendor.h"

typedef struct plugin_polled_wait {
  uint64_t start_ns;   /* CLOCK_MONOTONIC when the wait began */
  uint64_t timeout_ns; /* HURRAY_PLUGIN_WAIT_FOREVER: no deadline */
  uint64_t pause_ns;   /* the next sleep */
} plugin_polled_wait;

/* Starts the clock; the first sleep is first_pause_ns. */
plugin_polled_wait plugin_polled_wait_start(uint64_t timeout_ns, uint64_t first_pause_ns);

/* After an ask that found the work not done: true after sleeping, to ask
 * again; false once the deadline has passed, with err TIMEOUT (value: the
 * timeout) and the detail "<pending, formatted> after <timeout> ns". */
bool plugin_polled_wait_again(plugin_polled_wait *wait, hurray_error *err, const char *pending, ...)
    __attribute__((format(printf, 3, 4)));

#endif
