/*
 * _hurray_test_producer: a producer and a consumer of 'hurray_tensor'
 * capsules written in C against hurray_capsule.h and libhurray's handoff
 * ABI, so the tests exercise buffers the binding did not make (an event-mode
 * buffer, a device buffer the host cannot read, malformed capsules) and a
 * consumer that is not the binding. Counts every callback it receives.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray_capsule.h"

/* Cleanup on a path that cannot report (a deallocator, an error already being
 * raised): the status is deliberately dropped, through a call rather than a
 * (void) cast, which gcc's warn_unused_result does not accept (VER-SYM-4). */
static void cleanup_status_dropped(hurray_status status) { (void)status; }

static long buffer_releases;
static long event_releases;
static long destroys;
static long withdrawn;
static int fake_event;     /* stands for a device event: only its address matters */
static int report_fd = -1; /* where release_buffer reports, for the exit test */

typedef struct {
  hurray_capsule_tensor pub;
  hurray_handoff handoff;
  void *data;
} producer;

static void release_buffer(void *buffer, void *ctx) {
  (void)ctx;
  free(buffer);
  buffer_releases++;
  if (report_fd >= 0) {
    ssize_t ignored = write(report_fd, "buffer released\n", 16);
    (void)ignored;
  }
}

static void release_event(void *event, void *ctx) {
  (void)event;
  (void)ctx;
  event_releases++;
}

static void destroy(hurray_capsule_tensor *self) {
  producer *p = (producer *)self;
  if (hurray_handoff_state_of(&p->handoff) == HURRAY_HANDOFF_OFFERED) {
    cleanup_status_dropped(hurray_handoff_withdraw(&p->handoff, NULL));
    free(p->data); /* withdrawn: still the producer's */
    withdrawn++;
  }
  cleanup_status_dropped(hurray_handoff_destroy(&p->handoff, NULL));
  free(p);
  destroys++;
}

static void capsule_destructor(PyObject *capsule) {
  if (PyCapsule_IsValid(capsule, HURRAY_CAPSULE_NAME)) {
    hurray_capsule_tensor *ct = PyCapsule_GetPointer(capsule, HURRAY_CAPSULE_NAME);
    ct->destroy(ct);
  }
}

/* make(kind, nbytes): kinds "cpu", "event" (cuda host_pinned, event mode),
 * "device" (cuda standard), and malformed ones "version", "dtype", "size",
 * "cpu_event" (a CPU buffer declared event: accept refuses it). */
static PyObject *make(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *kind;
  Py_ssize_t nbytes = 64;
  if (!PyArg_ParseTuple(args, "s|n", &kind, &nbytes)) {
    return NULL;
  }
  if (nbytes < 0) {
    PyErr_SetString(PyExc_ValueError, "nbytes < 0");
    return NULL;
  }
  producer *p = calloc(1, sizeof *p);
  void *data = NULL;
  if (p == NULL || posix_memalign(&data, 4096, (size_t)nbytes + 1u) != 0) {
    free(p);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < nbytes; i++) {
    ((unsigned char *)data)[i] = (unsigned char)(i & 0xFF);
  }
  p->data = data;
  p->pub.struct_size = sizeof p->pub;
  p->pub.version = strcmp(kind, "version") == 0 ? 7u : HURRAY_CAPSULE_VERSION;
  p->pub.dtype = strcmp(kind, "dtype") == 0 ? 99u : HURRAY_DTYPE_UINT8;
  p->pub.ndim = 1;
  p->pub.shape[0] = strcmp(kind, "size") == 0 ? nbytes + 1 : nbytes;
  p->pub.buffer_count = 1;
  p->pub.handoffs = &p->handoff;
  p->pub.destroy = destroy;
  hurray_device_tag tag = HURRAY_DEVICE_CPU;
  hurray_memory_class cls = HURRAY_MEMORY_STANDARD;
  hurray_sync_mode mode = HURRAY_SYNC_PRODUCER_SYNCED;
  hurray_sync_payload sync = hurray_sync_payload_none();
  if (strcmp(kind, "event") == 0) {
    tag = HURRAY_DEVICE_CUDA;
    cls = HURRAY_MEMORY_HOST_PINNED;
    mode = HURRAY_SYNC_EVENT;
    sync = hurray_sync_payload_event(&fake_event, tag, release_event, NULL);
  } else if (strcmp(kind, "device") == 0) {
    tag = HURRAY_DEVICE_CUDA;
  } else if (strcmp(kind, "cpu_event") == 0) {
    mode = HURRAY_SYNC_EVENT;
    sync = hurray_sync_payload_event(&fake_event, tag, release_event, NULL);
  }
  /* Written field by field: the point of "cpu_event" is a handle the
   * constructors would refuse and accept must refuse too. */
  hurray_buffer_handle h = {(uint64_t)nbytes, nbytes == 0 ? 1u : 4096u, tag, mode, cls, 0};
  hurray_buffer_offer offer = hurray_buffer_offer_make(data, release_buffer, NULL, sync);
  hurray_handoff_init(&p->handoff);
  hurray_error err;
  if (hurray_handoff_offer(&p->handoff, &h, &offer, &err) != HURRAY_OK) {
    free(data);
    free(p);
    PyErr_SetString(PyExc_RuntimeError, "offer failed");
    return NULL;
  }
  return PyCapsule_New(&p->pub, HURRAY_CAPSULE_NAME, capsule_destructor);
}

