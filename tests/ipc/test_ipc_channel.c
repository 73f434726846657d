/*
 * The IPC channel in one process: a producer and a consumer on the two ends
 * of a socketpair or an abstract address, and a fake peer that writes raw
 * messages for the fault tests. Every test counts descriptors and mappings
 * before and after (specs/ipc.md IPC-ERR-1: nothing leaked).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "ipc_test_support.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "check_main.h"

START_TEST(offer_accept_release) {  // IPC-SEG-1..4, IPC-REL-1, IPC-REL-2, IPC-OFF-2, HO-OWN-3
  leak_probe probe = leak_start("offer/accept/release 1 MiB");
  connected_channel ch;
  open_channel(&ch);
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_consumer_producer_pid(ch.c), getpid());

  const uint64_t size = 1u << 20;
  void *data = NULL;
  int fd = make_segment(size, &data);
  mapped_release rel = {{0, NULL}, size};
  hurray_ipc_buffer_desc d = host_desc(fd, size, data, unmap_release, &rel);
  hurray_ipc_shared *s = NULL;
  ck_assert_int_eq(hurray_ipc_producer_share(ch.p, &d, &s, &err), HURRAY_OK);
  uint64_t offer_id = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(ch.p, ch.cid, &s, 1, 0, &offer_id, &err), HURRAY_OK);
  ck_assert_uint_eq(offer_id, 1u); /* IPC-OFF-2: a producer counts up from 1 */
  hurray_ipc_shared_retire(s);     /* the consumer's hold keeps it */
  ck_assert_int_eq(rel.log.calls, 0);

  hurray_ipc_hold holds[4];
  size_t nholds = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(ch.p, holds, 4, &nholds, &err), HURRAY_OK);
  ck_assert_uint_eq(nholds, 1);
  ck_assert_int_eq(holds[0].pid, getpid());
  ck_assert_uint_eq(holds[0].offer_id, offer_id);
  ck_assert_uint_eq(holds[0].consumer_id, ch.cid);

  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(ch.c, 1000, &r, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_ipc_received_count(r), 1);
  ck_assert_uint_eq(hurray_ipc_received_offer_id(r), offer_id);
  /* the producer's mapping and the consumer's: the memfd count sees both */
  ck_assert_int_eq(count_maps_of(1), probe.memfd_maps + 2);
  const hurray_accepted_buffer *b = hurray_ipc_received_buffer(r, 0);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_ne(b->data, data); /* a mapping of its own, not a pointer from the producer */
  ck_assert_uint_eq(b->handle.byte_size, size);
  const uint8_t *bytes = b->data;
  for (uint64_t i = 0; i < size; i += 4093) {
    ck_assert_uint_eq(bytes[i], pattern_byte(i));
  }
  ck_assert_uint_eq(hurray_handoff_state_of(hurray_ipc_received_handoff(r, 0)),
                    HURRAY_HANDOFF_READABLE);
  void *through = NULL;
  ck_assert_int_eq(hurray_handoff_access(hurray_ipc_received_handoff(r, 0), NULL, &through, &err),
                   HURRAY_OK);
  ck_assert_ptr_eq(through, b->data);

  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_OK);
  ck_assert_int_eq(count_maps_of(1), probe.memfd_maps + 1); /* the consumer's is gone */
  /* second release of the same buffer: refused, no second signal */
  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_release(hurray_ipc_received_handoff(r, 0), &err),
                   HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_RELEASED), 1);
  ck_assert_int_eq(rel.log.calls, 1);
  ck_assert_ptr_eq(rel.log.last, data);
  ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 50, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_RELEASED), 1);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_PROTOCOL_ERROR), 0);
  ck_assert_int_eq(hurray_ipc_producer_holds(ch.p, holds, 4, &nholds, &err), HURRAY_OK);
  ck_assert_uint_eq(nholds, 0);

  hurray_ipc_received_free(&r);
  hurray_ipc_consumer_destroy(&ch.c);
  hurray_ipc_producer_destroy(&ch.p);
  ck_assert_int_eq(rel.log.calls, 1);
  leak_check(&probe);
}
END_TEST

static uint8_t msg[16384];

