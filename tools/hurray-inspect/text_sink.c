/*
 * Bounded text writer behind the reports (see text_sink.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "text_sink.h"

#include <stdarg.h>
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
