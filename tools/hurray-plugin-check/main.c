/*
 * hurray-plugin-check: the conformance check a vendor runs on a device
 * plugin before shipping it (specs/cli.md CLI-CHK-1..6; manual: docs/cli.md,
 * hurray-plugin-check(1)). It loads the plugin through libhurray's loader and
 * runs every check of conformance.h on it, each on a fresh registry, and
 * prints one line per check, or one JSON object with --json. --strict fails
 * a run that found no device, so that a vendor's CI cannot pass having
 * tested nothing.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "inspect.h"
#include "text_sink.h"

static const char program[] = "hurray-plugin-check";

static void print_usage(FILE *stream) {
  fputs(
      "Usage: hurray-plugin-check [--strict] [--json] [--check NAME]... PLUGIN_FILE\n"
      "       hurray-plugin-check --list\n"
      "\n"
      "Checks a libhurray device plugin the way libhurray uses it: its table, its\n"
      "devices, allocation with measured alignment, copies, events, a handoff of\n"
      "its buffers, threads, unloading with buffers held, and export to another\n"
      "process where it offers it. Each check runs on a fresh registry.\n"
      "\n"
      "  --strict        fail when the plugin has no device here (for CI: never\n"
      "                  pass having tested nothing)\n"
      "  --json          print one JSON object instead of text\n"
      "  --check NAME    run only this check; repeatable (names: --list)\n"
      "  --list          print every check, what it checks and its rules\n"
      "  -h, --help      print this help\n"
      "\n"
      "Exit status: 0 no check failed (and, with --strict, a device was found),\n"
      "1 a check failed, the loader refused the plugin, or --strict found no\n"
      "device, 2 usage or I/O error.\n",
      stream);
}

/* A text from outside (a path, a plugin's reason) escaped for the terminal
 * (CLI-OUT-2) or as a JSON string (CLI-JSON-2), printed whole. */
static void print_text(const char *text, bool json) {
  text_sink measure;
  text_sink_init(&measure, NULL, 0);
  size_t n = json ? inspect_json_write_string(text, strlen(text), NULL, 0)
                  : (text_sink_escaped(&measure, text, strlen(text)), measure.len);
  char *out = malloc(n + 1u);
  if (out == NULL) {
    fputs(json ? "\"(out of memory)\"" : "(out of memory)", stdout);
    return;
  }
  if (json) {
    inspect_json_write_string(text, strlen(text), out, n + 1u);
  } else {
    text_sink sink;
    text_sink_init(&sink, out, n + 1u);
    text_sink_escaped(&sink, text, strlen(text));
  }
  fputs(out, stdout);
  free(out);
}

static const char *result_word(conformance_result r, bool json) {
  static const char *const words[] = {"PASS", "FAIL", "SKIP"};
  static const char *const json_words[] = {"\"pass\"", "\"fail\"", "\"skip\""};
  return json ? json_words[r] : words[r];
}

/* What the header says about the plugin; loaded once for it. */
typedef struct plugin_summary {
  bool loaded;
  char refusal[HURRAY_ERROR_DETAIL_SIZE + 32];
  char name[32];
  char version[32];
  char tag[32];
  uint32_t abi;
  uint32_t devices;
  char reason[4096];
} plugin_summary;

static void summarise(const char *file, plugin_summary *s) {
  memset(s, 0, sizeof *s);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_registry *registry = NULL;
  hurray_plugin *plugin = NULL;
  hurray_status status = hurray_plugin_registry_create(&registry, &err);
  if (status == HURRAY_OK) {
    status = hurray_plugin_load(registry, file, 0, &plugin, &err);
  }
  if (status != HURRAY_OK) {
    snprintf(s->refusal, sizeof s->refusal, "%s: %s", hurray_status_name(status), err.detail);
    hurray_plugin_registry_destroy(registry);
    return;
  }
  s->loaded = true;
  snprintf(s->name, sizeof s->name, "%s", hurray_plugin_name(plugin));
  snprintf(s->version, sizeof s->version, "%s", hurray_plugin_version(plugin));
  hurray_device_tag_display(hurray_plugin_device_tag(plugin), s->tag, sizeof s->tag);
  s->abi = hurray_plugin_abi_version(plugin);
  s->devices = hurray_plugin_device_count(plugin);
  hurray_plugin_unavailable_reason(plugin, s->reason, sizeof s->reason);
  hurray_plugin_registry_destroy(registry);
}