static size_t one_offer(uint64_t byte_size, uint64_t offset, uint32_t kind) {
  hurray_buffer_handle h = host_handle(byte_size);
  hurray_ipc_segment seg = {offset, kind, 0};
  return hurray_ipc_encode_offer(msg, sizeof msg, 1, &h, &seg, 1);
}

/* The consumer gets `len` bytes with `fds`, and must refuse with `status`
 * (value, index), map nothing and close every descriptor. */
static void expect_refused(const char *what, size_t len, const int *fds, size_t nfds,
                           hurray_status status, uint64_t value, int expect_reject) {
  leak_probe probe = leak_start(what);
  int peer = -1;
  hurray_ipc_consumer *c = consumer_with_raw_peer(&peer);
  send_raw_fds(peer, msg, len, fds, nfds);
  hurray_ipc_received *r = NULL;
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, 1000, &r, &err), status);
  ck_assert_msg(err.value == value, "%s: value %llu, expected %llu", what,
                (unsigned long long)err.value, (unsigned long long)value);
  ck_assert_ptr_null(r);
  hurray_ipc_message m = raw_recv(peer, 0);
  if (expect_reject) {
    ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REJECT); /* the producer learns why */
    ck_assert_uint_eq(m.code, (uint32_t)status);
    ck_assert_uint_eq(m.value, value);
  } else {
    ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REFUSE); /* protocol error: IPC-ERR-2 */
    ck_assert_uint_eq(m.code, HURRAY_IPC_REFUSE_PROTOCOL_ERROR);
    ck_assert_uint_eq(m.value, (uint64_t)status);
  }
  hurray_ipc_consumer_destroy(&c);
  close(peer);
  leak_check(&probe);
}

START_TEST(malformed_messages) {  // IPC-MSG-5, IPC-ERR-2, IPC-CHAN-3 (oversized: MSG_TRUNC)
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, 1, 0);
  expect_refused("truncated header (8 bytes)", 8, NULL, 0, HURRAY_ERR_TRUNCATED, 8, 0);
  msg[1] = 'X';
  expect_refused("bad magic", n, NULL, 0, HURRAY_ERR_INVALID_ARGUMENT, 0x31495848u, 0);
  n = hurray_ipc_encode_header(msg, sizeof msg, 42, 0, 0);
  expect_refused("unknown type 42", n, NULL, 0, HURRAY_ERR_UNSUPPORTED, 42, 0);
  n = hurray_ipc_encode_header(msg, sizeof msg, HURRAY_IPC_MSG_OFFER, 100, 0);
  expect_refused("truncated body", n + 10, NULL, 0, HURRAY_ERR_TRUNCATED, n + 10, 0);
  memset(msg, 0, sizeof msg);
  hurray_ipc_encode_header(msg, sizeof msg, HURRAY_IPC_MSG_OFFER, 9000, 0);
  expect_refused("oversized (9016 bytes)", 9016, NULL, 0, HURRAY_ERR_CAPACITY, 9016, 0);
  n = hurray_ipc_encode_release(msg, sizeof msg, 1, 0);
  expect_refused("a RELEASE sent to a consumer", n, NULL, 0, HURRAY_ERR_UNSUPPORTED,
                 HURRAY_IPC_MSG_RELEASE, 0);
}
END_TEST

START_TEST(wrong_number_of_fds) {  // IPC-MSG-5 step 7, IPC-MSG-9
  void *data_a = NULL;
  void *data_b = NULL;
  int a = make_segment(4096, &data_a);
  int b = make_segment(4096, &data_b);
  int both[2] = {a, b};
  size_t n = one_offer(4096, 0, HURRAY_IPC_MEMORY_HOST_MEMFD);
  expect_refused("offer of 1 with 2 fds", n, both, 2, HURRAY_ERR_INVALID_ARGUMENT, 1, 0);
  expect_refused("offer of 1 with 0 fds", n, NULL, 0, HURRAY_ERR_INVALID_ARGUMENT, 1, 0);
  close(a);
  close(b);
  munmap(data_a, 4096);
  munmap(data_b, 4096);
}
END_TEST

/* A DEVICE message (IPC-MSG-13) of kind FD for buffer `index` of offer
 * `offer_id` in msg; the caller sends it with one descriptor. */
static size_t device_fd_message(uint64_t offer_id, uint32_t index) {
  return hurray_ipc_encode_device(msg, sizeof msg, offer_id, index, HURRAY_IPC_DEVICE_FD, 4096,
                                  NULL, NULL, NULL, 0);
}

