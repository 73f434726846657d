/*
 * The layout of every struct that crosses libhurray's ABI and of every
 * by-value return, as _Static_assert()s (HO-ABI-3, HO-ABI-6). Included by
 * two objects of one test, one compiled with -fshort-enums: both must agree
 * with these numbers, so an enum type, a bool or implicit padding that
 * crept into a public struct fails to compile here.
 *
 * "No implicit padding" is asserted as: the fields' sizes add up to the
 * struct's size, and each field starts where the previous one ends.
 *
 * The numbers are those of LP64 (x86-64, aarch64, ...): the only data model
 * the project builds for; other models fail the first assertion.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_ABI_LAYOUT_H
#define HURRAY_TESTS_ABI_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/dlpack.h"
#include "hurray/handoff.h"
#include "hurray/hurray.h"
#include "hurray/ipc.h"
#include "hurray/ipc_wire.h"
#include "hurray/net.h"
#include "hurray/plugin.h"

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "LP64 data model");

/* HO-ABI-4, HO-ABI-5: the fixed-width value types. */
_Static_assert(sizeof(hurray_status) == 4, "hurray_status is a u32");
_Static_assert(sizeof(hurray_bool32) == 4, "hurray_bool32 is a u32");
_Static_assert(sizeof(hurray_transport) == 4, "hurray_transport is a u32");
_Static_assert(sizeof(hurray_sync_mismatch) == 4, "hurray_sync_mismatch is a u32");
_Static_assert(sizeof(hurray_handoff_state) == 4, "hurray_handoff_state is a u32");
_Static_assert(sizeof(hurray_handoff_op) == 4, "hurray_handoff_op is a u32");
_Static_assert(sizeof(hurray_handoff_effect) == 4, "hurray_handoff_effect is a u32");
_Static_assert(sizeof(hurray_plugin_alignment_basis) == 1, "alignment basis is a byte");
_Static_assert(sizeof(hurray_device_tag) == 1 && sizeof(hurray_memory_class) == 1 &&
                   sizeof(hurray_sync_mode) == 1,
               "wire values are bytes");
/* The return types of the predicates (HO-ABI-5) and by-value returns. */
_Static_assert(sizeof(hurray_pair_is_valid(0, 0)) == 4, "predicates return u32");
_Static_assert(sizeof(hurray_buffer_handle_is_empty(NULL)) == 4, "predicates return u32");
_Static_assert(sizeof(hurray_plugin_supports_events(NULL)) == 4, "predicates return u32");
_Static_assert(sizeof(hurray_handoff_transition(0, 0)) == 12, "the step is three u32");
_Static_assert(sizeof(hurray_buffer_handle_empty(0)) == 16, "the handle is 16 bytes");

#define ABI_AT(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " at " #offset)
#define ABI_SIZE(type, size) _Static_assert(sizeof(type) == (size), "sizeof " #type " == " #size)

/* buffer.h */
ABI_SIZE(hurray_error, 32 + HURRAY_ERROR_DETAIL_SIZE);
ABI_AT(hurray_error, status, 0);
ABI_AT(hurray_error, reserved, 4);
ABI_AT(hurray_error, value, 8);
ABI_AT(hurray_error, expected, 16);
ABI_AT(hurray_error, index, 24);
ABI_AT(hurray_error, detail, 32);

ABI_SIZE(hurray_buffer_handle, 16);
ABI_AT(hurray_buffer_handle, byte_size, 0);
ABI_AT(hurray_buffer_handle, alignment, 8);
ABI_AT(hurray_buffer_handle, device_tag, 12);
ABI_AT(hurray_buffer_handle, sync_mode, 13);
ABI_AT(hurray_buffer_handle, memory_class, 14);
ABI_AT(hurray_buffer_handle, reserved, 15);

/* handoff.h */
ABI_SIZE(hurray_sync_payload, 56);
ABI_AT(hurray_sync_payload, struct_size, 0);
ABI_AT(hurray_sync_payload, flags, 4);
ABI_AT(hurray_sync_payload, event, 8);
ABI_AT(hurray_sync_payload, event_device_tag, 16);
ABI_AT(hurray_sync_payload, reserved0, 17);
ABI_AT(hurray_sync_payload, event_kind, 20);
ABI_AT(hurray_sync_payload, event_release, 24);
ABI_AT(hurray_sync_payload, event_release_ctx, 32);
ABI_AT(hurray_sync_payload, stream, 40);
ABI_AT(hurray_sync_payload, stream_device_tag, 48);
ABI_AT(hurray_sync_payload, reserved1, 49);
_Static_assert(HURRAY_SYNC_PAYLOAD_MIN_SIZE == 56, "the 1.0 payload (HO-ABI-10)");

