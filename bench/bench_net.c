/*
 * What the network transport costs (include/hurray/net.h, specs/network.md)
 * next to UCX's own ucx_perftest on the same transport and message size, in
 * the same run:
 *   throughput: tensors of one buffer of 1 MiB and 64 MiB (and 1 GiB with
 *     --1g) sent back to back from one reused, pre-touched source; our
 *     figure is the receiver's, from the first byte of the measured tensors
 *     to the last one freed, so it includes validating each table and
 *     finding each destination buffer: with NET-RECV-9's reuse (the
 *     default; the receiver's budget raised to the tensor's size for 1 GiB)
 *     a released buffer's memory, as ucx_perftest receives into one buffer;
 *     and, as the baseline of what reuse is worth, with reuse off
 *     (hurray_net_connection_set_reuse_bytes 0), where every tensor lands
 *     in new memory that is allocated and faulted in;
 *     ucx_perftest -t tag_bw with the same size;
 *   latency: a one-buffer 4 KiB tensor sent back and forth, half the round
 *     trip; ucx_perftest -t tag_lat -s 4096.
 * Over UCX_TLS=tcp and over shared memory (UCX_TLS=posix,sysv,cma,tcp with
 * HURRAY_NET_OPTION_SHARED_MEMORY), on 127.0.0.1. Each figure is the best of
 * three runs (interference on a shared machine only slows things down).
 *
 * Usage: bench_net [--1g]. Needs ucx_perftest (Debian ucx-utils) on PATH for
 * the baseline; without it the baseline column says so.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hurray/net.h"

extern char **environ;

enum { TIMEOUT_MS = 60000, RUNS = 3 };

typedef struct transport {
  const char *name;
  const char *tls;
  uint32_t flags;
} transport;

static const transport transports[] = {
    {"tcp", "tcp", 0u},
    {"shm", "posix,sysv,cma,tcp", HURRAY_NET_OPTION_SHARED_MEMORY},
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *who, const hurray_error *err) {
  char msg[512];
  hurray_error_format(err, msg, sizeof msg);
  fprintf(stderr, "bench_net %s: %s\n", who, msg);
  exit(1);
}

/* The sources: filled and touched before anything is timed, reused by every
 * send (as ucx_perftest reuses its buffer), so the figures time the
 * transport and the receiver, not the sender's page faults. */
static void *source_pool;
static uint64_t source_pool_bytes;
static uint64_t releases;

static void count_release(void *buffer, void *ctx) {
  (void)buffer;
  (void)ctx;
  releases++;
}

static void *source_of(uint64_t bytes) {
  if (source_pool_bytes < bytes) {
    free(source_pool);
    source_pool = NULL;
    if (posix_memalign(&source_pool, 4096, (size_t)bytes) != 0) {
      fprintf(stderr, "bench_net: out of memory\n");
      exit(1);
    }
    memset(source_pool, 0x5A, (size_t)bytes);
    source_pool_bytes = bytes;
  }
  return source_pool;
}

/* Sends one tensor of one host buffer of `bytes`. */
static void send_one(hurray_net_connection *conn, uint64_t bytes) {
  hurray_error err;
  void *data = source_of(bytes);
  hurray_buffer_handle handle;
  uint8_t table[1 + HURRAY_BUFFER_HANDLE_SIZE];
  size_t table_len = 0;
  if (hurray_buffer_handle_for_host_memory(data, bytes, 64, &handle, &err) != HURRAY_OK ||
      hurray_buffer_table_encode(&handle, 1, table, sizeof table, &table_len, &err) != HURRAY_OK) {
    die("table", &err);
  }
  hurray_net_source source = {
      .struct_size = (uint32_t)sizeof source, .data = data, .release = count_release};
  uint64_t id = 0;
  if (hurray_net_send(conn, table, table_len, &source, 1, TIMEOUT_MS, &id, &err) != HURRAY_OK) {
    die("send", &err);
  }
}

static void receive_one(hurray_net_connection *conn) {
  hurray_error err;
  hurray_net_received *tensor = NULL;
  if (hurray_net_receive(conn, TIMEOUT_MS, &tensor, &err) != HURRAY_OK) {
    die("receive", &err);
  }
  hurray_net_received_free(&tensor);
}

/* The receiving side (a child): listens, writes its port to `port_pipe`,
 * then for throughput receives one warm-up tensor and times `count` more,
 * writing the seconds to the pipe; for latency (count == 0) echoes
 * `rounds` tensors back. */
