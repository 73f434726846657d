/*
 * The header both transports' messages start with (IPC-MSG-1; NET-MSG-1
 * takes it as it is, with its own magic and types), checked once for both
 * proven decoders: ipc_message.c's ipc_check_header and net_message.c's
 * net_check_header state their transport's rule (ipc_header_ok,
 * net_header_ok) and call this.
 *
 * The contract spells the header out in the model's little-endian values
 * (bp_le16, bp_le32) rather than naming a new predicate: both transports'
 * predicates are that expression with their constants, and the provers
 * relate them by unfolding.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "message_header.h"
#include "hurray/ipc_wire.h"
#include "little_endian.h"

/*@
  requires \valid_read(in + (0 .. len - 1));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. len - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-1, -2, -5 steps 1..7, -6; NET-MSG-1, -3, -4
    assumes len >= 16 && bp_le32(in) == magic && bp_le16(in + 4) == 1 &&
            bp_le16(in + 14) == 0 && 1 <= bp_le16(in + 6) <= type_max &&
            len == 16 + bp_le32(in + 8) && bp_le16(in + 12) == fds;
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !(len >= 16 && bp_le32(in) == magic && bp_le16(in + 4) == 1 &&
              bp_le16(in + 14) == 0 && 1 <= bp_le16(in + 6) <= type_max &&
              len == 16 + bp_le32(in + 8) && bp_le16(in + 12) == fds);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_message_header_check(const uint8_t *in, size_t len, uint32_t magic,
                                          uint32_t type_max, size_t fds, hurray_error *err) {
  if (len < HURRAY_IPC_HEADER_SIZE) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, HURRAY_IPC_HEADER_SIZE, 0);
  }
  const uint32_t found_magic = load_le32(in);
  const uint32_t version = load_le16(in + 4);
  const uint32_t type = load_le16(in + 6);
  const uint32_t body_size = load_le32(in + 8);
  const uint32_t fd_count = load_le16(in + 12);
  const uint32_t header_reserved = load_le16(in + 14);
  if (found_magic != magic) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, found_magic, magic, 0);
  }
  if (version != HURRAY_IPC_VERSION) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, version, HURRAY_IPC_VERSION, 4);
  }
  if (header_reserved != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, header_reserved, 0, 14);
  }
  if (type < 1u || type > type_max) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, type, 0, 6);
  }
  const uint64_t total = (uint64_t)HURRAY_IPC_HEADER_SIZE + body_size;
  if ((uint64_t)len < total) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, total, 0);
  }
  if ((uint64_t)len > total) {
    return hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, total, 0);
  }
  /* Last: a descriptor count is only compared once the length is known
   * (IPC-MSG-5 step 7; NET-MSG-4, where no descriptor is ever received). */
  if ((uint64_t)fd_count != (uint64_t)fds) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, fds, 12);
  }
  return HURRAY_OK;
}