ABI_SIZE(hurray_buffer_offer, 32 + 56);
ABI_AT(hurray_buffer_offer, struct_size, 0);
ABI_AT(hurray_buffer_offer, flags, 4);
ABI_AT(hurray_buffer_offer, data, 8);
ABI_AT(hurray_buffer_offer, release, 16);
ABI_AT(hurray_buffer_offer, release_ctx, 24);
ABI_AT(hurray_buffer_offer, sync, 32);
_Static_assert(HURRAY_BUFFER_OFFER_MIN_SIZE == 88, "the 1.0 offer (HO-ABI-10)");
_Static_assert(sizeof(hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none())) == 88,
               "the offer returned by value");

ABI_SIZE(hurray_handoff_step, 12);
ABI_AT(hurray_handoff_step, status, 0);
ABI_AT(hurray_handoff_step, next, 4);
ABI_AT(hurray_handoff_step, effect, 8);

ABI_SIZE(hurray_handoff, HURRAY_HANDOFF_STORAGE_SIZE);

ABI_SIZE(hurray_accepted_buffer, 56);
ABI_AT(hurray_accepted_buffer, struct_size, 0);
ABI_AT(hurray_accepted_buffer, flags, 4);
ABI_AT(hurray_accepted_buffer, handle, 8);
ABI_AT(hurray_accepted_buffer, data, 24);
ABI_AT(hurray_accepted_buffer, event, 32);
ABI_AT(hurray_accepted_buffer, stream, 40);
ABI_AT(hurray_accepted_buffer, event_kind, 48);
ABI_AT(hurray_accepted_buffer, reserved, 52);
_Static_assert(HURRAY_ACCEPTED_BUFFER_MIN_SIZE == 48, "the 1.0 accepted buffer (HO-ABI-9)");

/* plugin.h */
ABI_SIZE(hurray_plugin_memory_class_info, 12);
ABI_AT(hurray_plugin_memory_class_info, memory_class, 0);
ABI_AT(hurray_plugin_memory_class_info, reserved, 1);
ABI_AT(hurray_plugin_memory_class_info, flags, 4);
ABI_AT(hurray_plugin_memory_class_info, max_alignment, 8);

ABI_SIZE(hurray_plugin_device_info, 88 + 12 * HURRAY_PLUGIN_MAX_MEMORY_CLASSES);
ABI_AT(hurray_plugin_device_info, struct_size, 0);
ABI_AT(hurray_plugin_device_info, ipc_capabilities, 4);
ABI_AT(hurray_plugin_device_info, name, 8);
ABI_AT(hurray_plugin_device_info, memory_bytes, 72);
ABI_AT(hurray_plugin_device_info, memory_class_count, 80);
ABI_AT(hurray_plugin_device_info, reserved, 84);
ABI_AT(hurray_plugin_device_info, memory_classes, 88);

ABI_SIZE(hurray_plugin_allocation, 56);
ABI_AT(hurray_plugin_allocation, struct_size, 0);
ABI_AT(hurray_plugin_allocation, alignment, 4);
ABI_AT(hurray_plugin_allocation, byte_size, 8);
ABI_AT(hurray_plugin_allocation, address, 16);
ABI_AT(hurray_plugin_allocation, host_address, 24);
ABI_AT(hurray_plugin_allocation, device_address, 32);
ABI_AT(hurray_plugin_allocation, plugin_data, 40);
ABI_AT(hurray_plugin_allocation, device_index, 48);
ABI_AT(hurray_plugin_allocation, memory_class, 52);
ABI_AT(hurray_plugin_allocation, alignment_basis, 53);
ABI_AT(hurray_plugin_allocation, reserved, 54);

