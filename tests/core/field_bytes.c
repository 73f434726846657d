/*
 * Every value of every byte field: device_tag, sync_mode, memory_class and
 * the reserved byte (256 each), through the byte conversions, the names and
 * display forms, and inside a decoded handle; and all 65,536 (device_tag,
 * memory_class) pairs against the table of BP-PAIR-1 as the spec prints it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

/* Decodes one handle built from the given fields and checks the spec's
 * answer (BP-ORDER-1), the payload, and that out is written exactly on
 * success with the fields given. */
static void require_decode(const char *what, uint64_t byte_size, uint32_t alignment, uint8_t tag,
                           uint8_t sync, uint8_t memory_class, uint8_t reserved) {
  uint8_t wire[16];
  spec_put_handle(wire, byte_size, alignment, tag, sync, memory_class, reserved);
  hurray_buffer_handle out;
  memset(&out, 0x5A, sizeof out);
  hurray_buffer_handle untouched = out;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_handle_decode(wire, &out, &err);
  spec_verdict want = spec_handle_verdict(byte_size, alignment, tag, sync, memory_class, reserved);
  char name[160];
  snprintf(name, sizeof name, "%s (tag 0x%02X sync 0x%02X class 0x%02X reserved 0x%02X)", what, tag,
           sync, memory_class, reserved);
  require_verdict(name, status, &err, want, 0);
  if (want.status == HURRAY_OK) {
    REQUIRE(out.byte_size == byte_size && out.alignment == alignment && out.device_tag == tag &&
                out.sync_mode == sync && out.memory_class == memory_class,
            "%s: decoded fields differ from the wire", name);
  } else {
    REQUIRE(memcmp(&out, &untouched, sizeof out) == 0, "%s: out written on failure", name);
  }
}

/* A byte field whose values are named, reserved, private or invalid: a
 * named or private byte converts to itself, any other is refused with the
 * field's status for its range and the byte as the value. */
typedef struct ranged_field {
  const char *from_byte_name;
  hurray_status (*from_byte)(uint8_t byte, uint8_t *out, hurray_error *err);
  hurray_bool32 (*is_private)(uint8_t byte);
  spec_range (*range_of)(uint8_t byte);
  hurray_status reserved;
  hurray_status invalid;
} ranged_field;

/* BP-DEV-1, BP-DEV-3 converted; BP-DEV-2 reserved; BP-DEV-4 invalid. */
static const ranged_field device_tag_field = {
    "device_tag_from_byte", hurray_device_tag_from_byte,    hurray_device_tag_is_private,
    spec_device_tag_range,  HURRAY_ERR_RESERVED_DEVICE_TAG, HURRAY_ERR_INVALID_DEVICE_TAG};

/* BP-MEM-1, BP-MEM-2 converted; BP-MEM-3 reserved or invalid. */
static const ranged_field memory_class_field = {
    "memory_class_from_byte", hurray_memory_class_from_byte,    hurray_memory_class_is_private,
    spec_memory_class_range,  HURRAY_ERR_RESERVED_MEMORY_CLASS, HURRAY_ERR_INVALID_MEMORY_CLASS};

/* Converts `byte` of `field` and checks the answer, out untouched on
 * failure, and is_private; `what` gets the call's name for the caller's
 * own messages. */
static void require_conversion(const ranged_field *field, uint8_t byte, char *what,
                               size_t what_size) {
  spec_range range = field->range_of(byte);
  uint8_t out = 0x5A;
  hurray_error err = junk_error();
  hurray_status status = field->from_byte(byte, &out, &err);
  snprintf(what, what_size, "%s(0x%02X)", field->from_byte_name, (unsigned)byte);
  if (range == SPEC_NAMED || range == SPEC_PRIVATE) {
    REQUIRE(status == HURRAY_OK && out == byte, "%s: %s", what, hurray_status_name(status));
  } else {
    hurray_status want = range == SPEC_RESERVED ? field->reserved : field->invalid;
    require_status_value(what, status, &err, want, byte, 0);
    REQUIRE(out == 0x5A, "%s: out written on failure", what);
  }
  REQUIRE(field->is_private(byte) == (range == SPEC_PRIVATE), "%s: is_private", what);
}

/* `byte` is called `name`, and displayed as the name alone when `named`,
 * as "name(0xNN)" otherwise. */
static void require_name_and_display(const char *what, uint8_t byte, bool named, const char *name,
                                     const char *(*name_of)(uint8_t byte),
                                     size_t (*display)(uint8_t byte, char *buf, size_t cap)) {
  REQUIRE(strcmp(name_of(byte), name) == 0, "%s: name \"%s\", want \"%s\"", what, name_of(byte),
          name);
  char want[32];
  if (named) {
    snprintf(want, sizeof want, "%s", name);
  } else {
    snprintf(want, sizeof want, "%s(0x%02X)", name, (unsigned)byte);
  }
  char shown[32];
  size_t n = display(byte, shown, sizeof shown);
  REQUIRE(strcmp(shown, want) == 0 && n == strlen(want), "%s: display \"%s\", want \"%s\"", what,
          shown, want);
}

