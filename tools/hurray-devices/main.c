/*
 * hurray-devices: which device plugins this machine has, where they come
 * from, their ABI and plugin versions, devices, memory classes and IPC
 * capabilities, and for each plugin that is refused or has no device, why.
 * With --handoff it also runs, on every available device, one real
 * allocate -> write -> record event -> offer -> accept -> wait -> release
 * through the plugin and the C ABI handoff (docs/plugin-abi.md).
 *
 * Rules: specs/cli.md (CLI-DEV-...); manual: docs/cli.md, hurray-devices(1).
 * Exit status (CLI-DEV-6): 0 when every plugin named with --plugin loaded and
 * every handoff run succeeded, 1 when a named plugin was refused, a handoff
 * failed or --require-devices was not met (CLI-DEV-7), 2 on a usage or I/O
 * error (nothing is listed then). Plugins found by a search and refused are
 * reported, not failures: a machine without a vendor's runtime is normal.
 * SPDX-License-Identifier: Apache-2.0
 */
/* realpath() is XSI, beyond the project-wide _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700

#include <stdbool.h>
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hurray/handoff.h"
#include "hurray/plugin.h"
#include "text_sink.h"

static const char program[] = "hurray-devices";

/* A name or message from outside (a path, a loader's or vendor's text)
 * escaped for the terminal (CLI-OUT-2), printed whole. */
static char *escaped_copy(const char *text) {
  text_sink measure;
  text_sink_init(&measure, NULL, 0);
  text_sink_escaped(&measure, text, strlen(text));
  char *out = malloc(measure.len + 1u);
  if (out != NULL) {
    text_sink sink;
    text_sink_init(&sink, out, measure.len + 1u);
    text_sink_escaped(&sink, text, strlen(text));
  }
  return out;
}

static void print_escaped(const char *text) {
  char *escaped = escaped_copy(text);
  fputs(escaped != NULL ? escaped : "(out of memory)", stdout);
  free(escaped);
}

static void print_error_line(const char *what, const hurray_error *err) {
  printf("    %s: %s: ", what, hurray_status_name(err->status));
  print_escaped(err->detail);
  printf("\n");
}

