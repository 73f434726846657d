/*
 * Fuzz target ipc_message: one message of the IPC transport (specs/ipc.md
 * IPC-MSG-1..11, IPC-MSG-13, IPC-MSG-14) as the decoder
 * hurray_ipc_message_decode (core/proven/ipc_message.c, ipc_offer.c) sees it.
 * Input: byte 0 is the number of descriptors that arrived with the message,
 * the rest is the message.
 *
 * Oracle, for every input (IPC-MSG-12: accepts exactly the messages the
 * rules accept):
 *  - the decoder accepts exactly when a second reader written here from the
 *    spec's tables accepts (header fields, per-type sizes and fields, the
 *    table through hurray_buffer_table_decode_exact, the segment records);
 *  - on failure *out is untouched; on success the fields equal the bytes;
 *  - an accepted message re-encodes (ipc/ipc_encode.c) to the same bytes,
 *    and to nothing with one byte less room;
 *  - with one slot less capacity an OFFER is refused with CAPACITY;
 *  - whatever the bytes, a NULL message, struct, handle or segment array
 *    (with room asked for) is NULL_ARGUMENT naming it (index 0, 3, 4, 5).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/ipc_wire.h"

FUZZ_ORACLE_BEGIN

static hurray_buffer_handle handles[HURRAY_IPC_MAX_FDS];
static hurray_buffer_handle table_handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
static hurray_ipc_segment segments[HURRAY_IPC_MAX_FDS];
static uint8_t again[HURRAY_IPC_MAX_MESSAGE_SIZE];

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

/* The spec's reader: whether the message is well formed (IPC-MSG-5..11, -13, -14). */
static bool spec_accepts(const uint8_t *m, size_t len, size_t fds) {
  if (len < 16 || fuzz_read_u32(m) != HURRAY_IPC_MAGIC || le16(m + 4) != 1 || le16(m + 14) != 0) {
    return false;
  }
  uint32_t type = le16(m + 6);
  uint64_t body = fuzz_read_u32(m + 8);
  uint32_t nfd = le16(m + 12);
  if (type < 1 || type > 7 || (uint64_t)len != 16 + body || nfd != fds) {
    return false;
  }
  const uint8_t *b = m + 16;
  switch (type) {
    case HURRAY_IPC_MSG_HELLO:
      return body == 16 && nfd == 0 && fuzz_read_u32(b + 8) >= 1 && fuzz_read_u32(b + 8) <= 253 &&
             fuzz_read_u32(b + 12) == 0;
    case HURRAY_IPC_MSG_REFUSE:
      return body == 16 && nfd == 0 && fuzz_read_u32(b) != 0 && fuzz_read_u32(b + 4) == 0;
    case HURRAY_IPC_MSG_RELEASE: return body == 16 && nfd == 0 && fuzz_read_u32(b + 12) == 0;
    case HURRAY_IPC_MSG_REJECT: return body == 32 && nfd == 0 && fuzz_read_u32(b + 8) != 0;
    case HURRAY_IPC_MSG_DEVICE: {
      if (body != 128 || fuzz_read_u32(b + 8) >= 253 || fuzz_read_u64(b + 16) == 0 ||
          fuzz_read_u32(b + 28) != 0) {
        return false;
      }
      uint32_t kind = fuzz_read_u32(b + 12);
      uint32_t handle_size = fuzz_read_u32(b + 24);
      if (kind == HURRAY_IPC_DEVICE_FD) {
        return nfd == 1 && handle_size == 0;
      }
      return kind == HURRAY_IPC_DEVICE_HANDLE && nfd == 0 && handle_size >= 1 && handle_size <= 64;
    }
    case HURRAY_IPC_MSG_EVENT:
      return body == 128 && nfd == 0 && fuzz_read_u32(b + 8) < 253 &&
             fuzz_read_u32(b + 12) == HURRAY_IPC_EVENT_HANDLE && fuzz_read_u64(b + 16) == 0 &&
             fuzz_read_u32(b + 24) >= 1 && fuzz_read_u32(b + 24) <= 64 &&
             fuzz_read_u32(b + 28) == 0;
    default: {
      if (body < 9) {
        return false;
      }
      size_t n = b[8];
      if (n < 1 || n > 253 || body != 9 + 32 * n) {
        return false;
      }
      size_t count = 0;
      if (hurray_buffer_table_decode_exact(b + 8, 1 + 16 * n, table_handles,
                                           HURRAY_BUFFER_TABLE_MAX_HANDLES, &count,
                                           NULL) != HURRAY_OK) {
        return false;
      }
      size_t host = 0;
      for (size_t i = 0; i < n; i++) {
        const uint8_t *r = b + 9 + 16 * n + 16 * i;
        uint32_t kind = fuzz_read_u32(r + 8);
        if ((kind != HURRAY_IPC_MEMORY_HOST_MEMFD && kind != HURRAY_IPC_MEMORY_DEVICE) ||
            fuzz_read_u32(r + 12) != 0) {
          return false;
        }
        host += kind == HURRAY_IPC_MEMORY_HOST_MEMFD;
      }
      return nfd == host; /* one descriptor per host record (IPC-MSG-9) */
    }
  }
}

