/*
 * The checks that need no device (specs/cli.md CLI-CHK-2): `table`, the
 * entry and the table as the loader reads them, and `devices`, the device
 * descriptions and the unavailable reason.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"

/* The loaded plugin's entry, found again in the loaded file (RTLD_NOLOAD:
 * nothing new is opened). The caller dlcloses *handle. */
static hurray_plugin_entry_fn loaded_entry(conformance_run *run, void **handle) {
  const char *path = hurray_plugin_path(conformance_plugin(run));
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  CONFORM(run, *handle != NULL, "dlopen(RTLD_NOLOAD) of the loaded %s: %s", path, dlerror());
  void *symbol = dlsym(*handle, HURRAY_PLUGIN_ENTRY_SYMBOL);
  if (symbol == NULL) {
    dlclose(*handle);
    conformance_fail(run, "%s: no %s", path, HURRAY_PLUGIN_ENTRY_SYMBOL);
  }
  hurray_plugin_entry_fn entry;
  memcpy(&entry, &symbol, sizeof entry);
  return entry;
}

/* The table the entry returns to this host, normalised as the loader reads
 * it (hurray_plugin_table_validate: the plugin's bytes, fields past its
 * struct_size NULL). */
static void read_table(conformance_run *run, hurray_plugin_table *out) {
  void *handle = NULL;
  hurray_plugin_entry_fn entry = loaded_entry(run, &handle);
  const hurray_plugin_table *table = entry(HURRAY_PLUGIN_ABI_VERSION);
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_status s = HURRAY_ERR_NULL_ARGUMENT;
  if (table != NULL) {
    size_t len = table->struct_size < sizeof *table ? table->struct_size : sizeof *table;
    s = hurray_plugin_table_validate(table, len, HURRAY_PLUGIN_ABI_VERSION, out, &err);
  }
  dlclose(handle);
  CONFORM(run, table != NULL, "%s(%u.%u) returned NULL to this host", HURRAY_PLUGIN_ENTRY_SYMBOL,
          HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR);
  conformance_expect_status(run, s, HURRAY_OK, &err, "hurray_plugin_table_validate of the table");
}

void conformance_table_of(conformance_run *run, hurray_plugin_table *out) { read_table(run, out); }

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

