/*
 * Fuzz target cli_input: hurray-inspect's input reading and its writers
 * (tools/hurray-inspect/inspect.h, specs/cli.md).
 *
 * Input: byte 0 is flags (bit 0: the rest is hex text, else raw bytes;
 * bit 1: --handle, else a table; bits 2..7: a small output capacity), the
 * rest is the input as the tool would read it from a file.
 *
 * Oracle:
 *  - hex text: a reference parser written here from CLI-HEX-1..4 agrees on
 *    the bytes, or on the error, its offset, line, column and character; a
 *    capacity one byte short is reported at the first digit of the byte that
 *    does not fit; the error message names the offset;
 *  - analysis: the verdict is the reference decoder's (CLI-INPUT-1: table
 *    decoded exactly; CLI-INPUT-2: a handle is exactly 16 bytes); each handle
 *    view holds the input's bytes, fields and own verdict; the counts and the
 *    trailing-bytes bookkeeping add up to the input length;
 *  - text report and JSON: the snprintf contract (length independent of the
 *    capacity, a NUL-terminated prefix, nothing written past cap — buffers are
 *    heap blocks of exactly cap bytes for ASan);
 *  - JSON: the output parses as exactly one JSON object and a newline
 *    (CLI-JSON-1), with "valid", "handles" and "error" saying what the
 *    analysis says;
 *  - JSON strings: any bytes written with inspect_json_write_string parse
 *    back to those bytes with each byte of invalid UTF-8 replaced by U+FFFD
 *    (CLI-JSON-2);
 *  - names: any bytes escaped with inspect_escape_name come out printable
 *    (no C0/C1 control, no DEL, valid UTF-8, every backslash an escape), and
 *    a failure object carrying them is one JSON object (CLI-OUT-2,
 *    CLI-JSON-3).
 * The reference hex parser counts CR, LF and CR LF each as one line break
 * (CLI-HEX-3); a handle input's TRAILING_BYTES message is the tool's own
 * (CLI-INPUT-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "inspect.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

/* ---- Reference hex parser (CLI-HEX-1..4) ------------------------------ */

typedef struct ref_hex_result {
  inspect_hex_status status;
  size_t offset;
  size_t line;
  size_t column;
  uint8_t character;
  size_t len;
} ref_hex_result;

static int hex_value(unsigned char c) {
  static const char digits[] = "0123456789abcdef";
  unsigned char lower = (c >= 'A' && c <= 'F') ? (unsigned char)(c - 'A' + 'a') : c;
  const char *at = lower != 0 ? strchr(digits, lower) : NULL;
  return at != NULL ? (int)(at - digits) : -1;
}

static bool is_hex_whitespace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static ref_hex_result ref_parse_hex(const unsigned char *text, size_t len, uint8_t *out,
                                    size_t cap) {
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

/* ---- A small JSON reader, enough to check CLI-JSON-1/2 ---------------- */

typedef struct json_reader {
  const char *p;
  const char *end;
  int depth;
} json_reader;

static void json_space(json_reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
    r->p++;
  }
}

static bool json_literal(json_reader *r, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) {
    return false;
  }
  r->p += n;
  return true;
}

static size_t utf8_put(uint32_t cp, uint8_t *out) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (uint8_t)(0xC0 | (cp >> 6));
    out[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (cp >> 12));
    out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (cp >> 18));
  out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when none starts there. */
