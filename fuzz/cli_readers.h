/*
 * The readers the cli_input harness's oracle uses (fuzz/fuzz_cli_input.c):
 * a reference hex parser (fuzz/cli_hex_reference.c, CLI-HEX-1..4) and a
 * small JSON reader (fuzz/cli_json_reader.c, CLI-JSON-1/2).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_CLI_READERS_H
#define HURRAY_FUZZ_CLI_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "inspect.h"

/* ---- Reference hex parser (fuzz/cli_hex_reference.c) ------------------ */

typedef struct ref_hex_result {
  inspect_hex_status status;
  size_t offset;
  size_t line;
  size_t column;
  uint8_t character;
  size_t len;
} ref_hex_result;

/* The value of hex digit c, -1 for any other character. */
int hex_value(unsigned char c);
/* Parses hex text into out (cap bytes) as CLI-HEX-1..4 say. */
ref_hex_result ref_parse_hex(const unsigned char *text, size_t len, uint8_t *out, size_t cap);

/* ---- JSON reader (fuzz/cli_json_reader.c) ----------------------------- */

typedef struct json_reader {
  const char *p;
  const char *end;
  int depth;
} json_reader;

/* What the checks need from the report. */
typedef struct json_facts {
  int valid; /* -1 absent, 0 false, 1 true */
  bool has_handles;
  size_t handles;
  uint64_t byte_size[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  uint64_t device_tag_byte[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  int error; /* -1 absent, 0 null, 1 object */
  uint8_t status[64];
  size_t status_len;
  uint64_t value, expected, index;
  int numbers_seen;
  uint8_t message[1200];
  size_t message_len;
} json_facts;

/* What a value is to the facts: where it sits in the report. */
enum { ROLE_ANY, ROLE_TOP, ROLE_HANDLES, ROLE_HANDLE, ROLE_ERROR };

/* Skips JSON whitespace. */
void json_space(json_reader *r);
/* Writes code point cp as UTF-8 to out; returns its length. */
size_t utf8_put(uint32_t cp, uint8_t *out);
/* Length of the well-formed UTF-8 sequence at s, 0 when none starts there. */
size_t utf8_sequence(const uint8_t *s, size_t n);
/* Reads a JSON string; its bytes (UTF-8) go to out[0..*out_len) when out is
 * not NULL (cap must hold 4 bytes per input character). */
bool json_string(json_reader *r, uint8_t *out, size_t *out_len);
/* Reads one JSON value (at most 16 deep), recording in facts what the
 * report says where role places it. */
bool json_value(json_reader *r, json_facts *facts, int role);

#endif /* HURRAY_FUZZ_CLI_READERS_H */
