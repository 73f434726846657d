/*
 * hurray-inspect internals that work on memory only: hex text parsing, the
 * analysis of a table or handle, the text report and the JSON writer.
 *
 * This header is internal to the tool (not installed, not part of libhurray's
 * API) and stable: the fuzz harnesses compile the files below and call these
 * functions on arbitrary bytes.
 *
 * For a harness
 *   Sources:  tools/hurray-inspect/{hex_input.c, analyze.c, report_text.c,
 *             json_writer.c, text_sink.c} (or the meson static library
 *             `hurray_inspect_core_dep` declared in tools/meson.build), linked
 *             with libhurray.
 *   May call: inspect_parse_hex, inspect_hex_error_format, inspect_analyze,
 *             inspect_write_text_report, inspect_write_json,
 *             inspect_json_write_string, inspect_write_json_failure,
 *             inspect_escape_name.
 *   Contract: every function accepts any bytes and any length (text need not
 *             be NUL-terminated, may hold NUL bytes); writers never write past
 *             `cap` and always NUL-terminate when cap > 0; nothing allocates,
 *             nothing touches global state, nothing reads past `len`. The
 *             report writers take a result that inspect_analyze() filled.
 *
 * Rules of the tool's own (hex syntax, what --handle accepts, exit codes, the
 * JSON shape) are in specs/cli.md under CLI-... IDs; the protocol rules the
 * analysis applies are libhurray's (specs/buffer-protocol.md, BP-...).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_INSPECT_H
#define HURRAY_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"

/* ------------------------------------------------------------------------ */
/* Hex text input (CLI-HEX-1..4)                                            */
/* ------------------------------------------------------------------------ */

typedef enum inspect_hex_status {
  INSPECT_HEX_OK = 0,
  /** A character that is neither a hex digit, whitespace nor in a comment. */
  INSPECT_HEX_BAD_CHARACTER = 1,
  /** An odd number of digits: the last digit has no partner. */
  INSPECT_HEX_ODD_DIGITS = 2,
  /** More bytes than the caller's capacity. */
  INSPECT_HEX_CAPACITY = 3,
  /** text or out or out_len is NULL (text may be NULL when text_len is 0). */
  INSPECT_HEX_NULL_ARGUMENT = 4
} inspect_hex_status;

/** Where hex parsing stopped and why. */
typedef struct inspect_hex_error {
  inspect_hex_status status;
  /** Offset in the text, from 0, of the bad character, the unpaired digit, or
   *  the first digit of the byte that did not fit. */
  size_t offset;
  /** The same position as a 1-based line and column (bytes, not characters). */
  size_t line;
  size_t column;
  /** BAD_CHARACTER: the offending byte. */
  uint8_t character;
} inspect_hex_error;

/** The most bytes hex text of `text_len` characters can yield: text_len / 2. */
size_t inspect_hex_max_bytes(size_t text_len);

/**
 * Parses hex text (CLI-HEX-1..4): pairs of hex digits, either case; ASCII
 * whitespace ignored anywhere, even between the two digits of a byte; '#'
 * starts a comment to the end of the line. No "0x" prefixes. Text with no
 * digit yields zero bytes and INSPECT_HEX_OK (the protocol then decides).
 * On success *out_len is the byte count; on failure *err (may be NULL) says
 * where, *out_len is left untouched and out[] may hold a prefix.
 */
inspect_hex_status inspect_parse_hex(const char *text, size_t text_len, uint8_t *out, size_t cap,
                                     size_t *out_len, inspect_hex_error *err);

/** One-line message for a hex error ("bad character 'x' (0x78) at offset 3,
 *  line 1, column 4"); snprintf-style: returns the full length. */
