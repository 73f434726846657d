/*
 * Filling a hurray_error: the one place the core writes one.
 * Part of the proven core (pure: no allocation, no I/O, no global state).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_ERROR_SET_H
#define HURRAY_CORE_ERROR_SET_H

#include "hurray/buffer.h"

/* Returns `status` so a failing path reads `return hurray_fail(err, ...);`.
 * err may be NULL: callers that only want the status pay nothing more.
 * Defined (with its contract) in error_set.c: one definition, proven once,
 * where a static inline one was a copy per file for the proof to prove
 * again (six copies, with their smoke tests). Only failing paths call it. */
hurray_status hurray_fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, size_t index);

#endif /* HURRAY_CORE_ERROR_SET_H */
