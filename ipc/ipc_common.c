/*
 * Error helpers, message send/receive, addresses and segments of the IPC
 * transport (specs/ipc.md IPC-CHAN-*, IPC-SEG-1).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "ipc_common.h"
#include "hurray/plugin_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

hurray_status hurray_internal_ipc_fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index) {
  return hurray_support_fail(err, status, value, expected, index, NULL);
}

hurray_status hurray_internal_ipc_fail_errno(hurray_error *err, int errnum, const char *call) {
  return hurray_support_fail(err, HURRAY_ERR_IO, (uint64_t)(errnum < 0 ? -errnum : errnum), 0, 0,
                             "%s: %s", call, strerror(errnum));
}

static hurray_status send_with_flags(int fd, const uint8_t *msg, size_t len, const int *fds,
                                     size_t nfds, int flags, hurray_error *err) {
  struct iovec iov = {(void *)(uintptr_t)msg, len};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int) * HURRAY_IPC_MAX_FDS)];
  } control;
  if (nfds > 0u) {
    if (nfds > HURRAY_IPC_MAX_FDS) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_CAPACITY, nfds, HURRAY_IPC_MAX_FDS, 0);
    }
    memset(&control, 0, sizeof control);
    mh.msg_control = control.bytes;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
  }
  ssize_t n;
  do {
    n = sendmsg(fd, &mh, MSG_NOSIGNAL | flags);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (flags & MSG_DONTWAIT) != 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    /* A SOCK_SEQPACKET message is queued whole or not at all: nothing of
     * this one went out (IPC-FLOW-1). */
    return hurray_support_fail(err, HURRAY_ERR_TIMEOUT, 0, 0, 0,
                               "the peer is not reading: its socket takes no more messages "
                               "now (sendmsg: EAGAIN)");
  }
  if (n < 0) {
    if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_PEER_GONE, 0, 0, 0);
    }
    return hurray_internal_ipc_fail_errno(err, errno, "sendmsg");
  }
  if ((size_t)n != len) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_TRUNCATED, (uint64_t)n, len, 0);
  }
  return HURRAY_OK;
}

hurray_status hurray_internal_ipc_send(int fd, const uint8_t *msg, size_t len, const int *fds,
                                       size_t nfds, hurray_error *err) {
  return send_with_flags(fd, msg, len, fds, nfds, 0, err);
}

hurray_status hurray_internal_ipc_send_now(int fd, const uint8_t *msg, size_t len, const int *fds,
                                           size_t nfds, hurray_error *err) {
  return send_with_flags(fd, msg, len, fds, nfds, MSG_DONTWAIT, err);
}

void hurray_internal_ipc_close_fds(int *fds, size_t nfds) {
  for (size_t i = 0; i < nfds; i++) {
    if (fds[i] >= 0) {
      close(fds[i]);
      fds[i] = -1;
    }
  }
}

hurray_status hurray_internal_ipc_recv(int fd, int flags, uint8_t *buf, size_t *len, int *fds,
                                       size_t *nfds, hurray_error *err) {
  struct iovec iov = {buf, IPC_RECV_CAP};
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int) * IPC_RECV_FDS)];
  } control;
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = control.bytes;
  mh.msg_controllen = sizeof control.bytes;
  *nfds = 0;
  *len = 0;
  ssize_t n;
  do {
    n = recvmsg(fd, &mh, flags | MSG_CMSG_CLOEXEC | MSG_TRUNC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_TIMEOUT, 0, 0, 0);
    }
    if (errno == ECONNRESET) {
      return HURRAY_OK; /* *len 0: hung up */
    }
    return hurray_internal_ipc_fail_errno(err, errno, "recvmsg");
  }
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
      continue;
    }
    size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k && *nfds < IPC_RECV_FDS; i++) {
      int one;
      memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof one);
      fds[(*nfds)++] = one;
    }
  }
  if ((mh.msg_flags & MSG_CTRUNC) != 0) {
    size_t got = *nfds;
    hurray_internal_ipc_close_fds(fds, *nfds);
    *nfds = 0;
    return hurray_internal_ipc_fail(err, HURRAY_ERR_CAPACITY, got, HURRAY_IPC_MAX_FDS, 12);
  }
  /* MSG_TRUNC in flags: n is the message's real length (IPC-CHAN-3). */
  if ((mh.msg_flags & MSG_TRUNC) != 0 || (size_t)n > HURRAY_IPC_MAX_MESSAGE_SIZE) {
    hurray_internal_ipc_close_fds(fds, *nfds);
    *nfds = 0;
    return hurray_internal_ipc_fail(err, HURRAY_ERR_CAPACITY, (uint64_t)n,
                                    HURRAY_IPC_MAX_MESSAGE_SIZE, 8);
  }
  /* *len 0 with no descriptor is the end of the stream (hung up); 0 bytes
   * with descriptors is a (malformed) message the decoder reports. */
  *len = (size_t)n;
  return HURRAY_OK;
}

