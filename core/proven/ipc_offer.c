/*
 * An OFFER's body (specs/ipc.md, IPC-MSG-8..11), for the proven IPC message
 * decoder (ipc_message.c says why it checks everything before it stores
 * anything). hurray_ipc_check_offer applies the OFFER's rules in the order
 * of IPC-MSG-5 and writes nothing but *err; hurray_ipc_store_offer_message,
 * called only once every rule has passed, writes *out, handles[] and
 * segments[] and cannot fail. The table is decoded twice: into a scratch
 * array of the check's own (253 handles, 4 KiB of stack), then into
 * handles[] (ipc_decode_table), so that no failure path carries a frame of
 * the caller's arrays.
 *
 * Proven with the rest of core/proven (proofs/run-proofs). The slowest goals
 * are the field frames that hurray_ipc_store_offer_message and
 * ipc_store_offer_buffers carry through their calls, hence their
 * FUNCTION_TIMEOUTS entries in the runner.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "ipc_offer.h"
#include "ipc_rules.h"
#include "little_endian.h"

/* IPC-MSG-11, pass 1: the n segment records of an OFFER, checked in order;
 * writes nothing but *err, so the loop reads memory nothing writes. */
/*@
  requires 1 <= n <= 253;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 24 + 32 * n), err);
  requires \valid(host);
  requires \separated(host, in + (0 .. 24 + 32 * n));
  requires \separated(host, err);
  terminates \true;
  assigns *host, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-11, IPC-MSG-9: the number of host records
    assumes ipc_records_ok(in, n, n);
    ensures \result == HURRAY_OK;
    ensures *host == ipc_host_records(in, n, n);
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // IPC-MSG-11: the first bad record
    assumes !ipc_records_ok(in, n, n);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_records(const uint8_t *in, size_t n, uint32_t *host,
                                       hurray_error *err) {
  uint32_t hosts = 0;
  /*@
    loop invariant 0 <= i <= n;
    loop invariant 0 <= hosts <= i;
    loop invariant hosts == ipc_host_records(in, n, i);
    loop invariant ipc_records_ok(in, n, i);
    loop invariant bp_error_unchanged{Pre, Here}(err);
    loop assigns i, hosts, err->status, err->value, err->expected, err->index, err->detail[0];
    loop variant n - i;
  */
  for (size_t i = 0; i < n; i++) {
    const uint8_t *record = in + (25u + HURRAY_BUFFER_HANDLE_SIZE * n +
                                  HURRAY_IPC_SEGMENT_RECORD_SIZE * i);
    const uint32_t kind = load_le32(record + 8);
    const uint32_t reserved = load_le32(record + 12);
    if (kind != HURRAY_IPC_MEMORY_HOST_MEMFD && kind != HURRAY_IPC_MEMORY_DEVICE) {
      //@ assert !ipc_record_ok(ipc_record(in, n, i));
      //@ assert !ipc_records_ok{Pre}(in, n, n);
      return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, kind, HURRAY_IPC_MEMORY_DEVICE, i);
    }
    if (reserved != 0u) {
      //@ assert !ipc_record_ok(ipc_record(in, n, i));
      //@ assert !ipc_records_ok{Pre}(in, n, n);
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, i);
    }
    //@ assert ipc_record_ok(ipc_record(in, n, i));
    hosts += kind == HURRAY_IPC_MEMORY_HOST_MEMFD ? 1u : 0u;
  }
  *host = hosts;
  return HURRAY_OK;
}

/* One checked segment record into *segment (IPC-MSG-11). */
/*@
  requires \valid_read(record + (0 .. 11));
  requires \valid(segment);
  requires \separated(record + (0 .. 11), segment);
  terminates \true;
  assigns *segment;
  ensures segment->offset == bp_le64{Pre}(record);
  ensures segment->memory_kind == bp_le32{Pre}(record + 8) && segment->reserved == 0;
*/
static inline void ipc_store_record(const uint8_t *record, hurray_ipc_segment *segment) {
  const uint64_t offset = load_le64(record);
  const uint32_t kind = load_le32(record + 8);
  segment->offset = offset;
  segment->memory_kind = kind;
  segment->reserved = 0u;
}

