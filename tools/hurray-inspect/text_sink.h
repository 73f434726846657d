/*
 * A bounded, snprintf-style text writer: the reports append to it piece by
 * piece, it never writes past its buffer, keeps the text NUL-terminated and
 * counts the full length so a caller can size a second attempt.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_INSPECT_TEXT_SINK_H
#define HURRAY_INSPECT_TEXT_SINK_H

#include <stddef.h>

typedef struct text_sink {
  char *buf;
  size_t cap;
  /** Length of everything appended so far, including what did not fit. */
  size_t len;
} text_sink;

/** Starts an empty text in buf[0..cap); buf may be NULL when cap is 0. */
void text_sink_init(text_sink *sink, char *buf, size_t cap);

/** Appends n bytes of text (which may hold any byte, NUL included). */
void text_sink_append(text_sink *sink, const char *text, size_t n);

/** Appends a NUL-terminated string. */
void text_sink_puts(text_sink *sink, const char *text);

/** Appends n copies of the character c. */
void text_sink_repeat(text_sink *sink, char c, size_t n);

/**
 * Length of the well-formed UTF-8 sequence starting at s[0] (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0 when none
 * starts there; available (> 0) bounds what may be read. *code_point (may
 * be NULL) gets the value.
 */
size_t text_sink_utf8_sequence(const unsigned char *s, size_t available, unsigned long *code_point);

/**
 * Appends n bytes of a name (a file name, an argument) so that a terminal
 * shows it and nothing else (specs/cli.md CLI-OUT-2): printable ASCII and
 * printable UTF-8 as they are, a backslash as two, and every other byte
 * (control characters, DEL, C1 controls, invisible format and bidirectional
 * controls, bytes of invalid UTF-8) as \xNN.
 */
void text_sink_escaped(text_sink *sink, const char *text, size_t n);

/** Appends formatted text. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void text_sink_printf(text_sink *sink, const char *format, ...);

#endif /* HURRAY_INSPECT_TEXT_SINK_H */