/* The consumer receives `count` DEVICE messages (each with a memfd), then
 * an OFFER of one device buffer whose offer_id is `offer_id`: it must end
 * the connection with a protocol error naming `value` and `index`, and
 * close every descriptor it kept (IPC-OFF-3, IPC-ERR-2). */
static void expect_device_mismatch(const char *what, const uint64_t *device_offers,
                                   const uint32_t *device_indices, size_t count, uint64_t offer_id,
                                   uint32_t kind, uint64_t value, size_t index) {
  int segment = -1;
  void *data = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_segment_create(4096, &segment, &data, &err), HURRAY_OK);
  leak_probe probe = leak_start(what);
  int peer = -1;
  hurray_ipc_consumer *c = consumer_with_raw_peer(&peer);
  for (size_t k = 0; k < count; k++) {
    size_t n = device_fd_message(device_offers[k], device_indices[k]);
    send_raw_fds(peer, msg, n, &segment, 1);
  }
  hurray_buffer_handle h = host_handle(4096);
  hurray_ipc_segment seg = {0, kind, 0};
  size_t n = hurray_ipc_encode_offer(msg, sizeof msg, offer_id, &h, &seg, 1);
  send_raw_fds(peer, msg, n, kind == HURRAY_IPC_MEMORY_HOST_MEMFD ? &segment : NULL,
               kind == HURRAY_IPC_MEMORY_HOST_MEMFD ? 1u : 0u);
  hurray_ipc_received *r = NULL;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, 1000, &r, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_msg(err.value == value && err.index == index, "%s: value %llu index %zu", what,
                (unsigned long long)err.value, (size_t)err.index);
  ck_assert_ptr_null(r);
  hurray_ipc_message m = raw_recv(peer, 0);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REFUSE);
  ck_assert_uint_eq(m.code, HURRAY_IPC_REFUSE_PROTOCOL_ERROR);
  hurray_ipc_consumer_destroy(&c);
  close(peer);
  leak_check(&probe);
  munmap(data, 4096);
  close(segment);
}

START_TEST(device_messages_that_do_not_match_the_offer) {  // IPC-OFF-3, IPC-ERR-2
  const uint64_t offers[2] = {5, 6};
  const uint32_t indices[2] = {0, 0};
  /* a DEVICE for offer 5, then the OFFER of 6 */
  expect_device_mismatch("DEVICE of another offer", offers, indices, 1, 6, HURRAY_IPC_MEMORY_DEVICE,
                         5, 0);
  /* DEVICE messages for two offers before any OFFER */
  expect_device_mismatch("DEVICE of two offers", offers, indices, 2, 6, HURRAY_IPC_MEMORY_DEVICE, 6,
                         0);
  /* a second DEVICE for the same buffer */
  expect_device_mismatch("two DEVICE for one buffer", offers, indices + 0, 0, 5,
                         HURRAY_IPC_MEMORY_DEVICE, 5, 0);
  const uint64_t same[2] = {5, 5};
  expect_device_mismatch("second DEVICE for buffer 0", same, indices, 2, 5,
                         HURRAY_IPC_MEMORY_DEVICE, 5, 0);
  /* an OFFER whose device record has no DEVICE message (the 0-count case
   * above) and a DEVICE left over for a buffer the OFFER declares host */
  expect_device_mismatch("DEVICE for a host buffer", same, indices, 1, 5,
                         HURRAY_IPC_MEMORY_HOST_MEMFD, 5, 0);
  const uint32_t past[1] = {1};
  expect_device_mismatch("DEVICE past the offer's buffers", same, past, 1, 5,
                         HURRAY_IPC_MEMORY_DEVICE, 5, 0);
}
END_TEST

/* A consumer given no plugin registry cannot import device memory: the
 * offer is rejected (not a protocol error), DEVICE_UNAVAILABLE naming the
 * tag, and the DEVICE message's descriptor is closed (IPC-SEG-5). */
