/*
 * Fuzz target ipc_api: message sequences between two endpoints of the IPC
 * transport. A real producer faces a scripted consumer, and a real consumer
 * faces a scripted producer, each on a socketpair; the input is the script:
 * byte 0 sets the scene, then records of [op byte][u16 length][length
 * bytes], where op says who sends the bytes (with how many descriptors) and
 * who reads.
 *
 * Byte 0: bit 0, the scripted producer's first message is the first
 * record's bytes instead of a HELLO (the consumer's handshake, IPC-CRED-2);
 * bit 1, the consumer admits only another uid (IPC-CRED-3); bit 2, so does
 * the producer (IPC-CRED-1); bit 3, device memory: the consumer imports
 * through a plugin registry (the hostile plugin, fuzz/hostile_plugin.c,
 * answering correctly, tag cuda with exported events), and a second real
 * producer offers a device buffer and a device buffer with its event to a
 * second real consumer (IPC-OFF-3, IPC-OFF-4, IPC-SEG-5..7); bit 4, the
 * consumer's options are too small; bit 5, the producer is given an
 * unsealed segment (IPC-SEG-1); bit 6, a producer listening on an address
 * and consumers connecting to it (fuzz/ipc_endpoints.c, bit 7: a path
 * rather than an abstract name).
 *
 * Op 7 with bit 7 set is a fault record (fuzz/ipc_faults.h): with 3 bytes,
 * the fault they describe hits the library calls of the next record that
 * makes some (a poll, a receive and its release, an offer); with 4, a round
 * of its own under that fault (fuzz/ipc_fault_rounds.c); with fewer, the
 * misuse round.
 *
 * Oracle (specs/ipc.md IPC-REL-2, IPC-FLT-1, IPC-ERR-1, IPC-CRED-1..3,
 * IPC-SEG-1, IPC-SEG-5..7, IPC-FLOW-1):
 *  - a buffer's release callback runs at most once, and never while a hold
 *    on it is listed; after the producer is destroyed it has run exactly once;
 *  - a receive that fails hands out nothing; a handshake that is no HELLO,
 *    or comes from a uid not admitted, makes no consumer (no producer for
 *    the producer's allow-list); an unsealed segment is not shared;
 *  - a device buffer that crosses arrives as the plugin's import, with the
 *    bytes the producer wrote, its event imported and waited on, and every
 *    import freed with its release;
 *  - after all endpoints are gone the process has the descriptors and memfd
 *    mappings it had before, and the plugin holds no buffer or event;
 *  - under an injected fault, a failure is the fault's (ipc_fault_check,
 *    IPC-ERR-1), a device offer that fails leaves nothing held, and the
 *    release callbacks still run exactly once (fuzz/ipc_fault_rounds.c
 *    checks its rounds the same way, and IPC-FLOW-1's TIMEOUT).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/ipc.h"
#include "ipc_fault_rounds.h"
#include "ipc_faults.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

#define SEGMENT_SIZE 8192u

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

/* A fault record's fault, for the library calls of the next record that
 * makes some. */
static int fault_pending;
static ipc_fault pending_fault;

static void begin_calls(void) {
  if (fault_pending) {
    ipc_fault_arm(pending_fault);
  }
}

static void end_calls(void) {
  if (fault_pending) {
    (void)ipc_fault_disarm();
    fault_pending = 0;
  }
}

/* Bit 6: listening, connecting, limits, events (fuzz/ipc_endpoints.c). */
void ipc_endpoints_round(uint8_t how);

/* The plugin side of bit 3: the hostile plugin, tag cuda, one device that
 * exports events (its load answers fixed here, every later one correct). */
static hurray_plugin_registry *device_registry(void) {
  static const uint8_t load[] = {0, 2, 0, 0, 0, 0x86, 0}; /* init, count 1, describe */
  hostile_source answers = {load, sizeof load, 0};
  hostile_reset();
  hostile_config_default(&hostile_table_config, HURRAY_DEVICE_CUDA);
  hostile_set_source(&answers);
  hurray_plugin_registry *registry = NULL;
  FUZZ_CHECK(hurray_plugin_registry_create(&registry, NULL) == HURRAY_OK);
  FUZZ_CHECK(hurray_plugin_load_linked(registry, "hostile-linked", hostile_plugin_entry, 0, NULL,
                                       NULL) == HURRAY_OK);
  hostile_set_source(NULL);
  return registry;
}

/* IPC-OFF-3, IPC-OFF-4, IPC-SEG-5..7: a real producer offers a device
 * buffer and a device buffer with its event to a real consumer that imports
 * them through the same plugin; `how` picks what the consumer does. */
