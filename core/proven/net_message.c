/*
 * The decoder of the network transport's control messages
 * (specs/network.md, NET-MSG-1..5). Pure: no allocation, no I/O, no global
 * state (NET-MSG-6). The buffer table a TENSOR carries is decoded by the
 * proven table decoder (hurray_buffer_table_decode_exact, BP-TABLE-1..6).
 *
 * The shape of the IPC decoder (core/proven/ipc_message.c, ipc_offer.c),
 * for the same reason: the checks (net_check_*) apply every rule in the
 * order of NET-MSG-4 and write nothing but *err; only when all have passed do the
 * stores (net_store_*) write *out and handles[], and they cannot fail. So
 * a refused message leaves the caller's outputs as they were, and the
 * frame of *out is carried through checks alone. A TENSOR's table is
 * therefore decoded twice: into a scratch array of the check's own (255
 * handles, 4 KiB of stack), then into handles[] (net_decode_table).
 *
 * Proven by proofs/run-proofs with the rest of core/proven, for
 * -machdep x86_64 (smoke tests included) and x86_32.
 * tests/net/test_net_message.c and fuzz/fuzz_net_message.c (whose oracle is a
 * second reader of the spec) check the same rules on the compiled code.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "little_endian.h"
#include "message_header.h"
#include "hurray/buffer.h"
#include "hurray/net_wire.h"

/*@
  // ---- The rules of specs/network.md, in logic ----------------------------

  // The header fields (NET-MSG-1).
  logic integer net_type{L}(uint8_t *in) = bp_le16(in + 6);
  logic integer net_body_size{L}(uint8_t *in) = bp_le32(in + 8);

  // NET-MSG-1, NET-MSG-3, NET-MSG-4 up to the body: the header of a
  // message of len bytes.
  predicate net_header_ok{L}(uint8_t *in, integer len) =
    len >= 16 && bp_le32(in) == 0x314E5248 && bp_le16(in + 4) == 1 &&
    bp_le16(in + 14) == 0 && 1 <= net_type(in) <= 2 &&
    len == 16 + net_body_size(in) && bp_le16(in + 12) == 0;

  // NET-MSG-5: the buffer count of a TENSOR, the count byte of its table.
  logic integer net_tensor_count{L}(uint8_t *in) = in[24];

  // NET-MSG-5: the body of a TENSOR, for a reader with room for cap
  // handles: the tensor id, then one valid table that fills the body.
  predicate net_tensor_body_ok{L}(uint8_t *in, integer cap) =
    net_type(in) == 1 && net_body_size(in) >= 9 &&
    bp_valid_table(in + 24, net_body_size(in) - 8) &&
    net_body_size(in) - 8 == bp_table_size(net_tensor_count(in)) &&
    cap >= net_tensor_count(in);

  // NET-MSG-5: the body of a REFUSE: 32 bytes, a status other than 0.
  predicate net_refuse_body_ok{L}(uint8_t *in) =
    net_type(in) == 2 && net_body_size(in) == 32 && bp_le32(in + 16) != 0;

  // NET-MSG-4, NET-MSG-5: the message a reader with room for cap handles
  // accepts.
  predicate net_valid_message{L}(uint8_t *in, integer len, integer cap) =
    net_header_ok(in, len) && (net_tensor_body_ok(in, cap) || net_refuse_body_ok(in));

  // The fields of a decoded message (state Lo) from the bytes at in (state
  // Lp), per type (include/hurray/net_wire.h, NET-MSG-5); unused fields 0.
  predicate net_message_decoded{Lo, Lp}(hurray_net_message *m, uint8_t *in) =
    \at(m->type, Lo) == \at(net_type(in), Lp) &&
    \at(m->body_size, Lo) == \at(net_body_size(in), Lp) &&
    \at(m->reserved, Lo) == 0 &&
    (\at(net_type(in), Lp) == 1 ==>
       \at(m->tensor_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->buffer_count, Lo) == \at(net_tensor_count(in), Lp) &&
       \at(m->status, Lo) == 0 && \at(m->index, Lo) == 0 &&
       \at(m->value, Lo) == 0 && \at(m->expected, Lo) == 0) &&
    (\at(net_type(in), Lp) == 2 ==>
       \at(m->status, Lo) == \at(bp_le32(in + 16), Lp) &&
       \at(m->index, Lo) == \at(bp_le32(in + 20), Lp) &&
       \at(m->value, Lo) == \at(bp_le64(in + 24), Lp) &&
       \at(m->expected, Lo) == \at(bp_le64(in + 32), Lp) &&
       \at(m->tensor_id, Lo) == \at(bp_le64(in + 40), Lp) &&
       \at(m->buffer_count, Lo) == 0);
*/

