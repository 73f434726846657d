/*
 * Fuzz target net_message: one control message of the network transport
 * (specs/network.md NET-MSG-1..6) as the proven decoder
 * hurray_net_message_decode (core/proven/net_message.c) sees it. Input: the
 * message.
 *
 * Oracle, for every input:
 *  - the decoder accepts exactly when a second reader written here from the
 *    spec's rules accepts (header fields, per-type sizes and fields, the
 *    table through hurray_buffer_table_decode_exact);
 *  - on failure *out and handles[] are untouched (NET-MSG-6) and err names
 *    the status returned;
 *  - on success the fields equal the bytes, and the message re-encodes
 *    (hurray_net_encode_tensor / _refuse) to the same bytes;
 *  - with one slot less capacity a TENSOR is refused with CAPACITY;
 *  - whatever the bytes, a NULL message, struct or handle array (with room
 *    asked for) is NULL_ARGUMENT naming it (index 0, 2, 3), and a struct
 *    smaller than HURRAY_NET_MESSAGE_MIN_SIZE is INVALID_ARGUMENT (value:
 *    its size, expected: the minimum, index 2) with nothing written.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/net.h"

FUZZ_ORACLE_BEGIN

static hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
static hurray_buffer_handle handles_before[HURRAY_BUFFER_TABLE_MAX_HANDLES];
static hurray_buffer_handle table_handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
static uint8_t again[HURRAY_NET_MAX_MESSAGE_SIZE];

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

/* The spec's reader: whether the message is well formed (NET-MSG-4, NET-MSG-5). */
static bool spec_accepts(const uint8_t *m, size_t len) {
  if (len < 16 || fuzz_read_u32(m) != HURRAY_NET_MAGIC || le16(m + 4) != 1 || le16(m + 14) != 0) {
    return false;
  }
  uint32_t type = le16(m + 6);
  uint64_t body = fuzz_read_u32(m + 8);
  if (type < 1 || type > 2 || (uint64_t)len != 16 + body || le16(m + 12) != 0) {
    return false;
  }
  const uint8_t *b = m + 16;
  if (type == HURRAY_NET_MSG_REFUSE) {
    return body == 32 && fuzz_read_u32(b) != 0;
  }
  if (body < 9) {
    return false;
  }
  size_t n = b[8];
  if (body != 9 + 16 * n) {
    return false;
  }
  size_t count = 0;
  return hurray_buffer_table_decode_exact(b + 8, body - 8, table_handles,
                                          HURRAY_BUFFER_TABLE_MAX_HANDLES, &count,
                                          NULL) == HURRAY_OK;
}

/* The argument checks come before any byte is read (NET-MSG-6), so they
 * answer the same for every message. */
static void check_argument_refusals(const uint8_t *m, size_t len) {
  hurray_net_message out = HURRAY_NET_MESSAGE_INIT;
  hurray_error err;
  FUZZ_CHECK(hurray_net_message_decode(NULL, len, &out, handles, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0 && err.value == 0 && err.expected == 0);
  FUZZ_CHECK(hurray_net_message_decode(m, len, NULL, handles, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2);
  FUZZ_CHECK(hurray_net_message_decode(m, len, &out, NULL, 1, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 3);
  hurray_net_message old_layout;
  memset(&old_layout, 0x5A, sizeof old_layout);
  old_layout.struct_size = HURRAY_NET_MESSAGE_MIN_SIZE - 1u;
  hurray_net_message untouched;
  memcpy(&untouched, &old_layout, sizeof untouched);
  FUZZ_CHECK(hurray_net_message_decode(m, len, &old_layout, handles, 1, &err) ==
                 HURRAY_ERR_INVALID_ARGUMENT &&
             err.index == 2 && err.value == HURRAY_NET_MESSAGE_MIN_SIZE - 1u &&
             err.expected == HURRAY_NET_MESSAGE_MIN_SIZE &&
             memcmp(&old_layout, &untouched, sizeof old_layout) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *m, size_t len) {
  check_argument_refusals(m, len);
  hurray_net_message out;
  memset(&out, 0x3C, sizeof out);
  out.struct_size = (uint32_t)sizeof out;
  hurray_net_message before = out;
  memset(handles, 0xC3, sizeof handles);
  memcpy(handles_before, handles, sizeof handles);
  hurray_error err;
  hurray_status st =
      hurray_net_message_decode(m, len, &out, handles, HURRAY_BUFFER_TABLE_MAX_HANDLES, &err);
  bool want = spec_accepts(m, len);
  FUZZ_CHECK((st == HURRAY_OK) == want);
  if (st != HURRAY_OK) {
    FUZZ_CHECK(err.status == st);
    FUZZ_CHECK(memcmp(&out, &before, sizeof out) == 0);
    FUZZ_CHECK(memcmp(handles, handles_before, sizeof handles) == 0);
    return 0;
  }
  const uint8_t *b = m + 16;
  FUZZ_CHECK(out.struct_size == sizeof out && out.reserved == 0);
  FUZZ_CHECK(out.type == le16(m + 6) && out.body_size == len - 16);
  size_t n = 0;
  if (out.type == HURRAY_NET_MSG_REFUSE) {
    FUZZ_CHECK(out.status == fuzz_read_u32(b) && out.index == fuzz_read_u32(b + 4) &&
               out.value == fuzz_read_u64(b + 8) && out.expected == fuzz_read_u64(b + 16) &&
               out.tensor_id == fuzz_read_u64(b + 24));
    n = hurray_net_encode_refuse(again, sizeof again, out.tensor_id, out.status,
                                 (uint32_t)out.index, out.value, out.expected);
  } else {
    FUZZ_CHECK(out.type == HURRAY_NET_MSG_TENSOR && out.buffer_count == b[8] &&
               out.tensor_id == fuzz_read_u64(b));
    uint8_t table[1 + 16 * HURRAY_BUFFER_TABLE_MAX_HANDLES];
    size_t written = 0;
    FUZZ_CHECK(hurray_buffer_table_encode(handles, out.buffer_count, table, sizeof table, &written,
                                          &err) == HURRAY_OK);
    n = hurray_net_encode_tensor(again, sizeof again, out.tensor_id, table, written);
    hurray_net_message small = HURRAY_NET_MESSAGE_INIT;
    FUZZ_CHECK(hurray_net_message_decode(m, len, &small, handles, out.buffer_count - 1u, &err) ==
               HURRAY_ERR_CAPACITY);
  }
  FUZZ_CHECK(n == len && memcmp(again, m, len) == 0);
  return 0;
}

FUZZ_ORACLE_END
