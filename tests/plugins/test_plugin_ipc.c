/*
 * Plugin memory shared with another process (PL-IPC-1..6): a buffer
 * allocated exportable, exported, its descriptor sent over a Unix socket
 * (SCM_RIGHTS) to a second process that imports it through its own loaded
 * plugin, reads the producer's bytes, writes its own, frees its import; the
 * producer then reads the consumer's bytes from its own buffer: one memory,
 * no copy. Then the refusals, in this process: what the host checks before
 * the plugin (PL-IPC-3), what the plugin checks (a pipe, a short file), a
 * sealed segment imported read-only (PL-IPC-4), a plugin without export
 * (PL-IPC-1), the descriptors left open before and after.
 *
 * Usage: test_plugin_ipc PLUGIN_FILE [--require-devices]
 * (and, run by the test itself, the second process of conformance.h).
 * Without a device it prints SKIP and exits 77 unless --require-devices.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conformance.h"
#include "hurray/plugin.h"
#include "check_main.h"
#include "plugin_probe.h"

static const char *plugin_file;
static hurray_plugin_registry *registry;
static hurray_plugin *plugin;

static void load(void) {
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_status s = hurray_plugin_load(registry, plugin_file, 0, &plugin, &err);
  ck_assert_msg(s == HURRAY_OK, "load %s: %s", plugin_file, err.detail);
}

static void unload(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  plugin = NULL;
}

static size_t open_descriptors(void) {
  DIR *dir = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(dir);
  size_t n = 0;
  for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
    n += e->d_name[0] != '.';
  }
  closedir(dir);
  return n;
}

/* The plugins that export here (PL-IPC-6), and those whose segments are
 * host memfds the plugin itself checks and seals are honoured on. */
static bool host_segments(void) {
  return hurray_plugin_device_tag(plugin) == HURRAY_DEVICE_CPU ||
         hurray_plugin_device_tag(plugin) == HURRAY_DEVICE_OPENCL;
}

static bool exports(void) {
  return host_segments() || hurray_plugin_device_tag(plugin) == HURRAY_DEVICE_VULKAN;
}

/* PL-IPC-1..4 across two processes, on the plugins that export (PL-IPC-6):
 * hurray-plugin-check's ipc-memory check (tools/hurray-plugin-check), the
 * one a vendor runs. An exportable buffer is exported, its descriptor sent
 * over a Unix socket (SCM_RIGHTS) to a second process (this program again)
 * that imports it through its own loaded plugin, reads the producer's bytes,
 * writes its own and frees its import; the producer then reads the
 * consumer's bytes from its own buffer, and no descriptor is left open. */
START_TEST(another_process_reads_and_writes_the_same_memory) {
  if (!exports()) {
    return; /* refusals_without_export covers plugins that do not export */
  }
  static conformance_outcome outcome;
  conformance_run_check(conformance_check_find("ipc-memory"), plugin_file, &outcome);
  ck_assert_msg(outcome.result == CONFORMANCE_PASS, "ipc-memory: %s", outcome.detail);
}
END_TEST

/* PL-IPC-3: the host's checks, in order, before the plugin maps anything;
 * then the plugin's own (not a file; shorter than declared); nothing left
 * open by any refusal. */
