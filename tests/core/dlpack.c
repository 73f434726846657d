/*
 * The DLPack mapping both ways: all 65,536 (device_tag, memory_class) pairs
 * exported against the table of BP-DLPACK-1, every DLDeviceType in a wide
 * range imported against BP-DLPACK-2, and the round trip.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <limits.h>
#include <stdio.h>

#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(dlpack_export_all_65536_pairs) {
  unsigned mapped = 0;
  for (unsigned tag = 0; tag < 256; tag++) {
    for (unsigned cls = 0; cls < 256; cls++) {
      int32_t want = spec_dlpack_type((uint8_t)tag, (uint8_t)cls);
      int32_t type = -12345;
      hurray_error err = junk_error();
      hurray_status status =
          hurray_dlpack_device_type_from_pair((uint8_t)tag, (uint8_t)cls, &type, &err);
      char what[64];
      snprintf(what, sizeof what, "export(0x%02X, 0x%02X)", tag, cls);
      if (want != 0) {
        REQUIRE(status == HURRAY_OK && type == want, "%s: %s, type %d, want %d", what,
                hurray_status_name(status), type, want);
        mapped++;
      } else { /* never a guess: UNSUPPORTED, value the class, expected the tag */
        require_error(what, status, &err, HURRAY_ERR_UNSUPPORTED, cls, tag, ANY_INDEX);
        REQUIRE(type == -12345, "%s: out written on failure", what);
      }
    }
  }
  ck_assert_uint_eq(mapped, 24); /* the rows of the BP-DLPACK-1 table, expanded */
  /* The spec's named DLPack values. */
  ck_assert_int_eq(HURRAY_DLPACK_CPU, 1);
  ck_assert_int_eq(HURRAY_DLPACK_CUDA, 2);
  ck_assert_int_eq(HURRAY_DLPACK_CUDA_HOST, 3);
  ck_assert_int_eq(HURRAY_DLPACK_OPENCL, 4);
  ck_assert_int_eq(HURRAY_DLPACK_VULKAN, 7);
  ck_assert_int_eq(HURRAY_DLPACK_METAL, 8);
  ck_assert_int_eq(HURRAY_DLPACK_ROCM, 10);
  ck_assert_int_eq(HURRAY_DLPACK_ROCM_HOST, 11);
  ck_assert_int_eq(HURRAY_DLPACK_CUDA_MANAGED, 13);
  ck_assert_int_eq(HURRAY_DLPACK_ONEAPI, 14);
  ck_assert_int_eq(HURRAY_DLPACK_WEBGPU, 15);
  ck_assert_int_eq(HURRAY_DLPACK_HEXAGON, 16);
}
END_TEST

/* BP-DLPACK-2: the pair each DLDeviceType of the table maps back to. */
static bool spec_dlpack_import(int32_t type, uint8_t *tag, uint8_t *cls) {
  static const struct {
    int32_t type;
    uint8_t tag, cls;
  } rows[] = {{1, 0x00, 0x00},  {2, 0x01, 0x00},  {3, 0x01, 0x01},  {13, 0x01, 0x02},
              {10, 0x02, 0x00}, {11, 0x02, 0x01}, {8, 0x03, 0x00},  {7, 0x04, 0x00},
              {15, 0x05, 0x00}, {16, 0x06, 0x00}, {14, 0x07, 0x00}, {4, 0x08, 0x00}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].type == type) {
      *tag = rows[i].tag;
      *cls = rows[i].cls;
      return true;
    }
  }
  return false;
}

static void require_import(int32_t type) {
  uint8_t want_tag = 0;
  uint8_t want_cls = 0;
  bool known = spec_dlpack_import(type, &want_tag, &want_cls);
  hurray_device_tag tag = 0x77;
  hurray_memory_class cls = 0x77;
  hurray_error err = junk_error();
  hurray_status status = hurray_dlpack_device_type_to_pair(type, &tag, &cls, &err);
  char what[48];
  snprintf(what, sizeof what, "import(%d)", (int)type);
  if (known) {
    REQUIRE(status == HURRAY_OK && tag == want_tag && cls == want_cls,
            "%s: %s, pair (0x%02X, 0x%02X), want (0x%02X, 0x%02X)", what,
            hurray_status_name(status), tag, cls, want_tag, want_cls);
    /* And back: the imported pair exports to the same type. */
    int32_t again = 0;
    REQUIRE(hurray_dlpack_device_type_from_pair(tag, cls, &again, NULL) == HURRAY_OK &&
                again == type,
            "%s: does not export back", what);
  } else {
    REQUIRE(status == HURRAY_ERR_UNSUPPORTED, "%s: %s", what, hurray_status_name(status));
    REQUIRE(err.status == HURRAY_ERR_UNSUPPORTED && (int64_t)err.value == (int64_t)type,
            "%s: value %lld", what, (long long)(int64_t)err.value);
    REQUIRE(tag == 0x77 && cls == 0x77, "%s: out written on failure", what);
  }
}

START_TEST(dlpack_import_every_type) {
  for (int32_t type = -300; type <= 3000; type++) require_import(type);
  require_import(INT32_MIN);
  require_import(INT32_MAX);
  require_import(INT32_MIN + 1);
}
END_TEST

START_TEST(dlpack_export_import_round_trip) {
  /* Export then import: the device comes back, and the class too where the
   * DLPack name carries it; otherwise standard (BP-DLPACK-2). */
  for (unsigned tag = 0; tag < 256; tag++) {
    for (unsigned cls = 0; cls < 256; cls++) {
      int32_t type;
      if (hurray_dlpack_device_type_from_pair((uint8_t)tag, (uint8_t)cls, &type, NULL) != HURRAY_OK)
        continue;
      hurray_device_tag back_tag;
      hurray_memory_class back_cls;
      ck_assert_int_eq(hurray_dlpack_device_type_to_pair(type, &back_tag, &back_cls, NULL),
                       HURRAY_OK);
      ck_assert_uint_eq(back_tag, tag);
      bool named_class = type == 3 || type == 11 || type == 13;
      REQUIRE(back_cls == (named_class ? cls : 0u), "class of (0x%02X, 0x%02X) after round trip",
              tag, cls);
    }
  }
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("DLPack", "DLPack", SWEEP_TIMEOUT_S, dlpack_export_all_65536_pairs,
                           dlpack_import_every_type, dlpack_export_import_round_trip);
}