/* consume(capsule) -> list of (byte_size, alignment, sync_mode, data address):
 * a C consumer of a capsule the binding exported. Waits on events (it is
 * its own device runtime here), releases everything, then destroys. */
static PyObject *consume(PyObject *mod, PyObject *capsule) {
  (void)mod;
  hurray_capsule_tensor *ct = PyCapsule_GetPointer(capsule, HURRAY_CAPSULE_NAME);
  if (ct == NULL) {
    return NULL;
  }
  PyObject *out = PyList_New(0);
  if (out == NULL) {
    return NULL;
  }
  for (uint32_t i = 0; i < ct->buffer_count; i++) {
    hurray_accepted_buffer acc = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_error err;
    if (hurray_handoff_accept(&ct->handoffs[i], HURRAY_TRANSPORT_IN_PROCESS, 0, &acc, &err) !=
        HURRAY_OK) {
      Py_DECREF(out);
      PyErr_Format(PyExc_RuntimeError, "accept failed: %s", hurray_status_name(err.status));
      return NULL;
    }
    PyObject *item =
        Py_BuildValue("(KIsN)", (unsigned long long)acc.handle.byte_size, acc.handle.alignment,
                      hurray_sync_mode_name(acc.handle.sync_mode), PyLong_FromVoidPtr(acc.data));
    if (item == NULL || PyList_Append(out, item) < 0) {
      Py_XDECREF(item);
      Py_DECREF(out);
      return NULL;
    }
    Py_DECREF(item);
  }
  if (PyCapsule_SetName(capsule, HURRAY_CAPSULE_USED_NAME) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  for (uint32_t i = 0; i < ct->buffer_count; i++) {
    if (hurray_handoff_state_of(&ct->handoffs[i]) == HURRAY_HANDOFF_EVENT_PENDING) {
      cleanup_status_dropped(hurray_handoff_record_event_wait(&ct->handoffs[i], NULL));
      cleanup_status_dropped(hurray_handoff_release_event(&ct->handoffs[i], NULL));
    }
    cleanup_status_dropped(hurray_handoff_release(&ct->handoffs[i], NULL));
  }
  ct->destroy(ct);
  return out;
}

static PyObject *counts(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  return Py_BuildValue("{sl,sl,sl,sl}", "buffer_releases", buffer_releases, "event_releases",
                       event_releases, "destroys", destroys, "withdrawn", withdrawn);
}

static PyObject *set_report_fd(PyObject *mod, PyObject *arg) {
  (void)mod;
  report_fd = (int)PyLong_AsLong(arg);
  if (PyErr_Occurred()) {
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"set_report_fd", set_report_fd, METH_O, "set_report_fd(fd): report each release there"},
    {"make", make, METH_VARARGS, "make(kind, nbytes=64) -> a 'hurray_tensor' capsule"},
    {"consume", consume, METH_O, "consume(capsule) -> what a C consumer accepted"},
    {"counts", counts, METH_NOARGS, "callback counts so far"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_hurray_test_producer",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__hurray_test_producer(void);
PyMODINIT_FUNC PyInit__hurray_test_producer(void) { return PyModule_Create(&module_def); }
