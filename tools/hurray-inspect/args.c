/*
 * Command-line parsing for both modes (specs/cli.md CLI-ENC-1, docs/cli.md).
 * Hand-written rather than getopt_long so that it is portable C11 and
 * testable on argument vectors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text_sink.h"

/* An option's value: "--size=64" or "--size 64". */
typedef struct option_value {
  const char *name; /* the option as written, without "=value" */
  size_t name_len;
  const char *value; /* NULL when the option carries none */
  bool inline_value;
} option_value;

static option_value split_option(const char *arg) {
  option_value o = {arg, strlen(arg), NULL, false};
  const char *eq = strchr(arg, '=');
  if (arg[0] == '-' && arg[1] == '-' && eq != NULL) {
    o.name_len = (size_t)(eq - arg);
    o.value = eq + 1;
    o.inline_value = true;
  }
  return o;
}

static bool is(const option_value *o, const char *name) {
  return strlen(name) == o->name_len && strncmp(o->name, name, o->name_len) == 0;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
fail(char *message, size_t cap, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, cap, format, args);
  va_end(args);
  return false;
}

/* A message with one value from the command line in it, escaped for the
 * terminal (CLI-OUT-2): before 'value' after. */
static bool fail_quoting(char *message, size_t cap, const char *before, const char *value,
                         const char *after) {
  text_sink out;
  text_sink_init(&out, message, cap);
  text_sink_puts(&out, before);
  text_sink_puts(&out, "'");
  text_sink_escaped(&out, value, strlen(value));
  text_sink_puts(&out, "'");
  text_sink_puts(&out, after);
  return false;
}

/* Takes the option's value, from "=value" or the next argument. */
static bool take_value(option_value *o, int argc, char *const argv[], int *i, char *message,
                       size_t cap) {
  if (o->value != NULL) {
    return true;
  }
  if (*i + 1 >= argc) {
    return fail(message, cap, "option %s needs a value", argv[*i]);
  }
  *i += 1;
  o->value = argv[*i];
  return true;
}

static bool parse_field(inspect_options *out, const option_value *o, const char *option_text,
                        char *message, size_t cap) {
  if (out->handle_count == 0u) {
    return fail_quoting(message, cap, "", option_text,
                        " comes before any --size; --size starts each handle");
  }
  encode_handle_spec *h = out->handle_count <= HURRAY_BUFFER_TABLE_MAX_HANDLES
                              ? &out->handles[out->handle_count - 1u]
                              : &out->beyond_table;
  unsigned bit;
  bool ok;
  uint64_t number = 0;
  if (is(o, "--align")) {
    bit = ENCODE_SET_ALIGNMENT;
    ok = inspect_parse_number(o->value, UINT32_MAX, &number);
    h->fields.alignment = (uint32_t)number;
  } else if (is(o, "--device")) {
    bit = ENCODE_SET_DEVICE;
    ok = inspect_parse_device_tag(o->value, &h->fields.device_tag);
  } else if (is(o, "--sync")) {
    bit = ENCODE_SET_SYNC;
    ok = inspect_parse_sync_mode(o->value, &h->fields.sync_mode);
  } else {
    bit = ENCODE_SET_CLASS;
    ok = inspect_parse_memory_class(o->value, &h->fields.memory_class);
  }
  if ((h->fields_set & bit) != 0u) {
    snprintf(message, cap, "%.*s given twice for handle %zu; start the next handle with --size",
             (int)o->name_len, o->name, out->handle_count - 1u);
    return false;
  }
  if (!ok) {
    char after[64];
    snprintf(after, sizeof after, " for %.*s (see --help for names and ranges)", (int)o->name_len,
             o->name);
    return fail_quoting(message, cap, "bad value ", o->value, after);
  }
  h->fields_set |= bit;
  return true;
}

