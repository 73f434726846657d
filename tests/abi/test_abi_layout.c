/*
 * HO-ABI-3..6: every struct that crosses the ABI has one layout whatever
 * the enum size the compiler picks, and code compiled with -fshort-enums
 * (abi_short.c) and without (this file, the library) exchange every ABI
 * struct and by-value return intact. The static assertions of abi_layout.h
 * hold in both objects; the tests below compare what crosses at run time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "abi_other.h"
#include "check_main.h"

enum abi_main_probe { ABI_MAIN_PROBE_ONE = 1 };

START_TEST(the_two_objects_see_one_layout) {
  /* The flag really differs between the objects ... */
  ck_assert_uint_eq(abi_short_enums_are_short(), HURRAY_TRUE);
  ck_assert_uint_eq(sizeof(enum abi_main_probe), sizeof(int));
  /* ... and every ABI type has the same size in both. */
  size_t here[64];
  size_t there[64];
  size_t n = 0;
#define ABI_MAIN_SIZE(type) here[n++] = sizeof(type);
  ABI_LAYOUT_SIZES(ABI_MAIN_SIZE)
#undef ABI_MAIN_SIZE
  ck_assert_uint_eq(abi_short_sizes(there, 64), n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(here[i] == there[i], "type %zu: %zu bytes here, %zu under -fshort-enums", i,
                  here[i], there[i]);
  }
}
END_TEST

START_TEST(by_value_handle_crosses) {
  for (unsigned tag = 0; tag < 256; tag++) {
    const hurray_buffer_handle want = hurray_buffer_handle_empty((hurray_device_tag)tag);
    const hurray_buffer_handle got = abi_short_handle_empty((hurray_device_tag)tag);
    ck_assert_mem_eq(&got, &want, sizeof want);
    ck_assert_uint_eq(got.device_tag, tag);
    ck_assert_uint_eq(got.alignment, 1u);
    ck_assert_uint_eq(got.reserved, 0u);  // HO-ABI-3: the named byte is written as zero
  }
}
END_TEST

START_TEST(by_value_step_crosses) {
  /* Every (state, op) pair, and values past the constants. */
  for (uint32_t state = 0; state <= HURRAY_HANDOFF_STATE_COUNT + 1u; state++) {
    for (uint32_t op = 0; op <= HURRAY_HANDOFF_OP_COUNT + 1u; op++) {
      const hurray_handoff_step want = hurray_handoff_transition(state, op);
      const hurray_handoff_step got = abi_short_transition(state, op);
      ck_assert_msg(got.status == want.status && got.next == want.next && got.effect == want.effect,
                    "state %u op %u: {%u, %u, %u} under -fshort-enums, {%u, %u, %u} here", state,
                    op, got.status, got.next, got.effect, want.status, want.next, want.effect);
    }
  }
  const hurray_handoff_step step =
      abi_short_transition(HURRAY_HANDOFF_EVENT_WAITED, HURRAY_HANDOFF_OP_RELEASE_EVENT);
  ck_assert_uint_eq(step.status, HURRAY_OK);
  ck_assert_uint_eq(step.next, HURRAY_HANDOFF_EVENT_RELEASED);
  ck_assert_uint_eq(step.effect, HURRAY_HANDOFF_EFFECT_RELEASE_EVENT);
  ck_assert_uint_eq(abi_short_transition(0xFFFFFFFFu, 0).status, HURRAY_ERR_INVALID_ARGUMENT);
}
END_TEST

static void no_release(void *p, void *ctx) {
  (void)p;
  (void)ctx;
}

