/*
 * Shared by the producer and the consumer side of the IPC transport:
 * error helpers and one message send / receive over SOCK_SEQPACKET.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_COMMON_H
#define HURRAY_IPC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/ipc.h"

/* Fills err (when given) and returns status. */
hurray_status hurray_internal_ipc_fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index);
/* IO with errno and the call's name in detail. */
hurray_status hurray_internal_ipc_fail_errno(hurray_error *err, int errnum, const char *call);

/* Sends one message with nfds descriptors (MSG_NOSIGNAL). */
hurray_status hurray_internal_ipc_send(int fd, const uint8_t *msg, size_t len, const int *fds,
                                       size_t nfds, hurray_error *err);
/* The same without waiting: TIMEOUT (value 0) when the peer's socket takes
 * no more now, and then nothing was sent. What a producer sends to its
 * consumers goes this way, so that none of them can stall it (IPC-FLOW-1). */
hurray_status hurray_internal_ipc_send_now(int fd, const uint8_t *msg, size_t len, const int *fds,
                                           size_t nfds, hurray_error *err);

/* Room one receive needs: the largest message plus one byte, so that a
 * longer one shows as MSG_TRUNC (IPC-CHAN-3). */
#define IPC_RECV_CAP (HURRAY_IPC_MAX_MESSAGE_SIZE + 1u)
/* Descriptors one receive takes: the limit plus one (IPC-CHAN-3). */
#define IPC_RECV_FDS (HURRAY_IPC_MAX_FDS + 1u)

/*
 * Receives one message (flags: 0 or MSG_DONTWAIT). *len 0 and *nfds 0
 * mean the peer hung up. Descriptors go to fds[0 .. *nfds), close-on-exec. A message cut
 * by the kernel (MSG_TRUNC, MSG_CTRUNC) is refused, its descriptors closed:
 * CAPACITY (value: bytes or descriptors, expected: the limit). EAGAIN is
 * TIMEOUT (value 0).
 */
hurray_status hurray_internal_ipc_recv(int fd, int flags, uint8_t *buf, size_t *len, int *fds,
                                       size_t *nfds, hurray_error *err);

/* Waits until fd is readable (or hung up); TIMEOUT otherwise. */
hurray_status hurray_internal_ipc_wait_readable(int fd, int timeout_ms, hurray_error *err);

void hurray_internal_ipc_close_fds(int *fds, size_t nfds);

/* Whether uid is in the list, or equal to our own euid when the list is empty. */
int hurray_internal_ipc_uid_allowed(uint32_t uid, const uint32_t *list, size_t count);

/* Parses "@name" or a path into a sockaddr_un; INVALID_ARGUMENT when too long. */
struct sockaddr_un;
hurray_status hurray_internal_ipc_address(const char *address, struct sockaddr_un *sa,
                                          unsigned *sa_len, hurray_error *err);

/* A SOCK_SEQPACKET socket at the address hurray_internal_ipc_address
 * parsed: bound and listening when listening is nonzero, else connected. */
hurray_status hurray_internal_ipc_socket_at(const struct sockaddr_un *sa, unsigned sa_len,
                                            int listening, int *fd, hurray_error *err);

/* The argument checks of the from_socket entry points, which own fd from
 * the call on: it is closed when out is NULL, so that it never leaks. */
hurray_status hurray_internal_ipc_adopt_checks(int fd, const void *out, hurray_error *err);

/* The peer's credentials (SO_PEERCRED); on failure fd is closed, as the
 * connection it was to start is given up. */
struct ucred;
hurray_status hurray_internal_ipc_peer_cred(int fd, struct ucred *cred, hurray_error *err);

#endif /* HURRAY_IPC_COMMON_H */
