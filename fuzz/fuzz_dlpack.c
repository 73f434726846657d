/*
 * Fuzz target dlpack: the DLPack device-type mapping both ways
 * (BP-DLPACK-1, BP-DLPACK-2).
 *
 * Input: byte 0 device_tag, byte 1 memory_class, bytes 2..5 a DLDeviceType
 * (little-endian int32; missing bytes read as 0).
 *
 * Oracle: export and import agree with the rows of the spec's table
 * (fuzz/reference_decoder.c); export never maps a pair the validity table
 * rejects; export then import gives back the tag, and the class except where
 * several classes share one DLPack value (then standard); import then export
 * gives back the same DLDeviceType; NULL outputs are refused.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

static void check_export(uint8_t tag, uint8_t memory_class) {
  int32_t want = ref_dlpack_export(tag, memory_class);
  int32_t type = -7;
  hurray_error err;
  ref_error_poison(&err);
  hurray_status s = hurray_dlpack_device_type_from_pair(tag, memory_class, &type, &err);
  if (want == 0) {
    FUZZ_CHECK(
        ref_verdict_matches(ref_fail(HURRAY_ERR_UNSUPPORTED, memory_class, tag, 0), s, &err));
    FUZZ_CHECK(type == -7);
    return;
  }
  FUZZ_CHECK(s == HURRAY_OK && type == want && ref_error_is_poisoned(&err));
  FUZZ_CHECK(ref_pair_valid(tag, memory_class));
  FUZZ_CHECK(hurray_dlpack_device_type_from_pair(tag, memory_class, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2);

  uint8_t back_tag = 0xEE;
  uint8_t back_class = 0xEE;
  FUZZ_CHECK(hurray_dlpack_device_type_to_pair(type, &back_tag, &back_class, NULL) == HURRAY_OK);
  FUZZ_CHECK(back_tag == tag);
  /* The class survives exactly when no other class of this device shares
   * the DLPack value. */
  bool shared = false;
  for (unsigned c = 0; c <= 3; c++) {
    shared = shared || (c != memory_class && ref_dlpack_export(tag, (uint8_t)c) == type);
  }
  FUZZ_CHECK(back_class == (shared ? HURRAY_MEMORY_STANDARD : memory_class));
}

static void check_import(int32_t type) {
  uint8_t want_tag = 0;
  uint8_t want_class = 0;
  bool known = ref_dlpack_import(type, &want_tag, &want_class);
  uint8_t tag = 0xEE;
  uint8_t memory_class = 0xEE;
  hurray_error err;
  ref_error_poison(&err);
  hurray_status s = hurray_dlpack_device_type_to_pair(type, &tag, &memory_class, &err);
  if (!known) {
    FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_UNSUPPORTED, (uint64_t)(int64_t)type, 0, 0),
                                   s, &err));
    FUZZ_CHECK(tag == 0xEE && memory_class == 0xEE);
    return;
  }
  FUZZ_CHECK(s == HURRAY_OK && ref_error_is_poisoned(&err));
  FUZZ_CHECK(tag == want_tag && memory_class == want_class);
  FUZZ_CHECK(hurray_pair_is_valid(tag, memory_class));
  int32_t again = 0;
  FUZZ_CHECK(hurray_dlpack_device_type_from_pair(tag, memory_class, &again, NULL) == HURRAY_OK &&
             again == type);
  FUZZ_CHECK(hurray_dlpack_device_type_to_pair(type, NULL, &memory_class, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 1);
  FUZZ_CHECK(hurray_dlpack_device_type_to_pair(type, &tag, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t input[6] = {0};
  memcpy(input, data, size < sizeof input ? size : sizeof input);
  check_export(input[0], input[1]);
  check_import((int32_t)fuzz_read_u32(input + 2));
  return 0;
}

FUZZ_ORACLE_END
