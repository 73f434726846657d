/*
 * Cross-process handoff latency of the IPC transport (specs/ipc.md):
 * offer -> the consumer holds a readable pointer -> the producer has the
 * release, for buffers of 4 KiB, 1 MiB, 64 MiB (and 1 GiB with --1g), next
 * to the baseline a naive transport pays: the same bytes sent through a
 * socket and read into the consumer's memory, measured in the same run.
 * Back to back, an offer also waits for the consumer to finish the previous
 * release (its unmap); the idle column pauses before each offer, so the
 * consumer is waiting, as for a producer that offers now and then.
 * Printed, never asserted.
 *
 *   bench_ipc [--1g] [--rounds N]
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hurray/ipc.h"

/* Long enough for the consumer to finish the previous release. */
enum { IDLE_PAUSE_US = 300 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  return v[n / 2];
}

/* Child: receive offers, touch first and last byte, release, until the
 * producer hangs up. */
static void consumer_loop(int fd) {
  hurray_ipc_consumer *c = NULL;
  hurray_error err;
  if (hurray_ipc_consumer_from_socket(fd, NULL, &c, &err) != HURRAY_OK) {
    _exit(2);
  }
  volatile uint8_t sink = 0;
  for (;;) {
    hurray_ipc_received *r = NULL;
    hurray_status st = hurray_ipc_consumer_receive(c, -1, &r, &err);
    if (st == HURRAY_ERR_IPC_PEER_GONE || st == HURRAY_ERR_IPC_REFUSED) {
      _exit(0);
    }
    if (st != HURRAY_OK) {
      _exit(3);
    }
    const hurray_accepted_buffer *b = hurray_ipc_received_buffer(r, 0);
    const uint8_t *bytes = b->data;
    sink = (uint8_t)(sink + bytes[0] + bytes[b->handle.byte_size - 1]);
    (void)!hurray_ipc_received_release(r, 0, &err);
    hurray_ipc_received_free(&r);
  }
}

/* Child: read `size` bytes into its own memory per round, answer one byte. */
static void copy_loop(int fd, uint64_t size) {
  uint8_t *buf = malloc((size_t)size);
  if (buf == NULL) {
    _exit(4);
  }
  for (;;) {
    uint64_t got = 0;
    while (got < size) {
      ssize_t n = read(fd, buf + got, (size_t)(size - got));
      if (n <= 0) {
        _exit(0);
      }
      got += (uint64_t)n;
    }
    uint8_t ack = buf[size - 1];
    if (write(fd, &ack, 1) != 1) {
      _exit(5);
    }
  }
}

typedef struct counted {
  int released;
} counted;

static void on_event(const hurray_ipc_event *ev, void *ctx) {
  if (ev->kind == HURRAY_IPC_EVENT_RELEASED) {
    ((counted *)ctx)->released++;
  }
}

static void on_release(void *buffer, void *ctx) { munmap(buffer, *(size_t *)ctx); }

