/*
 * The network transport's control messages (specs/network.md NET-MSG-1..6,
 * NET-TAG-1): the writers and the proven decoder, both in libhurray
 * (hurray/net_wire.h), so this test runs whether or not UCX was found.
 * Every error is checked with its status, value, expected and index, and
 * every refusal with the caller's outputs as they were.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/net_wire.h"
#include "net_test_support.h"
#include "check_main.h"

static void expect_decode(const uint8_t *msg, size_t len, hurray_status st, uint64_t value,
                          uint64_t expected, size_t index) {
  hurray_buffer_handle h[4];
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, h, 4, &err), st);
  ck_assert_uint_eq(err.status, st);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.expected, expected);
  ck_assert_uint_eq(err.index, index);
}

START_TEST(message_format) {  // NET-MSG-1..5, NET-TAG-1
  hurray_buffer_handle h[2] = {handle_of(4096, 64, 0, 0), handle_of(0, 1, 0, 0)};
  uint8_t table[64];
  size_t tlen = encode_table(h, 2, table, sizeof table);
  uint8_t msg[128];
  size_t len = hurray_net_encode_tensor(msg, sizeof msg, 0x1122334455ull, table, tlen);
  ck_assert_uint_eq(len, 16u + 8u + tlen);
  /* the IPC header layout, with the network magic and no descriptors */
  ck_assert_uint_eq(msg[0], 'H');
  ck_assert_uint_eq(msg[1], 'R');
  ck_assert_uint_eq(msg[2], 'N');
  ck_assert_uint_eq(msg[3], '1');
  ck_assert_uint_eq(msg[12] | msg[13], 0);
  hurray_buffer_handle out[4];
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, out, 4, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_NET_MSG_TENSOR);
  ck_assert_uint_eq(m.tensor_id, 0x1122334455ull);
  ck_assert_uint_eq(m.buffer_count, 2);
  ck_assert_uint_eq(out[0].byte_size, 4096);
  /* the first rule broken, in the order of NET-MSG-4 */
  expect_decode(msg, 10, HURRAY_ERR_TRUNCATED, 10, 16, 0);
  uint8_t bad[128];
  memcpy(bad, msg, len);
  bad[3] = 'X';
  expect_decode(bad, len, HURRAY_ERR_INVALID_ARGUMENT, 0x584E5248u, HURRAY_NET_MAGIC, 0);
  memcpy(bad, msg, len);
  bad[4] = 2;
  expect_decode(bad, len, HURRAY_ERR_UNSUPPORTED, 2, 1, 4);
  memcpy(bad, msg, len);
  bad[14] = 1;
  bad[6] = 9; /* reserved is checked before the type */
  expect_decode(bad, len, HURRAY_ERR_RESERVED_BYTE_NONZERO, 1, 0, 14);
  bad[14] = 0;
  expect_decode(bad, len, HURRAY_ERR_UNSUPPORTED, 9, 0, 6);
  expect_decode(msg, len - 1u, HURRAY_ERR_TRUNCATED, len - 1u, len, 0);
  memcpy(bad, msg, len);
  bad[len] = 0;
  expect_decode(bad, len + 1u, HURRAY_ERR_TRAILING_BYTES, len + 1u, len, 0);
  memcpy(bad, msg, len);
  bad[12] = 1;
  expect_decode(bad, len, HURRAY_ERR_INVALID_ARGUMENT, 1, 0, 12);
  /* the table is checked with the buffer table decoder (BP-TABLE-*) */
  memcpy(bad, msg, len);
  bad[24 + 1 + 13] = 0x01; /* handle 0's sync byte: event on cpu */
  expect_decode(bad, len, HURRAY_ERR_INVALID_SYNC_MODE, 1, 0, 0);
  /* REFUSE */
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, HURRAY_ERR_CAPACITY, 3, 100, 50);
  ck_assert_uint_eq(len, 48);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, NULL, 0, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_NET_MSG_REFUSE);
  ck_assert_uint_eq(m.status, HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(m.index, 3);
  ck_assert_uint_eq(m.value, 100);
  ck_assert_uint_eq(m.expected, 50);
  ck_assert_uint_eq(m.tensor_id, 7);
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, 0, 0, 0, 0);
  expect_decode(msg, len, HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 16);
  /* struct_size: too small is refused first; the decoder keeps it */
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, HURRAY_ERR_CAPACITY, 3, 100, 50);
  hurray_net_message tiny = {.struct_size = 8};
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &tiny, NULL, 0, &err),
                    HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 8);
  ck_assert_uint_eq(err.expected, HURRAY_NET_MESSAGE_MIN_SIZE);
  ck_assert_uint_eq(err.index, 2);
  ck_assert_uint_eq(tiny.type, 0);
  ck_assert_uint_eq(m.struct_size, sizeof m);
  /* tags (NET-TAG-1) */
  ck_assert_uint_eq(hurray_net_data_tag(0x123, 5), 0x0205000000000123ull);
}
END_TEST

