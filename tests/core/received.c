/*
 * The received tensor of every transport (specs/inbound.md): built by a
 * fake transport that counts every call of its release and close, so that
 * "exactly once" is counted, not assumed. Event buffers use events of the
 * CPU plugin (its path is the first argument; without it those cases say
 * so and pass as skipped).
 *
 * Usage: test_core_received [PATH/hurray-plugin-cpu.so]
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hurray/hurray.h"
#include "hurray/plugin_host.h"
#include "hurray/received.h"
#include "test_support.h"

enum { MAX_BUFFERS = 8, BYTES = 64 };

static const char *cpu_plugin_path;

/* The fake transport: per buffer, how often each kind of release ran. */
typedef struct fake_transport {
  unsigned signal[MAX_BUFFERS];
  unsigned discard[MAX_BUFFERS];
  unsigned closes;
  void *memory_seen[MAX_BUFFERS];
  /* A status the SIGNAL release reports (as IPC does for a gone producer). */
  hurray_status fail_with;
} fake_transport;

static _Alignas(64) unsigned char storage[MAX_BUFFERS][BYTES];
static unsigned char memory_tokens[MAX_BUFFERS];

static hurray_status fake_release(void *ctx, uint64_t id, uint32_t index, void *memory,
                                  uint64_t memory_size, uint32_t how, hurray_error *err) {
  fake_transport *t = ctx;
  ck_assert_uint_eq(id, 77u);
  ck_assert_uint_lt(index, MAX_BUFFERS);
  ck_assert_uint_eq(memory_size, 1000u + index);
  t->memory_seen[index] = memory;
  if (how == HURRAY_RECEIVED_RELEASE_SIGNAL) {
    t->signal[index]++;
    if (t->fail_with != HURRAY_OK) {
      err->status = t->fail_with;
      err->value = 4242;
      err->expected = 0;
      err->index = index;
      return t->fail_with;
    }
  } else {
    ck_assert_uint_eq(how, HURRAY_RECEIVED_RELEASE_DISCARD);
    t->discard[index]++;
  }
  return HURRAY_OK;
}

static void fake_close(void *ctx) { ((fake_transport *)ctx)->closes++; }

static hurray_received *make(fake_transport *t, uint32_t transport, size_t count) {
  memset(t, 0, sizeof *t);
  hurray_received_transport_desc desc =
      hurray_received_transport_make(transport, t, fake_release, fake_close);
  ck_assert_uint_eq(desc.struct_size, sizeof desc);
  hurray_received *r = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_received_create(&desc, 77u, count, &r, &err), HURRAY_OK);
  return r;
}

static hurray_received_buffer_desc host_buffer(size_t i) {
  hurray_received_buffer_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.handle.byte_size = BYTES;
  d.handle.alignment = 64;
  d.handle.device_tag = HURRAY_DEVICE_CPU;
  d.handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  d.handle.memory_class = HURRAY_MEMORY_STANDARD;
  d.data = storage[i];
  d.memory = &memory_tokens[i];
  d.memory_size = 1000u + i;
  return d;
}

static void stage(hurray_received *r, size_t i, const hurray_received_buffer_desc *d) {
  hurray_error err;
  ck_assert_int_eq(hurray_received_stage(r, i, d, &err), HURRAY_OK);
}

/* A tensor of `count` host buffers (host_buffer), every one staged. */
static hurray_received *make_staged(fake_transport *t, uint32_t transport, size_t count) {
  hurray_received *r = make(t, transport, count);
  for (size_t i = 0; i < count; i++) {
    hurray_received_buffer_desc d = host_buffer(i);
    stage(r, i, &d);
  }
  return r;
}

/* RX-REL-1, RX-REL-2, RX-OBJ-1: a release by the caller reaches the
 * transport once, with the memory it staged; a second is ALREADY_RELEASED;
 * the handoff's own release is the same release; the free releases the
 * rest, once, and closes once. */
