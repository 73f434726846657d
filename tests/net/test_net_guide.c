/*
 * Runs the examples of docs/network.md: the receiver here, the sender in a
 * child forked before either side touches UCX, over loopback.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <stdint.h>

int receive_one(int port_fd);
int send_one(uint16_t port);
typedef struct hurray_net_connection hurray_net_connection;
int keep_for_large_tensors(hurray_net_connection *conn);

#include "network_examples.h"

#include <signal.h>
#include <sys/wait.h>

int main(void) {
  /* the guide's NET-RECV-9 example, on no connection: refused */
  if (keep_for_large_tensors(NULL) != -1) {
    return 1;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    return 1;
  }
  pid_t child = fork();
  if (child < 0) {
    return 1;
  }
  if (child == 0) {
    close(fds[1]);
    alarm(30); /* bounded: a hung sender dies */
    uint16_t port = 0;
    if (read(fds[0], &port, sizeof port) != (ssize_t)sizeof port) {
      _exit(2);
    }
    _exit(send_one(port));
  }
  close(fds[0]);
  int received = receive_one(fds[1]);
  close(fds[1]);
  int status = 0;
  if (received != 0) {
    kill(child, SIGKILL);
  }
  waitpid(child, &status, 0);
  if (received != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "guide examples: receiver %d, sender status 0x%x\n", received, status);
    return 1;
  }
  printf("docs/network.md examples: sender and receiver ran, every buffer released\n");
  return 0;
}