START_TEST(device_memory_without_plugins_is_rejected) {  // IPC-SEG-5
  int segment = -1;
  void *data = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_segment_create(4096, &segment, &data, &err), HURRAY_OK);
  leak_probe probe = leak_start("device memory, no plugins");
  int peer = -1;
  hurray_ipc_consumer *c = consumer_with_raw_peer(&peer);
  size_t n = device_fd_message(1, 0);
  send_raw_fds(peer, msg, n, &segment, 1);
  hurray_buffer_handle h = host_handle(4096);
  hurray_ipc_segment seg = {0, HURRAY_IPC_MEMORY_DEVICE, 0};
  n = hurray_ipc_encode_offer(msg, sizeof msg, 1, &h, &seg, 1);
  send_raw_fds(peer, msg, n, NULL, 0);
  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, 1000, &r, &err), HURRAY_ERR_DEVICE_UNAVAILABLE);
  ck_assert_uint_eq(err.value, HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_ptr_null(r);
  hurray_ipc_message m = raw_recv(peer, 0);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REJECT);
  ck_assert_uint_eq(m.code, HURRAY_ERR_DEVICE_UNAVAILABLE);
  /* the connection goes on: a host offer after it is accepted */
  void *host_data = NULL;
  int host = make_segment(4096, &host_data);
  n = one_offer(4096, 0, HURRAY_IPC_MEMORY_HOST_MEMFD);
  send_raw_fds(peer, msg, n, &host, 1);
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, 1000, &r, &err), HURRAY_OK);
  hurray_ipc_received_free(&r);
  hurray_ipc_consumer_destroy(&c);
  close(peer);
  munmap(host_data, 4096);
  close(host);
  leak_check(&probe);
  munmap(data, 4096);
  close(segment);
}
END_TEST

START_TEST(fds_of_the_wrong_kind) {  // IPC-SEG-2
  size_t n = one_offer(4096, 0, HURRAY_IPC_MEMORY_HOST_MEMFD);
  int pipefd[2];
  ck_assert_int_eq(pipe(pipefd), 0);
  expect_refused("a pipe", n, &pipefd[0], 1, HURRAY_ERR_IPC_BAD_SEGMENT, S_IFIFO, 1);
  close(pipefd[0]);
  close(pipefd[1]);
  int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ck_assert_int_ge(dir, 0);
  expect_refused("a directory", n, &dir, 1, HURRAY_ERR_IPC_BAD_SEGMENT, S_IFDIR, 1);
  close(dir);
  /* an unsealed memfd */
  int fd = -1;
  void *data = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_segment_create(4096, &fd, &data, &err), HURRAY_OK);
  expect_refused("an unsealed memfd", n, &fd, 1, HURRAY_ERR_IPC_BAD_SEGMENT, 0, 1);
  /* still writable: sealed against resizing but not against writes */
  ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
  expect_refused("a writable memfd (no FUTURE_WRITE)", n, &fd, 1, HURRAY_ERR_IPC_BAD_SEGMENT,
                 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, 1);
  munmap(data, 4096);
  close(fd);
}
END_TEST

START_TEST(byte_size_larger_than_segment) {  // IPC-SEG-2
  void *data = NULL;
  int fd = make_segment(4096, &data);
  size_t n = one_offer(8192, 0, HURRAY_IPC_MEMORY_HOST_MEMFD);
  expect_refused("byte_size 8192 > segment 4096", n, &fd, 1, HURRAY_ERR_IPC_BAD_SEGMENT, 4096, 1);
  n = one_offer(4096, 64, HURRAY_IPC_MEMORY_HOST_MEMFD);
  expect_refused("offset 64 + 4096 > segment 4096", n, &fd, 1, HURRAY_ERR_IPC_BAD_SEGMENT, 4096, 1);
  n = one_offer(4096, 0, 7); /* an undefined kind, so it counts no descriptor */
  expect_refused("memory kind 7 (undefined)", n, &fd, 0, HURRAY_ERR_UNSUPPORTED, 7, 0);
  munmap(data, 4096);
  close(fd);
}
END_TEST

