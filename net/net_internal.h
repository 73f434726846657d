/*
 * Shared inside libhurray-net: the error helper.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_NET_INTERNAL_H
#define HURRAY_NET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/net.h"

/* Fills err (when given; detail from fmt, or empty for NULL) and returns status. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
hurray_status hurray_internal_net_fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index, const char *fmt, ...);

#endif /* HURRAY_NET_INTERNAL_H */
