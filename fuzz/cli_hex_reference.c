/*
 * The cli_input harness's reference hex parser (fuzz/fuzz_cli_input.c),
 * written here from specs/cli.md CLI-HEX-1..4 alone, to compare
 * hurray-inspect's against.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cli_readers.h"
#include "fuzz_check.h"

FUZZ_ORACLE_BEGIN

int hex_value(unsigned char c) {
  static const char digits[] = "0123456789abcdef";
  unsigned char lower = (c >= 'A' && c <= 'F') ? (unsigned char)(c - 'A' + 'a') : c;
  const char *at = lower != 0 ? strchr(digits, lower) : NULL;
  return at != NULL ? (int)(at - digits) : -1;
}

static bool is_hex_whitespace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

ref_hex_result ref_parse_hex(const unsigned char *text, size_t len, uint8_t *out, size_t cap) {
  ref_hex_result r = {INSPECT_HEX_OK, 0, 1, 1, 0, 0};
  size_t line = 1;
  size_t line_start = 0;
  bool in_comment = false;
  int high = -1; /* the first digit of a byte, while its second is awaited */
  size_t high_offset = 0;
  size_t high_line = 0;
  size_t high_column = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = text[i];
    if (c == '\n' || c == '\r') {
      /* CR, LF and CRLF each end one line (CLI-HEX-2, CLI-HEX-3). */
      if (c == '\r' && i + 1 < len && text[i + 1] == '\n') {
        i++;
      }
      in_comment = false;
      line++;
      line_start = i + 1;
      continue;
    }
    if (in_comment || is_hex_whitespace(c)) {
      continue;
    }
    if (c == '#') {
      in_comment = true;
      continue;
    }
    int v = hex_value(c);
    if (v < 0) {
      r.status = INSPECT_HEX_BAD_CHARACTER;
      r.offset = i;
      r.line = line;
      r.column = i - line_start + 1;
      r.character = c;
      return r;
    }
    if (high < 0) {
      high = v;
      high_offset = i;
      high_line = line;
      high_column = i - line_start + 1;
    } else if (r.len == cap) {
      /* A byte is complete that does not fit: reported at its first digit. */
      r.status = INSPECT_HEX_CAPACITY;
      r.offset = high_offset;
      r.line = high_line;
      r.column = high_column;
      return r;
    } else {
      out[r.len++] = (uint8_t)(high * 16 + v);
      high = -1;
    }
  }
  if (high >= 0) {
    r.status = INSPECT_HEX_ODD_DIGITS;
    r.offset = high_offset;
    r.line = high_line;
    r.column = high_column;
  }
  return r;
}

FUZZ_ORACLE_END