START_TEST(by_value_payloads_cross) {
  int event;
  int stream;
  int ctx;
  hurray_sync_payload want =
      hurray_sync_payload_event(&event, HURRAY_DEVICE_ROCM, no_release, &ctx);
  hurray_sync_payload got = abi_short_payload_event(&event, HURRAY_DEVICE_ROCM, no_release, &ctx);
  ck_assert_mem_eq(&got, &want, sizeof want);
  ck_assert_ptr_eq(got.event_release_ctx, &ctx);
  ck_assert_uint_eq(got.stream_device_tag, HURRAY_DEVICE_INVALID);
  want = hurray_sync_payload_stream(&stream, HURRAY_DEVICE_VULKAN);
  got = abi_short_payload_stream(&stream, HURRAY_DEVICE_VULKAN);
  ck_assert_mem_eq(&got, &want, sizeof want);
  ck_assert_uint_eq(got.stream_device_tag, HURRAY_DEVICE_VULKAN);
  want = hurray_sync_payload_none();
  got = abi_short_payload_none();
  ck_assert_mem_eq(&got, &want, sizeof want);
  ck_assert_ptr_null(got.event);
  ck_assert_uint_eq(got.event_kind, HURRAY_EVENT_KIND_NONE);

  /* The offer, by value, with a payload passed by value into the other object. */
  const hurray_sync_payload sync =
      hurray_sync_payload_event_of_kind(&event, HURRAY_EVENT_KIND_PLUGIN, 0xF2u, no_release, &ctx);
  const hurray_buffer_offer offer_here = hurray_buffer_offer_make(&stream, no_release, &ctx, sync);
  const hurray_buffer_offer offer_there = abi_short_offer_make(&stream, no_release, &ctx, sync);
  ck_assert_mem_eq(&offer_there, &offer_here, sizeof offer_here);
  ck_assert_uint_eq(offer_there.struct_size, HURRAY_BUFFER_OFFER_MIN_SIZE);
  ck_assert_uint_eq(offer_there.sync.event_kind, HURRAY_EVENT_KIND_PLUGIN);
  ck_assert_uint_eq(offer_there.sync.event_device_tag, 0xF2u);

  const int64_t shape[2] = {3, 5};
  const hurray_dl_data_type f32 = {HURRAY_DL_FLOAT, 32, 1};
  const hurray_dlpack_layout layout = abi_short_layout_of(f32, 2, shape, 7);
  ck_assert_uint_eq(layout.struct_size, sizeof(hurray_dlpack_layout));
  ck_assert_uint_eq(layout.dtype.bits, 32);
  ck_assert_uint_eq(layout.dtype.lanes, 1);
  ck_assert_int_eq(layout.ndim, 2);
  ck_assert_int_eq(layout.device_id, 7);
  ck_assert_ptr_eq(layout.shape, shape);
  ck_assert_ptr_null(layout.strides);
}
END_TEST

START_TEST(predicates_are_zero_or_one) {
  /* HO-ABI-5 on all 65,536 pairs, called from both objects. */
  for (unsigned tag = 0; tag < 256; tag++) {
    for (unsigned cls = 0; cls < 256; cls++) {
      const hurray_bool32 here = hurray_pair_is_valid((uint8_t)tag, (uint8_t)cls);
      const hurray_bool32 there = abi_short_pair_is_valid((uint8_t)tag, (uint8_t)cls);
      ck_assert_msg(here == there && (here == HURRAY_TRUE || here == HURRAY_FALSE),
                    "pair (0x%02x, 0x%02x): %u here, %u under -fshort-enums", tag, cls, here,
                    there);
    }
    const hurray_bool32 private_tag = hurray_device_tag_is_private((uint8_t)tag);
    ck_assert_uint_eq(private_tag, tag >= 0xF0u && tag <= 0xFEu ? HURRAY_TRUE : HURRAY_FALSE);
    ck_assert_uint_eq(hurray_memory_class_is_private((uint8_t)tag), private_tag);
    ck_assert_uint_eq(hurray_sync_mode_is_private((uint8_t)tag), HURRAY_FALSE);
  }
  ck_assert_uint_eq(hurray_pair_is_valid(HURRAY_DEVICE_CUDA, HURRAY_MEMORY_PEER), HURRAY_TRUE);
  const hurray_buffer_handle a = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  hurray_buffer_handle b = a;
  ck_assert_uint_eq(abi_short_handle_equal(&a, &b), HURRAY_TRUE);
  ck_assert_uint_eq(hurray_buffer_handle_is_empty(&a), HURRAY_TRUE);
  b.byte_size = 64;
  ck_assert_uint_eq(abi_short_handle_equal(&a, &b), HURRAY_FALSE);
  ck_assert_uint_eq(hurray_buffer_handle_is_empty(&b), HURRAY_FALSE);
}
END_TEST

