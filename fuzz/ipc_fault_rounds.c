/*
 * The ipc_api fuzz target's rounds under an injected fault
 * (fuzz/ipc_faults.h) and its misuse round: the calls that open, share,
 * offer and receive, each failing where the kernel or the allocator could
 * fail it, and the arguments the API refuses (specs/ipc.md IPC-ERR-1,
 * IPC-FLOW-1, IPC-REL-2, IPC-SEG-1, IPC-SEG-2).
 *
 * Oracle, besides ipc_fault_check: a call that fails makes nothing (its
 * out pointer stays NULL) and leaves the process the descriptors and memfd
 * mappings it had before; a shared buffer's release callback runs exactly
 * once, after the producer is destroyed, whatever failed; a TIMEOUT from
 * an offer (the consumer's socket takes no more, IPC-FLOW-1) sends nothing
 * and keeps the consumer, and the same offer succeeds once the socket takes
 * it again.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "ipc_fault_rounds.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hurray/ipc.h"
#include "ipc_faults.h"

FUZZ_ORACLE_BEGIN

/* The harness's own calls pass the wrappers by. */
int __real_socket(int domain, int type, int protocol);
int __real_connect(int fd, const struct sockaddr *sa, socklen_t len);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout_ms);

typedef struct release_count {
  int calls;
} release_count;

static void count_release(void *buffer, void *ctx) {
  (void)buffer;
  ((release_count *)ctx)->calls++;
}

/* Two connected sockets of the kind the endpoints take. */
static void seqpacket_pair(int s[2]) {
  FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s) == 0);
}

/* A descriptor of 4096 bytes of the sealed segment at `offset`. */
static hurray_ipc_buffer_desc segment_desc(int segment_fd, uint64_t offset, release_count *count) {
  hurray_ipc_buffer_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  d.fd = segment_fd;
  hurray_error err;
  FUZZ_CHECK(hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                      &d.handle, &err) == HURRAY_OK);
  d.offset = offset;
  d.release = count_release;
  d.release_ctx = count;
  return d;
}

/* Creating and sealing a segment (memfd_create, ftruncate, mmap, fcntl,
 * mprotect): on failure nothing is left open or mapped. */
static void segment_round(void) {
  int fds = fuzz_count_fds();
  int fd = -1;
  void *data = NULL;
  hurray_error err;
  hurray_status st = hurray_ipc_segment_create(4096, &fd, &data, &err);
  ipc_fault_check(st, &err);
  if (st == HURRAY_OK) {
    st = hurray_ipc_segment_seal(fd, data, 4096, &err);
    ipc_fault_check(st, &err);
    munmap(data, 4096); /* the caller's, sealed or not */
    close(fd);
  }
  (void)ipc_fault_disarm();
  FUZZ_CHECK(fuzz_count_fds() == fds);
}

/* A listening producer (socket, bind, listen; `how` bit 1: with an
 * allow-list), a connection it takes in
 * its poll (poll, accept4, getsockopt, calloc, sendmsg of its HELLO), and a
 * consumer connecting where nobody listens (socket, connect). */
