/*
 * BP-ORDER-1: a handle with several faults gets one answer, the first broken
 * rule in the spec's order. Every combination of a few values per field
 * (valid ones and each kind of fault) goes through the decoder, the
 * constructors and hurray_buffer_handle_validate() (which skip step 1: a
 * value struct has no reserved byte).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "hurray/hurray.h"
#include "test_support.h"

static const uint8_t reserved_values[] = {0x00, 0x01, 0x80, 0xFF};
/* cpu, cuda, webgpu (standard only), private, reserved (first, last), invalid */
static const uint8_t tags[] = {0x00, 0x01, 0x05, 0xF4, 0x09, 0xEF, 0xFF};
static const uint8_t syncs[] = {0x00, 0x01, 0x02, 0x03, 0xFF};
/* standard, pinned, unified, peer, reserved (first, last), private, invalid */
static const uint8_t classes[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0xEF, 0xF1, 0xFF};
static const uint32_t alignments[] = {0, 1, 3, 32, 63, 64, 4096, 0x80000000u, 0xFFFFFFFFu};
static const uint64_t sizes[] = {0, 1, 4096, UINT64_MAX};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(order_every_combination) {
  unsigned long cases = 0;
  for (size_t r = 0; r < COUNT(reserved_values); r++)
    for (size_t t = 0; t < COUNT(tags); t++)
      for (size_t s = 0; s < COUNT(syncs); s++)
        for (size_t c = 0; c < COUNT(classes); c++)
          for (size_t a = 0; a < COUNT(alignments); a++)
            for (size_t z = 0; z < COUNT(sizes); z++) {
              uint8_t wire[16];
              spec_put_handle(wire, sizes[z], alignments[a], tags[t], syncs[s], classes[c],
                              reserved_values[r]);
              char what[128];
              snprintf(what, sizeof what,
                       "size %llu align %u tag 0x%02X sync 0x%02X class 0x%02X reserved 0x%02X",
                       (unsigned long long)sizes[z], alignments[a], tags[t], syncs[s], classes[c],
                       reserved_values[r]);
              spec_verdict want = spec_handle_verdict(sizes[z], alignments[a], tags[t], syncs[s],
                                                      classes[c], reserved_values[r]);
              hurray_buffer_handle out;
              hurray_error err = junk_error();
              require_verdict(what, hurray_buffer_handle_decode(wire, &out, &err), &err, want, 0);
              cases++;
              if (reserved_values[r] != 0) {
                continue;
              }
              err = junk_error();
              require_verdict(what,
                              hurray_buffer_handle_with_memory_class(sizes[z], alignments[a],
                                                                     tags[t], syncs[s], classes[c],
                                                                     &out, &err),
                              &err, want, 0);
              hurray_buffer_handle h = {sizes[z], alignments[a], tags[t], syncs[s], classes[c], 0};
              err = junk_error();
              require_verdict(what, hurray_buffer_handle_validate(&h, &err), &err, want, 0);
              if (classes[c] == 0) {
                err = junk_error();
                require_verdict(what,
                                hurray_buffer_handle_new(sizes[z], alignments[a], tags[t], syncs[s],
                                                         &out, &err),
                                &err, want, 0);
              }
            }
  ck_assert_uint_eq(cases, 4ul * 7 * 5 * 8 * 9 * 4);
}
END_TEST

/* The order spelled out on hand-picked handles, each with exactly two
 * faults, so a reader of this file sees each pair of steps decided. */
START_TEST(order_pairs_spelled_out) {
  static const struct {
    uint64_t size;
    uint32_t alignment;
    uint8_t tag, sync, cls, reserved;
    hurray_status want;
    uint64_t value;
  } cases[] = {
      /* 1 before 2..8 */
      {1, 3, 0xFF, 0xFF, 0xFF, 0x07, HURRAY_ERR_RESERVED_BYTE_NONZERO, 0x07},
      /* 2 before 3 */
      {1, 64, 0x10, 0x03, 0x00, 0, HURRAY_ERR_RESERVED_DEVICE_TAG, 0x10},
      {1, 64, 0xFF, 0x03, 0x00, 0, HURRAY_ERR_INVALID_DEVICE_TAG, 0xFF},
      /* 3 before 4 */
      {1, 64, 0x01, 0x03, 0x40, 0, HURRAY_ERR_INVALID_SYNC_MODE, 0x03},
      /* 4 before 5 */
      {1, 6, 0x01, 0x00, 0x40, 0, HURRAY_ERR_RESERVED_MEMORY_CLASS, 0x40},
      {1, 6, 0x01, 0x00, 0xFF, 0, HURRAY_ERR_INVALID_MEMORY_CLASS, 0xFF},
      /* 5 before 6 */
      {1, 48, 0x01, 0x00, 0x00, 0, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 48},
      /* 6 before 7 */
      {1, 32, 0x00, 0x01, 0x00, 0, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32},
      /* 7 before 8: CPU with event and the peer class */
      {1, 64, 0x00, 0x01, 0x03, 0, HURRAY_ERR_INVALID_SYNC_MODE, 0x01},
      /* 8 alone */
      {1, 64, 0x05, 0x01, 0x02, 0, HURRAY_ERR_INVALID_PAIR, 0x02},
      /* an empty buffer skips 6 and meets 7 */
      {0, 2, 0x00, 0x02, 0x00, 0, HURRAY_ERR_INVALID_SYNC_MODE, 0x02},
  };
  for (size_t i = 0; i < COUNT(cases); i++) {
    uint8_t wire[16];
    spec_put_handle(wire, cases[i].size, cases[i].alignment, cases[i].tag, cases[i].sync,
                    cases[i].cls, cases[i].reserved);
    hurray_buffer_handle out;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_handle_decode(wire, &out, &err);
    char what[32];
    snprintf(what, sizeof what, "case %zu", i);
    require_status_value(what, status, &err, cases[i].want, cases[i].value, 0);
  }
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("decoding order (BP-ORDER-1)", "order", SWEEP_TIMEOUT_S,
                           order_every_combination, order_pairs_spelled_out);
}
