/*
 * A stand-in for UCX's <ucp/api/ucp.h>, written here for the net_receive
 * fuzz target (fuzz/fuzz_net_receive.c): it declares the part of the UCP API
 * that net/net.c calls, with the same names and meanings, so that net.c
 * compiles unchanged against it (-Ifuzz/fake_ucx) and its peer, its
 * messages and its failures are the fuzzer's (fuzz/fake_ucx.c). The
 * production build of net.c includes the real header; nothing here is
 * built into a library. Values are this file's own (a program built
 * against it talks to nobody but fuzz/fake_ucx.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_FAKE_UCP_H
#define HURRAY_FUZZ_FAKE_UCP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/* Statuses: 0 done, 1 still running, negative failures. */
typedef enum {
  UCS_OK = 0,
  UCS_INPROGRESS = 1,
  UCS_ERR_IO_ERROR = -3,
  UCS_ERR_NO_MEMORY = -4,
  UCS_ERR_MESSAGE_TRUNCATED = -5,
  UCS_ERR_UNREACHABLE = -6,
  UCS_ERR_CANCELED = -16,
  UCS_ERR_CONNECTION_RESET = -25,
  UCS_ERR_ENDPOINT_TIMEOUT = -80,
} ucs_status_t;

/* A request pointer, or a failure status encoded in the pointer's value. */
typedef void *ucs_status_ptr_t;
#define UCS_PTR_IS_ERR(p) ((uintptr_t)(p) >= (uintptr_t)-100)
#define UCS_PTR_STATUS(p) ((ucs_status_t)(intptr_t)(p))
#define UCS_STATUS_PTR(s) ((void *)(intptr_t)(s))

typedef enum { UCS_THREAD_MODE_SINGLE, UCS_THREAD_MODE_MULTI } ucs_thread_mode_t;

typedef uint64_t ucp_tag_t;
typedef struct fake_ucp_context *ucp_context_h;
typedef struct fake_ucp_worker *ucp_worker_h;
typedef struct fake_ucp_ep *ucp_ep_h;
typedef struct fake_ucp_listener *ucp_listener_h;
typedef struct fake_ucp_conn_request *ucp_conn_request_h;
typedef struct fake_ucp_config {
  int unused;
} ucp_config_t;

typedef struct {
  const struct sockaddr *addr;
  socklen_t addrlen;
} ucs_sock_addr_t;

enum { UCP_PARAM_FIELD_FEATURES = 1u << 0 };
enum { UCP_FEATURE_TAG = 1u << 0 };
typedef struct {
  uint64_t field_mask;
  uint64_t features;
} ucp_params_t;

enum { UCP_WORKER_PARAM_FIELD_THREAD_MODE = 1u << 0 };
typedef struct {
  uint64_t field_mask;
  ucs_thread_mode_t thread_mode;
} ucp_worker_params_t;

typedef struct {
  ucp_tag_t sender_tag;
  size_t length;
} ucp_tag_recv_info_t;

typedef void (*ucp_send_nbx_callback_t)(void *request, ucs_status_t status, void *user_data);
typedef void (*ucp_tag_recv_nbx_callback_t)(void *request, ucs_status_t status,
                                            const ucp_tag_recv_info_t *info, void *user_data);

enum {
  UCP_OP_ATTR_FIELD_CALLBACK = 1u << 0,
  UCP_OP_ATTR_FIELD_USER_DATA = 1u << 1,
  UCP_OP_ATTR_FIELD_FLAGS = 1u << 2,
  UCP_OP_ATTR_FLAG_NO_IMM_CMPL = 1u << 16,
};
enum { UCP_EP_CLOSE_FLAG_FORCE = 1u << 0 };
typedef struct {
  uint32_t op_attr_mask;
  uint32_t flags;
  union {
    ucp_send_nbx_callback_t send;
    ucp_tag_recv_nbx_callback_t recv;
  } cb;
  void *user_data;
} ucp_request_param_t;

typedef void (*ucp_err_handler_cb_t)(void *arg, ucp_ep_h ep, ucs_status_t status);
typedef enum { UCP_ERR_HANDLING_MODE_NONE, UCP_ERR_HANDLING_MODE_PEER } ucp_err_handling_mode_t;
enum {
  UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE = 1u << 0,
  UCP_EP_PARAM_FIELD_ERR_HANDLER = 1u << 1,
  UCP_EP_PARAM_FIELD_FLAGS = 1u << 2,
  UCP_EP_PARAM_FIELD_SOCK_ADDR = 1u << 3,
  UCP_EP_PARAM_FIELD_CONN_REQUEST = 1u << 4,
};
enum { UCP_EP_PARAMS_FLAGS_CLIENT_SERVER = 1u << 0 };
typedef struct {
  uint64_t field_mask;
  ucp_err_handling_mode_t err_mode;
  struct {
    ucp_err_handler_cb_t cb;
    void *arg;
  } err_handler;
  unsigned flags;
  ucs_sock_addr_t sockaddr;
  ucp_conn_request_h conn_request;
} ucp_ep_params_t;

typedef void (*ucp_listener_conn_callback_t)(ucp_conn_request_h request, void *arg);
enum {
  UCP_LISTENER_PARAM_FIELD_SOCK_ADDR = 1u << 0,
  UCP_LISTENER_PARAM_FIELD_CONN_HANDLER = 1u << 1,
};
typedef struct {
  uint64_t field_mask;
  ucs_sock_addr_t sockaddr;
  struct {
    ucp_listener_conn_callback_t cb;
    void *arg;
  } conn_handler;
} ucp_listener_params_t;

enum { UCP_LISTENER_ATTR_FIELD_SOCKADDR = 1u << 0 };
typedef struct {
  uint64_t field_mask;
  struct sockaddr_storage sockaddr;
} ucp_listener_attr_t;

ucs_status_t ucp_config_read(const char *env_prefix, const char *filename, ucp_config_t **out);
void ucp_config_release(ucp_config_t *config);
ucs_status_t ucp_init(const ucp_params_t *params, const ucp_config_t *config, ucp_context_h *out);
void ucp_cleanup(ucp_context_h context);
ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t *params,
                               ucp_worker_h *out);
void ucp_worker_destroy(ucp_worker_h worker);
unsigned ucp_worker_progress(ucp_worker_h worker);
ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *out);
ucs_status_ptr_t ucp_ep_close_nbx(ucp_ep_h ep, const ucp_request_param_t *param);
ucs_status_ptr_t ucp_ep_flush_nbx(ucp_ep_h ep, const ucp_request_param_t *param);
void ucp_ep_print_info(ucp_ep_h ep, FILE *stream);
ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buffer, size_t count, ucp_tag_t tag,
                                  const ucp_request_param_t *param);
ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h worker, void *buffer, size_t count, ucp_tag_t tag,
                                  ucp_tag_t tag_mask, const ucp_request_param_t *param);
void ucp_request_free(void *request);
void ucp_request_cancel(ucp_worker_h worker, void *request);
ucs_status_t ucp_request_check_status(void *request);
ucs_status_t ucp_listener_create(ucp_worker_h worker, const ucp_listener_params_t *params,
                                 ucp_listener_h *out);
void ucp_listener_destroy(ucp_listener_h listener);
ucs_status_t ucp_listener_query(ucp_listener_h listener, ucp_listener_attr_t *attr);
ucs_status_t ucp_listener_reject(ucp_listener_h listener, ucp_conn_request_h request);
const char *ucs_status_string(ucs_status_t status);

#endif /* HURRAY_FUZZ_FAKE_UCP_H */
