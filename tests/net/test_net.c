/*
 * The network transport over loopback (specs/network.md). Run once with
 * UCX_TLS=tcp and once with shared-memory transports (tests/net/meson.build
 * sets UCX_TLS and HURRAY_NET_TEST_TRANSPORT). Senders run in threads with
 * contexts of their own; the bad peers of the fault tests are forked
 * children that speak UCX directly, written from the message format of
 * specs/network.md, and a child that _exit()s mid-transfer. Every sender
 * counts its release callbacks; every fault test checks that what the
 * receiver allocated was freed (malloc statistics). The tests live in one
 * file per concept (test_net.h); this one runs them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "net_loopback_support.h"
#include "test_net.h"
#include "check_main.h"

int main(void) {
  Suite *s = suite_create("net");
  TCase *tc = tcase_create("net");
  tcase_set_timeout(tc, 120);
  add_loopback_tests(tc);
  if (shm_run()) {
    /* The fault tests need peer checking, under which UCX 1.13 selects
     * only tcp (NET-CONN-5): over shared memory they would test tcp again. */
    printf(
        "SKIP over shared memory: the close and fault tests (they run in test_net_tcp): "
        "UCX 1.13 selects no shared-memory lane for an endpoint that detects peer failure\n");
  } else {
    add_ending_tests(tc);
    add_bad_peer_tests(tc);
    if (getenv("HURRAY_NET_TEST_PLUGIN") != NULL) {
      add_device_tests(tc);
    }
  }
  suite_add_tcase(s, tc);
  return hurray_check_run(s);
}