START_TEST(device_tag_every_byte) {
  for (unsigned b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    char what[64];
    require_conversion(&device_tag_field, byte, what, sizeof what);
    /* Inside a handle: every tag with class standard, event sync (a CPU
     * buffer with event sync breaks BP-SYNC-2, so the CPU tag is checked with
     * producer_synced too). */
    require_decode("device tag", 4096, 4096, byte, 1, 0, 0);
    require_decode("device tag", 4096, 4096, byte, 0, 0, 0);
    require_decode("device tag, empty", 0, 1, byte, 0, 0, 0);
    require_decode("device tag, empty", 0, 1, byte, 2, 0, 0);
  }
}
END_TEST

START_TEST(device_tag_names_and_display) {
  static const char *const names[9] = {"cpu",    "cuda",    "rocm",       "metal", "vulkan",
                                       "webgpu", "hexagon", "level_zero", "opencl"};
  for (unsigned b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    char want[32];
    const char *name;
    switch (spec_device_tag_range(byte)) {
      case SPEC_NAMED:
        name = names[b];
        snprintf(want, sizeof want, "%s", name);
        break;
      case SPEC_RESERVED:
        name = "reserved";
        snprintf(want, sizeof want, "reserved(0x%02X)", b);
        break;
      case SPEC_PRIVATE:
        name = "private";
        snprintf(want, sizeof want, "private(0x%02X)", b);
        break;
      default:
        name = "invalid";
        snprintf(want, sizeof want, "invalid(0x%02X)", b);
        break;
    }
    REQUIRE(strcmp(hurray_device_tag_name(byte), name) == 0, "name(0x%02X) = \"%s\", want \"%s\"",
            b, hurray_device_tag_name(byte), name);
    char shown[32];
    size_t n = hurray_device_tag_display(byte, shown, sizeof shown);
    REQUIRE(strcmp(shown, want) == 0 && n == strlen(want), "display(0x%02X) = \"%s\", want \"%s\"",
            b, shown, want);
  }
}
END_TEST

START_TEST(sync_mode_every_byte) {
  static const char *const names[3] = {"producer_synced", "event", "consumer_stream"};
  for (unsigned b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    hurray_sync_mode out = 0x5A;
    hurray_error err = junk_error();
    hurray_status status = hurray_sync_mode_from_byte(byte, &out, &err);
    char what[64];
    snprintf(what, sizeof what, "sync_mode_from_byte(0x%02X)", b);
    if (b <= 2) { /* BP-SYNC-1 */
      REQUIRE(status == HURRAY_OK && out == byte, "%s: %s", what, hurray_status_name(status));
    } else {
      require_error(what, status, &err, HURRAY_ERR_INVALID_SYNC_MODE, byte, 0, 0);
      REQUIRE(out == 0x5A, "%s: out written on failure", what);
    }
    REQUIRE(!hurray_sync_mode_is_private(byte), "%s: no sync mode is private", what);
    const char *name = b <= 2 ? names[b] : b == 0xFF ? "invalid" : "reserved";
    require_name_and_display(what, byte, b <= 2, name, hurray_sync_mode_name,
                             hurray_sync_mode_display);
    /* In a handle: a CUDA, a CPU and a private-device buffer. */
    require_decode("sync mode", 4096, 4096, 0x01, byte, 0, 0);
    require_decode("sync mode", 4096, 4096, 0x00, byte, 0, 0);
    require_decode("sync mode", 0, 1, 0xF7, byte, 0xF7, 0);
    require_decode("sync mode, empty", 0, 1, 0x00, byte, 0, 0);
  }
}
END_TEST

START_TEST(memory_class_every_byte) {
  static const char *const names[4] = {"standard", "host_pinned", "unified", "peer"};
  for (unsigned b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    char what[64];
    require_conversion(&memory_class_field, byte, what, sizeof what);
    spec_range range = spec_memory_class_range(byte);
    const char *name = range == SPEC_NAMED     ? names[b]
                       : range == SPEC_PRIVATE ? "private"
                       : range == SPEC_INVALID ? "invalid"
                                               : "reserved";
    require_name_and_display(what, byte, range == SPEC_NAMED, name, hurray_memory_class_name,
                             hurray_memory_class_display);
    /* In a handle on a device that takes every named class, on the CPU and
     * on a private device. */
    require_decode("memory class", 4096, 4096, 0x01, 0, byte, 0);
    require_decode("memory class", 4096, 4096, 0x00, 0, byte, 0);
    require_decode("memory class", 64, 64, 0xF3, 2, byte, 0);
    require_decode("memory class, empty", 0, 1, 0x02, 1, byte, 0);
    require_decode("memory class, empty", 0, 8, 0xFE, 0, byte, 0);
  }
}
END_TEST