size_t inspect_hex_error_format(const inspect_hex_error *err, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Analysis                                                                 */
/* ------------------------------------------------------------------------ */

/** What the input holds: a buffer table (default) or one handle (--handle). */
typedef enum inspect_input_kind {
  INSPECT_INPUT_TABLE = 0,
  INSPECT_INPUT_HANDLE = 1
} inspect_input_kind;

/** The six fields of a handle in wire order (BP-WIRE-1). */
typedef enum inspect_field {
  INSPECT_FIELD_BYTE_SIZE = 0,
  INSPECT_FIELD_ALIGNMENT = 1,
  INSPECT_FIELD_DEVICE_TAG = 2,
  INSPECT_FIELD_SYNC_MODE = 3,
  INSPECT_FIELD_MEMORY_CLASS = 4,
  INSPECT_FIELD_RESERVED = 5
} inspect_field;
#define INSPECT_FIELD_COUNT 6

/** One 16-byte handle as found in the input, valid or not. */
typedef struct inspect_handle_view {
  /** Offset of its first byte in the input. */
  size_t offset;
  uint8_t bytes[HURRAY_BUFFER_HANDLE_SIZE];
  /** The field values as written, whether or not they are acceptable. */
  hurray_buffer_handle fields;
  uint8_t reserved;
  /** Each field judged on its own by libhurray (OK, or the status that field
   *  alone earns); see analyze.c for how each is asked. */
  hurray_status field_status[INSPECT_FIELD_COUNT];
  /** libhurray's answer for the whole handle (hurray_buffer_handle_decode,
   *  BP-ORDER-1); its index is the handle's position. */
  hurray_status status;
  hurray_error error;
} inspect_handle_view;

/** How many of the extra bytes inspect_result keeps for the report. */
#define INSPECT_EXTRA_BYTES_KEPT 8

/** Everything the reports print; filled by inspect_analyze(). */
typedef struct inspect_result {
  inspect_input_kind kind;
  /** Bytes of input. */
  size_t input_len;
  /** Table input with at least one byte: the count byte. */
  bool has_count;
  uint8_t count;
  /** Bytes the table (or handle) occupies: 1 + 16 * count, or 16. 0 for a
   *  table input with no count byte. */
  size_t expected_len;
  /** Complete handles the input holds within what the table declares
   *  (at most count), or 1 for a handle input of 16 or more bytes. */
  size_t handle_count;
  inspect_handle_view handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  /** Bytes after the complete handles: an incomplete handle (the input ends
   *  inside it) or, when every declared handle is complete, bytes after the
   *  table or handle. extra_len counts them all; extra_bytes holds the first
   *  INSPECT_EXTRA_BYTES_KEPT of them. */
  size_t extra_offset;
  size_t extra_len;
  bool extra_is_trailing;
  uint8_t extra_bytes[INSPECT_EXTRA_BYTES_KEPT];
  /** libhurray's verdict on the whole input (CLI-INPUT-1, CLI-INPUT-2). */
  hurray_status status;
  /** The error when status != HURRAY_OK; zeroed otherwise. */
  hurray_error error;
  /** hurray_error_format(&error); empty when valid. */
  char message[256];
} inspect_result;

/**
 * Analyses `len` bytes as a table (hurray_buffer_table_decode_exact: count,
 * handles, colocation, then trailing bytes) or as one handle (exactly 16
 * bytes: TRUNCATED / TRAILING_BYTES otherwise, CLI-INPUT-2, then
 * hurray_buffer_handle_decode). `input` may be NULL when len is 0. Fills all
 * of *out (about 75 KiB: give it static or heap storage rather than a small
 * stack). Returns out->status.
 */
hurray_status inspect_analyze(const uint8_t *input, size_t len, inspect_input_kind kind,
                              inspect_result *out);

/**
 * As inspect_analyze(), with the table flags of
 * hurray_buffer_table_decode_exact_flags() (HURRAY_BUFFER_TABLE_ALLOW_EMPTY:
 * a table of count 0 is valid, BP-TABLE-7). Ignored for handle input.
 */
hurray_status inspect_analyze_flags(const uint8_t *input, size_t len, inspect_input_kind kind,
                                    uint32_t table_flags, inspect_result *out);

/* ------------------------------------------------------------------------ */
/* Reports                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * The annotated table a person reads: one row per field (offset, bytes,
 * field, decoded value, meaning, verdict), each handle's verdict, then the
 * overall verdict with libhurray's message. `input_name` (may be NULL) names
 * the input in the heading, escaped (CLI-OUT-2). snprintf-style: writes at most cap bytes, always
 * NUL-terminated when cap > 0, returns the full length of the report.
 */
size_t inspect_write_text_report(const inspect_result *result, const char *input_name, char *buf,
                                 size_t cap);

/**
 * The JSON form (CLI-JSON-1): one object and a newline,
 * {"valid", "handles": [...], "error": {...} or null}. snprintf-style.
 */
size_t inspect_write_json(const inspect_result *result, char *buf, size_t cap);

/**
 * Writes `len` bytes of `text` as a JSON string literal, quotes included
 * (CLI-JSON-2): '"' and '\\' escaped, control characters as \uXXXX (\n, \t,
 * \r, \b, \f short forms), valid UTF-8 kept, each byte of invalid UTF-8 as
 * \uFFFD. snprintf-style.
 */
size_t inspect_json_write_string(const char *text, size_t len, char *buf, size_t cap);

/**
 * Why the tool stopped before libhurray gave a verdict (specs/cli.md
 * CLI-JSON-3): a usage error, unreadable input, bad hex text. Reported with
 * exit status 2.
 */
typedef struct inspect_failure {
  /** "USAGE", "INPUT", "BAD_HEX" or "OUT_OF_MEMORY" (never a libhurray name). */
  const char *status;
  /** BAD_HEX: the offset of the bad character or unpaired digit; else 0. */
  uint64_t value;
  /** BAD_HEX: line and column of that offset (CLI-HEX-3). */
  bool has_position;
  size_t line;
  size_t column;
  /** The same text the tool prints on standard error without --json. */
  const char *message;
} inspect_failure;

/**
 * The --json form of a failure (CLI-JSON-3): one object of the CLI-JSON-1
 * shape, "valid": false, "handles": [], "error" with the failure's status,
 * value, expected 0, index 0 (and "line", "column" for BAD_HEX) and message;
 * then a newline. snprintf-style.
 */
size_t inspect_write_json_failure(const inspect_failure *failure, char *buf, size_t cap);

/**
 * Writes `len` bytes of a name (a file name, an argument) escaped for a
 * terminal (CLI-OUT-2): printable ASCII and printable UTF-8 kept, '\\'
 * doubled, every other byte as \xNN. snprintf-style.
 */
size_t inspect_escape_name(const char *name, size_t len, char *buf, size_t cap);

#endif /* HURRAY_INSPECT_H */
