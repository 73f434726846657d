/*
 * Strict JSON syntax checker for the tests (see json_check.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "json_check.h"

#include <stdint.h>
#include <string.h>

typedef struct cursor {
  const uint8_t *p;
  const uint8_t *end;
  int depth;
} cursor;

static bool value(cursor *c);

static void skip_space(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
    c->p++;
  }
}

static bool literal(cursor *c, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0) {
    return false;
  }
  c->p += n;
  return true;
}

static bool is_hex(uint8_t b) {
  return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
}

/* One UTF-8 sequence of a string, checked against RFC 3629. */
static bool utf8(cursor *c) {
  uint8_t b = *c->p;
  size_t n;
  uint32_t cp;
  if (b < 0x80u) {
    c->p++;
    return true;
  } else if ((b & 0xE0u) == 0xC0u) {
    n = 2;
    cp = b & 0x1Fu;
  } else if ((b & 0xF0u) == 0xE0u) {
    n = 3;
    cp = b & 0x0Fu;
  } else if ((b & 0xF8u) == 0xF0u) {
    n = 4;
    cp = b & 0x07u;
  } else {
    return false;
  }
  if ((size_t)(c->end - c->p) < n) {
    return false;
  }
  for (size_t k = 1; k < n; k++) {
    if ((c->p[k] & 0xC0u) != 0x80u) {
      return false;
    }
    cp = (cp << 6) | (c->p[k] & 0x3Fu);
  }
  static const uint32_t smallest[5] = {0, 0, 0x80u, 0x800u, 0x10000u};
  if (cp < smallest[n] || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu)) {
    return false;
  }
  c->p += n;
  return true;
}

static bool string(cursor *c) {
  if (c->p >= c->end || *c->p != '"') {
    return false;
  }
  c->p++;
  while (c->p < c->end) {
    uint8_t b = *c->p;
    if (b == '"') {
      c->p++;
      return true;
    }
    if (b < 0x20u) {
      return false;
    }
    if (b == '\\') {
      c->p++;
      if (c->p >= c->end) {
        return false;
      }
      uint8_t e = *c->p++;
      if (e == 'u') {
        for (int k = 0; k < 4; k++) {
          if (c->p >= c->end || !is_hex(*c->p)) {
            return false;
          }
          c->p++;
        }
      } else if (strchr("\"\\/bfnrt", e) == NULL || e == '\0') {
        return false;
      }
      continue;
    }
    if (!utf8(c)) {
      return false;
    }
  }
  return false;
}

static bool digits(cursor *c) {
  const uint8_t *start = c->p;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    c->p++;
  }
  return c->p > start;
}

static bool number(cursor *c) {
  if (c->p < c->end && *c->p == '-') {
    c->p++;
  }
  if (c->p < c->end && *c->p == '0') {
    c->p++;
  } else if (!digits(c)) {
    return false;
  }
  if (c->p < c->end && *c->p == '.') {
    c->p++;
    if (!digits(c)) {
      return false;
    }
  }
  if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
    c->p++;
    if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
      c->p++;
    }
    if (!digits(c)) {
      return false;
    }
  }
  return true;
}

static bool members(cursor *c, uint8_t close, bool keyed) {
  c->p++; /* the opening bracket */
  if (++c->depth > 64) {
    return false;
  }
  skip_space(c);
  if (c->p < c->end && *c->p == close) {
    c->p++;
    c->depth--;
    return true;
  }
  for (;;) {
    skip_space(c);
    if (keyed) {
      if (!string(c)) {
        return false;
      }
      skip_space(c);
      if (c->p >= c->end || *c->p != ':') {
        return false;
      }
      c->p++;
    }
    if (!value(c)) {
      return false;
    }
    skip_space(c);
    if (c->p >= c->end) {
      return false;
    }
    if (*c->p == ',') {
      c->p++;
      continue;
    }
    if (*c->p == close) {
      c->p++;
      c->depth--;
      return true;
    }
    return false;
  }
}

static bool value(cursor *c) {
  skip_space(c);
  if (c->p >= c->end) {
    return false;
  }
  switch (*c->p) {
    case '{': return members(c, '}', true);
    case '[': return members(c, ']', false);
    case '"': return string(c);
    case 't': return literal(c, "true");
    case 'f': return literal(c, "false");
    case 'n': return literal(c, "null");
    default: return number(c);
  }
}

bool json_check_document(const char *text, size_t len) {
  cursor c = {(const uint8_t *)text, (const uint8_t *)text + len, 0};
  if (!value(&c)) {
    return false;
  }
  skip_space(&c);
  return c.p == c.end;
}
