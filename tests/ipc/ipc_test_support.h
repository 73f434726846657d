/*
 * Helpers of the IPC tests: fd and mapping counts, segments with a pattern,
 * an event recorder, a raw sender for the fault tests' scripted peers.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_TEST_SUPPORT_H
#define HURRAY_IPC_TEST_SUPPORT_H

#define _GNU_SOURCE 1

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hurray/ipc.h"
#include "process_counts.h"

/* Open descriptors and mappings (tests/common/process_counts.h); with
 * memfd_only, only the mappings of memfds (what the IPC transport maps). */
static inline int count_fds(void) { return hurray_test_count_fds(); }

static inline int count_maps_of(int memfd_only) {
  return hurray_test_count_maps(memfd_only ? "/memfd:" : NULL);
}

static inline int count_maps(void) { return count_maps_of(0); }

/* All of /proc/self/maps, NUL-terminated, in a heap block (NULL if it
 * cannot be read: the counts still decide, only the listing is lost). */
static inline char *read_maps(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) {
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  while (text != NULL) {
    len += fread(text + len, 1, cap - 1 - len, f);
    if (len < cap - 1) {
      break;
    }
    char *bigger = realloc(text, cap * 2);
    if (bigger == NULL) {
      free(text);
      text = NULL;
    }
    text = bigger;
    cap *= 2;
  }
  fclose(f);
  if (text != NULL) {
    text[len] = '\0';
  }
  return text;
}

/* Prints each mapping of now that is not in before: what a failed mapping
 * count is about (ours, or the runtime's, such as a thread's stack). */
static inline void print_new_maps(const char *before) {
  char *now = read_maps();
  if (before == NULL || now == NULL) {
    free(now);
    return;
  }
  for (char *line = strtok(now, "\n"); line != NULL; line = strtok(NULL, "\n")) {
    if (strstr(before, line) == NULL) {
      printf("  new mapping: %s\n", line);
    }
  }
  fflush(stdout);
  free(now);
}

/* Records the counts, then REQUIRE_NO_LEAK checks them and prints them. */
typedef struct leak_probe {
  int fds;
  int maps;
  int memfd_maps;
  const char *what;
  char *maps_text; /* the mappings at the start, to list what a failure added */
} leak_probe;

static inline leak_probe leak_start(const char *what) {
  /* The listing first: if its block is a mapping of its own, both counts
   * see it, since leak_check counts before it frees the block. */
  char *maps_text = read_maps();
  leak_probe p = {count_fds(), count_maps(), count_maps_of(1), what, maps_text};
  return p;
}

static inline void leak_check(const leak_probe *p) {
  int fds = count_fds();
  int maps = count_maps();
  int memfd_maps = count_maps_of(1);
  printf("fd/map counts %-38s fds %d -> %d, maps %d -> %d (memfd %d -> %d)\n", p->what, p->fds, fds,
         p->maps, maps, p->memfd_maps, memfd_maps);
#ifdef HURRAY_TEST_ASAN
  const int maps_grew = 0; /* not checked under ASan, see below */
#else
  const int maps_grew = maps > p->maps;
#endif
  if (maps_grew || memfd_maps != p->memfd_maps) {
    print_new_maps(p->maps_text);
  }
  free(p->maps_text);
  fflush(stdout);
  ck_assert_msg(fds == p->fds, "%s: %d fds before, %d after", p->what, p->fds, fds);
  ck_assert_msg(memfd_maps == p->memfd_maps, "%s: %d memfd mappings before, %d after", p->what,
                p->memfd_maps, memfd_maps);
#ifndef HURRAY_TEST_ASAN
  /* Not one more mapping. One fewer happens under valgrind, whose address
   * space manager merges neighbouring regions after an munmap. */
  ck_assert_msg(maps <= p->maps, "%s: %d mappings before, %d after", p->what, p->maps, maps);
#endif
}

/* Sends one raw message with up to 8 descriptors, as a peer would: the
 * fault tests' scripted producer or consumer. */
