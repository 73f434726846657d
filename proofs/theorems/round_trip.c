/*
 * Round trips of a handle's and a buffer table's wire forms as theorems
 * (issue 17 item 3, BP-WIRE-1, BP-WIRE-2, BP-TABLE-1): what the encoder
 * writes the decoder accepts and reads back field for field, and what the
 * decoder accepts the encoder writes back byte for byte.
 *
 * Each theorem is a function whose contract is the theorem and whose body
 * calls the library's encoder and decoder one after the other. WP proves the
 * body against their exported contracts (hurray/contracts.h), which the core
 * run proves of the compiled code (proofs/run-proofs checks the two texts
 * are the same), so a theorem holds of the library itself. The arithmetic
 * that links a value to its little-endian bytes is stated once below as
 * lemmas, which WP proves like any goal. They live here, in a Frama-C run
 * of their own, so that they are not hypotheses of every goal of the core
 * (a lemma is one, and extra hypotheses slow the provers down).
 * Nothing here is compiled into the library.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>

#include "hurray/contracts.h"

/*@
  // A value below 2^32 is the little-endian sum of its four bytes.
  lemma bp_le32_of_bytes:
    \forall integer v; 0 <= v <= 0xFFFFFFFF ==>
      bp_byte(v, 0) + 256 * (bp_byte(v, 1) + 256 * (bp_byte(v, 2) + 256 * bp_byte(v, 3))) == v;

  // The four low bytes of a value are those of its low 32 bits, the four
  // high bytes those of its high 32 bits: the 64-bit case is two 32-bit ones
  // (one statement over all eight bytes is more than Z3 and CVC4 prove).
  lemma bp_byte_0_low_half:
    \forall integer v; 0 <= v ==> bp_byte(v, 0) == bp_byte(v % 0x100000000, 0);
  lemma bp_byte_1_low_half:
    \forall integer v; 0 <= v ==> bp_byte(v, 1) == bp_byte(v % 0x100000000, 1);
  lemma bp_low_half_shift_2:
    \forall integer v; 0 <= v ==> (v % 0x100000000) / 0x10000 == v / 0x10000 % 0x10000;
  lemma bp_div_of_div:
    \forall integer x; 0 <= x ==> x / 0x1000000 == x / 0x10000 / 0x100;
  lemma bp_div_of_mod:
    \forall integer y; 0 <= y ==> y % 0x10000 / 0x100 == y / 0x100 % 0x100;
  lemma bp_low_half_shift_3:
    \forall integer v; 0 <= v ==> (v % 0x100000000) / 0x1000000 == v / 0x1000000 % 0x100;
  lemma bp_mod_of_mod:
    \forall integer x; 0 <= x ==> x % 0x10000 % 256 == x % 256;
  lemma bp_byte_2_low_half:
    \forall integer v; 0 <= v ==> bp_byte(v, 2) == bp_byte(v % 0x100000000, 2);
  lemma bp_byte_3_low_half:
    \forall integer v; 0 <= v ==> bp_byte(v, 3) == bp_byte(v % 0x100000000, 3);
  lemma bp_bytes_high_half:
    \forall integer v; 0 <= v ==>
      bp_byte(v, 4) == bp_byte(v / 0x100000000, 0) &&
      bp_byte(v, 5) == bp_byte(v / 0x100000000, 1) &&
      bp_byte(v, 6) == bp_byte(v / 0x100000000, 2) &&
      bp_byte(v, 7) == bp_byte(v / 0x100000000, 3);

  // A value below 2^64 is the little-endian sum of its eight bytes.
  lemma bp_le64_of_bytes:
    \forall integer v; 0 <= v <= 0xFFFFFFFFFFFFFFFF ==>
      bp_byte(v, 0) + 256 * (bp_byte(v, 1) + 256 * (bp_byte(v, 2) + 256 * (bp_byte(v, 3) +
      256 * (bp_byte(v, 4) + 256 * (bp_byte(v, 5) + 256 * (bp_byte(v, 6) +
      256 * bp_byte(v, 7))))))) == v;

  // Bytes stored from a value (what the encoder's contract states) read
  // back as that value (what the decoder's contract reads).
  lemma bp_le64_of_stored{L}:
    \forall uint8_t *p, integer v; 0 <= v <= 0xFFFFFFFFFFFFFFFF ==>
      p[0] == bp_byte(v, 0) && p[1] == bp_byte(v, 1) && p[2] == bp_byte(v, 2) &&
      p[3] == bp_byte(v, 3) && p[4] == bp_byte(v, 4) && p[5] == bp_byte(v, 5) &&
      p[6] == bp_byte(v, 6) && p[7] == bp_byte(v, 7) ==> bp_le64(p) == v;
  // The alignment's four bytes, at offset 8 of a handle as the model reads
  // them (bp_le32(p + 8)).
  lemma bp_le32_of_stored{L}:
    \forall uint8_t *p, integer v; 0 <= v <= 0xFFFFFFFF ==>
      p[8] == bp_byte(v, 0) && p[9] == bp_byte(v, 1) && p[10] == bp_byte(v, 2) &&
      p[11] == bp_byte(v, 3) ==> bp_le32(p + 8) == v;

  // The other direction: base 256 is unique, so a value's bytes are the
  // bytes it was read from. Linear arithmetic proves the integer form.
  lemma bp_digits4_unique:
    \forall integer a0, a1, a2, a3, b0, b1, b2, b3;
      0 <= a0 <= 255 && 0 <= a1 <= 255 && 0 <= a2 <= 255 && 0 <= a3 <= 255 &&
      0 <= b0 <= 255 && 0 <= b1 <= 255 && 0 <= b2 <= 255 && 0 <= b3 <= 255 ==>
      a0 + 256 * (a1 + 256 * (a2 + 256 * a3)) == b0 + 256 * (b1 + 256 * (b2 + 256 * b3)) ==>
      a0 == b0 && a1 == b1 && a2 == b2 && a3 == b3;
  lemma bp_byte_range:
    \forall integer v, k; 0 <= v ==> 0 <= bp_byte(v, k) <= 255;
  // Four bytes as integers, in a function of their own that the provers'
  // quantifiers can match: the handle's alignment is read at offset 8, where
  // they did not match a statement over memory (bp_le32(p + 8) against
  // p[8] timed out), and a value of eight bytes is two of four.
  logic integer bp_sum4(integer a0, integer a1, integer a2, integer a3) =
    a0 + 256 * (a1 + 256 * (a2 + 256 * a3));
  lemma bp_le32_is_sum4{L}:
    \forall uint8_t *p; bp_le32(p + 8) == bp_sum4(p[8], p[9], p[10], p[11]);
  lemma bp_byte_of_sum4:
    \forall integer a0, a1, a2, a3;
      0 <= a0 <= 255 && 0 <= a1 <= 255 && 0 <= a2 <= 255 && 0 <= a3 <= 255 ==>
      bp_byte(bp_sum4(a0, a1, a2, a3), 0) == a0 && bp_byte(bp_sum4(a0, a1, a2, a3), 1) == a1 &&
      bp_byte(bp_sum4(a0, a1, a2, a3), 2) == a2 && bp_byte(bp_sum4(a0, a1, a2, a3), 3) == a3;

  // The eight bytes of a value are its two halves' four (the lemmas
  // bp_byte_k_low_half and bp_bytes_high_half above): one statement over all
  // eight, base 256 unique for eight digits, took 4.5 s alone and timed out
  // at 60 s in the pool.
  lemma bp_split_halves:
    \forall integer lo, hi; 0 <= lo <= 0xFFFFFFFF && 0 <= hi ==>
      (lo + 0x100000000 * hi) % 0x100000000 == lo && (lo + 0x100000000 * hi) / 0x100000000 == hi;
  lemma bp_le64_low_half{L}:
    \forall uint8_t *p;
      0 <= p[0] <= 255 && 0 <= p[1] <= 255 && 0 <= p[2] <= 255 && 0 <= p[3] <= 255 &&
      0 <= p[4] <= 255 && 0 <= p[5] <= 255 && 0 <= p[6] <= 255 && 0 <= p[7] <= 255 ==>
      bp_le64(p) % 0x100000000 == bp_sum4(p[0], p[1], p[2], p[3]);
  lemma bp_le64_high_half{L}:
    \forall uint8_t *p;
      0 <= p[0] <= 255 && 0 <= p[1] <= 255 && 0 <= p[2] <= 255 && 0 <= p[3] <= 255 &&
      0 <= p[4] <= 255 && 0 <= p[5] <= 255 && 0 <= p[6] <= 255 && 0 <= p[7] <= 255 ==>
      bp_le64(p) / 0x100000000 == bp_sum4(p[4], p[5], p[6], p[7]);

  // Bytes read as a value (what the decoder's contract states) are that
  // value's bytes (what the encoder's contract writes).
  lemma bp_byte_of_le64{L}:
    \forall uint8_t *p;
      0 <= p[0] <= 255 && 0 <= p[1] <= 255 && 0 <= p[2] <= 255 && 0 <= p[3] <= 255 &&
      0 <= p[4] <= 255 && 0 <= p[5] <= 255 && 0 <= p[6] <= 255 && 0 <= p[7] <= 255 ==>
      bp_byte(bp_le64(p), 0) == p[0] && bp_byte(bp_le64(p), 1) == p[1] &&
      bp_byte(bp_le64(p), 2) == p[2] && bp_byte(bp_le64(p), 3) == p[3] &&
      bp_byte(bp_le64(p), 4) == p[4] && bp_byte(bp_le64(p), 5) == p[5] &&
      bp_byte(bp_le64(p), 6) == p[6] && bp_byte(bp_le64(p), 7) == p[7];
*/

