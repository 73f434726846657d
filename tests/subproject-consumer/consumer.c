/*
 * A program as an integrator writes it against an installed or embedded
 * libhurray: one handle through the table encoder and decoder (BP-TABLE-1,
 * BP-WIRE-1), one refusal with its status name, and the plugin helper
 * library's error filling. Exit 0 only when every result is the expected one.
 * Built by tests/subproject-consumer (meson subproject) and
 * tests/cmake-consumer (CMake find_package), from tools/test.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray/plugin_support.h"

static int failures = 0;

static void expect(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

int main(void) {
  hurray_buffer_handle handle;
  hurray_error err;
  expect(hurray_buffer_handle_new(4096u, 64u, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                  &handle, &err) == HURRAY_OK,
         "a 4096-byte CPU handle is made");

  unsigned char table[1 + HURRAY_BUFFER_HANDLE_SIZE];
  size_t written = 0;
  expect(hurray_buffer_table_encode(&handle, 1, table, sizeof table, &written, &err) == HURRAY_OK &&
             written == sizeof table,
         "the one-handle table encodes to 17 bytes");

  hurray_buffer_handle decoded;
  size_t count = 0;
  expect(hurray_buffer_table_decode(table, sizeof table, &decoded, 1, &count, &err) == HURRAY_OK &&
             count == 1 && decoded.byte_size == 4096u && decoded.alignment == 64u,
         "the table decodes to the same handle");

  table[1 + 8] = 3u; /* alignment 3: not a power of two */
  hurray_status refused =
      hurray_buffer_table_decode(table, sizeof table, &decoded, 1, &count, &err);
  printf("alignment 3 refused as %s\n", hurray_status_name(refused));
  expect(refused != HURRAY_OK, "a table with alignment 3 is refused");

  hurray_error filled;
  memset(&filled, 0, sizeof filled);
  expect(hurray_support_entry_fail(&filled, HURRAY_ERR_DEVICE_ERROR, 7u, 0u, "consumer: %s",
                                   "detail") == HURRAY_ERR_DEVICE_ERROR &&
             filled.value == 7u && strcmp(filled.detail, "consumer: detail") == 0,
         "hurray_support_entry_fail (hurray-plugin-support) fills the error");

  printf("%s\n", failures == 0 ? "consumer: PASS" : "consumer: FAIL");
  return failures == 0 ? 0 : 1;
}
