/*
 * Alignment (BP-ALIGN-1..3, BP-ALIGN-5): every power of two and many other
 * values, with byte_size 0 and not, through the decoder, the constructors and
 * hurray_buffer_handle_validate(); and hurray_alignment_of() on real
 * addresses.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

static const uint64_t sizes[] = {0, 1, 63, 64, 4096, 0xFFFFFFFFULL, UINT64_MAX};

/* One alignment value on every path, for every size above, on a CUDA event
 * buffer (so only the alignment rules can fail) and a CPU one. */
static void require_alignment(uint32_t alignment) {
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (int cpu = 0; cpu < 2; cpu++) {
      uint8_t tag = cpu ? 0x00 : 0x01;
      uint8_t sync = cpu ? 0x00 : 0x01;
      spec_verdict want = spec_handle_verdict(sizes[s], alignment, tag, sync, 0, 0);
      char what[96];
      snprintf(what, sizeof what, "alignment %u (0x%08X), byte_size %llu, tag 0x%02X", alignment,
               alignment, (unsigned long long)sizes[s], tag);

      uint8_t wire[16];
      spec_put_handle(wire, sizes[s], alignment, tag, sync, 0, 0);
      hurray_buffer_handle out;
      hurray_error err = junk_error();
      require_verdict(what, hurray_buffer_handle_decode(wire, &out, &err), &err, want, 0);

      err = junk_error();
      require_verdict(what, hurray_buffer_handle_new(sizes[s], alignment, tag, sync, &out, &err),
                      &err, want, 0);

      hurray_buffer_handle h = {sizes[s], alignment, tag, sync, 0, 0};
      err = junk_error();
      require_verdict(what, hurray_buffer_handle_validate(&h, &err), &err, want, 0);
    }
  }
}

START_TEST(alignment_every_power_of_two) {
  for (int k = 0; k < 32; k++) {
    uint32_t alignment = (uint32_t)1 << k;
    require_alignment(alignment);
    /* Spelled out: BP-ALIGN-2 for a non-empty buffer, BP-ALIGN-3 for an empty one. */
    hurray_buffer_handle out;
    ck_assert_int_eq(hurray_buffer_handle_new(0, alignment, 1, 1, &out, NULL), HURRAY_OK);
    ck_assert_int_eq(hurray_buffer_handle_new(1, alignment, 1, 1, &out, NULL),
                     k >= 6 ? HURRAY_OK : HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  }
}
END_TEST

START_TEST(alignment_named_non_powers) {
  static const uint32_t values[] = {
      0u,     3u,     5u,          6u,          7u,          12u,         48u,        63u,   65u,
      96u,    100u,   127u,        129u,        192u,        1000u,       4095u,      4097u, 6144u,
      65535u, 65537u, 0x7FFFFFFFu, 0x80000001u, 0xC0000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    ck_assert(!spec_is_power_of_two(values[i]));
    require_alignment(values[i]);
    hurray_buffer_handle out;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_handle_new(0, values[i], 1, 1, &out, &err);
    require_status_value("non-power", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO,
                         values[i], 0);
  }
}
END_TEST

START_TEST(alignment_every_value_up_to_70000) {
  for (uint32_t a = 0; a <= 70000u; a++) {
    require_alignment(a);
  }
}
END_TEST

START_TEST(alignment_random_values) {
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 20000; i++) {
    uint64_t r = next_random(&state);
    /* Mostly arbitrary words, some powers of two with a stray low bit. */
    uint32_t a = (i % 3 == 0) ? ((uint32_t)1 << (r % 32)) | (uint32_t)((r >> 8) & 1u)
                              : (uint32_t)(r >> 32);
    require_alignment(a);
  }
}
END_TEST

START_TEST(alignment_of_addresses) {
  /* BP-ALIGN-5: the largest power of two dividing the address, at most 2^31. */
  unsigned char *block = aligned_alloc(8192, 8192);
  ck_assert_ptr_nonnull(block);
  for (size_t offset = 1; offset < 8192; offset++) {
    uint32_t want = 1;
    while (want < 8192u && offset % (2u * want) == 0) {
      want *= 2;
    }
    REQUIRE(hurray_alignment_of(block + offset) == want, "alignment_of(block + %zu) = %u, want %u",
            offset, hurray_alignment_of(block + offset), want);
  }
  ck_assert_uint_ge(hurray_alignment_of(block), 8192);
  ck_assert_uint_eq(hurray_alignment_of(NULL), 0x80000000u);
  free(block);
}
END_TEST

START_TEST(host_memory_measures_and_caps) {
  unsigned char *block = aligned_alloc(8192, 16384);
  ck_assert_ptr_nonnull(block);
  hurray_buffer_handle out;
  hurray_error err;
  /* Measured 4096 at block + 4096, capped by max_alignment. */
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(block + 4096, 100, 65536, &out, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(out.alignment, 4096);
  ck_assert_uint_eq(out.device_tag, HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(out.sync_mode, HURRAY_SYNC_PRODUCER_SYNCED);
  ck_assert_uint_eq(out.memory_class, HURRAY_MEMORY_STANDARD);
  ck_assert_uint_eq(out.byte_size, 100);
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(block + 4096, 100, 128, &out, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(out.alignment, 128);
  /* Every address from 64-aligned down to 1-aligned, non-empty: refused
   * with the measured alignment below 64 (BP-ALIGN-5). */
  for (uint32_t a = 1; a < 64; a *= 2) {
    err = junk_error();
    hurray_status status = hurray_buffer_handle_for_host_memory(block + a, 1, 4096, &out, &err);
    require_error("under-aligned", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, a, 64, 0);
  }
  /* A cap below 64 makes a non-empty buffer unacceptable too. */
  err = junk_error();
  hurray_status status = hurray_buffer_handle_for_host_memory(block, 1, 32, &out, &err);
  require_error("cap 32", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32, 64, 0);
  /* A cap that is no power of two is rejected with its value. */
  err = junk_error();
  status = hurray_buffer_handle_for_host_memory(block, 1, 100, &out, &err);
  require_status_value("cap 100", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 100, 0);
  err = junk_error();
  status = hurray_buffer_handle_for_host_memory(block, 1, 0, &out, &err);
  require_status_value("cap 0", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 0, 0);
  free(block);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("alignment", "alignment", SWEEP_TIMEOUT_S, alignment_every_power_of_two,
                           alignment_named_non_powers, alignment_every_value_up_to_70000,
                           alignment_random_values, alignment_of_addresses,
                           host_memory_measures_and_caps);
}
