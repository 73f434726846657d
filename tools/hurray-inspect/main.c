/*
 * hurray-inspect: shows how libhurray reads a buffer table or handle, and
 * builds them from flags. Rules: specs/cli.md; manual: docs/cli.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hurray/version.h"
#include "inspect.h"

static const char program[] = "hurray-inspect";

static int usage_error(const char *message) {
  fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program, message, program);
  return INSPECT_EXIT_USAGE;
}

/* Writes text to stdout; an output error (a full disk, a closed pipe) is
 * reported rather than lost. */
static int emit(const char *text, size_t len, int status) {
  if ((len > 0u && fwrite(text, 1, len, stdout) != len) || fflush(stdout) != 0 ||
      ferror(stdout)) {
    fprintf(stderr, "%s: cannot write the output\n", program);
    return INSPECT_EXIT_USAGE;
  }
  return status;
}

static const char *input_name(const inspect_options *options) {
  bool from_stdin = options->path == NULL || strcmp(options->path, "-") == 0;
  return from_stdin ? "standard input" : options->path;
}

/* Writes a report in the size the first pass measures. */
static int emit_report(const inspect_result *result, const inspect_options *options, int status) {
  const char *name = input_name(options);
  size_t len = options->json ? inspect_write_json(result, NULL, 0)
                             : inspect_write_text_report(result, name, NULL, 0);
  char *text = malloc(len + 1u);
  if (text == NULL) {
    fprintf(stderr, "%s: out of memory for a %zu-byte report\n", program, len);
    return INSPECT_EXIT_USAGE;
  }
  if (options->json) {
    inspect_write_json(result, text, len + 1u);
  } else {
    inspect_write_text_report(result, name, text, len + 1u);
  }
  int exit_status = emit(text, len, status);
  free(text);
  return exit_status;
}

static int run_inspect(const inspect_options *options) {
  char message[512];
  uint8_t *input = NULL;
  size_t len = 0;
  if (!inspect_read_input(options->path, &input, &len, message, sizeof message)) {
    fprintf(stderr, "%s: %s\n", program, message);
    return INSPECT_EXIT_USAGE;
  }
  uint8_t *bytes = input;
  uint8_t *decoded = NULL;
  if (options->hex) {
    decoded = malloc(inspect_hex_max_bytes(len) + 1u);
    inspect_hex_error hex_error;
    size_t decoded_len = 0;
    if (decoded == NULL) {
      free(input);
      fprintf(stderr, "%s: out of memory\n", program);
      return INSPECT_EXIT_USAGE;
    }
    if (inspect_parse_hex((const char *)input, len, decoded, inspect_hex_max_bytes(len),
                          &decoded_len, &hex_error) != INSPECT_HEX_OK) {
      inspect_hex_error_format(&hex_error, message, sizeof message);
      fprintf(stderr, "%s: %s: %s\n", program, input_name(options), message);
      free(decoded);
      free(input);
      return INSPECT_EXIT_USAGE;
    }
    bytes = decoded;
    len = decoded_len;
  }
  inspect_result *result = malloc(sizeof *result);
  if (result == NULL) {
    free(decoded);
    free(input);
    fprintf(stderr, "%s: out of memory\n", program);
    return INSPECT_EXIT_USAGE;
  }
  hurray_status status = inspect_analyze_flags(
      bytes, len, options->kind,
      options->allow_empty_table ? HURRAY_BUFFER_TABLE_ALLOW_EMPTY : 0u, result);
  free(decoded);
  free(input);
  int exit_status = emit_report(result, options,
                                status == HURRAY_OK ? INSPECT_EXIT_VALID : INSPECT_EXIT_REJECTED);
  free(result);
  return exit_status;
}

static int run_encode(const inspect_options *options) {
  static char out[3u * HURRAY_BUFFER_TABLE_MAX_SIZE + 2u * HURRAY_BUFFER_TABLE_MAX_HANDLES + 16u];
  size_t len = 0;
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_status status = inspect_encode(options, out, sizeof out, &len, &err);
  if (status != HURRAY_OK) {
    char message[320];
    hurray_error_format(&err, message, sizeof message);
    fprintf(stderr, "%s: encode: rejected %s: %s\n", program, hurray_status_name(status), message);
    return INSPECT_EXIT_REJECTED;
  }
  return emit(out, len, INSPECT_EXIT_VALID);
}

int main(int argc, char *argv[]) {
  static inspect_options options;
  char message[512];
  if (!inspect_parse_arguments(argc, argv, &options, message, sizeof message)) {
    return usage_error(message);
  }
  switch (options.command) {
    case INSPECT_COMMAND_HELP:
      inspect_print_usage(stdout);
      return emit("", 0, INSPECT_EXIT_VALID);
    case INSPECT_COMMAND_VERSION:
      printf("%s (libhurray %s)\n", program, hurray_version());
      return emit("", 0, INSPECT_EXIT_VALID);
    case INSPECT_COMMAND_ENCODE:
      return run_encode(&options);
    case INSPECT_COMMAND_INSPECT:
      break;
  }
  return run_inspect(&options);
}
