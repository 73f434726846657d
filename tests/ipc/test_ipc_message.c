/*
 * The IPC message decoder (core/proven/ipc_message.c, ipc_offer.c) against the rules of
 * specs/ipc.md IPC-MSG-1..11, IPC-MSG-13 and IPC-MSG-14, through the writers of ipc/ipc_encode.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "ipc_test_support.h"
#include "check_main.h"

static uint8_t msg[HURRAY_IPC_MAX_MESSAGE_SIZE + 64];
static hurray_buffer_handle handles[HURRAY_IPC_MAX_FDS];
static hurray_ipc_segment segments[HURRAY_IPC_MAX_FDS];

static hurray_status decode(size_t len, size_t fds, hurray_ipc_message *m, hurray_error *err) {
  return hurray_ipc_message_decode(msg, len, fds, m, handles, segments, HURRAY_IPC_MAX_FDS, err);
}

static void expect(size_t len, size_t fds, hurray_status status, uint64_t value, uint64_t expected,
                   size_t index) {
  hurray_ipc_message m;
  memset(&m, 0xAB, sizeof m);
  hurray_ipc_message before = m;
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(decode(len, fds, &m, &err), status);
  ck_assert_int_eq(err.status, status);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.expected, expected);
  ck_assert_uint_eq(err.index, index);
  ck_assert_mem_eq(&m, &before, sizeof m); /* untouched on failure */
}

static size_t offer_of(size_t n, uint64_t offer_id) {
  hurray_buffer_handle h[HURRAY_IPC_MAX_FDS];
  hurray_ipc_segment s[HURRAY_IPC_MAX_FDS];
  for (size_t i = 0; i < n; i++) {
    h[i] = host_handle(4096u * (i + 1));
    s[i].offset = 8192u * i;
    s[i].memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
    s[i].reserved = 0;
  }
  return hurray_ipc_encode_offer(msg, sizeof msg, offer_id, h, s, n);
}

START_TEST(fixed_messages_round_trip) {  // IPC-MSG-7, -8, -10
  hurray_ipc_message m;
  hurray_error err;
  size_t n = hurray_ipc_encode_hello(msg, sizeof msg, 4242, 1000, 253);
  ck_assert_uint_eq(n, 32);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_HELLO);
  ck_assert_uint_eq(m.code, 4242);
  ck_assert_uint_eq(m.value, 1000);
  ck_assert_uint_eq(m.expected, 253);
  n = hurray_ipc_encode_refuse(msg, sizeof msg, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED, 77);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REFUSE);
  ck_assert_uint_eq(m.code, 1);
  ck_assert_uint_eq(m.value, 77);
  n = hurray_ipc_encode_release(msg, sizeof msg, 0x1122334455667788u, 9);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.offer_id, 0x1122334455667788u);
  ck_assert_uint_eq(m.buffer_index, 9);
  n = hurray_ipc_encode_reject(msg, sizeof msg, 5, HURRAY_ERR_IPC_BAD_SEGMENT, 2, 0xFFFFFFFFFFu,
                               0x0Fu);
  ck_assert_uint_eq(n, 48);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REJECT);
  ck_assert_uint_eq(m.offer_id, 5);
  ck_assert_uint_eq(m.code, HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(m.buffer_index, 2);
  ck_assert_uint_eq(m.value, 0xFFFFFFFFFFu);
  ck_assert_uint_eq(m.expected, 0x0Fu);
}
END_TEST

START_TEST(offer_round_trip) {  // IPC-MSG-9, IPC-MSG-11
  for (size_t count = 1; count <= HURRAY_IPC_MAX_FDS; count += 84) {
    size_t n = offer_of(count, 0xABCDEFu + count);
    ck_assert_uint_eq(n, 16 + 9 + 32 * count);
    hurray_ipc_message m;
    hurray_error err;
    ck_assert_int_eq(decode(n, count, &m, &err), HURRAY_OK);
    ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_OFFER);
    ck_assert_uint_eq(m.buffer_count, count);
    ck_assert_uint_eq(m.fd_count, count);
    ck_assert_uint_eq(m.offer_id, 0xABCDEFu + count);
    for (size_t i = 0; i < count; i++) {
      ck_assert_uint_eq(handles[i].byte_size, 4096u * (i + 1));
      ck_assert_uint_eq(segments[i].offset, 8192u * i);
      ck_assert_uint_eq(segments[i].memory_kind, HURRAY_IPC_MEMORY_HOST_MEMFD);
    }
  }
  ck_assert_uint_eq(offer_of(HURRAY_IPC_MAX_FDS, 1), HURRAY_IPC_MAX_MESSAGE_SIZE);
}
END_TEST

