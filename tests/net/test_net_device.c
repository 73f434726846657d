/*
 * Tensors and a plugin's device: placed on the device a tensor declares,
 * and sent from plugin buffers. The
 * plugin is the one HURRAY_NET_TEST_PLUGIN names (tests/net/meson.build:
 * the cuda plugin on its stand-in runtime); test_net.c adds these only
 * when it is set.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "hurray/net.h"
#include "net_loopback_support.h"
#include "test_net.h"

/* The plugin named by HURRAY_NET_TEST_PLUGIN, in a registry of its own. */
static hurray_plugin *load_test_plugin(hurray_plugin_registry **plugins) {
  const char *file = getenv("HURRAY_NET_TEST_PLUGIN");
  hurray_error err;
  hurray_plugin *plugin = NULL;
  ck_assert_int_eq(hurray_plugin_registry_create(plugins, &err), HURRAY_OK);
  ck_assert_msg(hurray_plugin_load(*plugins, file, 0, &plugin, &err) == HURRAY_OK, "load %s: %s",
                file, err.detail);
  return plugin;
}

/* NET-DEV-1, NET-DEV-2: a tensor declared on the device of the plugin
 * named by HURRAY_NET_TEST_PLUGIN (the cuda plugin on its stand-in, in
 * meson), sent from host memory: a receiver without the plugin refuses it
 * (DEVICE_UNAVAILABLE, never placing it elsewhere); one with it places
 * every buffer on that device, with the bytes sent; the release frees it. */
START_TEST(tensor_placed_on_the_declared_device) {
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *plugin = load_test_plugin(&plugins);
  ck_assert_uint_gt(hurray_plugin_device_count(plugin), 0);
  const uint8_t tag = (uint8_t)hurray_plugin_device_tag(plugin);
  for (int placed = 0; placed < 2; placed++) {
    receiver rv = {0};
    sender s = {.seed = 11, .count = 2, .sizes = {1u << 20, 4096}, .device = tag};
    hurray_net_connection *conn = start_loopback(&rv, &s, test_opts());
    ck_assert_int_eq(hurray_net_connection_set_plugins(conn, placed ? plugins : NULL, &err),
                     HURRAY_OK);
    hurray_net_received *r = NULL;
    hurray_status st = hurray_net_receive(conn, 20000, &r, &err);
    if (!placed) {
      ck_assert_int_eq(st, HURRAY_ERR_DEVICE_UNAVAILABLE);
      ck_assert_uint_eq(err.value, tag);
      ck_assert_uint_eq(err.index, 0);
      ck_assert_ptr_null(r);
      while (!atomic_load(&s.sent)) {
        usleep(1000);
      }
      ck_assert_int_eq(s.status, HURRAY_ERR_DEVICE_UNAVAILABLE); /* the sender learns why */
    } else {
      ck_assert_msg(st == HURRAY_OK, "receive: %s (%s)", hurray_status_name(st), err.detail);
      size_t buffers = 0;
      size_t events = 0;
      (void)hurray_plugin_outstanding(plugin, &buffers, &events);
      ck_assert_uint_eq(buffers, 2); /* on the device, the landing memory gone */
      static uint8_t bytes[1u << 20];
      for (size_t i = 0; i < 2; i++) {
        const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
        hurray_plugin_buffer *pb = hurray_net_received_plugin_buffer(r, i);
        ck_assert_ptr_nonnull(pb);
        ck_assert_uint_eq(b->handle.device_tag, tag);
        ck_assert_ptr_eq(b->data, hurray_plugin_buffer_allocation(pb)->address);
        ck_assert_int_eq(hurray_plugin_buffer_read(pb, 0, bytes, s.sizes[i], &err), HURRAY_OK);
        for (uint64_t k = 0; k < s.sizes[i]; k++) {
          ck_assert_uint_eq(bytes[k], pattern(s.seed + i, k));
        }
      }
      ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_OK);
      ck_assert_ptr_null(hurray_net_received_plugin_buffer(r, 0));
      hurray_net_received_free(&r);
      (void)hurray_plugin_outstanding(plugin, &buffers, &events);
      ck_assert_uint_eq(buffers, 0); /* each freed by its release, once */
      while (!atomic_load(&s.sent)) {
        usleep(1000);
      }
      ck_assert_int_eq(s.status, HURRAY_OK);
    }
    for (int i = 0; i < 2; i++) {
      ck_assert_int_eq(atomic_load(&s.log.calls[i]), 1); /* sources released once */
    }
    atomic_store(&s.done, 1);
    sender_join(&s);
    hurray_net_close(&conn);
    receiver_stop(&rv);
  }
  hurray_plugin_registry_destroy(plugins);
}
END_TEST

