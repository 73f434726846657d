/*
 * hurray-inspect: shows how libhurray reads a buffer table or handle, and
 * builds them from flags. Rules: specs/cli.md; manual: docs/cli.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hurray/version.h"
#include "inspect.h"

static const char program[] = "hurray-inspect";

/* --json anywhere among the options (before "--"): every exit, usage errors
 * included, then prints one JSON object (CLI-JSON-3). The parser stops at the
 * first error, so this is decided before it runs. */
static bool json_requested(int argc, char *argv[]) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      return false;
    }
    if (strcmp(argv[i], "--json") == 0) {
      return true;
    }
  }
  return false;
}

/* A malloc'd copy of formatted text, however long (names are never cut). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static char *
format_text(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0) {
    return NULL;
  }
  char *text = malloc((size_t)n + 1u);
  if (text != NULL) {
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1u, format, args);
    va_end(args);
  }
  return text;
}

/* A name escaped for the terminal (CLI-OUT-2), malloc'd. */
static char *escaped_name(const char *name) {
  size_t len = strlen(name);
  size_t n = inspect_escape_name(name, len, NULL, 0);
  char *text = malloc(n + 1u);
  if (text != NULL) {
    inspect_escape_name(name, len, text, n + 1u);
  }
  return text;
}

/* An output error (a full disk, a closed pipe) is reported, with the reason,
 * rather than lost (CLI-EXIT-1). */
static int output_failed(int error_number) {
  fprintf(stderr, "%s: cannot write standard output: %s\n", program,
          error_number != 0 ? strerror(error_number) : "write error");
  return INSPECT_EXIT_USAGE;
}

/* Writes text to stdout and flushes it. */
static int emit(const char *text, size_t len, int status) {
  errno = 0;
  if (len > 0u && fwrite(text, 1, len, stdout) != len) {
    return output_failed(errno);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    return output_failed(errno);
  }
  return status;
}

/* Reports a failure before any verdict (exit 2): one JSON object on stdout
 * with --json (CLI-JSON-3), otherwise the message on stderr. */
static int report_failure(bool json, inspect_failure failure, bool suggest_help) {
  if (failure.message == NULL) {
    failure.message = "out of memory while reporting an error";
    failure.status = "OUT_OF_MEMORY";
  }
  if (!json) {
    fprintf(stderr, "%s: %s\n", program, failure.message);
    if (suggest_help) {
      fprintf(stderr, "Try '%s --help'.\n", program);
    }
    return INSPECT_EXIT_USAGE;
  }
  size_t len = inspect_write_json_failure(&failure, NULL, 0);
  char *text = malloc(len + 1u);
  if (text == NULL) {
    fprintf(stderr, "%s: %s\n", program, failure.message);
    return INSPECT_EXIT_USAGE;
  }
  inspect_write_json_failure(&failure, text, len + 1u);
  int status = emit(text, len, INSPECT_EXIT_USAGE);
  free(text);
  return status;
}