START_TEST(header_errors_in_order) {  // IPC-MSG-5 steps 1..7
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, 1, 0);
  expect(0, 0, HURRAY_ERR_TRUNCATED, 0, 16, 0);
  expect(15, 0, HURRAY_ERR_TRUNCATED, 15, 16, 0);
  msg[0] ^= 1u;
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, HURRAY_IPC_MAGIC ^ 1u, HURRAY_IPC_MAGIC, 0);
  msg[0] ^= 1u;
  msg[4] = 2;
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 2, 1, 4);
  msg[4] = 1;
  msg[15] = 1;
  msg[6] = 0x77; /* the reserved field is checked before the type */
  expect(n, 0, HURRAY_ERR_RESERVED_BYTE_NONZERO, 0x100, 0, 14);
  msg[15] = 0;
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 0x77, 0, 6);
  msg[6] = 0;
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 0, 0, 6);
  msg[6] = HURRAY_IPC_MSG_EVENT + 1; /* the first number IPC-MSG-6 leaves free */
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, HURRAY_IPC_MSG_EVENT + 1, 0, 6);
  msg[6] = HURRAY_IPC_MSG_RELEASE;
  expect(n - 1, 0, HURRAY_ERR_TRUNCATED, n - 1, n, 0);
  expect(n + 1, 0, HURRAY_ERR_TRAILING_BYTES, n + 1, n, 0);
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 12);
  msg[8] = 0xFF;
  msg[9] = 0xFF;
  msg[10] = 0xFF;
  msg[11] = 0xFF; /* body_size 2^32 - 1: no overflow */
  expect(n, 0, HURRAY_ERR_TRUNCATED, n, (uint64_t)16 + 0xFFFFFFFFu, 0);
}
END_TEST

START_TEST(body_errors) {  // IPC-MSG-7..10
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, 1, 0);
  msg[28] = 1;
  expect(n, 0, HURRAY_ERR_RESERVED_BYTE_NONZERO, 1, 0, 12);
  n = hurray_ipc_encode_hello(msg, sizeof msg, 1, 1, 0);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 0, 253, 8);
  n = hurray_ipc_encode_hello(msg, sizeof msg, 1, 1, 254);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 254, 253, 8);
  n = hurray_ipc_encode_refuse(msg, sizeof msg, 0, 1);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 0);
  n = hurray_ipc_encode_reject(msg, sizeof msg, 1, 0, 0, 0, 0);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 8);
  /* A REJECT-sized body on a RELEASE. */
  n = hurray_ipc_encode_reject(msg, sizeof msg, 1, 3, 0, 0, 0);
  msg[6] = HURRAY_IPC_MSG_RELEASE;
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 32, 16, 8);
  /* Descriptors on a message that carries none. */
  n = hurray_ipc_encode_release(msg, sizeof msg, 1, 0);
  msg[12] = 2;
  expect(n, 2, HURRAY_ERR_INVALID_ARGUMENT, 2, 0, 12);
}
END_TEST