static void listen_round(uint8_t how) {
  static unsigned serial;
  char address[64];
  snprintf(address, sizeof address, "@hurray-fault-%ld-%u", (long)getpid(), serial++);
  int fds = fuzz_count_fds();
  hurray_error err;
  uint32_t me = (uint32_t)geteuid();
  hurray_ipc_producer_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.allowed_uid_count = (how & 2u) != 0u ? 1u : 0u; /* a list to copy */
  opts.allowed_uids = &me;
  hurray_ipc_producer *p = NULL;
  hurray_status st = hurray_ipc_producer_listen(address, &opts, &p, &err);
  ipc_fault_check(st, &err);
  FUZZ_CHECK((st == HURRAY_OK) == (p != NULL));
  if (p == NULL) {
    (void)ipc_fault_disarm();
    FUZZ_CHECK(fuzz_count_fds() == fds);
    return;
  }
  /* A connection waiting in the backlog: connect returns before accept. */
  int client = __real_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  size_t n = strlen(address);
  memcpy(sa.sun_path + 1, address + 1, n - 1u); /* abstract: a NUL, then the name */
  FUZZ_CHECK(client >= 0 &&
             __real_connect(client, (struct sockaddr *)&sa,
                            (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) == 0);
  uint64_t id = 0;
  st = hurray_ipc_producer_next_consumer(p, (how & 1u) != 0u ? 2 : 0, &id, &err); /* bit 0 */
  ipc_fault_check(st, &err);
  FUZZ_CHECK(st == HURRAY_OK || st == HURRAY_ERR_TIMEOUT || st == HURRAY_ERR_IO ||
             st == HURRAY_ERR_OUT_OF_MEMORY);
  if (st == HURRAY_OK) { /* admitted: the HELLO went out */
    struct pollfd pf = {client, POLLIN, 0};
    FUZZ_CHECK(__real_poll(&pf, 1, 0) == 1);
  }
  close(client);
  hurray_ipc_consumer *c = NULL;
  address[1] = '!'; /* an address nobody listens on */
  st = hurray_ipc_consumer_connect(address, NULL, &c, &err);
  ipc_fault_check(st, &err);
  FUZZ_CHECK(st != HURRAY_OK && c == NULL);
  (void)ipc_fault_disarm();
  hurray_ipc_producer_destroy(&p);
  FUZZ_CHECK(p == NULL && fuzz_count_fds() == fds);
}

/*
 * Two endpoints on a socketpair, a buffer shared and offered, the offer
 * received and released, all under the armed fault. `how` bit 0: the
 * consumer releases the buffer before the offer is freed; bit 1: the
 * producer is destroyed first.
 */
static void transfer_round(int segment_fd, uint8_t how) {
  int fds = fuzz_count_fds();
  int s[2];
  seqpacket_pair(s);
  hurray_error err;
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  hurray_status st = hurray_ipc_producer_from_socket(s[0], NULL, &p, &cid, &err);
  ipc_fault_check(st, &err);
  FUZZ_CHECK((st == HURRAY_OK) == (p != NULL)); /* s[0] is the producer's either way */
  hurray_ipc_consumer_options copts;
  memset(&copts, 0, sizeof copts);
  copts.struct_size = sizeof copts;
  copts.connect_timeout_ms = 1;
  hurray_ipc_consumer *c = NULL;
  st = hurray_ipc_consumer_from_socket(s[1], &copts, &c, &err);
  ipc_fault_check(st, &err);
  FUZZ_CHECK((st == HURRAY_OK) == (c != NULL));
  if (p == NULL) {
    FUZZ_CHECK(c == NULL); /* no HELLO came */
  }
  release_count released = {0};
  hurray_ipc_shared *shared = NULL;
  int timed_out = 0;
  if (p != NULL) {
    hurray_ipc_buffer_desc d = segment_desc(dup(segment_fd), 0, &released);
    st = hurray_ipc_producer_share(p, &d, &shared, &err);
    ipc_fault_check(st, &err);
    FUZZ_CHECK((st == HURRAY_OK) == (shared != NULL));
    if (shared == NULL) {
      FUZZ_CHECK(released.calls == 0); /* refused: nothing called, the descriptor ours */
      close(d.fd);
    }
  }
  if (shared != NULL) {
    st = hurray_ipc_producer_offer(p, cid, &shared, 1, 0, NULL, &err);
    ipc_fault_check(st, &err);
    if (st == HURRAY_ERR_TIMEOUT) { /* IPC-FLOW-1: nothing sent, the consumer kept */
      FUZZ_CHECK(strstr(err.detail, "not reading") != NULL);
      hurray_ipc_hold hold;
      size_t held = 1;
      FUZZ_CHECK(hurray_ipc_producer_holds(p, &hold, 1, &held, &err) == HURRAY_OK && held == 0u);
      int was_fired = ipc_fault_disarm();
      FUZZ_CHECK(was_fired);
      st = hurray_ipc_producer_offer(p, cid, &shared, 1, 0, NULL, &err);
      FUZZ_CHECK(st == HURRAY_OK);
      timed_out = 1;
    }
    hurray_ipc_shared_retire(shared);
  }
  if (c != NULL) {
    hurray_ipc_received *r = NULL;
    st = hurray_ipc_consumer_receive(c, 0, &r, &err);
    ipc_fault_check(st, &err);
    FUZZ_CHECK((st == HURRAY_OK) == (r != NULL));
    if (r != NULL) {
      FUZZ_CHECK(hurray_ipc_received_count(r) == 1u);
      FUZZ_CHECK(((const uint8_t *)hurray_ipc_received_buffer(r, 0)->data)[0] == 0x42);
      if ((how & 1u) != 0u) {
        st = hurray_ipc_received_release(r, 0, &err);
        ipc_fault_check(st, &err);
      }
      hurray_ipc_received_free(&r);
    }
    if (timed_out) { /* the offer that timed out never arrives */
      (void)ipc_fault_disarm();
      FUZZ_CHECK(hurray_ipc_consumer_receive(c, 0, &r, &err) == HURRAY_ERR_TIMEOUT && r == NULL);
    }
  }
  (void)ipc_fault_disarm();
  if (p != NULL) {
    (void)!hurray_ipc_producer_poll(p, 0, &err);
  }
  if ((how & 2u) != 0u) {
    hurray_ipc_producer_destroy(&p);
    hurray_ipc_consumer_destroy(&c);
  } else {
    hurray_ipc_consumer_destroy(&c);
    hurray_ipc_producer_destroy(&p);
  }
  FUZZ_CHECK(released.calls == (shared != NULL ? 1 : 0)); /* IPC-REL-2 */
  FUZZ_CHECK(fuzz_count_fds() == fds);
}

void ipc_fault_round(uint8_t scenario, ipc_fault fault, int segment_fd) {
  ipc_fault_arm(fault);
  switch (scenario & 3u) {
    case 0: segment_round(); break;
    case 1: listen_round((uint8_t)(scenario >> 2)); break;
    default: transfer_round(segment_fd, (uint8_t)(scenario >> 2)); break;
  }
  (void)ipc_fault_disarm();
}

/* What share refuses (IPC-ERR-1, IPC-SEG-1, IPC-SEG-2): refused, nothing
 * called, nothing made. */
static void refused_shares(hurray_ipc_producer *p, int segment_fd) {
  release_count released = {0};
  hurray_ipc_shared *none = NULL;
  hurray_error err;
  hurray_ipc_buffer_desc d = segment_desc(segment_fd, 0, &released);
  FUZZ_CHECK(hurray_ipc_producer_share(NULL, &d, &none, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share(p, NULL, &none, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share(p, &d, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_buffer_desc bad = d;
  bad.struct_size = 4;
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  bad = d;
  bad.release = NULL;
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_NULL_ARGUMENT);
  bad = d;
  bad.memory_kind = HURRAY_IPC_MEMORY_DEVICE;
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_UNSUPPORTED);
  bad = d;
  bad.handle.byte_size = 0; /* the handle does not validate */
  bad.handle.alignment = 3;
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) != HURRAY_OK);
  bad = d;
  FUZZ_CHECK(hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CUDA, HURRAY_SYNC_PRODUCER_SYNCED,
                                      &bad.handle, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_UNSUPPORTED);
  bad = d;
  bad.fd = -1;
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_IO &&
             strstr(err.detail, "fstat") != NULL);
  int s[2];
  seqpacket_pair(s);
  bad.fd = s[0]; /* no regular file */
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_IPC_BAD_SEGMENT);
  close(s[0]);
  close(s[1]);
  bad = d;
  bad.offset = 8192; /* past the segment's end */
  FUZZ_CHECK(hurray_ipc_producer_share(p, &bad, &none, &err) == HURRAY_ERR_IPC_BAD_SEGMENT);
  FUZZ_CHECK(none == NULL && released.calls == 0);
}

