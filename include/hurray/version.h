/*
 * libhurray library version (not to be confused with the C ABI version of
 * include/hurray/handoff.h or the plugin ABI version of include/hurray/plugin.h;
 * docs/versioning.md says what each version number guards, and the rules are
 * specs/versioning.md VER-*), and the check a consumer makes once at start-up
 * that the library it runs with serves the headers it was compiled with.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_VERSION_H
#define HURRAY_VERSION_H

#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/handoff.h"

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

/**
 * Checks that the loaded library serves a consumer compiled with library
 * version major.minor and C ABI version `c_abi_version` (VER-CHK-1): the
 * same major, a minor no larger than the library's, a C ABI version no
 * larger than hurray_c_abi_version(). Call it through hurray_init_check(),
 * which passes the versions of the headers the caller was compiled with.
 *
 * Returns HURRAY_OK, or HURRAY_ERR_UNSUPPORTED with err: value the
 * consumer's number, expected the library's, index which number differs
 * (0 major, 1 minor, 2 C ABI version), detail both versions spelled out
 * (VER-CHK-2). Pure: no state, callable from any thread, any number of
 * times. `err` may be NULL.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_version_check(uint32_t major, uint32_t minor,
                                                               uint32_t c_abi_version,
                                                               hurray_error *err);

/**
 * The version check a consumer makes once, before any other libhurray call
 * (VER-CHK-1): inline, so that it passes the HURRAY_VERSION_MAJOR,
 * HURRAY_VERSION_MINOR and HURRAY_C_ABI_VERSION of the headers the caller
 * was compiled with to the library it actually runs with. A consumer that
 * gets anything but HURRAY_OK must not call the library further.
 */
static inline HURRAY_NODISCARD hurray_status hurray_init_check(hurray_error *err) {
  return hurray_version_check(HURRAY_VERSION_MAJOR, HURRAY_VERSION_MINOR, HURRAY_C_ABI_VERSION,
                              err);
}

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_VERSION_H */