/* IPC-MSG-11, pass 2: the n records, already checked, into segments[0 .. n). */
/*@
  requires 1 <= n <= 253;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires \valid(segments + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), segments + (0 .. n - 1));
  terminates \true;
  assigns segments[0 .. n - 1];
  ensures ipc_segments_decoded{Post, Pre}(segments, in, n, n);
*/
static void ipc_copy_records(const uint8_t *in, size_t n, hurray_ipc_segment *segments) {
  /*@
    loop invariant 0 <= i <= n;
    loop invariant ipc_segments_decoded{Here, Pre}(segments, in, n, i);
    loop assigns i, segments[0 .. n - 1];
    loop variant n - i;
  */
  for (size_t i = 0; i < n; i++) {
    const uint8_t *record = in + (25u + HURRAY_BUFFER_HANDLE_SIZE * n +
                                  HURRAY_IPC_SEGMENT_RECORD_SIZE * i);
    //@ assert bp_le64(record) == bp_le64{Pre}(ipc_record(in, n, i));
    ipc_store_record(record, &segments[i]);
  }
}

/* IPC-MSG-9, -11: the buffers of an OFFER of n buffers, checked: the
 * segment records, one descriptor per host record, then the table through
 * the proven table decoder (BP-TABLE-1..6). The table is decoded into a
 * scratch array of this function's own (253 handles, 4 KiB of stack), so
 * that a check writes nothing but *err: the caller's arrays are written
 * only once every rule has passed (ipc_store_offer_buffers). */
/*@
  requires 1 <= n <= 253;
  requires in[24] == n;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 24 + 32 * n), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-9, IPC-MSG-11, BP-TABLE-1..6
    assumes bp_valid_table(in + 24, bp_table_size(n)) && ipc_records_ok(in, n, n) &&
            fd_count == ipc_host_records(in, n, n);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !(bp_valid_table(in + 24, bp_table_size(n)) && ipc_records_ok(in, n, n) &&
              fd_count == ipc_host_records(in, n, n));
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_offer_buffers(const uint8_t *in, size_t n, uint32_t fd_count,
                                             hurray_error *err) {
  uint32_t host = 0;
  hurray_status status = ipc_check_records(in, n, &host, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (fd_count != host) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, host, 12);
  }
  //@ assert ipc_records_ok{Pre}(in, n, n) && fd_count == ipc_host_records{Pre}(in, n, n);
  //@ assert bp_error_unchanged{Pre, Here}(err);
  hurray_buffer_handle scratch[HURRAY_IPC_MAX_FDS];
  size_t decoded = 0;
  status = hurray_buffer_table_decode_exact(in + 24, 1u + HURRAY_BUFFER_HANDLE_SIZE * n, scratch,
                                            n, &decoded, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* What an OK from the table decoder means: not refused, not trailing,
   * so accepted, a table valid to its last handle, a fact at a time. */
  //@ assert bp_table_handles_valid{Pre}(in + 24, n);
  //@ assert bp_table_colocated{Pre}(in + 24, n);
  //@ assert bp_valid_table{Pre}(in + 24, bp_table_size(n));
  //@ assert bp_error_unchanged{Pre, Here}(err);
  return HURRAY_OK;
}

/* BP-TABLE-1..6: the table of an OFFER of n buffers, valid, into
 * handles[]. Cannot fail: the table decoder reads again the bytes
 * ipc_check_offer_buffers accepted, with no error struct. A function of
 * its own so that its callers see one postcondition, not the table
 * decoder's three behaviours. */
/*@
  requires 1 <= n <= 253;
  requires in[24] == n;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires \valid(handles + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), handles + (0 .. n - 1));
  requires bp_valid_table(in + 24, bp_table_size(n));
  terminates \true;
  assigns handles[0 .. n - 1];
  ensures bp_table_decoded{Post, Pre}(handles, in + 24, n);  // BP-WIRE-1
*/
static void ipc_decode_table(const uint8_t *in, size_t n, hurray_buffer_handle *handles) {
  size_t decoded = 0;
  const hurray_status status = hurray_buffer_table_decode_exact(
      in + 24, 1u + HURRAY_BUFFER_HANDLE_SIZE * n, handles, n, &decoded, NULL);
  //@ assert status == HURRAY_OK;
  (void)status;
}

