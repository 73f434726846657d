/*
 * A small JSON reader for the cli_input harness (fuzz/fuzz_cli_input.c),
 * enough to check CLI-JSON-1/2: what hurray-inspect wrote parses as JSON,
 * and the report's facts the checks compare come out of it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cli_readers.h"
#include "fuzz_check.h"

FUZZ_ORACLE_BEGIN

void json_space(json_reader *r) {
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

size_t utf8_put(uint32_t cp, uint8_t *out) {
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
size_t utf8_sequence(const uint8_t *s, size_t n) {
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

bool json_string(json_reader *r, uint8_t *out, size_t *out_len) {
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

bool json_value(json_reader *r, json_facts *facts, int role) {
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

FUZZ_ORACLE_END