static void device_round(hurray_plugin_registry *registry, uint8_t how) {
  hurray_plugin *plugin = hurray_plugin_registry_find(registry, HURRAY_DEVICE_CUDA);
  int c[2];
  FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c) == 0);
  hurray_error err;
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  FUZZ_CHECK(hurray_ipc_producer_from_socket(c[0], NULL, &p, &cid, &err) == HURRAY_OK);
  hurray_ipc_consumer *consumer = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_from_socket(c[1], NULL, &consumer, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_consumer_set_plugins(consumer, registry, &err) == HURRAY_OK);
  hurray_plugin_buffer *b[2] = {NULL, NULL};
  hurray_ipc_shared *dev_shared[2] = {NULL, NULL};
  uint8_t bytes[256];
  for (int k = 0; k < 2; k++) {
    FUZZ_CHECK(hurray_plugin_allocate_flags(plugin, 0, 4096, 4096, HURRAY_MEMORY_STANDARD,
                                            HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &b[k],
                                            &err) == HURRAY_OK);
    memset(bytes, 0x60 + k, sizeof bytes);
    FUZZ_CHECK(hurray_plugin_buffer_write(b[k], 0, bytes, sizeof bytes, &err) == HURRAY_OK);
  }
  /* The arguments share_device refuses (IPC-ERR-1). */
  FUZZ_CHECK(hurray_ipc_producer_share_device(p, b[0], NULL, NULL, b[0], &dev_shared[0], &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device(p, b[0], NULL, hurray_plugin_buffer_release_callback,
                                              b[0], NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device(p, b[0], NULL, hurray_plugin_buffer_release_callback,
                                              b[0], &dev_shared[0], &err) == HURRAY_OK);
  hurray_plugin_event *event = NULL;
  FUZZ_CHECK(hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event,
                                              &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_plugin_event_record(event, NULL, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(
                 p, b[1], NULL, NULL, hurray_plugin_buffer_release_callback, b[1], &dev_shared[1],
                 &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(p, b[1], event, NULL, NULL, b[1],
                                                    &dev_shared[1],
                                                    &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(p, b[1], event, NULL,
                                                    hurray_plugin_buffer_release_callback, b[1],
                                                    NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_share_device_event(p, b[1], event, NULL,
                                                    hurray_plugin_buffer_release_callback, b[1],
                                                    &dev_shared[1], &err) == HURRAY_OK);
  /* The event buffer, to a consumer said not to take events (BP-XPORT-3). */
  FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, &dev_shared[1], 1, 0, NULL, &err) ==
                 HURRAY_ERR_SYNC_MODE_NOT_ALLOWED &&
             err.index == 0u);
  size_t count = (how & 1u) != 0u ? 1u : 2u;
  begin_calls(); /* a pending fault hits the offer, its DEVICE and EVENT messages */
  hurray_status st =
      hurray_ipc_producer_offer(p, cid, dev_shared, count, HURRAY_IPC_EXPORTS_EVENTS, NULL, &err);
  ipc_fault_check(st, &err);
  end_calls();
  hurray_ipc_shared_retire(dev_shared[0]);
  hurray_ipc_shared_retire(dev_shared[1]);
  if (st != HURRAY_OK) { /* nothing half-done: the imports are the holds' to release */
    hurray_ipc_consumer_destroy(&consumer);
    hurray_ipc_producer_destroy(&p);
    return;
  }
  hurray_ipc_received *r = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_receive(consumer, 1000, &r, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_received_count(r) == count);
  for (size_t i = 0; i < count; i++) {
    hurray_plugin_buffer *import = hurray_ipc_received_plugin_buffer(r, i);
    FUZZ_CHECK(import != NULL);
    uint8_t got[256];
    FUZZ_CHECK(hurray_plugin_buffer_read(import, 0, got, sizeof got, &err) == HURRAY_OK);
    FUZZ_CHECK(got[0] == 0x60 + i && got[255] == 0x60 + i);
    hurray_handoff *h = hurray_ipc_received_handoff(r, i);
    if (i == 1u && (how & 2u) == 0u) { /* the event: waited on, then released */
      FUZZ_CHECK(hurray_handoff_record_event_wait(h, &err) == HURRAY_OK);
      FUZZ_CHECK(hurray_handoff_release_event(h, &err) == HURRAY_OK);
    }
    if ((how & 4u) == 0u && (i == 0u || (how & 2u) == 0u)) {
      FUZZ_CHECK(hurray_ipc_received_release(r, i, &err) == HURRAY_OK);
    }
  }
  hurray_ipc_received_free(&r); /* what is left is released here */
  (void)!hurray_ipc_producer_poll(p, 0, &err);
  if ((how & 8u) != 0u) {
    hurray_ipc_producer_destroy(&p); /* before the consumer: its holds are reclaimed */
    hurray_ipc_consumer_destroy(&consumer);
  } else {
    hurray_ipc_consumer_destroy(&consumer);
    hurray_ipc_producer_destroy(&p);
  }
  /* The event went with its share (IPC-OFF-4): released with buffer 1. */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  make_segment();
  int fds_before = fuzz_count_fds();
  int maps_before = count_memfd_maps();
  uint8_t setup = size > 0u ? data[0] : 0u;
  size_t at = size > 0u ? 1u : 0u;
  if ((setup & 0x40u) != 0u) {
    ipc_endpoints_round(setup);
  }
  hostile_reset();
  hurray_plugin_registry *registry = (setup & 0x08u) != 0u ? device_registry() : NULL;
  int a[2];
  int b[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a) != 0 ||
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, b) != 0) {
    abort();
  }
  hurray_error err;
  uint32_t not_me = (uint32_t)getuid() + 1u;
  hurray_ipc_producer_options popts;
  memset(&popts, 0, sizeof popts);
  popts.struct_size = sizeof popts;
  if ((setup & 0x04u) != 0u) {
    popts.allowed_uid_count = 1;
    popts.allowed_uids = &not_me;
  }
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  hurray_status st = hurray_ipc_producer_from_socket(a[0], &popts, &p, &cid, &err);
  if ((setup & 0x04u) != 0u) {
    FUZZ_CHECK(st == HURRAY_ERR_IPC_REFUSED && p == NULL); /* IPC-CRED-1 */
  } else {
    FUZZ_CHECK(st == HURRAY_OK);
  }
  /* The consumer's handshake: a HELLO, or the first record's bytes. */
  uint8_t hello[32];
  if ((setup & 0x01u) != 0u && at + 3u <= size) {
    size_t len = (size_t)data[at + 1] | ((size_t)data[at + 2] << 8);
    int nfds = (int)(data[at] % 3u);
    at += 3;
    len = len > size - at ? size - at : len;
    send_raw(b[0], data + at, len, nfds);
    at += len;
  } else {
    send_raw(b[0], hello, hurray_ipc_encode_hello(hello, sizeof hello, 1, 0, 253), 0);
  }
  hurray_ipc_consumer_options copts;
  memset(&copts, 0, sizeof copts);
  copts.struct_size = (setup & 0x10u) != 0u ? 4u : (uint32_t)sizeof copts;
  copts.connect_timeout_ms = 1;
  if ((setup & 0x02u) != 0u) {
    copts.allowed_uid_count = 1;
    copts.allowed_uids = &not_me;
  }
  hurray_ipc_consumer *c = NULL;
  st = hurray_ipc_consumer_from_socket(b[1], &copts, &c, &err);
  FUZZ_CHECK((st == HURRAY_OK) == (c != NULL));
  if ((setup & 0x12u) != 0u) {
    FUZZ_CHECK(st != HURRAY_OK); /* IPC-CRED-3, or options it cannot read */
  }
  if (c != NULL && registry != NULL) {
    FUZZ_CHECK(hurray_ipc_consumer_set_plugins(c, registry, &err) == HURRAY_OK);
  }
  int retired1 = 1;
  if (p != NULL) {
    retired1 = 0;
    for (int k = 0; k < 2; k++) {
      counts[k].calls = 0;
      hurray_ipc_buffer_desc d;
      memset(&d, 0, sizeof d);
      d.struct_size = sizeof d;
      d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
      d.fd = dup(segment_fd);
      FUZZ_CHECK(hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CPU,
                                          HURRAY_SYNC_PRODUCER_SYNCED, &d.handle,
                                          &err) == HURRAY_OK);
      d.offset = 4096u * (uint64_t)k;
      d.release = on_release;
      d.release_ctx = &counts[k];
      FUZZ_CHECK(hurray_ipc_producer_share(p, &d, &shared[k], &err) == HURRAY_OK);
    }
    if ((setup & 0x20u) != 0u) { /* IPC-SEG-1: an unsealed segment is not shared */
      void *mem = NULL;
      int fd = -1;
      FUZZ_CHECK(hurray_ipc_segment_create(4096, &fd, &mem, &err) == HURRAY_OK);
      munmap(mem, 4096);
      hurray_ipc_buffer_desc d;
      memset(&d, 0, sizeof d);
      d.struct_size = sizeof d;
      d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
      d.fd = fd;
      released unused = {0};
      d.release = on_release;
      d.release_ctx = &unused;
      FUZZ_CHECK(hurray_buffer_handle_new(4096, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                          &d.handle, &err) == HURRAY_OK);
      hurray_ipc_shared *none = NULL;
      FUZZ_CHECK(hurray_ipc_producer_share(p, &d, &none, &err) == HURRAY_ERR_IPC_BAD_SEGMENT);
      FUZZ_CHECK(none == NULL && unused.calls == 0); /* refused: nothing called, fd ours */
      close(fd);
    }
    FUZZ_CHECK(hurray_ipc_producer_offer(p, cid, shared, 2, 0, NULL, &err) == HURRAY_OK);
    hurray_ipc_shared_retire(shared[0]); /* buffer 0 lives on the consumer's hold only */
  }
  while (at + 3 <= size) {
    uint8_t op = data[at];
    size_t len = (size_t)data[at + 1] | ((size_t)data[at + 2] << 8);
    at += 3;
    if (len > size - at) {
      len = size - at;
    }
    const uint8_t *payload = data + at;
    at += len;
    switch (op % 8) {
      case 0: /* the scripted consumer talks to the real producer */
      case 1:
        if (p != NULL) {
          send_raw(a[1], payload, len, op % 8);
          begin_calls();
          ipc_fault_check(hurray_ipc_producer_poll(p, 0, &err), &err);
          end_calls();
          check_holds(p);
        }
        break;
      case 2:   /* the scripted producer talks to the real consumer */
      case 6: { /* (6: the consumer only receives, what was sent before) */
        if (op % 8 == 2) {
          send_raw(b[0], payload, len, (int)((op >> 3) % 3u));
        }
        if (c == NULL) {
          break;
        }
        hurray_ipc_received *r = NULL;
        begin_calls();
        st = hurray_ipc_consumer_receive(c, 0, &r, &err);
        ipc_fault_check(st, &err);
        FUZZ_CHECK((st == HURRAY_OK) == (r != NULL));
        if (r != NULL) {
          for (size_t i = 0; i < hurray_ipc_received_count(r); i++) {
            const hurray_accepted_buffer *buf = hurray_ipc_received_buffer(r, i);
            if (buf->handle.byte_size > 0 && hurray_ipc_received_plugin_buffer(r, i) == NULL) {
              FUZZ_CHECK(((const uint8_t *)buf->data)[0] == 0x42);
            }
          }
          if (op & 0x80u) {
            ipc_fault_check(hurray_ipc_received_release(r, 0, &err), &err);
          }
          hurray_ipc_received_free(&r);
        }
        end_calls();
        break;
      }
      case 3: /* the producer offers again (buffer 1 only once retired1 is not set) */
        if (!retired1) {
          begin_calls();
          ipc_fault_check(hurray_ipc_producer_offer(p, cid, &shared[1], 1, 0, NULL, &err), &err);
          end_calls();
        }
        break;
      case 4:
        if (!retired1) {
          hurray_ipc_shared_retire(shared[1]);
          retired1 = 1;
          check_holds(p);
        }
        break;
      case 5: /* drain what the real producer sent to the scripted consumer */
        (void)recv(a[1], (void *)hello, sizeof hello, MSG_DONTWAIT | MSG_TRUNC);
        break;
      default:
        if ((op & 0x80u) != 0u) { /* a fault record */
          if (len >= 3u) {
            pending_fault = ipc_fault_from_bytes(payload);
            fault_pending = len == 3u;
          }
          if (len >= 4u) {
            ipc_fault_round(payload[3], pending_fault, segment_fd);
          } else if (len < 3u) {
            ipc_misuse_round(segment_fd);
          }
        } else if (registry != NULL) { /* device memory between two real endpoints */
          device_round(registry, len > 0u ? payload[0] : 0u);
        }
        break;
    }
  }
  fault_pending = 0;
  close(a[1]);
  close(b[0]);
  if (p != NULL) {
    (void)!hurray_ipc_producer_poll(p, 0, &err);
    check_holds(p);
    hurray_ipc_producer_destroy(&p);
    FUZZ_CHECK(counts[0].calls == 1 && counts[1].calls == 1);
  }
  hurray_ipc_consumer_destroy(&c);
  hurray_plugin_registry_destroy(registry);
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.live_events == 0u);
  hostile_forget_table();
  FUZZ_CHECK(fuzz_count_fds() == fds_before);
  FUZZ_CHECK(count_memfd_maps() == maps_before);
  return 0;
}

FUZZ_ORACLE_END
