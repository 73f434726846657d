/*
 * The ipc_api fuzz target's rounds under an injected fault and its misuse
 * round (fuzz/ipc_fault_rounds.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_IPC_FAULT_ROUNDS_H
#define HURRAY_FUZZ_IPC_FAULT_ROUNDS_H

#include <stdint.h>

#include "ipc_faults.h"

/* `scenario` bits 0-1 pick the calls made under `fault`: 0, creating and
 * sealing a segment; 1, listening and admitting a connection; 2 and 3, a
 * transfer between two endpoints on a socketpair (shared from segment_fd, a
 * sealed segment of two 4096-byte buffers); the other bits vary them. */
void ipc_fault_round(uint8_t scenario, ipc_fault fault, int segment_fd);

/* The arguments and uses the API refuses, on endpoints of its own. */
void ipc_misuse_round(int segment_fd);

#endif /* HURRAY_FUZZ_IPC_FAULT_ROUNDS_H */
