/*
 * The UCX stand-in of the net_receive fuzz target (fuzz/fake_ucx.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "fake_ucx.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/net_wire.h"
#include "ucp/api/ucp.h"

FUZZ_ORACLE_BEGIN

struct fake_ucp_context {
  int unused;
};
struct fake_ucp_worker {
  int listener_worker;
};
struct fake_ucp_ep {
  ucp_worker_h worker;
  ucp_err_handler_cb_t on_error;
  void *error_arg;
  int closed;
  int failed;
};
struct fake_ucp_listener {
  ucp_worker_h worker;
  ucp_listener_conn_callback_t on_request;
  void *request_arg;
};
struct fake_ucp_conn_request {
  int unused;
};

typedef struct fake_msg {
  struct fake_msg *next;
  int disconnect;
  uint64_t tag;
  size_t length;
  uint8_t bytes[];
} fake_msg;

typedef enum { REQ_SEND, REQ_RECV, REQ_FLUSH, REQ_CLOSE } req_kind;

typedef struct fake_req {
  struct fake_req *next;
  req_kind kind;
  int done;
  int user_freed;
  int cancel;
  int ready; /* completes on the next progress of its worker, with `status` */
  ucs_status_t status;
  ucp_send_nbx_callback_t send_cb;
  ucp_tag_recv_nbx_callback_t recv_cb;
  void *user_data;
  ucp_worker_h worker;
  ucp_ep_h ep;
  void *buffer;
  size_t capacity;
  ucp_tag_t tag;
  ucp_tag_t mask;
  fake_msg *match;
} fake_req;

static fake_req *requests;       /* every live request, oldest first */
static fake_msg *script;         /* what the peer will do, in order */
static fake_msg *unexpected;     /* arrived, taken by no receive yet */
static ucp_worker_h conn_worker; /* the connection's: where the script arrives */
static ucp_ep_h conn_ep;
static ucp_listener_h the_listener;
static int pending_requests;   /* connection requests not yet delivered */
static int live_conn_requests; /* delivered, neither accepted nor rejected */
static unsigned failing;
static unsigned outcomes[64];
static size_t outcome_count;
static size_t outcome_next;
static fake_ucx_sent sent;
static uint64_t now_ms;

static void append(fake_msg **list, fake_msg *m) {
  m->next = NULL;
  while (*list != NULL) {
    list = &(*list)->next;
  }
  *list = m;
}

static void free_list(fake_msg **list) {
  while (*list != NULL) {
    fake_msg *m = *list;
    *list = m->next;
    free(m);
  }
}

void fake_ucx_reset(void) {
  while (requests != NULL) {
    fake_req *r = requests;
    requests = r->next;
    free(r->match);
    free(r);
  }
  free_list(&script);
  free_list(&unexpected);
  conn_worker = NULL;
  conn_ep = NULL;
  the_listener = NULL;
  pending_requests = 0;
  live_conn_requests = 0;
  failing = 0;
  outcome_count = 0;
  outcome_next = 0;
  memset(&sent, 0, sizeof sent);
}

void fake_ucx_set_failing(unsigned calls) { failing = calls; }

void fake_ucx_send_outcome(unsigned outcome) {
  if (outcome_count < sizeof outcomes / sizeof outcomes[0]) {
    outcomes[outcome_count++] = outcome;
  }
}

void fake_ucx_deliver(uint64_t tag, const void *bytes, size_t length) {
  fake_msg *m = malloc(sizeof *m + (length > 0 ? length : 1));
  FUZZ_CHECK(m != NULL);
  m->disconnect = 0;
  m->tag = tag;
  m->length = length;
  if (length > 0) {
    memcpy(m->bytes, bytes, length);
  }
  append(&script, m);
}

void fake_ucx_disconnect(void) {
  fake_msg *m = calloc(1, sizeof *m + 1);
  FUZZ_CHECK(m != NULL);
  m->disconnect = 1;
  append(&script, m);
}

