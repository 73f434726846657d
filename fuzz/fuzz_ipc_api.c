/*
 * Fuzz target ipc_api: message sequences between two endpoints of the IPC
 * transport. A real producer faces a scripted consumer, and a real consumer
 * faces a scripted producer, each on a socketpair; the input is the script:
 * records of [op byte][u16 length][length bytes], where op says who sends
 * the bytes (with how many descriptors) and who reads.
 *
 * Oracle (specs/ipc.md IPC-REL-2, IPC-FLT-1, IPC-ERR-1):
 *  - a buffer's release callback runs at most once, and never while a hold
 *    on it is listed; after the producer is destroyed it has run exactly once;
 *  - a receive that fails hands out nothing;
 *  - after both endpoints are gone the process has the descriptors and
 *    memfd mappings it had before.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hurray/ipc.h"

FUZZ_ORACLE_BEGIN

#define SEGMENT_SIZE 8192u

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) {
    abort();
  }
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    n += e->d_name[0] != '.';
  }
  closedir(d);
  return n;
}

static int count_memfd_maps(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) {
    abort();
  }
  int n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f) != NULL) {
    n += strstr(line, "/memfd:") != NULL;
  }
  fclose(f);
  return n;
}

static int segment_fd = -1; /* one sealed segment, dup'ed for every use */

static void make_segment(void) {
  if (segment_fd >= 0) {
    return;
  }
  void *data = NULL;
  hurray_error err;
  if (hurray_ipc_segment_create(SEGMENT_SIZE, &segment_fd, &data, &err) != HURRAY_OK) {
    abort();
  }
  memset(data, 0x42, SEGMENT_SIZE);
  if (hurray_ipc_segment_seal(segment_fd, data, SEGMENT_SIZE, &err) != HURRAY_OK) {
    abort();
  }
  munmap(data, SEGMENT_SIZE);
}

static void send_raw(int fd, const uint8_t *buf, size_t len, int nfds) {
  int fds[3];
  for (int i = 0; i < nfds; i++) {
    fds[i] = dup(segment_fd);
  }
  struct iovec iov = {(void *)(uintptr_t)buf, len};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int) * 3)];
  } control;
  if (nfds > 0) {
    memset(&control, 0, sizeof control);
    mh.msg_control = control.bytes;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
    memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
  }
  (void)sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
  for (int i = 0; i < nfds; i++) {
    close(fds[i]);
  }
}

typedef struct released {
  int calls;
} released;

static void on_release(void *buffer, void *ctx) {
  (void)buffer;
  ((released *)ctx)->calls++;
}

static hurray_ipc_shared *shared[2];
static released counts[2];

/* No listed hold names a buffer whose callback ran. */
static void check_holds(const hurray_ipc_producer *p) {
  hurray_ipc_hold holds[64];
  size_t n = 0;
  hurray_error err;
  FUZZ_CHECK(hurray_ipc_producer_holds(p, holds, 64, &n, &err) == HURRAY_OK);
  for (size_t i = 0; i < n && i < 64; i++) {
    for (int k = 0; k < 2; k++) {
      FUZZ_CHECK(!(holds[i].buffer == shared[k] && counts[k].calls != 0));
    }
  }
  for (int k = 0; k < 2; k++) {
    FUZZ_CHECK(counts[k].calls <= 1);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  make_segment();
  int fds_before = count_fds();
  int maps_before = count_memfd_maps();
  int a[2];
  int b[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a) != 0 ||
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, b) != 0) {
    abort();
  }
  hurray_error err;
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  FUZZ_CHECK(hurray_ipc_producer_from_socket(a[0], NULL, &p, &cid, &err) == HURRAY_OK);
  uint8_t hello[32];
  send_raw(b[0], hello, hurray_ipc_encode_hello(hello, sizeof hello, 1, 0, 253), 0);
  hurray_ipc_consumer *c = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_from_socket(b[1], NULL, &c, &err) == HURRAY_OK);
  for (int k = 0; k < 2; k++) {
    counts[k].calls = 0;
    hurray_ipc_buffer_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
    d.fd = dup(segment_fd);
    FUZZ_CHECK(hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CPU,
                                        HURRAY_SYNC_PRODUCER_SYNCED, &d.handle, &err) == HURRAY_OK);
    d.offset = 4096u * (uint64_t)k;
    d.release = on_release;
    d.release_ctx = &counts[k];
    FUZZ_CHECK(hurray_ipc_producer_share(p, &d, &shared[k], &err) == HURRAY_OK);
  }
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, shared, 2, 0, NULL, &err) == HURRAY_OK);
  hurray_ipc_shared_retire(shared[0]); /* buffer 0 lives on the consumer's hold only */
  int retired1 = 0;
  size_t at = 0;
  while (at + 3 <= size) {
    uint8_t op = data[at];
    size_t len = (size_t)data[at + 1] | ((size_t)data[at + 2] << 8);
    at += 3;
    if (len > size - at) {
      len = size - at;
    }
    const uint8_t *payload = data + at;
    at += len;
    switch (op % 6) {
      case 0: /* the scripted consumer talks to the real producer */
      case 1:
        send_raw(a[1], payload, len, op % 6);
        (void)!hurray_ipc_producer_poll(p, 0, &err);
        check_holds(p);
        break;
      case 2: { /* the scripted producer talks to the real consumer */
        send_raw(b[0], payload, len, (int)((op >> 3) % 3u));
        hurray_ipc_received *r = NULL;
        hurray_status st = hurray_ipc_consumer_receive(c, 0, &r, &err);
        FUZZ_CHECK((st == HURRAY_OK) == (r != NULL));
        if (r != NULL) {
          for (size_t i = 0; i < hurray_ipc_received_count(r); i++) {
            const hurray_accepted_buffer *buf = hurray_ipc_received_buffer(r, i);
            if (buf->handle.byte_size > 0) {
              FUZZ_CHECK(((const uint8_t *)buf->data)[0] == 0x42);
            }
          }
          if (op & 0x80u) {
            (void)!hurray_ipc_received_release(r, 0, &err);
          }
          hurray_ipc_received_free(&r);
        }
        break;
      }
      case 3: /* the producer offers again (buffer 1 only once retired1 is not set) */
        if (!retired1) {
          (void)!hurray_ipc_producer_offer(p, cid, &shared[1], 1, 0, NULL, &err);
        }
        break;
      case 4:
        if (!retired1) {
          hurray_ipc_shared_retire(shared[1]);
          retired1 = 1;
        }
        check_holds(p);
        break;
      default: /* drain what the real producer sent to the scripted consumer */
        (void)recv(a[1], (void *)hello, sizeof hello, MSG_DONTWAIT | MSG_TRUNC);
        break;
    }
  }
  close(a[1]);
  close(b[0]);
  (void)!hurray_ipc_producer_poll(p, 0, &err);
  check_holds(p);
  hurray_ipc_producer_destroy(&p);
  FUZZ_CHECK(counts[0].calls == 1 && counts[1].calls == 1);
  hurray_ipc_consumer_destroy(&c);
  FUZZ_CHECK(count_fds() == fds_before);
  FUZZ_CHECK(count_memfd_maps() == maps_before);
  return 0;
}

FUZZ_ORACLE_END
