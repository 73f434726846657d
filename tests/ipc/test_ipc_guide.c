/*
 * Runs the examples of docs/ipc.md: the producer in a child process, the
 * consumer here, so the guide cannot drift from the library.
 * SPDX-License-Identifier: Apache-2.0
 */
int produce(const char *address);
int consume(const char *address);
#include "hurray/ipc.h"
#include "hurray/plugin.h"
int produce_device(hurray_ipc_producer *producer, uint64_t consumer_id, hurray_plugin *plugin);
int consume_device(const char *address, hurray_plugin_registry *plugins);
int produce_device_event(hurray_ipc_producer *producer, uint64_t consumer_id,
                         hurray_plugin *plugin);
int consume_device_event(const char *address, hurray_plugin_registry *plugins);

#include "ipc_examples.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A device example of docs/ipc.md ("Device memory", "Events") with the
 * plugin at `file`: the producer in a child process, the consumer here. */
typedef int (*produce_fn)(hurray_ipc_producer *, uint64_t, hurray_plugin *);
typedef int (*consume_fn)(const char *, hurray_plugin_registry *);

static int run_device_example(const char *file, const char *what, produce_fn produce_with,
                              consume_fn consume_with) {
  char address[64];
  static int runs;
  snprintf(address, sizeof address, "@hurray-guide-device-%d-%d", (int)getpid(), ++runs);
  pid_t child = fork();
  if (child < 0) {
    return 1;
  }
  if (child == 0) {
    alarm(20);
    hurray_error err;
    hurray_plugin_registry *registry = NULL;
    hurray_plugin *plugin = NULL;
    hurray_ipc_producer *producer = NULL;
    uint64_t consumer_id = 0;
    if (hurray_plugin_registry_create(&registry, &err) != HURRAY_OK ||
        hurray_plugin_load(registry, file, 0, &plugin, &err) != HURRAY_OK ||
        hurray_ipc_producer_listen(address, NULL, &producer, &err) != HURRAY_OK ||
        hurray_ipc_producer_next_consumer(producer, 10000, &consumer_id, &err) != HURRAY_OK ||
        produce_with(producer, consumer_id, plugin) != 0) {
      _exit(2);
    }
    /* Until the consumer's release freed the buffer (the example's
     * callback) and, for the events example, the producer's event. */
    size_t buffers = 1;
    size_t events = 0;
    for (int i = 0; i < 200 && (buffers != 0 || events != 0); i++) {
      (void)!hurray_ipc_producer_poll(producer, 50, &err);
      (void)hurray_plugin_outstanding(plugin, &buffers, &events);
    }
    hurray_ipc_producer_destroy(&producer);
    hurray_plugin_registry_destroy(registry);
    _exit(buffers == 0 && events == 0 ? 0 : 3);
  }
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *loaded = NULL;
  int consumed = 1;
  if (hurray_plugin_registry_create(&plugins, &err) == HURRAY_OK &&
      hurray_plugin_load(plugins, file, 0, &loaded, &err) == HURRAY_OK) {
    for (int i = 0; i < 100 && consumed != 0; i++) {
      consumed = consume_with(address, plugins);
      if (consumed != 0) {
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
      }
    }
  }
  hurray_plugin_registry_destroy(plugins);
  int status = 0;
  if (consumed != 0) {
    kill(child, SIGKILL);
  }
  waitpid(child, &status, 0);
  if (consumed != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "guide %s example: consumer %d, producer status 0x%x\n", what, consumed,
            status);
    return 1;
  }
  printf("docs/ipc.md %s example (%s): imported, read, released, freed\n", what, file);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 &&
      run_device_example(argv[1], "device memory", produce_device, consume_device) != 0) {
    return 1;
  }
  if (argc > 2 &&
      run_device_example(argv[2], "events", produce_device_event, consume_device_event) != 0) {
    return 1;
  }
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
