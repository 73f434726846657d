/*
 * Round trips through the wire form (BP-WIRE-1, BP-WIRE-2):
 *   - encode then decode is the identity on every valid handle;
 *   - decode then encode gives back the input bytes for every input the
 *     decoder accepts (a handle carries nothing the 15 used bytes do not say,
 *     and the reserved byte of an accepted input is 0x00);
 *   - the encoder writes exactly the bytes of the BP-WIRE-1 layout.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

static void require_encode_decode_identity(const hurray_buffer_handle *h) {
  uint8_t wire[16];
  uint8_t layout[16];
  hurray_buffer_handle_encode(h, wire);
  spec_put_handle(layout, h->byte_size, h->alignment, h->device_tag, h->sync_mode, h->memory_class,
                  0);
  REQUIRE(memcmp(wire, layout, 16) == 0,
          "encode(size %llu align %u tag 0x%02X sync 0x%02X class 0x%02X) differs from "
          "BP-WIRE-1",
          (unsigned long long)h->byte_size, h->alignment, h->device_tag, h->sync_mode,
          h->memory_class);
  hurray_buffer_handle back;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_handle_decode(wire, &back, &err);
  REQUIRE(status == HURRAY_OK, "a valid handle decoded to %s", hurray_status_name(status));
  REQUIRE(hurray_buffer_handle_equal(h, &back) && back.byte_size == h->byte_size &&
              back.alignment == h->alignment && back.device_tag == h->device_tag &&
              back.sync_mode == h->sync_mode && back.memory_class == h->memory_class,
          "decode(encode(h)) != h for size %llu align %u tag 0x%02X",
          (unsigned long long)h->byte_size, h->alignment, h->device_tag);
}

START_TEST(encode_decode_every_valid_pair_mode_and_alignment) {
  static const uint64_t sizes[] = {0, 1, 64, 4096, 0x123456789ABCDEF0ULL, UINT64_MAX};
  unsigned long valid = 0;
  for (unsigned tag = 0; tag < 256; tag++) {
    for (unsigned cls = 0; cls < 256; cls++) {
      if (!spec_pair_is_valid((uint8_t)tag, (uint8_t)cls)) continue;
      for (unsigned sync = 0; sync < 3; sync++) {
        if (tag == 0 && sync != 0) continue; /* BP-SYNC-2 */
        for (int k = 0; k < 32; k++) {
          for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (sizes[s] != 0 && k < 6) continue; /* BP-ALIGN-2 */
            hurray_buffer_handle h;
            hurray_error err;
            REQUIRE(hurray_buffer_handle_with_memory_class(sizes[s], (uint32_t)1 << k, (uint8_t)tag,
                                                           (uint8_t)sync, (uint8_t)cls, &h,
                                                           &err) == HURRAY_OK,
                    "constructor refused a valid handle: %s", hurray_status_name(err.status));
            require_encode_decode_identity(&h);
            valid++;
          }
        }
      }
    }
  }
  ck_assert_uint_gt(valid, 100000);
}
END_TEST

START_TEST(encode_decode_random_sizes) {
  uint64_t state = 12345;
  for (int i = 0; i < 200000; i++) {
    uint64_t r = next_random(&state);
    hurray_buffer_handle h;
    h.byte_size = next_random(&state) >> (r % 64);
    h.alignment = (uint32_t)1 << (6 + (r >> 8) % 26);
    h.device_tag = (uint8_t)(1 + (r >> 16) % 8);
    h.sync_mode = (uint8_t)((r >> 24) % 3);
    h.memory_class = (uint8_t)((r >> 32) % 3);
    if (h.device_tag == 0x05) h.memory_class = 0; /* webgpu: standard only */
    REQUIRE(hurray_buffer_handle_validate(&h, NULL) == HURRAY_OK, "generator made a bad handle");
    require_encode_decode_identity(&h);
  }
}
END_TEST

