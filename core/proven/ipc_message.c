/*
 * The decoder of the IPC transport's messages (specs/ipc.md, IPC-MSG-1..14).
 * Pure: no allocation, no I/O, no global state (IPC-MSG-12). The buffer
 * table an OFFER carries is decoded by the proven table decoder
 * (hurray_buffer_table_decode_exact, BP-TABLE-1..6).
 *
 * Two passes over a message, for the proof. The checks (ipc_check_*)
 * apply every rule in the order of IPC-MSG-5 and write nothing but *err.
 * Only when all have passed do the stores (ipc_store_*) write *out,
 * handles[] and segments[], and they cannot fail. So a refused message
 * leaves the caller's outputs as they were, and no failure path carries
 * a frame of *out through a call that writes an array: such frames, next
 * to the quantified postconditions of a decode, did not prove in minutes.
 * An OFFER's body has a file of its own (ipc_offer.c), and the rules both
 * halves state their contracts in, with the loads that read them, a header
 * (ipc_rules.h). The frames the stores carry are stated a field at a time,
 * next to one postcondition each.
 *
 * Proven by proofs/run-proofs with the rest of core/proven, for
 * -machdep x86_64 (smoke tests included) and x86_32 (IPC-MSG-12); the
 * slowest goals are the OFFER's (ipc_offer.c says which).
 * tests/ipc/test_ipc_message.c and fuzz/fuzz_ipc_message.c (whose oracle is
 * a second reader of the spec) check the same rules on the compiled code.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "message_header.h"
#include "hurray/buffer.h"
#include "hurray/ipc_wire.h"
#include "ipc_offer.h"
#include "ipc_rules.h"
#include "little_endian.h"

/* IPC-MSG-13: the fields of a DEVICE body, checked in order. Writes
 * nothing but *err: the caller stores the message once this passed, so
 * no rejection path carries a frame of *out. */
/*@
  requires \valid_read(in + (0 .. 143));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 143), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-13
    assumes ipc_device_ok(in, fd_count);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // IPC-MSG-13: the first field broken
    assumes !ipc_device_ok(in, fd_count);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_device(const uint8_t *in, uint32_t fd_count, hurray_error *err) {
  const uint32_t buffer_index = load_le32(in + 24);
  const uint32_t kind = load_le32(in + 28);
  const uint64_t segment_size = load_le64(in + 32);
  const uint32_t handle_size = load_le32(in + 40);
  const uint32_t reserved = load_le32(in + 44);
  if (buffer_index >= HURRAY_IPC_MAX_FDS) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, buffer_index, HURRAY_IPC_MAX_FDS, 8);
  }
  if (kind != HURRAY_IPC_DEVICE_FD && kind != HURRAY_IPC_DEVICE_HANDLE) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, kind, HURRAY_IPC_DEVICE_HANDLE, 12);
  }
  const uint32_t fds = kind == HURRAY_IPC_DEVICE_FD ? 1u : 0u;
  if (fd_count != fds) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, fds, 12);
  }
  if (segment_size == 0u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1u, 16);
  }
  if (kind == HURRAY_IPC_DEVICE_FD ? handle_size != 0u
                                   : (handle_size == 0u || handle_size > HURRAY_IPC_DEVICE_HANDLE_SIZE)) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, handle_size,
                       kind == HURRAY_IPC_DEVICE_FD ? 0u : HURRAY_IPC_DEVICE_HANDLE_SIZE, 24);
  }
  if (reserved != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 28);
  }
  return HURRAY_OK;
}

/* IPC-MSG-13: a checked DEVICE message into *out; the UUIDs and the handle
 * stay in the bytes (opaque: only the importing plugin reads them,
 * PL-IPC-3). */
/*@
  requires \valid_read(in + (0 .. 143));
  requires ipc_type(in) == 6 && ipc_body_size(in) == 128 && ipc_fd_count(in) == fd_count;
  requires \valid(out);
  requires \separated(in + (0 .. 143), out);
  terminates \true;
  assigns *out;
  ensures ipc_message_decoded{Post, Pre}(out, in);  // IPC-MSG-13
*/
static void ipc_store_device(const uint8_t *in, uint32_t fd_count, hurray_ipc_message *out) {
  out->type = HURRAY_IPC_MSG_DEVICE;
  out->fd_count = fd_count;
  out->body_size = HURRAY_IPC_DEVICE_BODY_SIZE;
  out->code = load_le32(in + 28);
  out->offer_id = load_le64(in + 16);
  out->value = load_le64(in + 32);
  out->expected = load_le32(in + 40);
  out->buffer_index = load_le32(in + 24);
  out->buffer_count = 0u;
}

