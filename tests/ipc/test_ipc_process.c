/*
 * The IPC transport across processes (fork): a consumer killed with SIGKILL
 * while it holds a buffer, a producer killed while a consumer maps its
 * segment, and two consumers of one buffer. Every wait is bounded; every
 * child is reaped. Counts of descriptors and mappings are checked in the
 * parent before and after (specs/ipc.md IPC-FLT-1, IPC-FLT-2, IPC-REL-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "ipc_test_support.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "check_main.h"

#define WAIT_MS 5000

/* Reads one byte from fd within WAIT_MS; returns it, or -1. */
static int read_byte(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, WAIT_MS) != 1) {
    return -1;
  }
  unsigned char b = 0;
  return read(fd, &b, 1) == 1 ? b : -1;
}

static void write_byte(int fd, unsigned char b) {
  if (write(fd, &b, 1) != 1) {
    _exit(90);
  }
}

/* Polls the producer until `kind` has happened `count` times or WAIT_MS passed. */
static void poll_until(hurray_ipc_producer *p, const event_log *log, uint32_t kind, int count) {
  for (int i = 0; i < WAIT_MS / 50 && events_of(log, kind) < count; i++) {
    hurray_error err;
    ck_assert_int_eq(hurray_ipc_producer_poll(p, 50, &err), HURRAY_OK);
  }
  ck_assert_int_eq(events_of(log, kind), count);
}

/* Child: connect, receive one offer, check its bytes, tell the parent
 * (byte 'm'), then release when the parent says so ('r') or wait to die. */
static void consumer_child(const char *address, int to_parent, int from_parent, uint64_t size) {
  hurray_ipc_consumer *c = NULL;
  hurray_error err;
  if (hurray_ipc_consumer_connect(address, NULL, &c, &err) != HURRAY_OK) {
    _exit(10);
  }
  hurray_ipc_received *r = NULL;
  if (hurray_ipc_consumer_receive(c, WAIT_MS, &r, &err) != HURRAY_OK) {
    _exit(11);
  }
  const uint8_t *bytes = hurray_ipc_received_buffer(r, 0)->data;
  for (uint64_t i = 0; i < size; i += 997) {
    if (bytes[i] != pattern_byte(i)) {
      _exit(12);
    }
  }
  write_byte(to_parent, 'm');
  if (read_byte(from_parent) != 'r') {
    _exit(13);
  }
  if (hurray_ipc_received_release(r, 0, &err) != HURRAY_OK) {
    _exit(14);
  }
  hurray_ipc_received_free(&r);
  hurray_ipc_consumer_destroy(&c);
  _exit(0);
}

static pid_t spawn_consumer(const char *address, int *to_child, int *from_child, uint64_t size) {
  int up[2];
  int down[2];
  ck_assert_int_eq(pipe(up), 0);
  ck_assert_int_eq(pipe(down), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(up[0]);
    close(down[1]);
    consumer_child(address, up[1], down[0], size);
  }
  close(up[1]);
  close(down[0]);
  *to_child = down[1];
  *from_child = up[0];
  return pid;
}

static int reap(pid_t pid) {
  int status = 0;
  for (int i = 0; i < WAIT_MS / 10; i++) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      return status;
    }
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  ck_abort_msg("child %d did not finish in time", (int)pid);
  return status;
}

/* A test's producer, listening on an abstract address of its own, with
 * the log of the events it reports and the test's leak probe. */
typedef struct listening_test {
  leak_probe probe;
  char address[64];
  event_log events;
  hurray_ipc_producer *producer;
} listening_test;

/* Starts the leak probe (named `what`), then the producer (its address
 * made from `tag`). */
static void start_listening(listening_test *t, const char *what, const char *tag) {
  t->probe = leak_start(what);
  memset(&t->events, 0, sizeof t->events);
  t->producer = listening_producer(t->address, sizeof t->address, tag, &t->events, 0);
}