/* NET-MSG-4 up to the body, in its order: the IPC header's checks
 * (message_header.c, NET-MSG-1) with this transport's magic and types and no
 * descriptor; writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. len - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // NET-MSG-1, NET-MSG-3, NET-MSG-4
    assumes net_header_ok(in, len);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !net_header_ok(in, len);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status net_check_header(const uint8_t *in, size_t len, hurray_error *err) {
  return hurray_message_header_check(in, len, HURRAY_NET_MAGIC, HURRAY_NET_MSG_REFUSE, 0u, err);
}

/* NET-MSG-5: a REFUSE, its header checked; writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires net_type(in) == 2 && body_size == net_body_size(in);
  requires \valid_read(in + (0 .. 15 + body_size));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15 + body_size), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes net_refuse_body_ok(in);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !net_refuse_body_ok(in);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status net_check_refuse(const uint8_t *in, uint32_t body_size, hurray_error *err) {
  if (body_size != HURRAY_NET_REFUSE_BODY_SIZE) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, HURRAY_NET_REFUSE_BODY_SIZE,
                       8);
  }
  const uint32_t status = load_le32(in + 16);
  if (status == 0u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, status, 0, 16);
  }
  return HURRAY_OK;
}

/* NET-MSG-5: a TENSOR, its header checked: the body's size, then its table
 * (BP-TABLE-1..6) with the table decoder's errors, into scratch memory;
 * writes nothing but *err. The table decoder is given the reader's
 * capacity capped at 255, the most a count byte says, so its CAPACITY
 * error (value: the count, expected: cap) is the one the caller's cap
 * gives. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires net_type(in) == 1 && body_size == net_body_size(in);
  requires \valid_read(in + (0 .. 15 + body_size));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15 + body_size), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes net_tensor_body_ok(in, cap);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !net_tensor_body_ok(in, cap);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status net_check_tensor(const uint8_t *in, uint32_t body_size, size_t cap,
                                      hurray_error *err) {
  if (body_size < 9u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, 9u, 8);
  }
  hurray_buffer_handle scratch[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  const size_t room = cap < HURRAY_BUFFER_TABLE_MAX_HANDLES ? cap : HURRAY_BUFFER_TABLE_MAX_HANDLES;
  size_t decoded = 0;
  /* The table decoder's behavior accepted, in the state it is called in. */
  /*@ assert net_tensor_body_ok{Pre}(in, cap) ==>
        bp_valid_table(in + 24, body_size - 8) && room >= in[24] &&
        body_size - 8 == bp_table_size(in[24]); */
  const hurray_status status =
      hurray_buffer_table_decode_exact(in + 24, body_size - 8u, scratch, room, &decoded, err);
  if (status != HURRAY_OK) {
    //@ assert !net_tensor_body_ok{Pre}(in, cap);
    return status;
  }
  /* What an OK from the table decoder means: not refused, not trailing,
   * so accepted, a fact at a time (each stated of the bytes before the
   * call, which it does not write): long enough, not empty, within
   * capacity, every handle valid, colocated, no trailing bytes. */
  //@ assert body_size - 8 >= bp_table_size(net_tensor_count{Pre}(in));
  //@ assert net_tensor_count{Pre}(in) >= 1;
  //@ assert room >= net_tensor_count{Pre}(in);
  //@ assert bp_table_handles_valid{Pre}(in + 24, net_tensor_count{Pre}(in));
  //@ assert bp_table_colocated{Pre}(in + 24, net_tensor_count{Pre}(in));
  //@ assert body_size - 8 == bp_table_size(net_tensor_count{Pre}(in));
  //@ assert bp_valid_table{Pre}(in + 24, body_size - 8);
  //@ assert bp_error_unchanged{Pre, Here}(err);
  return HURRAY_OK;
}

/* NET-MSG-4, NET-MSG-5: every rule for a message, in the order of
 * NET-MSG-4; writes nothing but *err. Each path states which side of the
 * rule it is on. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. len - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes net_valid_message(in, len, cap);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !net_valid_message(in, len, cap);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status net_check_message(const uint8_t *in, size_t len, size_t cap,
                                       hurray_error *err) {
  const hurray_status status = net_check_header(in, len, err);
  if (status != HURRAY_OK) {
    //@ assert !net_valid_message(in, len, cap);
    return status;
  }
  const uint32_t type = load_le16(in + 6);
  const uint32_t body_size = load_le32(in + 8);
  if (type == HURRAY_NET_MSG_REFUSE) {
    //@ assert net_valid_message(in, len, cap) <==> net_refuse_body_ok(in);
    return net_check_refuse(in, body_size, err);
  }
  //@ assert net_valid_message(in, len, cap) <==> net_tensor_body_ok(in, cap);
  return net_check_tensor(in, body_size, cap, err);
}

/* BP-TABLE-1..6: the table of a checked TENSOR of n buffers into
 * handles[]. Cannot fail: the table decoder reads again the bytes
 * net_check_tensor accepted, with no error struct. A function of its own
 * so that its caller sees one postcondition, not the table decoder's
 * three behaviours. */
