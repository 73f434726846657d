/*
 * The rules of the IPC transport's messages (specs/ipc.md, IPC-MSG-1..14) in
 * ACSL logic: what the two halves of the proven message decoder
 * (ipc_message.c, the message and its fixed-size bodies; ipc_offer.c, an
 * OFFER's buffers) state their contracts in. Internal to the core. proofs/export-contracts copies the logic into
 * include/hurray/contracts.h for integrators.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_IPC_RULES_H
#define HURRAY_CORE_IPC_RULES_H

#include <stddef.h>
#include <stdint.h>
#include "hurray/buffer.h"
#include "hurray/ipc_wire.h"

/*@
  // ---- The rules of specs/ipc.md, in logic --------------------------------

  // The header fields (IPC-MSG-1).
  logic integer ipc_type{L}(uint8_t *in) = bp_le16(in + 6);
  logic integer ipc_body_size{L}(uint8_t *in) = bp_le32(in + 8);
  logic integer ipc_fd_count{L}(uint8_t *in) = bp_le16(in + 12);

  // IPC-MSG-1, IPC-MSG-2, IPC-MSG-5 steps 1..7, IPC-MSG-6: the header of a
  // message of len bytes received with fds descriptors.
  predicate ipc_header_ok{L}(uint8_t *in, integer len, integer fds) =
    len >= 16 && bp_le32(in) == 0x31495248 && bp_le16(in + 4) == 1 &&
    bp_le16(in + 14) == 0 && 1 <= ipc_type(in) <= 7 &&
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

#endif /* HURRAY_CORE_IPC_RULES_H */