START_TEST(sigkilled_consumer_is_reclaimed_once) {  // IPC-FLT-1
  listening_test t;
  start_listening(&t, "SIGKILLed consumer (producer side)", "kill");
  hurray_error err;
  const uint64_t size = 1u << 20;
  int to_child = -1;
  int from_child = -1;
  pid_t child = spawn_consumer(t.address, &to_child, &from_child, size);
  uint64_t cid = 0;
  ck_assert_int_eq(hurray_ipc_producer_next_consumer(t.producer, WAIT_MS, &cid, &err), HURRAY_OK);
  void *data = NULL;
  mapped_release rel = {{0, NULL}, size};
  hurray_ipc_shared *s = share_segment(t.producer, size, &data, unmap_release, &rel);
  ck_assert_int_eq(hurray_ipc_producer_offer(t.producer, cid, &s, 1, 0, NULL, &err), HURRAY_OK);
  hurray_ipc_shared_retire(s);
  ck_assert_int_eq(read_byte(from_child), 'm'); /* the child maps and has read the bytes */
  hurray_ipc_hold holds[2];
  size_t n = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(t.producer, holds, 2, &n, &err), HURRAY_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(holds[0].pid, child);
  ck_assert_int_eq(kill(child, SIGKILL), 0);
  int status = reap(child);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  poll_until(t.producer, &t.events, HURRAY_IPC_EVENT_GONE, 1);
  const hurray_ipc_event *gone = last_event(&t.events, HURRAY_IPC_EVENT_GONE);
  ck_assert_int_eq(gone->pid, child);
  ck_assert_uint_eq(gone->value, 1); /* one hold reclaimed */
  ck_assert_int_eq(rel.log.calls, 1);
  ck_assert_int_eq(hurray_ipc_producer_poll(t.producer, 100, &err), HURRAY_OK);
  ck_assert_int_eq(events_of(&t.events, HURRAY_IPC_EVENT_GONE), 1); /* exactly once */
  ck_assert_int_eq(rel.log.calls, 1);
  ck_assert_int_eq(hurray_ipc_producer_holds(t.producer, holds, 2, &n, &err), HURRAY_OK);
  ck_assert_uint_eq(n, 0);
  hurray_ipc_producer_destroy(&t.producer);
  ck_assert_int_eq(rel.log.calls, 1);
  close(to_child);
  close(from_child);
  leak_check(&t.probe);
}
END_TEST

START_TEST(killed_producer_leaves_mappings_valid) {  // IPC-FLT-2
  leak_probe probe = leak_start("killed producer (consumer side)");
  int sv[2];
  socket_pair(sv);
  int up[2];
  ck_assert_int_eq(pipe(up), 0);
  const uint64_t size = 4u << 20;
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    close(sv[1]);
    close(up[0]);
    hurray_ipc_producer *p = NULL;
    uint64_t cid = 0;
    hurray_error err;
    if (hurray_ipc_producer_from_socket(sv[0], NULL, &p, &cid, &err) != HURRAY_OK) {
      _exit(20);
    }
    void *data = NULL;
    int fd = make_segment(size, &data);
    release_log rel = {0, NULL};
    hurray_ipc_buffer_desc d = host_desc(fd, size, data, count_release, &rel);
    hurray_ipc_shared *s = NULL;
    if (hurray_ipc_producer_share(p, &d, &s, &err) != HURRAY_OK ||
        hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, &err) != HURRAY_OK) {
      _exit(21);
    }
    write_byte(up[1], 'o');
    for (;;) {
      pause();
    }
  }
  close(sv[0]);
  close(up[1]);
  hurray_ipc_consumer *c = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_consumer_from_socket(sv[1], NULL, &c, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_consumer_producer_pid(c), child);
  ck_assert_int_eq(read_byte(up[0]), 'o');
  hurray_ipc_received *r = NULL;
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, WAIT_MS, &r, &err), HURRAY_OK);
  ck_assert_int_eq(kill(child, SIGKILL), 0);
  int status = reap(child);
  ck_assert(WIFSIGNALED(status));
  const uint8_t *bytes = hurray_ipc_received_buffer(r, 0)->data;
  for (uint64_t i = 0; i < size; i += 4099) {
    ck_assert_uint_eq(bytes[i], pattern_byte(i));
  }
  ck_assert_uint_eq(bytes[size - 1], pattern_byte(size - 1));
  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_ERR_IPC_PEER_GONE);
  ck_assert_uint_eq(err.value, (uint64_t)child);
  ck_assert_int_eq(hurray_ipc_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  /* the next receive sees the hang-up */
  ck_assert_int_eq(hurray_ipc_consumer_receive(c, WAIT_MS, &r, &err), HURRAY_ERR_IPC_PEER_GONE);
  hurray_ipc_received_free(&r);
  hurray_ipc_consumer_destroy(&c);
  close(up[0]);
  leak_check(&probe);
}
END_TEST