static size_t utf8_sequence(const uint8_t *s, size_t n) {
  uint8_t b = s[0];
  size_t len;
  uint32_t min;
  uint32_t cp;
  if (b < 0x80) {
    return 1;
  } else if (b >= 0xC2 && b <= 0xDF) {
    len = 2, min = 0x80, cp = b & 0x1Fu;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3, min = 0x800, cp = b & 0x0Fu;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4, min = 0x10000, cp = b & 0x07u;
  } else {
    return 0;
  }
  if (n < len) {
    return 0;
  }
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (s[k] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

static int hex4(const char *p) {
  int v = 0;
  for (int k = 0; k < 4; k++) {
    int d = hex_value((unsigned char)p[k]);
    if (d < 0) {
      return -1;
    }
    v = v * 16 + d;
  }
  return v;
}

/* Reads a JSON string; its bytes (UTF-8) go to out[0..*out_len) when out is
 * not NULL (cap must hold 4 bytes per input character). */
static bool json_string(json_reader *r, uint8_t *out, size_t *out_len) {
  size_t n = 0;
  if (r->p >= r->end || *r->p != '"') {
    return false;
  }
  r->p++;
  while (r->p < r->end && *r->p != '"') {
    unsigned char c = (unsigned char)*r->p;
    if (c < 0x20) {
      return false; /* raw control characters are not JSON */
    }
    if (c != '\\') {
      size_t seq = utf8_sequence((const uint8_t *)r->p, (size_t)(r->end - r->p));
      if (seq == 0) {
        return false; /* the writer promised valid UTF-8 */
      }
      if (out != NULL) {
        memcpy(out + n, r->p, seq);
      }
      n += seq;
      r->p += seq;
      continue;
    }
    if (r->end - r->p < 2) {
      return false;
    }
    char e = r->p[1];
    r->p += 2;
    uint32_t cp;
    switch (e) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u': {
        if (r->end - r->p < 4) {
          return false;
        }
        int v = hex4(r->p);
        if (v < 0) {
          return false;
        }
        r->p += 4;
        cp = (uint32_t)v;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u') {
            return false;
          }
          int low = hex4(r->p + 2);
          if (low < 0xDC00 || low > 0xDFFF) {
            return false;
          }
          r->p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        break;
      }
      default: return false;
    }
    uint8_t tmp[4];
    size_t k = utf8_put(cp, tmp);
    if (out != NULL) {
      memcpy(out + n, tmp, k);
    }
    n += k;
  }
  if (r->p >= r->end) {
    return false;
  }
  r->p++;
  if (out_len != NULL) {
    *out_len = n;
  }
  return true;
}

/* A JSON number; *value gets it when it is an unsigned decimal integer. */
static bool json_number(json_reader *r, uint64_t *value, bool *is_unsigned) {
  const char *start = r->p;
  uint64_t v = 0;
  bool overflow = false;
  if (r->p < r->end && *r->p == '-') {
    r->p++;
  }
  if (r->p >= r->end || *r->p < '0' || *r->p > '9') {
    return false;
  }
  if (*r->p == '0' && r->end - r->p > 1 && r->p[1] >= '0' && r->p[1] <= '9') {
    return false; /* no leading zeros */
  }
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
    uint64_t d = (uint64_t)(*r->p - '0');
    overflow = overflow || v > (UINT64_MAX - d) / 10;
    v = v * 10 + d;
    r->p++;
  }
  bool integer = true;
  if (r->p < r->end && *r->p == '.') {
    integer = false;
    r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') {
      return false;
    }
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
      r->p++;
    }
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    integer = false;
    r->p++;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-')) {
      r->p++;
    }
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') {
      return false;
    }
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
      r->p++;
    }
  }
  *is_unsigned = integer && *start != '-' && !overflow;
  *value = v;
  return true;
}

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

static bool json_value(json_reader *r, json_facts *facts, int role);

enum { ROLE_ANY, ROLE_TOP, ROLE_HANDLES, ROLE_HANDLE, ROLE_ERROR };

static bool key_is(const uint8_t *key, size_t len, const char *want) {
  return len == strlen(want) && memcmp(key, want, len) == 0;
}

