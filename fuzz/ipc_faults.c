/*
 * The wrappers of fuzz/ipc_faults.h: each __wrap_CALL fails when the fault
 * armed on its thread names CALL and its earlier calls are used up, and
 * otherwise calls __real_CALL. The state is per thread, so that a consumer
 * connecting on another thread (fuzz/ipc_endpoints.c) runs undisturbed and
 * a fault fires at the same call on every replay.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "ipc_faults.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_check.h"

FUZZ_ORACLE_BEGIN

static _Thread_local int armed;
static _Thread_local int fired;             /* since armed */
static _Thread_local int fired_unchecked;   /* since the last ipc_fault_check */
static _Thread_local ipc_fault armed_fault; /* as armed */
static _Thread_local ipc_fault current;     /* its calls left to pass */

/* How the library's error details name each call (ipc/ipc_common.c's
 * hurray_internal_ipc_fail_errno): accept4 has none, a failed accept
 * leaves the connection waiting. */
static const char *const call_names[IPC_FAULT_CALL_COUNT] = {
    "socket",  "bind",    "listen", "accept4",      "connect",   "poll",  "getsockopt(SO_PEERCRED)",
    "sendmsg", "recvmsg", "mmap",   "memfd_create", "ftruncate", "fcntl", "mprotect",
    "fstat",   "calloc"};

/* Errors these calls document, and EINTR, which the library retries. */
static const int errnos[] = {EAGAIN, EINTR,      EIO,    ENOMEM, EMFILE,
                             EPIPE,  ECONNRESET, EINVAL, EACCES, ENOBUFS};

ipc_fault ipc_fault_from_bytes(const uint8_t bytes[3]) {
  ipc_fault f;
  f.call = (ipc_fault_call)(bytes[0] % IPC_FAULT_CALL_COUNT);
  f.skip = bytes[1] % 8u;
  f.errnum = errnos[bytes[2] % (sizeof errnos / sizeof errnos[0])];
  return f;
}

void ipc_fault_arm(ipc_fault fault) {
  armed_fault = fault;
  current = fault;
  armed = 1;
  fired = 0;
  fired_unchecked = 0;
}

int ipc_fault_disarm(void) {
  int was = fired;
  armed = 0;
  fired = 0;
  fired_unchecked = 0;
  return was;
}

/* Whether this call of `call` is the one that fails (then errno is set). */
static int hit(ipc_fault_call call) {
  if (!armed || current.call != call) {
    return 0;
  }
  if (current.skip > 0u) {
    current.skip--;
    return 0;
  }
  armed = 0;
  fired = 1;
  fired_unchecked = 1;
  errno = call == IPC_FAULT_CALLOC ? ENOMEM : current.errnum;
  return 1;
}

void ipc_fault_check(hurray_status st, const hurray_error *err) {
  (void)fuzz_checked_status(st, err);
  const ipc_fault fault = armed_fault;
  const int in_this_call = fired_unchecked;
  fired_unchecked = 0;
  if (st == HURRAY_ERR_OUT_OF_MEMORY && (armed || fired)) {
    FUZZ_CHECK(fired && fault.call == IPC_FAULT_CALLOC);
  }
  /* EINTR is retried: what fails after it is the call's own answer. */
  if (st != HURRAY_ERR_IO || !in_this_call || fault.call == IPC_FAULT_CALLOC ||
      fault.errnum == EINTR || err == NULL) {
    return;
  }
  FUZZ_CHECK(strstr(err->detail, call_names[fault.call]) != NULL);
  FUZZ_CHECK(strstr(err->detail, strerror(fault.errnum)) != NULL);
  FUZZ_CHECK(err->value == (uint64_t)fault.errnum);
}

int __real_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol) {
  return hit(IPC_FAULT_SOCKET) ? -1 : __real_socket(domain, type, protocol);
}

int __real_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len) {
  return hit(IPC_FAULT_BIND) ? -1 : __real_bind(fd, sa, len);
}

int __real_listen(int fd, int backlog);
int __wrap_listen(int fd, int backlog);
int __wrap_listen(int fd, int backlog) {
  return hit(IPC_FAULT_LISTEN) ? -1 : __real_listen(fd, backlog);
}

int __real_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);
int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);
int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags) {
  return hit(IPC_FAULT_ACCEPT4) ? -1 : __real_accept4(fd, sa, len, flags);
}

int __real_connect(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len) {
  return hit(IPC_FAULT_CONNECT) ? -1 : __real_connect(fd, sa, len);
}

int __real_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  return hit(IPC_FAULT_POLL) ? -1 : __real_poll(fds, n, timeout_ms);
}

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
  return hit(IPC_FAULT_GETSOCKOPT) ? -1 : __real_getsockopt(fd, level, name, value, len);
}

ssize_t __real_sendmsg(int fd, const struct msghdr *mh, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *mh, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *mh, int flags) {
  return hit(IPC_FAULT_SENDMSG) ? -1 : __real_sendmsg(fd, mh, flags);
}

ssize_t __real_recvmsg(int fd, struct msghdr *mh, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *mh, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *mh, int flags) {
  return hit(IPC_FAULT_RECVMSG) ? -1 : __real_recvmsg(fd, mh, flags);
}

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return hit(IPC_FAULT_MMAP) ? MAP_FAILED : __real_mmap(addr, len, prot, flags, fd, offset);
}

int __real_memfd_create(const char *name, unsigned flags);
int __wrap_memfd_create(const char *name, unsigned flags);
int __wrap_memfd_create(const char *name, unsigned flags) {
  return hit(IPC_FAULT_MEMFD_CREATE) ? -1 : __real_memfd_create(name, flags);
}

int __real_ftruncate(int fd, off_t len);
int __wrap_ftruncate(int fd, off_t len);
int __wrap_ftruncate(int fd, off_t len) {
  return hit(IPC_FAULT_FTRUNCATE) ? -1 : __real_ftruncate(fd, len);
}

/* fcntl's third argument is an int, a pointer or absent, by command. */
int __real_fcntl(int fd, int cmd, ...);
int __wrap_fcntl(int fd, int cmd, ...);
int __wrap_fcntl(int fd, int cmd, ...) {
  if (hit(IPC_FAULT_FCNTL)) {
    return -1;
  }
  va_list ap;
  va_start(ap, cmd);
  int rc;
  switch (cmd) {
    case F_GETFD:
    case F_GETFL:
    case F_GET_SEALS: rc = __real_fcntl(fd, cmd); break;
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW: rc = __real_fcntl(fd, cmd, va_arg(ap, void *)); break;
    default: rc = __real_fcntl(fd, cmd, va_arg(ap, int)); break;
  }
  va_end(ap);
  return rc;
}

int __real_mprotect(void *addr, size_t len, int prot);
int __wrap_mprotect(void *addr, size_t len, int prot);
int __wrap_mprotect(void *addr, size_t len, int prot) {
  return hit(IPC_FAULT_MPROTECT) ? -1 : __real_mprotect(addr, len, prot);
}

int __real_fstat(int fd, struct stat *sb);
int __wrap_fstat(int fd, struct stat *sb);
int __wrap_fstat(int fd, struct stat *sb) {
  return hit(IPC_FAULT_FSTAT) ? -1 : __real_fstat(fd, sb);
}

void *__real_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size) {
  return hit(IPC_FAULT_CALLOC) ? NULL : __real_calloc(count, size);
}

FUZZ_ORACLE_END
