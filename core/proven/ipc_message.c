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
 * An OFFER's table is therefore decoded twice: into a scratch array of
 * the check's own (253 handles, 4 KiB of stack), then into handles[]
 * (ipc_decode_table, which cannot fail). The frames the stores do carry
 * are stated a field at a time, next to one postcondition each.
 *
 * Proven by proofs/run-proofs with the rest of core/proven, for
 * -machdep x86_64 (smoke tests included) and x86_32 (IPC-MSG-12). The
 * slowest goals (13 to 16 s alone) are the field frames that
 * ipc_store_offer_message and ipc_store_offer_buffers carry through their
 * calls, hence their FUNCTION_TIMEOUTS entries in the runner.
 * tests/ipc/test_ipc_message.c and fuzz/fuzz_ipc_message.c (whose oracle is
 * a second reader of the spec) check the same rules on the compiled code.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"
#include "hurray/ipc_wire.h"

/*@
  // ---- The rules of specs/ipc.md, in logic --------------------------------

  // Little-endian u16 (IPC-MSG-1).
  logic integer ipc_le16{L}(uint8_t *p) = p[0] + 256 * p[1];

  // The header fields (IPC-MSG-1).
  logic integer ipc_type{L}(uint8_t *in) = ipc_le16(in + 6);
  logic integer ipc_body_size{L}(uint8_t *in) = bp_le32(in + 8);
  logic integer ipc_fd_count{L}(uint8_t *in) = ipc_le16(in + 12);

  // IPC-MSG-1, IPC-MSG-2, IPC-MSG-5 steps 1..7, IPC-MSG-6: the header of a
  // message of len bytes received with fds descriptors.
  predicate ipc_header_ok{L}(uint8_t *in, integer len, integer fds) =
    len >= 16 && bp_le32(in) == 0x31495248 && ipc_le16(in + 4) == 1 &&
    ipc_le16(in + 14) == 0 && 1 <= ipc_type(in) <= 7 &&
    len == 16 + ipc_body_size(in) && ipc_fd_count(in) == fds;

  // Record i of an OFFER of n buffers (IPC-MSG-9): after the 16-byte header,
  // the 8-byte offer_id and the table of 1 + 16 * n bytes.
  logic uint8_t *ipc_record(uint8_t *in, integer n, integer i) = in + (25 + 16 * n + 16 * i);

  // IPC-MSG-11: a record of a defined kind (1 host memfd, 2 device) with
  // its reserved field 0.
  predicate ipc_record_ok{L}(uint8_t *r) =
    (bp_le32(r + 8) == 1 || bp_le32(r + 8) == 2) && bp_le32(r + 12) == 0;

  // IPC-MSG-9: how many of the first k records of an OFFER of n buffers are
  // host memfds, i.e. carry a descriptor.
  logic integer ipc_host_records{L}(uint8_t *in, integer n, integer k) =
    k <= 0 ? 0 :
      ipc_host_records(in, n, k - 1) + (bp_le32(ipc_record(in, n, k - 1) + 8) == 1 ? 1 : 0);

  // The first k records of an OFFER of n buffers are well formed.
  predicate ipc_records_ok{L}(uint8_t *in, integer n, integer k) =
    \forall integer i; 0 <= i < k ==> ipc_record_ok(ipc_record(in, n, i));

  // The buffer count of an OFFER: the count byte of its table (IPC-MSG-9).
  logic integer ipc_offer_count{L}(uint8_t *in) = in[24];

  // IPC-MSG-13: the fields of a DEVICE body that arrived with fds
  // descriptors (kind 1 FD with one descriptor and no handle bytes, kind 2
  // HANDLE with none and 1..64 handle bytes).
  predicate ipc_device_ok{L}(uint8_t *in, integer fds) =
    bp_le32(in + 24) < 253 &&
    ((bp_le32(in + 28) == 1 && fds == 1 && bp_le32(in + 40) == 0) ||
     (bp_le32(in + 28) == 2 && fds == 0 && 1 <= bp_le32(in + 40) <= 64)) &&
    bp_le64(in + 32) != 0 && bp_le32(in + 44) == 0;

  // IPC-MSG-14: the fields of an EVENT body that arrived with fds
  // descriptors (none; kind 2 HANDLE, reserved fields 0, 1..64 handle bytes).
  predicate ipc_event_ok{L}(uint8_t *in, integer fds) =
    fds == 0 && bp_le32(in + 24) < 253 && bp_le32(in + 28) == 2 &&
    bp_le64(in + 32) == 0 && 1 <= bp_le32(in + 40) <= 64 && bp_le32(in + 44) == 0;

  // IPC-MSG-7, -8, -10: the body of a HELLO, REFUSE, RELEASE or REJECT.
  predicate ipc_fixed_body_ok{L}(uint8_t *in) =
       (ipc_type(in) == 1 && ipc_body_size(in) == 16 && ipc_fd_count(in) == 0 &&
        1 <= bp_le32(in + 24) <= 253 && bp_le32(in + 28) == 0)
    || (ipc_type(in) == 2 && ipc_body_size(in) == 16 && ipc_fd_count(in) == 0 &&
        bp_le32(in + 16) != 0 && bp_le32(in + 20) == 0)
    || (ipc_type(in) == 4 && ipc_body_size(in) == 16 && ipc_fd_count(in) == 0 &&
        bp_le32(in + 28) == 0)
    || (ipc_type(in) == 5 && ipc_body_size(in) == 32 && ipc_fd_count(in) == 0 &&
        bp_le32(in + 24) != 0);

  // IPC-MSG-9: an OFFER's body size against its count, and the count
  // against the limit and cap, the reader's capacity for its buffers.
  predicate ipc_offer_size_ok{L}(uint8_t *in, integer cap) =
    ipc_body_size(in) >= 9 &&
    1 <= ipc_offer_count(in) <= 253 &&
    ipc_body_size(in) == 9 + 32 * ipc_offer_count(in) &&
    cap >= ipc_offer_count(in);

  // IPC-MSG-9, -11: the body of an OFFER: its sizes, its segment records,
  // one descriptor per host record, and its buffer table.
  predicate ipc_offer_body_ok{L}(uint8_t *in, integer cap) =
    ipc_type(in) == 3 && ipc_offer_size_ok(in, cap) &&
    ipc_records_ok(in, ipc_offer_count(in), ipc_offer_count(in)) &&
    ipc_fd_count(in) == ipc_host_records(in, ipc_offer_count(in), ipc_offer_count(in)) &&
    bp_valid_table(in + 24, bp_table_size(ipc_offer_count(in)));

  // IPC-MSG-13: the body of a DEVICE message.
  predicate ipc_device_body_ok{L}(uint8_t *in) =
    ipc_type(in) == 6 && ipc_body_size(in) == 128 && ipc_device_ok(in, ipc_fd_count(in));

  // IPC-MSG-14: the body of an EVENT message.
  predicate ipc_event_body_ok{L}(uint8_t *in) =
    ipc_type(in) == 7 && ipc_body_size(in) == 128 && ipc_event_ok(in, ipc_fd_count(in));

  // IPC-MSG-7..11, IPC-MSG-13, IPC-MSG-14: the body of the message's type.
  predicate ipc_body_ok{L}(uint8_t *in, integer cap) =
    ipc_fixed_body_ok(in) || ipc_offer_body_ok(in, cap) || ipc_device_body_ok(in) ||
    ipc_event_body_ok(in);

  // IPC-MSG-5..11: the message a reader accepts.
  predicate ipc_valid_message{L}(uint8_t *in, integer len, integer fds, integer cap) =
    ipc_header_ok(in, len, fds) && ipc_body_ok(in, cap);

  // Segment record i of the OFFER at in (state Lp) decoded into s (state Ls).
  predicate ipc_segment_decoded{Ls, Lp}(hurray_ipc_segment *s, uint8_t *in, integer n,
                                        integer i) =
    \at(s->offset, Ls) == \at(bp_le64(ipc_record(in, n, i)), Lp) &&
    \at(s->memory_kind, Ls) == \at(bp_le32(ipc_record(in, n, i) + 8), Lp) &&
    \at(s->reserved, Ls) == 0;

  predicate ipc_segments_decoded{Ls, Lp}(hurray_ipc_segment *s, uint8_t *in, integer n,
                                         integer k) =
    \forall integer i; 0 <= i < k ==> ipc_segment_decoded{Ls, Lp}(s + i, in, n, i);

  // The fields of a decoded message (state Lo) from the bytes at in (state
  // Lp), per type (include/hurray/ipc_wire.h, IPC-MSG-7..10, -13, -14).
  predicate ipc_message_decoded{Lo, Lp}(hurray_ipc_message *m, uint8_t *in) =
    \at(m->type, Lo) == \at(ipc_type(in), Lp) &&
    \at(m->fd_count, Lo) == \at(ipc_fd_count(in), Lp) &&
    \at(m->body_size, Lo) == \at(ipc_body_size(in), Lp) &&
    (\at(ipc_type(in), Lp) == 1 ==>
       \at(m->code, Lo) == \at(bp_le32(in + 16), Lp) &&
       \at(m->value, Lo) == \at(bp_le32(in + 20), Lp) &&
       \at(m->expected, Lo) == \at(bp_le32(in + 24), Lp)) &&
    (\at(ipc_type(in), Lp) == 2 ==>
       \at(m->code, Lo) == \at(bp_le32(in + 16), Lp) &&
       \at(m->value, Lo) == \at(bp_le64(in + 24), Lp)) &&
    (\at(ipc_type(in), Lp) == 3 ==>
       \at(m->offer_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->buffer_count, Lo) == \at(ipc_offer_count(in), Lp)) &&
    (\at(ipc_type(in), Lp) == 4 ==>
       \at(m->offer_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->buffer_index, Lo) == \at(bp_le32(in + 24), Lp)) &&
    (\at(ipc_type(in), Lp) == 5 ==>
       \at(m->offer_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->code, Lo) == \at(bp_le32(in + 24), Lp) &&
       \at(m->buffer_index, Lo) == \at(bp_le32(in + 28), Lp) &&
       \at(m->value, Lo) == \at(bp_le64(in + 32), Lp) &&
       \at(m->expected, Lo) == \at(bp_le64(in + 40), Lp)) &&
    (\at(ipc_type(in), Lp) == 6 ==>
       \at(m->offer_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->buffer_index, Lo) == \at(bp_le32(in + 24), Lp) &&
       \at(m->code, Lo) == \at(bp_le32(in + 28), Lp) &&
       \at(m->value, Lo) == \at(bp_le64(in + 32), Lp) &&
       \at(m->expected, Lo) == \at(bp_le32(in + 40), Lp)) &&
    (\at(ipc_type(in), Lp) == 7 ==>
       \at(m->offer_id, Lo) == \at(bp_le64(in + 16), Lp) &&
       \at(m->buffer_index, Lo) == \at(bp_le32(in + 24), Lp) &&
       \at(m->code, Lo) == \at(bp_le32(in + 28), Lp) &&
       \at(m->value, Lo) == 0 &&
       \at(m->expected, Lo) == \at(bp_le32(in + 40), Lp));
*/

