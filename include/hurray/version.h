/*
 * libhurray library version (not to be confused with the C ABI version of
 * include/hurray/handoff.h or the plugin ABI version of include/hurray/plugin.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_VERSION_H
#define HURRAY_VERSION_H

#include <stdint.h>

#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HURRAY_VERSION_MAJOR 0
#define HURRAY_VERSION_MINOR 1
#define HURRAY_VERSION_PATCH 0
#define HURRAY_VERSION_STRING "0.1.0"
/** major * 10000 + minor * 100 + patch, for compile-time comparisons. */
#define HURRAY_VERSION_NUMBER \
  (HURRAY_VERSION_MAJOR * 10000 + HURRAY_VERSION_MINOR * 100 + HURRAY_VERSION_PATCH)

/** The version of the library actually loaded, as "MAJOR.MINOR.PATCH". */
HURRAY_API const char *hurray_version(void);
/** The loaded library's HURRAY_VERSION_NUMBER. */
HURRAY_API uint32_t hurray_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_VERSION_H */