/* IPC-MSG-9, -11: the buffers of a checked OFFER into segments[] and
 * handles[]; cannot fail. The records first, the table last, each a call
 * with one postcondition, so that the frames between them are cheap. *err
 * is not written: its frame is stated here, where the context is small,
 * and carried up by the callers' postconditions. */
/*@
  requires 1 <= n <= 253;
  requires in[24] == n;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires \valid(handles + (0 .. n - 1));
  requires \valid(segments + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), handles + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), segments + (0 .. n - 1));
  requires \separated(handles + (0 .. n - 1), segments + (0 .. n - 1));
  requires \separated(handles + (0 .. n - 1), err);
  requires \separated(segments + (0 .. n - 1), err);
  requires bp_valid_table(in + 24, bp_table_size(n));
  terminates \true;
  assigns handles[0 .. n - 1], segments[0 .. n - 1];
  ensures bp_table_decoded{Post, Pre}(handles, in + 24, n);   // BP-WIRE-1
  ensures ipc_segments_decoded{Post, Pre}(segments, in, n, n);  // IPC-MSG-11
  ensures bp_error_unchanged{Pre, Post}(err);
*/
static void ipc_store_offer_buffers(const uint8_t *in, size_t n, hurray_buffer_handle *handles,
                                    hurray_ipc_segment *segments, hurray_error *err) {
  (void)err;  // read by the contract only
  ipc_copy_records(in, n, segments);
  //@ assert in[24] == n;
  //@ assert bp_valid_table(in + 24, bp_table_size(n));
  //@ assert bp_error_unchanged{Pre, Here}(err);
  /* A label for the frames below; C code never jumps to it. */
Records: __attribute__((unused));
  ipc_decode_table(in, n, handles);
  /* The frame of segments[], a field at a time: one goal for the three
   * fields is near the runner's limit. */
  //@ assert \forall integer i; 0 <= i < n ==> segments[i].offset == \at(segments[i].offset, Records);
  /*@ assert \forall integer i; 0 <= i < n ==>
        segments[i].memory_kind == \at(segments[i].memory_kind, Records); */
  //@ assert \forall integer i; 0 <= i < n ==> segments[i].reserved == \at(segments[i].reserved, Records);
  //@ assert ipc_segments_decoded{Here, Pre}(segments, in, n, n);
}

/* A checked OFFER's header fields into *out (its buffers are in handles[]
 * and segments[]); from values read before the buffers were decoded. */
/*@
  requires \valid(out);
  terminates \true;
  assigns *out;
  ensures out->type == 3 && out->fd_count == fd_count && out->body_size == body_size;
  ensures out->offer_id == offer_id && out->buffer_count == n;
  ensures out->code == 0 && out->value == 0 && out->expected == 0 && out->buffer_index == 0;
*/
static void ipc_store_offer(uint32_t body_size, uint32_t fd_count, uint64_t offer_id, uint32_t n,
                            hurray_ipc_message *out) {
  out->type = HURRAY_IPC_MSG_OFFER;
  out->fd_count = fd_count;
  out->body_size = body_size;
  out->code = 0u;
  out->offer_id = offer_id;
  out->value = 0u;
  out->expected = 0u;
  out->buffer_index = 0u;
  out->buffer_count = n;
}