START_TEST(imports_are_checked) {
  if (!exports()) {
    return;
  }
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 8192, 64, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  hurray_plugin_ipc_memory good = {.struct_size = sizeof good};
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &good, &err), HURRAY_OK);
  size_t descriptors_before = open_descriptors();
  hurray_plugin_buffer *imported = (hurray_plugin_buffer *)&err; /* must stay as it is */
  hurray_plugin_buffer *const untouched = imported;
  hurray_plugin_ipc_memory m;

  m = good;
  m.struct_size = 64;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  m = good;
  m.device_tag = HURRAY_DEVICE_ROCM;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_DEVICE_TAG_MISMATCH);
  ck_assert_uint_eq(err.value, HURRAY_DEVICE_ROCM);
  m = good;
  m.kind = 9;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 9);
  m = good;
  m.reserved[1] = 1;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  m = good;
  m.byte_size = m.segment_size + 1u;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(err.value, m.segment_size + 1u);
  ck_assert_uint_eq(err.expected, m.segment_size);
  m = good;
  m.offset = UINT64_MAX;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_IPC_BAD_SEGMENT);
  m = good;
  m.byte_size = 0;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  m = good;
  m.alignment = 96;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  m = good;
  m.alignment = 32;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  m = good;
  ck_assert_int_eq(hurray_plugin_import(plugin, 7, &m, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 7);
  ck_assert_int_eq(hurray_plugin_import(NULL, 0, &m, &imported, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, NULL, &imported, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3);

  if (!host_segments()) {
    /* Vulkan: the driver's descriptor is not a file the plugin can measure;
     * what it checks is the device and driver identity. */
    m = good;
    m.driver_uuid[0] ^= 1u;
    ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                     HURRAY_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.detail, "driverUUID") != NULL, "detail: %s", err.detail);
    m = good;
    m.device_uuid[15] ^= 1u;
    ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                     HURRAY_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(imported, untouched);
    ck_assert_uint_eq(open_descriptors(), descriptors_before);
    close(good.fd);
    ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
    return;
  }
  /* The plugin's checks: a pipe is no segment; a file shorter than declared. */
  int pipe_fds[2];
  ck_assert_int_eq(pipe(pipe_fds), 0);
  m = good;
  m.fd = pipe_fds[0];
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_msg(strstr(err.detail, "not a regular file") != NULL, "detail: %s", err.detail);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  int small = memfd_create("hurray-test-small", MFD_CLOEXEC);
  ck_assert_int_ge(small, 0);
  ck_assert_int_eq(ftruncate(small, 4096), 0);
  m = good;
  m.fd = small;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err),
                   HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(err.value, 8192);
  ck_assert_uint_eq(err.expected, 4096);
  close(small);
  ck_assert_ptr_eq(imported, untouched);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 1u); /* only `buffer` */
  ck_assert_uint_eq(open_descriptors(), descriptors_before);

  /* The good one, in this same process: a second view of the same bytes. */
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 100, "shared", 7, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &good, &imported, &err), HURRAY_OK);
  char back[7];
  ck_assert_int_eq(hurray_plugin_buffer_read(imported, 100, back, sizeof back, &err), HURRAY_OK);
  ck_assert_str_eq(back, "shared");
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  close(good.fd);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
}
END_TEST

/* PL-IPC-4: a segment its writer sealed (as the IPC transport does,
 * IPC-SEG-1) is imported read-only: reads work, a copy into it is refused. */
START_TEST(sealed_segment_is_imported_read_only) {
  if (!host_segments()) {
    return;
  }
  int fd = memfd_create("hurray-test-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, 4096), 0);
  ck_assert_int_eq(pwrite(fd, "sealed", 7, 0), 7);
  ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE), 0);
  hurray_plugin_ipc_memory m = {.struct_size = sizeof m};
  m.kind = HURRAY_PLUGIN_IPC_MEMORY_FD;
  m.fd = fd;
  m.segment_size = 4096;
  m.byte_size = 4096;
  m.alignment = 128; /* at most what every plugin here guarantees in the standard class */
  m.device_tag = hurray_plugin_device_tag(plugin);
  m.memory_class = HURRAY_MEMORY_STANDARD;
  hurray_error err;
  hurray_plugin_buffer *imported = NULL;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &m, &imported, &err), HURRAY_OK);
  close(fd); /* the caller's: the import keeps its own */
  char back[7];
  ck_assert_int_eq(hurray_plugin_buffer_read(imported, 0, back, sizeof back, &err), HURRAY_OK);
  ck_assert_str_eq(back, "sealed");
  ck_assert_int_eq(hurray_plugin_buffer_write(imported, 0, "x", 1, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err.detail, "read-only import") != NULL, "detail: %s", err.detail);
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_OK);
}
END_TEST

/* PL-IPC-1, PL-IPC-2, PL-IPC-6: flags checked first; private memory is not
 * exported; a plugin without export is never asked for exportable memory. */
START_TEST(refusals_without_export) {
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, 0x6u,
                                                &buffer, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0x6u);
  ck_assert_uint_eq(err.index, 5);
  ck_assert_ptr_null(buffer);
  ck_assert_int_eq(
      hurray_plugin_allocate_flags(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, 0u, &buffer, &err),
      HURRAY_OK);
  hurray_plugin_ipc_memory m;
  memset(&m, 0xEE, sizeof m);
  m.struct_size = sizeof m;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &m, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(m.kind, 0xEEEEEEEEu); /* nothing written */
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &m, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  if (!exports()) {
    ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD,
                                                  HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                     HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, hurray_plugin_device_tag(plugin));
    ck_assert_msg(strstr(err.detail, "PL-IPC-1") != NULL, "detail: %s", err.detail);
  }
}
END_TEST