START_TEST(sealing_makes_the_bytes_immutable) {  // IPC-SEG-1, IPC-SEG-2, BP-OWN-6
  leak_probe probe = leak_start("a writable mapping blocks the seal");
  int fd = -1;
  void *data = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_segment_create(4096, &fd, &data, &err), HURRAY_OK);
  memset(data, 0x5A, 4096);
  /* A writable mapping made before the seal, as whoever the producer gave
   * the descriptor to could have: with F_SEAL_FUTURE_WRITE it kept writing
   * after the seal; now the seal is refused while it exists. */
  uint8_t *other = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ck_assert_ptr_ne(other, MAP_FAILED);
  ck_assert_int_eq(hurray_ipc_segment_seal(fd, data, 4096, &err), HURRAY_ERR_IO);
  ck_assert_uint_eq(err.value, EBUSY);
  ck_assert_ptr_nonnull(strstr(err.detail, "fcntl(F_ADD_SEALS)"));
  ck_assert_uint_eq(((const uint8_t *)data)[100], 0x5A); /* its mapping still reads the bytes */
  munmap(other, 4096);
  ck_assert_int_eq(hurray_ipc_segment_seal(fd, data, 4096, &err), HURRAY_OK);
  ck_assert_uint_eq(((const uint8_t *)data)[4095], 0x5A);
  /* nothing can write it any more: no writable mapping, no write */
  ck_assert_ptr_eq(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
  ck_assert_int_eq((int)pwrite(fd, "x", 1, 0), -1);
  /* a segment sealed only against future writes is refused when shared */
  int weak = memfd_create("weak", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ck_assert_int_ge(weak, 0);
  ck_assert_int_eq(ftruncate(weak, 4096), 0);
  ck_assert_int_eq(
      fcntl(weak, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL), 0);
  int sv[2];
  socket_pair(sv);
  hurray_ipc_producer *p = NULL;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(sv[0], NULL, &p, NULL, &err), HURRAY_OK);
  release_log rel = {0, NULL};
  hurray_ipc_buffer_desc d = host_desc(weak, 4096, NULL, count_release, &rel);
  hurray_ipc_shared *s = NULL;
  ck_assert_int_eq(hurray_ipc_producer_share(p, &d, &s, &err), HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(err.expected, hurray_ipc_required_seals());
  ck_assert_uint_eq(err.expected & F_SEAL_WRITE, F_SEAL_WRITE);
  ck_assert_ptr_null(s);
  hurray_ipc_producer_destroy(&p);
  close(sv[1]);
  close(weak);
  close(fd);
  munmap(data, 4096);
  leak_check(&probe);
}
END_TEST

START_TEST(producer_side_faults) {  // IPC-REL-1, IPC-OFF-1, IPC-ERR-2
  leak_probe probe = leak_start("producer: forged and repeated releases");
  event_log events = {0};
  hurray_ipc_producer_options po = producer_options(&events);
  uint64_t cid = 0;
  int peer = -1;
  hurray_ipc_producer *p = producer_with_raw_peer(&po, &cid, &peer);
  hurray_error err;
  void *data = NULL;
  int fd = make_segment(4096, &data);
  release_log rel = {0, NULL};
  hurray_ipc_buffer_desc d = host_desc(fd, 4096, data, count_release, &rel);
  /* sharing refuses what a consumer would refuse */
  hurray_ipc_buffer_desc bad = d;
  bad.memory_kind = 2;
  hurray_ipc_shared *s = NULL;
  ck_assert_int_eq(hurray_ipc_producer_share(p, &bad, &s, &err), HURRAY_ERR_UNSUPPORTED);
  bad = d;
  bad.handle = host_handle(8192);
  ck_assert_int_eq(hurray_ipc_producer_share(p, &bad, &s, &err), HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(err.value, 4096);
  ck_assert_uint_eq(err.expected, 8192);
  ck_assert_int_eq(hurray_ipc_producer_share(p, &d, &s, &err), HURRAY_OK);
  /* the transport rule: a CPU buffer is producer_synced, so an event-mode
   * declaration cannot even be shared (BP-SYNC-2) */
  uint64_t offer_id = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(p, cid + 100, &s, 1, 0, &offer_id, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(hurray_ipc_producer_offer(p, cid, &s, 1, 0, &offer_id, &err), HURRAY_OK);
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, offer_id, 0);
  send_raw_fds(peer, msg, n, NULL, 0);
  send_raw_fds(peer, msg, n, NULL, 0); /* a second release of the same buffer */
  n = hurray_ipc_encode_release(msg, sizeof msg, offer_id + 5, 0);
  send_raw_fds(peer, msg, n, NULL, 0); /* an offer never made */
  ck_assert_int_eq(hurray_ipc_producer_poll(p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), 1);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_PROTOCOL_ERROR), 2);
  const hurray_ipc_event *ev = last_event(&events, HURRAY_IPC_EVENT_PROTOCOL_ERROR);
  ck_assert_uint_eq(ev->status, HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(ev->value, offer_id + 5);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), 0); /* connection kept */
  /* a malformed message ends the connection */
  send_raw_fds(peer, msg, 5, NULL, 0);
  ck_assert_int_eq(hurray_ipc_producer_poll(p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), 1);
  ev = last_event(&events, HURRAY_IPC_EVENT_PROTOCOL_ERROR);
  ck_assert_uint_eq(ev->status, HURRAY_ERR_TRUNCATED);
  ck_assert_int_eq(rel.calls, 0); /* the producer still holds its own reference */
  hurray_ipc_shared_retire(s);
  ck_assert_int_eq(rel.calls, 1);
  end_raw_peer_test(&p, peer, data, &probe);
}
END_TEST

