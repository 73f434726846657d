/*
 * BP-DLPACK-3: the DLPack structs of include/hurray/dlpack.h have DLPack's
 * standard LP64 layout, also when compiled with -fshort-enums (this file is,
 * see meson.build), because no field has a C enum type. The header asserts
 * the same at compile time; this checks at run time with the spec's numbers
 * and shows that the flag was in effect.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdio.h>

#include "hurray/dlpack.h"

static int failures;

static void check(const char *what, size_t got, size_t want) {
  if (got != want) {
    printf("FAIL %s: %zu, DLPack has %zu\n", what, got, want);
    failures++;
  }
}

int main(void) {
  enum one_byte_if_short { ONLY_VALUE = 1 };
  if (sizeof(enum one_byte_if_short) != 1u) {
    printf("FAIL: -fshort-enums is not in effect (a small enum is %zu bytes)\n",
           sizeof(enum one_byte_if_short));
    return 1;
  }
  check("sizeof DLDevice", sizeof(hurray_dl_device), 8);
  check("DLDevice.device_type", sizeof(((hurray_dl_device *)0)->device_type), 4);
  check("sizeof DLDataType", sizeof(hurray_dl_data_type), 4);
  check("sizeof DLPackVersion", sizeof(hurray_dl_pack_version), 8);
  if (sizeof(void *) == 8u) {
    check("DLTensor.device", offsetof(hurray_dl_tensor, device), 8);
    check("DLTensor.ndim", offsetof(hurray_dl_tensor, ndim), 16);
    check("DLTensor.dtype", offsetof(hurray_dl_tensor, dtype), 20);
    check("DLTensor.shape", offsetof(hurray_dl_tensor, shape), 24);
    check("DLTensor.strides", offsetof(hurray_dl_tensor, strides), 32);
    check("DLTensor.byte_offset", offsetof(hurray_dl_tensor, byte_offset), 40);
    check("sizeof DLTensor", sizeof(hurray_dl_tensor), 48);
    check("DLManagedTensor.manager_ctx", offsetof(hurray_dl_managed_tensor, manager_ctx), 48);
    check("DLManagedTensor.deleter", offsetof(hurray_dl_managed_tensor, deleter), 56);
    check("sizeof DLManagedTensor", sizeof(hurray_dl_managed_tensor), 64);
    check("DLManagedTensorVersioned.manager_ctx",
          offsetof(hurray_dl_managed_tensor_versioned, manager_ctx), 8);
    check("DLManagedTensorVersioned.deleter", offsetof(hurray_dl_managed_tensor_versioned, deleter),
          16);
    check("DLManagedTensorVersioned.flags", offsetof(hurray_dl_managed_tensor_versioned, flags),
          24);
    check("DLManagedTensorVersioned.dl_tensor",
          offsetof(hurray_dl_managed_tensor_versioned, dl_tensor), 32);
    check("sizeof DLManagedTensorVersioned", sizeof(hurray_dl_managed_tensor_versioned), 80);
    check("sizeof hurray_dlpack_layout", sizeof(hurray_dlpack_layout), 32);
  } else {
    printf("not LP64: only the pointer-free structs were checked\n");
  }
  check("READ_ONLY bit", (size_t)HURRAY_DLPACK_FLAG_READ_ONLY, 1);
  check("IS_COPIED bit", (size_t)HURRAY_DLPACK_FLAG_IS_COPIED, 2);
  if (failures == 0) {
    printf("DLPack layout as the standard one (LP64: %s)\n", sizeof(void *) == 8u ? "yes" : "no");
  }
  return failures == 0 ? 0 : 1;
}
