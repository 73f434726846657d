/*
 * The functions of abi_short.c, an object compiled with -fshort-enums that
 * calls libhurray (compiled without it) and hands what it got to the test
 * (compiled without it either): every ABI struct and by-value return
 * crosses between differently compiled code (HO-ABI-6).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_ABI_OTHER_H
#define HURRAY_TESTS_ABI_OTHER_H

#include <stddef.h>

#include "abi_layout.h"

/* sizeof of each entry of ABI_LAYOUT_SIZES as this object sees it; returns the count. */
size_t abi_short_sizes(size_t *out, size_t cap);
/* 1 when the object was really compiled with -fshort-enums (a probe enum is one byte). */
hurray_bool32 abi_short_enums_are_short(void);

/* By-value returns obtained from the library and returned by value again. */
hurray_buffer_handle abi_short_handle_empty(hurray_device_tag tag);
hurray_handoff_step abi_short_transition(hurray_handoff_state state, hurray_handoff_op op);
hurray_sync_payload abi_short_payload_event(void *event, hurray_device_tag tag,
                                            hurray_event_release_fn release, void *ctx);
hurray_sync_payload abi_short_payload_stream(void *stream, hurray_device_tag tag);
hurray_sync_payload abi_short_payload_none(void);
hurray_dlpack_layout abi_short_layout_of(hurray_dl_data_type dtype, int32_t ndim,
                                         const int64_t *shape, int32_t device_id);

/* Predicates, forwarded. */
hurray_bool32 abi_short_pair_is_valid(hurray_device_tag tag, hurray_memory_class memory_class);
hurray_bool32 abi_short_handle_equal(const hurray_buffer_handle *a, const hurray_buffer_handle *b);

/* A whole handoff done by this object on structs the caller built: init,
 * offer, accept on `transport`, filling *out and *err. */
hurray_status abi_short_offer_accept(hurray_handoff *handoff, const hurray_buffer_handle *handle,
                                     const hurray_buffer_offer *offer, hurray_transport transport,
                                     hurray_accepted_buffer *out, hurray_error *err);
/* Validation of caller-built structs: a handle, a device description, a plugin table. */
hurray_status abi_short_validate(const hurray_buffer_handle *handle, hurray_error *err);
hurray_status abi_short_device_info_validate(const hurray_plugin_device_info *info,
                                             hurray_device_tag tag, hurray_error *err);
hurray_status abi_short_table_validate(const hurray_plugin_table *table, hurray_plugin_table *out,
                                       hurray_error *err);
/* Fills an allocation record the way a plugin compiled with -fshort-enums would. */
void abi_short_fill_allocation(hurray_plugin_allocation *out, void *address);

#endif /* HURRAY_TESTS_ABI_OTHER_H */
