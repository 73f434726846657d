/*
 * `ipc-memory` (PL-IPC-1..6) and `ipc-event` (PL-IPC-7..11) (specs/cli.md
 * CLI-CHK-2): what a plugin exports, imported by a second process through
 * its own load of the plugin, as an application on the other side of a Unix
 * socket would. The second process is this program again
 * (/proc/self/exe CONFORMANCE_IPC_CHILD MODE PLUGIN_FILE DEVICE 100), its end
 * of a socket pair as descriptor 100; it answers one verdict.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance.h"

extern char **environ;

enum { SHARED_BYTES = 1 << 20, CHILD_FD = 100, CHILD_SECONDS = 60 };

/* What the second process answers: 0 or the step that failed, and why. */
typedef struct child_verdict {
  uint8_t step;
  char detail[HURRAY_ERROR_DETAIL_SIZE + 64];
} child_verdict;

static const char *const child_steps[] = {
    "nothing",
    "receiving the record",
    "loading the plugin",
    "import",
    "reading the bytes",
    "comparing the bytes",
    "the imported handle",
    "writing its bytes",
    "freeing the import",
    "waiting on the event",
};

static unsigned char pattern(size_t i, unsigned seed) { return (unsigned char)(i * 7u + seed); }

static size_t open_descriptors(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) {
    return 0;
  }
  size_t n = 0;
  for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
    n += e->d_name[0] != '.';
  }
  closedir(dir);
  return n;
}

/* One message: the record's bytes, with the descriptor as SCM_RIGHTS when
 * fd >= 0. */
