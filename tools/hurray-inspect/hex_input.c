/*
 * Hex text to bytes (specs/cli.md CLI-HEX-1..4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "inspect.h"

/* Value of a hex digit, or -1. Written out rather than <ctype.h> so the
 * answer never depends on the locale. */
static int hex_digit_value(uint8_t c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

static bool is_hex_whitespace(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* 1-based line and column of `offset`, counted in bytes. CR, LF and CRLF
 * each end one line (CLI-HEX-3): a CR followed by LF is one break, counted
 * at the LF. */
static void locate(const char *text, size_t offset, inspect_hex_error *err) {
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; i++) {
    bool lf = text[i] == '\n';
    bool lone_cr = text[i] == '\r' && (i + 1u >= offset || text[i + 1u] != '\n');
    if (lf || lone_cr) {
      line++;
      line_start = i + 1u;
    }
  }
  err->line = line;
  err->column = offset - line_start + 1u;
}

static inspect_hex_status hex_fail(inspect_hex_error *err, inspect_hex_status status,
                                   const char *text, size_t offset, uint8_t character) {
  if (err != NULL) {
    err->status = status;
    err->offset = offset;
    err->character = character;
    err->line = 0;
    err->column = 0;
    if (text != NULL) {
      locate(text, offset, err);
    }
  }
  return status;
}

size_t inspect_hex_max_bytes(size_t text_len) { return text_len / 2u; }

inspect_hex_status inspect_parse_hex(const char *text, size_t text_len, uint8_t *out, size_t cap,
                                     size_t *out_len, inspect_hex_error *err) {
  if ((text == NULL && text_len > 0u) || out_len == NULL || (out == NULL && cap > 0u)) {
    return hex_fail(err, INSPECT_HEX_NULL_ARGUMENT, NULL, 0, 0);
  }
  size_t written = 0;
  int high = -1;          /* the first digit of a byte, once seen */
  size_t high_offset = 0; /* where that digit is */
  bool in_comment = false;
  for (size_t i = 0; i < text_len; i++) {
    uint8_t c = (uint8_t)text[i];
    if (in_comment) {
      in_comment = c != '\n' && c != '\r'; /* CLI-HEX-2: a line ends at CR or LF */
      continue;
    }
    if (c == '#') {
      in_comment = true;
      continue;
    }
    if (is_hex_whitespace(c)) {
      continue;
    }
    int value = hex_digit_value(c);
    if (value < 0) {
      return hex_fail(err, INSPECT_HEX_BAD_CHARACTER, text, i, c);
    }
    if (high < 0) {
      high = value;
      high_offset = i;
      continue;
    }
    if (written >= cap) {
      return hex_fail(err, INSPECT_HEX_CAPACITY, text, high_offset, 0);
    }
    out[written++] = (uint8_t)((high << 4) | value);
    high = -1;
  }
  if (high >= 0) {
    return hex_fail(err, INSPECT_HEX_ODD_DIGITS, text, high_offset, 0);
  }
  *out_len = written;
  return INSPECT_HEX_OK;
}

size_t inspect_hex_error_format(const inspect_hex_error *err, char *buf, size_t cap) {
  char scratch[1];
  if (buf == NULL || cap == 0u) {
    buf = scratch;
    cap = sizeof scratch;
  }
  int n;
  if (err == NULL) {
    n = snprintf(buf, cap, "no hex error information");
  } else {
    switch (err->status) {
      case INSPECT_HEX_OK: n = snprintf(buf, cap, "ok"); break;
      case INSPECT_HEX_BAD_CHARACTER:
        if (err->character >= 0x21u && err->character <= 0x7Eu) {
          n = snprintf(buf, cap,
                       "bad character '%c' (0x%02X) at offset %zu (line %zu, column %zu); "
                       "hex text holds only hex digits, whitespace and # comments",
                       (char)err->character, err->character, err->offset, err->line, err->column);
        } else {
          n = snprintf(buf, cap,
                       "bad character 0x%02X at offset %zu (line %zu, column %zu); "
                       "hex text holds only hex digits, whitespace and # comments",
                       err->character, err->offset, err->line, err->column);
        }
        break;
      case INSPECT_HEX_ODD_DIGITS:
        n = snprintf(buf, cap,
                     "odd number of hex digits: the digit at offset %zu (line %zu, column %zu) "
                     "has no partner",
                     err->offset, err->line, err->column);
        break;
      case INSPECT_HEX_CAPACITY:
        n = snprintf(buf, cap,
                     "too many bytes: the byte starting at offset %zu (line %zu, column %zu) "
                     "does not fit",
                     err->offset, err->line, err->column);
        break;
      case INSPECT_HEX_NULL_ARGUMENT:
        n = snprintf(buf, cap, "hex parser called with a NULL argument");
        break;
      default: n = snprintf(buf, cap, "unknown hex error %d", (int)err->status); break;
    }
  }
  return n < 0 ? 0u : (size_t)n;
}
