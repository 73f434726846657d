/*
 * Proof harness, not part of the library: decoding what the encoder wrote
 * gives back the handle (BP-WIRE-1, BP-WIRE-2, BP-ORDER-1). The proof uses
 * only the contracts of hurray_buffer_handle_encode() and
 * hurray_buffer_handle_decode(), so it is a theorem about the API.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/buffer.h"

/*@
  requires \valid_read(h) && \valid(back) && \separated(h, back);
  terminates \true;
  assigns *back;
  ensures bp_valid_handle(\old(*h)) ==>
            \result == HURRAY_OK && back->byte_size == \old(h->byte_size) &&
            back->alignment == \old(h->alignment) && back->device_tag == \old(h->device_tag) &&
            back->sync_mode == \old(h->sync_mode) &&
            back->memory_class == \old(h->memory_class);  // BP-WIRE-1
  ensures !bp_valid_handle(\old(*h)) ==>
            \result != HURRAY_OK &&
            bp_fields_rejected(\result, \null, 0, \old(h->byte_size), \old(h->alignment),
                               \old(h->device_tag), \old(h->sync_mode),
                               \old(h->memory_class));  // BP-ORDER-1
*/
hurray_status hurray_proof_decode_after_encode(const hurray_buffer_handle *h,
                                               hurray_buffer_handle *back) {
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(h, wire);
  return hurray_buffer_handle_decode(wire, back, NULL);
}
