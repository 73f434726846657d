/*
 * What the net_receive fuzz target tells the UCX stand-in (fuzz/fake_ucx.c,
 * declared to net/net.c by fuzz/fake_ucx/ucp/api/ucp.h): the peer's
 * messages and disconnects, the connection requests a listener gets, how
 * each send completes and which UCX calls fail. One connection and one
 * listener at a time; single-threaded.
 *
 * The stand-in keeps UCX's contract as net.c relies on it: tag-matched
 * messages (a receive takes the earliest arrived message its tag and mask
 * match, or waits for it; a longer message completes it with
 * UCS_ERR_MESSAGE_TRUNCATED), completions and callbacks only inside
 * ucp_worker_progress, a canceled receive completed with UCS_ERR_CANCELED,
 * a forced close completing what is outstanding, the endpoint's error
 * handler called for a peer that goes. Every request it makes is counted
 * until freed; a message is written into a receive's buffer only when it
 * completes (so a buffer freed under a posted receive is a use after free
 * that ASan sees).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_FAKE_UCX_H
#define HURRAY_FUZZ_FAKE_UCX_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* UCX calls that fail while their bit is set. */
enum {
  FAKE_FAIL_CONFIG = 1u << 0,
  FAKE_FAIL_INIT = 1u << 1,
  FAKE_FAIL_WORKER = 1u << 2,
  FAKE_FAIL_EP = 1u << 3,
  FAKE_FAIL_LISTENER = 1u << 4,
  FAKE_FAIL_QUERY = 1u << 5,
};

/* How a send completes. */
enum {
  FAKE_SEND_NOW,         /* at once (the call returns no request) */
  FAKE_SEND_LATER,       /* OK, on the next progress */
  FAKE_SEND_FAILS_LATER, /* UCS_ERR_CONNECTION_RESET, on the next progress */
  FAKE_SEND_FAILS_NOW,   /* the call returns an error */
  FAKE_SEND_STUCK,       /* until canceled by a forced close */
};

void fake_ucx_reset(void);
void fake_ucx_set_failing(unsigned calls);
/* Queues the next sends' outcomes (FAKE_SEND_*); once used up, FAKE_SEND_NOW. */
void fake_ucx_send_outcome(unsigned outcome);

/* The peer: a message with `tag`, or the endpoint's failure, arriving after
 * what was queued before, one per progress call of the connection's worker. */
void fake_ucx_deliver(uint64_t tag, const void *bytes, size_t length);
void fake_ucx_disconnect(void);
/* A connection request for the listener, delivered on its worker's progress. */
void fake_ucx_connection_request(void);

/* What the host sent: every send counted, the last control message kept. */
typedef struct fake_ucx_sent {
  uint32_t sends;
  uint32_t control_sends;
  size_t control_length;
  uint8_t control[8192];
} fake_ucx_sent;
const fake_ucx_sent *fake_ucx_sent_log(void);

/* Requests made and not yet freed (NET-ERR-2), and receives still posted. */
int fake_ucx_live_requests(void);
int fake_ucx_posted_receives(void);
/* Messages delivered that no receive took. */
int fake_ucx_unexpected(void);

/* The clock net.c reads (compiled with -Dclock_gettime=fake_ucx_clock_gettime):
 * a millisecond passes on every reading, so deadlines pass without waiting. */
int fake_ucx_clock_gettime(clockid_t clock, struct timespec *ts);
int fake_ucx_nanosleep(const struct timespec *request, struct timespec *remaining);

#endif /* HURRAY_FUZZ_FAKE_UCX_H */
