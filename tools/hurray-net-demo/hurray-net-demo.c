/*
 * hurray-net-demo: one tensor from a sender process to a receiver process
 * over UCX (include/hurray/net.h, specs/network.md, docs/network.md).
 *
 *   hurray-net-demo receive ADDRESS PORT_FILE   listen on ADDRESS (port 0),
 *       write the port to PORT_FILE, take one tensor, print what was
 *       validated and where each buffer was placed, check every byte
 *   hurray-net-demo send ADDRESS PORT [MIB]     send a tensor of a MIB-MiB
 *       (default 4) data buffer and a 4 KiB scales buffer
 *   hurray-net-demo loopback [MIB]              both, in two processes, on
 *       127.0.0.1 (what tools/demo runs)
 *
 * Used by tools/demo (loopback) and tests/net/test_net_netns.sh (across two
 * network namespaces joined by a veth pair). Exit status 0 when the
 * receiver got every byte as sent, 1 otherwise, 2 on a usage error.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hurray/net.h"

enum { SCALES_BYTES = 4096, TIMEOUT_MS = 20000 };

/* Byte j of buffer i, as sent; the receiver checks every one. */
static unsigned char pattern(size_t buffer, uint64_t j) {
  return (unsigned char)(j * 7u + buffer * 101u + 3u);
}

static int report(const char *who, const hurray_error *err) {
  char msg[512];
  hurray_error_format(err, msg, sizeof msg);
  fprintf(stderr, "%s: %s\n", who, msg);
  return 1;
}

static int receive(const char *address, const char *port_file) {
  hurray_error err;
  hurray_net_context *ctx = NULL;
  hurray_net_listener *listener = NULL;
  hurray_net_connection *conn = NULL;
  hurray_net_received *tensor = NULL;
  int rc = 1;
  if (hurray_net_context_create(&ctx, &err) != HURRAY_OK ||
      hurray_net_listen(ctx, address, 0, &listener, &err) != HURRAY_OK) {
    rc = report("receiver", &err);
    goto out;
  }
  /* Written whole, then renamed: a reader never sees half a port. */
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.tmp", port_file);
  FILE *f = fopen(temporary, "w");
  if (f == NULL || fprintf(f, "%u\n", (unsigned)hurray_net_listener_port(listener)) < 0 ||
      fclose(f) != 0 || rename(temporary, port_file) != 0) {
    perror("receiver: port file");
    goto out;
  }
  printf("receiver: listening on %s port %u\n", address,
         (unsigned)hurray_net_listener_port(listener));
  hurray_net_options limits = {.struct_size = (uint32_t)sizeof limits,
                               .max_tensor_bytes = UINT64_C(1) << 30};
  if (hurray_net_accept(listener, &limits, TIMEOUT_MS, &conn, &err) != HURRAY_OK ||
      hurray_net_receive(conn, TIMEOUT_MS, &tensor, &err) != HURRAY_OK) {
    rc = report("receiver", &err);
    goto out;
  }
  size_t count = hurray_net_received_count(tensor);
  printf("receiver: tensor %" PRIu64
         " validated (table decoded, network rule, colocation): "
         "%zu buffers, over the UCX lanes:\n",
         hurray_net_received_tensor_id(tensor), count);
  /* UCX's endpoint description, its "lane[...]" lines only. */
  char description[4096];
  hurray_net_connection_describe(conn, description, sizeof description);
  for (char *line = strtok(description, "\n"); line != NULL; line = strtok(NULL, "\n")) {
    char *lane = strstr(line, "lane[");
    if (lane != NULL) {
      printf("receiver:   %s\n", lane);
    }
  }
  bool all_right = count == 2u;
  for (size_t i = 0; i < count; i++) {
    const hurray_accepted_buffer *b = hurray_net_received_buffer(tensor, i);
    char device[24];
    char memory_class[24];
    hurray_device_tag_display(b->handle.device_tag, device, sizeof device);
    hurray_memory_class_display(b->handle.memory_class, memory_class, sizeof memory_class);
    uint64_t wrong = 0;
    const unsigned char *bytes = b->data;
    for (uint64_t j = 0; j < b->handle.byte_size; j++) {
      wrong += bytes[j] != pattern(i, j);
    }
    printf("receiver:   buffer %zu: %" PRIu64
           " bytes, %s %s, aligned to %u, "
           "producer_synced, placed at %p (this process's host memory): %s\n",
           i, b->handle.byte_size, device, memory_class, (unsigned)b->handle.alignment, b->data,
           wrong == 0u ? "every byte as sent" : "BYTES DIFFER");
    all_right = all_right && wrong == 0u;
  }
  hurray_net_received_free(&tensor); /* releases each buffer once */
  rc = all_right ? 0 : 1;
out:
  hurray_net_close(&conn);
  hurray_net_listener_destroy(&listener);
  hurray_net_context_destroy(&ctx);
  return rc;
}