static int serve(const transport *t, int port_pipe, uint64_t count, uint64_t rounds, uint64_t bytes,
                 bool reuse) {
  hurray_error err;
  hurray_net_context *ctx = NULL;
  hurray_net_listener *listener = NULL;
  hurray_net_connection *conn = NULL;
  hurray_net_options options = {.struct_size = (uint32_t)sizeof options,
                                .flags = t->flags,
                                .max_tensor_bytes = UINT64_C(2) << 30};
  if (hurray_net_context_create(&ctx, &err) != HURRAY_OK ||
      hurray_net_listen(ctx, "127.0.0.1", 0, &listener, &err) != HURRAY_OK) {
    die("listen", &err);
  }
  uint16_t port = hurray_net_listener_port(listener);
  if (write(port_pipe, &port, sizeof port) != (ssize_t)sizeof port ||
      hurray_net_accept(listener, &options, TIMEOUT_MS, &conn, &err) != HURRAY_OK) {
    die("accept", &err);
  }
  uint64_t budget = bytes > HURRAY_NET_DEFAULT_REUSE_BYTES ? bytes : HURRAY_NET_DEFAULT_REUSE_BYTES;
  if (hurray_net_connection_set_reuse_bytes(conn, reuse ? budget : 0u, &err) != HURRAY_OK) {
    die("reuse", &err);
  }
  double seconds = 0.0;
  if (count > 0u) {
    receive_one(conn);
    double t0 = now_s();
    for (uint64_t i = 0; i < count; i++) {
      receive_one(conn);
    }
    seconds = now_s() - t0;
  } else {
    for (uint64_t i = 0; i < rounds; i++) {
      receive_one(conn);
      send_one(conn, bytes);
    }
  }
  if (write(port_pipe, &seconds, sizeof seconds) != (ssize_t)sizeof seconds) {
    return 1;
  }
  hurray_net_close(&conn);
  hurray_net_listener_destroy(&listener);
  hurray_net_context_destroy(&ctx);
  return 0;
}

/* One measurement with our transport: throughput in MB/s (MiB, as
 * ucx_perftest counts) when count > 0, else half the round trip in us. */
static double ours(const transport *t, uint64_t bytes, uint64_t count, uint64_t rounds,
                   bool reuse) {
  setenv("UCX_TLS", t->tls, 1);
  setenv("UCX_NET_DEVICES", "lo", 1);
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(1);
  }
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    _exit(serve(t, fds[1], count, rounds, bytes, reuse));
  }
  close(fds[1]);
  uint16_t port = 0;
  if (read(fds[0], &port, sizeof port) != (ssize_t)sizeof port) {
    fprintf(stderr, "bench_net: the receiver did not start\n");
    exit(1);
  }
  hurray_error err;
  hurray_net_context *ctx = NULL;
  hurray_net_connection *conn = NULL;
  hurray_net_options options = {.struct_size = (uint32_t)sizeof options,
                                .flags = t->flags,
                                .max_tensor_bytes = UINT64_C(2) << 30};
  (void)source_of(bytes);
  uint64_t releases_before = releases;
  if (hurray_net_context_create(&ctx, &err) != HURRAY_OK ||
      hurray_net_connect(ctx, "127.0.0.1", port, &options, &conn, &err) != HURRAY_OK) {
    die("connect", &err);
  }
  double result = 0.0;
  if (count > 0u) {
    for (uint64_t i = 0; i < count + 1u; i++) {
      send_one(conn, bytes);
    }
  } else {
    send_one(conn, bytes); /* one round to set everything up */
    receive_one(conn);
    double t0 = now_s();
    for (uint64_t i = 1; i < rounds; i++) {
      send_one(conn, bytes);
      receive_one(conn);
    }
    result = (now_s() - t0) / (double)(rounds - 1u) / 2.0 * 1e6;
  }
  double seconds = 0.0;
  if (read(fds[0], &seconds, sizeof seconds) != (ssize_t)sizeof seconds) {
    fprintf(stderr, "bench_net: the receiver failed\n");
    exit(1);
  }
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  hurray_net_close(&conn);
  hurray_net_context_destroy(&ctx);
  uint64_t sends = count > 0u ? count + 1u : rounds;
  if (releases - releases_before != sends) { /* NET-SEND-3: each source released once */
    fprintf(stderr, "bench_net: %" PRIu64 " sends, %" PRIu64 " releases\n", sends,
            releases - releases_before);
    exit(1);
  }
  if (count > 0u) {
    result = (double)bytes * (double)count / seconds / (1024.0 * 1024.0);
  }
  return result;
}

/* ucx_perftest's figure for the same test: bandwidth (MB/s, overall) for
 * tag_bw, latency (us, average) for tag_lat; < 0 when it cannot be run. */
