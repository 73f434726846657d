/*
 * hurray-inspect's command line: options, input reading, encode mode and the
 * help text. Internal to the tool; the memory-only parts the fuzz harnesses
 * use are in inspect.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_INSPECT_CLI_H
#define HURRAY_INSPECT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hurray/buffer.h"
#include "inspect.h"

/** Exit statuses (specs/cli.md CLI-EXIT-1). */
enum { INSPECT_EXIT_VALID = 0, INSPECT_EXIT_REJECTED = 1, INSPECT_EXIT_USAGE = 2 };

/** Largest input read, in bytes (CLI-INPUT-3). */
#define INSPECT_MAX_INPUT_BYTES ((size_t)16 * 1024 * 1024)

typedef enum inspect_command {
  INSPECT_COMMAND_INSPECT = 0,
  INSPECT_COMMAND_ENCODE = 1,
  INSPECT_COMMAND_HELP = 2,
  INSPECT_COMMAND_VERSION = 3
} inspect_command;

/** Which fields of an encoded handle were given on the command line. */
enum {
  ENCODE_SET_ALIGNMENT = 1u << 0,
  ENCODE_SET_DEVICE = 1u << 1,
  ENCODE_SET_SYNC = 1u << 2,
  ENCODE_SET_CLASS = 1u << 3
};

/** One handle of encode mode: the values given, defaults elsewhere (CLI-ENC-1). */
typedef struct encode_handle_spec {
  hurray_buffer_handle fields;
  unsigned fields_set;
} encode_handle_spec;

typedef struct inspect_options {
  inspect_command command;
  /** Inspect: table or handle input; encode: table or one handle output. */
  inspect_input_kind kind;
  bool hex;
  bool json;
  /** Encode: write the bytes instead of hex text. */
  bool raw_output;
  /** Inspect: a table of count 0 is legal (--allow-empty-table, BP-TABLE-7). */
  bool allow_empty_table;
  /** Inspect: the input file; NULL or "-" for standard input. */
  const char *path;
  /** Encode: handles given (each --size), which may exceed what a table
   *  holds; the first HURRAY_BUFFER_TABLE_MAX_HANDLES are kept in handles[]. */
  size_t handle_count;
  encode_handle_spec handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  /** Encode: the handle being parsed once handles[] is full. */
  encode_handle_spec beyond_table;
} inspect_options;

/**
 * Parses argv (argv[0] is the program name). On a usage error returns false
 * and writes a message naming the offending argument into message[0..cap).
 */
bool inspect_parse_arguments(int argc, char *const argv[], inspect_options *out, char *message,
                             size_t cap);

/** Parses an unsigned decimal or 0x-hexadecimal number no larger than max. */
bool inspect_parse_number(const char *text, uint64_t max, uint64_t *out);

/** A device tag by name (hurray_device_tag_name of a named tag) or number 0..255. */
bool inspect_parse_device_tag(const char *text, uint8_t *out);
/** A sync mode by name or number 0..255. */
bool inspect_parse_sync_mode(const char *text, uint8_t *out);
/** A memory class by name or number 0..255. */
bool inspect_parse_memory_class(const char *text, uint8_t *out);

/**
 * Reads all of a file, or standard input when path is NULL or "-", into a
 * malloc'd buffer (*data, which the caller frees; non-NULL even when empty).
 * Returns false with a message naming the file (escaped, CLI-OUT-2) on
 * failure or when the input exceeds INSPECT_MAX_INPUT_BYTES; a cap of
 * 4 * strlen(path) + 512 holds every such message whole.
 */
bool inspect_read_input(const char *path, uint8_t **data, size_t *len, char *message, size_t cap);

/**
 * Encode mode in memory: checks the handles with libhurray (CLI-ENC-3) and
 * writes their hex text (CLI-ENC-4) or raw bytes into out[0..cap) (at most
 * HURRAY_BUFFER_TABLE_MAX_SIZE bytes raw; 3 * that as hex suffices). *len gets
 * the bytes written. On rejection returns libhurray's status and fills *err.
 */
hurray_status inspect_encode(const inspect_options *options, char *out, size_t cap, size_t *len,
                             hurray_error *err);

/**
 * The message for a rejection inspect_encode() returned: libhurray's
 * (hurray_error_format), except for a table of more handles than a count
 * byte holds, which names the count and BP-TABLE-1. snprintf-style.
 */
size_t inspect_encode_error_format(const inspect_options *options, const hurray_error *err,
                                   char *buf, size_t cap);

/** The --help text. */
void inspect_print_usage(FILE *stream);

#endif /* HURRAY_INSPECT_CLI_H */