/*@ // The five fields of a and b are equal (the reserved field is not on the wire).
  predicate bp_same_fields(hurray_buffer_handle a, hurray_buffer_handle b) =
    a.byte_size == b.byte_size && a.alignment == b.alignment &&
    a.device_tag == b.device_tag && a.sync_mode == b.sync_mode &&
    a.memory_class == b.memory_class;
*/

/*@ // The 16 bytes at p (state L1) are those at q (state L2), one by one
    // (sixteen equalities: a quantifier over the index would leave the
    // provers a case split they do not find).
  predicate bp_same_16{L1, L2}(uint8_t *p, uint8_t *q) =
    \at(p[0], L1) == \at(q[0], L2) && \at(p[1], L1) == \at(q[1], L2) &&
    \at(p[2], L1) == \at(q[2], L2) && \at(p[3], L1) == \at(q[3], L2) &&
    \at(p[4], L1) == \at(q[4], L2) && \at(p[5], L1) == \at(q[5], L2) &&
    \at(p[6], L1) == \at(q[6], L2) && \at(p[7], L1) == \at(q[7], L2) &&
    \at(p[8], L1) == \at(q[8], L2) && \at(p[9], L1) == \at(q[9], L2) &&
    \at(p[10], L1) == \at(q[10], L2) && \at(p[11], L1) == \at(q[11], L2) &&
    \at(p[12], L1) == \at(q[12], L2) && \at(p[13], L1) == \at(q[13], L2) &&
    \at(p[14], L1) == \at(q[14], L2) && \at(p[15], L1) == \at(q[15], L2);
*/