/* NET-SEND-5: a tensor whose sources are plugin buffers (the plugin named by
 * HURRAY_NET_TEST_PLUGIN), sent to host memory: every byte as the device
 * held it; the plugin buffers untouched and still the sender's; the
 * refusals before anything is sent. */
START_TEST(tensor_sent_from_plugin_buffers) {
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *plugin = load_test_plugin(&plugins);
  receiver rv = {0};
  /* the destination: host memory (NET-DEV-1) */
  sender s = {.seed = 21, .count = 2, .sizes = {1u << 20, 4096}, .device = HURRAY_DEVICE_CPU};
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, s.sizes[i], 64, 0, &s.from[i], &err),
                     HURRAY_OK);
    void *bytes = aligned_pattern((size_t)s.sizes[i], s.seed + i);
    ck_assert_int_eq(hurray_plugin_buffer_write(s.from[i], 0, bytes, s.sizes[i], &err), HURRAY_OK);
    free(bytes);
  }
  ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, 0, &s.too_small, &err), HURRAY_OK);
  hurray_net_connection *conn = start_loopback(&rv, &s, test_opts());
  hurray_net_received *r = NULL;
  hurray_status st = hurray_net_receive(conn, 20000, &r, &err);
  ck_assert_msg(st == HURRAY_OK, "receive: %s (%s)", hurray_status_name(st), err.detail);
  while (!atomic_load(&s.sent)) {
    usleep(1000);
  }
  ck_assert_int_eq(s.refused[0], HURRAY_ERR_INVALID_ARGUMENT); /* 1 buffer, 2 handles */
  ck_assert_uint_eq(s.refused_err[0].value, 1);
  ck_assert_uint_eq(s.refused_err[0].expected, 2);
  ck_assert_int_eq(s.refused[1], HURRAY_ERR_NULL_ARGUMENT); /* buffer 1 missing */
  ck_assert_uint_eq(s.refused_err[1].index, 1);
  ck_assert_uint_eq(s.refused_err[1].expected, 4096);
  ck_assert_int_eq(s.refused[2], HURRAY_ERR_INVALID_ARGUMENT); /* 4096 bytes for 1 MiB */
  ck_assert_uint_eq(s.refused_err[2].index, 0);
  ck_assert_uint_eq(s.refused_err[2].value, 1u << 20);
  ck_assert_uint_eq(s.refused_err[2].expected, 4096);
  ck_assert_int_eq(s.status, HURRAY_OK);
  /* the first tensor on the connection: the refusals sent nothing */
  ck_assert_uint_eq(hurray_net_received_tensor_id(r), 1);
  ck_assert_uint_eq(hurray_net_received_count(r), 2);
  for (size_t i = 0; i < 2; i++) {
    const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
    ck_assert_ptr_null(hurray_net_received_plugin_buffer(r, i)); /* landed in host memory */
    check_pattern(b, s.seed + i);
  }
  hurray_net_received_free(&r);
  atomic_store(&s.done, 1);
  sender_join(&s);
  /* the sources are still the sender's, as they were */
  size_t buffers = 0;
  size_t events = 0;
  (void)hurray_plugin_outstanding(plugin, &buffers, &events);
  ck_assert_uint_eq(buffers, 3);
  static uint8_t back[1u << 20];
  ck_assert_int_eq(hurray_plugin_buffer_read(s.from[0], 0, back, sizeof back, &err), HURRAY_OK);
  for (uint64_t k = 0; k < sizeof back; k++) {
    ck_assert_uint_eq(back[k], pattern(s.seed, k));
  }
  for (size_t i = 0; i < 2; i++) {
    hurray_plugin_buffer_free(s.from[i]);
  }
  hurray_plugin_buffer_free(s.too_small);
  hurray_net_close(&conn);
  receiver_stop(&rv);
  hurray_plugin_registry_destroy(plugins);
}
END_TEST

void add_device_tests(TCase *tc) {
  tcase_add_test(tc, tensor_placed_on_the_declared_device);
  tcase_add_test(tc, tensor_sent_from_plugin_buffers);
}