START_TEST(wire_values_are_never_wildcards) {  // IPC-REL-1
  leak_probe probe = leak_start("producer: all-ones offer ids and indexes name nothing");
  event_log events = {0};
  hurray_ipc_producer_options po = producer_options(&events);
  raw_peer_page f;
  open_raw_peer_page(&f, &po);
  hurray_error err;
  uint64_t first = 0;
  uint64_t second = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(f.p, f.cid, &f.s, 1, 0, &first, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_offer(f.p, f.cid, &f.s, 1, 0, &second, &err), HURRAY_OK);
  hurray_ipc_shared_retire(f.s); /* from here on only the consumer's two holds keep it */
  /* Each names an offer or a buffer the consumer does not hold; before the
   * fix, all-ones meant "every index" or "every offer" and these three
   * dropped both holds and released the buffer while it was still held. */
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, first, UINT32_MAX);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  n = hurray_ipc_encode_release(msg, sizeof msg, UINT64_MAX, 0);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  n = hurray_ipc_encode_reject(msg, sizeof msg, UINT64_MAX, HURRAY_ERR_IPC_BAD_SEGMENT, 0, 0, 0);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), 0);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_REJECTED), 0);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_PROTOCOL_ERROR), 3);
  const hurray_ipc_event *ev = last_event(&events, HURRAY_IPC_EVENT_PROTOCOL_ERROR);
  ck_assert_uint_eq(ev->status, HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(ev->value, UINT64_MAX); /* the value it named */
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), 0);
  size_t holds = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(f.p, NULL, 0, &holds, &err), HURRAY_OK);
  ck_assert_uint_eq(holds, 2);
  ck_assert_int_eq(f.rel.calls, 0);
  /* the real releases still drop exactly what they name */
  n = hurray_ipc_encode_release(msg, sizeof msg, first, 0);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), 1);
  ck_assert_int_eq(f.rel.calls, 0);
  n = hurray_ipc_encode_release(msg, sizeof msg, second, 0);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), 2);
  ck_assert_int_eq(f.rel.calls, 1);
  close_raw_peer_page(&f, &probe);
}
END_TEST

START_TEST(consumer_rejects_offer) {  // IPC-MSG-10, IPC-REL-1
  leak_probe probe = leak_start("reject drops the offer's holds");
  connected_channel ch;
  open_channel(&ch);
  hurray_error err;
  void *data = NULL;
  int fd = make_segment(8192, &data);
  release_log rel = {0, NULL};
  hurray_ipc_buffer_desc d = host_desc(fd, 4096, data, count_release, &rel);
  d.offset = 64; /* the buffer starts 64 bytes into a page: it cannot be 4096-aligned */
  hurray_ipc_shared *s = NULL;
  ck_assert_int_eq(hurray_ipc_producer_share(ch.p, &d, &s, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_offer(ch.p, ch.cid, &s, 1, 0, NULL, &err), HURRAY_OK);
  hurray_ipc_shared_retire(s);
  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(ch.c, 1000, &r, &err),
                   HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  ck_assert_uint_eq(err.value, 64);
  ck_assert_uint_eq(err.expected, 4096);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_REJECTED), 1);
  const hurray_ipc_event *ev = last_event(&ch.events, HURRAY_IPC_EVENT_REJECTED);
  ck_assert_uint_eq(ev->status, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  ck_assert_uint_eq(ev->value, 64);
  ck_assert_int_eq(rel.calls, 1); /* the rejected offer's hold went with it */
  hurray_ipc_consumer_destroy(&ch.c);
  hurray_ipc_producer_destroy(&ch.p);
  ck_assert_int_eq(rel.calls, 1);
  munmap(data, 8192);
  leak_check(&probe);
}
END_TEST

