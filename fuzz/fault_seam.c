/*
 * The plugin_host target's link-time wrappers (fuzz/fault_seam.h). Each
 * __wrap_NAME stands where the objects of this one target call NAME
 * (-Wl,--wrap=NAME); __real_NAME is the C library's. Disarmed, a wrapper
 * only counts (mappings, libraries) and passes the call on. A build with
 * _FILE_OFFSET_BITS=64 (meson's default) calls the *64 names: both are
 * wrapped alike.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1 /* dlinfo, dladdr1, memfd_create */

#include "fault_seam.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hurray/plugin.h"

FUZZ_ORACLE_BEGIN

const unsigned char hurray_fuzz_entry_data[64] = {1};

static fault_call armed;
static uint32_t armed_skip;
static int armed_errno;
static bool fired;
static int held;
static long long mapped_bytes;
static int open_libraries;

/* Which stand-in the last dlopen gave: dlsym of the entry symbol follows it. */
static enum { OPENED_REAL, OPENED_SELF, OPENED_DATA, OPENED_BORROWED } last_opened;

void fault_arm(fault_call call, uint32_t skip, int error) {
  armed = call;
  armed_skip = skip;
  armed_errno = error;
  fired = false;
}

void fault_disarm(void) {
  armed = FAULT_NONE;
  fired = false;
}

bool fault_fired(void) { return fired; }

void fault_hold(void) { held++; }

void fault_release(void) { held--; }

void fault_watch_begin(void) {
  mapped_bytes = 0;
  open_libraries = 0;
}

long long fault_mapped_bytes(void) { return mapped_bytes; }

int fault_open_libraries(void) { return open_libraries; }

/* Whether this call of kind `call` is the one that fails. */
static bool fails_now(fault_call call) {
  if (armed != call || held > 0) {
    return false;
  }
  if (armed_skip > 0u) {
    armed_skip--;
    return false;
  }
  armed = FAULT_NONE;
  fired = true;
  errno = armed_errno;
  return true;
}

/* The string helpers the wrappers use are their own: the sanitizers'
 * runtime calls dlsym (through the wrapper) before it can serve the C
 * library's string functions it intercepts. */
static bool same_text(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

static bool holds_text(const char *text, const char *part) {
  for (; *text != '\0'; text++) {
    const char *t = text;
    const char *p = part;
    while (*p != '\0' && *t == *p) {
      t++;
      p++;
    }
    if (*p == '\0') {
      return true;
    }
  }
  return false;
}

static const char *last_component(const char *path) {
  const char *last = path;
  for (; *path != '\0'; path++) {
    if (*path == '/') {
      last = path + 1;
    }
  }
  return last;
}

/* Each wrapped call: the C library's (__real_NAME) and the wrapper
 * (__wrap_NAME), declared for the linker only. */
#define WRAPPED(type, name, parameters) \
  type __real_##name parameters;        \
  type __wrap_##name parameters

WRAPPED(void *, malloc, (size_t size));
WRAPPED(void *, calloc, (size_t count, size_t size));
WRAPPED(void *, realloc, (void *block, size_t size));
WRAPPED(char *, strdup, (const char *text));
WRAPPED(void *, mmap, (void *address, size_t length, int prot, int flags, int fd, off_t offset));
WRAPPED(int, munmap, (void *address, size_t length));
WRAPPED(int, memfd_create, (const char *name, unsigned flags));
WRAPPED(int, ftruncate, (int fd, off_t length));
WRAPPED(int, fcntl, (int fd, int command, ...));
WRAPPED(int, fstat, (int fd, struct stat *st));
WRAPPED(int, stat, (const char *path, struct stat *st));
WRAPPED(void *, mmap64,
        (void *address, size_t length, int prot, int flags, int fd, off64_t offset));
WRAPPED(int, ftruncate64, (int fd, off64_t length));
WRAPPED(int, fcntl64, (int fd, int command, ...));
WRAPPED(int, fstat64, (int fd, struct stat64 *st));
WRAPPED(int, stat64, (const char *path, struct stat64 *st));
WRAPPED(void *, dlopen, (const char *file, int flags));
WRAPPED(int, dlclose, (void *library));
WRAPPED(void *, dlsym, (void *library, const char *name));
WRAPPED(int, dlinfo, (void *library, int request, void *arg));
WRAPPED(int, dladdr1, (const void *address, Dl_info *info, void **extra, int flags));

void *__wrap_malloc(size_t size) { return fails_now(FAULT_MALLOC) ? NULL : __real_malloc(size); }

void *__wrap_calloc(size_t count, size_t size) {
  return fails_now(FAULT_CALLOC) ? NULL : __real_calloc(count, size);
}

void *__wrap_realloc(void *block, size_t size) {
  return fails_now(FAULT_REALLOC) ? NULL : __real_realloc(block, size);
}

char *__wrap_strdup(const char *text) {
  return fails_now(FAULT_STRDUP) ? NULL : __real_strdup(text);
}

/* MAP_FIXED replaces pages of a mapping already counted (the aligned
 * placement of plugin_support's map_fd_aligned). */
static void *counted(void *mapped, size_t length, int flags) {
  if (mapped != MAP_FAILED && (flags & MAP_FIXED) == 0) {
    mapped_bytes += (long long)length;
  }
  return mapped;
}

void *__wrap_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset) {
  if (fails_now(FAULT_MMAP)) {
    return MAP_FAILED;
  }
  return counted(__real_mmap(address, length, prot, flags, fd, offset), length, flags);
}