/* IPC-MSG-9: an OFFER's body size against its count, and the count
 * against the limit and the reader's capacity; writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires ipc_type(in) == 3 && body_size == ipc_body_size(in);
  requires \valid_read(in + (0 .. 15 + body_size));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15 + body_size), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:
    assumes ipc_offer_size_ok(in, cap);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !ipc_offer_size_ok(in, cap);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status ipc_check_offer_size(const uint8_t *in, uint32_t body_size, size_t cap,
                                          hurray_error *err) {
  if (body_size < 9u) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, 9u, 8);
  }
  const uint32_t n = in[24];
  if (n == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  if (n > HURRAY_IPC_MAX_FDS) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, n, HURRAY_IPC_MAX_FDS, 0);
  }
  const uint32_t offer_size = 9u + 32u * n;
  if (body_size != offer_size) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, body_size, offer_size, 8);
  }
  if (cap < n) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, n, cap, 0);
  }
  return HURRAY_OK;
}

/* IPC-MSG-9: an OFFER, its header checked: the body's size, the count and
 * the reader's capacity, then the buffers; writes nothing but *err. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires ipc_type(in) == 3 && body_size == ipc_body_size(in) && fd_count == ipc_fd_count(in);
  requires \valid_read(in + (0 .. 15 + body_size));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15 + body_size), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // IPC-MSG-9, IPC-MSG-11
    assumes ipc_offer_body_ok(in, cap);
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:
    assumes !ipc_offer_body_ok(in, cap);
    ensures \result != HURRAY_OK;
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_ipc_check_offer(const uint8_t *in, uint32_t body_size, uint32_t fd_count,
                                     size_t cap, hurray_error *err) {
  const hurray_status status = ipc_check_offer_size(in, body_size, cap, err);
  if (status != HURRAY_OK) {
    //@ assert !ipc_offer_body_ok(in, cap);
    return status;
  }
  //@ assert ipc_offer_size_ok(in, cap);
  const uint32_t n = in[24];
  //@ assert n == ipc_offer_count(in) && 1 <= n <= 253 && body_size == 9 + 32 * n;
  return ipc_check_offer_buffers(in, n, fd_count, err);
}

/* IPC-MSG-9, -11: an OFFER of n buffers every rule accepted: its buffers
 * into handles[] and segments[], then its header fields into *out. The
 * contract speaks of n, not of the reader's capacity: the frames through
 * the calls below then need no bound between the two. */
/*@
  requires 1 <= n <= 253;
  requires \valid_read(in + (0 .. 24 + 32 * n));
  requires in[24] == n && ipc_type(in) == 3;
  requires body_size == ipc_body_size(in) && body_size == 9 + 32 * n;
  requires fd_count == ipc_fd_count(in);
  requires bp_valid_table(in + 24, bp_table_size(n));
  requires \valid(out);
  requires \valid(handles + (0 .. n - 1));
  requires \valid(segments + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), out);
  requires \separated(in + (0 .. 24 + 32 * n), handles + (0 .. n - 1));
  requires \separated(in + (0 .. 24 + 32 * n), segments + (0 .. n - 1));
  requires \separated(out, handles + (0 .. n - 1));
  requires \separated(out, segments + (0 .. n - 1));
  requires \separated(handles + (0 .. n - 1), segments + (0 .. n - 1));
  requires \separated(out, err);
  requires \separated(handles + (0 .. n - 1), err);
  requires \separated(segments + (0 .. n - 1), err);
  terminates \true;
  assigns *out, handles[0 .. n - 1], segments[0 .. n - 1];
  ensures ipc_message_decoded{Post, Pre}(out, in);
  ensures bp_table_decoded{Post, Pre}(handles, in + 24, n);
  ensures ipc_segments_decoded{Post, Pre}(segments, in, n, n);
  ensures bp_error_unchanged{Pre, Post}(err);
*/
void hurray_ipc_store_offer_message(const uint8_t *in, uint32_t n, uint32_t body_size,
                                    uint32_t fd_count, hurray_ipc_message *out,
                                    hurray_buffer_handle *handles, hurray_ipc_segment *segments,
                                    hurray_error *err) {
  const uint64_t offer_id = load_le64(in + 16);
  //@ assert offer_id == bp_le64(in + 16);
  ipc_store_offer_buffers(in, n, handles, segments, err);
  ipc_store_offer(body_size, fd_count, offer_id, n, out);
  /* Each frame stated here, on this path alone. */
  //@ assert bp_table_decoded{Here, Pre}(handles, in + 24, n);
  //@ assert ipc_segments_decoded{Here, Pre}(segments, in, n, n);
  //@ assert bp_error_unchanged{Pre, Here}(err);
}
