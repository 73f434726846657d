/*
 * The tests of test_net, one file per concept; main (test_net.c) adds them
 * to its test case in this order.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_NET_TEST_NET_H
#define HURRAY_TESTS_NET_TEST_NET_H

#include <check.h>

/* test_net_loopback.c: tensors over a connection both sides keep. */
void add_loopback_tests(TCase *tc);
/* test_net_ending.c: a connection a well-behaved side ends early. */
void add_ending_tests(TCase *tc);
/* test_net_bad_peer.c: peers that speak UCX directly, and break the rules. */
void add_bad_peer_tests(TCase *tc);
/* test_net_device.c: tensors placed on, or sent from, a plugin's device. */
void add_device_tests(TCase *tc);

#endif /* HURRAY_TESTS_NET_TEST_NET_H */