void fake_ucx_connection_request(void) { pending_requests++; }

const fake_ucx_sent *fake_ucx_sent_log(void) { return &sent; }

int fake_ucx_live_requests(void) {
  int n = live_conn_requests;
  for (fake_req *r = requests; r != NULL; r = r->next) {
    n++;
  }
  return n;
}

int fake_ucx_posted_receives(void) {
  int n = 0;
  for (fake_req *r = requests; r != NULL; r = r->next) {
    n += r->kind == REQ_RECV && !r->done;
  }
  return n;
}

int fake_ucx_unexpected(void) {
  int n = 0;
  for (fake_msg *m = unexpected; m != NULL; m = m->next) {
    n++;
  }
  return n;
}

int fake_ucx_clock_gettime(clockid_t clock, struct timespec *ts) {
  (void)clock;
  now_ms++;
  ts->tv_sec = (time_t)(now_ms / 1000u);
  ts->tv_nsec = (long)(now_ms % 1000u) * 1000000L;
  return 0;
}

int fake_ucx_nanosleep(const struct timespec *request, struct timespec *remaining) {
  (void)request;
  (void)remaining;
  return 0;
}

/* ---------------------------------------------------------------------- */
/* Requests                                                               */
/* ---------------------------------------------------------------------- */

static fake_req *new_request(req_kind kind, ucp_worker_h worker, const ucp_request_param_t *p) {
  fake_req *r = calloc(1, sizeof *r);
  FUZZ_CHECK(r != NULL);
  r->kind = kind;
  r->worker = worker;
  r->status = UCS_INPROGRESS;
  if (p != NULL && (p->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK) != 0u) {
    if (kind == REQ_RECV) {
      r->recv_cb = p->cb.recv;
    } else {
      r->send_cb = p->cb.send;
    }
  }
  if (p != NULL && (p->op_attr_mask & UCP_OP_ATTR_FIELD_USER_DATA) != 0u) {
    r->user_data = p->user_data;
  }
  fake_req **at = &requests;
  while (*at != NULL) {
    at = &(*at)->next;
  }
  *at = r;
  return r;
}

static void release(fake_req *r) {
  for (fake_req **at = &requests; *at != NULL; at = &(*at)->next) {
    if (*at == r) {
      *at = r->next;
      free(r->match);
      free(r);
      return;
    }
  }
  fuzz_oracle_failed("a request released twice or never made", __FILE__, __LINE__);
}

static int live(const fake_req *r) {
  for (const fake_req *q = requests; q != NULL; q = q->next) {
    if (q == r) {
      return 1;
    }
  }
  return 0;
}

/* Runs a request's completion: the message into the buffer, the callback. */
static void complete(fake_req *r) {
  if (r->cancel && !r->ready) {
    r->status = UCS_ERR_CANCELED;
  }
  ucp_tag_recv_info_t info = {0, 0};
  if (r->kind == REQ_RECV && r->match != NULL) {
    size_t n = r->match->length < r->capacity ? r->match->length : r->capacity;
    if (n > 0) {
      memcpy(r->buffer, r->match->bytes, n); /* ASan: the buffer must still be live */
    }
    info.sender_tag = r->match->tag;
    info.length = r->status == UCS_OK ? r->match->length : n;
  }
  r->done = 1;
  if (r->recv_cb != NULL) {
    r->recv_cb(r, r->status, &info, r->user_data);
  } else if (r->send_cb != NULL) {
    r->send_cb(r, r->status, r->user_data);
  }
  if (r->user_freed) {
    release(r);
  }
}

/* A message arrives: the earliest posted receive it matches takes it. */
static void arrive(fake_msg *m) {
  for (fake_req *r = requests; r != NULL; r = r->next) {
    if (r->kind == REQ_RECV && !r->done && !r->ready && !r->cancel && r->worker == conn_worker &&
        (r->tag & r->mask) == (m->tag & r->mask)) {
      r->match = m;
      r->ready = 1;
      r->status = m->length > r->capacity ? UCS_ERR_MESSAGE_TRUNCATED : UCS_OK;
      return;
    }
  }
  append(&unexpected, m);
}

