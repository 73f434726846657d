/*
 * plugin_support: see plugin_support.h. Shared by every plugin in plugins/,
 * linked into each as a static library with hidden visibility.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#if defined(__linux__)
#define _GNU_SOURCE /* memfd_create, F_GET_SEALS, F_SEAL_FUTURE_WRITE */
#endif
#include "hurray/plugin_support.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hurray_status hurray_support_entry_fail(hurray_error *err, hurray_status status, uint64_t value,
                                        uint64_t expected, const char *format, ...) {
  va_list args;
  va_start(args, format);
  hurray_status result = hurray_support_vfail(err, status, value, expected, 0, format, args);
  va_end(args);
  return result;
}

void *hurray_support_open_runtime(const char *override_env, const char *const *default_names,
                                  size_t default_count, int extra_flags, const char **out_library,
                                  char *reason, size_t reason_size) {
  const char *override = getenv(override_env);
  bool overridden = override != NULL && override[0] != '\0';
  size_t attempts = overridden ? 1u : default_count;
  size_t used = 0;
  if (reason_size > 0) {
    reason[0] = '\0';
  }
  for (size_t i = 0; i < attempts; i++) {
    const char *library = overridden ? override : default_names[i];
    *out_library = library;
    /* RTLD_LOCAL: the runtime's symbols must not leak into the process. */
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | extra_flags);
    if (handle != NULL) {
      return handle;
    }
    const char *why = dlerror();
    if (used < reason_size) {
      /* Keep every attempt: the reason names each file tried and why. */
      int n = snprintf(reason + used, reason_size - used, "%sdlopen %s: %s", used > 0 ? "; " : "",
                       library, why != NULL ? why : "unknown error");
      used += n > 0 ? (size_t)n : 0u;
    }
  }
  return NULL;
}

hurray_bool32 hurray_support_resolve_symbols(void *library, const char *library_name,
                                             const hurray_support_symbol *symbols,
                                             size_t symbol_count, char *reason,
                                             size_t reason_size) {
  for (size_t i = 0; i < symbol_count; i++) {
    void *address = dlsym(library, symbols[i].name);
    if (address == NULL && symbols[i].required) {
      snprintf(reason, reason_size, "dlsym %s in %s: symbol not found", symbols[i].name,
               library_name);
      return HURRAY_FALSE;
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function
     * pointer, and the memcpy does so without a cast -Wpedantic rejects. */
    memcpy(symbols[i].slot, &address, sizeof address);
  }
  return HURRAY_TRUE;
}

hurray_status hurray_support_check_device(const char *plugin_name, uint32_t device_index,
                                          uint32_t device_count, hurray_error *err) {
  if (device_index >= device_count) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, device_count,
                                     "%s: no device %u", plugin_name, (unsigned)device_index);
  }
  return HURRAY_OK;
}

size_t hurray_support_copy_reason(char *buf, size_t cap, const char *reason) {
  int n = snprintf(buf, cap, "%s", reason);
  return n > 0 ? (size_t)n : 0u;
}

void hurray_support_add_memory_class(hurray_plugin_device_info *info,
                                     hurray_memory_class memory_class, uint32_t flags,
                                     uint32_t max_alignment) {
  if (info->memory_class_count >= HURRAY_PLUGIN_MAX_MEMORY_CLASSES) {
    return;
  }
  hurray_plugin_memory_class_info *entry = &info->memory_classes[info->memory_class_count++];
  entry->memory_class = memory_class;
  entry->flags = flags;
  entry->max_alignment = max_alignment;
}

/* ------------------------------------------------------------------------ */
/* Host memory shared through a memfd (PL-IPC-1..4)                         */
/* ------------------------------------------------------------------------ */

static size_t page_size(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (size_t)page : 4096u;
}

static hurray_status shared_fail_errno(hurray_error *err, const char *plugin_name, int e,
                                       uint64_t value, const char *call) {
  return hurray_support_entry_fail(
      err, e == ENOMEM ? HURRAY_ERR_OUT_OF_MEMORY : HURRAY_ERR_DEVICE_ERROR, value, 0,
      "%s: %s: %s (errno %d)", plugin_name, call, strerror(e), e);
}

/* Maps `length` bytes of `fd` from `offset` at an address aligned to
 * `alignment`: reserve enough address space to find an aligned start, put
 * the file there, give back the rest. NULL with errno set on failure. */
static void *map_fd_aligned(int fd, uint64_t offset, size_t length, size_t alignment, int prot) {
  size_t page = page_size();
  size_t slack = alignment > page ? alignment - page : 0u;
  unsigned char *base = mmap(NULL, length + slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    return NULL;
  }
  uintptr_t start = ((uintptr_t)base + alignment - 1u) & ~((uintptr_t)alignment - 1u);
  void *mapped = mmap((void *)start, length, prot, MAP_SHARED | MAP_FIXED, fd, (off_t)offset);
  if (mapped == MAP_FAILED) {
    int e = errno;
    munmap(base, length + slack);
    errno = e;
    return NULL;
  }
  size_t head = start - (uintptr_t)base;
  if (head > 0u) {
    munmap(base, head);
  }
  if (slack > head) {
    munmap((unsigned char *)start + length, slack - head);
  }
  return mapped;
}