/* decode then encode on one input: the bytes come back when accepted. */
static bool require_decode_encode_identity(const uint8_t wire[16]) {
  hurray_buffer_handle h;
  if (hurray_buffer_handle_decode(wire, &h, NULL) != HURRAY_OK) {
    return false;
  }
  uint8_t again[16];
  hurray_buffer_handle_encode(&h, again);
  REQUIRE(memcmp(wire, again, 16) == 0,
          "decode then encode changed the bytes of an accepted input (tag 0x%02X class 0x%02X)",
          wire[12], wire[14]);
  return true;
}

START_TEST(decode_encode_every_byte_of_placement) {
  /* Every (tag, sync, class, reserved) byte quadruple would be 2^32 inputs;
   * every (tag, sync, class) with reserved 0 and each reserved value with a
   * few placements covers every byte of bytes 12..15. */
  unsigned long accepted = 0;
  for (unsigned tag = 0; tag < 256; tag++)
    for (unsigned sync = 0; sync < 256; sync++)
      for (unsigned cls = 0; cls < 256; cls += (cls < 8 || cls >= 0xEE) ? 1 : 37) {
        uint8_t wire[16];
        spec_put_handle(wire, 0x0807060504030201ULL, 0x00010000u, (uint8_t)tag, (uint8_t)sync,
                        (uint8_t)cls, 0);
        bool ok = require_decode_encode_identity(wire);
        bool want = spec_handle_verdict(0x0807060504030201ULL, 0x00010000u, (uint8_t)tag,
                                        (uint8_t)sync, (uint8_t)cls, 0)
                        .status == HURRAY_OK;
        REQUIRE(ok == want, "tag 0x%02X sync 0x%02X class 0x%02X accepted=%d, spec says %d", tag,
                sync, cls, ok, want);
        accepted += ok ? 1u : 0u;
      }
  ck_assert_uint_gt(accepted, 0);
}
END_TEST

START_TEST(decode_encode_random_inputs) {
  uint64_t state = 0xDEADBEEFCAFEF00DULL;
  unsigned long accepted = 0;
  for (int i = 0; i < 1000000; i++) {
    uint8_t wire[16];
    uint64_t a = next_random(&state);
    uint64_t b = next_random(&state);
    for (int k = 0; k < 8; k++) {
      wire[k] = (uint8_t)(a >> (8 * k));
      wire[8 + k] = (uint8_t)(b >> (8 * k));
    }
    /* Bias half the inputs towards acceptance, so both outcomes are many:
     * small tags, modes and classes, a zero reserved byte, a power of two. */
    if (i % 2 == 0) {
      wire[12] = (uint8_t)(wire[12] % 10u == 9u ? 0xF0u + wire[12] % 15u : wire[12] % 9u);
      wire[13] = (uint8_t)(wire[13] % 3u);
      wire[14] = (uint8_t)(wire[14] % 4u);
      wire[15] = 0;
      uint32_t alignment = (uint32_t)1 << (b % 32);
      for (int k = 0; k < 4; k++) wire[8 + k] = (uint8_t)(alignment >> (8 * k));
    }
    uint64_t size = 0;
    uint32_t alignment = 0;
    for (int k = 7; k >= 0; k--) size = size * 256u + wire[k];
    for (int k = 11; k >= 8; k--) alignment = alignment * 256u + wire[k];
    bool want =
        spec_handle_verdict(size, alignment, wire[12], wire[13], wire[14], wire[15]).status ==
        HURRAY_OK;
    bool ok = require_decode_encode_identity(wire);
    REQUIRE(ok == want, "input %d accepted=%d, spec says %d", i, ok, want);
    accepted += ok ? 1u : 0u;
  }
  ck_assert_uint_gt(accepted, 100000);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("wire round trips", "round trip", SWEEP_TIMEOUT_S,
                           encode_decode_every_valid_pair_mode_and_alignment,
                           encode_decode_random_sizes, decode_encode_every_byte_of_placement,
                           decode_encode_random_inputs);
}