START_TEST(offer_errors) {  // IPC-MSG-9, IPC-MSG-11, BP-TABLE-*
  hurray_ipc_message m;
  hurray_error err;
  size_t n = offer_of(2, 7);
  /* fd count: declared 2, received 1 (wrong number of descriptors) */
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 2, 1, 12);
  /* declared 1 although the table has 2 */
  msg[12] = 1;
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 1, 2, 12);
  msg[12] = 2;
  /* count byte 0 */
  msg[24] = 0;
  expect(n, 2, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, 0);
  msg[24] = 254;
  expect(n, 2, HURRAY_ERR_CAPACITY, 254, 253, 0);
  msg[24] = 3; /* body says 2 buffers' worth of bytes */
  expect(n, 2, HURRAY_ERR_INVALID_ARGUMENT, 9 + 64, 9 + 96, 8);
  msg[24] = 2;
  /* a handle's reserved byte: the table decoder's error, index 1 */
  msg[25 + 16 + 15] = 1;
  expect(n, 2, HURRAY_ERR_RESERVED_BYTE_NONZERO, 1, 0, 1);
  msg[25 + 16 + 15] = 0;
  /* record 1: memory kind 3 (undefined; 2, device, is the highest defined) */
  msg[25 + 32 + 16 + 8] = 3;
  expect(n, 2, HURRAY_ERR_UNSUPPORTED, 3, 2, 1);
  /* record 1 a device buffer: its descriptor travels with its DEVICE
   * message, so the OFFER declaring 2 descriptors is refused after the
   * records, naming the one host record (IPC-MSG-9) */
  msg[25 + 32 + 16 + 8] = 2;
  expect(n, 2, HURRAY_ERR_INVALID_ARGUMENT, 2, 1, 12);
  msg[12] = 1;
  ck_assert_int_eq(decode(n, 1, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.fd_count, 1);
  ck_assert_uint_eq(m.buffer_count, 2);
  ck_assert_uint_eq(segments[0].memory_kind, HURRAY_IPC_MEMORY_HOST_MEMFD);
  ck_assert_uint_eq(segments[1].memory_kind, HURRAY_IPC_MEMORY_DEVICE);
  ck_assert_uint_eq(segments[1].offset, 8192);
  /* the records are checked before the descriptor count: a bad kind is
   * named even when the count is wrong too */
  msg[25 + 32 + 16 + 8] = 9;
  expect(n, 1, HURRAY_ERR_UNSUPPORTED, 9, 2, 1);
  msg[12] = 2;
  msg[25 + 32 + 16 + 8] = 1;
  msg[25 + 32 + 12] = 9;
  expect(n, 2, HURRAY_ERR_RESERVED_BYTE_NONZERO, 9, 0, 0);
  msg[25 + 32 + 12] = 0;
  ck_assert_int_eq(decode(n, 2, &m, &err), HURRAY_OK);
  /* capacity of the reader */
  ck_assert_int_eq(hurray_ipc_message_decode(msg, n, 2, &m, handles, segments, 1, &err),
                   HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 2);
  ck_assert_uint_eq(err.expected, 1);
  /* body shorter than the fixed part */
  hurray_ipc_encode_header(msg, sizeof msg, HURRAY_IPC_MSG_OFFER, 8, 0);
  expect(16 + 8, 0, HURRAY_ERR_INVALID_ARGUMENT, 8, 9, 8);
}
END_TEST

static const uint8_t device_uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t driver_uuid[16] = {0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7,
                                        0xD8, 0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF};

/* Writes v over the width bytes of msg at `at`, little-endian. */
static void put_le(size_t at, unsigned width, uint64_t v) {
  for (unsigned k = 0; k < width; k++) {
    msg[at + k] = (uint8_t)(v >> (8 * k));
  }
}

static void put32(size_t at, uint32_t v) { put_le(at, 4, v); }

static void put64(size_t at, uint64_t v) { put_le(at, 8, v); }

/* A 64-byte handle of DEVICE or EVENT. */
typedef struct opaque_handle {
  uint8_t bytes[64];
} opaque_handle;

/* A handle whose bytes count up from first. */
static opaque_handle counting_handle(unsigned first) {
  opaque_handle h;
  for (unsigned k = 0; k < sizeof h.bytes; k++) {
    h.bytes[k] = (uint8_t)(first + k);
  }
  return h;
}

/* The opaque tail DEVICE and EVENT share (IPC-MSG-13, -14), as the writers
 * laid it out in msg. */
static void expect_opaque_tail(const uint8_t handle[64]) {
  ck_assert_mem_eq(msg + HURRAY_IPC_DEVICE_UUID_OFFSET, device_uuid, 16);
  ck_assert_mem_eq(msg + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET, driver_uuid, 16);
  ck_assert_mem_eq(msg + HURRAY_IPC_DEVICE_HANDLE_OFFSET, handle, 64);
}

/* The checks DEVICE and EVENT make alike on the n bytes in msg, in order:
 * handle_size (body offset 24) from 1 to 64 for a handle kind, then the
 * reserved word (28) zero. The message is left as valid as it came, with
 * handle_size `handle_size`. */