/* PL-ENTRY-1..2, PL-NEG-1..5, PL-TABLE-1..10, PL-TABLE-9. */
void conformance_check_table(conformance_run *run) {
  void *handle = NULL;
  hurray_plugin_entry_fn entry = loaded_entry(run, &handle);
  const hurray_plugin_table *first = entry(HURRAY_PLUGIN_ABI_VERSION);
  const hurray_plugin_table *again = entry(HURRAY_PLUGIN_ABI_VERSION);
  /* PL-ENTRY-2: the same table, unchanged, for as long as it is loaded. */
  bool same = first != NULL && again != NULL && first->struct_size == again->struct_size &&
              memcmp(first, again,
                     first->struct_size < sizeof *first ? first->struct_size : sizeof *first) == 0;
  /* It SHOULD answer other hosts too, so they can say what differs. */
  const uint32_t others[] = {HURRAY_PLUGIN_ABI_MAKE(1u, 0u),
                             HURRAY_PLUGIN_ABI_MAKE(HURRAY_PLUGIN_ABI_MAJOR + 1u, 0u)};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    if (entry(others[i]) == NULL) {
      conformance_note(run,
                       "declines a host of ABI %u.%u (allowed, PL-ENTRY-2; that host then cannot "
                       "say what differs)",
                       (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(others[i]),
                       (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(others[i]));
    }
  }
  dlclose(handle);
  CONFORM(run, first != NULL, "%s(%u.%u) returned NULL to this host", HURRAY_PLUGIN_ENTRY_SYMBOL,
          HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR);
  CONFORM(run, same, "%s returned another table, or changed it, on a second call (PL-ENTRY-2)",
          HURRAY_PLUGIN_ENTRY_SYMBOL);

  hurray_plugin_table table;
  read_table(run, &table);
  hurray_error err;
  memset(&err, 0, sizeof err);
  conformance_expect_status(run, hurray_plugin_table_check_strings(&table, &err), HURRAY_OK, &err,
                            "hurray_plugin_table_check_strings (name, plugin_version)");
  conformance_note(run, "ABI %u.%u, struct_size %u (this host's table: %zu bytes)",
                   (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(table.abi_version),
                   (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(table.abi_version),
                   (unsigned)table.struct_size, sizeof table);
  conformance_note(run,
                   "optional entries: unavailable_reason %s, events %s, wait_stream %s, "
                   "stream_wait_event %s, native_event %s, memory export %s, event export %s",
                   yes_no(table.unavailable_reason != NULL), yes_no(table.create_event != NULL),
                   yes_no(table.wait_stream != NULL), yes_no(table.stream_wait_event != NULL),
                   yes_no(table.native_event != NULL), yes_no(table.export_memory != NULL),
                   yes_no(table.export_event != NULL));
  /* PL-TABLE-9: shown, not failed. */
  const char *path = hurray_plugin_path(conformance_plugin(run));
  const char *base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
  char expected[64];
  snprintf(expected, sizeof expected, "%s%s%s", HURRAY_PLUGIN_FILE_PREFIX, table.name,
           HURRAY_PLUGIN_FILE_SUFFIX);
  if (strcmp(base, expected) != 0) {
    conformance_note(run,
                     "the file is %s, the table's name is %s: a search by name looks for %s "
                     "(PL-TABLE-9)",
                     base, table.name, expected);
  }
}

/* The unavailable reason is snprintf-style: the whole length whatever the
 * buffer, the text cut and terminated in a small one (CLI-DEV-5). */
static void check_reason(conformance_run *run, const hurray_plugin *plugin) {
  char whole[4096];
  size_t n = hurray_plugin_unavailable_reason(plugin, NULL, 0);
  CONFORM(run, n < sizeof whole, "unavailable reason of %zu bytes (over %zu)", n, sizeof whole);
  conformance_expect_eq(run, hurray_plugin_unavailable_reason(plugin, whole, sizeof whole), n,
                        "unavailable_reason's length with a large buffer");
  conformance_expect_eq(run, strlen(whole), n, "the length of the unavailable reason written");
  char small[8];
  memset(small, 'X', sizeof small);
  conformance_expect_eq(run, hurray_plugin_unavailable_reason(plugin, small, sizeof small), n,
                        "unavailable_reason's length with an 8-byte buffer");
  CONFORM(run, memchr(small, '\0', sizeof small) != NULL,
          "unavailable_reason left an 8-byte buffer unterminated");
  CONFORM(run, strncmp(small, whole, strlen(small)) == 0 && strlen(small) == (n < 7u ? n : 7u),
          "unavailable_reason wrote \"%s\" into an 8-byte buffer, not the start of \"%s\"", small,
          whole);
  if (hurray_plugin_device_count(plugin) == 0u) {
    conformance_note(run, "no device: %s", whole);
  }
}

/* PL-DEV-1..5: what the loader checked at load, asked again through the
 * host API; the names; past the count refused. */
void conformance_check_devices(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  check_reason(run, plugin);
  uint32_t count = hurray_plugin_device_count(plugin);
  hurray_error err;
  memset(&err, 0, sizeof err);
  for (uint32_t d = 0; d < count; d++) {
    hurray_plugin_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    conformance_expect_status(run, hurray_plugin_describe_device(plugin, d, &info, &err), HURRAY_OK,
                              &err, "describe_device(%u)", (unsigned)d);
    conformance_expect_status(
        run, hurray_plugin_device_info_validate(&info, hurray_plugin_device_tag(plugin), &err),
        HURRAY_OK, &err, "device %u's description", (unsigned)d);
    CONFORM(run, memchr(info.name, '\0', sizeof info.name) != NULL,
            "device %u's name is not NUL-terminated within %zu bytes (PL-DEV-3)", (unsigned)d,
            sizeof info.name);
    char line[512];
    int used = snprintf(line, sizeof line, "device %u: %s; IPC events %s", (unsigned)d, info.name,
                        (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u ? "exported"
                                                                                  : "not exported");
    for (uint32_t c = 0; c < info.memory_class_count && used > 0 && (size_t)used < sizeof line;
         c++) {
      char name[32];
      const hurray_plugin_memory_class_info *mc = &info.memory_classes[c];
      used += snprintf(line + used, sizeof line - (size_t)used, "; %s %s, up to %u",
                       conformance_class_name(mc->memory_class, name),
                       (mc->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u ? "host-accessible"
                                                                                : "device-only",
                       (unsigned)mc->max_alignment);
    }
    conformance_note(run, "%s", line);
  }
  hurray_plugin_device_info past;
  memset(&past, 0, sizeof past);
  past.struct_size = sizeof past;
  conformance_expect_status(
      run, hurray_plugin_describe_device(plugin, count, &past, &err), HURRAY_ERR_INVALID_ARGUMENT,
      &err, "describe_device(%u), past the %u device(s)", (unsigned)count, (unsigned)count);
}
