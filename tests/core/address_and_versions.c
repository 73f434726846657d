/*
 * Rules with no test of their own before issue 17: the wire form carries no
 * address (BP-WIRE-3), the library's producer side defaults to
 * producer_synced (BP-SYNC-4), and the plugin ABI version's packing
 * (PL-VER-1). Expected values are the spec's literals.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "hurray/hurray.h"
#include "hurray/plugin.h"
#include "test_support.h"

/* BP-WIRE-3: the handle is a declaration, not a pointer: two buffers at
 * different addresses with the same size and alignment have the same 16
 * bytes, and those bytes are exactly the five fields. */
START_TEST(wire_form_carries_no_address) {
  static _Alignas(4096) unsigned char first[2 * 4096];
  hurray_buffer_handle a, b;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(first, 100, 4096, &a, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(first + 4096, 100, 4096, &b, NULL),
                   HURRAY_OK);
  uint8_t wa[16], wb[16];
  hurray_buffer_handle_encode(&a, wa);
  hurray_buffer_handle_encode(&b, wb);
  ck_assert(memcmp(wa, wb, sizeof wa) == 0);
  uint8_t want[16];
  spec_put_handle(want, 100, 4096, 0x00, 0x00, 0x00, 0x00);
  ck_assert(memcmp(wa, want, sizeof wa) == 0);
  /* Everything a consumer learns from the handle is in those bytes. */
  hurray_buffer_handle back;
  ck_assert_int_eq(hurray_buffer_handle_decode(wa, &back, NULL), HURRAY_OK);
  ck_assert(hurray_buffer_handle_equal(&back, &a));
}
END_TEST

/* BP-SYNC-4: a handle the library builds for host memory is producer_synced
 * (and standard memory, BP-MEM-1's default), for every alignment it measures. */
START_TEST(host_memory_handles_are_producer_synced) {
  static _Alignas(65536) unsigned char block[65536 + 64];
  for (size_t offset = 0; offset <= 65536; offset += 64) {
    hurray_buffer_handle h;
    ck_assert_int_eq(hurray_buffer_handle_for_host_memory(block + offset, 64, 65536, &h, NULL),
                     HURRAY_OK);
    ck_assert_uint_eq(h.sync_mode, HURRAY_SYNC_PRODUCER_SYNCED);
    ck_assert_uint_eq(h.device_tag, HURRAY_DEVICE_CPU);
    ck_assert_uint_eq(h.memory_class, HURRAY_MEMORY_STANDARD);
  }
}
END_TEST

/* PL-VER-1: one u32, major in the high 16 bits, minor in the low 16; this
 * specification is 1.1 (PL-EVENT-5 appended native_event). */
START_TEST(plugin_abi_version_packing) {
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_MAKE(1u, 0u), 0x00010000u);
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_MAKE(0x1234u, 0x5678u), 0x12345678u);
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_MAKE(0xFFFFu, 0xFFFFu), 0xFFFFFFFFu);
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_MAJOR, 1u);
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_MINOR, 1u);
  ck_assert_uint_eq(HURRAY_PLUGIN_ABI_VERSION, 0x00010001u);
  ck_assert_uint_eq(sizeof(uint32_t), sizeof HURRAY_PLUGIN_ABI_VERSION);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("address and versions", "address and versions", SWEEP_TIMEOUT_S,
                           wire_form_carries_no_address, host_memory_handles_are_producer_synced,
                           plugin_abi_version_packing);
}