ABI_SIZE(hurray_plugin_table, 32 + 8 * 21);
ABI_AT(hurray_plugin_table, struct_size, 0);
ABI_AT(hurray_plugin_table, abi_version, 4);
ABI_AT(hurray_plugin_table, name, 8);
ABI_AT(hurray_plugin_table, plugin_version, 16);
ABI_AT(hurray_plugin_table, device_tag, 24);
ABI_AT(hurray_plugin_table, reserved, 25);
ABI_AT(hurray_plugin_table, init, 32);
ABI_AT(hurray_plugin_table, copy_to_host, 32 + 8 * 7);
ABI_AT(hurray_plugin_table, stream_wait_event, 32 + 8 * 14);
ABI_AT(hurray_plugin_table, native_event, 32 + 8 * 15); /* ABI 1.1 */
ABI_AT(hurray_plugin_table, export_memory, 32 + 8 * 16);
ABI_AT(hurray_plugin_table, import_memory, 32 + 8 * 17);
ABI_AT(hurray_plugin_table, create_event_flags, 32 + 8 * 18); /* ABI 1.1, PL-IPC-10 */
ABI_AT(hurray_plugin_table, export_event, 32 + 8 * 19);
ABI_AT(hurray_plugin_table, import_event, 32 + 8 * 20);
ABI_SIZE(hurray_plugin_ipc_event, 112); /* PL-IPC-8 */
ABI_AT(hurray_plugin_ipc_event, struct_size, 0);
ABI_AT(hurray_plugin_ipc_event, kind, 4);
ABI_AT(hurray_plugin_ipc_event, handle_size, 8);
ABI_AT(hurray_plugin_ipc_event, device_tag, 12);
ABI_AT(hurray_plugin_ipc_event, reserved, 13);
ABI_AT(hurray_plugin_ipc_event, handle, 16);
ABI_AT(hurray_plugin_ipc_event, device_uuid, 80);
ABI_AT(hurray_plugin_ipc_event, driver_uuid, 96);
ABI_SIZE(hurray_plugin_ipc_memory, 144);
ABI_AT(hurray_plugin_ipc_memory, struct_size, 0);
ABI_AT(hurray_plugin_ipc_memory, kind, 4);
ABI_AT(hurray_plugin_ipc_memory, fd, 8);
ABI_AT(hurray_plugin_ipc_memory, handle_size, 12);
ABI_AT(hurray_plugin_ipc_memory, handle, 16);
ABI_AT(hurray_plugin_ipc_memory, device_uuid, 80);
ABI_AT(hurray_plugin_ipc_memory, driver_uuid, 96);
ABI_AT(hurray_plugin_ipc_memory, segment_size, 112);
ABI_AT(hurray_plugin_ipc_memory, offset, 120);
ABI_AT(hurray_plugin_ipc_memory, byte_size, 128);
ABI_AT(hurray_plugin_ipc_memory, alignment, 136);
ABI_AT(hurray_plugin_ipc_memory, device_tag, 140);
ABI_AT(hurray_plugin_ipc_memory, memory_class, 141);
ABI_AT(hurray_plugin_ipc_memory, reserved, 142);
ABI_SIZE(hurray_plugin_native_event, 40);
ABI_AT(hurray_plugin_native_event, struct_size, 0);
ABI_AT(hurray_plugin_native_event, native_type, 4);
ABI_AT(hurray_plugin_native_event, handle, 8);
ABI_AT(hurray_plugin_native_event, wait_value, 16);
ABI_AT(hurray_plugin_native_event, device, 24);
ABI_AT(hurray_plugin_native_event, device_index, 32);
ABI_AT(hurray_plugin_native_event, reserved, 36);

/* ipc.h, ipc_wire.h */
ABI_SIZE(hurray_ipc_event, 64);
ABI_AT(hurray_ipc_event, struct_size, 0);
ABI_AT(hurray_ipc_event, kind, 4);
ABI_AT(hurray_ipc_event, consumer_id, 8);
ABI_AT(hurray_ipc_event, pid, 16);
ABI_AT(hurray_ipc_event, uid, 20);
ABI_AT(hurray_ipc_event, offer_id, 24);
ABI_AT(hurray_ipc_event, buffer_index, 32);
ABI_AT(hurray_ipc_event, status, 36);
ABI_AT(hurray_ipc_event, value, 40);
ABI_AT(hurray_ipc_event, expected, 48);
ABI_AT(hurray_ipc_event, index, 56);

ABI_SIZE(hurray_ipc_producer_options, 40);
ABI_AT(hurray_ipc_producer_options, allowed_uids, 8);
ABI_AT(hurray_ipc_producer_options, on_event, 16);
ABI_AT(hurray_ipc_producer_options, event_ctx, 24);
ABI_AT(hurray_ipc_producer_options, max_consumers, 32);
ABI_AT(hurray_ipc_producer_options, reserved, 36);

ABI_SIZE(hurray_ipc_buffer_desc, 64);
ABI_AT(hurray_ipc_buffer_desc, handle, 8);
ABI_AT(hurray_ipc_buffer_desc, fd, 24);
ABI_AT(hurray_ipc_buffer_desc, reserved, 28);
ABI_AT(hurray_ipc_buffer_desc, offset, 32);
ABI_AT(hurray_ipc_buffer_desc, data, 40);
ABI_AT(hurray_ipc_buffer_desc, release, 48);
ABI_AT(hurray_ipc_buffer_desc, release_ctx, 56);

ABI_SIZE(hurray_ipc_hold, 32);
ABI_AT(hurray_ipc_hold, pid, 16);
ABI_AT(hurray_ipc_hold, buffer_index, 20);
ABI_AT(hurray_ipc_hold, buffer, 24);

ABI_SIZE(hurray_ipc_consumer_options, 24);
ABI_AT(hurray_ipc_consumer_options, allowed_uids, 8);
ABI_AT(hurray_ipc_consumer_options, connect_timeout_ms, 16);
ABI_AT(hurray_ipc_consumer_options, reserved, 20);

