/*
 * Colocation: every buffer of one tensor shares one device_tag and one
 * memory_class (BP-COLOC-1, BP-COLOC-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

/*@
  requires n == 0 || handles == \null || \valid_read(handles + (0 .. n - 1));
  requires out_device == \null || \valid(out_device);
  requires err == \null || \valid(err);
  requires n > 0 && handles != \null ==> \separated(handles + (0 .. n - 1), err);
  requires n > 0 && handles != \null && out_device != \null ==>
             \separated(handles + (0 .. n - 1), out_device);
  requires out_device != \null ==> \separated(out_device, err);
  terminates \true;
  assigns *out_device, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior empty:  // BP-COLOC-2
    assumes n == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures out_device != \null ==> *out_device == \old(*out_device);
  behavior no_handles:
    assumes n > 0 && handles == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
    ensures out_device != \null ==> *out_device == \old(*out_device);
  behavior colocated:  // BP-COLOC-1
    assumes n > 0 && handles != \null && bp_colocated(handles, n);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
    ensures out_device != \null ==> *out_device == handles[0].device_tag;
  behavior not_colocated:  // BP-COLOC-2: the first mismatch, tag before class
    assumes n > 0 && handles != \null && !bp_colocated(handles, n);
    ensures \exists integer k; 1 <= k < n && bp_list_mismatch_at(\result, err, handles, k);
    ensures out_device != \null ==> *out_device == \old(*out_device);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_validate_colocation(const hurray_buffer_handle *handles, size_t n,
                                         hurray_device_tag *out_device, hurray_error *err) {
  if (n == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  if (handles == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  const hurray_device_tag tag0 = handles[0].device_tag;
  const hurray_memory_class class0 = handles[0].memory_class;
  /*@
    loop invariant 1 <= i <= n;
    loop invariant bp_colocated(handles, i);
    loop assigns i;
    loop variant n - i;
  */
  for (size_t i = 1; i < n; i++) {
    if (handles[i].device_tag != tag0) {
      return hurray_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, handles[i].device_tag, tag0, i);
    }
    if (handles[i].memory_class != class0) {
      return hurray_fail(err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, handles[i].memory_class, class0,
                         i);
    }
  }
  if (out_device != NULL) {
    *out_device = tag0;
  }
  return HURRAY_OK;
}