/* IPC-MSG-14: the fields of an EVENT body (its body_size checked), in
 * order; writes nothing but *err, as ipc_check_device. */
/*@
  requires \valid_read(in + (0 .. 143));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 143), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-14
    assumes ipc_event_ok(in, fd_count);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // IPC-MSG-14: the first field broken
    assumes !ipc_event_ok(in, fd_count);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_event(const uint8_t *in, uint32_t fd_count, hurray_error *err) {
  const uint32_t buffer_index = load_le32(in + 24);
  const uint32_t kind = load_le32(in + 28);
  const uint64_t reserved_wide = load_le64(in + 32);
  const uint32_t handle_size = load_le32(in + 40);
  const uint32_t reserved = load_le32(in + 44);
  if (fd_count != 0u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, 0, 12);
  }
  if (buffer_index >= HURRAY_IPC_MAX_FDS) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, buffer_index, HURRAY_IPC_MAX_FDS, 8);
  }
  if (kind != HURRAY_IPC_EVENT_HANDLE) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, kind, HURRAY_IPC_EVENT_HANDLE, 12);
  }
  if (reserved_wide != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved_wide, 0, 16);
  }
  if (handle_size == 0u || handle_size > HURRAY_IPC_DEVICE_HANDLE_SIZE) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, handle_size,
                       HURRAY_IPC_DEVICE_HANDLE_SIZE, 24);
  }
  if (reserved != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 28);
  }
  return HURRAY_OK;
}

/* IPC-MSG-14: a checked EVENT message into *out; the UUIDs and the handle
 * stay in the bytes (opaque: only the importing plugin reads them). */
/*@
  requires \valid_read(in + (0 .. 143));
  requires ipc_type(in) == 7 && ipc_body_size(in) == 128 && ipc_fd_count(in) == fd_count;
  requires \valid(out);
  requires \separated(in + (0 .. 143), out);
  terminates \true;
  assigns *out;
  ensures ipc_message_decoded{Post, Pre}(out, in);  // IPC-MSG-14
*/
static void ipc_store_event(const uint8_t *in, uint32_t fd_count, hurray_ipc_message *out) {
  out->type = HURRAY_IPC_MSG_EVENT;
  out->fd_count = fd_count;
  out->body_size = HURRAY_IPC_EVENT_BODY_SIZE;
  out->code = load_le32(in + 28);
  out->offer_id = load_le64(in + 16);
  out->value = 0u;
  out->expected = load_le32(in + 40);
  out->buffer_index = load_le32(in + 24);
  out->buffer_count = 0u;
}

/* IPC-MSG-5 steps 1..7: the header, checked in order (message_header.c, the
 * header the network's messages share); writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. len - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-1, -2, -5, -6
    assumes ipc_header_ok(in, len, received_fds);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !ipc_header_ok(in, len, received_fds);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_header(const uint8_t *in, size_t len, size_t received_fds,
                                      hurray_error *err) {
  return hurray_message_header_check(in, len, HURRAY_IPC_MAGIC, HURRAY_IPC_MSG_EVENT,
                                     received_fds, err);
}

/* IPC-MSG-7, -8, -10: the body of a HELLO, REFUSE, RELEASE or REJECT,
 * its header checked; writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires type == ipc_type(in) && body_size == ipc_body_size(in) &&
           fd_count == ipc_fd_count(in);
  requires type == 1 || type == 2 || type == 4 || type == 5;
  requires \valid_read(in + (0 .. 15 + body_size));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15 + body_size), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes ipc_fixed_body_ok(in);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !ipc_fixed_body_ok(in);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_fixed(const uint8_t *in, uint32_t type, uint32_t body_size,
                                     uint32_t fd_count, hurray_error *err) {
  const uint32_t fixed_size =
      type == HURRAY_IPC_MSG_REJECT ? HURRAY_IPC_REJECT_BODY_SIZE : HURRAY_IPC_HELLO_BODY_SIZE;
  if (body_size != fixed_size) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, fixed_size, 8);
  }
  if (fd_count != 0u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, 0, 12);
  }
  if (type == HURRAY_IPC_MSG_HELLO) {
    const uint32_t max_buffers = load_le32(in + 24);
    const uint32_t reserved = load_le32(in + 28);
    if (max_buffers == 0u || max_buffers > HURRAY_IPC_MAX_FDS) {
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, max_buffers, HURRAY_IPC_MAX_FDS, 8);
    }
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 12);
    }
  } else if (type == HURRAY_IPC_MSG_REFUSE) {
    const uint32_t reason = load_le32(in + 16);
    const uint32_t reserved = load_le32(in + 20);
    if (reason == 0u) {
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, reason, 1u, 0);
    }
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 4);
    }
  } else if (type == HURRAY_IPC_MSG_RELEASE) {
    const uint32_t reserved = load_le32(in + 28);
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 12);
    }
  } else {
    const uint32_t status = load_le32(in + 24);
    if (status == 0u) {
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, status, 1u, 8);
    }
  }
  return HURRAY_OK;
}

/* A checked HELLO, REFUSE, RELEASE or REJECT into *out, each field written
 * once (include/hurray/ipc_wire.h says which fields each type fills). */