static int buffer_releases;
static int event_releases;
static void count_buffer(void *p, void *ctx) {
  (void)p;
  (void)ctx;
  buffer_releases++;
}
static void count_event(void *p, void *ctx) {
  (void)p;
  (void)ctx;
  event_releases++;
}

START_TEST(handoff_structs_cross) {
  static char bytes[4096] __attribute__((aligned(4096)));
  int event;
  hurray_buffer_handle handle;
  ck_assert_uint_eq(
      hurray_buffer_handle_new(4096u, 4096u, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, &handle, NULL),
      HURRAY_OK);
  const hurray_buffer_offer offer = hurray_buffer_offer_make(
      bytes, count_buffer, NULL,
      hurray_sync_payload_event(&event, HURRAY_DEVICE_CUDA, count_event, NULL));
  hurray_handoff h;
  hurray_accepted_buffer out;
  memset(&out, 0xA5, sizeof out);
  out.struct_size = (uint32_t)sizeof out;
  hurray_error err;
  ck_assert_uint_eq(
      abi_short_offer_accept(&h, &handle, &offer, HURRAY_TRANSPORT_IN_PROCESS, &out, &err),
      HURRAY_OK);
  ck_assert_mem_eq(&out.handle, &handle, sizeof handle);
  ck_assert_ptr_eq(out.data, bytes);
  ck_assert_ptr_eq(out.event, &event);
  ck_assert_ptr_null(out.stream);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EVENT_PENDING);
  ck_assert_uint_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(buffer_releases, 1);
  ck_assert_int_eq(event_releases, 1);

  /* The error struct filled across: the event's tag differs (HO-PAY-3). */
  hurray_buffer_offer wrong = offer;
  wrong.sync.event_device_tag = HURRAY_DEVICE_ROCM;
  memset(&err, 0, sizeof err);
  ck_assert_uint_eq(
      abi_short_offer_accept(&h, &handle, &wrong, HURRAY_TRANSPORT_IN_PROCESS, &out, &err),
      HURRAY_ERR_SYNC_MODE_MISMATCH);
  ck_assert_uint_eq(err.status, HURRAY_ERR_SYNC_MODE_MISMATCH);
  ck_assert_uint_eq(err.value, HURRAY_SYNC_EVENT);
  ck_assert_uint_eq(err.expected, HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG);
  ck_assert_uint_eq(err.index, HURRAY_DEVICE_ROCM);
  ck_assert_uint_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);

  /* An unknown transport, a u32 past the constants. */
  ck_assert_uint_eq(abi_short_offer_accept(&h, &handle, &offer, 7u, &out, &err),
                    HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 7u);
  ck_assert_uint_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);

  hurray_buffer_handle bad = handle;
  bad.alignment = 96u;
  ck_assert_uint_eq(abi_short_validate(&bad, &err), HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  ck_assert_uint_eq(err.value, 96u);
  ck_assert_uint_eq(err.index, 0u);
}
END_TEST

