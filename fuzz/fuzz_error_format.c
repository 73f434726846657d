/*
 * Fuzz target error_format: the text libhurray makes of its errors and wire
 * values (core/runtime/error_format.c, display.c, status names).
 *
 * Input: byte 0 a status code (any int value, known or not), byte 1 a buffer
 * capacity, bytes 2..25 value, expected and index (little-endian u64), the
 * rest the detail text (any bytes; cut at the first NUL or at 191 bytes).
 *
 * Oracle: every status has a name ("UNKNOWN" exactly for codes outside the
 * enum); a message is never empty, its length is what the function returns
 * whatever the capacity (snprintf contract), a short buffer holds a
 * NUL-terminated prefix of the full message and nothing is written past cap;
 * a failure's detail ends the message; display forms are the spec's names,
 * or "name(0xNN)" for values the name does not identify (BP-DEV-3).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "hurray/version.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

static void display_form(char *out, size_t cap, const char *name, bool named, uint8_t byte) {
  if (named) {
    snprintf(out, cap, "%s", name);
  } else {
    snprintf(out, cap, "%s(0x%02X)", name, byte);
  }
}

static void check_display(uint8_t byte) {
  char display[32];
  char want[32];
  size_t n = hurray_device_tag_display(byte, display, sizeof display);
  display_form(want, sizeof want, ref_device_name(byte), ref_device_kind(byte) == REF_NAMED, byte);
  FUZZ_CHECK(n == strlen(display) && strcmp(display, want) == 0);
  FUZZ_CHECK(hurray_device_tag_display(byte, NULL, 0) == n);
  n = hurray_memory_class_display(byte, display, sizeof display);
  display_form(want, sizeof want, ref_memory_class_name(byte),
               ref_memory_class_kind(byte) == REF_NAMED, byte);
  FUZZ_CHECK(n == strlen(display) && strcmp(display, want) == 0);
  FUZZ_CHECK(hurray_memory_class_display(byte, display, 1) == n && display[0] == '\0');
  n = hurray_sync_mode_display(byte, display, sizeof display);
  display_form(want, sizeof want, ref_sync_mode_name(byte), ref_sync_mode_kind(byte) == REF_NAMED,
               byte);
  FUZZ_CHECK(n == strlen(display) && strcmp(display, want) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t fixed[26] = {0};
  memcpy(fixed, data, size < sizeof fixed ? size : sizeof fixed);
  hurray_error err;
  memset(&err, 0, sizeof err);
  err.status = (hurray_status)fixed[0];
  err.value = fuzz_read_u64(fixed + 2);
  err.expected = fuzz_read_u64(fixed + 10);
  err.index = (size_t)fuzz_read_u64(fixed + 18);
  size_t detail_len = 0;
  if (size > sizeof fixed) {
    const uint8_t *detail = data + sizeof fixed;
    size_t available = size - sizeof fixed;
    while (detail_len < available && detail_len < HURRAY_ERROR_DETAIL_SIZE - 1 &&
           detail[detail_len] != 0) {
      err.detail[detail_len] = (char)detail[detail_len];
      detail_len++;
    }
  }

  const char *name = hurray_status_name(err.status);
  FUZZ_CHECK(name != NULL && name[0] != '\0');
  FUZZ_CHECK((strcmp(name, "UNKNOWN") == 0) == ((int)err.status >= HURRAY_STATUS_COUNT));

  static char full[1024];
  size_t len = hurray_error_format(&err, full, sizeof full);
  FUZZ_CHECK(len > 0 && len < sizeof full && strlen(full) == len);
  if (err.status != HURRAY_OK && detail_len > 0) {
    FUZZ_CHECK(len > detail_len + 2 &&
               memcmp(full + len - detail_len, err.detail, detail_len) == 0);
  }
  FUZZ_CHECK(hurray_error_format(&err, NULL, 0) == len);

  /* A buffer of exactly `cap` bytes on the heap: ASan sees any write past it. */
  size_t cap = fixed[1];
  char *small = malloc(cap > 0 ? cap : 1);
  FUZZ_CHECK(small != NULL);
  small[0] = 'X';
  FUZZ_CHECK(hurray_error_format(&err, small, cap) == len);
  if (cap > 0) {
    size_t kept = len < cap ? len : cap - 1;
    FUZZ_CHECK(strlen(small) == kept && memcmp(small, full, kept) == 0);
  } else {
    FUZZ_CHECK(small[0] == 'X');
  }
  free(small);

  size_t null_len = hurray_error_format(NULL, full, sizeof full);
  FUZZ_CHECK(null_len > 0 && null_len == strlen(full));

  check_display((uint8_t)err.value);
  check_display((uint8_t)err.expected);
  /* The version the library reports (BP-VER-1) is the one it was built as. */
  FUZZ_CHECK(strcmp(hurray_version(), HURRAY_VERSION_STRING) == 0 &&
             hurray_version_number() == HURRAY_VERSION_NUMBER);
  return 0;
}

FUZZ_ORACLE_END