/*@
  requires \valid_read(in + (0 .. 15));
  requires type == ipc_type(in) && body_size == ipc_body_size(in) &&
           fd_count == ipc_fd_count(in);
  requires ipc_fixed_body_ok(in);
  requires \valid_read(in + (0 .. 15 + body_size));
  requires \valid(out);
  requires \separated(in + (0 .. 15 + body_size), out);
  terminates \true;
  assigns *out;
  ensures ipc_message_decoded{Post, Pre}(out, in);  // IPC-MSG-7, -8, -10
*/
static void ipc_store_fixed(const uint8_t *in, uint32_t type, uint32_t body_size,
                            uint32_t fd_count, hurray_ipc_message *out) {
  uint32_t code = 0;
  uint32_t buffer_index = 0;
  uint64_t offer_id = 0;
  uint64_t value = 0;
  uint64_t expected = 0;
  if (type == HURRAY_IPC_MSG_HELLO) {
    code = load_le32(in + 16);
    value = load_le32(in + 20);
    expected = load_le32(in + 24);
  } else if (type == HURRAY_IPC_MSG_REFUSE) {
    code = load_le32(in + 16);
    value = load_le64(in + 24);
  } else if (type == HURRAY_IPC_MSG_RELEASE) {
    offer_id = load_le64(in + 16);
    buffer_index = load_le32(in + 24);
  } else {
    offer_id = load_le64(in + 16);
    code = load_le32(in + 24);
    buffer_index = load_le32(in + 28);
    value = load_le64(in + 32);
    expected = load_le64(in + 40);
  }
  out->type = type;
  out->fd_count = fd_count;
  out->body_size = body_size;
  out->code = code;
  out->offer_id = offer_id;
  out->value = value;
  out->expected = expected;
  out->buffer_index = buffer_index;
  out->buffer_count = 0u;
}

/* IPC-MSG-5..11, IPC-MSG-13, -14: every rule for a message, in the order of
 * IPC-MSG-5; writes nothing but *err. Each path states which side of the
 * rule it is on, so that no postcondition has to rule the other paths
 * out itself. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. len - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes ipc_valid_message(in, len, received_fds, cap);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !ipc_valid_message(in, len, received_fds, cap);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_message(const uint8_t *in, size_t len, size_t received_fds,
                                       size_t cap, hurray_error *err) {
  hurray_status status = ipc_check_header(in, len, received_fds, err);
  if (status != HURRAY_OK) {
    //@ assert !ipc_valid_message(in, len, received_fds, cap);
    return status;
  }
  /* IPC-MSG-5 step 8: the body of the type. */
  const uint32_t type = load_le16(in + 6);
  const uint32_t body_size = load_le32(in + 8);
  const uint32_t fd_count = load_le16(in + 12);
  if (type == HURRAY_IPC_MSG_OFFER) {
    //@ assert ipc_valid_message(in, len, received_fds, cap) <==> ipc_offer_body_ok(in, cap);
    return hurray_ipc_check_offer(in, body_size, fd_count, cap, err);
  }
  if (type == HURRAY_IPC_MSG_DEVICE) {
    if (body_size != HURRAY_IPC_DEVICE_BODY_SIZE) {
      //@ assert !ipc_valid_message(in, len, received_fds, cap);
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, HURRAY_IPC_DEVICE_BODY_SIZE,
                         8);
    }
    //@ assert ipc_valid_message(in, len, received_fds, cap) <==> ipc_device_ok(in, fd_count);
    return ipc_check_device(in, fd_count, err);
  }
  if (type == HURRAY_IPC_MSG_EVENT) {
    if (body_size != HURRAY_IPC_EVENT_BODY_SIZE) {
      //@ assert !ipc_valid_message(in, len, received_fds, cap);
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, HURRAY_IPC_EVENT_BODY_SIZE,
                         8);
    }
    //@ assert ipc_valid_message(in, len, received_fds, cap) <==> ipc_event_ok(in, fd_count);
    return ipc_check_event(in, fd_count, err);
  }
  //@ assert ipc_valid_message(in, len, received_fds, cap) <==> ipc_fixed_body_ok(in);
  return ipc_check_fixed(in, type, body_size, fd_count, err);
}