START_TEST(credentials_refused_both_sides) {  // IPC-CRED-1..3
  leak_probe probe = leak_start("credentials refused");
  uint32_t other = (uint32_t)geteuid() + 12345u;
  int sv[2];
  socket_pair(sv);
  event_log events = {0};
  hurray_ipc_producer_options po = producer_options(&events);
  po.allowed_uid_count = 1;
  po.allowed_uids = &other;
  hurray_ipc_producer *p = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(sv[0], &po, &p, NULL, &err),
                   HURRAY_ERR_IPC_REFUSED);
  ck_assert_ptr_null(p);
  ck_assert_uint_eq(err.value, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED);
  ck_assert_uint_eq(err.expected, (uint32_t)geteuid());
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_REFUSED), 1);
  hurray_ipc_consumer *c = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_from_socket(sv[1], NULL, &c, &err), HURRAY_ERR_IPC_REFUSED);
  ck_assert_uint_eq(err.value, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED);
  ck_assert_uint_eq(err.expected, (uint32_t)geteuid());
  ck_assert_ptr_null(c);

  /* the consumer refuses a producer of an unlisted uid */
  socket_pair(sv);
  memset(&events, 0, sizeof events);
  po = producer_options(&events);
  uint64_t cid = 0;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(sv[0], &po, &p, &cid, &err), HURRAY_OK);
  hurray_ipc_consumer_options co;
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.allowed_uid_count = 1;
  co.allowed_uids = &other;
  ck_assert_int_eq(hurray_ipc_consumer_from_socket(sv[1], &co, &c, &err), HURRAY_ERR_IPC_REFUSED);
  ck_assert_uint_eq(err.expected, (uint32_t)geteuid());
  ck_assert_int_eq(hurray_ipc_producer_poll(p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_REFUSED), 1);
  ck_assert_uint_eq(last_event(&events, HURRAY_IPC_EVENT_REFUSED)->value,
                    HURRAY_IPC_REFUSE_UID_NOT_ALLOWED);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), 1);
  hurray_ipc_producer_destroy(&p);
  leak_check(&probe);
}
END_TEST

/* A producer and a consumer on a socketpair, and one shared 64 KiB
 * segment whose release `rel` counts. */
typedef struct shared_channel {
  event_log events;
  mapped_release rel;
  hurray_ipc_producer *p;
  hurray_ipc_consumer *c;
  hurray_ipc_shared *s;
  uint64_t cid;
} shared_channel;

static void open_shared_channel(shared_channel *ch) {
  memset(ch, 0, sizeof *ch);
  connected_pair(&ch->events, &ch->p, &ch->cid, &ch->c);
  void *data = NULL;
  ch->rel.size = 65536;
  ch->s = share_segment(ch->p, 65536, &data, unmap_release, &ch->rel);
}

/* RX-OBJ-1, RX-REL-2, RX-REL-4: the offer is the neutral received tensor.
 * One buffer released by the consumer, one left READABLE, one accessed
 * through the neutral handoff and left; the consumer destroyed; then the
 * neutral free: the producer sees exactly one RELEASE per buffer, every
 * hold is gone, and nothing stays open or mapped. */