static bool json_object(json_reader *r, json_facts *facts, int role) {
  r->p++; /* '{' */
  json_space(r);
  if (r->p < r->end && *r->p == '}') {
    r->p++;
    return true;
  }
  for (;;) {
    uint8_t key[64 * 4];
    size_t key_len = 0;
    json_space(r);
    json_reader probe = *r;
    if (!json_string(&probe, NULL, &key_len) || key_len > 64) {
      return false;
    }
    if (!json_string(r, key, &key_len)) {
      return false;
    }
    json_space(r);
    if (r->p >= r->end || *r->p != ':') {
      return false;
    }
    r->p++;
    json_space(r);
    int child = ROLE_ANY;
    if (role == ROLE_TOP && key_is(key, key_len, "valid")) {
      if (json_literal(r, "true")) {
        facts->valid = 1;
      } else if (json_literal(r, "false")) {
        facts->valid = 0;
      } else {
        return false;
      }
      goto next;
    }
    if (role == ROLE_TOP && key_is(key, key_len, "handles")) {
      child = ROLE_HANDLES;
      facts->has_handles = true;
    } else if (role == ROLE_TOP && key_is(key, key_len, "error")) {
      if (json_literal(r, "null")) {
        facts->error = 0;
        goto next;
      }
      child = ROLE_ERROR;
      facts->error = 1;
    } else if (role == ROLE_ERROR && key_is(key, key_len, "status")) {
      json_reader probe2 = *r;
      size_t n = 0;
      if (!json_string(&probe2, NULL, &n) || n > sizeof facts->status) {
        return false;
      }
      if (!json_string(r, facts->status, &facts->status_len)) {
        return false;
      }
      goto next;
    } else if (role == ROLE_ERROR && key_is(key, key_len, "message")) {
      json_reader probe2 = *r;
      size_t n = 0;
      if (!json_string(&probe2, NULL, &n) || n > sizeof facts->message) {
        return false;
      }
      if (!json_string(r, facts->message, &facts->message_len)) {
        return false;
      }
      goto next;
    } else if ((role == ROLE_ERROR || role == ROLE_HANDLE) && r->p < r->end &&
               ((*r->p >= '0' && *r->p <= '9') || *r->p == '-')) {
      uint64_t v = 0;
      bool is_unsigned = false;
      if (!json_number(r, &v, &is_unsigned) || !is_unsigned) {
        return false; /* CLI-JSON-1: unsigned decimal integers */
      }
      size_t h = facts->handles;
      if (role == ROLE_ERROR && key_is(key, key_len, "value")) {
        facts->value = v;
        facts->numbers_seen |= 1;
      } else if (role == ROLE_ERROR && key_is(key, key_len, "expected")) {
        facts->expected = v;
        facts->numbers_seen |= 2;
      } else if (role == ROLE_ERROR && key_is(key, key_len, "index")) {
        facts->index = v;
        facts->numbers_seen |= 4;
      } else if (role == ROLE_HANDLE && h < HURRAY_BUFFER_TABLE_MAX_HANDLES &&
                 key_is(key, key_len, "byte_size")) {
        facts->byte_size[h] = v;
      } else if (role == ROLE_HANDLE && h < HURRAY_BUFFER_TABLE_MAX_HANDLES &&
                 key_is(key, key_len, "device_tag_byte")) {
        facts->device_tag_byte[h] = v;
      }
      goto next;
    }
    if (!json_value(r, facts, child)) {
      return false;
    }
  next:
    json_space(r);
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end && *r->p == '}') {
      r->p++;
      return true;
    }
    return false;
  }
}

static bool json_array(json_reader *r, json_facts *facts, int role) {
  r->p++; /* '[' */
  json_space(r);
  if (r->p < r->end && *r->p == ']') {
    r->p++;
    return true;
  }
  for (;;) {
    json_space(r);
    if (!json_value(r, facts, role == ROLE_HANDLES ? ROLE_HANDLE : ROLE_ANY)) {
      return false;
    }
    if (role == ROLE_HANDLES) {
      facts->handles++;
    }
    json_space(r);
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end && *r->p == ']') {
      r->p++;
      return true;
    }
    return false;
  }
}

static bool json_value(json_reader *r, json_facts *facts, int role) {
  if (++r->depth > 16) {
    return false;
  }
  json_space(r);
  bool ok = false;
  if (r->p < r->end) {
    char c = *r->p;
    if (c == '{') {
      ok = json_object(r, facts, role);
    } else if (c == '[') {
      ok = json_array(r, facts, role);
    } else if (c == '"') {
      ok = json_string(r, NULL, NULL);
    } else if (c == 't') {
      ok = json_literal(r, "true");
    } else if (c == 'f') {
      ok = json_literal(r, "false");
    } else if (c == 'n') {
      ok = json_literal(r, "null");
    } else {
      uint64_t v;
      bool u;
      ok = json_number(r, &v, &u);
    }
  }
  r->depth--;
  return ok;
}

/* ---- The checks ------------------------------------------------------ */

static uint8_t hex_bytes[64 * 1024];
static uint8_t ref_bytes[64 * 1024];
static inspect_result result;
static json_facts facts;