/* Little-endian loads as sums of bytes times powers of 256: the provers
 * relate them to the model's bp_le32/bp_le64 without bit reasoning. */
/*@
  requires \valid_read(p + (0 .. 1));
  terminates \true;
  assigns \nothing;
  ensures \result == ipc_le16(p);  // IPC-MSG-1
*/
static inline uint32_t ipc_load_le16(const uint8_t *p) {
  return (uint32_t)p[0] + 0x100u * (uint32_t)p[1];
}

/*@
  requires \valid_read(p + (0 .. 3));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le32(p);  // IPC-MSG-1
*/
static inline uint32_t ipc_load_le32(const uint8_t *p) {
  return (uint32_t)p[0] + 0x100u * (uint32_t)p[1] + 0x10000u * (uint32_t)p[2] +
         0x1000000u * (uint32_t)p[3];
}

/*@
  requires \valid_read(p + (0 .. 7));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le64(p);  // IPC-MSG-1
*/
static inline uint64_t ipc_load_le64(const uint8_t *p) {
  return (uint64_t)ipc_load_le32(p) + 0x100000000u * (uint64_t)ipc_load_le32(p + 4);
}

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
    const uint32_t kind = ipc_load_le32(record + 8);
    const uint32_t reserved = ipc_load_le32(record + 12);
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
  const uint64_t offset = ipc_load_le64(record);
  const uint32_t kind = ipc_load_le32(record + 8);
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
  /* What an OK from the table decoder means, one of its behaviours at a
   * time: not invalid_handle, not not_colocated, so accepted. */
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
 * decoder's eight behaviours. */
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
  const uint32_t buffer_index = ipc_load_le32(in + 24);
  const uint32_t kind = ipc_load_le32(in + 28);
  const uint64_t segment_size = ipc_load_le64(in + 32);
  const uint32_t handle_size = ipc_load_le32(in + 40);
  const uint32_t reserved = ipc_load_le32(in + 44);
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
  out->code = ipc_load_le32(in + 28);
  out->offer_id = ipc_load_le64(in + 16);
  out->value = ipc_load_le64(in + 32);
  out->expected = ipc_load_le32(in + 40);
  out->buffer_index = ipc_load_le32(in + 24);
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
  const uint32_t buffer_index = ipc_load_le32(in + 24);
  const uint32_t kind = ipc_load_le32(in + 28);
  const uint64_t reserved_wide = ipc_load_le64(in + 32);
  const uint32_t handle_size = ipc_load_le32(in + 40);
  const uint32_t reserved = ipc_load_le32(in + 44);
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
  out->code = ipc_load_le32(in + 28);
  out->offer_id = ipc_load_le64(in + 16);
  out->value = 0u;
  out->expected = ipc_load_le32(in + 40);
  out->buffer_index = ipc_load_le32(in + 24);
  out->buffer_count = 0u;
}