/* A TENSOR of n 64-byte CPU buffers, its size returned. */
static size_t tensor_of(size_t n, uint64_t tensor_id, uint8_t *msg, size_t cap) {
  static hurray_buffer_handle h[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  static uint8_t table[1 + 16 * HURRAY_BUFFER_TABLE_MAX_HANDLES];
  for (size_t i = 0; i < n; i++) {
    h[i] = handle_of(64u * (i + 1u), 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED);
  }
  size_t tlen = encode_table(h, n, table, sizeof table);
  size_t len = hurray_net_encode_tensor(msg, cap, tensor_id, table, tlen);
  ck_assert_uint_eq(len, 16u + 8u + tlen);
  return len;
}

/* NET-MSG-6: a refused message leaves *out and handles[] as they were. */
static void expect_untouched(const uint8_t *msg, size_t len, size_t cap, hurray_status st) {
  hurray_buffer_handle h[4];
  memset(h, 0xA5, sizeof h);
  hurray_net_message m;
  memset(&m, 0x5A, sizeof m);
  m.struct_size = (uint32_t)sizeof m;
  hurray_buffer_handle h_before[4];
  hurray_net_message m_before;
  memcpy(h_before, h, sizeof h);
  memcpy(&m_before, &m, sizeof m);
  hurray_error err;
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, h, cap, &err), st);
  ck_assert_uint_eq(err.status, st);
  ck_assert_int_eq(memcmp(&m, &m_before, sizeof m), 0);
  ck_assert_int_eq(memcmp(h, h_before, sizeof h), 0);
}

START_TEST(refusal_writes_nothing) {  // NET-MSG-6, NET-MSG-4, NET-MSG-5
  uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE];
  size_t len = tensor_of(3, 42, msg, sizeof msg);
  uint8_t bad[HURRAY_NET_MAX_MESSAGE_SIZE + 1];
  /* over capacity: the first handles would fit */
  expect_untouched(msg, len, 2, HURRAY_ERR_CAPACITY);
  /* the last handle invalid: the first two are valid and not written */
  memcpy(bad, msg, len);
  bad[24 + 1 + 2 * 16 + 8] = 3; /* handle 2's alignment: not a power of two */
  expect_untouched(bad, len, 4, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  /* the last handle on another device than the first */
  memcpy(bad, msg, len);
  bad[24 + 1 + 2 * 16 + 12] = HURRAY_DEVICE_CUDA;
  expect_untouched(bad, len, 4, HURRAY_ERR_DEVICE_TAG_MISMATCH);
  /* a valid table with a byte after it: TRAILING_BYTES of the table */
  memcpy(bad, msg, len);
  bad[len] = 0;
  bad[8] = (uint8_t)(bad[8] + 1u); /* body_size covers the extra byte */
  expect_untouched(bad, len + 1u, 4, HURRAY_ERR_TRAILING_BYTES);
  /* header faults */
  expect_untouched(msg, 15, 4, HURRAY_ERR_TRUNCATED);
  memcpy(bad, msg, len);
  bad[12] = 1;
  expect_untouched(bad, len, 4, HURRAY_ERR_INVALID_ARGUMENT);
  /* a REFUSE of status 0 */
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, 0, 0, 0, 0);
  expect_untouched(msg, len, 4, HURRAY_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(tensor_table_errors) {  // NET-MSG-5
  uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE + 16];
  size_t len = tensor_of(3, 42, msg, sizeof msg);
  /* a body of 8 bytes: the tensor id and no table */
  uint8_t small[24];
  memcpy(small, msg, 24);
  small[8] = 8;
  small[9] = small[10] = small[11] = 0;
  expect_decode(small, 24, HURRAY_ERR_INVALID_ARGUMENT, 8, 9, 8);
  /* the table's count says more handles than the body holds: its TRUNCATED */
  uint8_t bad[sizeof msg];
  memcpy(bad, msg, len);
  bad[24] = 4;
  expect_decode(bad, len, HURRAY_ERR_TRUNCATED, len - 24u, 1u + 16u * 4u, 0);
  /* count 0 (BP-TABLE-3) */
  memcpy(bad, msg, len);
  bad[24] = 0;
  expect_decode(bad, len, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, 0);
  /* CAPACITY names the count and the caller's capacity, above 255 too */
  hurray_buffer_handle h[3];
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, h, 2, &err), HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 3);
  ck_assert_uint_eq(err.expected, 2);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, NULL, 0, &err), HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 3);
  ck_assert_uint_eq(err.expected, 0);
  hurray_buffer_handle *many = calloc(1000, sizeof *many);
  ck_assert_ptr_nonnull(many);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, many, 1000, &err), HURRAY_OK);
  ck_assert_uint_eq(m.buffer_count, 3);
  ck_assert_uint_eq(many[2].byte_size, 192);
  ck_assert_uint_eq(many[3].byte_size, 0); /* nothing past the count */
  free(many);
}
END_TEST