/* Calls a snprintf-style writer with a heap block of exactly `cap` bytes and
 * checks the contract against the full output. */
typedef size_t (*writer_fn)(const void *ctx, char *buf, size_t cap);

static void check_writer_contract(writer_fn write, const void *ctx, const char *full,
                                  size_t full_len, size_t cap) {
  char *small = malloc(cap > 0 ? cap : 1);
  FUZZ_CHECK(small != NULL);
  small[0] = 'X';
  FUZZ_CHECK(write(ctx, small, cap) == full_len);
  if (cap > 0) {
    size_t kept = full_len < cap ? full_len : cap - 1;
    FUZZ_CHECK(strlen(small) == kept && memcmp(small, full, kept) == 0);
  } else {
    FUZZ_CHECK(small[0] == 'X');
  }
  free(small);
}

static size_t write_text(const void *ctx, char *buf, size_t cap) {
  return inspect_write_text_report(ctx, "fuzz input", buf, cap);
}

static size_t write_json(const void *ctx, char *buf, size_t cap) {
  return inspect_write_json(ctx, buf, cap);
}

static size_t write_hex_error(const void *ctx, char *buf, size_t cap) {
  return inspect_hex_error_format(ctx, buf, cap);
}

/* Writes with a buffer sized from the announced length; returns it (heap). */
static char *write_full(writer_fn write, const void *ctx, size_t *len) {
  size_t n = write(ctx, NULL, 0);
  char *buf = malloc(n + 1);
  FUZZ_CHECK(buf != NULL);
  FUZZ_CHECK(write(ctx, buf, n + 1) == n && strlen(buf) == n);
  *len = n;
  return buf;
}

/* Returns false when the text is not valid hex (the tool stops there). */
static bool check_hex(const uint8_t *text, size_t len, size_t small_cap, size_t *out_len) {
  size_t cap = inspect_hex_max_bytes(len);
  FUZZ_CHECK(cap == len / 2);
  ref_hex_result want = ref_parse_hex(text, len, ref_bytes, cap);
  inspect_hex_error err;
  memset(&err, 0, sizeof err);
  size_t got_len = (size_t)-1;
  inspect_hex_status s = inspect_parse_hex((const char *)text, len, hex_bytes, cap, &got_len, &err);
  FUZZ_CHECK(s == want.status);
  if (s != INSPECT_HEX_OK) {
    FUZZ_CHECK(got_len == (size_t)-1);
    FUZZ_CHECK(err.status == s && err.offset == want.offset && err.line == want.line &&
               err.column == want.column);
    FUZZ_CHECK(s != INSPECT_HEX_BAD_CHARACTER || err.character == want.character);
    size_t message_len = 0;
    char *message = write_full(write_hex_error, &err, &message_len);
    char offset[32];
    snprintf(offset, sizeof offset, "%zu", err.offset);
    FUZZ_CHECK(message_len > 0 && strstr(message, offset) != NULL);
    check_writer_contract(write_hex_error, &err, message, message_len, small_cap);
    free(message);
    return false;
  }
  FUZZ_CHECK(got_len == want.len && memcmp(hex_bytes, ref_bytes, got_len) == 0);
  if (got_len > 0) {
    /* One byte short: reported at the first digit of the byte that does not fit. */
    ref_hex_result short_want = ref_parse_hex(text, len, ref_bytes, got_len - 1);
    size_t short_len = (size_t)-1;
    s = inspect_parse_hex((const char *)text, len, hex_bytes, got_len - 1, &short_len, &err);
    FUZZ_CHECK(s == INSPECT_HEX_CAPACITY && short_want.status == INSPECT_HEX_CAPACITY);
    FUZZ_CHECK(short_len == (size_t)-1 && err.offset == short_want.offset &&
               err.line == short_want.line && err.column == short_want.column);
    /* Parse again at full capacity: the short call may have overwritten a prefix. */
    FUZZ_CHECK(inspect_parse_hex((const char *)text, len, hex_bytes, cap, &got_len, NULL) ==
               INSPECT_HEX_OK);
  }
  size_t unused = 0;
  FUZZ_CHECK(inspect_parse_hex(NULL, 1, hex_bytes, cap, &unused, &err) == INSPECT_HEX_NULL_ARGUMENT);
  FUZZ_CHECK(inspect_parse_hex((const char *)text, len, hex_bytes, cap, NULL, &err) ==
             INSPECT_HEX_NULL_ARGUMENT);
  *out_len = got_len;
  return true;
}

