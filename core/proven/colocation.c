/*
 * Colocation: every buffer of one tensor shares one device_tag and one
 * memory_class (BP-COLOC-1, BP-COLOC-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

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