/* decode(encode(h)) == h: every valid handle reads back from its 16 bytes
 * field for field, and the decoder accepts them (BP-WIRE-1, BP-WIRE-2). */
/*@
  requires \valid_read(h) && bp_valid_handle(*h);
  requires \valid(back) && \separated(h, back);
  terminates \true;
  assigns *back;
  ensures accepted: \result == HURRAY_OK;  // BP-WIRE-2, BP-ORDER-1
  ensures same_fields: bp_same_fields(*back, \old(*h));  // BP-WIRE-1
*/
hurray_status round_trip_handle(const hurray_buffer_handle *h, hurray_buffer_handle *back) {
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_error err;
  hurray_buffer_handle_encode(h, wire);
  //@ assert size_read_back: bp_le64(&wire[0]) == h->byte_size;
  //@ assert alignment_read_back: bp_le32(&wire[8]) == h->alignment;
  return hurray_buffer_handle_decode(wire, back, &err);
}

/* The bytes the decoder accepts are the encoding of the handle it decoded
 * them to: the step from decoding to encoding, a theorem of its own so that
 * round_trip_bytes is equalities only (both steps in one function timed
 * out). The handle is the caller's: with a local one, the goals timed out. */
/*@
  requires \valid_read(wire + (0 .. 15)) && bp_valid_wire_handle(wire);
  requires \valid(h) && \separated(wire + (0 .. 15), h);
  terminates \true;
  assigns *h;
  ensures accepted: \result == HURRAY_OK;  // BP-WIRE-2, BP-ORDER-1
  ensures encoding: bp_encodes{Pre}(wire, *h);  // BP-WIRE-1
*/
hurray_status decode_is_encoding(const uint8_t *wire, hurray_buffer_handle *h) {
  hurray_error err;
  const hurray_status status = hurray_buffer_handle_decode(wire, h, &err);
  //@ assert size_decoded: h->byte_size == \at(bp_le64(wire), Pre);
  //@ assert alignment_decoded: h->alignment == \at(bp_le32(wire + 8), Pre);
  // The arithmetic, on the bytes alone, in the state the decoder read them
  // in (the lemmas bp_byte_of_le64, bp_le32_is_sum4 and bp_byte_of_sum4).
  /*@ assert size_bytes: \at(
        bp_byte(bp_le64(wire), 0) == wire[0] && bp_byte(bp_le64(wire), 1) == wire[1] &&
        bp_byte(bp_le64(wire), 2) == wire[2] && bp_byte(bp_le64(wire), 3) == wire[3] &&
        bp_byte(bp_le64(wire), 4) == wire[4] && bp_byte(bp_le64(wire), 5) == wire[5] &&
        bp_byte(bp_le64(wire), 6) == wire[6] && bp_byte(bp_le64(wire), 7) == wire[7], Pre); */
  /*@ assert alignment_bytes: \at(
        bp_byte(bp_le32(wire + 8), 0) == wire[8] && bp_byte(bp_le32(wire + 8), 1) == wire[9] &&
        bp_byte(bp_le32(wire + 8), 2) == wire[10] && bp_byte(bp_le32(wire + 8), 3) == wire[11],
        Pre); */
  return status;
}