START_TEST(two_consumers_release_in_turn) {  // IPC-REL-2, IPC-CHAN-2, BP-OWN-5
  listening_test t;
  start_listening(&t, "two consumer processes, one buffer", "two");
  hurray_error err;
  const uint64_t size = 1u << 20;
  int to[2];
  int from[2];
  pid_t kids[2];
  uint64_t cids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = spawn_consumer(t.address, &to[k], &from[k], size);
    ck_assert_int_eq(hurray_ipc_producer_next_consumer(t.producer, WAIT_MS, &cids[k], &err),
                     HURRAY_OK);
  }
  void *data = NULL;
  mapped_release rel = {{0, NULL}, size};
  hurray_ipc_shared *s = share_segment(t.producer, size, &data, unmap_release, &rel);
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(hurray_ipc_producer_offer(t.producer, cids[k], &s, 1, 0, NULL, &err),
                     HURRAY_OK);
  }
  hurray_ipc_shared_retire(s);
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(read_byte(from[k]), 'm');
  }
  write_byte(to[0], 'r');
  poll_until(t.producer, &t.events, HURRAY_IPC_EVENT_RELEASED, 1);
  ck_assert_int_eq(rel.log.calls, 0); /* the second consumer still holds it */
  write_byte(to[1], 'r');
  poll_until(t.producer, &t.events, HURRAY_IPC_EVENT_RELEASED, 2);
  ck_assert_int_eq(rel.log.calls, 1);
  for (int k = 0; k < 2; k++) {
    int status = reap(kids[k]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "consumer %d: status 0x%x", k,
                  status);
    close(to[k]);
    close(from[k]);
  }
  poll_until(t.producer, &t.events, HURRAY_IPC_EVENT_GONE, 2);
  ck_assert_uint_eq(last_event(&t.events, HURRAY_IPC_EVENT_GONE)->value, 0);
  hurray_ipc_producer_destroy(&t.producer);
  ck_assert_int_eq(rel.log.calls, 1);
  leak_check(&t.probe);
}
END_TEST

START_TEST(filesystem_address) {  // IPC-CHAN-1
  leak_probe probe = leak_start("filesystem address");
  char dir[] = "/tmp/hurray ipc XXXXXX"; /* a path with a space */
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char address[128];
  snprintf(address, sizeof address, "%s/sock", dir);
  event_log events = {0};
  hurray_ipc_producer_options po = producer_options(&events);
  hurray_ipc_producer *p = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_listen(address, &po, &p, &err), HURRAY_OK);
  ck_assert_int_eq(access(address, F_OK), 0);
  hurray_ipc_producer *again = NULL;
  ck_assert_int_eq(hurray_ipc_producer_listen(address, &po, &again, &err), HURRAY_ERR_IO);
  ck_assert_uint_eq(err.value, EADDRINUSE);
  int to = -1;
  int from = -1;
  pid_t kid = spawn_consumer(address, &to, &from, 4096);
  uint64_t cid = 0;
  ck_assert_int_eq(hurray_ipc_producer_next_consumer(p, WAIT_MS, &cid, &err), HURRAY_OK);
  void *data = NULL;
  mapped_release rel = {{0, NULL}, 4096};
  hurray_ipc_shared *s = share_segment(p, 4096, &data, unmap_release, &rel);
  ck_assert_int_eq(hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, &err), HURRAY_OK);
  hurray_ipc_shared_retire(s);
  ck_assert_int_eq(read_byte(from), 'm');
  write_byte(to, 'r');
  poll_until(p, &events, HURRAY_IPC_EVENT_RELEASED, 1);
  int status = reap(kid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  hurray_ipc_producer_destroy(&p);
  ck_assert_int_eq(access(address, F_OK), -1); /* unlinked */
  ck_assert_int_eq(rmdir(dir), 0);
  close(to);
  close(from);
  leak_check(&probe);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN_WITH(
      CK_NOFORK, "ipc_process", "process", 60, sigkilled_consumer_is_reclaimed_once,
      killed_producer_leaves_mappings_valid, two_consumers_release_in_turn, filesystem_address);
}