/* IPC-MSG-5 steps 1..7: the header, checked in order; writes nothing
 * but *err. */
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
  if (len < HURRAY_IPC_HEADER_SIZE) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, HURRAY_IPC_HEADER_SIZE, 0);
  }
  const uint32_t magic = ipc_load_le32(in);
  const uint32_t version = ipc_load_le16(in + 4);
  const uint32_t type = ipc_load_le16(in + 6);
  const uint32_t body_size = ipc_load_le32(in + 8);
  const uint32_t fd_count = ipc_load_le16(in + 12);
  const uint32_t header_reserved = ipc_load_le16(in + 14);
  if (magic != HURRAY_IPC_MAGIC) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, magic, HURRAY_IPC_MAGIC, 0);
  }
  if (version != HURRAY_IPC_VERSION) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, version, HURRAY_IPC_VERSION, 4);
  }
  if (header_reserved != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, header_reserved, 0, 14);
  }
  if (type < HURRAY_IPC_MSG_HELLO || type > HURRAY_IPC_MSG_EVENT) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, type, 0, 6);
  }
  const uint64_t total = (uint64_t)HURRAY_IPC_HEADER_SIZE + body_size;
  if ((uint64_t)len < total) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, total, 0);
  }
  if ((uint64_t)len > total) {
    return hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, total, 0);
  }
  if ((uint64_t)fd_count != (uint64_t)received_fds) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, fd_count, received_fds, 12);
  }
  return HURRAY_OK;
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
    const uint32_t max_buffers = ipc_load_le32(in + 24);
    const uint32_t reserved = ipc_load_le32(in + 28);
    if (max_buffers == 0u || max_buffers > HURRAY_IPC_MAX_FDS) {
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, max_buffers, HURRAY_IPC_MAX_FDS, 8);
    }
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 12);
    }
  } else if (type == HURRAY_IPC_MSG_REFUSE) {
    const uint32_t reason = ipc_load_le32(in + 16);
    const uint32_t reserved = ipc_load_le32(in + 20);
    if (reason == 0u) {
      return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, reason, 1u, 0);
    }
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 4);
    }
  } else if (type == HURRAY_IPC_MSG_RELEASE) {
    const uint32_t reserved = ipc_load_le32(in + 28);
    if (reserved != 0u) {
      return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, 12);
    }
  } else {
    const uint32_t status = ipc_load_le32(in + 24);
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
    code = ipc_load_le32(in + 16);
    value = ipc_load_le32(in + 20);
    expected = ipc_load_le32(in + 24);
  } else if (type == HURRAY_IPC_MSG_REFUSE) {
    code = ipc_load_le32(in + 16);
    value = ipc_load_le64(in + 24);
  } else if (type == HURRAY_IPC_MSG_RELEASE) {
    offer_id = ipc_load_le64(in + 16);
    buffer_index = ipc_load_le32(in + 24);
  } else {
    offer_id = ipc_load_le64(in + 16);
    code = ipc_load_le32(in + 24);
    buffer_index = ipc_load_le32(in + 28);
    value = ipc_load_le64(in + 32);
    expected = ipc_load_le64(in + 40);
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
static hurray_status ipc_check_offer(const uint8_t *in, uint32_t body_size, uint32_t fd_count,
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
  const uint32_t type = ipc_load_le16(in + 6);
  const uint32_t body_size = ipc_load_le32(in + 8);
  const uint32_t fd_count = ipc_load_le16(in + 12);
  if (type == HURRAY_IPC_MSG_OFFER) {
    //@ assert ipc_valid_message(in, len, received_fds, cap) <==> ipc_offer_body_ok(in, cap);
    return ipc_check_offer(in, body_size, fd_count, cap, err);
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
static void ipc_store_offer_message(const uint8_t *in, uint32_t n, uint32_t body_size,
                                    uint32_t fd_count, hurray_ipc_message *out,
                                    hurray_buffer_handle *handles, hurray_ipc_segment *segments,
                                    hurray_error *err) {
  const uint64_t offer_id = ipc_load_le64(in + 16);
  //@ assert offer_id == bp_le64(in + 16);
  ipc_store_offer_buffers(in, n, handles, segments, err);
  ipc_store_offer(body_size, fd_count, offer_id, n, out);
  /* Each frame stated here, on this path alone. */
  //@ assert bp_table_decoded{Here, Pre}(handles, in + 24, n);
  //@ assert ipc_segments_decoded{Here, Pre}(segments, in, n, n);
  //@ assert bp_error_unchanged{Pre, Here}(err);
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
  const uint32_t type = ipc_load_le16(in + 6);
  const uint32_t body_size = ipc_load_le32(in + 8);
  const uint32_t fd_count = ipc_load_le16(in + 12);
  if (type == HURRAY_IPC_MSG_OFFER) {
    //@ assert ipc_offer_body_ok(in, cap);
    const uint32_t n = in[24];
    //@ assert n == ipc_offer_count(in) && 1 <= n <= 253 && n <= cap && body_size == 9 + 32 * n;
    ipc_store_offer_message(in, n, body_size, fd_count, out, handles, segments, err);
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