static void free_source(void *buffer, void *ctx) {
  (void)ctx;
  free(buffer);
}

static int send_tensor(const char *address, uint16_t port, uint64_t mib) {
  hurray_error err;
  hurray_net_context *ctx = NULL;
  hurray_net_connection *conn = NULL;
  int rc = 1;
  const uint64_t sizes[2] = {mib << 20, SCALES_BYTES};
  hurray_buffer_handle handles[2];
  hurray_net_source sources[2];
  void *data[2] = {NULL, NULL};
  for (size_t i = 0; i < 2; i++) {
    if (posix_memalign(&data[i], 64, (size_t)sizes[i]) != 0) {
      fprintf(stderr, "sender: out of memory\n");
      goto out;
    }
    unsigned char *bytes = data[i];
    for (uint64_t j = 0; j < sizes[i]; j++) {
      bytes[j] = pattern(i, j);
    }
    if (hurray_buffer_handle_for_host_memory(data[i], sizes[i], 64, &handles[i], &err) !=
        HURRAY_OK) {
      rc = report("sender", &err);
      goto out;
    }
    sources[i] = (hurray_net_source){.struct_size = (uint32_t)sizeof(hurray_net_source),
                                     .data = data[i],
                                     .release = free_source};
  }
  uint8_t table[1 + 2 * HURRAY_BUFFER_HANDLE_SIZE];
  size_t table_len = 0;
  if (hurray_buffer_table_encode(handles, 2, table, sizeof table, &table_len, &err) != HURRAY_OK ||
      hurray_net_context_create(&ctx, &err) != HURRAY_OK ||
      hurray_net_connect(ctx, address, port, NULL, &conn, &err) != HURRAY_OK) {
    rc = report("sender", &err);
    goto out;
  }
  uint64_t id = 0;
  hurray_status s = hurray_net_send(conn, table, table_len, sources, 2, TIMEOUT_MS, &id, &err);
  data[0] = data[1] = NULL; /* the send owns them now: released exactly once */
  if (s != HURRAY_OK) {
    rc = report("sender", &err);
    goto out;
  }
  printf("sender: tensor %" PRIu64 " sent to %s port %u: %" PRIu64 " + %u bytes\n", id, address,
         (unsigned)port, sizes[0], (unsigned)SCALES_BYTES);
  rc = 0;
out:
  free(data[0]);
  free(data[1]);
  hurray_net_close(&conn);
  hurray_net_context_destroy(&ctx);
  return rc;
}

static int read_port(const char *port_file, uint16_t *port) {
  for (int tries = 0; tries < 2000; tries++) {
    FILE *f = fopen(port_file, "r");
    unsigned value = 0;
    if (f != NULL) {
      int n = fscanf(f, "%u", &value);
      fclose(f);
      if (n == 1 && value > 0u && value <= 65535u) {
        *port = (uint16_t)value;
        return 0;
      }
    }
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
  }
  fprintf(stderr, "hurray-net-demo: no port in %s after 20 s\n", port_file);
  return 1;
}

static int loopback(uint64_t mib) {
  char dir[] = "/tmp/hurray-net-demo-XXXXXX";
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  char port_file[sizeof dir + 16];
  snprintf(port_file, sizeof port_file, "%s/port", dir);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    int received = receive("127.0.0.1", port_file);
    fflush(stdout); /* _exit flushes nothing */
    _exit(received);
  }
  uint16_t port = 0;
  int rc = read_port(port_file, &port);
  if (rc == 0) {
    rc = send_tensor("127.0.0.1", port, mib);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    rc = 1;
  }
  unlink(port_file);
  rmdir(dir);
  return rc;
}

static int usage(void) {
  fprintf(stderr,
          "usage: hurray-net-demo receive ADDRESS PORT_FILE\n"
          "       hurray-net-demo send ADDRESS PORT [MIB]\n"
          "       hurray-net-demo loopback [MIB]\n");
  return 2;
}

static int parse_mib(const char *text, uint64_t *out) {
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (end == text || *end != '\0' || value == 0u || value > 1024u) {
    return usage();
  }
  *out = value;
  return 0;
}

int main(int argc, char **argv) {
  uint64_t mib = 4;
  if (argc == 4 && strcmp(argv[1], "receive") == 0) {
    return receive(argv[2], argv[3]);
  }
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "send") == 0) {
    char *end = NULL;
    unsigned long port = strtoul(argv[3], &end, 10);
    if (end == argv[3] || *end != '\0' || port == 0u || port > 65535u ||
        (argc == 5 && parse_mib(argv[4], &mib) != 0)) {
      return usage();
    }
    return send_tensor(argv[2], (uint16_t)port, mib);
  }
  if ((argc == 2 || argc == 3) && strcmp(argv[1], "loopback") == 0) {
    if (argc == 3 && parse_mib(argv[2], &mib) != 0) {
      return 2;
    }
    return loopback(mib);
  }
  return usage();
}