/* IPC-MSG-7..11, IPC-MSG-13, -14: a message every rule accepted into *out, and
 * an OFFER's buffers into handles[] and segments[]. Cannot fail. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires ipc_valid_message(in, len, received_fds, cap);
  requires \valid(out);
  requires cap >= 1 ==> \valid(handles + (0 .. cap - 1));
  requires cap >= 1 ==> \valid(segments + (0 .. cap - 1));
  requires \separated(in + (0 .. len - 1), out);
  requires cap >= 1 ==> \separated(in + (0 .. len - 1), handles + (0 .. cap - 1));
  requires cap >= 1 ==> \separated(in + (0 .. len - 1), segments + (0 .. cap - 1));
  requires cap >= 1 ==> \separated(out, handles + (0 .. cap - 1));
  requires cap >= 1 ==> \separated(out, segments + (0 .. cap - 1));
  requires cap >= 1 ==> \separated(handles + (0 .. cap - 1), segments + (0 .. cap - 1));
  requires \separated(out, err);
  requires cap >= 1 ==> \separated(handles + (0 .. cap - 1), err);
  requires cap >= 1 ==> \separated(segments + (0 .. cap - 1), err);
  terminates \true;
  assigns *out, handles[0 .. cap - 1], segments[0 .. cap - 1];
  ensures ipc_message_decoded{Post, Pre}(out, in);
  ensures ipc_type{Pre}(in) == 3 ==>
            bp_table_decoded{Post, Pre}(handles, in + 24, ipc_offer_count{Pre}(in)) &&
            ipc_segments_decoded{Post, Pre}(segments, in, ipc_offer_count{Pre}(in),
                                            ipc_offer_count{Pre}(in));
  ensures bp_error_unchanged{Pre, Post}(err);
*/
static void ipc_store_message(const uint8_t *in, size_t len, size_t received_fds,
                              hurray_ipc_message *out, hurray_buffer_handle *handles,
                              hurray_ipc_segment *segments, size_t cap, hurray_error *err) {
  (void)len;  // len, received_fds and cap: read by the contract only
  (void)received_fds;
  (void)cap;
  const uint32_t type = load_le16(in + 6);
  const uint32_t body_size = load_le32(in + 8);
  const uint32_t fd_count = load_le16(in + 12);
  if (type == HURRAY_IPC_MSG_OFFER) {
    //@ assert ipc_offer_body_ok(in, cap);
    const uint32_t n = in[24];
    //@ assert n == ipc_offer_count(in) && 1 <= n <= 253 && n <= cap && body_size == 9 + 32 * n;
    hurray_ipc_store_offer_message(in, n, body_size, fd_count, out, handles, segments, err);
    return;
  }
  if (type == HURRAY_IPC_MSG_DEVICE) {
    ipc_store_device(in, fd_count, out);
    //@ assert bp_error_unchanged{Pre, Here}(err);
    return;
  }
  if (type == HURRAY_IPC_MSG_EVENT) {
    ipc_store_event(in, fd_count, out);
    //@ assert bp_error_unchanged{Pre, Here}(err);
    return;
  }
  //@ assert ipc_fixed_body_ok(in);
  ipc_store_fixed(in, type, body_size, fd_count, out);
  //@ assert bp_error_unchanged{Pre, Here}(err);
}