START_TEST(largest_tensor) {  // NET-MSG-2
  static uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE];
  static hurray_buffer_handle h[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  size_t len = tensor_of(HURRAY_BUFFER_TABLE_MAX_HANDLES, 0xFFFFFFFFFFFFFFFFull, msg, sizeof msg);
  ck_assert_uint_eq(len, HURRAY_NET_MAX_MESSAGE_SIZE);
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  ck_assert_uint_eq(
      hurray_net_message_decode(msg, len, &m, h, HURRAY_BUFFER_TABLE_MAX_HANDLES, &err), HURRAY_OK);
  ck_assert_uint_eq(m.buffer_count, 255);
  ck_assert_uint_eq(m.body_size, len - 16u);
  ck_assert_uint_eq(m.tensor_id, 0xFFFFFFFFFFFFFFFFull);
  ck_assert_uint_eq(h[254].byte_size, 64u * 255u);
  /* the fields a TENSOR does not use are 0, whatever the struct held */
  memset(&m, 0xFF, sizeof m);
  m.struct_size = (uint32_t)sizeof m;
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, h, 255, &err), HURRAY_OK);
  ck_assert_uint_eq(m.status, 0);
  ck_assert_uint_eq(m.reserved, 0);
  ck_assert_uint_eq(m.value, 0);
  ck_assert_uint_eq(m.expected, 0);
  ck_assert_uint_eq(m.index, 0);
  ck_assert_uint_eq(m.struct_size, sizeof m);
}
END_TEST

START_TEST(arguments_checked_first) {  // NET-MSG-6
  uint8_t msg[64];
  size_t len = hurray_net_encode_refuse(msg, sizeof msg, 7, HURRAY_ERR_CAPACITY, 3, 100, 50);
  hurray_buffer_handle h[1];
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  ck_assert_uint_eq(hurray_net_message_decode(NULL, len, &m, h, 1, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, NULL, h, 1, &err),
                    HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, NULL, 1, &err),
                    HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3);
  ck_assert_uint_eq(m.type, 0);
  /* a struct_size below the minimum before the (broken) message is read */
  hurray_net_message small = {.struct_size = HURRAY_NET_MESSAGE_MIN_SIZE - 1u};
  ck_assert_uint_eq(hurray_net_message_decode(msg, 3, &small, h, 1, &err),
                    HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, HURRAY_NET_MESSAGE_MIN_SIZE - 1u);
  ck_assert_uint_eq(err.expected, HURRAY_NET_MESSAGE_MIN_SIZE);
  ck_assert_uint_eq(small.type, 0);
  /* err may be NULL */
  ck_assert_uint_eq(hurray_net_message_decode(msg, 3, &m, h, 1, NULL), HURRAY_ERR_TRUNCATED);
  ck_assert_uint_eq(hurray_net_message_decode(msg, len, &m, NULL, 0, NULL), HURRAY_OK);
  ck_assert_uint_eq(m.status, HURRAY_ERR_CAPACITY);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("net_message", "net_message", 0, message_format, refusal_writes_nothing,
                           tensor_table_errors, largest_tensor, arguments_checked_first);
}