static bool parse_size(inspect_options *out, const option_value *o, char *message, size_t cap) {
  uint64_t size = 0;
  if (!inspect_parse_number(o->value, UINT64_MAX, &size)) {
    return fail_quoting(message, cap, "bad value ", o->value,
                        " for --size (a decimal or 0x number)");
  }
  /* More handles than a table holds is libhurray's to reject (BP-TABLE-1,
   * CLI-ENC-3); the ones past the limit are parsed but not kept. */
  encode_handle_spec *h = out->handle_count < HURRAY_BUFFER_TABLE_MAX_HANDLES
                              ? &out->handles[out->handle_count]
                              : &out->beyond_table;
  out->handle_count++;
  /* CLI-ENC-1 defaults */
  h->fields.byte_size = size;
  h->fields.alignment = HURRAY_MIN_BUFFER_ALIGNMENT;
  h->fields.device_tag = HURRAY_DEVICE_CPU;
  h->fields.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  h->fields.memory_class = HURRAY_MEMORY_STANDARD;
  h->fields_set = 0;
  return true;
}

bool inspect_parse_arguments(int argc, char *const argv[], inspect_options *out, char *message,
                             size_t cap) {
  memset(out, 0, sizeof *out);
  out->command = INSPECT_COMMAND_INSPECT;
  out->kind = INSPECT_INPUT_TABLE;
  int i = 1;
  if (argc > 1 && strcmp(argv[1], "encode") == 0) {
    out->command = INSPECT_COMMAND_ENCODE;
    i = 2;
  }
  bool encode = out->command == INSPECT_COMMAND_ENCODE;
  bool options_done = false;
  for (; i < argc; i++) {
    const char *arg = argv[i];
    bool is_option = !options_done && arg[0] == '-' && arg[1] != '\0';
    if (!is_option) {
      if (encode) {
        return fail_quoting(message, cap, "encode takes no file argument (got ", arg, ")");
      }
      if (out->path != NULL) {
        return fail_quoting(message, cap, "more than one input file given (", arg, ")");
      }
      out->path = arg;
      continue;
    }
    option_value o = split_option(arg);
    if (is(&o, "--")) {
      options_done = true;
      continue;
    }
    bool takes_value = is(&o, "--size") || is(&o, "--align") || is(&o, "--device") ||
                       is(&o, "--sync") || is(&o, "--class");
    bool known = takes_value || is(&o, "-h") || is(&o, "--help") || is(&o, "--version") ||
                 is(&o, "--handle") || is(&o, "--hex") || is(&o, "--json") || is(&o, "--raw") ||
                 is(&o, "--allow-empty-table");
    if (!known) {
      return fail_quoting(message, cap, "unknown option ", arg, ""); /* CLI-OPT-1 */
    }
    if (o.inline_value && !takes_value) {
      return fail_quoting(message, cap, "option ", arg, " takes no value");
    }
    if (is(&o, "-h") || is(&o, "--help")) {
      out->command = INSPECT_COMMAND_HELP;
      return true;
    } else if (is(&o, "--version")) {
      out->command = INSPECT_COMMAND_VERSION;
      return true;
    } else if (is(&o, "--handle")) {
      out->kind = INSPECT_INPUT_HANDLE;
    } else if (!encode && is(&o, "--hex")) {
      out->hex = true;
    } else if (!encode && is(&o, "--json")) {
      out->json = true;
    } else if (!encode && is(&o, "--allow-empty-table")) {
      out->allow_empty_table = true;
    } else if (encode && is(&o, "--raw")) {
      out->raw_output = true;
    } else if (encode && takes_value) {
      if (!take_value(&o, argc, argv, &i, message, cap)) {
        return false;
      }
      bool ok = is(&o, "--size") ? parse_size(out, &o, message, cap)
                                 : parse_field(out, &o, arg, message, cap);
      if (!ok) {
        return false;
      }
    } else if (!encode && (takes_value || is(&o, "--raw"))) {
      /* CLI-OPT-1: a known option in the wrong mode says which mode has it. */
      return fail_quoting(message, cap, "option ", arg,
                          " belongs to encode: hurray-inspect encode --size N ...");
    } else {
      return fail_quoting(message, cap, "option ", arg,
                          " is not an encode option (it belongs to inspecting an input)");
    }
  }
  if (out->allow_empty_table && out->kind == INSPECT_INPUT_HANDLE) {
    return fail(message, cap, "--allow-empty-table applies to table input, not --handle");
  }
  if (encode && out->kind == INSPECT_INPUT_HANDLE && out->handle_count != 1u) {
    snprintf(message, cap, "encode --handle needs exactly one --size (got %zu)", out->handle_count);
    return false;
  }
  return true;
}
