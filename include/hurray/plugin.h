/*
 * libhurray device plugins, both sides: the vendor ABI
 * (hurray/plugin_vendor.h, what a plugin implements) and the host API
 * (hurray/plugin_host.h, the loader, registry and buffer functions an
 * application calls). Kept for code written before the split; new plugins
 * include hurray/plugin_vendor.h only (PL-BUILD-2), applications
 * hurray/plugin_host.h or this header.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_H
#define HURRAY_PLUGIN_H

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_host.h"

#endif /* HURRAY_PLUGIN_H */