static double perftest(const transport *t, const char *test, uint64_t bytes, uint64_t iterations,
                       int port) {
  setenv("UCX_TLS", t->tls, 1);
  setenv("UCX_NET_DEVICES", "lo", 1);
  char port_text[16];
  char size_text[32];
  char iterations_text[32];
  snprintf(port_text, sizeof port_text, "%d", port);
  snprintf(size_text, sizeof size_text, "%" PRIu64, bytes);
  snprintf(iterations_text, sizeof iterations_text, "%" PRIu64, iterations);
  char program[] = "ucx_perftest";
  char p_flag[] = "-p";
  char t_flag[] = "-t";
  char s_flag[] = "-s";
  char n_flag[] = "-n";
  char host[] = "127.0.0.1";
  char test_name[16];
  snprintf(test_name, sizeof test_name, "%s", test);
  char *server_argv[] = {program, p_flag, port_text, NULL};
  char *client_argv[] = {program, host,      p_flag, port_text,       t_flag, test_name,
                         s_flag,  size_text, n_flag, iterations_text, NULL};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  pid_t server;
  if (posix_spawnp(&server, program, &quiet, NULL, server_argv, environ) != 0) {
    posix_spawn_file_actions_destroy(&quiet);
    return -1.0;
  }
  posix_spawn_file_actions_destroy(&quiet);
  struct timespec pause = {0, 300000000};
  nanosleep(&pause, NULL);
  int out[2];
  if (pipe(out) != 0) {
    return -1.0;
  }
  posix_spawn_file_actions_t capture;
  posix_spawn_file_actions_init(&capture);
  posix_spawn_file_actions_adddup2(&capture, out[1], 1);
  posix_spawn_file_actions_addclose(&capture, out[0]);
  pid_t client;
  int spawned = posix_spawnp(&client, program, &capture, NULL, client_argv, environ);
  posix_spawn_file_actions_destroy(&capture);
  close(out[1]);
  double figure = -1.0;
  if (spawned == 0) {
    FILE *f = fdopen(out[0], "r");
    char line[1024];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      double v[7];
      if (sscanf(line, " Final: %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
                 &v[5], &v[6]) == 7) {
        figure = strcmp(test, "tag_lat") == 0 ? v[2] : v[5];
      }
    }
    if (f != NULL) {
      fclose(f);
    }
    waitpid(client, NULL, 0);
  } else {
    close(out[0]);
  }
  kill(server, SIGTERM);
  waitpid(server, NULL, 0);
  return figure;
}

static double best(double a, double b, bool larger) {
  if (a < 0.0) {
    return b;
  }
  return larger ? (a > b ? a : b) : (a < b ? a : b);
}

int main(int argc, char **argv) {
  bool gib = argc > 1 && strcmp(argv[1], "--1g") == 0;
  const uint64_t sizes[] = {UINT64_C(1) << 20, UINT64_C(64) << 20, UINT64_C(1) << 30};
  const uint64_t counts[] = {200, 10, 2};
  size_t size_count = gib ? 3u : 2u;
  int port = 13300 + (int)(getpid() % 500);
  printf("bench_net: libhurray over UCX vs ucx_perftest, same transport and size, best of %d\n",
         RUNS);
  for (size_t t = 0; t < sizeof transports / sizeof transports[0]; t++) {
    const transport *tr = &transports[t];
    for (size_t s = 0; s < size_count; s++) {
      double mine = -1.0;
      double fresh = -1.0;
      double theirs = -1.0;
      for (int r = 0; r < RUNS; r++) {
        mine = best(mine, ours(tr, sizes[s], counts[s], 0, true), true);
        fresh = best(fresh, ours(tr, sizes[s], counts[s], 0, false), true);
        theirs = best(theirs, perftest(tr, "tag_bw", sizes[s], counts[s] * 2u, port++), true);
      }
      printf("%-4s throughput %5" PRIu64
             " MiB tensors: libhurray %9.1f MB/s (reuse off %9.1f, "
             "x%.2f)   ",
             tr->name, sizes[s] >> 20, mine, fresh, mine / fresh);
      if (theirs > 0.0) {
        printf("ucx_perftest %9.1f MB/s   ratio %.3f\n", theirs, mine / theirs);
      } else {
        printf("ucx_perftest not run (not on PATH or failed)\n");
      }
    }
    double mine = -1.0;
    double theirs = -1.0;
    for (int r = 0; r < RUNS; r++) {
      mine = best(mine, ours(tr, 4096, 0, 2001, true), false);
      theirs = best(theirs, perftest(tr, "tag_lat", 4096, 2000, port++), false);
    }
    printf(
        "%-4s latency 4 KiB one-buffer tensor: libhurray %7.1f us   ucx_perftest %7.1f us   "
        "ratio %.2f\n",
        tr->name, mine, theirs, theirs > 0.0 ? mine / theirs : 0.0);
  }
  return 0;
}