START_TEST(received_release_exactly_once) {
  fake_transport t;
  hurray_received *r = make_staged(&t, HURRAY_TRANSPORT_NETWORK, 3);
  hurray_error err;
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_received_transport(r), HURRAY_TRANSPORT_NETWORK);
  ck_assert_uint_eq(hurray_received_id(r), 77u);
  ck_assert_uint_eq(hurray_received_count(r), 3u);
  for (size_t i = 0; i < 3; i++) {
    const hurray_accepted_buffer *a = hurray_received_buffer(r, i);
    ck_assert_ptr_eq(a->data, storage[i]);
    ck_assert_uint_eq(a->handle.byte_size, BYTES);
    ck_assert_uint_eq(hurray_handoff_state_of(hurray_received_handoff(r, i)),
                      HURRAY_HANDOFF_READABLE);
  }
  ck_assert_int_eq(hurray_received_release(r, 0, &err), HURRAY_OK);
  ck_assert_uint_eq(t.signal[0], 1u);
  ck_assert_ptr_eq(t.memory_seen[0], &memory_tokens[0]);
  ck_assert_int_eq(hurray_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(t.signal[0], 1u);
  ck_assert_int_eq(hurray_handoff_release(hurray_received_handoff(r, 1), &err), HURRAY_OK);
  ck_assert_uint_eq(t.signal[1], 1u);
  ck_assert_int_eq(hurray_received_release(r, 1, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(t.closes, 0u);
  hurray_received_free(&r);
  ck_assert_ptr_null(r);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(t.signal[i], 1u);
    ck_assert_uint_eq(t.discard[i], 0u);
  }
  ck_assert_uint_eq(t.closes, 1u);
  hurray_received_free(&r); /* NULL: nothing */
  hurray_received_free(NULL);
}
END_TEST

/* RX-REL-2: what the transport reports of a release is the release's
 * result (IPC's PEER_GONE with the producer's pid), and the buffer is
 * released all the same. */
START_TEST(received_release_reports_the_transport) {
  fake_transport t;
  hurray_received *r = make_staged(&t, HURRAY_TRANSPORT_IPC, 2);
  hurray_error err;
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_OK);
  t.fail_with = HURRAY_ERR_PEER_GONE;
  ck_assert_int_eq(hurray_received_release(r, 1, &err), HURRAY_ERR_PEER_GONE);
  ck_assert_uint_eq(err.value, 4242u);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_uint_eq(t.signal[1], 1u);
  ck_assert_uint_eq(hurray_handoff_state_of(hurray_received_handoff(r, 1)),
                    HURRAY_HANDOFF_RELEASED);
  ck_assert_int_eq(hurray_received_release(r, 1, &err), HURRAY_ERR_ALREADY_RELEASED);
  hurray_received_free(&r);
  ck_assert_uint_eq(t.signal[0], 1u);
  ck_assert_uint_eq(t.signal[1], 1u);
  ck_assert_uint_eq(t.closes, 1u);
}
END_TEST

/* RX-REL-3, RX-BUILD-1: a tensor freed before it was published undoes its
 * staged buffers once each, in discard mode, and owns nothing of a buffer
 * never staged. */
START_TEST(received_free_unpublished_discards) {
  fake_transport t;
  hurray_received *r = make(&t, HURRAY_TRANSPORT_IPC, 3);
  hurray_received_buffer_desc d0 = host_buffer(0);
  hurray_received_buffer_desc d2 = host_buffer(2);
  stage(r, 0, &d0);
  stage(r, 2, &d2);
  hurray_error err;
  ck_assert_int_eq(hurray_received_stage(r, 2, &d2, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.index, 2u);
  /* RX-BUILD-2: all or none; a buffer not staged is named. */
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 1u);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_ptr_null(hurray_received_plugin_buffer(r, 0));
  hurray_received_free(&r);
  ck_assert_uint_eq(t.discard[0], 1u);
  ck_assert_uint_eq(t.discard[1], 0u);
  ck_assert_uint_eq(t.discard[2], 1u);
  ck_assert_uint_eq(t.signal[0] + t.signal[1] + t.signal[2], 0u);
  ck_assert_uint_eq(t.closes, 1u);
}
END_TEST

/* RX-BUILD-2, RX-REL-3: a publish that fails at buffer 1 (a CPU buffer
 * declaring an event) hands nothing out: buffer 0, already accepted, is
 * undone in discard mode at once; the free undoes buffers 1 and 2; nothing
 * reaches the sender. */
START_TEST(received_publish_all_or_none) {
  fake_transport t;
  hurray_received *r = make(&t, HURRAY_TRANSPORT_IN_PROCESS, 3);
  for (size_t i = 0; i < 3; i++) {
    hurray_received_buffer_desc d = host_buffer(i);
    if (i == 1) {
      d.handle.sync_mode = HURRAY_SYNC_EVENT; /* BP-SYNC: not on a CPU buffer */
    }
    stage(r, i, &d);
  }
  hurray_error err;
  hurray_status st = hurray_received_publish(r, &err);
  ck_assert_int_ne(st, HURRAY_OK);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_uint_eq(t.discard[0], 1u);
  ck_assert_uint_eq(t.discard[1], 0u);
  hurray_received_free(&r);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(t.discard[i], 1u);
    ck_assert_uint_eq(t.signal[i], 0u);
  }
  ck_assert_uint_eq(t.closes, 1u);
}
END_TEST