/*@
  requires 1 <= n <= 255;
  requires in[24] == n;
  requires \valid_read(in + (0 .. 24 + 16 * n));
  requires \valid(handles + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 16 * n), handles + (0 .. n - 1));
  requires bp_valid_table(in + 24, bp_table_size(n));
  terminates \true;
  assigns handles[0 .. n - 1];
  ensures bp_table_decoded{Post, Pre}(handles, in + 24, n);  // BP-WIRE-1
*/
static void net_decode_table(const uint8_t *in, size_t n, hurray_buffer_handle *handles) {
  size_t decoded = 0;
  const hurray_status status = hurray_buffer_table_decode_exact(
      in + 24, 1u + HURRAY_BUFFER_HANDLE_SIZE * n, handles, n, &decoded, NULL);
  //@ assert status == HURRAY_OK;
  (void)status;
}

/* A checked message's fields into *out, each written once; struct_size is
 * the caller's and is not written. */
/*@
  requires \valid(out);
  terminates \true;
  assigns out->type, out->body_size, out->buffer_count, out->tensor_id, out->status,
          out->reserved, out->value, out->expected, out->index;
  ensures out->type == type && out->body_size == body_size;
  ensures out->buffer_count == buffer_count && out->tensor_id == tensor_id;
  ensures out->status == status && out->reserved == 0 && out->index == index;
  ensures out->value == value && out->expected == expected;
*/
static void net_store_fields(uint32_t type, uint32_t body_size, uint32_t buffer_count,
                             uint64_t tensor_id, uint32_t status, uint32_t index, uint64_t value,
                             uint64_t expected, hurray_net_message *out) {
  out->type = type;
  out->body_size = body_size;
  out->buffer_count = buffer_count;
  out->tensor_id = tensor_id;
  out->status = status;
  out->reserved = 0u;
  out->value = value;
  out->expected = expected;
  out->index = index;
}

/* NET-MSG-5: a message every rule accepted into *out, and a TENSOR's
 * handles into handles[]. Cannot fail. */
/*@
  requires \valid_read(in + (0 .. len - 1));
  requires net_valid_message(in, len, cap);
  requires \valid(out);
  requires cap >= 1 ==> \valid(handles + (0 .. cap - 1));
  requires \separated(in + (0 .. len - 1), out);
  requires cap >= 1 ==> \separated(in + (0 .. len - 1), handles + (0 .. cap - 1));
  requires cap >= 1 ==> \separated(out, handles + (0 .. cap - 1));
  requires \separated(out, err);
  requires cap >= 1 ==> \separated(handles + (0 .. cap - 1), err);
  terminates \true;
  assigns out->type, out->body_size, out->buffer_count, out->tensor_id, out->status,
          out->reserved, out->value, out->expected, out->index, handles[0 .. cap - 1];
  ensures net_message_decoded{Post, Pre}(out, in);
  ensures net_type{Pre}(in) == 1 ==>
            bp_table_decoded{Post, Pre}(handles, in + 24, net_tensor_count{Pre}(in));
  ensures out->struct_size == \old(out->struct_size);
  ensures bp_error_unchanged{Pre, Post}(err);
*/
static void net_store_message(const uint8_t *in, size_t len, size_t cap, hurray_net_message *out,
                              hurray_buffer_handle *handles, hurray_error *err) {
  (void)len;  // len, cap and err: read by the contract only
  (void)cap;
  (void)err;
  const uint32_t type = load_le16(in + 6);
  const uint32_t body_size = load_le32(in + 8);
  if (type == HURRAY_NET_MSG_REFUSE) {
    net_store_fields(type, body_size, 0u, load_le64(in + 40), load_le32(in + 16),
                     load_le32(in + 20), load_le64(in + 24), load_le64(in + 32), out);
    //@ assert bp_error_unchanged{Pre, Here}(err);
    return;
  }
  //@ assert net_tensor_body_ok(in, cap);
  const uint32_t n = in[24];
  //@ assert 1 <= n <= 255 && n <= cap && body_size == 9 + 16 * n;
  const uint64_t tensor_id = load_le64(in + 16);
  net_decode_table(in, n, handles);
  //@ assert bp_error_unchanged{Pre, Here}(err);
  net_store_fields(type, body_size, n, tensor_id, 0u, 0u, 0u, 0u, out);
  //@ assert bp_table_decoded{Here, Pre}(handles, in + 24, n);
  //@ assert bp_error_unchanged{Pre, Here}(err);
}

