/*
 * libhurray umbrella header: includes the whole public API.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_HURRAY_H
#define HURRAY_HURRAY_H

#include "hurray/buffer.h"
#include "hurray/plugin.h"
#include "hurray/handoff.h"
#include "hurray/dlpack.h"
#include "hurray/version.h"

#endif /* HURRAY_HURRAY_H */
