/*
 * The runtimes' IPC handles across two processes (PL-IPC-2..4, PL-IPC-6):
 * the exporter is a Check test, the importer a second run of this program
 * (vendor_test.h: spawn_importer).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vendor_test.h"

/* Not a multiple of the page: the import's last bytes are the buffer's. */
enum { CROSS_BYTES = (1 << 16) + 123 };

static unsigned char cross_pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 11u + seed);
}

/* What the importer failed at (its exit status and the byte it sends). */
static const char *const importer_steps[] = {"nothing",
                                             "receive the memory record",
                                             "inherit a memfd of the stand-in",
                                             "load the plugin with the stand-in",
                                             "import",
                                             "read the import",
                                             "find the exporter's bytes",
                                             "declare what the exporter declared",
                                             "write the import",
                                             "release the import",
                                             "leave the stand-in holding nothing of the import"};

enum { IMPORTER_STEPS = sizeof importer_steps / sizeof importer_steps[0] };

/* True when this process holds a descriptor of one of the stand-ins' memfds
 * (fake_common.h names them hurray-fake-...): the exporter's are
 * close-on-exec, so the importer reaches the memory through the handle
 * alone, as with a real runtime. */
static bool holds_a_stand_in_memfd(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) {
    return true; /* cannot tell: count it as the failure */
  }
  bool found = false;
  for (struct dirent *e = readdir(dir); e != NULL && !found; e = readdir(dir)) {
    char path[300];
    char target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1u);
    if (n > 0) {
      target[n] = '\0';
      found = strncmp(target, "/memfd:hurray-fake-", 19) == 0;
    }
  }
  closedir(dir);
  return found;
}

/* The importer (a second process, no Check): receives the exporter's
 * hurray_plugin_ipc_memory, loads the same plugin with the same stand-in,
 * imports (PL-IPC-3), checks the exporter's bytes and what the import
 * declares (PL-IPC-4), writes its own bytes and releases the import, which
 * closes the handle. Returns 0, or the index of the step that failed in
 * importer_steps. */