/* RX-OBJ-2, RX-BUILD-1: the accessors and the builder's argument checks. */
START_TEST(received_arguments) {
  hurray_error err;
  ck_assert_uint_eq(hurray_received_count(NULL), 0u);
  ck_assert_uint_eq(hurray_received_id(NULL), 0u);
  ck_assert_uint_eq(hurray_received_transport(NULL), 0u);
  ck_assert_ptr_null(hurray_received_buffer(NULL, 0));
  ck_assert_ptr_null(hurray_received_handoff(NULL, 0));
  ck_assert_ptr_null(hurray_received_plugin_buffer(NULL, 0));
  ck_assert_int_eq(hurray_received_release(NULL, 0, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_int_eq(hurray_received_publish(NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  fake_transport t;
  hurray_received_transport_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = (uint32_t)sizeof desc;
  desc.ctx = &t;
  desc.release = fake_release;
  hurray_received *r = NULL;
  ck_assert_int_eq(hurray_received_create(&desc, 77u, 0, &r, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0u);
  ck_assert_int_eq(
      hurray_received_create(&desc, 77u, HURRAY_BUFFER_TABLE_MAX_HANDLES + 1u, &r, &err),
      HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.expected, HURRAY_BUFFER_TABLE_MAX_HANDLES);
  ck_assert_int_eq(hurray_received_create(&desc, 77u, 1, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3u);
  desc.release = NULL;
  ck_assert_int_eq(hurray_received_create(&desc, 77u, 1, &r, &err), HURRAY_ERR_NULL_ARGUMENT);
  desc.release = fake_release;
  desc.struct_size = 4;
  ck_assert_int_eq(hurray_received_create(&desc, 77u, 1, &r, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 4u);
  ck_assert_ptr_null(r);

  r = make(&t, HURRAY_TRANSPORT_NETWORK, 2);
  hurray_received_buffer_desc d = host_buffer(0);
  ck_assert_int_eq(hurray_received_stage(r, 2, &d, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 2u);
  ck_assert_uint_eq(err.expected, 2u);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_int_eq(hurray_received_stage(r, 0, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  d.struct_size = 8;
  ck_assert_int_eq(hurray_received_stage(r, 0, &d, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 8u);
  d = host_buffer(0);
  stage(r, 0, &d);
  d = host_buffer(1);
  stage(r, 1, &d);
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_ptr_null(hurray_received_buffer(r, 2));
  ck_assert_ptr_null(hurray_received_handoff(r, 2));
  ck_assert_int_eq(hurray_received_release(r, 2, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 2u);
  ck_assert_uint_eq(err.expected, 2u);
  ck_assert_uint_eq(err.index, 1u);
  hurray_received_free(&r);
  ck_assert_uint_eq(t.signal[0] + t.signal[1], 2u);
}
END_TEST

static hurray_plugin *load_cpu(hurray_plugin_registry **registry) {
  if (cpu_plugin_path == NULL || access(cpu_plugin_path, R_OK) != 0) {
    printf("received: no CPU plugin given; the event cases are skipped\n");
    return NULL;
  }
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  ck_assert_msg(hurray_plugin_load(*registry, cpu_plugin_path, 0, &plugin, &err) == HURRAY_OK,
                "load %s: %s", cpu_plugin_path, err.detail);
  return plugin;
}

/* A device buffer with an event (declared CUDA; the event is the CPU
 * plugin's, which the library releases through its plugin). */
static hurray_received_buffer_desc event_buffer(hurray_plugin *plugin, size_t i) {
  hurray_received_buffer_desc d = host_buffer(i);
  d.handle.device_tag = HURRAY_DEVICE_CUDA;
  d.handle.sync_mode = HURRAY_SYNC_EVENT;
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &d.event, &err), HURRAY_OK);
  return d;
}

/* RX-REL-4: the one teardown rule. A tensor freed with its buffers in every
 * state a handoff reaches (EVENT_PENDING, EVENT_WAITED, EVENT_DROPPED,
 * EVENT_RELEASED, READABLE with a plugin buffer, RELEASED) releases each
 * buffer still held exactly once and each event still held exactly once,
 * and leaves no plugin buffer or event behind. (A rule that released only
 * READABLE buffers, as the network receiver's did, leaves four releases
 * out and the events live.) */
START_TEST(received_teardown_every_state) {
  hurray_plugin_registry *registry = NULL;
  hurray_plugin *plugin = load_cpu(&registry);
  if (plugin == NULL) {
    return;
  }
  fake_transport t;
  hurray_received *r = make(&t, HURRAY_TRANSPORT_IN_PROCESS, 6);
  for (size_t i = 0; i < 5; i++) {
    hurray_received_buffer_desc d = event_buffer(plugin, i);
    stage(r, i, &d);
  }
  hurray_error err;
  hurray_received_buffer_desc d = host_buffer(5);
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, BYTES, 64, HURRAY_MEMORY_STANDARD, &d.plugin_buffer, &err),
      HURRAY_OK);
  d.data = hurray_plugin_buffer_allocation(d.plugin_buffer)->address;
  hurray_plugin_buffer *device = d.plugin_buffer;
  stage(r, 5, &d);
  size_t buffers = 0;
  size_t events = 0;
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, &buffers, &events), 6u);
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_OK);
  ck_assert_ptr_eq(hurray_received_plugin_buffer(r, 5), device);
  ck_assert_uint_eq(hurray_handoff_state_of(hurray_received_handoff(r, 0)),
                    HURRAY_HANDOFF_EVENT_PENDING);
  ck_assert_int_eq(hurray_handoff_record_event_wait(hurray_received_handoff(r, 1), &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(hurray_received_handoff(r, 2), &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_state_of(hurray_received_handoff(r, 2)),
                    HURRAY_HANDOFF_EVENT_DROPPED);
  ck_assert_int_eq(hurray_handoff_record_event_wait(hurray_received_handoff(r, 3), &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(hurray_received_handoff(r, 3), &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_state_of(hurray_received_handoff(r, 3)),
                    HURRAY_HANDOFF_EVENT_RELEASED);
  ck_assert_int_eq(hurray_handoff_release_event(hurray_received_handoff(r, 4), &err), HURRAY_OK);
  /* HO-SM: the event first. */
  ck_assert_int_eq(hurray_received_release(r, 0, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_received_release(r, 4, &err), HURRAY_OK);
  ck_assert_uint_eq(t.signal[4], 1u);
  hurray_plugin_outstanding(plugin, &buffers, &events);
  ck_assert_uint_eq(events, 2u); /* buffers 0 and 1 still hold theirs */
  ck_assert_uint_eq(buffers, 1u);
  hurray_received_free(&r);
  for (size_t i = 0; i < 6; i++) {
    ck_assert_msg(t.signal[i] == 1u, "buffer %zu released %u times", i, t.signal[i]);
    ck_assert_uint_eq(t.discard[i], 0u);
  }
  ck_assert_uint_eq(t.closes, 1u);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, &buffers, &events), 0u);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* RX-REL-1, RX-OBJ-2: a plugin buffer is freed by its buffer's release,
 * once, and the accessor says NULL from then on. */
START_TEST(received_plugin_buffer_freed_by_release) {
  hurray_plugin_registry *registry = NULL;
  hurray_plugin *plugin = load_cpu(&registry);
  if (plugin == NULL) {
    return;
  }
  fake_transport t;
  hurray_received *r = make(&t, HURRAY_TRANSPORT_NETWORK, 1);
  hurray_error err;
  hurray_received_buffer_desc d = host_buffer(0);
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, BYTES, 64, HURRAY_MEMORY_STANDARD, &d.plugin_buffer, &err),
      HURRAY_OK);
  d.data = hurray_plugin_buffer_allocation(d.plugin_buffer)->address;
  stage(r, 0, &d);
  ck_assert_int_eq(hurray_received_publish(r, &err), HURRAY_OK);
  ck_assert_ptr_nonnull(hurray_received_plugin_buffer(r, 0));
  ck_assert_int_eq(hurray_received_release(r, 0, &err), HURRAY_OK);
  ck_assert_ptr_null(hurray_received_plugin_buffer(r, 0));
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0u);
  hurray_received_free(&r);
  ck_assert_uint_eq(t.signal[0], 1u);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* RX-ST-1: the neutral names are the IPC names' values (ABI 1.x additive),
 * and the names of ABI 1.0 stay. */
START_TEST(received_neutral_status_names) {
  ck_assert_int_eq(HURRAY_ERR_REFUSED, 33);
  ck_assert_int_eq(HURRAY_ERR_PEER_GONE, 34);
  ck_assert_int_eq(HURRAY_ERR_REFUSED, HURRAY_ERR_IPC_REFUSED);
  ck_assert_int_eq(HURRAY_ERR_PEER_GONE, HURRAY_ERR_IPC_PEER_GONE);
  ck_assert_str_eq(hurray_status_name(HURRAY_ERR_PEER_GONE), "IPC_PEER_GONE");
  ck_assert_str_eq(hurray_status_name(HURRAY_ERR_REFUSED), "IPC_REFUSED");
}
END_TEST

int main(int argc, char **argv) {
  cpu_plugin_path = argc > 1 ? argv[1] : NULL;
  return HURRAY_CHECK_MAIN("received", "received", 0, received_release_exactly_once,
                           received_release_reports_the_transport,
                           received_free_unpublished_discards, received_publish_all_or_none,
                           received_arguments, received_teardown_every_state,
                           received_plugin_buffer_freed_by_release, received_neutral_status_names);
}