/* encode(decode(b)) == b: the decoder accepts every 16 bytes that are a
 * valid handle, and the encoder writes them back byte for byte, so a valid
 * handle has exactly one wire form (BP-WIRE-1, BP-WIRE-2). */
/*@
  requires \valid_read(wire + (0 .. 15)) && bp_valid_wire_handle(wire);
  requires \valid(h) && \valid(again + (0 .. 15));
  requires \separated(wire + (0 .. 15), h, again + (0 .. 15));
  terminates \true;
  assigns *h, again[0 .. 15];
  ensures accepted: \result == HURRAY_OK;  // BP-WIRE-2, BP-ORDER-1
  ensures same_bytes: bp_same_16{Post, Pre}(again, wire);  // BP-WIRE-1, BP-WIRE-2
*/
hurray_status round_trip_bytes(const uint8_t *wire, hurray_buffer_handle *h, uint8_t *again) {
  const hurray_status status = decode_is_encoding(wire, h);
  hurray_buffer_handle_encode(h, again);
  return status;
}

/* ---- A buffer table's round trips (BP-TABLE-1, BP-WIRE-1) ----------------
 * The same two theorems for a table, built the same way: each step calls
 * one library function, and the step from one handle's bytes to its fields
 * and back is a lemma over one handle that the table's quantifiers use. */

