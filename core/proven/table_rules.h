/*
 * The buffer table readers' rules in logic (BP-TABLE-2..8, BP-COLOC-2,
 * BP-ORDER-1): what a reader may touch, when it accepts a table, and the
 * first rule a refused one breaks with the error it is reported with. The
 * readers of wire.c and table_flags.c state their contracts in them.
 * Internal to the core; proofs/export-contracts copies the logic into
 * include/hurray/contracts.h for integrators.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_TABLE_RULES_H
#define HURRAY_CORE_TABLE_RULES_H

#include <stddef.h>
#include "hurray/buffer.h"

/*@
  // The bytes a reader of len bytes reads at in: the count byte and the
  // handles it declares, never past len (BP-TABLE-2).
  logic integer bp_table_extent{L}(uint8_t *in, integer len) =
    \min(len, bp_table_size(in[0]));

  // What a table reader reads and writes: in[0 .. extent), out[0 .. the
  // smaller of cap and 255), *count and *err, each NULL or valid, and each
  // apart from the others.
  predicate bp_table_reader_frame{L}(uint8_t *in, integer len, hurray_buffer_handle *out,
                                     integer cap, size_t *count, hurray_error *err) =
    (in != \null && len >= 1 ==> \valid_read(in + (0 .. bp_table_extent(in, len) - 1))) &&
    (out != \null ==> \valid(out + (0 .. \min(cap, 255) - 1))) &&
    (err == \null || \valid(err)) &&
    (count == \null || \valid(count)) &&
    (in != \null && len >= 1 && out != \null ==>
       \separated(in + (0 .. bp_table_extent(in, len) - 1), out + (0 .. \min(cap, 255) - 1))) &&
    (in != \null && len >= 1 ==> \separated(in + (0 .. bp_table_extent(in, len) - 1), err)) &&
    (out != \null ==> \separated(out + (0 .. \min(cap, 255) - 1), err)) &&
    (count != \null ==> \separated(count, err)) &&
    (count != \null && out != \null ==> \separated(count, out + (0 .. \min(cap, 255) - 1))) &&
    (count != \null && in != \null && len >= 1 ==>
       \separated(count, in + (0 .. bp_table_extent(in, len) - 1)));

  // What a pass over the n handles of a table (1 to 255 of them, BP-TABLE-1)
  // reads and writes: the table's bytes, and *err when it is not NULL.
  predicate bp_table_checker_frame{L}(uint8_t *in, integer n, hurray_error *err) =
    1 <= n <= 255 && \valid_read(in + (0 .. bp_table_size(n) - 1)) &&
    (err == \null || \valid(err)) && \separated(in + (0 .. bp_table_size(n) - 1), err);

  // BP-TABLE-1..5, BP-COLOC-1: a reader given in, out and count, with room
  // for cap handles, accepts the table at the start of len bytes.
  predicate bp_table_accepted{L}(uint8_t *in, integer len, hurray_buffer_handle *out,
                                 integer cap, size_t *count) =
    in != \null && out != \null && count != \null && bp_valid_table(in, len) && cap >= in[0];

  // BP-TABLE-2..5, BP-COLOC-2, BP-ORDER-1: the first rule the table at the
  // start of len bytes breaks, in the order a reader with room for cap
  // handles checks them, and the status st and error *err it is reported
  // with (err in state Le, the bytes in state Lp).
  predicate bp_table_refusal{Le, Lp}(integer st, hurray_error *err, uint8_t *in, integer len,
                                     integer cap) =
    len < 1 ? st == HURRAY_ERR_TRUNCATED && bp_error_is{Le}(err, st, len, 1, 0) :
    len < bp_table_size(\at(in[0], Lp)) ?
      st == HURRAY_ERR_TRUNCATED &&
      bp_error_is{Le}(err, st, len, bp_table_size(\at(in[0], Lp)), 0) :
    \at(in[0], Lp) == 0 ? st == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is{Le}(err, st, 0, 1, 0) :
    cap < \at(in[0], Lp) ?
      st == HURRAY_ERR_CAPACITY && bp_error_is{Le}(err, st, \at(in[0], Lp), cap, 0) :
    !bp_table_handles_valid{Lp}(in, \at(in[0], Lp)) ?
      (\exists integer k; 0 <= k < \at(in[0], Lp) && bp_table_handles_valid{Lp}(in, k) &&
         bp_wire_rejected{Le, Lp}(st, err, k, bp_table_handle(in, k))) :
      (\exists integer k; 1 <= k < \at(in[0], Lp) && bp_table_mismatch_at{Le, Lp}(st, err, in, k));

  // hurray_buffer_table_decode()'s refusals in one predicate: a NULL in,
  // out or count first (error index 0, 2, 4), then the table's first
  // broken rule, *count left as it was.
  predicate bp_table_reader_refusal{Le, Lp}(integer st, hurray_error *err, uint8_t *in,
                                            integer len, hurray_buffer_handle *out, integer cap,
                                            size_t *count) =
    in == \null ? st == HURRAY_ERR_NULL_ARGUMENT && bp_error_is{Le}(err, st, 0, 0, 0) :
    out == \null ? st == HURRAY_ERR_NULL_ARGUMENT && bp_error_is{Le}(err, st, 0, 0, 2) :
    count == \null ? st == HURRAY_ERR_NULL_ARGUMENT && bp_error_is{Le}(err, st, 0, 0, 4) :
    \at(*count, Le) == \at(*count, Lp) && bp_table_refusal{Le, Lp}(st, err, in, len, cap);
*/

#endif /* HURRAY_CORE_TABLE_RULES_H */