static hurray_status stub_init(void **state, hurray_error *err) {
  (void)err;
  *state = NULL;
  return HURRAY_OK;
}
static void stub_shutdown(void *state) { (void)state; }
static hurray_status stub_count(void *state, uint32_t *n, hurray_error *err) {
  (void)state;
  (void)err;
  *n = 0;
  return HURRAY_OK;
}
static hurray_status stub_describe(void *state, uint32_t i, hurray_plugin_device_info *out,
                                   hurray_error *err) {
  (void)state;
  (void)i;
  (void)out;
  (void)err;
  return HURRAY_ERR_UNSUPPORTED;
}
static hurray_status stub_allocate(void *state, uint32_t i, uint64_t size, uint32_t alignment,
                                   hurray_memory_class cls, uint32_t flags,
                                   hurray_plugin_allocation *out, hurray_error *err) {
  (void)state, (void)i, (void)size, (void)alignment, (void)cls, (void)flags, (void)out, (void)err;
  return HURRAY_ERR_UNSUPPORTED;
}
static void stub_free(void *state, const hurray_plugin_allocation *a) { (void)state, (void)a; }
static hurray_status stub_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t off,
                                    const void *src, uint64_t n, hurray_error *err) {
  (void)state, (void)dst, (void)off, (void)src, (void)n, (void)err;
  return HURRAY_ERR_UNSUPPORTED;
}
static hurray_status stub_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                  uint64_t off, uint64_t n, hurray_error *err) {
  (void)state, (void)dst, (void)src, (void)off, (void)n, (void)err;
  return HURRAY_ERR_UNSUPPORTED;
}

START_TEST(plugin_structs_cross) {
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = (uint32_t)sizeof info;
  strcpy(info.name, "abi-test");
  info.memory_class_count = 1;
  info.memory_classes[0].memory_class = HURRAY_MEMORY_STANDARD;
  info.memory_classes[0].flags = HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE;
  info.memory_classes[0].max_alignment = 4096u;
  hurray_error err;
  ck_assert_uint_eq(abi_short_device_info_validate(&info, HURRAY_DEVICE_CPU, &err), HURRAY_OK);
  info.memory_class_count = 9u;
  ck_assert_uint_eq(abi_short_device_info_validate(&info, HURRAY_DEVICE_CPU, &err),
                    HURRAY_ERR_PLUGIN_INVALID);
  ck_assert_uint_eq(err.value, 9u);
  ck_assert_uint_eq(err.expected, HURRAY_PLUGIN_MAX_MEMORY_CLASSES);

  const hurray_plugin_table table = {
      .struct_size = (uint32_t)sizeof(hurray_plugin_table),
      .abi_version = HURRAY_PLUGIN_ABI_VERSION,
      .name = "abi-test",
      .plugin_version = "1.0.0",
      .device_tag = 0xF3u,
      .init = stub_init,
      .shutdown = stub_shutdown,
      .count_devices = stub_count,
      .describe_device = stub_describe,
      .allocate = stub_allocate,
      .free = stub_free,
      .copy_to_device = stub_to_device,
      .copy_to_host = stub_to_host,
  };
  hurray_plugin_table out;
  memset(&out, 0, sizeof out);
  out.struct_size = (uint32_t)sizeof out;
  ck_assert_uint_eq(abi_short_table_validate(&table, &out, &err), HURRAY_OK);
  ck_assert_mem_eq(&out, &table, sizeof table);

  static char memory[8192] __attribute__((aligned(4096)));
  hurray_plugin_allocation a;
  memset(&a, 0xEE, sizeof a);
  abi_short_fill_allocation(&a, memory);
  ck_assert_uint_eq(a.struct_size, sizeof a);
  ck_assert_uint_eq(a.alignment, 4096u);
  ck_assert_uint_eq(a.byte_size, 8192u);
  ck_assert_ptr_eq(a.address, memory);
  ck_assert_uint_eq(a.device_address, 0x1000u);
  ck_assert_uint_eq(a.device_index, 3u);
  ck_assert_uint_eq(a.memory_class, HURRAY_MEMORY_HOST_PINNED);
  ck_assert_uint_eq(a.alignment_basis, HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE);
  ck_assert_uint_eq(a.reserved[0] | a.reserved[1], 0u);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("abi_layout", "fixed_width", 0, the_two_objects_see_one_layout,
                           by_value_handle_crosses, by_value_step_crosses, by_value_payloads_cross,
                           predicates_are_zero_or_one, handoff_structs_cross, plugin_structs_cross);
}
