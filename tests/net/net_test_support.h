/*
 * Helpers shared by the network transport's tests: a handle from its
 * fields, and a table of handles encoded (BP-TABLE-1).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_NET_TEST_SUPPORT_H
#define HURRAY_TESTS_NET_TEST_SUPPORT_H

#include <check.h>
#include <string.h>

#include "hurray/buffer.h"

static inline hurray_buffer_handle handle_of(uint64_t size, uint32_t align, uint8_t device,
                                             uint8_t sync) {
  hurray_buffer_handle h;
  memset(&h, 0, sizeof h);
  h.byte_size = size;
  h.alignment = align;
  h.device_tag = device;
  h.sync_mode = sync;
  h.memory_class = 0;
  return h;
}

static inline size_t encode_table(const hurray_buffer_handle *h, size_t n, uint8_t *out,
                                  size_t cap) {
  size_t written = 0;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_table_encode(h, n, out, cap, &written, &err), HURRAY_OK);
  return written;
}

#endif /* HURRAY_TESTS_NET_TEST_SUPPORT_H */
