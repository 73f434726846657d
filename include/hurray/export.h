/*
 * Symbol visibility for libhurray's public API.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_EXPORT_H
#define HURRAY_EXPORT_H

/* The shared library is built with -fvisibility=hidden and a version script;
 * only declarations marked HURRAY_API are exported. */
#if defined(__GNUC__) || defined(__clang__)
#define HURRAY_API __attribute__((visibility("default")))
#else
#define HURRAY_API
#endif

#endif /* HURRAY_EXPORT_H */
