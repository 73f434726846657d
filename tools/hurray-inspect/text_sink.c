/*
 * Bounded text writer behind the reports (see text_sink.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "text_sink.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void text_sink_init(text_sink *sink, char *buf, size_t cap) {
  sink->buf = cap > 0u ? buf : NULL;
  sink->cap = sink->buf != NULL ? cap : 0u;
  sink->len = 0;
  if (sink->cap > 0u) {
    sink->buf[0] = '\0';
  }
}

void text_sink_append(text_sink *sink, const char *text, size_t n) {
  /* Room for text before the terminating NUL, if any is left. */
  if (sink->cap > 0u && sink->len < sink->cap - 1u) {
    size_t room = sink->cap - 1u - sink->len;
    size_t copied = n < room ? n : room;
    memcpy(sink->buf + sink->len, text, copied);
    sink->buf[sink->len + copied] = '\0';
  }
  sink->len += n;
}

void text_sink_puts(text_sink *sink, const char *text) {
  text_sink_append(sink, text, strlen(text));
}

void text_sink_repeat(text_sink *sink, char c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    text_sink_append(sink, &c, 1);
  }
}

void text_sink_printf(text_sink *sink, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n;
  if (sink->cap > 0u && sink->len < sink->cap) {
    n = vsnprintf(sink->buf + sink->len, sink->cap - sink->len, format, args);
  } else {
    n = vsnprintf(NULL, 0, format, args);
  }
  va_end(args);
  if (n > 0) {
    sink->len += (size_t)n;
  }
}

size_t text_sink_utf8_sequence(const unsigned char *s, size_t available,
                               unsigned long *code_point) {
  unsigned char b0 = s[0];
  size_t n;
  unsigned char low = 0x80u; /* bounds of the second byte */
  unsigned char high = 0xBFu;
  unsigned long cp;
  if (b0 < 0x80u) {
    n = 1;
    cp = b0;
  } else if (b0 >= 0xC2u && b0 <= 0xDFu) {
    n = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0u && b0 <= 0xEFu) {
    n = 3;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0u) {
      low = 0xA0u; /* overlong */
    } else if (b0 == 0xEDu) {
      high = 0x9Fu; /* surrogates */
    }
  } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
    n = 4;
    cp = b0 & 0x07u;
    if (b0 == 0xF0u) {
      low = 0x90u; /* overlong */
    } else if (b0 == 0xF4u) {
      high = 0x8Fu; /* above U+10FFFF */
    }
  } else {
    return 0;
  }
  if (n > 1u) {
    if (available < n || s[1] < low || s[1] > high) {
      return 0;
    }
    for (size_t k = 1; k < n; k++) {
      if (k > 1u && (s[k] < 0x80u || s[k] > 0xBFu)) {
        return 0;
      }
      cp = (cp << 6) | (s[k] & 0x3Fu);
    }
  }
  if (code_point != NULL) {
    *code_point = cp;
  }
  return n;
}

/* Code points a terminal draws as nothing or uses to reorder or hide text:
 * C1 controls, the Arabic letter mark, zero-width and direction marks, line
 * and paragraph separators, bidirectional embeddings, overrides and
 * isolates, invisible operators, the byte order mark, interlinear
 * annotation controls. */
static bool invisible(unsigned long cp) {
  return (cp >= 0x80u && cp <= 0x9Fu) || cp == 0x61Cu || (cp >= 0x200Bu && cp <= 0x200Fu) ||
         (cp >= 0x2028u && cp <= 0x202Eu) || (cp >= 0x2060u && cp <= 0x206Fu) || cp == 0xFEFFu ||
         (cp >= 0xFFF9u && cp <= 0xFFFBu);
}

void text_sink_escaped(text_sink *sink, const char *text, size_t n) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i = 0;
  while (i < n) {
    unsigned long cp = 0;
    size_t len = text_sink_utf8_sequence(s + i, n - i, &cp);
    bool shown = len > 0u && (len > 1u ? !invisible(cp) : (cp >= 0x20u && cp <= 0x7Eu));
    if (!shown) {
      /* One byte at a time: an escaped sequence shows every byte it had. */
      size_t bytes = len > 0u ? len : 1u;
      for (size_t k = 0; k < bytes; k++) {
        text_sink_printf(sink, "\\x%02X", (unsigned)s[i + k]);
      }
      i += bytes;
    } else if (s[i] == '\\') {
      text_sink_puts(sink, "\\\\");
      i++;
    } else {
      text_sink_append(sink, text + i, len);
      i += len;
    }
  }
}
