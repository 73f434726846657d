/*
 * The control messages of the network transport (specs/network.md
 * NET-MSG-*): writers and the pure decoder. The header is the IPC header's
 * layout (IPC-MSG-1) with its own magic, so a message of one transport fed
 * to the other's reader fails at the magic rather than being misread.
 * No ACSL contract yet: the proof is issue 15's, not this slice's. No UCX
 * here either, so the fuzz target (fuzz/fuzz_net_message.c) builds without it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "net_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

hurray_status hurray_internal_net_fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index, const char *fmt, ...) {
  if (err != NULL) {
    memset(err, 0, sizeof *err);
    err->status = status;
    err->value = value;
    err->expected = expected;
    err->index = index;
    if (fmt != NULL) {
      va_list ap;
      va_start(ap, fmt);
      (void)vsnprintf(err->detail, sizeof err->detail, fmt, ap);
      va_end(ap);
    }
  }
  return status;
}

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

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get64(const uint8_t *p) {
  return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32);
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

size_t hurray_net_encode_tensor(uint8_t *out, size_t cap, uint64_t tensor_id,
                                const uint8_t *table, size_t table_len) {
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

/* Writes no more of *out than the caller's struct_size says it has. */
static void store(hurray_net_message *out, const hurray_net_message *m, uint32_t out_size) {
  memcpy(out, m, out_size < sizeof *m ? out_size : sizeof *m);
}

hurray_status hurray_net_message_decode(const uint8_t *in, size_t len, hurray_net_message *out,
                                        hurray_buffer_handle *handles, size_t cap,
                                        hurray_error *err) {
  if (in == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  if (out == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2, NULL);
  }
  if (handles == NULL && cap > 0u) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3, NULL);
  }
  uint32_t out_size = out->struct_size;
  if (out_size < HURRAY_NET_MESSAGE_MIN_SIZE) {
    return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, out_size,
                                    HURRAY_NET_MESSAGE_MIN_SIZE, 2,
                                    "hurray_net_message.struct_size");
  }
  /* NET-MSG-4: the order of IPC-MSG-5, the fd_count rule aside. */
  if (len < HURRAY_NET_HEADER_SIZE) {
    return hurray_internal_net_fail(err, HURRAY_ERR_TRUNCATED, len, HURRAY_NET_HEADER_SIZE, 0,
                                    "message header");
  }
  uint32_t magic = get32(in);
  if (magic != HURRAY_NET_MAGIC) {
    return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, magic, HURRAY_NET_MAGIC, 0,
                                    "magic");
  }
  uint32_t version = get16(in + 4);
  if (version != HURRAY_NET_VERSION) {
    return hurray_internal_net_fail(err, HURRAY_ERR_UNSUPPORTED, version, HURRAY_NET_VERSION, 4,
                                    "message version");
  }
  uint32_t reserved = get16(in + 14);
  if (reserved != 0u) {
    return hurray_internal_net_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 14,
                                    "header reserved field");
  }
  uint32_t type = get16(in + 6);
  if (type != HURRAY_NET_MSG_TENSOR && type != HURRAY_NET_MSG_REFUSE) {
    return hurray_internal_net_fail(err, HURRAY_ERR_UNSUPPORTED, type, 0, 6, "message type");
  }
  uint32_t body_size = get32(in + 8);
  uint64_t need = (uint64_t)HURRAY_NET_HEADER_SIZE + body_size;
  if ((uint64_t)len < need) {
    return hurray_internal_net_fail(err, HURRAY_ERR_TRUNCATED, len, need, 0, "message body");
  }
  if ((uint64_t)len > need) {
    return hurray_internal_net_fail(err, HURRAY_ERR_TRAILING_BYTES, len, need, 0,
                                    "after the message body");
  }
  uint32_t fd_count = get16(in + 12);
  if (fd_count != 0u) {
    return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, 0, 12,
                                    "fd_count (no descriptor crosses a network)");
  }
  hurray_net_message m;
  memset(&m, 0, sizeof m);
  m.struct_size = out_size;
  m.type = type;
  m.body_size = body_size;
  const uint8_t *body = in + HURRAY_NET_HEADER_SIZE;
  if (type == HURRAY_NET_MSG_REFUSE) {
    if (body_size != HURRAY_NET_REFUSE_BODY_SIZE) {
      return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size,
                                      HURRAY_NET_REFUSE_BODY_SIZE, 8, "REFUSE body_size");
    }
    m.status = get32(body);
    if (m.status == HURRAY_OK) {
      return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 16,
                                      "REFUSE status 0");
    }
    m.index = get32(body + 4);
    m.value = get64(body + 8);
    m.expected = get64(body + 16);
    m.tensor_id = get64(body + 24);
    store(out, &m, out_size);
    return HURRAY_OK;
  }
  /* TENSOR: the tensor id, then exactly one buffer table (BP-TABLE-1..6). */
  if (body_size < 9u) {
    return hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, 9, 8,
                                    "TENSOR body_size");
  }
  m.tensor_id = get64(body);
  size_t count = 0;
  hurray_status st =
      hurray_buffer_table_decode_exact(body + 8, body_size - 8u, handles, cap, &count, err);
  if (st != HURRAY_OK) {
    return st;
  }
  m.buffer_count = (uint32_t)count;
  store(out, &m, out_size);
  return HURRAY_OK;
}