/*@
  requires in != \null ==> \valid_read(in + (0 .. len - 1));
  requires out == \null || \valid(out);
  requires cap >= 1 && handles != \null ==> \valid(handles + (0 .. cap - 1));
  requires err == \null || \valid(err);
  requires in != \null && out != \null ==> \separated(in + (0 .. len - 1), out);
  requires in != \null && cap >= 1 && handles != \null ==>
             \separated(in + (0 .. len - 1), handles + (0 .. cap - 1));
  requires in != \null ==> \separated(in + (0 .. len - 1), err);
  requires out != \null && cap >= 1 && handles != \null ==>
             \separated(out, handles + (0 .. cap - 1));
  requires out != \null ==> \separated(out, err);
  requires cap >= 1 && handles != \null ==> \separated(handles + (0 .. cap - 1), err);
  terminates \true;
  assigns out->type, out->body_size, out->buffer_count, out->tensor_id, out->status,
          out->reserved, out->value, out->expected, out->index, handles[0 .. cap - 1];
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior null_argument:  // index: the argument
    assumes in == \null || out == \null || (cap >= 1 && handles == \null);
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, in == \null ? 0 : out == \null ? 2 : 3);
    ensures out != \null ==> *out == \old(*out);
  behavior small_struct:  // the caller's struct is older than this first layout
    assumes in != \null && out != \null && (cap >= 1 ==> handles != \null);
    assumes out->struct_size < HURRAY_NET_MESSAGE_MIN_SIZE;
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT;
    ensures bp_error_is(err, \result, \old(out->struct_size), HURRAY_NET_MESSAGE_MIN_SIZE, 2);
    ensures *out == \old(*out);
    ensures handles != \null ==> bp_handles_unchanged{Pre, Post}(handles, cap);
  behavior accepted:  // NET-MSG-4, NET-MSG-5: OK exactly for the messages the spec accepts
    assumes in != \null && out != \null && (cap >= 1 ==> handles != \null);
    assumes out->struct_size >= HURRAY_NET_MESSAGE_MIN_SIZE;
    assumes net_valid_message(in, len, cap);
    ensures \result == HURRAY_OK;
    ensures net_message_decoded{Post, Pre}(out, in);
    ensures out->struct_size == \old(out->struct_size);
    ensures net_type{Pre}(in) == 1 ==>
              bp_table_decoded{Post, Pre}(handles, in + 24, net_tensor_count{Pre}(in));
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // NET-MSG-4, NET-MSG-6: every other message is refused, outputs untouched
    assumes in != \null && out != \null && (cap >= 1 ==> handles != \null);
    assumes out->struct_size >= HURRAY_NET_MESSAGE_MIN_SIZE;
    assumes !net_valid_message(in, len, cap);
    ensures \result != HURRAY_OK;
    ensures *out == \old(*out);
    ensures handles != \null ==> bp_handles_unchanged{Pre, Post}(handles, cap);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_net_message_decode(const uint8_t *in, size_t len, hurray_net_message *out,
                                        hurray_buffer_handle *handles, size_t cap,
                                        hurray_error *err) {
  /* One failing path for the three NULL cases (index: the argument), so
   * that the frame of *out is carried through one call, not three. */
  if (in == NULL || out == NULL || (cap >= 1u && handles == NULL)) {
    const size_t index = in == NULL ? 0u : out == NULL ? 2u : 3u;
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, index);
  }
  /* Before anything else is read: a caller compiled against an older,
   * smaller struct would have fields written past its end. */
  const uint32_t out_size = out->struct_size;
  if (out_size < HURRAY_NET_MESSAGE_MIN_SIZE) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, out_size, HURRAY_NET_MESSAGE_MIN_SIZE, 2);
  }
  /* Every rule first, writing nothing but *err, then the stores, which
   * cannot fail. */
  const hurray_status status = net_check_message(in, len, cap, err);
  if (status != HURRAY_OK) {
    /* The frame of *out, a field at a time, then the struct from the
     * fields (as in hurray_ipc_message_decode). */
    //@ assert out->struct_size == \at(out->struct_size, Pre);
    //@ assert out->type == \at(out->type, Pre);
    //@ assert out->body_size == \at(out->body_size, Pre);
    //@ assert out->buffer_count == \at(out->buffer_count, Pre);
    //@ assert out->tensor_id == \at(out->tensor_id, Pre);
    //@ assert out->status == \at(out->status, Pre);
    //@ assert out->reserved == \at(out->reserved, Pre);
    //@ assert out->value == \at(out->value, Pre);
    //@ assert out->expected == \at(out->expected, Pre);
    //@ assert out->index == \at(out->index, Pre);
    //@ assert *out == \at(*out, Pre);
    //@ assert handles != \null ==> bp_handles_unchanged{Pre, Here}(handles, cap);
    return status;
  }
  //@ assert bp_error_unchanged{Pre, Here}(err);
  net_store_message(in, len, cap, out, handles, err);
  return HURRAY_OK;
}