static inline void send_raw_fds(int fd, const uint8_t *buf, size_t len, const int *fds,
                                size_t nfds) {
  ck_assert_uint_le(nfds, 8);
  struct iovec iov = {(void *)(uintptr_t)buf, len};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int) * 8)];
  } control;
  if (nfds > 0) {
    memset(&control, 0, sizeof control);
    mh.msg_control = control.bytes;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
  }
  ck_assert_int_eq(sendmsg(fd, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

/* Both ends of a SOCK_SEQPACKET socketpair, as the in-process tests connect. */
static inline void socket_pair(int sv[2]) {
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

/* Reads the next message a peer sent to a raw end (flags: 0 or
 * MSG_DONTWAIT); it must be one, well formed and without descriptors. */
static inline hurray_ipc_message raw_recv(int fd, int flags) {
  uint8_t buf[256];
  ssize_t n = recv(fd, buf, sizeof buf, flags);
  ck_assert_int_gt(n, 0);
  hurray_ipc_message m;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_message_decode(buf, (size_t)n, 0, &m, NULL, NULL, 0, &err),
                   HURRAY_OK);
  return m;
}

/* A raw SOCK_SEQPACKET connection to a producer's abstract address "@name",
 * as a consumer that speaks no protocol (or a hostile one) would make it. */
static inline int raw_connect(const char *address) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  size_t n = strlen(address + 1); /* "@name": the abstract name "name" */
  ck_assert_uint_lt(n, sizeof sa.sun_path);
  memcpy(sa.sun_path + 1, address + 1, n);
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1u + n);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, len), 0);
  return fd;
}

/* The same with one descriptor, or none when `passed` is negative. */
static inline void send_raw_one(int fd, const uint8_t *buf, size_t len, int passed) {
  send_raw_fds(fd, buf, len, &passed, passed >= 0 ? 1u : 0u);
}

static inline uint8_t pattern_byte(uint64_t i) { return (uint8_t)((i * 131u + 7u) & 0xFFu); }

/* A sealed segment of size bytes holding the pattern; the producer's
 * mapping is returned in *data (read-only after sealing). */
static inline int make_segment(uint64_t size, void **data) {
  int fd = -1;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_segment_create(size, &fd, data, &err), HURRAY_OK);
  uint8_t *p = *data;
  for (uint64_t i = 0; i < size; i++) {
    p[i] = pattern_byte(i);
  }
  ck_assert_int_eq(hurray_ipc_segment_seal(fd, *data, size, &err), HURRAY_OK);
  return fd;
}

typedef struct release_log {
  int calls;
  void *last;
} release_log;

static inline void count_release(void *buffer, void *ctx) {
  release_log *log = ctx;
  log->calls++;
  log->last = buffer;
}

/* A release callback that also unmaps the producer's mapping. */
typedef struct mapped_release {
  release_log log;
  size_t size;
} mapped_release;

static inline void unmap_release(void *buffer, void *ctx) {
  mapped_release *m = ctx;
  m->log.calls++;
  m->log.last = buffer;
  munmap(buffer, m->size);
}

#define MAX_EVENTS 64
typedef struct event_log {
  int count;
  hurray_ipc_event events[MAX_EVENTS];
} event_log;

static inline void record_event(const hurray_ipc_event *ev, void *ctx) {
  event_log *log = ctx;
  if (log->count < MAX_EVENTS) {
    log->events[log->count] = *ev;
  }
  log->count++;
}

static inline int events_of(const event_log *log, uint32_t kind) {
  int n = 0;
  for (int i = 0; i < log->count && i < MAX_EVENTS; i++) {
    n += log->events[i].kind == kind;
  }
  return n;
}

static inline const hurray_ipc_event *last_event(const event_log *log, uint32_t kind) {
  for (int i = (log->count < MAX_EVENTS ? log->count : MAX_EVENTS) - 1; i >= 0; i--) {
    if (log->events[i].kind == kind) {
      return &log->events[i];
    }
  }
  static const hurray_ipc_event none;
  ck_abort_msg("no event of kind %u", kind);
  return &none;
}

static inline hurray_ipc_producer_options producer_options(event_log *log) {
  hurray_ipc_producer_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  o.on_event = record_event;
  o.event_ctx = log;
  return o;
}

/* A producer listening on "@hurray-test-PID-tag" (written to address, cap
 * bytes), its events recorded in *events; max_consumers 0: the default. */
static inline hurray_ipc_producer *listening_producer(char *address, size_t cap, const char *tag,
                                                      event_log *events, uint32_t max_consumers) {
  snprintf(address, cap, "@hurray-test-%d-%s", (int)getpid(), tag);
  hurray_ipc_producer_options po = producer_options(events);
  po.max_consumers = max_consumers;
  hurray_ipc_producer *p = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_listen(address, &po, &p, &err), HURRAY_OK);
  return p;
}

/* A producer with options po on one end of a socketpair; the other end,
 * *peer, is a raw consumer that has read the HELLO and sends what a test
 * forges. */
