/*
 * Helpers shared by the network transport's tests: a handle from its
 * fields, a table of handles encoded (BP-TABLE-1), and the count of a fault
 * scenario's descriptors and mappings (tests/common/process_counts.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_NET_TEST_SUPPORT_H
#define HURRAY_TESTS_NET_TEST_SUPPORT_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "hurray/buffer.h"
#include "process_counts.h"

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

/* The descriptors and mappings of a fault scenario, before and after: not
 * one more of either when it is over (issue 42). UCX's process-wide state
 * (its async thread, its memory pools) is made before the first count by a
 * context created and destroyed once (net_warm_up). Mappings are not
 * counted under ASan, which maps shadow memory as the program first needs it. */

typedef struct net_probe {
  const char *what;
  int fds;
  int maps;
} net_probe;

static inline net_probe net_probe_start(const char *what) {
  net_probe p = {what, hurray_test_count_fds(), hurray_test_count_maps(NULL)};
  return p;
}

static inline void net_probe_check(const net_probe *p) {
  int fds = hurray_test_count_fds();
  int maps = hurray_test_count_maps(NULL);
  printf("fd/map counts %-36s fds %d -> %d, maps %d -> %d\n", p->what, p->fds, fds, p->maps, maps);
  fflush(stdout);
  ck_assert_msg(fds == p->fds, "%s: %d fds before, %d after", p->what, p->fds, fds);
#ifndef HURRAY_TEST_ASAN
  ck_assert_msg(maps <= p->maps, "%s: %d mappings before, %d after", p->what, p->maps, maps);
#endif
}

#endif /* HURRAY_TESTS_NET_TEST_SUPPORT_H */
