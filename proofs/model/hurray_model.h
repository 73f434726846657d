/*
 * The logic model of specs/buffer-protocol.md, written once in ACSL.
 *
 * Every predicate and logic function here restates a rule of the spec, with
 * its requirement ID, from the spec's text and tables (numbers as the spec
 * writes them), not from the C code. The contracts in core/proven/ are
 * stated with these names.
 *
 * This header holds no C declaration, only ACSL (comments to a C compiler):
 * proofs/run-proofs pre-includes it when Frama-C parses core/proven/*.c and
 * checks that preprocessing it adds nothing to the C code the library
 * compiles. It has no axiom and no undefined logic symbol: every symbol
 * below is a definition, and its one lemma is proved by WP in every run.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PROOFS_MODEL_H
#define HURRAY_PROOFS_MODEL_H

#include "hurray/buffer.h"

/*@
  // ---- Byte-valued fields ------------------------------------------------

  // BP-DEV-1: named device tags 0x00 cpu .. 0x08 opencl.
  predicate bp_named_device_tag(integer t) = 0x00 <= t <= 0x08;
  // BP-DEV-2: reserved device tags.
  predicate bp_reserved_device_tag(integer t) = 0x09 <= t <= 0xEF;
  // BP-DEV-3: implementation-private device tags.
  predicate bp_private_device_tag(integer t) = 0xF0 <= t <= 0xFE;
  // BP-DEV-4: the invalid device tag.
  predicate bp_invalid_device_tag(integer t) = t == 0xFF;
  // BP-DEV-1..4: what a reader accepts.
  predicate bp_valid_device_tag(integer t) =
    bp_named_device_tag(t) || bp_private_device_tag(t);

  // BP-MEM-1: named memory classes 0x00 standard .. 0x03 peer.
  predicate bp_named_memory_class(integer c) = 0x00 <= c <= 0x03;
  // BP-MEM-2: implementation-private classes.
  predicate bp_private_memory_class(integer c) = 0xF0 <= c <= 0xFE;
  // BP-MEM-3: reserved and invalid classes.
  predicate bp_reserved_memory_class(integer c) = 0x04 <= c <= 0xEF;
  predicate bp_invalid_memory_class(integer c) = c == 0xFF;
  // BP-MEM-1..3: what a reader accepts.
  predicate bp_valid_memory_class(integer c) =
    bp_named_memory_class(c) || bp_private_memory_class(c);

  // BP-SYNC-1: producer_synced 0x00, event 0x01, consumer_stream 0x02.
  predicate bp_valid_sync_mode(integer s) = 0x00 <= s <= 0x02;

  // ---- Alignment --------------------------------------------------------

  // BP-ALIGN-1: a power of two that fits the u32 field (0 is not one).
  predicate bp_power_of_two_u32(integer a) =
    a == 1 || a == 2 || a == 4 || a == 8 || a == 16 || a == 32 || a == 64 || a == 128 ||
    a == 256 || a == 512 || a == 1024 || a == 2048 || a == 4096 || a == 8192 ||
    a == 16384 || a == 32768 || a == 65536 || a == 131072 || a == 262144 || a == 524288 ||
    a == 1048576 || a == 2097152 || a == 4194304 || a == 8388608 || a == 16777216 ||
    a == 33554432 || a == 67108864 || a == 134217728 || a == 268435456 ||
    a == 536870912 || a == 1073741824 || a == 2147483648;

  // BP-ALIGN-2, BP-ALIGN-3: the minimum applies to non-empty buffers only.
  predicate bp_alignment_meets_minimum(integer byte_size, integer a) =
    byte_size != 0 ==> a >= 64;

  // BP-SYNC-2: a CPU buffer is producer_synced.
  predicate bp_cpu_sync_rule(integer t, integer s) = t == 0x00 ==> s == 0x00;

  // ---- The validity table -------------------------------------------------

  // BP-PAIR-1 (the table, row by row), BP-PAIR-2 (private tag with private
  // class), BP-PAIR-3 (everything else is invalid).
  predicate bp_valid_pair(integer t, integer c) =
       (t == 0x00 && (c == 0x00 || c == 0x01 || c == 0x02))               // cpu
    || (t == 0x01 && (c == 0x00 || c == 0x01 || c == 0x02 || c == 0x03))  // cuda
    || (t == 0x02 && (c == 0x00 || c == 0x01 || c == 0x02 || c == 0x03))  // rocm
    || (t == 0x03 && (c == 0x00 || c == 0x01 || c == 0x02))               // metal
    || (t == 0x04 && (c == 0x00 || c == 0x01 || c == 0x02 || c == 0x03))  // vulkan
    || (t == 0x05 && c == 0x00)                                           // webgpu
    || (t == 0x06 && (c == 0x00 || c == 0x01 || c == 0x02))               // hexagon
    || (t == 0x07 && (c == 0x00 || c == 0x01 || c == 0x02 || c == 0x03))  // level_zero
    || (t == 0x08 && (c == 0x00 || c == 0x01 || c == 0x02))               // opencl
    || (0xF0 <= t <= 0xFE && c == 0x00)                                   // private, standard
    || (0xF0 <= t <= 0xFE && 0xF0 <= c <= 0xFE);                          // BP-PAIR-2

  // ---- Errors ---------------------------------------------------------------

  // err, when given, names the status and its values; detail is empty.
  predicate bp_error_is{L}(hurray_error *err, integer status, integer value, integer expected,
                           integer index) =
    err == \null ||
    (err->status == status && err->value == value && err->expected == expected &&
     err->index == index && err->detail[0] == 0);

  // On success *err is left untouched (include/hurray/buffer.h conventions):
  // the fields a failure would write hold the same values in L1 and L2.
  predicate bp_error_unchanged{L1, L2}(hurray_error *err) =
    err == \null ||
    (\at(err->status, L1) == \at(err->status, L2) &&
     \at(err->value, L1) == \at(err->value, L2) &&
     \at(err->expected, L1) == \at(err->expected, L2) &&
     \at(err->index, L1) == \at(err->index, L2) &&
     \at(err->detail[0], L1) == \at(err->detail[0], L2));

  // ---- One handle ---------------------------------------------------------

  // BP-ORDER-1 steps 2..8 all hold for these field values.
  predicate bp_valid_fields(integer byte_size, integer a, integer t, integer s, integer c) =
    bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_valid_memory_class(c) &&
    bp_power_of_two_u32(a) && bp_alignment_meets_minimum(byte_size, a) &&
    bp_cpu_sync_rule(t, s) && bp_valid_pair(t, c);

  predicate bp_valid_handle(hurray_buffer_handle h) =
    bp_valid_fields(h.byte_size, h.alignment, h.device_tag, h.sync_mode, h.memory_class);

  // BP-ORDER-1 steps 2..8: the one answer for fields with several faults is
  // the first rule broken, with the value (and expected value) its error
  // names (BP-DEV-2/4, BP-SYNC-1, BP-MEM-3, BP-ALIGN-1/2, BP-SYNC-2,
  // BP-PAIR-1); err, when given, holds them with `index`.
  predicate bp_fields_rejected{L}(integer st, hurray_error *err, integer index,
                                  integer byte_size, integer a, integer t, integer s,
                                  integer c) =
       (bp_invalid_device_tag(t) &&
        st == HURRAY_ERR_INVALID_DEVICE_TAG && bp_error_is(err, st, t, 0, index))
    || (bp_reserved_device_tag(t) &&
        st == HURRAY_ERR_RESERVED_DEVICE_TAG && bp_error_is(err, st, t, 0, index))
    || (bp_valid_device_tag(t) && !bp_valid_sync_mode(s) &&
        st == HURRAY_ERR_INVALID_SYNC_MODE && bp_error_is(err, st, s, 0, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_invalid_memory_class(c) &&
        st == HURRAY_ERR_INVALID_MEMORY_CLASS && bp_error_is(err, st, c, 0, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_reserved_memory_class(c) &&
        st == HURRAY_ERR_RESERVED_MEMORY_CLASS && bp_error_is(err, st, c, 0, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_valid_memory_class(c) &&
        !bp_power_of_two_u32(a) &&
        st == HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO && bp_error_is(err, st, a, 0, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_valid_memory_class(c) &&
        bp_power_of_two_u32(a) && !bp_alignment_meets_minimum(byte_size, a) &&
        st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM && bp_error_is(err, st, a, 64, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_valid_memory_class(c) &&
        bp_power_of_two_u32(a) && bp_alignment_meets_minimum(byte_size, a) &&
        !bp_cpu_sync_rule(t, s) &&
        st == HURRAY_ERR_INVALID_SYNC_MODE && bp_error_is(err, st, s, 0x00, index))
    || (bp_valid_device_tag(t) && bp_valid_sync_mode(s) && bp_valid_memory_class(c) &&
        bp_power_of_two_u32(a) && bp_alignment_meets_minimum(byte_size, a) &&
        bp_cpu_sync_rule(t, s) && !bp_valid_pair(t, c) &&
        st == HURRAY_ERR_INVALID_PAIR && bp_error_is(err, st, c, t, index));

  // ---- The 16-byte wire form (BP-WIRE-1, BP-WIRE-2) -----------------------

  // Little-endian values of 8, 4 and 2 bytes (the messages' headers, IPC-MSG-1
  // and NET-MSG-1, have 2-byte fields).
  logic integer bp_le64{L}(uint8_t *p) =
    p[0] + 256 * (p[1] + 256 * (p[2] + 256 * (p[3] + 256 * (p[4] + 256 * (p[5] +
    256 * (p[6] + 256 * p[7]))))));
  logic integer bp_le32{L}(uint8_t *p) = p[0] + 256 * (p[1] + 256 * (p[2] + 256 * p[3]));
  logic integer bp_le16{L}(uint8_t *p) = p[0] + 256 * p[1];

  // Byte j of the bytes at p (to read one in another state: bp_byte_at{Pre}).
  logic integer bp_byte_at{L}(uint8_t *p, integer j) = p[j];

  // Byte k (from 0, least significant first) of a value.
  logic integer bp_byte(integer v, integer k) =
    k == 0 ? v % 256 :
    k == 1 ? v / 0x100 % 256 :
    k == 2 ? v / 0x10000 % 256 :
    k == 3 ? v / 0x1000000 % 256 :
    k == 4 ? v / 0x100000000 % 256 :
    k == 5 ? v / 0x10000000000 % 256 :
    k == 6 ? v / 0x1000000000000 % 256 :
    v / 0x100000000000000 % 256;

  // BP-WIRE-2 and BP-ORDER-1 steps 2..8: a reader accepts these 16 bytes.
  predicate bp_valid_wire_handle{L}(uint8_t *p) =
    p[15] == 0x00 &&
    bp_valid_fields(bp_le64(p), bp_le32(p + 8), p[12], p[13], p[14]);

  // BP-ORDER-1 with step 1 (the reserved byte, BP-WIRE-2) in front; err
  // read in state Le, the bytes in state Lp.
  predicate bp_wire_rejected{Le, Lp}(integer st, hurray_error *err, integer index,
                                     uint8_t *p) =
       (\at(p[15], Lp) != 0x00 &&
        st == HURRAY_ERR_RESERVED_BYTE_NONZERO &&
        bp_error_is{Le}(err, st, \at(p[15], Lp), 0, index))
    || (\at(p[15], Lp) == 0x00 &&
        bp_fields_rejected{Le}(st, err, index, \at(bp_le64(p), Lp), \at(bp_le32(p + 8), Lp),
                               \at(p[12], Lp), \at(p[13], Lp), \at(p[14], Lp)));

  // The handle at h (read in state Lh) holds the field values of the wire
  // bytes at p (read in state Lp) (BP-WIRE-1). Two states, so that a
  // contract can compare what a function wrote with the bytes it was given.
  predicate bp_decoded_from{Lh, Lp}(hurray_buffer_handle *h, uint8_t *p) =
    \at(h->byte_size, Lh) == \at(bp_le64(p), Lp) &&
    \at(h->alignment, Lh) == \at(bp_le32(p + 8), Lp) &&
    \at(h->device_tag, Lh) == \at(p[12], Lp) &&
    \at(h->sync_mode, Lh) == \at(p[13], Lp) &&
    \at(h->memory_class, Lh) == \at(p[14], Lp);

  // Start of handle i of the table at `in` (BP-TABLE-1). The predicates
  // below index handles through it, never through arithmetic on a bound
  // variable, so that provers can match their quantifiers.
  logic uint8_t *bp_table_handle(uint8_t *in, integer i) = in + (1 + 16 * i);

  // out[0 .. n) (state Lh) hold the field values of the first n handles of
  // the table at `in` (state Lp) (BP-WIRE-1, BP-TABLE-5).
  predicate bp_table_decoded{Lh, Lp}(hurray_buffer_handle *out, uint8_t *in, integer n) =
    \forall integer i; 0 <= i < n ==>
      bp_decoded_from{Lh, Lp}(out + i, in + (1 + 16 * i));

  // out[0 .. n) in state L2 as it was in state L1: what a table decoder that
  // rejected its input leaves behind (BP-TABLE-8), and the network message
  // decoder's handles[] on a refused message (NET-MSG-6).
  predicate bp_handles_unchanged{L1, L2}(hurray_buffer_handle *out, integer n) =
    \forall integer i; 0 <= i < n ==> \at(out[i], L1) == \at(out[i], L2);

  // out[0 .. n) in state L2 as it was in state L1: what a table encoder that
  // refused its handles leaves behind (BP-TABLE-9).
  predicate bp_bytes_unchanged{L1, L2}(uint8_t *out, integer n) =
    \forall integer i; 0 <= i < n ==> \at(out[i], L1) == \at(out[i], L2);

  // p holds the little-endian wire form of h, reserved byte 0 (BP-WIRE-1/2).
  predicate bp_encodes{L}(uint8_t *p, hurray_buffer_handle h) =
    p[0] == bp_byte(h.byte_size, 0) && p[1] == bp_byte(h.byte_size, 1) &&
    p[2] == bp_byte(h.byte_size, 2) && p[3] == bp_byte(h.byte_size, 3) &&
    p[4] == bp_byte(h.byte_size, 4) && p[5] == bp_byte(h.byte_size, 5) &&
    p[6] == bp_byte(h.byte_size, 6) && p[7] == bp_byte(h.byte_size, 7) &&
    p[8] == bp_byte(h.alignment, 0) && p[9] == bp_byte(h.alignment, 1) &&
    p[10] == bp_byte(h.alignment, 2) && p[11] == bp_byte(h.alignment, 3) &&
    p[12] == h.device_tag && p[13] == h.sync_mode && p[14] == h.memory_class &&
    p[15] == 0x00;

  // The first n handles of a list are valid (BP-ORDER-1 steps 2..8).
  predicate bp_list_valid{L}(hurray_buffer_handle *h, integer n) =
    \forall integer i; 0 <= i < n ==> bp_valid_handle(h[i]);

  // out holds, after its count byte, the wire forms of the first n handles
  // of h; the bytes read in state Lo, the handles in state Lh (BP-TABLE-1).
  predicate bp_table_encodes{Lo, Lh}(uint8_t *out, hurray_buffer_handle *h, integer n) =
    \forall integer i; 0 <= i < n ==> bp_encodes{Lo}(bp_table_handle(out, i), \at(h[i], Lh));

  // The 16 bytes of each of the first n handles of the table at `out` are
  // the same in states L1 and L2.
  predicate bp_table_bytes_kept{L1, L2}(uint8_t *out, integer n) =
    \forall integer i, k; 0 <= i < n && 0 <= k < 16 ==>
      \at(bp_table_handle(out, i)[k], L1) == \at(bp_table_handle(out, i)[k], L2);

  // A table encoded at `out` in state L1 is still encoded there in state L2
  // when the bytes of its handles did not change in between. A lemma, which
  // proofs/run-proofs has WP prove like any goal. It lets the encoding loop
  // carry the handles it wrote over the write of the next one.
  lemma bp_table_encodes_kept{L1, L2, Lh}:
    \forall uint8_t *out, hurray_buffer_handle *h, integer n;
      bp_table_bytes_kept{L1, L2}(out, n) ==>
      bp_table_encodes{L1, Lh}(out, h, n) ==> bp_table_encodes{L2, Lh}(out, h, n);

  // ---- Colocation (BP-COLOC-1, BP-COLOC-2) -------------------------------

  // The first n handles share the first one's device tag and memory class.
  predicate bp_colocated{L}(hurray_buffer_handle *h, integer n) =
    \forall integer i; 0 <= i < n ==>
      h[i].device_tag == h[0].device_tag && h[i].memory_class == h[0].memory_class;

  // ---- Buffer tables (BP-TABLE-1..5) --------------------------------------

  // The first n handles of the table are valid (BP-TABLE-5, BP-ORDER-1).
  predicate bp_table_handles_valid{L}(uint8_t *in, integer n) =
    \forall integer i; 0 <= i < n ==> bp_valid_wire_handle(bp_table_handle(in, i));

  // The first n handles share handle 0's device tag and class (BP-COLOC-1).
  predicate bp_table_colocated{L}(uint8_t *in, integer n) =
    \forall integer i; 0 <= i < n ==>
      bp_table_handle(in, i)[12] == bp_table_handle(in, 0)[12] &&
      bp_table_handle(in, i)[14] == bp_table_handle(in, 0)[14];

  // Bytes a table of n handles occupies (BP-TABLE-1).
  logic integer bp_table_size(integer n) = 1 + 16 * n;

  // BP-TABLE-1..3, BP-TABLE-5, BP-COLOC-1: a table a reader accepts at the
  // start of len bytes.
  predicate bp_valid_table{L}(uint8_t *in, integer len) =
    len >= 1 && in[0] >= 1 && len >= bp_table_size(in[0]) &&
    bp_table_handles_valid(in, in[0]) && bp_table_colocated(in, in[0]);

  // BP-COLOC-2: handle k is the first that differs from handle 0; its tag is
  // checked before its class. err in state Le, the table in state Lp.
  predicate bp_table_mismatch_at{Le, Lp}(integer st, hurray_error *err, uint8_t *in,
                                         integer k) =
    bp_table_colocated{Lp}(in, k) &&
    (bp_byte_at{Lp}(bp_table_handle(in, k), 12) != bp_byte_at{Lp}(bp_table_handle(in, 0), 12) ==>
       st == HURRAY_ERR_DEVICE_TAG_MISMATCH &&
       bp_error_is{Le}(err, st, bp_byte_at{Lp}(bp_table_handle(in, k), 12),
                       bp_byte_at{Lp}(bp_table_handle(in, 0), 12), k)) &&
    (bp_byte_at{Lp}(bp_table_handle(in, k), 12) == bp_byte_at{Lp}(bp_table_handle(in, 0), 12) ==>
       bp_byte_at{Lp}(bp_table_handle(in, k), 14) != bp_byte_at{Lp}(bp_table_handle(in, 0), 14) &&
       st == HURRAY_ERR_MEMORY_CLASS_MISMATCH &&
       bp_error_is{Le}(err, st, bp_byte_at{Lp}(bp_table_handle(in, k), 14),
                       bp_byte_at{Lp}(bp_table_handle(in, 0), 14), k));

  // Handles 0..n-1 are colocated (BP-COLOC-1) and, at k, the first mismatch
  // of a list (BP-COLOC-2).
  predicate bp_list_mismatch_at{L}(integer st, hurray_error *err, hurray_buffer_handle *h,
                                   integer k) =
    bp_colocated(h, k) &&
    (h[k].device_tag != h[0].device_tag ==>
       st == HURRAY_ERR_DEVICE_TAG_MISMATCH &&
       bp_error_is(err, st, h[k].device_tag, h[0].device_tag, k)) &&
    (h[k].device_tag == h[0].device_tag ==>
       h[k].memory_class != h[0].memory_class &&
       st == HURRAY_ERR_MEMORY_CLASS_MISMATCH &&
       bp_error_is(err, st, h[k].memory_class, h[0].memory_class, k));

  // ---- DLPack (BP-DLPACK-1, BP-DLPACK-2) ------------------------------------

  // BP-DLPACK-1: the DLDeviceType of a pair, 0 where DLPack has none.
  logic integer bp_dlpack_of_pair(integer t, integer c) =
    (t == 0x00 && 0x00 <= c <= 0x02) ? 1 :   // cpu: kDLCPU
    (t == 0x01 && c == 0x00) ? 2 :           // cuda standard: kDLCUDA
    (t == 0x01 && c == 0x01) ? 3 :           // cuda host_pinned: kDLCUDAHost
    (t == 0x01 && c == 0x02) ? 13 :          // cuda unified: kDLCUDAManaged
    (t == 0x02 && c == 0x00) ? 10 :          // rocm standard: kDLROCM
    (t == 0x02 && c == 0x01) ? 11 :          // rocm host_pinned: kDLROCMHost
    (t == 0x03 && 0x00 <= c <= 0x02) ? 8 :   // metal: kDLMetal
    (t == 0x04 && 0x00 <= c <= 0x02) ? 7 :   // vulkan: kDLVulkan
    (t == 0x05 && c == 0x00) ? 15 :          // webgpu standard: kDLWebGPU
    (t == 0x06 && 0x00 <= c <= 0x02) ? 16 :  // hexagon: kDLHexagon
    (t == 0x07 && 0x00 <= c <= 0x02) ? 14 :  // level_zero: kDLOneAPI
    (t == 0x08 && 0x00 <= c <= 0x02) ? 4 :   // opencl: kDLOpenCL
    0;

  // BP-DLPACK-2: the device tag and class a DLDeviceType maps back to, the
  // tag 0xFF where the type has no Hurray equivalent.
  logic integer bp_dlpack_tag(integer d) =
    d == 1 ? 0x00 : d == 2 ? 0x01 : d == 3 ? 0x01 : d == 13 ? 0x01 :
    d == 10 ? 0x02 : d == 11 ? 0x02 : d == 8 ? 0x03 : d == 7 ? 0x04 :
    d == 15 ? 0x05 : d == 16 ? 0x06 : d == 14 ? 0x07 : d == 4 ? 0x08 : 0xFF;
  logic integer bp_dlpack_class(integer d) =
    (d == 3 || d == 11) ? 0x01 : d == 13 ? 0x02 : 0x00;

  // ---- Transports (BP-XPORT-1..4) -----------------------------------------

  // BP-XPORT-3: the IPC capabilities assumed without a plugin.
  logic integer bp_default_ipc_capabilities(integer t) =
    (t == 0x01 || t == 0x02) ? 0x1 : 0x0;
*/

#endif /* HURRAY_PROOFS_MODEL_H */