START_TEST(reserved_byte_every_value) {
  for (unsigned b = 0; b < 256; b++) {
    /* BP-WIRE-2, on a valid handle and on one whose other fields are all bad
     * (the reserved byte is step 1 of BP-ORDER-1). */
    require_decode("reserved", 4096, 4096, 0x01, 1, 0, (uint8_t)b);
    require_decode("reserved", 1, 3, 0xFF, 0xFF, 0xFF, (uint8_t)b);
    require_decode("reserved, empty", 0, 1, 0x00, 0, 0, (uint8_t)b);
  }
}
END_TEST

START_TEST(pair_table_all_65536_pairs) {
  unsigned valid = 0;
  for (unsigned tag = 0; tag < 256; tag++) {
    for (unsigned cls = 0; cls < 256; cls++) {
      bool want = spec_pair_is_valid((uint8_t)tag, (uint8_t)cls);
      valid += want ? 1u : 0u;
      REQUIRE(hurray_pair_is_valid((uint8_t)tag, (uint8_t)cls) == want,
              "pair_is_valid(0x%02X, 0x%02X) should be %s", tag, cls, want ? "true" : "false");
      /* Decoding: every step before the pair step passes for producer_synced,
       * 4096/4096, so the answer is the range checks then BP-PAIR-1. */
      require_decode("pair", 4096, 4096, (uint8_t)tag, 0, (uint8_t)cls, 0);
      /* The constructor applies the same steps 2..8 (BP-ORDER-1). */
      hurray_buffer_handle out;
      hurray_error err = junk_error();
      hurray_status status = hurray_buffer_handle_with_memory_class(4096, 4096, (uint8_t)tag, 0,
                                                                    (uint8_t)cls, &out, &err);
      char what[64];
      snprintf(what, sizeof what, "with_memory_class(tag 0x%02X, class 0x%02X)", tag, cls);
      require_verdict(what, status, &err,
                      spec_handle_verdict(4096, 4096, (uint8_t)tag, 0, (uint8_t)cls, 0), 0);
    }
  }
  /* BP-PAIR-3: 29 named pairs + 15 private tags x (standard + 15 private). */
  ck_assert_uint_eq(valid, 269);
}
END_TEST

START_TEST(pair_table_named_rows) {
  /* The table of BP-PAIR-1 cell by cell, as literals, so the oracle's table
   * is itself checked against the spec text. */
  static const struct {
    uint8_t tag;
    bool standard, host_pinned, unified, peer;
  } rows[] = {
      {0x00, true, true, true, false},   {0x01, true, true, true, true},
      {0x02, true, true, true, true},    {0x03, true, true, true, false},
      {0x04, true, true, true, true},    {0x05, true, false, false, false},
      {0x06, true, true, true, false},   {0x07, true, true, true, true},
      {0x08, true, true, true, false},   {0xF0, true, false, false, false},
      {0xFE, true, false, false, false},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    ck_assert(spec_pair_is_valid(rows[i].tag, 0) == rows[i].standard);
    ck_assert(hurray_pair_is_valid(rows[i].tag, 0) == rows[i].standard);
    ck_assert(hurray_pair_is_valid(rows[i].tag, 1) == rows[i].host_pinned);
    ck_assert(hurray_pair_is_valid(rows[i].tag, 2) == rows[i].unified);
    ck_assert(hurray_pair_is_valid(rows[i].tag, 3) == rows[i].peer);
  }
  /* BP-PAIR-2 */
  ck_assert(hurray_pair_is_valid(0xF0, 0xF0));
  ck_assert(hurray_pair_is_valid(0xFE, 0xFE));
  ck_assert(hurray_pair_is_valid(0xF5, 0xF9));
  ck_assert(!hurray_pair_is_valid(0x01, 0xF0));
  ck_assert(!hurray_pair_is_valid(0x00, 0xFE));
  ck_assert(!hurray_pair_is_valid(0xF0, 0xFF));
  ck_assert(!hurray_pair_is_valid(0xFF, 0x00));
  ck_assert(!hurray_pair_is_valid(0x09, 0x00));
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("byte fields and the pair table", "fields", SWEEP_TIMEOUT_S,
                           device_tag_every_byte, device_tag_names_and_display,
                           sync_mode_every_byte, memory_class_every_byte, reserved_byte_every_value,
                           pair_table_all_65536_pairs, pair_table_named_rows);
}