/* What offer, holds, share_device and the received offer's calls refuse. */
static void refused_calls(hurray_ipc_producer *p, uint64_t cid, hurray_ipc_shared *shared,
                          hurray_ipc_shared *retired) {
  hurray_error err;
  hurray_ipc_shared *list[HURRAY_IPC_MAX_FDS + 1];
  for (size_t i = 0; i <= HURRAY_IPC_MAX_FDS; i++) {
    list[i] = shared;
  }
  FUZZ_CHECK(hurray_ipc_producer_offer(NULL, cid, list, 1, 0, NULL, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, NULL, 1, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, list, 0, 0, NULL, &err) ==
             HURRAY_ERR_EMPTY_BUFFER_LIST);
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, list, HURRAY_IPC_MAX_FDS + 1u, 0, NULL, &err) ==
             HURRAY_ERR_CAPACITY);
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid + 1u, list, 1, 0, NULL, &err) ==
             HURRAY_ERR_INVALID_ARGUMENT);
  list[0] = NULL;
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, list, 1, 0, NULL, &err) ==
             HURRAY_ERR_INVALID_ARGUMENT);
  list[0] = retired;
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, list, 1, 0, NULL, &err) ==
             HURRAY_ERR_INVALID_ARGUMENT);
  hurray_ipc_hold hold;
  size_t n = 0;
  FUZZ_CHECK(hurray_ipc_producer_holds(NULL, &hold, 1, &n, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_holds(p, &hold, 1, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_holds(p, NULL, 1, &n, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_disconnect(NULL, cid, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_next_consumer(p, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  int s[2]; /* a call without its out pointer still takes the descriptor */
  seqpacket_pair(s);
  FUZZ_CHECK(hurray_ipc_producer_from_socket(s[0], NULL, NULL, NULL, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_consumer_from_socket(s[1], NULL, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_consumer *c = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_connect("", NULL, &c, &err) == HURRAY_ERR_INVALID_ARGUMENT &&
             c == NULL);
  hurray_ipc_shared *none = NULL;
  FUZZ_CHECK(hurray_ipc_producer_share_device(NULL, NULL, NULL, count_release, NULL, &none, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device(p, NULL, NULL, count_release, NULL, &none, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(NULL, NULL, NULL, NULL, count_release, NULL,
                                                    &none, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(p, NULL, NULL, NULL, count_release, NULL, &none,
                                                    &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(none == NULL);
  hurray_ipc_shared_retire(NULL);
  hurray_ipc_producer_destroy(NULL);
  FUZZ_CHECK(hurray_ipc_received_offer_id(NULL) == 0u && hurray_ipc_received_count(NULL) == 0u);
  FUZZ_CHECK(hurray_ipc_received_buffer(NULL, 0) == NULL);
  FUZZ_CHECK(hurray_ipc_received_plugin_buffer(NULL, 0) == NULL);
  FUZZ_CHECK(hurray_ipc_received_handoff(NULL, 0) == NULL);
  FUZZ_CHECK(hurray_ipc_received_release(NULL, 0, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_received_free(NULL);
  hurray_ipc_consumer_destroy(NULL);
}

/* The segment calls' arguments, and a received offer's indexes. */
static void refused_segments_and_indexes(hurray_ipc_consumer *c) {
  hurray_error err;
  int fd = -1;
  void *data = NULL;
  FUZZ_CHECK(hurray_ipc_segment_create(4096, NULL, &data, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_segment_create(4096, &fd, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_segment_create(0, &fd, &data, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(fd == -1 && data == NULL);
  FUZZ_CHECK(hurray_ipc_consumer_receive(c, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_received *r = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_receive(c, 100, &r, &err) == HURRAY_OK);
  size_t n = hurray_ipc_received_count(r);
  FUZZ_CHECK(n == 1u && hurray_ipc_received_offer_id(r) != 0u);
  FUZZ_CHECK(hurray_ipc_received_buffer(r, n) == NULL && hurray_ipc_received_handoff(r, n) == NULL);
  FUZZ_CHECK(hurray_ipc_received_plugin_buffer(r, n) == NULL);
  FUZZ_CHECK(hurray_ipc_received_release(r, n, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_received_release(r, 0, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_received_release(r, 0, &err) != HURRAY_OK); /* released already */
  hurray_ipc_received_free(&r);
}

void ipc_misuse_round(int segment_fd) {
  int fds = fuzz_count_fds();
  hurray_error err;
  int s[2];
  seqpacket_pair(s);
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  FUZZ_CHECK(hurray_ipc_producer_from_socket(s[0], NULL, &p, &cid, &err) == HURRAY_OK);
  hurray_ipc_consumer *c = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_from_socket(s[1], NULL, &c, &err) == HURRAY_OK);
  refused_shares(p, segment_fd);
  release_count released[2] = {{0}, {0}};
  hurray_ipc_shared *shared[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    hurray_ipc_buffer_desc d = segment_desc(dup(segment_fd), 4096u * (uint64_t)k, &released[k]);
    FUZZ_CHECK(hurray_ipc_producer_share(p, &d, &shared[k], &err) == HURRAY_OK);
  }
  /* Offered, then retired: alive while the consumer holds it, and no
   * longer offered (the pointer stays valid only through the hold). */
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, &shared[1], 1, 0, NULL, &err) == HURRAY_OK);
  hurray_ipc_shared_retire(shared[1]);
  FUZZ_CHECK(released[1].calls == 0);
  refused_calls(p, cid, shared[0], shared[1]);
  uint64_t offer_id = 0;
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, shared, 1, 0, &offer_id, &err) == HURRAY_OK &&
             offer_id != 0u);
  hurray_ipc_shared_retire(shared[0]);
  refused_segments_and_indexes(c);
  /* Waiting for a consumer that never comes: the timeout passes in polls. */
  uint64_t id = 0;
  FUZZ_CHECK(hurray_ipc_producer_next_consumer(p, 2, &id, &err) == HURRAY_ERR_TIMEOUT);
  hurray_ipc_consumer_destroy(&c);
  hurray_ipc_producer_destroy(&p);
  FUZZ_CHECK(released[0].calls == 1 && released[1].calls == 1);
  FUZZ_CHECK(fuzz_count_fds() == fds);
}

FUZZ_ORACLE_END