/* The oracle for the message m[0..len) that arrived with `fds` descriptors. */
static void check_message(const uint8_t *m, size_t len, size_t fds) {
  hurray_ipc_message out;
  memset(&out, 0x3C, sizeof out);
  hurray_ipc_message before = out;
  hurray_error err;
  hurray_status st =
      hurray_ipc_message_decode(m, len, fds, &out, handles, segments, HURRAY_IPC_MAX_FDS, &err);
  bool want = spec_accepts(m, len, fds);
  FUZZ_CHECK((st == HURRAY_OK) == want);
  if (st != HURRAY_OK) {
    FUZZ_CHECK(err.status == st);
    FUZZ_CHECK(memcmp(&out, &before, sizeof out) == 0);
    return;
  }
  const uint8_t *b = m + 16;
  FUZZ_CHECK(out.type == le16(m + 6) && out.fd_count == fds && out.body_size == len - 16);
  size_t n = 0;
  switch (out.type) {
    case HURRAY_IPC_MSG_HELLO:
      FUZZ_CHECK(out.code == fuzz_read_u32(b) && out.value == fuzz_read_u32(b + 4) &&
                 out.expected == fuzz_read_u32(b + 8));
      n = hurray_ipc_encode_hello(again, sizeof again, out.code, (uint32_t)out.value,
                                  (uint32_t)out.expected);
      break;
    case HURRAY_IPC_MSG_REFUSE:
      FUZZ_CHECK(out.code == fuzz_read_u32(b) && out.value == fuzz_read_u64(b + 8));
      n = hurray_ipc_encode_refuse(again, sizeof again, out.code, out.value);
      break;
    case HURRAY_IPC_MSG_RELEASE:
      FUZZ_CHECK(out.offer_id == fuzz_read_u64(b) && out.buffer_index == fuzz_read_u32(b + 8));
      n = hurray_ipc_encode_release(again, sizeof again, out.offer_id, out.buffer_index);
      break;
    case HURRAY_IPC_MSG_REJECT:
      FUZZ_CHECK(out.offer_id == fuzz_read_u64(b) && out.code == fuzz_read_u32(b + 8) &&
                 out.buffer_index == fuzz_read_u32(b + 12) && out.value == fuzz_read_u64(b + 16) &&
                 out.expected == fuzz_read_u64(b + 24));
      n = hurray_ipc_encode_reject(again, sizeof again, out.offer_id, out.code, out.buffer_index,
                                   out.value, out.expected);
      break;
    case HURRAY_IPC_MSG_DEVICE: {
      FUZZ_CHECK(out.offer_id == fuzz_read_u64(b) && out.buffer_index == fuzz_read_u32(b + 8) &&
                 out.code == fuzz_read_u32(b + 12) && out.value == fuzz_read_u64(b + 16) &&
                 out.expected == fuzz_read_u32(b + 24));
      n = hurray_ipc_encode_device(again, sizeof again, out.offer_id, out.buffer_index, out.code,
                                   out.value, m + HURRAY_IPC_DEVICE_UUID_OFFSET,
                                   m + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET,
                                   m + HURRAY_IPC_DEVICE_HANDLE_OFFSET, (uint32_t)out.expected);
      /* Handle bytes past handle_size are not part of the handle: the
       * writer zeroes them, so compare only what is (IPC-MSG-13). */
      size_t used = HURRAY_IPC_DEVICE_HANDLE_OFFSET + (size_t)out.expected;
      FUZZ_CHECK(n == len && memcmp(again, m, used) == 0);
      FUZZ_CHECK(hurray_ipc_encode_device(
                     again, len - 1u, out.offer_id, out.buffer_index, out.code, out.value, NULL,
                     NULL, m + HURRAY_IPC_DEVICE_HANDLE_OFFSET, (uint32_t)out.expected) == 0u);
      return;
    }
    case HURRAY_IPC_MSG_EVENT: {
      FUZZ_CHECK(out.offer_id == fuzz_read_u64(b) && out.buffer_index == fuzz_read_u32(b + 8) &&
                 out.code == fuzz_read_u32(b + 12) && out.value == 0 &&
                 out.expected == fuzz_read_u32(b + 24));
      n = hurray_ipc_encode_event(again, sizeof again, out.offer_id, out.buffer_index, out.code,
                                  m + HURRAY_IPC_DEVICE_UUID_OFFSET,
                                  m + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET,
                                  m + HURRAY_IPC_DEVICE_HANDLE_OFFSET, (uint32_t)out.expected);
      /* As DEVICE: bytes past handle_size are zero when written (IPC-MSG-14). */
      size_t used = HURRAY_IPC_DEVICE_HANDLE_OFFSET + (size_t)out.expected;
      FUZZ_CHECK(n == len && memcmp(again, m, used) == 0);
      FUZZ_CHECK(hurray_ipc_encode_event(again, len - 1u, out.offer_id, out.buffer_index, out.code,
                                         NULL, NULL, m + HURRAY_IPC_DEVICE_HANDLE_OFFSET,
                                         (uint32_t)out.expected) == 0u);
      return;
    }
    default: {
      FUZZ_CHECK(out.type == HURRAY_IPC_MSG_OFFER && out.buffer_count == b[8] &&
                 out.offer_id == fuzz_read_u64(b));
      for (size_t i = 0; i < out.buffer_count; i++) {
        const uint8_t *r = b + 9 + 16 * out.buffer_count + 16 * i;
        FUZZ_CHECK(segments[i].offset == fuzz_read_u64(r) &&
                   segments[i].memory_kind == fuzz_read_u32(r + 8));
      }
      n = hurray_ipc_encode_offer(again, sizeof again, out.offer_id, handles, segments,
                                  out.buffer_count);
      hurray_ipc_message small;
      FUZZ_CHECK(hurray_ipc_message_decode(m, len, fds, &small, handles, segments,
                                           out.buffer_count - 1u, &err) == HURRAY_ERR_CAPACITY);
      break;
    }
  }
  FUZZ_CHECK(n == len && memcmp(again, m, len) == 0);
  /* The writers check nothing but room: one byte short is 0 bytes written
   * (hurray/ipc_wire.h). */
  size_t short_n = 1;
  switch (out.type) {
    case HURRAY_IPC_MSG_HELLO:
      short_n = hurray_ipc_encode_hello(again, len - 1u, out.code, (uint32_t)out.value,
                                        (uint32_t)out.expected);
      break;
    case HURRAY_IPC_MSG_REFUSE:
      short_n = hurray_ipc_encode_refuse(again, len - 1u, out.code, out.value);
      break;
    case HURRAY_IPC_MSG_RELEASE:
      short_n = hurray_ipc_encode_release(again, len - 1u, out.offer_id, out.buffer_index);
      break;
    case HURRAY_IPC_MSG_REJECT:
      short_n = hurray_ipc_encode_reject(again, len - 1u, out.offer_id, out.code, out.buffer_index,
                                         out.value, out.expected);
      break;
    default:
      short_n = hurray_ipc_encode_offer(again, len - 1u, out.offer_id, handles, segments,
                                        out.buffer_count);
      break;
  }
  FUZZ_CHECK(short_n == 0u);
}

/* The argument checks come before any byte is read, so they answer the
 * same for every message. */
static void check_argument_refusals(const uint8_t *m, size_t len, size_t fds) {
  hurray_ipc_message out;
  hurray_error err;
  FUZZ_CHECK(hurray_ipc_message_decode(NULL, len, fds, &out, handles, segments, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0 && err.value == 0 && err.expected == 0);
  FUZZ_CHECK(hurray_ipc_message_decode(m, len, fds, NULL, handles, segments, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 3);
  FUZZ_CHECK(hurray_ipc_message_decode(m, len, fds, &out, NULL, segments, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 4);
  FUZZ_CHECK(hurray_ipc_message_decode(m, len, fds, &out, handles, NULL, 1, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 5);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 1) {
    check_argument_refusals(data + 1, size - 1, data[0]);
    check_message(data + 1, size - 1, data[0]);
  }
  return 0;
}

FUZZ_ORACLE_END