static int fail_with(bool json, const char *status, char *message) {
  inspect_failure failure = {status, 0, false, 0, 0, message};
  int exit_status = report_failure(json, failure, false);
  free(message);
  return exit_status;
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
    return fail_with(options->json, "OUT_OF_MEMORY",
                     format_text("out of memory for a %zu-byte report", len));
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

/* Parses hex text in place of the raw input; on bad text reports it. */
static bool decode_hex(const inspect_options *options, uint8_t **bytes, size_t *len,
                       int *exit_status) {
  uint8_t *decoded = malloc(inspect_hex_max_bytes(*len) + 1u);
  if (decoded == NULL) {
    *exit_status = fail_with(options->json, "OUT_OF_MEMORY", format_text("out of memory"));
    return false;
  }
  inspect_hex_error hex_error;
  size_t decoded_len = 0;
  if (inspect_parse_hex((const char *)*bytes, *len, decoded, inspect_hex_max_bytes(*len),
                        &decoded_len, &hex_error) != INSPECT_HEX_OK) {
    free(decoded);
    size_t n = inspect_hex_error_format(&hex_error, NULL, 0);
    char *what = malloc(n + 1u);
    char *name = escaped_name(input_name(options));
    char *message = NULL;
    if (what != NULL && name != NULL) {
      inspect_hex_error_format(&hex_error, what, n + 1u);
      message = format_text("%s: %s", name, what);
    }
    free(what);
    free(name);
    inspect_failure failure = {"BAD_HEX",      hex_error.offset, true,
                               hex_error.line, hex_error.column, message};
    *exit_status = report_failure(options->json, failure, false);
    free(message);
    return false;
  }
  free(*bytes);
  *bytes = decoded;
  *len = decoded_len;
  return true;
}

static int run_inspect(const inspect_options *options) {
  /* The longest message inspect_read_input writes: the name escaped
   * (CLI-OUT-2, at most 4 bytes a byte) and a system error string. */
  size_t cap = (options->path != NULL ? 4u * strlen(options->path) : 0u) + 512u;
  char *message = malloc(cap);
  if (message == NULL) {
    return fail_with(options->json, "OUT_OF_MEMORY", NULL);
  }
  uint8_t *input = NULL;
  size_t len = 0;
  if (!inspect_read_input(options->path, &input, &len, message, cap)) {
    return fail_with(options->json, "INPUT", message);
  }
  free(message);
  int exit_status = INSPECT_EXIT_USAGE;
  if (options->hex && !decode_hex(options, &input, &len, &exit_status)) {
    free(input);
    return exit_status;
  }
  inspect_result *result = malloc(sizeof *result);
  if (result == NULL) {
    free(input);
    return fail_with(options->json, "OUT_OF_MEMORY", format_text("out of memory"));
  }
  hurray_status status = inspect_analyze_flags(
      input, len, options->kind, options->allow_empty_table ? HURRAY_BUFFER_TABLE_ALLOW_EMPTY : 0u,
      result);
  free(input);
  exit_status = emit_report(result, options,
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
    /* CLI-ENC-3: a protocol rejection, BP-TABLE-1's count limit included. */
    char message[512];
    inspect_encode_error_format(options, &err, message, sizeof message);
    fprintf(stderr, "%s: encode: rejected %s: %s\n", program, hurray_status_name(status), message);
    return INSPECT_EXIT_REJECTED;
  }
  return emit(out, len, INSPECT_EXIT_VALID);
}

/* The longest argument, escaped, fits in a message of this size. */
static size_t usage_message_size(int argc, char *argv[]) {
  size_t longest = 0;
  for (int i = 1; i < argc; i++) {
    size_t n = strlen(argv[i]);
    longest = n > longest ? n : longest;
  }
  return 4u * longest + 256u;
}

int main(int argc, char *argv[]) {
  static inspect_options options;
  bool json = json_requested(argc, argv);
  size_t cap = usage_message_size(argc, argv);
  char *message = malloc(cap);
  if (message == NULL) {
    return fail_with(json, "OUT_OF_MEMORY", NULL);
  }
  if (!inspect_parse_arguments(argc, argv, &options, message, cap)) {
    inspect_failure failure = {"USAGE", 0, false, 0, 0, message};
    int status = report_failure(json, failure, true);
    free(message);
    return status;
  }
  free(message);
  switch (options.command) {
    case INSPECT_COMMAND_HELP: inspect_print_usage(stdout); return emit("", 0, INSPECT_EXIT_VALID);
    case INSPECT_COMMAND_VERSION:
      printf("%s (libhurray %s)\n", program, hurray_version());
      return emit("", 0, INSPECT_EXIT_VALID);
    case INSPECT_COMMAND_ENCODE: return run_encode(&options);
    case INSPECT_COMMAND_INSPECT: break;
  }
  return run_inspect(&options);
}