static bool send_record(int socket_fd, const void *record, size_t size, int fd) {
  struct iovec iov = {(void *)(uintptr_t)record, size};
  union {
    struct cmsghdr header;
    char bytes[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (fd >= 0) {
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  return sendmsg(socket_fd, &msg, 0) == (ssize_t)size;
}

/* The record, and the descriptor that came with it (-1 when none). */
static bool receive_record(int socket_fd, void *record, size_t size, int *fd) {
  struct iovec iov = {record, size};
  union {
    struct cmsghdr header;
    char bytes[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.bytes;
  msg.msg_controllen = sizeof control.bytes;
  *fd = -1;
  if (recvmsg(socket_fd, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)size) {
    return false;
  }
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
    memcpy(fd, CMSG_DATA(c), sizeof *fd);
  }
  return true;
}

static uint8_t child_fail(child_verdict *v, uint8_t step, const hurray_error *err) {
  v->step = step;
  snprintf(v->detail, sizeof v->detail, "%s%s%s",
           err != NULL ? hurray_status_name(err->status) : "", err != NULL ? ": " : "",
           err != NULL ? err->detail : "");
  return step;
}

/* The second process's memory side: import, check the producer's bytes and
 * the handle, write its own, free the import. */
static uint8_t child_memory(hurray_plugin *plugin, int socket_fd, child_verdict *v) {
  static unsigned char bytes[SHARED_BYTES];
  hurray_plugin_ipc_memory memory;
  int fd = -1;
  if (!receive_record(socket_fd, &memory, sizeof memory, &fd)) {
    return child_fail(v, 1, NULL);
  }
  memory.fd = fd; /* the sender's number means nothing here */
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *imported = NULL;
  uint8_t step = 0;
  if (hurray_plugin_import(plugin, 0, &memory, &imported, &err) != HURRAY_OK) {
    step = child_fail(v, 3, &err);
  } else if (hurray_plugin_buffer_read(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
    step = child_fail(v, 4, &err);
  } else {
    for (size_t i = 0; i < sizeof bytes && step == 0; i++) {
      step = bytes[i] == pattern(i, 1u) ? 0 : child_fail(v, 5, NULL);
    }
    const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(imported);
    if (step == 0 && (handle->byte_size != SHARED_BYTES || handle->alignment != memory.alignment)) {
      step = child_fail(v, 6, NULL);
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
      bytes[i] = pattern(i, 2u);
    }
    if (step == 0 &&
        hurray_plugin_buffer_write(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
      step = child_fail(v, 7, &err);
    }
  }
  if (imported != NULL && hurray_plugin_buffer_release(imported, &err) != HURRAY_OK && step == 0) {
    step = child_fail(v, 8, &err);
  }
  if (fd >= 0) {
    close(fd); /* the import keeps its own */
  }
  return step;
}

/* The second process's event side: open the exported event, wait on it,
 * close the import. */
static uint8_t child_event(hurray_plugin *plugin, uint32_t device, int socket_fd,
                           child_verdict *v) {
  hurray_plugin_ipc_event record;
  int fd = -1;
  if (!receive_record(socket_fd, &record, sizeof record, &fd) || fd >= 0) {
    return child_fail(v, 1, NULL);
  }
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_event *imported = NULL;
  if (hurray_plugin_event_import(plugin, device, &record, &imported, &err) != HURRAY_OK) {
    return child_fail(v, 3, &err);
  }
  uint8_t step = 0;
  if (hurray_plugin_event_wait(imported, 10ull * 1000u * 1000u * 1000u, &err) != HURRAY_OK) {
    step = child_fail(v, 9, &err);
  }
  hurray_plugin_event_release(imported);
  return step;
}

int conformance_ipc_child_main(int argc, char **argv) {
  if (argc != 6 || strcmp(argv[1], CONFORMANCE_IPC_CHILD) != 0) {
    return -1;
  }
  const char *mode = argv[2];
  const char *file = argv[3];
  uint32_t device = (uint32_t)strtoul(argv[4], NULL, 10);
  int socket_fd = atoi(argv[5]);
  child_verdict v;
  memset(&v, 0, sizeof v);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_registry *registry = NULL;
  hurray_plugin *plugin = NULL;
  if (hurray_plugin_registry_create(&registry, &err) != HURRAY_OK ||
      hurray_plugin_load(registry, file, 0, &plugin, &err) != HURRAY_OK) {
    child_fail(&v, 2, &err);
  } else if (strcmp(mode, "memory") == 0) {
    child_memory(plugin, socket_fd, &v);
  } else {
    child_event(plugin, device, socket_fd, &v);
  }
  hurray_plugin_registry_destroy(registry);
  bool sent = write(socket_fd, &v, sizeof v) == (ssize_t)sizeof v;
  close(socket_fd);
  return sent && v.step == 0 ? 0 : 1;
}

/* Starts the second process in `mode` on `device`; *socket_fd is this
 * side's end of the pair. */
static pid_t spawn_child(conformance_run *run, const char *mode, uint32_t device, int *socket_fd) {
  int pair[2];
  CONFORM(run, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0,
          "socketpair failed");
  /* The child's end survives exec as CHILD_FD (dup2 clears CLOEXEC). */
  CONFORM(run, pair[1] != CHILD_FD, "descriptor %d is in use", CHILD_FD);
  char program[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1u);
  CONFORM(run, n > 0, "readlink /proc/self/exe failed");
  program[n] = '\0';
  char child[] = CONFORMANCE_IPC_CHILD;
  char mode_arg[16];
  snprintf(mode_arg, sizeof mode_arg, "%s", mode);
  char device_arg[16];
  snprintf(device_arg, sizeof device_arg, "%u", (unsigned)device);
  char descriptor[16];
  snprintf(descriptor, sizeof descriptor, "%d", CHILD_FD);
  char *file = strdup(conformance_file(run));
  char *argv[] = {program, child, mode_arg, file, device_arg, descriptor, NULL};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], CHILD_FD);
  pid_t pid = -1;
  int rc = file != NULL ? posix_spawn(&pid, program, &actions, NULL, argv, environ) : -1;
  posix_spawn_file_actions_destroy(&actions);
  free(file);
  close(pair[1]);
  if (rc != 0) {
    close(pair[0]);
    conformance_fail(run, "could not start the second process %s: %s", program, strerror(rc));
  }
  *socket_fd = pair[0];
  return pid;
}

/* The second process's verdict; fails the check (after reaping the child)
 * when it failed or did not answer within CHILD_SECONDS. */
static void child_verdict_of(conformance_run *run, pid_t pid, int socket_fd, const char *what) {
  child_verdict v;
  memset(&v, 0, sizeof v);
  struct pollfd p = {socket_fd, POLLIN, 0};
  bool answered = poll(&p, 1, CHILD_SECONDS * 1000) == 1 &&
                  read(socket_fd, &v, sizeof v) == (ssize_t)sizeof v;
  if (!answered) {
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(socket_fd);
  CONFORM(run, answered, "%s: the second process gave no verdict within %d s (exit status %d)",
          what, CHILD_SECONDS, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  CONFORM(run, v.step == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "%s: the second process failed at %s%s%s", what,
          v.step < sizeof child_steps / sizeof child_steps[0] ? child_steps[v.step] : "?",
          v.detail[0] != '\0' ? ": " : "", v.detail);
}

/* PL-IPC-1..6: an exportable buffer, exported; a second process imports it
 * through its own plugin, reads the producer's bytes, writes its own, frees
 * its import; the producer then reads the consumer's bytes from its own
 * buffer: one memory, no copy. A plugin without export refuses an
 * exportable allocation (PL-IPC-1). */
void conformance_check_ipc_memory(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_device_tag tag = hurray_plugin_device_tag(plugin);
  hurray_plugin_table table;
  conformance_table_of(run, &table);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  if (table.export_memory == NULL) {
    conformance_expect_status(
        run,
        hurray_plugin_allocate_flags(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD,
                                     HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
        HURRAY_ERR_UNSUPPORTED, &err, "an exportable allocation on a plugin without export_memory");
    conformance_expect_eq(run, err.expected, tag, "its error's expected (the tag)");
    conformance_skip(run,
                     "the plugin exports no memory (no export_memory entry); an "
                     "exportable allocation is refused, as PL-IPC-1 says");
  }
  size_t descriptors_before = open_descriptors();
  conformance_expect_status(
      run,
      hurray_plugin_allocate_flags(plugin, 0, SHARED_BYTES, 64, HURRAY_MEMORY_STANDARD,
                                   HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
      HURRAY_OK, &err, "an exportable allocation (device 0, 1 MiB, standard)");
  static unsigned char bytes[SHARED_BYTES];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = pattern(i, 1u);
  }
  conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err),
                            HURRAY_OK, &err, "copy_to_device of the producer's bytes");
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0xEE, sizeof memory);
  memory.struct_size = sizeof memory;
  conformance_expect_status(run, hurray_plugin_buffer_export(buffer, &memory, &err), HURRAY_OK,
                            &err, "buffer_export");
  bool fd_kind = memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD;
  if (fd_kind) {
    CONFORM(run, memory.fd >= 0 && (fcntl(memory.fd, F_GETFD) & FD_CLOEXEC) != 0,
            "an exported descriptor (%d) that is not open and close-on-exec", (int)memory.fd);
    CONFORM(run, memory.segment_size >= memory.offset + SHARED_BYTES,
            "the segment (%llu bytes) does not hold the buffer at offset %llu",
            (unsigned long long)memory.segment_size, (unsigned long long)memory.offset);
  } else {
    conformance_expect_eq(run, memory.kind, HURRAY_PLUGIN_IPC_MEMORY_HANDLE,
                          "the exported record's kind");
    CONFORM(run, memory.handle_size > 0u && memory.handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE,
            "an exported handle of %u bytes", (unsigned)memory.handle_size);
  }
  conformance_expect_eq(run, memory.byte_size, SHARED_BYTES, "the exported byte_size");
  conformance_expect_eq(run, memory.alignment, hurray_plugin_buffer_handle(buffer)->alignment,
                        "the exported alignment against the buffer's handle");
  conformance_expect_eq(run, memory.device_tag, tag, "the exported device_tag");
  conformance_expect_eq(run, memory.memory_class, HURRAY_MEMORY_STANDARD,
                        "the exported memory_class");
  conformance_expect_eq(run, (uint64_t)memory.reserved[0] | memory.reserved[1], 0,
                        "the exported reserved bytes");

  int socket_fd = -1;
  pid_t child = spawn_child(run, "memory", 0, &socket_fd);
  bool sent = send_record(socket_fd, &memory, sizeof memory, fd_kind ? memory.fd : -1);
  if (fd_kind) {
    close(memory.fd); /* PL-IPC-2: sent, so ours to close */
  }
  CONFORM(run, sent, "sending the exported record to the second process failed");
  child_verdict_of(run, child, socket_fd, "the import in a second process");

  /* The consumer's bytes, read through the producer's own buffer. */
  conformance_expect_status(run, hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err),
                            HURRAY_OK, &err, "copy_to_host after the second process wrote");
  for (size_t i = 0; i < sizeof bytes; i++) {
    CONFORM(run, bytes[i] == pattern(i, 2u),
            "byte %zu is not what the second process wrote: the import is not the same memory", i);
  }
  conformance_expect_status(run, hurray_plugin_buffer_release(buffer, &err), HURRAY_OK, &err,
                            "freeing the exported buffer");
  if (fd_kind) {
    conformance_expect_eq(run, open_descriptors(), descriptors_before,
                          "descriptors open after the export, the transfer and the free");
  }
  conformance_note(run, "exported as %s, imported, written and freed by a second process",
                   fd_kind ? "a descriptor" : "a runtime IPC handle");
}

/* PL-IPC-7..11: on the first device that declares HURRAY_IPC_EXPORTS_EVENTS,
 * an exportable event recorded and exported; a second process opens it,
 * waits on it and closes its import while the exporter's event lives. A
 * plugin whose devices declare none refuses an exportable event. */
void conformance_check_ipc_event(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_device_tag tag = hurray_plugin_device_tag(plugin);
  uint32_t device = UINT32_MAX;
  hurray_error err;
  memset(&err, 0, sizeof err);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin) && device == UINT32_MAX; d++) {
    hurray_plugin_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    conformance_expect_status(run, hurray_plugin_describe_device(plugin, d, &info, &err), HURRAY_OK,
                              &err, "describe_device(%u)", (unsigned)d);
    if ((info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u) {
      device = d;
    }
  }
  hurray_plugin_event *event = NULL;
  if (device == UINT32_MAX) {
    hurray_status s =
        hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err);
    conformance_expect_status(run, s, HURRAY_ERR_UNSUPPORTED, &err,
                              "an exportable event on a device that does not declare "
                              "HURRAY_IPC_EXPORTS_EVENTS");
    conformance_skip(run,
                     "no device declares HURRAY_IPC_EXPORTS_EVENTS; an exportable event is "
                     "refused, as PL-IPC-7 says");
  }
  conformance_expect_status(run,
                            hurray_plugin_event_create_flags(
                                plugin, device, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err),
                            HURRAY_OK, &err, "an exportable event (device %u)", (unsigned)device);
  conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                            "record_event of the exportable event");
  hurray_plugin_ipc_event record;
  memset(&record, 0xEE, sizeof record);
  record.struct_size = sizeof record;
  conformance_expect_status(run, hurray_plugin_event_export(event, &record, &err), HURRAY_OK, &err,
                            "event_export");
  conformance_expect_eq(run, record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE,
                        "the exported event's kind");
  conformance_expect_eq(run, record.device_tag, tag, "the exported event's device_tag");
  CONFORM(run, record.handle_size > 0u && record.handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE,
          "an exported event handle of %u bytes", (unsigned)record.handle_size);
  int socket_fd = -1;
  pid_t child = spawn_child(run, "event", device, &socket_fd);
  CONFORM(run, send_record(socket_fd, &record, sizeof record, -1),
          "sending the exported event to the second process failed");
  child_verdict_of(run, child, socket_fd, "the event opened in a second process");
  hurray_plugin_event_release(event); /* after the importer closed its import */
  conformance_note(run, "device %u: an exported event opened and waited on by a second process",
                   (unsigned)device);
}
