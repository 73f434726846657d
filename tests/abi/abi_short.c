/*
 * Compiled with -fshort-enums (tests/abi/meson.build): calls libhurray,
 * compiled without it, on every ABI struct and by-value return
 * (HO-ABI-3, HO-ABI-6). The layout assertions of abi_layout.h hold here
 * too, or this file does not compile.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "abi_other.h"

/* A C enum type in this object is one byte: -fshort-enums is in effect. */
enum abi_short_probe { ABI_SHORT_PROBE_ONE = 1 };
_Static_assert(sizeof(enum abi_short_probe) == 1, "abi_short.c is compiled with -fshort-enums");

size_t abi_short_sizes(size_t *out, size_t cap) {
  size_t n = 0;
#define ABI_SHORT_SIZE(type) \
  if (n < cap) {             \
    out[n] = sizeof(type);   \
  }                          \
  n++;
  ABI_LAYOUT_SIZES(ABI_SHORT_SIZE)
#undef ABI_SHORT_SIZE
  return n;
}

hurray_bool32 abi_short_enums_are_short(void) {
  return sizeof(enum abi_short_probe) == 1 ? HURRAY_TRUE : HURRAY_FALSE;
}

hurray_buffer_handle abi_short_handle_empty(hurray_device_tag tag) {
  return hurray_buffer_handle_empty(tag);
}

hurray_handoff_step abi_short_transition(hurray_handoff_state state, hurray_handoff_op op) {
  return hurray_handoff_transition(state, op);
}

hurray_sync_payload abi_short_payload_event(void *event, hurray_device_tag tag,
                                            hurray_event_release_fn release, void *ctx) {
  return hurray_sync_payload_event(event, tag, release, ctx);
}

hurray_sync_payload abi_short_payload_stream(void *stream, hurray_device_tag tag) {
  return hurray_sync_payload_stream(stream, tag);
}

hurray_sync_payload abi_short_payload_none(void) { return hurray_sync_payload_none(); }

hurray_buffer_offer abi_short_offer_make(void *data, hurray_buffer_release_fn release, void *ctx,
                                         hurray_sync_payload sync) {
  return hurray_buffer_offer_make(data, release, ctx, sync);
}

hurray_dlpack_layout abi_short_layout_of(hurray_dl_data_type dtype, int32_t ndim,
                                         const int64_t *shape, int32_t device_id) {
  return hurray_dlpack_layout_of(dtype, ndim, shape, NULL, device_id);
}

hurray_bool32 abi_short_pair_is_valid(hurray_device_tag tag, hurray_memory_class memory_class) {
  return hurray_pair_is_valid(tag, memory_class);
}

hurray_bool32 abi_short_handle_equal(const hurray_buffer_handle *a, const hurray_buffer_handle *b) {
  return hurray_buffer_handle_equal(a, b);
}

hurray_status abi_short_offer_accept(hurray_handoff *handoff, const hurray_buffer_handle *handle,
                                     const hurray_buffer_offer *offer, hurray_transport transport,
                                     hurray_accepted_buffer *out, hurray_error *err) {
  hurray_handoff_init(handoff);
  hurray_status status = hurray_handoff_offer(handoff, handle, offer, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return hurray_handoff_accept(handoff, transport, 0, out, err);
}

hurray_status abi_short_validate(const hurray_buffer_handle *handle, hurray_error *err) {
  return hurray_buffer_handle_validate(handle, err);
}

hurray_status abi_short_device_info_validate(const hurray_plugin_device_info *info,
                                             hurray_device_tag tag, hurray_error *err) {
  return hurray_plugin_device_info_validate(info, tag, err);
}

hurray_status abi_short_table_validate(const hurray_plugin_table *table, hurray_plugin_table *out,
                                       hurray_error *err) {
  return hurray_plugin_table_validate(table, sizeof *table, HURRAY_PLUGIN_ABI_VERSION, out, err);
}

void abi_short_fill_allocation(hurray_plugin_allocation *out, void *address) {
  out->struct_size = (uint32_t)sizeof *out;
  out->alignment = 4096u;
  out->byte_size = 8192u;
  out->address = address;
  out->host_address = address;
  out->device_address = 0x1000u;
  out->plugin_data = NULL;
  out->device_index = 3u;
  out->memory_class = HURRAY_MEMORY_HOST_PINNED;
  out->alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  out->reserved[0] = 0u;
  out->reserved[1] = 0u;
}