static void print_header(const char *file, const plugin_summary *s, bool json, bool strict) {
  if (json) {
    printf("{\"file\": ");
    print_text(file, true);
    if (!s->loaded) {
      printf(", \"plugin\": null, \"refused\": ");
      print_text(s->refusal, true);
    } else {
      printf(", \"plugin\": {\"name\": ");
      print_text(s->name, true);
      printf(", \"version\": ");
      print_text(s->version, true);
      printf(
          ", \"device_tag\": \"%s\", \"abi\": \"%u.%u\", \"devices\": %u, "
          "\"unavailable_reason\": ",
          s->tag, (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(s->abi),
          (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(s->abi), (unsigned)s->devices);
      if (s->devices > 0u) {
        printf("null");
      } else {
        print_text(s->reason, true);
      }
      printf("}");
    }
    printf(", \"strict\": %s, \"checks\": [", strict ? "true" : "false");
    return;
  }
  printf("%s: ", program);
  print_text(file, false);
  printf("\n");
  if (!s->loaded) {
    printf("plugin: refused by the loader: ");
    print_text(s->refusal, false);
    printf("\n");
    return;
  }
  printf("plugin: ");
  print_text(s->name, false);
  printf(" ");
  print_text(s->version, false);
  printf(" (tag %s, ABI %u.%u), %u device%s", s->tag,
         (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(s->abi),
         (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(s->abi), (unsigned)s->devices,
         s->devices == 1u ? "" : "s");
  if (s->devices == 0u) {
    printf(": ");
    print_text(s->reason, false);
  }
  printf("\n");
}

/* One check's line (and its notes, indented), or its JSON object. */
static void print_outcome(const conformance_check *check, const conformance_outcome *o, bool json,
                          bool first, bool no_device) {
  const char *text = o->result == CONFORMANCE_PASS ? check->what : o->detail;
  if (!json && no_device && o->result == CONFORMANCE_SKIP && check->needs_device) {
    text = "no device (the plugin's reason is above)"; /* said once, in the header */
  }
  if (json) {
    printf("%s{\"name\": \"%s\", \"rules\": \"%s\", \"result\": %s, \"detail\": ",
           first ? "" : ", ", check->name, check->rules, result_word(o->result, true));
    print_text(text, true);
    printf(", \"notes\": [");
  } else {
    printf("%s  %-25s ", result_word(o->result, false), check->name);
    print_text(text, false);
    printf("\n");
  }
  const char *line = o->notes;
  bool first_note = true;
  while (*line != '\0') {
    const char *end = strchr(line, '\n');
    size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
    char note[CONFORMANCE_NOTES_SIZE];
    snprintf(note, sizeof note, "%.*s", (int)n, line);
    if (json) {
      printf("%s", first_note ? "" : ", ");
      print_text(note, true);
    } else {
      printf("        ");
      print_text(note, false);
      printf("\n");
    }
    first_note = false;
    line += n + (end != NULL ? 1u : 0u);
  }
  if (json) {
    printf("]}");
  }
}

static int list_checks(void) {
  for (size_t i = 0; i < conformance_check_count(); i++) {
    const conformance_check *c = conformance_check_at(i);
    printf("%-25s %s%s (%s)\n", c->name, c->what, c->needs_device ? "" : "; needs no device",
           c->rules);
  }
  return 0;
}

typedef struct options {
  bool strict;
  bool json;
  bool list;
  const conformance_check *only[64];
  size_t only_count;
  const char *file;
} options;

/* CLI-CHK-1: the options. On a usage error, false with the message in
 * `why` (the caller adds the program's name and the hint). */
static bool parse(int argc, char **argv, options *o, bool *help, char *why, size_t cap) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--strict") == 0) {
      o->strict = true;
    } else if (strcmp(arg, "--json") == 0) {
      o->json = true;
    } else if (strcmp(arg, "--list") == 0) {
      o->list = true;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      *help = true;
    } else if (strncmp(arg, "--check", 7) == 0 && (arg[7] == '\0' || arg[7] == '=')) {
      const char *name = arg[7] == '=' ? arg + 8 : (i + 1 < argc ? argv[++i] : NULL);
      const conformance_check *c = name != NULL ? conformance_check_find(name) : NULL;
      if (name == NULL) {
        snprintf(why, cap, "option --check needs a value (a check's name; see --list)");
        return false;
      }
      if (c == NULL) {
        snprintf(why, cap, "unknown check '%.100s' (see --list)", name);
        return false;
      }
      if (o->only_count == sizeof o->only / sizeof o->only[0]) {
        snprintf(why, cap, "too many --check options");
        return false;
      }
      o->only[o->only_count++] = c;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      snprintf(why, cap, "unknown option '%.100s'", arg);
      return false;
    } else if (o->file != NULL) {
      snprintf(why, cap, "unexpected argument '%.100s': one PLUGIN_FILE at a time", arg);
      return false;
    } else {
      o->file = arg;
    }
  }
  if (!*help && !o->list && o->file == NULL) {
    snprintf(why, cap, "no PLUGIN_FILE given");
    return false;
  }
  return true;
}

/* Runs the checks asked for; the exit status of CLI-CHK-6 (0 or 1). */
static int run_checks(const options *o, const char *resolved) {
  plugin_summary summary;
  summarise(resolved, &summary);
  print_header(resolved, &summary, o->json, o->strict);
  size_t counts[3] = {0, 0, 0};
  const char *verdict_reason = NULL;
  if (summary.loaded) {
    size_t n = o->only_count > 0u ? o->only_count : conformance_check_count();
    for (size_t i = 0; i < n; i++) {
      const conformance_check *check = o->only_count > 0u ? o->only[i] : conformance_check_at(i);
      static conformance_outcome outcome;
      conformance_run_check(check, resolved, &outcome);
      counts[outcome.result]++;
      print_outcome(check, &outcome, o->json, i == 0u, summary.devices == 0u);
      fflush(stdout);
    }
    if (counts[CONFORMANCE_FAIL] > 0u) {
      verdict_reason = "a check failed";
    } else if (o->strict && summary.devices == 0u) {
      verdict_reason = "--strict: the plugin has no device here";
    }
  } else {
    verdict_reason = "the loader refused the plugin";
  }
  if (o->json) {
    printf("], \"passed\": %zu, \"failed\": %zu, \"skipped\": %zu, \"result\": %s}\n",
           counts[CONFORMANCE_PASS], counts[CONFORMANCE_FAIL], counts[CONFORMANCE_SKIP],
           verdict_reason == NULL ? "\"pass\"" : "\"fail\"");
  } else {
    printf("result: %s (%zu passed, %zu failed, %zu skipped)%s%s\n",
           verdict_reason == NULL ? "PASS" : "FAIL", counts[CONFORMANCE_PASS],
           counts[CONFORMANCE_FAIL], counts[CONFORMANCE_SKIP], verdict_reason != NULL ? ": " : "",
           verdict_reason != NULL ? verdict_reason : "");
  }
  return verdict_reason == NULL ? 0 : 1;
}

int main(int argc, char **argv) {
  int child = conformance_ipc_child_main(argc, argv);
  if (child >= 0) {
    return child;
  }
  options o;
  memset(&o, 0, sizeof o);
  bool help = false;
  char why[256];
  if (!parse(argc, argv, &o, &help, why, sizeof why)) {
    /* The argument is escaped: it may hold any byte (CLI-OUT-2). */
    fprintf(stderr, "%s: ", program);
    text_sink sink;
    char shown[1024];
    text_sink_init(&sink, shown, sizeof shown);
    text_sink_escaped(&sink, why, strlen(why));
    fprintf(stderr, "%s\nTry '%s --help'.\n", shown, program);
    return 2;
  }
  int status = 0;
  if (help) {
    print_usage(stdout);
  } else if (o.list) {
    status = list_checks();
  } else {
    /* The loader takes absolute paths; a relative one is the working
     * directory's, as the person typing it means. */
    char resolved[PATH_MAX];
    if (realpath(o.file, resolved) == NULL) {
      const char *reason = strerror(errno);
      text_sink sink;
      static char shown[PATH_MAX * 4];
      text_sink_init(&sink, shown, sizeof shown);
      text_sink_escaped(&sink, o.file, strlen(o.file));
      fprintf(stderr, "%s: '%s': %s\n", program, shown, reason);
      return 2;
    }
    status = run_checks(&o, resolved);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write standard output: %s\n", program, strerror(errno));
    return 2;
  }
  return status;
}
