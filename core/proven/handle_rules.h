/*
 * The per-handle rules of BP-ORDER-1 steps 2..8, shared by the constructors,
 * hurray_buffer_handle_validate() and the decoders. Internal to the core.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_HANDLE_RULES_H
#define HURRAY_CORE_HANDLE_RULES_H

#include "hurray/buffer.h"

/* Checks the five field values in the order of BP-ORDER-1 (steps 2..8); on
 * failure fills err (index: `index`) and returns the first rule broken. */
hurray_status hurray_handle_fields_check(uint64_t byte_size, uint32_t alignment,
                                         uint8_t device_tag, uint8_t sync_mode,
                                         uint8_t memory_class, size_t index, hurray_error *err);

#endif /* HURRAY_CORE_HANDLE_RULES_H */