/* net.h (built or not, the header is the same: it names no UCX type) */
ABI_SIZE(hurray_net_message, 56);
ABI_AT(hurray_net_message, struct_size, 0);
ABI_AT(hurray_net_message, type, 4);
ABI_AT(hurray_net_message, body_size, 8);
ABI_AT(hurray_net_message, buffer_count, 12);
ABI_AT(hurray_net_message, tensor_id, 16);
ABI_AT(hurray_net_message, status, 24);
ABI_AT(hurray_net_message, reserved, 28);
ABI_AT(hurray_net_message, value, 32);
ABI_AT(hurray_net_message, expected, 40);
ABI_AT(hurray_net_message, index, 48);
_Static_assert(HURRAY_NET_MESSAGE_MIN_SIZE == 56, "the first hurray_net_message layout");

ABI_SIZE(hurray_net_options, 24);
ABI_AT(hurray_net_options, struct_size, 0);
ABI_AT(hurray_net_options, flags, 4);
ABI_AT(hurray_net_options, max_tensor_bytes, 8);
ABI_AT(hurray_net_options, max_connection_bytes, 16);

ABI_SIZE(hurray_net_source, 32);
ABI_AT(hurray_net_source, struct_size, 0);
ABI_AT(hurray_net_source, reserved, 4);
ABI_AT(hurray_net_source, data, 8);
ABI_AT(hurray_net_source, release, 16);
ABI_AT(hurray_net_source, release_ctx, 24);

ABI_SIZE(hurray_ipc_message, 48);
ABI_AT(hurray_ipc_message, offer_id, 16);
ABI_AT(hurray_ipc_message, buffer_index, 40);
ABI_AT(hurray_ipc_message, buffer_count, 44);

ABI_SIZE(hurray_ipc_segment, 16);
ABI_AT(hurray_ipc_segment, memory_kind, 8);
ABI_AT(hurray_ipc_segment, reserved, 12);

/* dlpack.h */
ABI_SIZE(hurray_dl_device, 8);
ABI_SIZE(hurray_dl_data_type, 4);
ABI_AT(hurray_dl_data_type, lanes, 2);
ABI_SIZE(hurray_dl_tensor, 48);
ABI_AT(hurray_dl_tensor, device, 8);
ABI_AT(hurray_dl_tensor, ndim, 16);
ABI_AT(hurray_dl_tensor, dtype, 20);
ABI_AT(hurray_dl_tensor, shape, 24);
ABI_AT(hurray_dl_tensor, strides, 32);
ABI_AT(hurray_dl_tensor, byte_offset, 40);
ABI_SIZE(hurray_dl_managed_tensor, 64);
ABI_SIZE(hurray_dl_pack_version, 8);
ABI_SIZE(hurray_dl_managed_tensor_versioned, 32 + 48);
ABI_AT(hurray_dl_managed_tensor_versioned, flags, 24);
ABI_AT(hurray_dl_managed_tensor_versioned, dl_tensor, 32);
ABI_SIZE(hurray_dlpack_layout, 32);
ABI_AT(hurray_dlpack_layout, dtype, 4);
ABI_AT(hurray_dlpack_layout, ndim, 8);
ABI_AT(hurray_dlpack_layout, device_id, 12);
ABI_AT(hurray_dlpack_layout, shape, 16);
ABI_AT(hurray_dlpack_layout, strides, 24);

/* The same numbers at run time, so the test can compare the two objects'
 * views byte for byte as well (one entry per struct: size, then a hash of
 * its offsets). The list is packed by hand, so the formatter leaves it. */
/* clang-format off */
#define ABI_LAYOUT_SIZES(X)                                                             \
  X(hurray_error) X(hurray_buffer_handle) X(hurray_sync_payload) X(hurray_buffer_offer) \
  X(hurray_handoff_step) X(hurray_handoff) X(hurray_accepted_buffer)                    \
  X(hurray_plugin_memory_class_info) X(hurray_plugin_device_info)                       \
  X(hurray_plugin_allocation) X(hurray_plugin_table) X(hurray_plugin_ipc_event)         \
  X(hurray_ipc_event)                                                                   \
  X(hurray_ipc_producer_options) X(hurray_ipc_buffer_desc) X(hurray_ipc_hold)           \
  X(hurray_ipc_consumer_options) X(hurray_ipc_message) X(hurray_ipc_segment)            \
  X(hurray_dl_tensor) X(hurray_dl_managed_tensor) X(hurray_dl_managed_tensor_versioned) \
  X(hurray_dlpack_layout) X(hurray_status) X(hurray_transport) X(hurray_handoff_state)  \
  X(hurray_handoff_op) X(hurray_handoff_effect) X(hurray_sync_mismatch) X(hurray_bool32) X(hurray_event_kind)
/* clang-format on */

#endif /* HURRAY_TESTS_ABI_LAYOUT_H */