/*@
  requires in != \null ==> \valid_read(in + (0 .. len - 1));
  requires out == \null || \valid(out);
  requires cap >= 1 && handles != \null ==> \valid(handles + (0 .. cap - 1));
  requires cap >= 1 && segments != \null ==> \valid(segments + (0 .. cap - 1));
  requires err == \null || \valid(err);
  requires in != \null && out != \null ==> \separated(in + (0 .. len - 1), out);
  requires in != \null && cap >= 1 && handles != \null ==>
             \separated(in + (0 .. len - 1), handles + (0 .. cap - 1));
  requires in != \null && cap >= 1 && segments != \null ==>
             \separated(in + (0 .. len - 1), segments + (0 .. cap - 1));
  requires in != \null ==> \separated(in + (0 .. len - 1), err);
  requires out != \null && cap >= 1 && handles != \null ==>
             \separated(out, handles + (0 .. cap - 1));
  requires out != \null && cap >= 1 && segments != \null ==>
             \separated(out, segments + (0 .. cap - 1));
  requires out != \null ==> \separated(out, err);
  requires cap >= 1 && handles != \null && segments != \null ==>
             \separated(handles + (0 .. cap - 1), segments + (0 .. cap - 1));
  requires cap >= 1 && handles != \null ==>
             \separated(handles + (0 .. cap - 1), err);
  requires cap >= 1 && segments != \null ==>
             \separated(segments + (0 .. cap - 1), err);
  terminates \true;
  assigns *out, handles[0 .. cap - 1], segments[0 .. cap - 1];
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior null_argument:
    assumes in == \null || out == \null || (cap >= 1 && (handles == \null || segments == \null));
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures out != \null ==> *out == \old(*out);
  behavior accepted:  // IPC-MSG-5..12: OK exactly for the messages the spec accepts
    assumes in != \null && out != \null && (cap >= 1 ==> handles != \null && segments != \null);
    assumes ipc_valid_message(in, len, received_fds, cap);
    ensures \result == HURRAY_OK;
    ensures ipc_message_decoded{Post, Pre}(out, in);
    ensures ipc_type{Pre}(in) == 3 ==>
              bp_table_decoded{Post, Pre}(handles, in + 24, ipc_offer_count{Pre}(in)) &&
              ipc_segments_decoded{Post, Pre}(segments, in, ipc_offer_count{Pre}(in),
                                              ipc_offer_count{Pre}(in));
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // IPC-MSG-5: every other message is refused, *out untouched
    assumes in != \null && out != \null && (cap >= 1 ==> handles != \null && segments != \null);
    assumes !ipc_valid_message(in, len, received_fds, cap);
    ensures \result != HURRAY_OK;
    ensures *out == \old(*out);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_ipc_message_decode(const uint8_t *in, size_t len, size_t received_fds,
                                        hurray_ipc_message *out, hurray_buffer_handle *handles,
                                        hurray_ipc_segment *segments, size_t cap,
                                        hurray_error *err) {
  /* One failing path for the four NULL cases (index: the argument), so
   * that the frame of *out is carried through one call, not four. */
  if (in == NULL || out == NULL || (cap >= 1u && (handles == NULL || segments == NULL))) {
    const size_t index = in == NULL ? 0u : out == NULL ? 3u : handles == NULL ? 4u : 5u;
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, index);
  }
  /* Every rule first, writing nothing but *err, then the stores, which
   * cannot fail: so a refused message leaves *out, handles[] and
   * segments[] as they were, and the frame of *out is carried through
   * checks alone. */
  const hurray_status status = ipc_check_message(in, len, received_fds, cap, err);
  if (status != HURRAY_OK) {
    /* The frame of *out, a field at a time, then the struct from the
     * fields: the struct alone did not prove in the time the runner
     * gives. */
    //@ assert out->type == \at(out->type, Pre);
    //@ assert out->fd_count == \at(out->fd_count, Pre);
    //@ assert out->body_size == \at(out->body_size, Pre);
    //@ assert out->code == \at(out->code, Pre);
    //@ assert out->offer_id == \at(out->offer_id, Pre);
    //@ assert out->value == \at(out->value, Pre);
    //@ assert out->expected == \at(out->expected, Pre);
    //@ assert out->buffer_index == \at(out->buffer_index, Pre);
    //@ assert out->buffer_count == \at(out->buffer_count, Pre);
    //@ assert *out == \at(*out, Pre);
    return status;
  }
  //@ assert bp_error_unchanged{Pre, Here}(err);
  ipc_store_message(in, len, received_fds, out, handles, segments, cap, err);
  //@ assert bp_error_unchanged{Pre, Here}(err);
  return HURRAY_OK;
}