/*@
  // The 16 bytes at p are bytes. WP gives the provers this of the memory a
  // function reads, not of the memory named in a lemma's statement.
  predicate bp_bytes_in_range{L}(uint8_t *p) =
    \forall integer k; 0 <= k < 16 ==> 0 <= p[k] <= 255;
  // Every field of the first n handles of a list is in its type's range
  // (the same, for the handles of a list).
  predicate bp_list_in_range{L}(hurray_buffer_handle *h, integer n) =
    \forall integer i; 0 <= i < n ==>
      0 <= h[i].byte_size <= 0xFFFFFFFFFFFFFFFF && 0 <= h[i].alignment <= 0xFFFFFFFF;

  // The bytes the encoder's contract states of a handle (bp_encodes) read
  // back as its fields, and a valid handle's bytes are a valid wire handle.
  lemma bp_encodes_reads_back{L}:
    \forall uint8_t *p, hurray_buffer_handle h;
      0 <= h.byte_size <= 0xFFFFFFFFFFFFFFFF && 0 <= h.alignment <= 0xFFFFFFFF ==>
      bp_encodes(p, h) ==> bp_le64(p) == h.byte_size && bp_le32(p + 8) == h.alignment;
  lemma bp_encodes_valid{L}:
    \forall uint8_t *p, hurray_buffer_handle h;
      0 <= h.byte_size <= 0xFFFFFFFFFFFFFFFF && 0 <= h.alignment <= 0xFFFFFFFF ==>
      bp_encodes(p, h) ==> bp_valid_handle(h) ==> bp_valid_wire_handle(p);

  // The same for every handle of a table: the encoder's contract states its
  // bytes in state L from the handles in state Lh (bp_table_encodes).
  lemma bp_table_encodes_valid{L, Lh}:
    \forall uint8_t *out, hurray_buffer_handle *h, integer n;
      bp_list_in_range{Lh}(h, n) ==> bp_table_encodes{L, Lh}(out, h, n) ==>
      bp_list_valid{Lh}(h, n) ==> bp_table_handles_valid{L}(out, n);
  lemma bp_table_encodes_colocated{L, Lh}:
    \forall uint8_t *out, hurray_buffer_handle *h, integer n;
      bp_table_encodes{L, Lh}(out, h, n) ==> bp_colocated{Lh}(h, n) ==>
      bp_table_colocated{L}(out, n);
  // The handles (state Lh) hold the field values of the table's bytes
  // (state L): bp_table_decoded, the decoder's own statement.
  lemma bp_table_encodes_decoded{L, Lh}:
    \forall uint8_t *out, hurray_buffer_handle *h, integer n;
      bp_list_in_range{Lh}(h, n) ==> bp_table_encodes{L, Lh}(out, h, n) ==>
      bp_table_decoded{Lh, L}(h, out, n);

  // The other direction, for one handle: the fields decoded from 16 valid
  // bytes are those bytes' encoding (what decode_is_encoding proves of the
  // library's decoder, here of its contract's statement).
  lemma bp_decoded_encodes{Lh, Lp}:
    \forall hurray_buffer_handle *h, uint8_t *p;
      bp_bytes_in_range{Lp}(p) ==> \at(p[15], Lp) == 0x00 ==>
      bp_decoded_from{Lh, Lp}(h, p) ==> bp_encodes{Lp}(p, \at(*h, Lh));
  lemma bp_table_decoded_encodes{Lh, Lp}:
    \forall hurray_buffer_handle *out, uint8_t *in, integer n;
      (\forall integer i; 0 <= i < n ==> bp_bytes_in_range{Lp}(bp_table_handle(in, i))) ==>
      bp_table_handles_valid{Lp}(in, n) ==> bp_table_decoded{Lh, Lp}(out, in, n) ==>
      bp_table_encodes{Lp, Lh}(in, out, n);
  // The decoder's statement indexes a table's handles as in + (1 + 16 * i),
  // the model's other predicates through bp_table_handle(in, i). This
  // bridges the two (without it the two below timed out at 60 s).
  lemma bp_table_decoded_at{Lh, Lp}:
    \forall hurray_buffer_handle *out, uint8_t *in, integer n;
      bp_table_decoded{Lh, Lp}(out, in, n) ==>
      \forall integer i; 0 <= i < n ==> bp_decoded_from{Lh, Lp}(out + i, bp_table_handle(in, i));
  // What the decoder's statement gives of valid, colocated handles' bytes
  // holds of the fields decoded from them.
  lemma bp_table_decoded_valid{Lh, Lp}:
    \forall hurray_buffer_handle *out, uint8_t *in, integer n;
      bp_table_handles_valid{Lp}(in, n) ==> bp_table_decoded{Lh, Lp}(out, in, n) ==>
      bp_list_valid{Lh}(out, n);
  lemma bp_table_decoded_colocated{Lh, Lp}:
    \forall hurray_buffer_handle *out, uint8_t *in, integer n;
      bp_table_colocated{Lp}(in, n) ==> bp_table_decoded{Lh, Lp}(out, in, n) ==>
      bp_colocated{Lh}(out, n);
  // Two handles' bytes that are the encoding of one handle are the same.
  lemma bp_encodes_same{L1, L2}:
    \forall uint8_t *p, uint8_t *q, hurray_buffer_handle h;
      bp_encodes{L1}(p, h) ==> bp_encodes{L2}(q, h) ==> bp_same_16{L1, L2}(p, q);
  lemma bp_table_encodes_same{L1, L2, Lh}:
    \forall uint8_t *p, uint8_t *q, hurray_buffer_handle *h, integer n;
      bp_table_encodes{L1, Lh}(p, h, n) ==> bp_table_encodes{L2, Lh}(q, h, n) ==>
      \forall integer i; 0 <= i < n ==>
        bp_same_16{L1, L2}(bp_table_handle(p, i), bp_table_handle(q, i));
*/

