/*
 * The loaded library's version.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/version.h"

const char *hurray_version(void) { return HURRAY_VERSION_STRING; }

uint32_t hurray_version_number(void) { return (uint32_t)HURRAY_VERSION_NUMBER; }