/* PL-IPC-7, PL-IPC-8, PL-IPC-9, PL-IPC-11: none of these plugins (cpu,
 * example-private, opencl, vulkan) exports events. Exportable creation is
 * UNSUPPORTED (unknown flags are INVALID_ARGUMENT before that), an ordinary
 * event is not exported, nothing is written; an import is judged by the
 * host's checks in their order, and a record that passes them is
 * UNSUPPORTED, nothing opened. */
START_TEST(events_are_not_exported_here) {
  hurray_error err;
  hurray_device_tag tag = hurray_plugin_device_tag(plugin);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, 0x2u, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0x2u);
  ck_assert_uint_eq(err.index, 2u);
  ck_assert_int_eq(hurray_plugin_event_create_flags(NULL, 0, 0u, &event, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, 0u, NULL, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3u);
  ck_assert_int_eq(
      hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err),
      HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.expected, tag);
  ck_assert_ptr_null(event);
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ck_assert_int_eq(hurray_plugin_describe_device(plugin, 0, &info, &err), HURRAY_OK);
  ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, 0u); /* PL-DEV-3 */
  if (hurray_plugin_supports_events(plugin)) {
    ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, 0u, &event, &err), HURRAY_OK);
    hurray_plugin_ipc_event record;
    memset(&record, 0xEE, sizeof record);
    record.struct_size = sizeof record;
    ck_assert_int_eq(hurray_plugin_event_export(event, &record, &err), HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, tag);
    ck_assert_uint_eq(record.kind, 0xEEEEEEEEu); /* nothing written */
    hurray_plugin_event_release(event);
    event = NULL;
  }

  hurray_plugin_ipc_event good;
  memset(&good, 0, sizeof good);
  good.struct_size = sizeof good;
  good.kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE;
  good.handle_size = 64;
  good.device_tag = tag;
  hurray_plugin_ipc_event bad = good;
  bad.struct_size = 8;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 8u);
  ck_assert_uint_eq(err.expected, sizeof good);
  ck_assert_uint_eq(err.index, 2u);
  bad = good;
  bad.device_tag = (hurray_device_tag)(tag ^ 0x01u);
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_DEVICE_TAG_MISMATCH);
  ck_assert_uint_eq(err.value, bad.device_tag);
  ck_assert_uint_eq(err.expected, tag);
  bad = good;
  bad.kind = HURRAY_PLUGIN_IPC_MEMORY_FD;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, HURRAY_PLUGIN_IPC_MEMORY_FD);
  bad = good;
  bad.handle_size = 65;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 65u);
  bad.handle_size = 0;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  bad = good;
  bad.reserved[2] = 0x5A;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &event, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0x5Au);
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, NULL, &event, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &good, &event, &err),
                   HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.expected, tag);
  ck_assert_ptr_null(event);
}
END_TEST

int main(int argc, char **argv) {
  int child = conformance_ipc_child_main(argc, argv); /* the second process */
  if (child >= 0) {
    return child;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: test_plugin_ipc PLUGIN_FILE [--require-devices]\n");
    return 2;
  }
  plugin_file = argv[1];
  bool require = argc > 2 && strcmp(argv[2], "--require-devices") == 0;
  /* Whether the plugin has a device here, outside the suite (no asserts). */
  int status = plugin_probe(plugin_file, require, NULL);
  if (status >= 0) {
    return status;
  }
  Suite *suite = suite_create("plugin_ipc");
  TCase *tc = hurray_check_case(suite, "ipc", load, unload, 120);
  tcase_add_test(tc, another_process_reads_and_writes_the_same_memory);
  tcase_add_test(tc, imports_are_checked);
  tcase_add_test(tc, sealed_segment_is_imported_read_only);
  tcase_add_test(tc, refusals_without_export);
  tcase_add_test(tc, events_are_not_exported_here);
  return hurray_check_run_with(suite, CK_NOFORK);
}