static void expect_handle_size_checks(size_t n, uint32_t handle_size, uint32_t reserved) {
  put32(40, 0);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 0, 64, 24);
  put32(40, 65);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 65, 64, 24);
  put32(40, handle_size);
  put32(44, reserved);
  expect(n, 0, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 28);
  put32(44, 0);
}

START_TEST(device_messages) {  // IPC-MSG-13
  hurray_ipc_message m;
  hurray_error err;
  const opaque_handle handle = counting_handle(0x40);
  /* kind HANDLE (a CUDA-style IPC handle): no descriptor */
  size_t n = hurray_ipc_encode_device(msg, sizeof msg, 0x0102030405060708u, 3,
                                      HURRAY_IPC_DEVICE_HANDLE, 1u << 20, device_uuid, driver_uuid,
                                      handle.bytes, 64);
  ck_assert_uint_eq(n, 16 + HURRAY_IPC_DEVICE_BODY_SIZE);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_DEVICE);
  ck_assert_uint_eq(m.offer_id, 0x0102030405060708u);
  ck_assert_uint_eq(m.buffer_index, 3);
  ck_assert_uint_eq(m.code, HURRAY_IPC_DEVICE_HANDLE);
  ck_assert_uint_eq(m.value, 1u << 20);
  ck_assert_uint_eq(m.expected, 64);
  ck_assert_uint_eq(m.fd_count, 0);
  expect_opaque_tail(handle.bytes);
  /* the checks, in offset order */
  put32(24, 253);
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 253, 253, 8);
  put32(24, 3);
  put32(28, 3);
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 3, 2, 12);
  put32(28, 0);
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 0, 2, 12);
  put32(28, HURRAY_IPC_DEVICE_HANDLE);
  msg[12] = 1; /* a descriptor with a handle-kind export */
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 1, 0, 12);
  msg[12] = 0;
  expect_handle_size_checks(n, 64, 5);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  /* kind FD (a Vulkan OPAQUE_FD, a memfd): one descriptor */
  n = hurray_ipc_encode_device(msg, sizeof msg, 9, 0, HURRAY_IPC_DEVICE_FD, 4096, NULL, NULL, NULL,
                               0);
  ck_assert_uint_eq(msg[12], 1);
  ck_assert_int_eq(decode(n, 1, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.code, HURRAY_IPC_DEVICE_FD);
  ck_assert_uint_eq(m.fd_count, 1);
  msg[12] = 0; /* an FD-kind export without its descriptor */
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 12);
  msg[12] = 1;
  for (unsigned k = 32; k < 40; k++) {
    msg[k] = 0; /* segment_size 0 */
  }
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 16);
  n = hurray_ipc_encode_device(msg, sizeof msg, 9, 0, HURRAY_IPC_DEVICE_FD, 4096, NULL, NULL, NULL,
                               0);
  put32(40, 8); /* a handle size on an FD-kind export */
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 8, 0, 24);
  /* a body of another size */
  n = hurray_ipc_encode_device(msg, sizeof msg, 9, 0, HURRAY_IPC_DEVICE_FD, 4096, NULL, NULL, NULL,
                               0);
  put32(8, HURRAY_IPC_DEVICE_BODY_SIZE - 16);
  expect(n - 16, 1, HURRAY_ERR_INVALID_ARGUMENT, HURRAY_IPC_DEVICE_BODY_SIZE - 16,
         HURRAY_IPC_DEVICE_BODY_SIZE, 8);
  /* the writer refuses a handle longer than the field */
  ck_assert_uint_eq(hurray_ipc_encode_device(msg, sizeof msg, 9, 0, HURRAY_IPC_DEVICE_HANDLE, 4096,
                                             NULL, NULL, handle.bytes, 65),
                    0);
}
END_TEST

