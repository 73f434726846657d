/*
 * The loader and the buffer calls against plugins that misbehave rather
 * than break the table: an entry symbol that is data (PL-ENTRY-5), init
 * failing without a reason or with an unterminated one, statuses outside
 * hurray_status (PL-CALL-3, PL-CALL-4), a path too long for the reason
 * (PL-LOAD-6), a directory with more candidates than any fixed list
 * would hold (PL-SEARCH-3), a struct_size that ends inside an optional
 * entry (PL-NEG-4, PL-TABLE-8), a CPU address less aligned than reported
 * (PL-ALLOC-4), an event-export claim without the entry (PL-DEV-3) and an
 * unterminated unavailable reason (PL-AVAIL-2). Each refusal is checked for its status, value
 * and reason; the caller's error is filled with garbage first so that a
 * host reading it would be caught (by valgrind in the _valgrind test).
 *
 * Usage: test_plugin_hostile BROKEN_DIR
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdbool.h>
#include <check.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hurray/plugin.h"
#include "hurray/plugin_support.h" /* HURRAY_SUPPORT_REASON_SIZE */
#include "check_main.h"
#include "loader_fixture.h"

/* An error no host should read: every byte set, no terminator anywhere. */
static void poison(hurray_error *err) { memset(err, 0xAA, sizeof *err); }

static void assert_terminated(const hurray_error *err) {
  ck_assert_msg(memchr(err->detail, '\0', sizeof err->detail) != NULL, "detail is not terminated");
}

/* Loads `name`, expects `status`, the file named and `reason` in the detail. */
static hurray_error load_refused(const char *name, hurray_status status, const char *reason) {
  char path[4096];
  broken_plugin_path(name, path, sizeof path);
  hurray_error err;
  poison(&err);
  hurray_plugin *plugin = NULL;
  hurray_status s = hurray_plugin_load(registry, path, 0, &plugin, &err);
  assert_terminated(&err);
  ck_assert_msg(s == status, "%s: expected %s, got %s (%s)", name, hurray_status_name(status),
                hurray_status_name(s), err.detail);
  ck_assert_int_eq(err.status, status);
  ck_assert_ptr_null(plugin);
  ck_assert_msg(strstr(err.detail, strrchr(path, '/') + 1) != NULL, "file not named: %s",
                err.detail);
  ck_assert_msg(strstr(err.detail, reason) != NULL, "detail lacks \"%s\": %s", reason, err.detail);
  ck_assert_uint_eq(hurray_plugin_registry_count(registry), 0);
  return err;
}

/* PL-ENTRY-5: refused before the data object is called. */
START_TEST(entry_symbol_that_is_data) {
  hurray_error err = load_refused("entry-data", HURRAY_ERR_PLUGIN_INVALID,
                                  "entry symbol hurray_plugin_entry is a data object");
  ck_assert_uint_eq(err.value, STT_OBJECT);
  ck_assert_uint_eq(err.expected, STT_FUNC);
}
END_TEST

/* PL-CALL-3: init fails and leaves the error alone; the host gives the reason. */
START_TEST(init_fails_without_reason) {
  load_refused("init-silent", HURRAY_ERR_DEVICE_ERROR,
               "init failed with status DEVICE_ERROR (30) and gave no reason");
}
END_TEST

/* PL-CALL-3: a detail with no terminator is cut at its size, never read past. */
START_TEST(init_fails_with_unterminated_reason) {
  hurray_error err = load_refused("init-unterminated", HURRAY_ERR_DEVICE_ERROR, "xxxxxxxx");
  ck_assert_uint_le(strlen(err.detail), HURRAY_ERROR_DETAIL_SIZE - 1u);
}
END_TEST

/* PL-CALL-4: an undefined status becomes DEVICE_ERROR carrying the raw value. */
START_TEST(init_returns_undefined_status) {
  hurray_error err = load_refused("init-status", HURRAY_ERR_DEVICE_ERROR,
                                  "init returned status 1000, which is not a hurray_status");
  ck_assert_uint_eq(err.value, 1000);
}
END_TEST

static hurray_plugin *load_ok(const char *name) {
  char path[4096];
  hurray_error err;
  hurray_plugin *plugin = NULL;
  ck_assert_msg(hurray_plugin_load(registry, broken_plugin_path(name, path, sizeof path), 0,
                                   &plugin, &err) == HURRAY_OK,
                "%s: %s", name, err.detail);
  return plugin;
}