unsigned ucp_worker_progress(ucp_worker_h worker) {
  unsigned events = 0;
  /* Completions due: oldest first. A callback may post or free requests,
   * so the list is walked again from the start after each one. */
  for (int again = 1; again;) {
    again = 0;
    for (fake_req *r = requests; r != NULL; r = r->next) {
      if (r->worker == worker && !r->done && (r->ready || r->cancel)) {
        complete(r);
        events++;
        again = 1;
        break;
      }
    }
  }
  if (worker == conn_worker && script != NULL) {
    fake_msg *m = script;
    script = m->next;
    if (m->disconnect) {
      if (conn_ep != NULL && !conn_ep->closed && !conn_ep->failed) {
        conn_ep->failed = 1;
        if (conn_ep->on_error != NULL) {
          conn_ep->on_error(conn_ep->error_arg, conn_ep, UCS_ERR_CONNECTION_RESET);
        }
      }
      free(m);
    } else {
      arrive(m);
    }
    events++;
  }
  if (the_listener != NULL && worker == the_listener->worker && pending_requests > 0) {
    pending_requests--;
    struct fake_ucp_conn_request *request = calloc(1, sizeof *request);
    FUZZ_CHECK(request != NULL);
    live_conn_requests++;
    the_listener->on_request(request, the_listener->request_arg);
    events++;
  }
  return events;
}

ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h worker, void *buffer, size_t count, ucp_tag_t tag,
                                  ucp_tag_t tag_mask, const ucp_request_param_t *param) {
  fake_req *r = new_request(REQ_RECV, worker, param);
  r->buffer = buffer;
  r->capacity = count;
  r->tag = tag;
  r->mask = tag_mask;
  if (worker == conn_worker) {
    for (fake_msg **at = &unexpected; *at != NULL; at = &(*at)->next) {
      if (((*at)->tag & tag_mask) == (tag & tag_mask)) {
        fake_msg *m = *at;
        *at = m->next;
        r->match = m;
        r->ready = 1;
        r->status = m->length > count ? UCS_ERR_MESSAGE_TRUNCATED : UCS_OK;
        break;
      }
    }
  }
  return r; /* UCP_OP_ATTR_FLAG_NO_IMM_CMPL: always a request */
}

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buffer, size_t count, ucp_tag_t tag,
                                  const ucp_request_param_t *param) {
  FUZZ_CHECK(ep != NULL && !ep->closed); /* never after the endpoint's close */
  sent.sends++;
  if ((tag & HURRAY_NET_TAG_KIND_MASK) == HURRAY_NET_TAG_CONTROL) {
    sent.control_sends++;
    sent.control_length = count < sizeof sent.control ? count : sizeof sent.control;
    memcpy(sent.control, buffer, sent.control_length);
  }
  unsigned outcome = outcome_next < outcome_count ? outcomes[outcome_next++] : FAKE_SEND_NOW;
  if (ep->failed && outcome == FAKE_SEND_NOW) {
    outcome = FAKE_SEND_FAILS_LATER; /* a peer that went takes nothing */
  }
  switch (outcome) {
    case FAKE_SEND_FAILS_NOW: return UCS_STATUS_PTR(UCS_ERR_IO_ERROR);
    case FAKE_SEND_LATER:
    case FAKE_SEND_FAILS_LATER:
    case FAKE_SEND_STUCK: {
      fake_req *r = new_request(REQ_SEND, ep->worker, param);
      r->ep = ep;
      if (outcome != FAKE_SEND_STUCK) {
        r->ready = 1;
        r->status = outcome == FAKE_SEND_LATER ? UCS_OK : UCS_ERR_CONNECTION_RESET;
      }
      return r;
    }
    default: return NULL;
  }
}

