/*
 * libhurray — the control messages of the network transport
 * (specs/network.md, NET-MSG-*, NET-TAG-1).
 *
 * The byte format of what a sender and a receiver exchange besides the
 * buffers' bytes, and its decoder, which is pure (no allocation, no I/O)
 * and contracted in ACSL to accept exactly the messages specs/network.md
 * accepts (core/proven/net_message.c; Frama-C WP proves that contract for
 * LP64 and ILP32, and hurray/contracts.h exports it; tests and a fuzz
 * target check the compiled code). Part of libhurray, so it builds and is
 * fuzzed without UCX; the transport itself is hurray/net.h (libhurray-net).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_NET_WIRE_H
#define HURRAY_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** First four bytes of every control message, "HRN1" (NET-MSG-1). */
#define HURRAY_NET_MAGIC 0x314E5248u
/** The message format version (NET-MSG-1). */
#define HURRAY_NET_VERSION 1u
/** Bytes of the message header, laid out as IPC-MSG-1 (NET-MSG-1). */
#define HURRAY_NET_HEADER_SIZE 16u
/** Control message types (NET-MSG-3). */
#define HURRAY_NET_MSG_TENSOR 1u
#define HURRAY_NET_MSG_REFUSE 2u
/** Body size of REFUSE (NET-MSG-5). */
#define HURRAY_NET_REFUSE_BODY_SIZE 32u
/** Largest control message: a TENSOR of 255 handles, 16 + 8 + 1 + 16 * 255 (NET-MSG-2). */
#define HURRAY_NET_MAX_MESSAGE_SIZE (16u + 8u + 1u + 16u * 255u)

/**
 * UCX tags (NET-TAG-1): the top byte says what travels. Control messages
 * carry HURRAY_NET_TAG_CONTROL; the bytes of buffer i of tensor t carry
 * HURRAY_NET_TAG_DATA | i << 48 | (t & 0xFFFFFFFFFFFF).
 */
#define HURRAY_NET_TAG_KIND_MASK 0xFF00000000000000ull
#define HURRAY_NET_TAG_CONTROL 0x0100000000000000ull
#define HURRAY_NET_TAG_DATA 0x0200000000000000ull

/** The tag of buffer `index` of tensor `tensor_id` (NET-TAG-1). */
static inline uint64_t hurray_net_data_tag(uint64_t tensor_id, uint32_t index) {
  return HURRAY_NET_TAG_DATA | ((uint64_t)(index & 0xFFu) << 48) | (tensor_id & 0xFFFFFFFFFFFFull);
}

/**
 * A decoded control message, filled by hurray_net_message_decode. TENSOR:
 * tensor_id and buffer_count (the handles go to the caller's array).
 * REFUSE: tensor_id, status, index, value, expected: the receiver's error.
 * Growable: the caller sets struct_size (HURRAY_NET_MESSAGE_INIT does);
 * fields are only ever appended, and a decoder writes a field only when
 * struct_size covers it. This version writes the fields below, the
 * HURRAY_NET_MESSAGE_MIN_SIZE bytes every accepted struct_size covers.
 */
typedef struct hurray_net_message {
  /** Set by the caller to sizeof(hurray_net_message) as it compiled it; kept. */
  uint32_t struct_size;
  uint32_t type;
  uint32_t body_size;
  uint32_t buffer_count;
  uint64_t tensor_id;
  /** REFUSE: a hurray_status (never 0). */
  uint32_t status;
  /** Zero. */
  uint32_t reserved;
  uint64_t value;
  uint64_t expected;
  uint64_t index;
} hurray_net_message;

/** The smallest struct_size the decoder takes: this first layout. Never changes. */
#define HURRAY_NET_MESSAGE_MIN_SIZE 56u

/** An initialiser for the struct the decoder fills: its struct_size set, the rest zero. */
#define HURRAY_NET_MESSAGE_INIT \
  { .struct_size = (uint32_t)sizeof(hurray_net_message) }

/**
 * Decodes and checks one control message of `len` bytes in the order of
 * NET-MSG-4, reporting the first rule broken with the values
 * specs/network.md names: TRUNCATED, INVALID_ARGUMENT (magic, fd_count,
 * body_size, a REFUSE's status 0), UNSUPPORTED (version, type),
 * RESERVED_BYTE_NONZERO, TRAILING_BYTES, then for a TENSOR the errors of
 * hurray_buffer_table_decode_exact with index: the handle. A TENSOR's
 * handles go to handles[0 .. n) of capacity cap (CAPACITY when n > cap).
 *
 * On success the fields of *out its type uses are filled and the others
 * set to 0; struct_size is kept. On failure *out and handles[] are as they
 * were (NET-MSG-6). Before any byte is read: NULL_ARGUMENT (index: 0 in,
 * 2 out, 3 handles when cap > 0); INVALID_ARGUMENT (value:
 * out->struct_size, expected: HURRAY_NET_MESSAGE_MIN_SIZE, index 2).
 *
 * Pure: reads in[0 .. len) only, allocates nothing. Proven
 * (core/proven/net_message.c); its contract is in hurray/contracts.h.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_message_decode(const uint8_t *in, size_t len,
                                                                    hurray_net_message *out,
                                                                    hurray_buffer_handle *handles,
                                                                    size_t cap, hurray_error *err);

/**
 * Writers. Each writes one complete message into out[0 .. cap) and returns
 * its size, or 0 when cap is too small. They check nothing (the tests build
 * broken messages with them); hurray_net_send validates before it encodes.
 */
HURRAY_API size_t hurray_net_encode_header(uint8_t *out, size_t cap, uint32_t type,
                                           uint32_t body_size);
/** A TENSOR: tensor_id, then the encoded table bytes as given. */
HURRAY_API size_t hurray_net_encode_tensor(uint8_t *out, size_t cap, uint64_t tensor_id,
                                           const uint8_t *table, size_t table_len);
HURRAY_API size_t hurray_net_encode_refuse(uint8_t *out, size_t cap, uint64_t tensor_id,
                                           uint32_t status, uint32_t index, uint64_t value,
                                           uint64_t expected);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_NET_WIRE_H */
