/*
 * Fault injection for the ipc_api fuzz target only: the target is linked
 * with -Wl,--wrap=CALL for every system call and the allocation the IPC
 * transport makes (fuzz/targets.sh, fuzz/meson.build), and the wrappers
 * (fuzz/ipc_faults.c) fail one chosen call the way the kernel or the
 * allocator could, so that the library's error paths run under the
 * harness's oracle. The production library is built without them.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_IPC_FAULTS_H
#define HURRAY_FUZZ_IPC_FAULTS_H

#include <stdint.h>

#include "hurray/buffer.h"

/* The calls a fault can hit, in the order the input's byte picks them. */
typedef enum ipc_fault_call {
  IPC_FAULT_SOCKET,
  IPC_FAULT_BIND,
  IPC_FAULT_LISTEN,
  IPC_FAULT_ACCEPT4,
  IPC_FAULT_CONNECT,
  IPC_FAULT_POLL,
  IPC_FAULT_GETSOCKOPT,
  IPC_FAULT_SENDMSG,
  IPC_FAULT_RECVMSG,
  IPC_FAULT_MMAP,
  IPC_FAULT_MEMFD_CREATE,
  IPC_FAULT_FTRUNCATE,
  IPC_FAULT_FCNTL,
  IPC_FAULT_MPROTECT,
  IPC_FAULT_FSTAT,
  IPC_FAULT_CALLOC,
  IPC_FAULT_CALL_COUNT
} ipc_fault_call;

/* One fault: call number `skip` (0: the next one) of `call` made by this
 * thread fails with errnum (calloc: returns NULL, errno ENOMEM). */
typedef struct ipc_fault {
  ipc_fault_call call;
  unsigned skip;
  int errnum;
} ipc_fault;

/* The fault three input bytes describe: the call, how many of its calls
 * succeed first, and the errno (from the errors those calls document). */
ipc_fault ipc_fault_from_bytes(const uint8_t bytes[3]);

/* Arms `fault` for the calling thread; the wrappers of other threads pass
 * every call through. */
void ipc_fault_arm(ipc_fault fault);

/* Disarms; whether the fault armed last has fired (ipc_fault_check
 * checks nothing more after this). */
int ipc_fault_disarm(void);

/*
 * The oracle for what a library call returned (st, err) while the fault
 * armed last on this thread was armed (or since): a failure names itself
 * (fuzz_checked_status); an IO failure of the call in which the fault fired
 * is the fault's, its detail naming the call and the errno's text and its
 * value the errno (IPC-ERR-1), unless the errno was EINTR, which the
 * library retries; OUT_OF_MEMORY comes only from a failed allocation.
 */
void ipc_fault_check(hurray_status st, const hurray_error *err);

#endif /* HURRAY_FUZZ_IPC_FAULTS_H */