void ucp_request_free(void *request) {
  fake_req *r = request;
  FUZZ_CHECK(live(r) && !r->user_freed);
  if (r->done) {
    release(r);
  } else {
    r->user_freed = 1;
  }
}

void ucp_request_cancel(ucp_worker_h worker, void *request) {
  fake_req *r = request;
  FUZZ_CHECK(live(r) && r->worker == worker);
  if (!r->done) {
    r->cancel = 1;
  }
}

ucs_status_t ucp_request_check_status(void *request) {
  fake_req *r = request;
  FUZZ_CHECK(live(r));
  return r->done ? r->status : UCS_INPROGRESS;
}

/* ---------------------------------------------------------------------- */
/* Context, workers, endpoints, listeners                                 */
/* ---------------------------------------------------------------------- */

ucs_status_t ucp_config_read(const char *env_prefix, const char *filename, ucp_config_t **out) {
  (void)env_prefix;
  (void)filename;
  if ((failing & FAKE_FAIL_CONFIG) != 0u) {
    return UCS_ERR_NO_MEMORY;
  }
  *out = calloc(1, sizeof **out);
  return *out != NULL ? UCS_OK : UCS_ERR_NO_MEMORY;
}

void ucp_config_release(ucp_config_t *config) { free(config); }

ucs_status_t ucp_init(const ucp_params_t *params, const ucp_config_t *config, ucp_context_h *out) {
  FUZZ_CHECK(params != NULL && config != NULL);
  if ((failing & FAKE_FAIL_INIT) != 0u) {
    return UCS_ERR_UNREACHABLE;
  }
  *out = calloc(1, sizeof **out);
  return *out != NULL ? UCS_OK : UCS_ERR_NO_MEMORY;
}

void ucp_cleanup(ucp_context_h context) { free(context); }

ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t *params,
                               ucp_worker_h *out) {
  FUZZ_CHECK(context != NULL && params != NULL);
  if ((failing & FAKE_FAIL_WORKER) != 0u) {
    return UCS_ERR_NO_MEMORY;
  }
  *out = calloc(1, sizeof **out);
  return *out != NULL ? UCS_OK : UCS_ERR_NO_MEMORY;
}

void ucp_worker_destroy(ucp_worker_h worker) {
  /* NET-ERR-2: nothing of the worker's may be outstanding any more. */
  for (fake_req *r = requests; r != NULL; r = r->next) {
    FUZZ_CHECK(r->worker != worker);
  }
  if (worker == conn_worker) {
    conn_worker = NULL;
    conn_ep = NULL;
  }
  free(worker);
}

ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *out) {
  if ((params->field_mask & UCP_EP_PARAM_FIELD_CONN_REQUEST) != 0u) {
    FUZZ_CHECK(params->conn_request != NULL && live_conn_requests > 0);
    free(params->conn_request); /* taken, whatever the outcome */
    live_conn_requests--;
  }
  if ((failing & FAKE_FAIL_EP) != 0u) {
    return UCS_ERR_UNREACHABLE;
  }
  ucp_ep_h ep = calloc(1, sizeof *ep);
  FUZZ_CHECK(ep != NULL);
  ep->worker = worker;
  if ((params->field_mask & UCP_EP_PARAM_FIELD_ERR_HANDLER) != 0u) {
    ep->on_error = params->err_handler.cb;
    ep->error_arg = params->err_handler.arg;
  }
  conn_worker = worker;
  conn_ep = ep;
  *out = ep;
  return UCS_OK;
}

ucs_status_ptr_t ucp_ep_flush_nbx(ucp_ep_h ep, const ucp_request_param_t *param) {
  FUZZ_CHECK(ep != NULL && !ep->closed);
  fake_req *r = new_request(REQ_FLUSH, ep->worker, param);
  r->ep = ep;
  int stuck = 0;
  for (fake_req *q = requests; q != NULL; q = q->next) {
    stuck |= q->kind == REQ_SEND && q->ep == ep && !q->done && !q->ready;
  }
  if (!stuck) {
    r->ready = 1;
    r->status = UCS_OK;
  }
  return r;
}