/* No descriptor (-1: 0 is one) and nothing mapped. create and import start
 * from it, so `out` can be released however they end, and release ends with
 * it, so a second release does nothing. */
static void shared_memory_clear(hurray_support_shared_memory *memory) {
  memset(memory, 0, sizeof *memory);
  memory->fd = -1;
}

#if !defined(__linux__)
static hurray_status shared_fail_no_memfd(hurray_error *err, const char *plugin_name) {
  return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, 0, "%s: no memfd on this system",
                                   plugin_name);
}
#endif

static size_t whole_pages(uint64_t bytes) {
  size_t page = page_size();
  return ((size_t)bytes + page - 1u) / page * page;
}

hurray_status hurray_support_shared_create(const char *plugin_name, uint64_t byte_size,
                                           uint32_t alignment, hurray_support_shared_memory *out,
                                           hurray_error *err) {
  shared_memory_clear(out);
#if defined(__linux__)
  if (byte_size > SIZE_MAX / 2u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0, "%s: %llu bytes",
                                     plugin_name, (unsigned long long)byte_size);
  }
  size_t length = whole_pages(byte_size);
  int fd = memfd_create("hurray-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    return shared_fail_errno(err, plugin_name, errno, byte_size, "memfd_create");
  }
  void *address = NULL;
  if (ftruncate(fd, (off_t)length) != 0 ||
      (address = map_fd_aligned(fd, 0, length, alignment, PROT_READ | PROT_WRITE)) == NULL) {
    int e = errno;
    close(fd);
    return shared_fail_errno(err, plugin_name, e, byte_size, "ftruncate and mmap of a memfd");
  }
  out->fd = fd;
  out->address = address;
  out->length = length;
  return HURRAY_OK;
#else
  (void)byte_size;
  (void)alignment;
  return shared_fail_no_memfd(err, plugin_name);
#endif
}

hurray_status hurray_support_shared_import(const char *plugin_name,
                                           const hurray_plugin_ipc_memory *in,
                                           hurray_support_shared_memory *out, hurray_error *err) {
  shared_memory_clear(out);
#if defined(__linux__)
  if (in->kind != HURRAY_PLUGIN_IPC_MEMORY_FD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, in->kind, HURRAY_PLUGIN_IPC_MEMORY_FD,
        "%s: memory kind %u: this plugin imports descriptors (kind %u)", plugin_name,
        (unsigned)in->kind, (unsigned)HURRAY_PLUGIN_IPC_MEMORY_FD);
  }
  struct stat st;
  if (fstat(in->fd, &st) != 0) {
    return shared_fail_errno(err, plugin_name, errno, (uint64_t)(int64_t)in->fd,
                             "fstat of the imported descriptor");
  }
  uint64_t end = in->offset + in->byte_size; /* no overflow: checked by the host (PL-IPC-3) */
  if (!S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size < end) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_IPC_BAD_SEGMENT, end, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0u,
        "%s: descriptor %d is %s of %lld bytes; the buffer needs %llu", plugin_name, (int)in->fd,
        S_ISREG(st.st_mode) ? "a file" : "not a regular file", (long long)st.st_size,
        (unsigned long long)end);
  }
  if (in->offset % page_size() != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->offset, page_size(),
                                     "%s: offset %llu is not a multiple of the %zu-byte page",
                                     plugin_name, (unsigned long long)in->offset, page_size());
  }
  int seals = fcntl(in->fd, F_GET_SEALS);
  bool read_only = seals > 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) != 0;
  size_t length = whole_pages(in->byte_size);
  int fd = fcntl(in->fd, F_DUPFD_CLOEXEC, 0);
  void *address = NULL;
  if (fd < 0 ||
      (address = map_fd_aligned(fd, in->offset, length, in->alignment,
                                read_only ? PROT_READ : PROT_READ | PROT_WRITE)) == NULL) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
    }
    return shared_fail_errno(err, plugin_name, e, in->byte_size,
                             "duplicating and mapping the imported descriptor");
  }
  out->fd = fd;
  out->read_only = read_only ? HURRAY_TRUE : HURRAY_FALSE;
  out->address = address;
  out->length = length;
  return HURRAY_OK;
#else
  (void)in;
  return shared_fail_no_memfd(err, plugin_name);
#endif
}

hurray_status hurray_support_shared_export(const char *plugin_name,
                                           const hurray_support_shared_memory *memory,
                                           hurray_plugin_ipc_memory *out, hurray_error *err) {
  int fd = fcntl(memory->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    return shared_fail_errno(err, plugin_name, errno, 0, "fcntl(F_DUPFD_CLOEXEC)");
  }
  out->kind = HURRAY_PLUGIN_IPC_MEMORY_FD;
  out->fd = fd;
  out->segment_size = memory->length;
  out->offset = 0u;
  return HURRAY_OK;
}

void hurray_support_shared_release(hurray_support_shared_memory *memory) {
  if (memory->address != NULL) {
    munmap(memory->address, (size_t)memory->length);
  }
  if (memory->fd >= 0) {
    close(memory->fd);
  }
  shared_memory_clear(memory);
}