static inline hurray_ipc_producer *producer_with_raw_peer(const hurray_ipc_producer_options *po,
                                                          uint64_t *cid, int *peer) {
  int sv[2];
  socket_pair(sv);
  hurray_ipc_producer *p = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(sv[0], po, &p, cid, &err), HURRAY_OK);
  *peer = sv[1];
  ck_assert_uint_eq(raw_recv(*peer, 0).type, HURRAY_IPC_MSG_HELLO);
  return p;
}

/* A consumer on one end of a socketpair; the other end, *peer, is a raw
 * producer that has sent HELLO and sends what a test forges. */
static inline hurray_ipc_consumer *consumer_with_raw_peer(int *peer) {
  int sv[2];
  socket_pair(sv);
  uint8_t hello[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_HELLO_BODY_SIZE];
  size_t n = hurray_ipc_encode_hello(hello, sizeof hello, (uint32_t)getpid(), 0, 253);
  send_raw_fds(sv[0], hello, n, NULL, 0);
  hurray_ipc_consumer *c = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_consumer_from_socket(sv[1], NULL, &c, &err), HURRAY_OK);
  *peer = sv[0];
  return c;
}

/* A producer (its events in *events) and a consumer on the two ends of a
 * socketpair, HELLO exchanged; *cid: the consumer's id at the producer. */
static inline void connected_pair(event_log *events, hurray_ipc_producer **p, uint64_t *cid,
                                  hurray_ipc_consumer **c) {
  int sv[2];
  socket_pair(sv);
  hurray_ipc_producer_options po = producer_options(events);
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(sv[0], &po, p, cid, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_consumer_from_socket(sv[1], NULL, c, &err), HURRAY_OK);
}

/* connected_pair's ends and the producer's event log, as one fixture. */
typedef struct connected_channel {
  event_log events;
  hurray_ipc_producer *p;
  hurray_ipc_consumer *c;
  uint64_t cid;
} connected_channel;

static inline void open_channel(connected_channel *ch) {
  memset(ch, 0, sizeof *ch);
  connected_pair(&ch->events, &ch->p, &ch->cid, &ch->c);
}

/* A CPU producer_synced handle of byte_size bytes, page-aligned. */
static inline hurray_buffer_handle host_handle(uint64_t byte_size) {
  hurray_buffer_handle h;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_new(byte_size, 4096u, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &h, &err),
                   HURRAY_OK);
  return h;
}

static inline hurray_ipc_buffer_desc host_desc(int fd, uint64_t byte_size, void *data,
                                               hurray_buffer_release_fn release, void *ctx) {
  hurray_ipc_buffer_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  d.handle = host_handle(byte_size);
  d.fd = fd;
  d.offset = 0;
  d.data = data;
  d.release = release;
  d.release_ctx = ctx;
  return d;
}

/* Shares through p a sealed segment of size bytes holding the pattern
 * (make_segment), its release going to release(..., ctx); *data: the
 * producer's mapping of it. */
static inline hurray_ipc_shared *share_segment(hurray_ipc_producer *p, uint64_t size, void **data,
                                               hurray_buffer_release_fn release, void *ctx) {
  int fd = make_segment(size, data);
  hurray_ipc_buffer_desc d = host_desc(fd, size, *data, release, ctx);
  hurray_ipc_shared *s = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_share(p, &d, &s, &err), HURRAY_OK);
  return s;
}

/* The end of a test of a producer and its raw peer around one shared page:
 * the producer destroyed, the peer closed, the page unmapped, then nothing
 * may be left open or mapped. */
static inline void end_raw_peer_test(hurray_ipc_producer **p, int peer, void *page,
                                     const leak_probe *probe) {
  hurray_ipc_producer_destroy(p);
  close(peer);
  munmap(page, 4096);
  leak_check(probe);
}

/* A producer with options po and its raw peer (producer_with_raw_peer),
 * sharing one pattern page whose release rel counts. */
typedef struct raw_peer_page {
  hurray_ipc_producer *p;
  uint64_t cid;
  int peer;
  void *data;
  release_log rel;
  hurray_ipc_shared *s;
} raw_peer_page;

static inline void open_raw_peer_page(raw_peer_page *f, const hurray_ipc_producer_options *po) {
  memset(f, 0, sizeof *f);
  f->p = producer_with_raw_peer(po, &f->cid, &f->peer);
  f->s = share_segment(f->p, 4096, &f->data, count_release, &f->rel);
}

static inline void close_raw_peer_page(raw_peer_page *f, const leak_probe *probe) {
  end_raw_peer_test(&f->p, f->peer, f->data, probe);
}

#endif /* HURRAY_IPC_TEST_SUPPORT_H */