hurray_status hurray_internal_ipc_wait_readable(int fd, int timeout_ms, hurray_error *err) {
  struct pollfd p = {fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "poll");
  }
  if (rc == 0) {
    uint64_t ns = timeout_ms < 0 ? 0u : (uint64_t)timeout_ms * 1000000u;
    return hurray_internal_ipc_fail(err, HURRAY_ERR_TIMEOUT, ns, 0, 0);
  }
  return HURRAY_OK;
}

int hurray_internal_ipc_uid_allowed(uint32_t uid, const uint32_t *list, size_t count) {
  if (count == 0u || list == NULL) {
    return uid == (uint32_t)geteuid();
  }
  for (size_t i = 0; i < count; i++) {
    if (list[i] == uid) {
      return 1;
    }
  }
  return 0;
}

hurray_status hurray_internal_ipc_address(const char *address, struct sockaddr_un *sa,
                                          unsigned *sa_len, hurray_error *err) {
  if (address == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  size_t n = strlen(address);
  if (n == 0u || n >= sizeof sa->sun_path) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, n, sizeof sa->sun_path - 1u,
                                    0);
  }
  memcpy(sa->sun_path, address, n);
  if (address[0] == '@') {
    sa->sun_path[0] = '\0'; /* the abstract namespace: no file, no NUL at the end */
    *sa_len = (unsigned)(offsetof(struct sockaddr_un, sun_path) + n);
  } else {
    *sa_len = (unsigned)(offsetof(struct sockaddr_un, sun_path) + n + 1u);
  }
  return HURRAY_OK;
}

hurray_status hurray_internal_ipc_socket_at(const struct sockaddr_un *sa, unsigned sa_len,
                                            int listening, int *fd, hurray_error *err) {
  int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (s < 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "socket");
  }
  if (listening) {
    if (bind(s, (const struct sockaddr *)sa, (socklen_t)sa_len) != 0 || listen(s, 64) != 0) {
      int e = errno;
      close(s);
      return hurray_internal_ipc_fail_errno(err, e, "bind/listen");
    }
  } else {
    int rc;
    do {
      rc = connect(s, (const struct sockaddr *)sa, (socklen_t)sa_len);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      int e = errno;
      close(s);
      return hurray_internal_ipc_fail_errno(err, e, "connect");
    }
  }
  *fd = s;
  return HURRAY_OK;
}

hurray_status hurray_internal_ipc_adopt_checks(int fd, const void *out, hurray_error *err) {
  if (out == NULL) {
    if (fd >= 0) {
      close(fd);
    }
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (fd < 0) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)(int64_t)fd, 0, 0);
  }
  return HURRAY_OK;
}

hurray_status hurray_internal_ipc_peer_cred(int fd, struct ucred *cred, hurray_error *err) {
  socklen_t len = sizeof *cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) != 0) {
    int e = errno;
    close(fd);
    return hurray_internal_ipc_fail_errno(err, e, "getsockopt(SO_PEERCRED)");
  }
  return HURRAY_OK;
}

/* ---- Segments (IPC-SEG-1) ---------------------------------------------- */

uint32_t hurray_ipc_required_seals(void) {
  return (uint32_t)(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

hurray_status hurray_ipc_segment_create(uint64_t size, int *out_fd, void **out_data,
                                        hurray_error *err) {
  if (out_fd == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (out_data == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (size == 0u || size > (uint64_t)INT64_MAX) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, size, 0, 0);
  }
  int fd = memfd_create("hurray-ipc", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "memfd_create");
  }
  if (ftruncate(fd, (off_t)size) != 0) {
    int e = errno;
    close(fd);
    return hurray_internal_ipc_fail_errno(err, e, "ftruncate");
  }
  void *data = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) {
    int e = errno;
    close(fd);
    return hurray_internal_ipc_fail_errno(err, e, "mmap");
  }
  *out_fd = fd;
  *out_data = data;
  return HURRAY_OK;
}

hurray_status hurray_ipc_segment_seal(int fd, void *data, uint64_t size, hurray_error *err) {
  /* The kernel refuses F_SEAL_WRITE while any writable shared mapping of the
   * segment exists (EBUSY), the producer's own included: that one becomes a
   * private read-only mapping of the same bytes first, in place. Another
   * writable mapping left anywhere makes the seal fail, as it must: it could
   * change the bytes after a consumer accepted them (IPC-SEG-1). */
  if (data != NULL && size > 0u &&
      mmap(data, (size_t)size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    return hurray_internal_ipc_fail_errno(err, errno, "mmap");
  }
  if (fcntl(fd, F_ADD_SEALS, (int)hurray_ipc_required_seals()) != 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "fcntl(F_ADD_SEALS)");
  }
  return HURRAY_OK;
}
