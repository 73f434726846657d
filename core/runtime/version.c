/*
 * The loaded library's version, and the check of a consumer's compiled-in
 * versions against it (specs/versioning.md VER-CHK-1, VER-CHK-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/version.h"
#include "hurray/plugin_support.h"

#include <stdio.h>
#include <string.h>

const char *hurray_version(void) { return HURRAY_VERSION_STRING; }

uint32_t hurray_version_number(void) { return (uint32_t)HURRAY_VERSION_NUMBER; }

static hurray_status refuse(hurray_error *err, size_t index, uint32_t got, uint32_t have,
                            uint32_t major, uint32_t minor, uint32_t c_abi_version) {
  /* The numbers are at most 10 digits each, well inside the detail. */
  return hurray_support_fail(
      err, HURRAY_ERR_UNSUPPORTED, got, have, index,
      "compiled against libhurray %u.%u (C ABI %u), running with %u.%u (C ABI %u)", (unsigned)major,
      (unsigned)minor, (unsigned)c_abi_version, (unsigned)HURRAY_VERSION_MAJOR,
      (unsigned)HURRAY_VERSION_MINOR, (unsigned)HURRAY_C_ABI_VERSION);
}

/* VER-CHK-1: one major (an incompatible change makes a new major and a new
 * soname, VER-LIB-2), and everything the consumer's headers declared (its
 * minor, its C ABI version) present in this library. */
hurray_status hurray_version_check(uint32_t major, uint32_t minor, uint32_t c_abi_version,
                                   hurray_error *err) {
  if (major != HURRAY_VERSION_MAJOR) {
    return refuse(err, 0, major, HURRAY_VERSION_MAJOR, major, minor, c_abi_version);
  }
  if (minor > HURRAY_VERSION_MINOR) {
    return refuse(err, 1, minor, HURRAY_VERSION_MINOR, major, minor, c_abi_version);
  }
  if (c_abi_version > HURRAY_C_ABI_VERSION) {
    return refuse(err, 2, c_abi_version, HURRAY_C_ABI_VERSION, major, minor, c_abi_version);
  }
  return HURRAY_OK;
}
