/*
 * An integrator's code, proven with Frama-C WP against libhurray's exported
 * contracts (include/hurray/contracts.h) and nothing else: the library's
 * sources are not part of this proof. proofs/run-proofs proves it in both
 * data models after the core; docs/proving-against-libhurray.md walks
 * through it.
 *
 * The function is what a consumer typically writes at its boundary: keep a
 * buffer only when it is host memory it can read (device cpu, BP-DEV-1) in
 * a valid (device, memory class) pair (BP-PAIR-1) within its byte budget.
 * Its contract is stated in the model's terms, so the proof shows that the
 * library's contracts are strong enough to establish it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/contracts.h"

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures fits: \result == 1 <==>
    handle->device_tag == HURRAY_DEVICE_CPU &&
    bp_valid_pair(handle->device_tag, handle->memory_class) &&
    handle->byte_size <= max_bytes;
  ensures boolean: \result == 0 || \result == 1;
*/
int example_host_buffer_fits(const hurray_buffer_handle *handle, uint64_t max_bytes) {
  const hurray_device_tag tag = hurray_buffer_handle_device_tag(handle);
  if (tag != HURRAY_DEVICE_CPU) {
    return 0;
  }
  if (!hurray_pair_is_valid(tag, hurray_buffer_handle_memory_class(handle))) {
    return 0;
  }
  return hurray_buffer_handle_byte_size(handle) <= max_bytes ? 1 : 0;
}