START_TEST(neutral_teardown_releases_each_once) {
  leak_probe probe = leak_start("neutral teardown, 3 buffers");
  shared_channel ch;
  open_shared_channel(&ch);
  hurray_error err;
  hurray_ipc_shared *three[3] = {ch.s, ch.s, ch.s};
  uint64_t offer_id = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(ch.p, ch.cid, three, 3, 0, &offer_id, &err),
                   HURRAY_OK);
  hurray_ipc_shared_retire(ch.s);
  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(ch.c, 1000, &r, &err), HURRAY_OK);
  hurray_received *neutral = hurray_ipc_received_tensor(r);
  ck_assert_ptr_nonnull(neutral);
  ck_assert_uint_eq(hurray_received_transport(neutral), HURRAY_TRANSPORT_IPC);
  ck_assert_uint_eq(hurray_received_id(neutral), offer_id);
  ck_assert_uint_eq(hurray_received_count(neutral), 3);
  ck_assert_ptr_eq(hurray_received_buffer(neutral, 2), hurray_ipc_received_buffer(r, 2));
  ck_assert_ptr_null(hurray_received_plugin_buffer(neutral, 0)); /* host memory */
  ck_assert_ptr_null(hurray_ipc_received_tensor(NULL));
  ck_assert_int_eq(hurray_received_release(neutral, 0, &err), HURRAY_OK);
  void *through = NULL;
  ck_assert_int_eq(hurray_handoff_access(hurray_received_handoff(neutral, 2), NULL, &through, &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_RELEASED), 1);
  hurray_ipc_consumer_destroy(&ch.c); /* the offer keeps the connection for its releases */
  r = NULL;
  hurray_received_free(&neutral);
  ck_assert_ptr_null(neutral);
  for (int i = 0; i < 20 && events_of(&ch.events, HURRAY_IPC_EVENT_RELEASED) < 3; i++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 100, &err), HURRAY_OK);
  }
  ck_assert_int_eq(hurray_ipc_producer_poll(ch.p, 50, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_RELEASED), 3);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_PROTOCOL_ERROR), 0);
  ck_assert_int_eq(ch.rel.log.calls, 1);
  hurray_ipc_hold holds[4];
  size_t nholds = 9;
  ck_assert_int_eq(hurray_ipc_producer_holds(ch.p, holds, 4, &nholds, &err), HURRAY_OK);
  ck_assert_uint_eq(nholds, 0);
  hurray_ipc_producer_destroy(&ch.p);
  leak_check(&probe);
}
END_TEST

START_TEST(explicit_disconnect_reclaims) {  // IPC-REL-3, IPC-FLT-1, IPC-FLT-2
  leak_probe probe = leak_start("disconnect reclaims; mapping stays");
  shared_channel ch;
  open_shared_channel(&ch);
  hurray_error err;
  hurray_ipc_shared *twice[2] = {ch.s, ch.s};
  ck_assert_int_eq(hurray_ipc_producer_offer(ch.p, ch.cid, twice, 2, 0, NULL, &err), HURRAY_OK);
  hurray_ipc_shared_retire(ch.s);
  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(ch.c, 1000, &r, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_disconnect(ch.p, ch.cid, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&ch.events, HURRAY_IPC_EVENT_GONE), 1);
  ck_assert_uint_eq(last_event(&ch.events, HURRAY_IPC_EVENT_GONE)->value, 2);
  ck_assert_int_eq(ch.rel.log.calls, 1); /* both holds gone, the callback ran once */
  ck_assert_int_eq(hurray_ipc_producer_disconnect(ch.p, ch.cid, &err), HURRAY_ERR_INVALID_ARGUMENT);
  hurray_ipc_producer_destroy(&ch.p);
  ck_assert_int_eq(ch.rel.log.calls, 1);
  /* the producer is gone; the consumer's mapping is still readable */
  const uint8_t *bytes = hurray_ipc_received_buffer(r, 1)->data;
  for (uint64_t i = 0; i < 65536; i += 511) {
    ck_assert_uint_eq(bytes[i], pattern_byte(i));
  }
  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_ERR_IPC_PEER_GONE);
  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  hurray_ipc_received_free(&r); /* releases buffer 1 */
  hurray_ipc_consumer_destroy(&ch.c);
  leak_check(&probe);
}
END_TEST
int main(void) {
  return HURRAY_CHECK_MAIN_WITH(
      CK_NOFORK, "ipc_channel", "channel", 30, offer_accept_release, malformed_messages,
      wrong_number_of_fds, fds_of_the_wrong_kind, device_messages_that_do_not_match_the_offer,
      device_memory_without_plugins_is_rejected, byte_size_larger_than_segment,
      sealing_makes_the_bytes_immutable, producer_side_faults, wire_values_are_never_wildcards,
      consumer_rejects_offer, credentials_refused_both_sides, explicit_disconnect_reclaims,
      neutral_teardown_releases_each_once);
}