static void print_classes(const hurray_plugin_device_info *info) {
  for (uint32_t c = 0; c < info->memory_class_count; c++) {
    const hurray_plugin_memory_class_info *mc = &info->memory_classes[c];
    char name[32];
    hurray_memory_class_display(mc->memory_class, name, sizeof name);
    printf("        %-14s %-20s max alignment %u\n", name,
           (mc->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u ? "host-accessible"
                                                                    : "device-only",
           (unsigned)mc->max_alignment);
  }
}

/* CLI-DEV-5: the reason whole, in the size it announces; malloc'd (NULL
 * when out of memory). */
static char *unavailable_reason(const hurray_plugin *plugin) {
  size_t n = hurray_plugin_unavailable_reason(plugin, NULL, 0);
  char *reason = malloc(n + 1u);
  if (reason != NULL) {
    hurray_plugin_unavailable_reason(plugin, reason, n + 1u);
  }
  return reason;
}

static void print_plugin(const hurray_plugin *plugin) {
  char tag[32];
  hurray_device_tag_display(hurray_plugin_device_tag(plugin), tag, sizeof tag);
  uint32_t abi = hurray_plugin_abi_version(plugin);
  printf("  %s %s  (tag %s, ABI %u.%u%s)\n", hurray_plugin_name(plugin),
         hurray_plugin_version(plugin), tag, (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(abi),
         (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(abi),
         hurray_plugin_serves_tag(plugin) ? "" : ", not serving its tag");
  printf("    from ");
  print_escaped(hurray_plugin_path(plugin));
  printf("\n");
  uint32_t count = hurray_plugin_device_count(plugin);
  if (count == 0u) {
    char *reason = unavailable_reason(plugin);
    printf("    unavailable: ");
    print_escaped(reason != NULL ? reason : "(out of memory for the reason)");
    printf("\n");
    free(reason);
    return;
  }
  printf("    events: %s\n", hurray_plugin_supports_events(plugin) ? "yes" : "no");
  for (uint32_t d = 0; d < count; d++) {
    hurray_plugin_device_info info;
    info.struct_size = sizeof info; /* the view this program knows (PL-VER-5) */
    hurray_error err;
    if (hurray_plugin_describe_device(plugin, d, &info, &err) != HURRAY_OK) {
      print_error_line("describe", &err);
      continue;
    }
    printf("    device %u: %s", (unsigned)d, info.name);
    if (info.memory_bytes > 0u) {
      printf(", %llu MiB", (unsigned long long)(info.memory_bytes >> 20));
    }
    printf("\n      IPC: events %s, streams %s\n",
           (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u ? "exported" : "not exported",
           (info.ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS) != 0u ? "exported"
                                                                      : "not exported");
    printf("      memory classes:\n");
    print_classes(&info);
  }
}

static void report_candidate(void *ctx, const char *path, hurray_status status,
                             const hurray_error *err, hurray_plugin *plugin) {
  (void)ctx;
  (void)plugin;
  if (status != HURRAY_OK) {
    printf("  refused: ");
    print_escaped(path);
    printf("\n");
    print_error_line("reason", err);
  }
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One handoff on one device; returns false (after printing why) on failure. */
static bool run_handoff(hurray_plugin *plugin, uint32_t device) {
  enum { size = 1 << 20 };
  hurray_error err;
  memset(&err, 0, sizeof err);
  double t0 = now_ms();
  hurray_plugin_buffer *buffer = NULL;
  const char *step = "allocate";
  bool ok = false;
  hurray_plugin_event *event = NULL;
  unsigned char *pattern = malloc(size);
  unsigned char *back = malloc(size);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  if (pattern == NULL || back == NULL) {
    printf("      handoff: no host memory for the test pattern\n");
    goto done;
  }
  for (size_t i = 0; i < size; i++) {
    pattern[i] = (unsigned char)(i * 13u + device);
  }
  if (hurray_plugin_allocate(plugin, device, size, 4096, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
      HURRAY_OK) {
    /* A device that cannot align standard memory to a page: the minimum. */
    if (hurray_plugin_allocate(plugin, device, size, 64, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
        HURRAY_OK) {
      goto done;
    }
  }
  step = "write";
  if (hurray_plugin_buffer_write(buffer, 0, pattern, size, &err) != HURRAY_OK) {
    goto done;
  }
  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  hurray_buffer_offer offer =
      hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none());
  offer.data = hurray_plugin_buffer_allocation(buffer)->address;
  offer.release = hurray_plugin_buffer_release_callback;
  offer.release_ctx = buffer;
  offer.sync = hurray_sync_payload_none();
  /* A CPU buffer is producer_synced (BP-SYNC-2); elsewhere an event travels. */
  bool with_event = handle.device_tag != HURRAY_DEVICE_CPU && hurray_plugin_supports_events(plugin);
  if (with_event) {
    step = "record event";
    if (hurray_plugin_event_create(plugin, device, &event, &err) != HURRAY_OK ||
        hurray_plugin_event_record(event, NULL, &err) != HURRAY_OK) {
      goto done;
    }
    handle.sync_mode = HURRAY_SYNC_EVENT;
    offer.sync = hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN,
                                                   handle.device_tag,
                                                   hurray_plugin_event_release_callback, NULL);
  }
  step = "offer";
  if (hurray_handoff_offer(&handoff, &handle, &offer, &err) != HURRAY_OK) {
    goto done;
  }
  step = "accept";
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  if (hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err) !=
      HURRAY_OK) {
    /* A refused accept leaves the offer with the producer (HO-CHECK-5):
     * take it back, so that the buffer and event are freed below. */
    hurray_error withdraw_err;
    if (hurray_handoff_withdraw(&handoff, &withdraw_err) != HURRAY_OK) {
      printf("      handoff: withdraw after the refused accept: %s\n",
             hurray_status_name(withdraw_err.status));
    }
    goto done;
  }
  /* From here the consumer owns the buffer and the event: the handoff's
   * releases free them, so the producer's pointers are dropped. */
  buffer = NULL;
  event = NULL;
  if (with_event) {
    step = "wait";
    if (hurray_plugin_event_wait(accepted.event, 10u * 1000u * 1000u * 1000u, &err) != HURRAY_OK ||
        hurray_handoff_record_event_wait(&handoff, &err) != HURRAY_OK ||
        hurray_handoff_release_event(&handoff, &err) != HURRAY_OK) {
      goto release;
    }
  }
  step = "read back";
  hurray_plugin_buffer *owned = offer.release_ctx;
  if (hurray_plugin_buffer_read(owned, 0, back, size, &err) != HURRAY_OK) {
    goto release;
  }
  if (memcmp(back, pattern, size) != 0) {
    printf("      handoff: FAILED at read back: the bytes differ\n");
    step = NULL;
    goto release;
  }
  ok = true;
release:
  if (with_event && !ok) {
    /* Makes the buffer releasable whatever step failed; either may have
     * been done already, and the failure reported is the first one. */
    hurray_error ignored;
    const hurray_status waited = hurray_handoff_record_event_wait(&handoff, &ignored);
    const hurray_status event_released = hurray_handoff_release_event(&handoff, &ignored);
    (void)waited;
    (void)event_released;
  }
  {
    hurray_error release_err;
    if (hurray_handoff_release(&handoff, &release_err) != HURRAY_OK && ok) {
      err = release_err;
      step = "release";
      ok = false;
    }
  }
done:
  if (ok) {
    char sync[24];
    hurray_sync_mode_display(handle.sync_mode, sync, sizeof sync);
    printf(
        "      handoff: ok  (1 MiB standard, alignment %u, %s; allocate -> write -> %s"
        "offer -> accept -> %srelease in %.2f ms)\n",
        (unsigned)handle.alignment, sync, with_event ? "record event -> " : "",
        with_event ? "wait -> release event -> " : "", now_ms() - t0);
  } else if (step != NULL) {
    printf("      handoff: FAILED at %s: %s: %s\n", step, hurray_status_name(err.status),
           err.detail);
  }
  hurray_plugin_event_release(event);
  hurray_plugin_buffer_free(buffer);
  hurray_error destroy_err;
  if (hurray_handoff_destroy(&handoff, &destroy_err) != HURRAY_OK) {
    printf("      handoff: FAILED at destroy: %s\n", hurray_status_name(destroy_err.status));
    ok = false;
  }
  free(pattern);
  free(back);
  return ok;
}

static void print_usage(FILE *stream) {
  fputs(
      "Usage: hurray-devices [--path DIRS] [--plugin FILE]... [--handoff] [--require-devices]\n"
      "\n"
      "Lists the libhurray device plugins this machine has, their devices and\n"
      "memory classes, and why a plugin was refused or has no device.\n"
      "\n"
      "  --path DIRS     search DIRS (colon-separated) and every directory below\n"
      "                  them for hurray-plugin-*.so, then the installed plugin\n"
      "                  directory, instead of HURRAY_PLUGIN_PATH\n"
      "  --plugin FILE   load FILE instead of searching; repeatable\n"
      "  --handoff       run one handoff on every available device\n"
      "  --require-devices\n"
      "                  fail unless a plugin was loaded and every plugin loaded\n"
      "                  has a device (for CI: never pass having tested nothing)\n"
      "  -h, --help      print this help\n"
      "\n"
      "Plugins are searched in HURRAY_PLUGIN_PATH (absolute directories, colon-\n"
      "separated), then in the installed directory.\n"
      "\n"
      "Exit status: 0 every named plugin loaded and every handoff succeeded,\n"
      "1 a named plugin was refused, a handoff failed or --require-devices was\n"
      "not met, 2 usage or I/O error.\n",
      stream);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static int
usage_error(const char *format, ...);

/* The parts of a message that come from the command line are escaped by the
 * caller; this adds the program name and the hint. */
static int usage_error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: ", program);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\nTry '%s --help'.\n", program);
  return 2;
}

/* An I/O error about a command-line value: the option, the value, why. */
static int input_error(const char *option, const char *value, const char *why) {
  char *shown = escaped_copy(value);
  fprintf(stderr, "%s: %s '%s': %s\n", program, option, shown != NULL ? shown : "?", why);
  free(shown);
  return 2;
}

/* A growing list of malloc'd strings. */
typedef struct string_list {
  char **items;
  size_t count;
  size_t capacity;
} string_list;

static bool list_push(string_list *list, char *item) {
  if (item == NULL) {
    return false;
  }
  if (list->count == list->capacity) {
    size_t grown = list->capacity == 0u ? 16u : 2u * list->capacity;
    char **bigger = realloc(list->items, grown * sizeof *bigger);
    if (bigger == NULL) {
      free(item);
      return false;
    }
    list->items = bigger;
    list->capacity = grown;
  }
  list->items[list->count++] = item;
  return true;
}

static void list_free(string_list *list) {
  for (size_t i = 0; i < list->count; i++) {
    free(list->items[i]);
  }
  free(list->items);
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_plugin_file_name(const char *name) {
  size_t len = strlen(name);
  size_t prefix = strlen(HURRAY_PLUGIN_FILE_PREFIX);
  size_t suffix = strlen(HURRAY_PLUGIN_FILE_SUFFIX);
  return len > prefix + suffix && strncmp(name, HURRAY_PLUGIN_FILE_PREFIX, prefix) == 0 &&
         strcmp(name + len - suffix, HURRAY_PLUGIN_FILE_SUFFIX) == 0;
}

/* Directories below a --path entry searched, at most (CLI-DEV-2); symbolic
 * links to directories are not followed, so a loop cannot form. */
enum { MAX_SEARCH_DEPTH = 16 };

static char *join_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + 1u + strlen(name) + 1u;
  char *path = malloc(n);
  if (path != NULL) {
    snprintf(path, n, "%s/%s", dir, name);
  }
  return path;
}

/* Collects the plugin files in dir and below it; false on out of memory. */
static bool collect_plugin_files(const char *dir, int depth, string_list *found) {
  DIR *stream = opendir(dir);
  if (stream == NULL) {
    return true; /* an unreadable subdirectory holds nothing we can load */
  }
  bool ok = true;
  for (struct dirent *entry = readdir(stream); entry != NULL && ok; entry = readdir(stream)) {
    const char *name = entry->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
      continue;
    }
    char *path = join_path(dir, name);
    if (path == NULL) {
      ok = false;
      break;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
      free(path);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (depth < MAX_SEARCH_DEPTH) {
        ok = collect_plugin_files(path, depth + 1, found);
      }
      free(path);
    } else if (is_plugin_file_name(name) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
      ok = list_push(found, path);
    } else {
      free(path);
    }
  }
  closedir(stream);
  return ok;
}

/* CLI-DEV-2: every entry of DIRS must be a directory; its plugin files, and
 * those of every directory below it, are loaded in path order. */
static int search_path_option(const char *dirs, string_list *files) {
  const char *start = dirs;
  for (;;) {
    const char *colon = strchr(start, ':');
    size_t len = colon != NULL ? (size_t)(colon - start) : strlen(start);
    char *entry = malloc(len + 1u);
    if (entry == NULL) {
      return input_error("--path", dirs, "out of memory");
    }
    memcpy(entry, start, len);
    entry[len] = '\0';
    if (len == 0u) {
      free(entry);
      return input_error("--path", dirs, "an empty directory name");
    }
    char resolved[PATH_MAX];
    if (realpath(entry, resolved) == NULL) {
      int status = input_error("--path", entry, strerror(errno));
      free(entry);
      return status;
    }
    struct stat st;
    if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
      int status = input_error("--path", entry, "not a directory");
      free(entry);
      return status;
    }
    size_t before = files->count;
    if (!collect_plugin_files(resolved, 0, files)) {
      free(entry);
      return input_error("--path", dirs, "out of memory");
    }
    if (files->count == before) {
      char why[128];
      snprintf(why, sizeof why, "no %s*%s in it or in a directory below it",
               HURRAY_PLUGIN_FILE_PREFIX, HURRAY_PLUGIN_FILE_SUFFIX);
      int status = input_error("--path", entry, why);
      free(entry);
      return status;
    }
    qsort(files->items + before, files->count - before, sizeof files->items[0], compare_strings);
    free(entry);
    if (colon == NULL) {
      return 0;
    }
    start = colon + 1;
  }
}

/* CLI-DEV-3: a --plugin FILE that cannot be reached is an I/O error (exit 2),
 * named with the system's reason; a relative name is taken from the working
 * directory, as the person typing it means. */
static int plugin_option(const char *file, string_list *files) {
  char resolved[PATH_MAX];
  if (realpath(file, resolved) == NULL) {
    return input_error("--plugin", file, strerror(errno));
  }
  struct stat st;
  if (stat(resolved, &st) != 0) {
    return input_error("--plugin", file, strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return input_error("--plugin", file, "is a directory (use --path to search one)");
  }
  if (!list_push(files, strdup(resolved))) {
    return input_error("--plugin", file, "out of memory");
  }
  return 0;
}

/* An option's value: "--path=DIRS" or "--path DIRS". */
static const char *option_value(const char *name, int argc, char **argv, int *i, bool *matched) {
  size_t n = strlen(name);
  const char *arg = argv[*i];
  *matched = false;
  if (strncmp(arg, name, n) != 0) {
    return NULL;
  }
  if (arg[n] == '=') {
    *matched = true;
    return arg + n + 1;
  }
  if (arg[n] != '\0') {
    return NULL;
  }
  *matched = true;
  if (*i + 1 >= argc) {
    return NULL;
  }
  *i += 1;
  return argv[*i];
}

/* CLI-DEV-7: true when a plugin was loaded and every plugin loaded has a
 * device; otherwise one line per shortfall. */
static bool devices_present(const hurray_plugin_registry *registry) {
  size_t count = hurray_plugin_registry_count(registry);
  if (count == 0u) {
    printf("--require-devices: no plugin was loaded\n");
    return false;
  }
  bool all = true;
  for (size_t i = 0; i < count; i++) {
    const hurray_plugin *plugin = hurray_plugin_registry_at(registry, i);
    if (hurray_plugin_device_count(plugin) > 0u) {
      continue;
    }
    char *reason = unavailable_reason(plugin);
    printf("--require-devices: %s has no device (", hurray_plugin_name(plugin));
    print_escaped(reason != NULL ? reason : "out of memory for the reason");
    printf(")\n");
    free(reason);
    all = false;
  }
  return all;
}

static void load_named(hurray_plugin_registry *registry, const string_list *files,
                       size_t *refused) {
  hurray_error err;
  for (size_t i = 0; i < files->count; i++) {
    if (hurray_plugin_load(registry, files->items[i], 0, NULL, &err) != HURRAY_OK) {
      printf("  refused: ");
      print_escaped(files->items[i]);
      printf("\n");
      print_error_line("reason", &err);
      *refused += 1u;
    }
  }
}

int main(int argc, char **argv) {
  string_list named = {NULL, 0, 0};
  string_list searched = {NULL, 0, 0};
  const char *path_option = NULL;
  bool handoff = false;
  bool require_devices = false;
  int status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    bool matched = false;
    const char *value = NULL;
    if (strcmp(argv[i], "--handoff") == 0) {
      handoff = true;
    } else if (strcmp(argv[i], "--require-devices") == 0) {
      require_devices = true;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      /* CLI-DEV-4: help is the output asked for: stdout, exit 0. */
      print_usage(stdout);
      list_free(&named);
      return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
    } else if ((value = option_value("--path", argc, argv, &i, &matched)) != NULL || matched) {
      if (value == NULL) {
        status = usage_error("option --path needs a value (colon-separated directories)");
      } else if (path_option != NULL) {
        status = usage_error("option --path given twice; separate directories with ':'");
      } else {
        path_option = value;
      }
    } else if ((value = option_value("--plugin", argc, argv, &i, &matched)) != NULL || matched) {
      status = value == NULL ? usage_error("option --plugin needs a value (a plugin file)")
                             : plugin_option(value, &named);
    } else {
      char *shown = escaped_copy(argv[i]);
      status = usage_error(argv[i][0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'",
                           shown != NULL ? shown : "?");
      free(shown);
    }
  }
  if (status == 0 && path_option != NULL) {
    status = search_path_option(path_option, &searched);
  }
  if (status != 0) {
    list_free(&named);
    list_free(&searched);
    return status;
  }

  hurray_plugin_registry *registry = NULL;
  hurray_error err;
  if (hurray_plugin_registry_create(&registry, &err) != HURRAY_OK) {
    fprintf(stderr, "%s: %s\n", program, err.detail);
    list_free(&named);
    list_free(&searched);
    return 2;
  }
  printf("plugin ABI %u.%u (this library)\n", HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR);
  size_t named_refused = 0;
  if (named.count > 0u) {
    printf("plugins given on the command line:\n");
    load_named(registry, &named, &named_refused);
  }
  if (path_option != NULL) {
    printf("search path: ");
    print_escaped(path_option);
    printf(" (and every directory below), then %s\n", hurray_plugin_install_dir());
    printf("plugins found:\n");
    for (size_t i = 0; i < searched.count; i++) {
      hurray_plugin *plugin = NULL;
      hurray_status s = hurray_plugin_load(registry, searched.items[i], 0, &plugin, &err);
      report_candidate(NULL, searched.items[i], s, s == HURRAY_OK ? NULL : &err, plugin);
    }
    /* The installed directory follows (CLI-DEV-2), searched by libhurray
     * alone: the environment's entries are replaced by --path. */
    unsetenv(HURRAY_PLUGIN_PATH_ENV);
    hurray_plugin_discover(registry, report_candidate, NULL);
  } else if (named.count == 0u) {
    size_t n = hurray_plugin_search_path(NULL, 0);
    char *search = malloc(n + 1u);
    if (search != NULL) {
      hurray_plugin_search_path(search, n + 1u);
    }
    printf("search path: ");
    print_escaped(search != NULL ? search : "(out of memory)");
    printf("\n");
    free(search);
    printf("plugins found:\n");
    hurray_plugin_discover(registry, report_candidate, NULL);
  }
  list_free(&named);
  list_free(&searched);
  size_t count = hurray_plugin_registry_count(registry);
  if (count == 0u) {
    /* CLI-DEV-8: how to point the tool at a plugin. */
    printf(
        "  (no plugin loaded: put the directory of your hurray-plugin-NAME.so in %s,\n"
        "   or search it with --path DIR, or name the file with --plugin FILE)\n",
        HURRAY_PLUGIN_PATH_ENV);
  }
  int failures = 0;
  int runs = 0;
  for (size_t i = 0; i < count; i++) {
    hurray_plugin *plugin = hurray_plugin_registry_at(registry, i);
    print_plugin(plugin);
    if (!handoff) {
      continue;
    }
    for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
      printf("    device %u (%s):\n", (unsigned)d, hurray_plugin_name(plugin));
      runs++;
      failures += run_handoff(plugin, d) ? 0 : 1;
    }
  }
  if (handoff) {
    printf("handoffs: %d run, %d failed\n", runs, failures);
  }
  if (require_devices && !devices_present(registry)) {
    failures++;
  }
  hurray_plugin_registry_destroy(registry);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write standard output: %s\n", program, strerror(errno));
    return 2;
  }
  return failures == 0 && named_refused == 0u ? 0 : 1;
}