ucs_status_ptr_t ucp_ep_close_nbx(ucp_ep_h ep, const ucp_request_param_t *param) {
  FUZZ_CHECK(ep != NULL && !ep->closed);
  FUZZ_CHECK(param != NULL && (param->flags & UCP_EP_CLOSE_FLAG_FORCE) != 0u);
  ep->closed = 1;
  /* A forced close completes everything outstanding on the endpoint. */
  for (fake_req *q = requests; q != NULL; q = q->next) {
    if ((q->kind == REQ_SEND || q->kind == REQ_FLUSH) && q->ep == ep && !q->done && !q->ready) {
      q->ready = 1;
      q->status = q->kind == REQ_SEND ? UCS_ERR_CANCELED : UCS_OK;
    }
  }
  fake_req *r = new_request(REQ_CLOSE, ep->worker, param);
  r->ready = 1;
  r->status = UCS_OK;
  if (ep == conn_ep) {
    conn_ep = NULL;
  }
  /* The endpoint's memory goes with its close request's completion in
   * UCX; here it is simply kept until the input ends. */
  free(ep);
  return r;
}

void ucp_ep_print_info(ucp_ep_h ep, FILE *stream) {
  FUZZ_CHECK(ep != NULL);
  fprintf(stream, "#\n# UCP endpoint (fuzz stand-in)\n#   lane[0]: tcp/lo\n");
}

ucs_status_t ucp_listener_create(ucp_worker_h worker, const ucp_listener_params_t *params,
                                 ucp_listener_h *out) {
  if ((failing & FAKE_FAIL_LISTENER) != 0u) {
    return UCS_ERR_IO_ERROR;
  }
  ucp_listener_h l = calloc(1, sizeof *l);
  FUZZ_CHECK(l != NULL && params->conn_handler.cb != NULL);
  l->worker = worker;
  l->on_request = params->conn_handler.cb;
  l->request_arg = params->conn_handler.arg;
  worker->listener_worker = 1;
  the_listener = l;
  *out = l;
  return UCS_OK;
}

void ucp_listener_destroy(ucp_listener_h listener) {
  if (listener == the_listener) {
    the_listener = NULL;
  }
  free(listener);
}

ucs_status_t ucp_listener_query(ucp_listener_h listener, ucp_listener_attr_t *attr) {
  FUZZ_CHECK(listener != NULL);
  if ((failing & FAKE_FAIL_QUERY) != 0u) {
    return UCS_ERR_IO_ERROR;
  }
  memset(&attr->sockaddr, 0, sizeof attr->sockaddr);
  if ((now_ms & 1u) != 0u) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&attr->sockaddr;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(13338);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&attr->sockaddr;
    a->sin_family = AF_INET;
    a->sin_port = htons(13337);
  }
  return UCS_OK;
}

ucs_status_t ucp_listener_reject(ucp_listener_h listener, ucp_conn_request_h request) {
  FUZZ_CHECK(listener != NULL && request != NULL && live_conn_requests > 0);
  free(request);
  live_conn_requests--;
  return UCS_OK;
}

const char *ucs_status_string(ucs_status_t status) {
  switch (status) {
    case UCS_OK: return "Success";
    case UCS_INPROGRESS: return "Operation in progress";
    case UCS_ERR_IO_ERROR: return "Input/output error";
    case UCS_ERR_NO_MEMORY: return "Out of memory";
    case UCS_ERR_MESSAGE_TRUNCATED: return "Message truncated";
    case UCS_ERR_UNREACHABLE: return "Destination is unreachable";
    case UCS_ERR_CANCELED: return "Request canceled";
    case UCS_ERR_CONNECTION_RESET: return "Connection reset by remote peer";
    case UCS_ERR_ENDPOINT_TIMEOUT: return "Endpoint timeout";
    default: return "Unknown error";
  }
}

FUZZ_ORACLE_END