static double bench_handoff(uint64_t size, int rounds, int pause_us) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    exit(1);
  }
  pid_t child = fork();
  if (child == 0) {
    close(sv[0]);
    consumer_loop(sv[1]);
  }
  close(sv[1]);
  counted seen = {0};
  hurray_ipc_producer_options po;
  memset(&po, 0, sizeof po);
  po.struct_size = sizeof po;
  po.on_event = on_event;
  po.event_ctx = &seen;
  hurray_ipc_producer *p = NULL;
  uint64_t cid = 0;
  hurray_error err;
  int fd = -1;
  void *data = NULL;
  size_t map_size = (size_t)size;
  hurray_ipc_buffer_desc d;
  memset(&d, 0, sizeof d);
  hurray_ipc_shared *s = NULL;
  if (hurray_ipc_producer_from_socket(sv[0], &po, &p, &cid, &err) != HURRAY_OK ||
      hurray_ipc_segment_create(size, &fd, &data, &err) != HURRAY_OK) {
    exit(1);
  }
  memset(data, 0x5A, (size_t)size);
  d.struct_size = sizeof d;
  d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  d.fd = fd;
  d.data = data;
  d.release = on_release;
  d.release_ctx = &map_size;
  if (hurray_ipc_segment_seal(fd, data, size, &err) != HURRAY_OK ||
      hurray_buffer_handle_for_host_memory(data, size, HURRAY_PAGE_ALIGNMENT, &d.handle, &err) !=
          HURRAY_OK ||
      hurray_ipc_producer_share(p, &d, &s, &err) != HURRAY_OK) {
    exit(1);
  }
  double *t = calloc((size_t)rounds, sizeof *t);
  for (int i = 0; i < rounds + 3; i++) {
    if (pause_us > 0) {
      usleep((useconds_t)pause_us);
    }
    double t0 = now_us();
    if (hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, &err) != HURRAY_OK) {
      exit(1);
    }
    int want = seen.released + 1;
    while (seen.released < want) {
      (void)!hurray_ipc_producer_poll(p, -1, &err);
    }
    double t1 = now_us();
    if (i >= 3) {
      t[i - 3] = t1 - t0; /* the first rounds warm the page tables and caches */
    }
  }
  hurray_ipc_shared_retire(s);
  hurray_ipc_producer_destroy(&p);
  waitpid(child, NULL, 0);
  double m = median(t, rounds);
  free(t);
  return m;
}

static double bench_copy(uint64_t size, int rounds) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    exit(1);
  }
  pid_t child = fork();
  if (child == 0) {
    close(sv[0]);
    copy_loop(sv[1], size);
  }
  close(sv[1]);
  uint8_t *buf = malloc((size_t)size);
  memset(buf, 0x5A, (size_t)size);
  double *t = calloc((size_t)rounds, sizeof *t);
  for (int i = 0; i < rounds + 1; i++) {
    double t0 = now_us();
    uint64_t sent = 0;
    while (sent < size) {
      ssize_t n = write(sv[0], buf + sent, (size_t)(size - sent));
      if (n <= 0) {
        exit(1);
      }
      sent += (uint64_t)n;
    }
    uint8_t ack;
    if (read(sv[0], &ack, 1) != 1) {
      exit(1);
    }
    double t1 = now_us();
    if (i >= 1) {
      t[i - 1] = t1 - t0;
    }
  }
  close(sv[0]);
  waitpid(child, NULL, 0);
  free(buf);
  double m = median(t, rounds);
  free(t);
  return m;
}

int main(int argc, char **argv) {
  int with_1g = 0;
  int rounds_arg = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--1g") == 0) {
      with_1g = 1;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds_arg = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: bench_ipc [--1g] [--rounds N]\n");
      return 2;
    }
  }
  const uint64_t sizes[] = {4096u, 1u << 20, 64u << 20, 1u << 30};
  const char *names[] = {"4 KiB", "1 MiB", "64 MiB", "1 GiB"};
  const int handoff_rounds[] = {2000, 500, 300, 300};
  const int copy_rounds[] = {2000, 200, 10, 3};
  int count = with_1g ? 4 : 3;
  printf(
      "IPC handoff (offer -> consumer holds a readable pointer -> producer has the release)\n"
      "vs. sending the same bytes through a socket into the consumer's memory; medians, "
      "one run\n\n");
  printf("%-8s %16s %16s %16s %12s\n", "size", "handoff (us)", "idle cons. (us)",
         "socket copy (us)", "copy/handoff");
  for (int k = 0; k < count; k++) {
    int hr = rounds_arg > 0 ? rounds_arg : handoff_rounds[k];
    int cr = rounds_arg > 0 ? rounds_arg : copy_rounds[k];
    double h = bench_handoff(sizes[k], hr, 0);
    double idle = bench_handoff(sizes[k], hr, IDLE_PAUSE_US);
    double c = bench_copy(sizes[k], cr);
    printf("%-8s %16.1f %16.1f %16.1f %11.1fx\n", names[k], h, idle, c, c / h);
    fflush(stdout);
  }
  if (!with_1g) {
    printf("\n(1 GiB: run with --1g; it needs about 3 GiB of memory)\n");
  }
  return 0;
}