/* A list of 1 to 255 valid, colocated handles encodes to a table the exact
 * decoder accepts, whose handles' bytes hold the list's field values: the
 * step from encoding to decoding, in its own function as for a handle. */
/*@
  requires 1 <= n <= 255;
  requires \valid_read(list + (0 .. n - 1));
  requires bp_list_valid(list, n) && bp_colocated(list, n);
  requires \valid(table + (0 .. 16 * n)) && \valid(written) && \valid(err);
  requires \separated(list + (0 .. n - 1), table + (0 .. 16 * n), written, err);
  terminates \true;
  assigns table[0 .. 16 * n], *written;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  ensures encoded: \result == HURRAY_OK && *written == bp_table_size(n) && table[0] == n;
  ensures valid: bp_valid_table(table, bp_table_size(n));  // BP-TABLE-1..3, BP-TABLE-5, BP-COLOC-1
  ensures holds_fields: bp_table_decoded{Pre, Post}(list, table, n);  // BP-WIRE-1
*/
hurray_status encode_table_is_valid(const hurray_buffer_handle *list, size_t n, uint8_t *table,
                                    size_t *written, hurray_error *err) {
  //@ assert in_range: bp_list_in_range(list, n);
  return hurray_buffer_table_encode(list, n, table, 1 + 16 * n, written, err);
}

/* decode(encode(list)) == list for a buffer table: every list of 1 to 255
 * valid, colocated handles is encoded, the exact decoder accepts the bytes
 * written, and every handle reads back field for field (BP-TABLE-1,
 * BP-WIRE-1, BP-COLOC-1). */
/*@
  requires 1 <= n <= 255;
  requires \valid_read(list + (0 .. n - 1));
  requires bp_list_valid(list, n) && bp_colocated(list, n);
  requires \valid(table + (0 .. 16 * n)) && \valid(back + (0 .. n - 1));
  requires \valid(written) && \valid(count) && \valid(err);
  requires \separated(list + (0 .. n - 1), table + (0 .. 16 * n), back + (0 .. n - 1),
                      written, count, err);
  terminates \true;
  assigns table[0 .. 16 * n], back[0 .. n - 1], *written, *count;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  ensures accepted: \result == HURRAY_OK && *count == n;  // BP-TABLE-1
  ensures same_fields: \forall integer i; 0 <= i < n ==>
    bp_same_fields(back[i], \old(list[i]));  // BP-WIRE-1
*/
hurray_status round_trip_table(const hurray_buffer_handle *list, size_t n, uint8_t *table,
                               hurray_buffer_handle *back, size_t *written, size_t *count,
                               hurray_error *err) {
  (void)encode_table_is_valid(list, n, table, written, err);
encoded:;
  const hurray_status status = hurray_buffer_table_decode_exact(table, *written, back, n, count,
                                                                err);
  //@ assert decoded: bp_table_decoded{Here, encoded}(back, table, n);
  /*@ assert fields: \forall integer i; 0 <= i < n ==>
        bp_decoded_from{Here, encoded}(back + i, table + (1 + 16 * i)) &&
        bp_decoded_from{Pre, encoded}(list + i, table + (1 + 16 * i)); */
  return status;
}