/* PL-CALL-4 on a call after loading: allocate's undefined status. */
START_TEST(allocate_returns_undefined_status) {
  hurray_plugin *plugin = load_ok("allocate-status");
  hurray_error err;
  poison(&err);
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_DEVICE_ERROR);
  assert_terminated(&err);
  ck_assert_int_eq(err.status, HURRAY_ERR_DEVICE_ERROR);
  ck_assert_uint_eq(err.value, 77);
  ck_assert_ptr_null(buffer);
  ck_assert_msg(strstr(err.detail, "broken: allocate returned status 77") != NULL, "%s",
                err.detail);
}
END_TEST

/* PL-CALL-3 on a call after loading: allocate fails and says nothing. */
START_TEST(allocate_fails_without_reason) {
  hurray_plugin *plugin = load_ok("allocate-silent");
  hurray_error err;
  poison(&err);
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_OUT_OF_MEMORY);
  assert_terminated(&err);
  ck_assert_int_eq(err.status, HURRAY_ERR_OUT_OF_MEMORY);
  ck_assert_ptr_null(buffer);
  ck_assert_msg(
      strstr(err.detail,
             "broken: allocate failed with status OUT_OF_MEMORY (29) and gave no reason") != NULL,
      "%s", err.detail);
}
END_TEST

static void copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY);
  ck_assert_int_ge(in, 0);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_msg(out >= 0, "%s: %s", to, strerror(errno));
  char block[65536];
  ssize_t n;
  while ((n = read(in, block, sizeof block)) > 0) {
    ck_assert_int_eq(write(out, block, (size_t)n), n);
  }
  ck_assert_int_eq(n, 0);
  close(in);
  ck_assert_int_eq(close(out), 0);
}