START_TEST(event_messages) {  // IPC-MSG-14
  hurray_ipc_message m;
  hurray_error err;
  const opaque_handle handle = counting_handle(0x80);
  size_t n = hurray_ipc_encode_event(msg, sizeof msg, 0x1112131415161718u, 252,
                                     HURRAY_IPC_EVENT_HANDLE, device_uuid, driver_uuid,
                                     handle.bytes, 64);
  ck_assert_uint_eq(n, 16 + HURRAY_IPC_EVENT_BODY_SIZE);
  ck_assert_uint_eq(msg[12], 0); /* no descriptor */
  memset(&m, 0xAB, sizeof m);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_EVENT);
  ck_assert_uint_eq(m.body_size, HURRAY_IPC_EVENT_BODY_SIZE);
  ck_assert_uint_eq(m.offer_id, 0x1112131415161718u);
  ck_assert_uint_eq(m.buffer_index, 252);
  ck_assert_uint_eq(m.code, HURRAY_IPC_EVENT_HANDLE);
  ck_assert_uint_eq(m.value, 0);
  ck_assert_uint_eq(m.expected, 64);
  ck_assert_uint_eq(m.fd_count, 0);
  ck_assert_uint_eq(m.buffer_count, 0);
  expect_opaque_tail(handle.bytes);
  /* the checks, in order: body size, descriptors, then the fields */
  msg[12] = 1;
  put32(24, 253); /* the descriptor count is checked first */
  expect(n, 1, HURRAY_ERR_INVALID_ARGUMENT, 1, 0, 12);
  msg[12] = 0;
  expect(n, 0, HURRAY_ERR_INVALID_ARGUMENT, 253, 253, 8);
  put32(24, 0);
  put32(28, 1); /* kind 1 is kept for a descriptor kind: not this version's */
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 1, 2, 12);
  put32(28, 0);
  expect(n, 0, HURRAY_ERR_UNSUPPORTED, 0, 2, 12);
  put32(28, HURRAY_IPC_EVENT_HANDLE);
  put64(32, (uint64_t)1 << 63);
  expect(n, 0, HURRAY_ERR_RESERVED_BYTE_NONZERO, (uint64_t)1 << 63, 0, 16);
  put64(32, 0);
  expect_handle_size_checks(n, 16, 7);
  ck_assert_int_eq(decode(n, 0, &m, &err), HURRAY_OK);
  ck_assert_uint_eq(m.expected, 16);
  /* a body of another size */
  put32(8, HURRAY_IPC_EVENT_BODY_SIZE + 8);
  expect(n + 8, 0, HURRAY_ERR_INVALID_ARGUMENT, HURRAY_IPC_EVENT_BODY_SIZE + 8,
         HURRAY_IPC_EVENT_BODY_SIZE, 8);
  /* the writer zeroes handle bytes past handle_size, refuses more than 64 */
  n = hurray_ipc_encode_event(msg, sizeof msg, 1, 0, HURRAY_IPC_EVENT_HANDLE, NULL, NULL,
                              handle.bytes, 8);
  ck_assert_uint_eq(msg[HURRAY_IPC_DEVICE_HANDLE_OFFSET + 7], handle.bytes[7]);
  ck_assert_uint_eq(msg[HURRAY_IPC_DEVICE_HANDLE_OFFSET + 8], 0);
  ck_assert_uint_eq(msg[HURRAY_IPC_DEVICE_UUID_OFFSET], 0);
  ck_assert_uint_eq(hurray_ipc_encode_event(msg, sizeof msg, 1, 0, HURRAY_IPC_EVENT_HANDLE, NULL,
                                            NULL, handle.bytes, 65),
                    0);
  ck_assert_uint_eq(hurray_ipc_encode_event(msg, 16 + HURRAY_IPC_EVENT_BODY_SIZE - 1, 1, 0,
                                            HURRAY_IPC_EVENT_HANDLE, NULL, NULL, handle.bytes, 8),
                    0);
}
END_TEST

START_TEST(null_arguments) {
  hurray_ipc_message m;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_message_decode(NULL, 16, 0, &m, NULL, NULL, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_int_eq(hurray_ipc_message_decode(msg, 16, 0, NULL, NULL, NULL, 0, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3);
  ck_assert_int_eq(hurray_ipc_message_decode(msg, 16, 0, &m, NULL, segments, 1, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 4);
  ck_assert_int_eq(hurray_ipc_message_decode(msg, 16, 0, &m, handles, NULL, 1, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 5);
  /* an OFFER with no room for its buffers */
  size_t n = offer_of(1, 1);
  ck_assert_int_eq(hurray_ipc_message_decode(msg, n, 1, &m, NULL, NULL, 0, &err),
                   HURRAY_ERR_CAPACITY);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("ipc_message", "decoder", 0, fixed_messages_round_trip, offer_round_trip,
                           header_errors_in_order, body_errors, offer_errors, device_messages,
                           event_messages, null_arguments);
}