/* The verdict CLI-INPUT-1 / CLI-INPUT-2 require, from the reference decoder. */
static ref_verdict expected_verdict(const uint8_t *in, size_t len, inspect_input_kind kind) {
  static ref_fields scratch[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  size_t count = 0;
  if (kind == INSPECT_INPUT_TABLE) {
    return ref_decode_table(in, len, HURRAY_BUFFER_TABLE_MAX_HANDLES, true, scratch, &count);
  }
  if (len < 16) {
    return ref_fail(HURRAY_ERR_TRUNCATED, len, 16, 0);
  }
  ref_verdict v = ref_decode_handle(in, 0, scratch);
  if (v.status == HURRAY_OK && len > 16) {
    return ref_fail(HURRAY_ERR_TRAILING_BYTES, len, 16, 0);
  }
  return v;
}

static void check_analysis(const uint8_t *in, size_t len, inspect_input_kind kind) {
  memset(&result, 0xA5, sizeof result);
  hurray_status s = inspect_analyze(in, len, kind, &result);
  FUZZ_CHECK(s == result.status);
  FUZZ_CHECK(ref_verdict_matches(expected_verdict(in, len, kind), s, &result.error));
  FUZZ_CHECK(result.kind == kind && result.input_len == len);

  size_t complete;
  size_t first;
  if (kind == INSPECT_INPUT_TABLE) {
    FUZZ_CHECK(result.has_count == (len >= 1));
    if (len >= 1) {
      FUZZ_CHECK(result.count == in[0] && result.expected_len == 1 + 16 * (size_t)in[0]);
    } else {
      FUZZ_CHECK(result.expected_len == 0);
    }
    size_t present = len >= 1 ? (len - 1) / 16 : 0;
    complete = len >= 1 ? (in[0] < present ? in[0] : present) : 0;
    first = len >= 1 ? 1 : 0;
  } else {
    FUZZ_CHECK(result.expected_len == 16);
    complete = len >= 16 ? 1 : 0;
    first = 0;
  }
  FUZZ_CHECK(result.handle_count == complete);
  for (size_t i = 0; i < complete; i++) {
    const inspect_handle_view *view = &result.handles[i];
    const uint8_t *bytes = in + first + 16 * i;
    FUZZ_CHECK(view->offset == first + 16 * i && memcmp(view->bytes, bytes, 16) == 0);
    ref_fields f = ref_read_fields(bytes);
    FUZZ_CHECK(view->fields.byte_size == f.byte_size && view->fields.alignment == f.alignment &&
               view->fields.device_tag == f.device_tag && view->fields.sync_mode == f.sync_mode &&
               view->fields.memory_class == f.memory_class && view->reserved == bytes[15]);
    ref_fields decoded;
    ref_verdict want = ref_decode_handle(bytes, i, &decoded);
    FUZZ_CHECK(ref_verdict_matches(want, view->status, &view->error));
  }
  size_t end_of_handles = first + 16 * complete;
  FUZZ_CHECK(result.extra_offset == end_of_handles && result.extra_len == len - end_of_handles);
  size_t kept = result.extra_len < INSPECT_EXTRA_BYTES_KEPT ? result.extra_len
                                                            : INSPECT_EXTRA_BYTES_KEPT;
  FUZZ_CHECK(kept == 0 || memcmp(result.extra_bytes, in + end_of_handles, kept) == 0);
  if (result.extra_len > 0) {
    bool all_declared = kind == INSPECT_INPUT_TABLE ? complete == in[0] : complete == 1;
    FUZZ_CHECK(result.extra_is_trailing == all_declared);
  }
  if (s == HURRAY_OK) {
    FUZZ_CHECK(result.message[0] == '\0');
  } else if (kind == INSPECT_INPUT_HANDLE && s == HURRAY_ERR_TRAILING_BYTES) {
    /* CLI-INPUT-2: the tool's own wording, naming a handle and both sizes. */
    char sizes[64];
    snprintf(sizes, sizeof sizes, "exactly 16 bytes, the input is %zu", len);
    FUZZ_CHECK(strstr(result.message, sizes) != NULL && strstr(result.message, "table") == NULL);
  } else {
    char message[sizeof result.message];
    hurray_error_format(&result.error, message, sizeof message);
    FUZZ_CHECK(strcmp(message, result.message) == 0);
  }
}

static void check_reports(size_t small_cap) {
  size_t text_len = 0;
  char *text = write_full(write_text, &result, &text_len);
  FUZZ_CHECK(text_len > 0);
  if (result.status != HURRAY_OK) {
    FUZZ_CHECK(strstr(text, result.message) != NULL);
  }
  check_writer_contract(write_text, &result, text, text_len, small_cap);
  free(text);

  size_t json_len = 0;
  char *json = write_full(write_json, &result, &json_len);
  check_writer_contract(write_json, &result, json, json_len, small_cap);
  memset(&facts, 0, sizeof facts);
  facts.valid = -1;
  facts.error = -1;
  json_reader r = {json, json + json_len, 0};
  json_space(&r);
  FUZZ_CHECK(r.p < r.end && *r.p == '{');
  FUZZ_CHECK(json_value(&r, &facts, ROLE_TOP));
  /* CLI-JSON-1: one object, then a newline, then nothing. */
  FUZZ_CHECK(r.end - r.p == 1 && *r.p == '\n');
  FUZZ_CHECK(facts.valid == (result.status == HURRAY_OK ? 1 : 0));
  FUZZ_CHECK(facts.has_handles && facts.handles == result.handle_count);
  for (size_t i = 0; i < result.handle_count; i++) {
    FUZZ_CHECK(facts.byte_size[i] == result.handles[i].fields.byte_size);
    FUZZ_CHECK(facts.device_tag_byte[i] == result.handles[i].fields.device_tag);
  }
  if (result.status == HURRAY_OK) {
    FUZZ_CHECK(facts.error == 0);
  } else {
    const char *name = hurray_status_name(result.status);
    FUZZ_CHECK(facts.error == 1 && facts.numbers_seen == 7);
    FUZZ_CHECK(facts.status_len == strlen(name) && memcmp(facts.status, name, facts.status_len) == 0);
    FUZZ_CHECK(facts.value == result.error.value && facts.expected == result.error.expected &&
               facts.index == result.error.index);
    FUZZ_CHECK(facts.message_len == strlen(result.message) &&
               memcmp(facts.message, result.message, facts.message_len) == 0);
  }
  free(json);
}

/* CLI-JSON-2: any bytes become a JSON string that reads back as the same
 * text, each byte of invalid UTF-8 replaced by U+FFFD. */
static void check_json_string(const uint8_t *text, size_t len, size_t small_cap) {
  size_t n = inspect_json_write_string((const char *)text, len, NULL, 0);
  char *out = malloc(n + 1);
  FUZZ_CHECK(out != NULL);
  FUZZ_CHECK(inspect_json_write_string((const char *)text, len, out, n + 1) == n);
  FUZZ_CHECK(strlen(out) == n);
  char *small = malloc(small_cap > 0 ? small_cap : 1);
  FUZZ_CHECK(small != NULL);
  FUZZ_CHECK(inspect_json_write_string((const char *)text, len, small, small_cap) == n);
  if (small_cap > 0) {
    size_t kept = n < small_cap ? n : small_cap - 1;
    FUZZ_CHECK(strlen(small) == kept && memcmp(small, out, kept) == 0);
  }
  free(small);

  uint8_t *want = malloc(3 * len + 1);
  uint8_t *got = malloc(4 * n + 1);
  FUZZ_CHECK(want != NULL && got != NULL);
  size_t want_len = 0;
  for (size_t i = 0; i < len;) {
    size_t seq = utf8_sequence(text + i, len - i);
    if (seq == 0) {
      want_len += utf8_put(0xFFFD, want + want_len);
      i++;
    } else {
      memcpy(want + want_len, text + i, seq);
      want_len += seq;
      i += seq;
    }
  }
  json_reader r = {out, out + n, 0};
  size_t got_len = 0;
  FUZZ_CHECK(json_string(&r, got, &got_len) && r.p == r.end);
  FUZZ_CHECK(got_len == want_len && memcmp(got, want, got_len) == 0);
  free(want);
  free(got);
  free(out);
}

/* CLI-OUT-2: any bytes as a name come out printable: no control byte, no
 * DEL, valid UTF-8 with no C1 control, every backslash starting an escape;
 * CLI-JSON-3: a failure carrying that name as its message is one JSON
 * object and a newline. */
static size_t write_name(const void *ctx, char *buf, size_t cap) {
  const struct {
    const uint8_t *p;
    size_t n;
  } *name = ctx;
  return inspect_escape_name((const char *)name->p, name->n, buf, cap);
}

static size_t write_failure(const void *ctx, char *buf, size_t cap) {
  return inspect_write_json_failure(ctx, buf, cap);
}

static void check_name_escape(const uint8_t *text, size_t len, size_t small_cap) {
  struct {
    const uint8_t *p;
    size_t n;
  } name = {text, len};
  size_t n = 0;
  char *out = write_full(write_name, &name, &n);
  check_writer_contract(write_name, &name, out, n, small_cap);
  const uint8_t *o = (const uint8_t *)out;
  for (size_t i = 0; i < n;) {
    FUZZ_CHECK(o[i] >= 0x20 && o[i] != 0x7F);
    if (o[i] == '\\') {
      FUZZ_CHECK(i + 1 < n && (o[i + 1] == '\\' || o[i + 1] == 'x'));
      i += o[i + 1] == 'x' ? 4 : 2;
      continue;
    }
    size_t seq = utf8_sequence(o + i, n - i);
    FUZZ_CHECK(seq > 0);
    FUZZ_CHECK(!(seq == 2 && o[i] == 0xC2 && o[i + 1] < 0xA0)); /* U+0080..U+009F */
    i += seq;
  }
  inspect_failure failure = {"INPUT", len, (len & 1u) != 0, len, len + 1, out};
  size_t json_len = 0;
  char *json = write_full(write_failure, &failure, &json_len);
  check_writer_contract(write_failure, &failure, json, json_len, small_cap);
  memset(&facts, 0, sizeof facts);
  facts.valid = -1;
  facts.error = -1;
  json_reader r = {json, json + json_len, 0};
  FUZZ_CHECK(json_value(&r, &facts, ROLE_TOP));
  FUZZ_CHECK(r.end - r.p == 1 && *r.p == '\n');
  FUZZ_CHECK(facts.valid == 0 && facts.has_handles && facts.handles == 0 && facts.error == 1);
  FUZZ_CHECK(facts.numbers_seen == 7 && facts.value == len);
  FUZZ_CHECK(facts.message_len == n && memcmp(facts.message, out, n) == 0);
  free(json);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) {
    return 0;
  }
  uint8_t flags = data[0];
  const uint8_t *body = data + 1;
  size_t body_len = size - 1;
  if (body_len > sizeof hex_bytes) {
    return 0; /* the tool refuses inputs this large long before (CLI-INPUT-3) */
  }
  bool hex = (flags & 1u) != 0;
  inspect_input_kind kind = (flags & 2u) != 0 ? INSPECT_INPUT_HANDLE : INSPECT_INPUT_TABLE;
  size_t small_cap = flags >> 2;
  const uint8_t *bytes = body;
  size_t bytes_len = body_len;
  if (hex) {
    if (!check_hex(body, body_len, small_cap, &bytes_len)) {
      return 0;
    }
    bytes = hex_bytes;
  }
  /* An exact-size copy: a read past the input is a read past the block. */
  uint8_t *input = malloc(bytes_len > 0 ? bytes_len : 1);
  FUZZ_CHECK(input != NULL);
  memcpy(input, bytes, bytes_len);
  check_analysis(bytes_len > 0 ? input : NULL, bytes_len, kind);
  check_reports(small_cap);
  free(input);
  if (body_len <= 512) {
    check_json_string(body, body_len, small_cap);
  }
  if (body_len <= 128) {
    check_name_escape(body, body_len, small_cap);
  }
  return 0;
}

FUZZ_ORACLE_END