static unsigned char import_in_this_process(int socket_fd) {
  hurray_plugin_ipc_memory memory;
  if (read(socket_fd, &memory, sizeof memory) != (ssize_t)sizeof memory) {
    return 1;
  }
  if (holds_a_stand_in_memfd()) {
    return 2;
  }
  hurray_plugin_registry *own;
  hurray_plugin *plugin;
  void *stand_in;
  long (*live)(void);
  if (!importer_load(&own, &plugin, &stand_in, &live)) {
    return 3;
  }
  hurray_error err;
  long live_before = live != NULL ? live() : -1;
  static unsigned char bytes[CROSS_BYTES];
  unsigned char step = 0;
  hurray_plugin_buffer *imported = NULL;
  if (hurray_plugin_import(plugin, 0, &memory, &imported, &err) != HURRAY_OK) {
    fprintf(stderr, "importer: %s\n", err.detail);
    step = 4;
  } else if (hurray_plugin_buffer_read(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
    step = 5;
  } else {
    for (size_t i = 0; i < sizeof bytes && step == 0; i++) {
      step = bytes[i] == cross_pattern(i, 1u) ? 0 : 6;
    }
    const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(imported);
    if (step == 0 &&
        (handle->byte_size != CROSS_BYTES || handle->alignment != memory.alignment ||
         handle->device_tag != the_case->tag || handle->memory_class != HURRAY_MEMORY_STANDARD)) {
      step = 7;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
      bytes[i] = cross_pattern(i, 2u);
    }
    if (step == 0 &&
        hurray_plugin_buffer_write(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
      step = 8;
    }
  }
  if (imported != NULL && hurray_plugin_buffer_release(imported, &err) != HURRAY_OK && step == 0) {
    step = 9;
  }
  if (step == 0 && (live == NULL || live() != live_before)) {
    step = 10;
  }
  hurray_plugin_registry_destroy(own);
  dlclose(stand_in);
  return step;
}

int run_importer(int socket_fd) {
  return importer_reply(socket_fd, import_in_this_process(socket_fd));
}

/* PL-IPC-2..4 across two processes with the runtimes' IPC handles: an
 * exportable device buffer with the exporter's pattern is exported
 * (PL-IPC-2: kind HANDLE, 64 bytes, no descriptor), the record alone goes
 * over a socket to a second process started from this program, which loads
 * the same plugin with the same stand-in and imports it (PL-IPC-3), finds
 * the exporter's bytes, declares what the exporter declared, writes its own
 * bytes and frees its import, which closes the handle only (PL-IPC-4); the
 * exporter then reads the importer's bytes from its own buffer: one
 * memory, no copy. Nothing of the importer's is counted in the exporter's
 * stand-in. */
START_TEST(ipc_handle_opens_in_another_process) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  hurray_status s = hurray_plugin_allocate_flags(plugin, 0, CROSS_BYTES, 256,
                                                 HURRAY_MEMORY_STANDARD,
                                                 HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err);
  ck_assert_msg(s == HURRAY_OK, "%s", err.detail);
  static unsigned char bytes[CROSS_BYTES];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = cross_pattern(i, 1u);
  }
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &memory, &err), HURRAY_OK);
  ck_assert_uint_eq(memory.kind, HURRAY_PLUGIN_IPC_MEMORY_HANDLE);
  ck_assert_uint_eq(memory.handle_size, 64u);
  ck_assert_int_eq(memory.fd, -1);
  ck_assert_uint_eq(memory.byte_size, CROSS_BYTES);
  ck_assert_uint_eq(memory.alignment, hurray_plugin_buffer_handle(buffer)->alignment);
  ck_assert_uint_eq(memory.device_tag, the_case->tag);
  ck_assert_uint_eq(memory.memory_class, HURRAY_MEMORY_STANDARD);
  long live_before = live_objects(stand_in);

  pid_t child;
  int exporter = spawn_importer("importer", &child);
  ck_assert_int_eq(write(exporter, &memory, sizeof memory), (ssize_t)sizeof memory);
  unsigned char step = 0xFF;
  ck_assert_int_eq(read(exporter, &step, 1), 1);
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  close(exporter);
  ck_assert_msg(step == 0, "the importer failed to %s",
                step < IMPORTER_STEPS ? importer_steps[step] : "answer");
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_int_eq(live_objects(stand_in), live_before);

  /* The importer's bytes, read through the exporter's own buffer. */
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  for (size_t i = 0; i < sizeof bytes; i++) {
    ck_assert_uint_eq(bytes[i], cross_pattern(i, 2u));
  }
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before - 1);
  dlclose(stand_in);
}
END_TEST

/* PL-IPC-3: the handle of memory that has been freed opens nothing, even
 * when a later allocation takes the place the handle named (the stand-ins
 * reuse descriptor numbers, as the kernel does); the refusal is the
 * runtime's error and leaves nothing open, and the later buffer's own
 * handle still opens. */
START_TEST(ipc_handle_of_freed_memory_does_not_open) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 256, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  hurray_plugin_ipc_memory stale;
  memset(&stale, 0, sizeof stale);
  stale.struct_size = sizeof stale;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &stale, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 256, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  long live = live_objects(stand_in);
  hurray_plugin_buffer *imported = NULL;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &stale, &imported, &err),
                   HURRAY_ERR_DEVICE_ERROR);
  ck_assert_ptr_null(imported);
  ck_assert_int_eq(live_objects(stand_in), live);
  hurray_plugin_ipc_memory current;
  memset(&current, 0, sizeof current);
  current.struct_size = sizeof current;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &current, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &current, &imported, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live - 1);
  dlclose(stand_in);
}
END_TEST

void vendor_add_ipc_memory_tests(TCase *tc) {
  if (the_case->tag == HURRAY_DEVICE_CUDA || the_case->tag == HURRAY_DEVICE_ROCM ||
      the_case->tag == HURRAY_DEVICE_LEVEL_ZERO) {
    /* The plugins that export with the runtime's IPC handles (PL-IPC-6). */
    tcase_add_test(tc, ipc_handle_opens_in_another_process);
    tcase_add_test(tc, ipc_handle_of_freed_memory_does_not_open);
  }
}