/* A private directory under /tmp (root-owned and sticky, so PL-LOAD-3 holds). */
static void make_temp_dir(char *dir, size_t cap) {
  snprintf(dir, cap, "/tmp/hurray hostile XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* PL-LOAD-6: a path longer than the detail keeps the plugin's whole reason
 * and the file name; the leading directories give way. */
START_TEST(long_path_keeps_the_reason) {
  char dir[4096];
  make_temp_dir(dir, sizeof dir);
  char created[16][4096];
  size_t depth = 0;
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (; depth < 6; depth++) {
    size_t used = strlen(path);
    snprintf(path + used, sizeof path - used, "/%s", "a-directory-name-of-forty-bytes-in-all-x");
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(created[depth], sizeof created[depth], "%s", path);
  }
  char plugin_path[4096];
  snprintf(plugin_path, sizeof plugin_path, "%s/hurray-plugin-broken-init-fails.so", path);
  ck_assert_uint_gt(strlen(plugin_path), HURRAY_ERROR_DETAIL_SIZE);
  char source[4096];
  copy_file(broken_plugin_path("init-fails", source, sizeof source), plugin_path);

  hurray_error err;
  poison(&err);
  ck_assert_int_eq(hurray_plugin_load(registry, plugin_path, 0, NULL, &err),
                   HURRAY_ERR_DEVICE_ERROR);
  assert_terminated(&err);
  ck_assert_msg(strstr(err.detail, "acmeInit: ACME_ERROR_NO_LICENSE (42)") != NULL,
                "reason lost: %s", err.detail);
  ck_assert_msg(strstr(err.detail, "hurray-plugin-broken-init-fails.so: ") != NULL,
                "file not named: %s", err.detail);
  ck_assert_msg(strncmp(err.detail, "...", 3) == 0, "path not shortened at its start: %s",
                err.detail);

  ck_assert_int_eq(unlink(plugin_path), 0);
  while (depth > 0) {
    ck_assert_int_eq(rmdir(created[--depth]), 0);
  }
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

typedef struct candidates {
  const char *dir;
  size_t seen;
  bool ordered;
  char last[4096];
} candidates;

static void record_candidate(void *ctx, const char *path, hurray_status status,
                             const hurray_error *err, hurray_plugin *plugin) {
  candidates *c = ctx;
  (void)plugin;
  if (strncmp(path, c->dir, strlen(c->dir)) != 0) {
    return; /* another search directory (the install directory) */
  }
  ck_assert_int_eq(status, HURRAY_ERR_PLUGIN_LOAD_FAILED); /* not ELF: dlopen refuses */
  ck_assert_ptr_nonnull(err);
  if (c->seen > 0 && strcmp(c->last, path) >= 0) {
    c->ordered = false;
  }
  snprintf(c->last, sizeof c->last, "%s", path);
  c->seen++;
}

/* PL-SEARCH-3: every candidate is considered, in name order, however many. */
START_TEST(discovery_considers_every_candidate) {
  char dir[256];
  make_temp_dir(dir, sizeof dir);
  enum { CANDIDATES = 300 };
  /* Created in reverse name order, so directory order is unlikely to help. */
  for (int i = CANDIDATES - 1; i >= 0; i--) {
    char file[512];
    snprintf(file, sizeof file, "%s/hurray-plugin-candidate-%03d.so", dir, i);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not an ELF file\n", f);
    ck_assert_int_eq(fclose(f), 0);
  }
  setenv(HURRAY_PLUGIN_PATH_ENV, dir, 1);
  candidates c = {dir, 0, true, {0}};
  ck_assert_uint_eq(hurray_plugin_discover(registry, record_candidate, &c), 0);
  unsetenv(HURRAY_PLUGIN_PATH_ENV);
  ck_assert_uint_eq(c.seen, CANDIDATES);
  ck_assert_msg(c.ordered, "candidates not reported in name order");
  for (int i = 0; i < CANDIDATES; i++) {
    char file[512];
    snprintf(file, sizeof file, "%s/hurray-plugin-candidate-%03d.so", dir, i);
    ck_assert_int_eq(unlink(file), 0);
  }
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* PL-TABLE-9: the file name and the table's name need not agree; the plugin
 * reports itself by its table's name and its path shows the file. */
START_TEST(table_name_need_not_match_the_file_name) {
  hurray_plugin *plugin = load_ok("allocate-silent");
  ck_assert_str_eq(hurray_plugin_name(plugin), "broken");
  const char *path = hurray_plugin_path(plugin);
  const char *file = strrchr(path, '/');
  ck_assert_ptr_nonnull(file);
  ck_assert_str_eq(file + 1, "hurray-plugin-broken-allocate-silent.so");
}
END_TEST

/* PL-VER-5: a caller built against smaller (older) structs gets no byte past
 * its struct_size. The "older view" here is a prefix of today's struct; the
 * bytes after it are a canary that must survive. */
START_TEST(copy_outs_honour_the_callers_struct_size) {
  hurray_plugin *plugin = load_ok("allocate-silent");
  enum { CANARY = 0x5C };
  union {
    hurray_plugin_device_info info;
    unsigned char bytes[sizeof(hurray_plugin_device_info) + 64];
  } device;
  const uint32_t device_view = (uint32_t)offsetof(hurray_plugin_device_info, memory_bytes);
  memset(&device, CANARY, sizeof device);
  device.info.struct_size = device_view;
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_describe_device(plugin, 0, &device.info, &err), HURRAY_OK);
  ck_assert_uint_eq(device.info.struct_size, device_view);
  ck_assert_str_eq(device.info.name, "test host memory");
  for (size_t i = device_view; i < sizeof device.bytes; i++) {
    ck_assert_msg(device.bytes[i] == CANARY, "describe_device wrote byte %zu past struct_size %u",
                  i, (unsigned)device_view);
  }
  /* Below the header: refused before anything is written. */
  memset(&device, CANARY, sizeof device);
  device.info.struct_size = 4;
  ck_assert_int_eq(hurray_plugin_describe_device(plugin, 0, &device.info, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 4);
  ck_assert_uint_eq(err.expected, sizeof(hurray_plugin_device_info));
  ck_assert_uint_eq(err.index, 2);
  for (size_t i = sizeof(uint32_t); i < sizeof device.bytes; i++) {
    ck_assert_uint_eq(device.bytes[i], CANARY);
  }

  /* The table validator: a 1.0 caller knows only the required entries. */
  hurray_plugin_table table;
  memset(&table, 0, sizeof table);
  table.struct_size = sizeof table;
  table.abi_version = HURRAY_PLUGIN_ABI_VERSION;
  table.name = "view";
  table.plugin_version = "1";
  table.device_tag = 0xF3;
  table.init = (hurray_plugin_init_fn)(uintptr_t)1;
  table.shutdown = (hurray_plugin_shutdown_fn)(uintptr_t)1;
  table.count_devices = (hurray_plugin_count_devices_fn)(uintptr_t)1;
  table.describe_device = (hurray_plugin_describe_device_fn)(uintptr_t)1;
  table.allocate = (hurray_plugin_allocate_fn)(uintptr_t)1;
  table.free = (hurray_plugin_free_fn)(uintptr_t)1;
  table.copy_to_device = (hurray_plugin_copy_to_device_fn)(uintptr_t)1;
  table.copy_to_host = (hurray_plugin_copy_to_host_fn)(uintptr_t)1;
  union {
    hurray_plugin_table table;
    unsigned char bytes[sizeof(hurray_plugin_table) + 64];
  } view;
  memset(&view, CANARY, sizeof view);
  view.table.struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE;
  ck_assert_int_eq(hurray_plugin_table_validate(&table, sizeof table, HURRAY_PLUGIN_ABI_VERSION,
                                                &view.table, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(view.table.struct_size, HURRAY_PLUGIN_TABLE_MIN_SIZE);
  ck_assert(memcmp(&view.table.allocate, &table.allocate, sizeof table.allocate) == 0);
  for (size_t i = HURRAY_PLUGIN_TABLE_MIN_SIZE; i < sizeof view.bytes; i++) {
    ck_assert_msg(view.bytes[i] == CANARY, "table_validate wrote byte %zu past struct_size %u", i,
                  (unsigned)HURRAY_PLUGIN_TABLE_MIN_SIZE);
  }
}
END_TEST

static hurray_plugin_device_info one_class(hurray_memory_class memory_class, uint32_t flags) {
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  snprintf(info.name, sizeof info.name, "claims");
  info.memory_class_count = 1;
  info.memory_classes[0].memory_class = memory_class;
  info.memory_classes[0].flags = flags;
  info.memory_classes[0].max_alignment = 4096;
  return info;
}

/* PL-DEV-5: host-access claims that contradict the class or the device. */
START_TEST(host_access_claims_must_agree_with_the_class) {
  const uint32_t host = HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE;
  struct {
    hurray_device_tag tag;
    hurray_memory_class memory_class;
    uint32_t flags;
    bool accepted;
  } cases[] = {
      {HURRAY_DEVICE_CPU, HURRAY_MEMORY_STANDARD, host, true},
      {HURRAY_DEVICE_CPU, HURRAY_MEMORY_STANDARD, 0, false}, /* CPU memory is host memory */
      {HURRAY_DEVICE_CUDA, HURRAY_MEMORY_STANDARD, 0, true},
      {HURRAY_DEVICE_HEXAGON, HURRAY_MEMORY_STANDARD, host, true}, /* rpcmem is CPU-mapped */
      {HURRAY_DEVICE_CUDA, HURRAY_MEMORY_HOST_PINNED, host, true},
      {HURRAY_DEVICE_CUDA, HURRAY_MEMORY_HOST_PINNED, 0, false},
      {HURRAY_DEVICE_VULKAN, HURRAY_MEMORY_UNIFIED, 0, false},
      {HURRAY_DEVICE_CUDA, HURRAY_MEMORY_PEER, 0, true},
      {HURRAY_DEVICE_CUDA, HURRAY_MEMORY_PEER, host, false}, /* peer needs a copy */
      {0xF0, 0xF1, 0, true},                                 /* private: the vendor's */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hurray_plugin_device_info info = one_class(cases[i].memory_class, cases[i].flags);
    hurray_error err;
    hurray_status s = hurray_plugin_device_info_validate(&info, cases[i].tag, &err);
    ck_assert_msg((s == HURRAY_OK) == cases[i].accepted, "case %zu: %s (%s)", i,
                  hurray_status_name(s), s == HURRAY_OK ? "" : err.detail);
    if (!cases[i].accepted) {
      ck_assert_int_eq(s, HURRAY_ERR_PLUGIN_INVALID);
      ck_assert_uint_eq(err.value, cases[i].memory_class);
      ck_assert_uint_eq(err.index, 0);
      ck_assert_msg(strstr(err.detail, "host-accessible") != NULL, "%s", err.detail);
    }
  }
}
END_TEST

/* PL-NEG-4, PL-TABLE-8 on the pure validation: a struct_size that ends
 * inside an optional entry leaves that entry NULL in the normalised table,
 * whatever its bytes (here every byte past the required entries is 0xFF). */
START_TEST(partly_covered_entry_reads_as_null) {
  hurray_plugin_table table;
  memset(&table, 0xFF, sizeof table);
  table.abi_version = HURRAY_PLUGIN_ABI_VERSION;
  table.device_tag = 0xF0u;
  memset(table.reserved, 0, sizeof table.reserved);
  size_t entry = sizeof(void (*)(void));
  static const size_t cut[] = {1, 4, 7};
  for (size_t k = 0; k < sizeof cut / sizeof cut[0]; k++) {
    /* Inside unavailable_reason: the only optional entry the size touches. */
    table.struct_size = (uint32_t)(offsetof(hurray_plugin_table, unavailable_reason) + cut[k]);
    hurray_plugin_table out;
    memset(&out, 0xAA, sizeof out);
    out.struct_size = sizeof out;
    hurray_error err;
    ck_assert_int_eq(
        hurray_plugin_table_validate(&table, sizeof table, HURRAY_PLUGIN_ABI_VERSION, &out, &err),
        HURRAY_OK);
    ck_assert(out.unavailable_reason == NULL);
    ck_assert(out.create_event == NULL);
    ck_assert(out.import_event == NULL);
    ck_assert(out.copy_to_host != NULL); /* the required entries stay whole */
    /* Inside native_event, with every earlier entry covered: the events
     * and stream entries are kept, native_event and later ones are not. */
    table.struct_size = (uint32_t)(offsetof(hurray_plugin_table, native_event) + cut[k]);
    memset(&out, 0xAA, sizeof out);
    out.struct_size = sizeof out;
    ck_assert_int_eq(
        hurray_plugin_table_validate(&table, sizeof table, HURRAY_PLUGIN_ABI_VERSION, &out, &err),
        HURRAY_OK);
    ck_assert(out.stream_wait_event != NULL);
    ck_assert(out.native_event == NULL);
    ck_assert(out.export_memory == NULL);
  }
  /* Exactly on an entry's end: that entry is the plugin's. */
  table.struct_size = (uint32_t)(offsetof(hurray_plugin_table, unavailable_reason) + entry);
  hurray_plugin_table out;
  out.struct_size = sizeof out;
  hurray_error err;
  ck_assert_int_eq(
      hurray_plugin_table_validate(&table, sizeof table, HURRAY_PLUGIN_ABI_VERSION, &out, &err),
      HURRAY_OK);
  ck_assert(out.unavailable_reason != NULL);
}
END_TEST

/* PL-TABLE-8, PL-AVAIL-2: a plugin whose struct_size ends 4 bytes into
 * unavailable_reason has no such entry: the host gives its own reason
 * rather than call 4 bytes of a pointer followed by zeros (SIGSEGV before). */
START_TEST(partly_covered_reason_is_never_called) {
  hurray_plugin *plugin = load_ok("partial-reason");
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), 0);
  char reason[256];
  size_t n = hurray_plugin_unavailable_reason(plugin, reason, sizeof reason);
  ck_assert_str_eq(reason, "partial-reason reports no devices and gives no reason");
  ck_assert_uint_eq(n, strlen(reason));
}
END_TEST

/* PL-TABLE-8, PL-EVENT-5: the same inside native_event: UNSUPPORTED
 * (expected: the tag), the entry never called. */
START_TEST(partly_covered_native_event_is_never_called) {
  hurray_plugin *plugin = load_ok("partial-native");
  ck_assert_int_eq(hurray_plugin_supports_events(plugin), HURRAY_TRUE);
  hurray_error err;
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_native_event native = {.struct_size = sizeof native};
  poison(&err);
  ck_assert_int_eq(hurray_plugin_event_native(event, &native, &err), HURRAY_ERR_UNSUPPORTED);
  assert_terminated(&err);
  ck_assert_uint_eq(err.expected, 0xF2u);
  ck_assert_uint_eq(native.handle, 0u);
  hurray_plugin_event_release(event);
}
END_TEST

/* PL-ALLOC-4, HO-CHECK-3, BP-ALIGN-5: a CPU allocation whose handed-off
 * address is at base + 1 while its host address is aligned is refused,
 * naming the address and what it measures, freed through the plugin, and
 * nothing is handed out. */
START_TEST(misaligned_cpu_address_is_refused) {
  hurray_plugin *plugin = load_ok("misaligned-address");
  ck_assert_uint_eq(hurray_plugin_device_tag(plugin), HURRAY_DEVICE_CPU);
  hurray_error err;
  poison(&err);
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 4096, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_PLUGIN_INVALID);
  assert_terminated(&err);
  ck_assert_ptr_null(buffer);
  ck_assert_uint_eq(err.value, 4096); /* the alignment reported */
  ck_assert_uint_eq(err.expected, 1); /* what base + 1 measures */
  ck_assert_msg(strstr(err.detail, "misaligned-address: reported alignment 4096 but address") !=
                    NULL,
                "%s", err.detail);
  ck_assert_msg(strstr(err.detail, "measures 1") != NULL, "%s", err.detail);
  size_t buffers = 1;
  size_t events = 1;
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, &buffers, &events), 0);
}
END_TEST

/* PL-DEV-3: a device that declares HURRAY_IPC_EXPORTS_EVENTS from a plugin
 * without export_event is refused at load, naming the device and the entry. */
START_TEST(event_export_claim_without_entry_is_refused) {
  hurray_error err = load_refused("events-claim", HURRAY_ERR_PLUGIN_INVALID,
                                  "device 0 (test host memory) declares HURRAY_IPC_EXPORTS_EVENTS "
                                  "but the plugin has no export_event entry");
  ck_assert_uint_eq(err.value, HURRAY_IPC_EXPORTS_EVENTS);
  ck_assert_uint_eq(err.expected, 0);
  ck_assert_uint_eq(err.index, 0);
}
END_TEST

/* PL-AVAIL-2: a reason the plugin leaves unterminated, with a length it
 * never wrote (SIZE_MAX), reaches the caller terminated and measured by the
 * host: snprintf-style at every capacity. */
START_TEST(unterminated_reason_is_terminated_by_the_host) {
  hurray_plugin *plugin = load_ok("reason-unterminated");
  const size_t whole = HURRAY_SUPPORT_REASON_SIZE - 1u; /* the host's buffer, terminated */
  char big[HURRAY_SUPPORT_REASON_SIZE + 64];
  memset(big, 0xAA, sizeof big);
  ck_assert_uint_eq(hurray_plugin_unavailable_reason(plugin, big, sizeof big), whole);
  ck_assert_uint_eq(strlen(big), whole);
  ck_assert_int_eq(big[0], 'r');
  ck_assert_int_eq((unsigned char)big[whole + 1u], 0xAA); /* nothing past the NUL */
  char small[16];
  memset(small, 0xAA, sizeof small);
  ck_assert_uint_eq(hurray_plugin_unavailable_reason(plugin, small, sizeof small), whole);
  ck_assert_uint_eq(strlen(small), sizeof small - 1u);
  ck_assert_uint_eq(hurray_plugin_unavailable_reason(plugin, NULL, 0), whole);
}
END_TEST

int main(int argc, char **argv) {
  if (!loader_fixture_arguments(argc, argv, 1, "BROKEN_DIR")) {
    return 2;
  }
  Suite *suite = suite_create("plugin_hostile");
  TCase *tc = hurray_check_case(suite, "hostile", registry_setup, registry_teardown, 60);
  tcase_add_test(tc, entry_symbol_that_is_data);
  tcase_add_test(tc, init_fails_without_reason);
  tcase_add_test(tc, init_fails_with_unterminated_reason);
  tcase_add_test(tc, init_returns_undefined_status);
  tcase_add_test(tc, allocate_returns_undefined_status);
  tcase_add_test(tc, allocate_fails_without_reason);
  tcase_add_test(tc, long_path_keeps_the_reason);
  tcase_add_test(tc, discovery_considers_every_candidate);
  tcase_add_test(tc, copy_outs_honour_the_callers_struct_size);
  tcase_add_test(tc, table_name_need_not_match_the_file_name);
  tcase_add_test(tc, host_access_claims_must_agree_with_the_class);
  tcase_add_test(tc, partly_covered_entry_reads_as_null);
  tcase_add_test(tc, partly_covered_reason_is_never_called);
  tcase_add_test(tc, partly_covered_native_event_is_never_called);
  tcase_add_test(tc, misaligned_cpu_address_is_refused);
  tcase_add_test(tc, event_export_claim_without_entry_is_refused);
  tcase_add_test(tc, unterminated_reason_is_terminated_by_the_host);
  return hurray_check_run(suite);
}
