/*
 * Writers of the network transport's control messages (specs/network.md
 * NET-MSG-1..5), built into libhurray with their proven reader
 * (core/proven/net_message.c), so neither needs UCX; tests and the
 * net_message fuzz target check the round trip.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "hurray/net_wire.h"

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v & 0xFFu);
  p[1] = (uint8_t)((v >> 8) & 0xFFu);
}

static void put32(uint8_t *p, uint32_t v) {
  for (unsigned i = 0; i < 4u; i++) {
    p[i] = (uint8_t)((v >> (8u * i)) & 0xFFu);
  }
}

static void put64(uint8_t *p, uint64_t v) {
  for (unsigned i = 0; i < 8u; i++) {
    p[i] = (uint8_t)((v >> (8u * i)) & 0xFFu);
  }
}

size_t hurray_net_encode_header(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size) {
  if (out == NULL || cap < HURRAY_NET_HEADER_SIZE) {
    return 0;
  }
  put32(out, HURRAY_NET_MAGIC);
  put16(out + 4, HURRAY_NET_VERSION);
  put16(out + 6, type);
  put32(out + 8, body_size);
  put16(out + 12, 0); /* fd_count: nothing but bytes crosses a network (NET-MSG-1) */
  put16(out + 14, 0);
  return HURRAY_NET_HEADER_SIZE;
}

size_t hurray_net_encode_tensor(uint8_t *out, size_t cap, uint64_t tensor_id, const uint8_t *table,
                                size_t table_len) {
  if (table == NULL || table_len > HURRAY_NET_MAX_MESSAGE_SIZE) {
    return 0;
  }
  size_t total = HURRAY_NET_HEADER_SIZE + 8u + table_len;
  if (out == NULL || cap < total) {
    return 0;
  }
  (void)hurray_net_encode_header(out, cap, HURRAY_NET_MSG_TENSOR, (uint32_t)(8u + table_len));
  put64(out + 16, tensor_id);
  memcpy(out + 24, table, table_len);
  return total;
}

size_t hurray_net_encode_refuse(uint8_t *out, size_t cap, uint64_t tensor_id, uint32_t status,
                                uint32_t index, uint64_t value, uint64_t expected) {
  size_t total = HURRAY_NET_HEADER_SIZE + HURRAY_NET_REFUSE_BODY_SIZE;
  if (out == NULL || cap < total) {
    return 0;
  }
  (void)hurray_net_encode_header(out, cap, HURRAY_NET_MSG_REFUSE, HURRAY_NET_REFUSE_BODY_SIZE);
  put32(out + 16, status);
  put32(out + 20, index);
  put64(out + 24, value);
  put64(out + 32, expected);
  put64(out + 40, tensor_id);
  return total;
}
