/*
 * Runs the examples of docs/ipc.md: the producer in a child process, the
 * consumer here, so the guide cannot drift from the library.
 * SPDX-License-Identifier: Apache-2.0
 */
int produce(const char *address);
int consume(const char *address);

#include "ipc_guide_examples.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  char address[64];
  snprintf(address, sizeof address, "@hurray-guide-%d", (int)getpid());
  pid_t child = fork();
  if (child < 0) {
    return 1;
  }
  if (child == 0) {
    alarm(20); /* bounded: a hung producer dies */
    _exit(produce(address));
  }
  int consumed = 1;
  /* The consumer may come before the producer listens: retry, bounded. */
  for (int i = 0; i < 100 && consumed != 0; i++) {
    consumed = consume(address);
    if (consumed != 0) {
      struct timespec pause = {0, 50 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
  int status = 0;
  if (consumed != 0) {
    kill(child, SIGKILL);
  }
  waitpid(child, &status, 0);
  if (consumed != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "guide examples: consumer %d, producer status 0x%x\n", consumed, status);
    return 1;
  }
  printf("docs/ipc.md examples: producer and consumer ran, buffer released\n");
  return 0;
}