void *__wrap_mmap64(void *address, size_t length, int prot, int flags, int fd, off64_t offset) {
  if (fails_now(FAULT_MMAP)) {
    return MAP_FAILED;
  }
  return counted(__real_mmap64(address, length, prot, flags, fd, offset), length, flags);
}

int __wrap_munmap(void *address, size_t length) {
  int result = __real_munmap(address, length);
  if (result == 0) {
    mapped_bytes -= (long long)length;
  }
  return result;
}

int __wrap_memfd_create(const char *name, unsigned flags) {
  return fails_now(FAULT_MEMFD_CREATE) ? -1 : __real_memfd_create(name, flags);
}

int __wrap_ftruncate(int fd, off_t length) {
  return fails_now(FAULT_FTRUNCATE) ? -1 : __real_ftruncate(fd, length);
}

int __wrap_ftruncate64(int fd, off64_t length) {
  return fails_now(FAULT_FTRUNCATE) ? -1 : __real_ftruncate64(fd, length);
}

int __wrap_fcntl(int fd, int command, ...) {
  va_list args;
  va_start(args, command);
  long argument = va_arg(args, long); /* what the C library reads too */
  va_end(args);
  return fails_now(FAULT_FCNTL) ? -1 : __real_fcntl(fd, command, argument);
}

int __wrap_fcntl64(int fd, int command, ...) {
  va_list args;
  va_start(args, command);
  long argument = va_arg(args, long);
  va_end(args);
  return fails_now(FAULT_FCNTL) ? -1 : __real_fcntl64(fd, command, argument);
}

int __wrap_fstat(int fd, struct stat *st) {
  return fails_now(FAULT_FSTAT) ? -1 : __real_fstat(fd, st);
}

int __wrap_fstat64(int fd, struct stat64 *st) {
  return fails_now(FAULT_FSTAT) ? -1 : __real_fstat64(fd, st);
}

/* PL-LOAD-3: a path whose last component holds the mark is owned by a
 * user neither root nor this one. */
static int owner_as_marked(int result, const char *path, uid_t *owner) {
  if (result == 0 && holds_text(last_component(path), FAULT_FOREIGN_MARK)) {
    *owner = FAULT_FOREIGN_UID;
  }
  return result;
}

int __wrap_stat(const char *path, struct stat *st) {
  return fails_now(FAULT_STAT) ? -1 : owner_as_marked(__real_stat(path, st), path, &st->st_uid);
}

int __wrap_stat64(const char *path, struct stat64 *st) {
  return fails_now(FAULT_STAT) ? -1 : owner_as_marked(__real_stat64(path, st), path, &st->st_uid);
}

void *__wrap_dlopen(const char *file, int flags) {
  if (fails_now(FAULT_DLOPEN)) {
    return NULL; /* and no dlerror: the loader's "unknown error" */
  }
  const char *name = file != NULL ? last_component(file) : "";
  void *library;
  last_opened = OPENED_REAL;
  if (same_text(name, FAULT_FILE_SELF) || same_text(name, FAULT_FILE_DATA)) {
    library = __real_dlopen(NULL, flags);
    last_opened = name[sizeof "hurray-plugin-" - 1u] == 's' ? OPENED_SELF : OPENED_DATA;
  } else if (same_text(name, FAULT_FILE_BORROWED)) {
    library = __real_dlopen("libm.so.6", flags);
    last_opened = OPENED_BORROWED;
  } else {
    library = __real_dlopen(file, flags);
  }
  if (library != NULL) {
    open_libraries++;
  }
  return library;
}

int __wrap_dlclose(void *library) {
  int result = __real_dlclose(library);
  if (result == 0) {
    open_libraries--;
  }
  return result;
}

void *__wrap_dlsym(void *library, const char *name) {
  if (fails_now(FAULT_DLSYM)) {
    return NULL;
  }
  if (last_opened == OPENED_DATA && same_text(name, HURRAY_PLUGIN_ENTRY_SYMBOL)) {
    return __real_dlsym(library, "hurray_fuzz_entry_data");
  }
  if (last_opened == OPENED_BORROWED && same_text(name, HURRAY_PLUGIN_ENTRY_SYMBOL)) {
    /* Defined by another library than the one opened (PL-ENTRY-3). */
    hurray_plugin_entry_fn entry = hurray_plugin_entry;
    void *symbol;
    __builtin_memcpy(&symbol, &entry, sizeof symbol);
    return symbol;
  }
  return __real_dlsym(library, name);
}

int __wrap_dlinfo(void *library, int request, void *arg) {
  return fails_now(FAULT_DLINFO) ? -1 : __real_dlinfo(library, request, arg);
}

int __wrap_dladdr1(const void *address, Dl_info *info, void **extra, int flags) {
  return fails_now(FAULT_DLADDR1) ? 0 : __real_dladdr1(address, info, extra, flags);
}

FUZZ_ORACLE_END