/* The handles the exact decoder accepts from a table are a valid, colocated
 * list whose encoding is the table's handles' bytes: the step from decoding
 * to encoding, as decode_is_encoding is for one handle. */
/*@
  requires 1 <= n <= 255;
  requires \valid_read(in + (0 .. 16 * n)) && in[0] == n && bp_valid_table(in, 1 + 16 * n);
  requires \valid(list + (0 .. n - 1)) && \valid(count) && \valid(err);
  requires \separated(in + (0 .. 16 * n), list + (0 .. n - 1), count, err);
  terminates \true;
  assigns list[0 .. n - 1], *count;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  ensures accepted: \result == HURRAY_OK && *count == n;  // BP-TABLE-1..6, BP-COLOC-1
  ensures valid: bp_list_valid(list, n) && bp_colocated(list, n);  // BP-ORDER-1, BP-COLOC-1
  ensures encoding: bp_table_encodes{Pre, Post}(in, list, n);  // BP-WIRE-1
*/
hurray_status decode_table_is_encoding(const uint8_t *in, size_t n, hurray_buffer_handle *list,
                                       size_t *count, hurray_error *err) {
  /*@ assert bytes: \forall integer i; 0 <= i < n ==>
        bp_bytes_in_range(bp_table_handle(in, i)); */
  const hurray_status status = hurray_buffer_table_decode_exact(in, 1 + 16 * n, list, n, count,
                                                                err);
  //@ assert decoded: bp_table_decoded{Here, Pre}(list, in, n);
  return status;
}

/* encode(decode_exact(table)) == table: the exact decoder accepts every
 * valid table (count 1 to 255, valid and colocated handles, no byte after
 * them), and the encoder writes its count and every handle's 16 bytes back
 * as they were, so a valid table has exactly one wire form (BP-TABLE-1,
 * BP-WIRE-1, BP-WIRE-2). */
/*@
  requires 1 <= n <= 255;
  requires \valid_read(in + (0 .. 16 * n)) && in[0] == n && bp_valid_table(in, 1 + 16 * n);
  requires \valid(list + (0 .. n - 1)) && \valid(again + (0 .. 16 * n));
  requires \valid(count) && \valid(written) && \valid(err);
  requires \separated(in + (0 .. 16 * n), list + (0 .. n - 1), again + (0 .. 16 * n),
                      count, written, err);
  terminates \true;
  assigns list[0 .. n - 1], again[0 .. 16 * n], *count, *written;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  ensures accepted: \result == HURRAY_OK && *written == 1 + 16 * n;  // BP-TABLE-1
  ensures same_count: again[0] == \old(in[0]);  // BP-TABLE-1
  ensures same_bytes: \forall integer i; 0 <= i < n ==>
    bp_same_16{Post, Pre}(bp_table_handle(again, i), bp_table_handle(in, i));  // BP-WIRE-1
*/
hurray_status round_trip_table_bytes(const uint8_t *in, size_t n, hurray_buffer_handle *list,
                                     uint8_t *again, size_t *count, size_t *written,
                                     hurray_error *err) {
  (void)decode_table_is_encoding(in, n, list, count, err);
decoded:;
  const hurray_status status = hurray_buffer_table_encode(list, n, again, 1 + 16 * n, written,
                                                          err);
  //@ assert encoded: bp_table_encodes{Here, decoded}(again, list, n);
  //@ assert was_encoding: bp_table_encodes{Pre, decoded}(in, list, n);
  return status;
}
