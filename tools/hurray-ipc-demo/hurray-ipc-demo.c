/*
 * hurray-ipc-demo: one producer process hands a 64 MiB host buffer to one
 * consumer process without a copy (specs/ipc.md, docs/ipc.md). The producer
 * fills a sealed memfd, offers it, and prints each release as it arrives;
 * the consumer (this program again, started with --consumer ADDRESS) checks
 * every byte through its read-only mapping and releases.
 *
 *   hurray-ipc-demo [MiB]          the producer (default 64 MiB)
 *   hurray-ipc-demo --consumer ADDRESS MiB
 * Exit status 0 when the bytes arrived intact and the release came back.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hurray/ipc.h"

static uint8_t byte_at(uint64_t i) { return (uint8_t)((i ^ (i >> 13)) * 29u); }

static int fail(const char *who, const hurray_error *err) {
  char msg[256];
  hurray_error_format(err, msg, sizeof msg);
  fprintf(stderr, "hurray-ipc-demo %s: %s (%s)\n", who, hurray_status_name(err->status), msg);
  return 1;
}

static int consumer(const char *address, uint64_t size) {
  hurray_ipc_consumer *c = NULL;
  hurray_ipc_received *r = NULL;
  hurray_error err;
  if (hurray_ipc_consumer_connect(address, NULL, &c, &err) != HURRAY_OK ||
      hurray_ipc_consumer_receive(c, 10000, &r, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  const hurray_accepted_buffer *b = hurray_ipc_received_buffer(r, 0);
  const uint8_t *bytes = b->data;
  for (uint64_t i = 0; i < size; i++) {
    if (bytes[i] != byte_at(i)) {
      fprintf(stderr, "hurray-ipc-demo consumer: byte %" PRIu64 " differs\n", i);
      return 1;
    }
  }
  printf("consumer pid %d: offer %" PRIu64 ", %" PRIu64 " bytes mapped read-only at %p, "
         "every byte checked; releasing\n",
         (int)getpid(), hurray_ipc_received_offer_id(r), b->handle.byte_size, b->data);
  fflush(stdout);
  if (hurray_ipc_received_release(r, 0, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  hurray_ipc_received_free(&r);
  hurray_ipc_consumer_destroy(&c);
  return 0;
}

typedef struct demo_state {
  int released;
  void *data;
  uint64_t size;
} demo_state;

static void on_event(const hurray_ipc_event *ev, void *ctx) {
  (void)ctx;
  if (ev->kind == HURRAY_IPC_EVENT_CONNECTED) {
    printf("producer: consumer %" PRIu64 " connected (pid %d, uid %u)\n", ev->consumer_id,
           (int)ev->pid, ev->uid);
  } else if (ev->kind == HURRAY_IPC_EVENT_RELEASED) {
    printf("producer: release from consumer pid %d: offer %" PRIu64 " buffer %u\n", (int)ev->pid,
           ev->offer_id, ev->buffer_index);
  } else if (ev->kind == HURRAY_IPC_EVENT_GONE) {
    printf("producer: consumer pid %d left (%" PRIu64 " holds reclaimed)\n", (int)ev->pid,
           ev->value);
  }
  fflush(stdout);
}

static void on_release(void *buffer, void *ctx) {
  demo_state *s = ctx;
  s->released++;
  printf("producer: last reference gone, release callback called; unmapping %p\n", buffer);
  fflush(stdout);
  munmap(buffer, s->size);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--consumer") == 0) {
    return consumer(argv[2], strtoull(argv[3], NULL, 10) << 20);
  }
  uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64u;
  uint64_t size = mib << 20;
  char address[64];
  snprintf(address, sizeof address, "@hurray-ipc-demo-%d", (int)getpid());
  hurray_error err;
  hurray_ipc_producer_options po;
  memset(&po, 0, sizeof po);
  po.struct_size = sizeof po;
  po.on_event = on_event;
  hurray_ipc_producer *p = NULL;
  if (hurray_ipc_producer_listen(address, &po, &p, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  int fd = -1;
  void *data = NULL;
  if (hurray_ipc_segment_create(size, &fd, &data, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  uint8_t *bytes = data;
  for (uint64_t i = 0; i < size; i++) {
    bytes[i] = byte_at(i);
  }
  if (hurray_ipc_segment_seal(fd, data, size, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  printf("producer pid %d: %" PRIu64 " MiB written to a memfd, sealed (shrink, grow, "
         "future-write, seal), listening on %s\n",
         (int)getpid(), mib, address);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    char mib_text[32];
    snprintf(mib_text, sizeof mib_text, "%" PRIu64, mib);
    execl("/proc/self/exe", argv[0], "--consumer", address, mib_text, (char *)NULL);
    _exit(127);
  }
  uint64_t cid = 0;
  demo_state state = {0, data, size};
  hurray_ipc_buffer_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  d.fd = fd;
  d.data = data;
  d.release = on_release;
  d.release_ctx = &state;
  hurray_ipc_shared *s = NULL;
  hurray_status st = hurray_ipc_producer_next_consumer(p, 10000, &cid, &err);
  if (st == HURRAY_OK) {
    st = hurray_buffer_handle_for_host_memory(data, size, HURRAY_PAGE_ALIGNMENT, &d.handle, &err);
  }
  if (st == HURRAY_OK) {
    st = hurray_ipc_producer_share(p, &d, &s, &err);
  }
  if (st == HURRAY_OK) {
    st = hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, &err);
  }
  if (st != HURRAY_OK) {
    return fail("producer", &err);
  }
  printf("producer: offered %" PRIu64 " bytes to consumer %" PRIu64 " (one fd, no copy)\n", size,
         cid);
  fflush(stdout);
  hurray_ipc_shared_retire(s);
  for (int i = 0; i < 200 && state.released == 0; i++) {
    (void)!hurray_ipc_producer_poll(p, 50, &err);
  }
  int status = 0;
  waitpid(child, &status, 0);
  hurray_ipc_producer_destroy(&p);
  if (state.released != 1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "hurray-ipc-demo: releases %d, consumer status 0x%x\n", state.released,
            status);
    return 1;
  }
  return 0;
}
