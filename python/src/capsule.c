/*
 * The `hurray_tensor` capsule (hurray_capsule.h): Tensor.__hurray__ offers a
 * tensor's buffers through libhurray's handoffs, from_hurray accepts them
 * from any producer (specs/python.md PY-CAP-1..5).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray_capsule.h"
#include "native.h"

/* ---- __hurray__ export (PY-CAP-1..5) ---- */

typedef struct {
  hurray_capsule_tensor pub;
  PyObject *tensor;
} export_state;

static void export_release_buffer(void *buffer, void *ctx) {
  (void)buffer;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

static void export_noop_event_release(void *event, void *ctx) {
  /* The event belongs to the import this tensor relays; that import releases
   * it when its last user is gone (PY-CAP-5). */
  (void)event;
  (void)ctx;
}

static void export_destroy(hurray_capsule_tensor *self) {
  export_state *e = (export_state *)self;
  PyGILState_STATE g = PyGILState_Ensure();
  for (uint32_t i = 0; i < self->buffer_count; i++) {
    hurray_handoff *h = &self->handoffs[i];
    if (hurray_handoff_state_of(h) == HURRAY_HANDOFF_OFFERED &&
        hurray_handoff_withdraw(h, NULL) == HURRAY_OK) {
      Py_DECREF(e->tensor); /* the reference the withdrawn offer held */
    }
    cleanup_status_dropped(hurray_handoff_destroy(h, NULL));
  }
  Py_DECREF(e->tensor);
  PyMem_RawFree(self->handoffs);
  PyMem_RawFree(e);
  PyGILState_Release(g);
}

static void capsule_destructor(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, HURRAY_CAPSULE_NAME)) {
    return; /* consumed: the consumer owns it (PY-CAP-3) */
  }
  hurray_capsule_tensor *ct = PyCapsule_GetPointer(capsule, HURRAY_CAPSULE_NAME);
  if (ct != NULL && ct->destroy != NULL) {
    ct->destroy(ct);
  }
}

PyObject *hurray_py_tensor_hurray(PyObject *self, PyObject *args, PyObject *kwds) {
  static const char *const kwlist[] = {NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwds, ":__hurray__", KWLIST(kwlist))) {
    return NULL;
  }
  TensorObject *t = (TensorObject *)self;
  export_state *e = PyMem_RawCalloc(1, sizeof *e);
  hurray_handoff *handoffs = PyMem_RawCalloc(t->count, sizeof *handoffs);
  if (e == NULL || handoffs == NULL) {
    PyMem_RawFree(e);
    PyMem_RawFree(handoffs);
    return PyErr_NoMemory();
  }
  e->pub.struct_size = (uint32_t)sizeof e->pub;
  e->pub.version = HURRAY_CAPSULE_VERSION;
  e->pub.dtype = ((DTypeObject *)t->dtype)->code;
  e->pub.ndim = (uint32_t)t->ndim;
  memcpy(e->pub.shape, t->shape, t->ndim * sizeof t->shape[0]);
  e->pub.buffer_count = (uint32_t)t->count;
  e->pub.handoffs = handoffs;
  e->pub.destroy = export_destroy;
  e->tensor = Py_NewRef(self);
  for (size_t i = 0; i < t->count; i++) {
    hurray_handoff_init(&handoffs[i]);
    hurray_buffer_offer offer = hurray_buffer_offer_make(t->data[i], export_release_buffer, self,
                                                         hurray_sync_payload_none());
    if (t->handles[i].sync_mode == HURRAY_SYNC_EVENT) {
      offer.sync = hurray_sync_payload_event(t->events[i], t->handles[i].device_tag,
                                             export_noop_event_release, NULL);
    } else if (t->handles[i].sync_mode == HURRAY_SYNC_CONSUMER_STREAM) {
      offer.sync = hurray_sync_payload_stream(t->streams[i], t->handles[i].device_tag);
    }
    hurray_error err;
    hurray_status st = hurray_handoff_offer(&handoffs[i], &t->handles[i], &offer, &err);
    if (st != HURRAY_OK) {
      e->pub.buffer_count = (uint32_t)i + 1u;
      export_destroy(&e->pub);
      return hurray_py_raise(st, &err, "__hurray__");
    }
    Py_INCREF(self); /* released by export_release_buffer or by withdraw */
  }
  PyObject *capsule = PyCapsule_New(&e->pub, HURRAY_CAPSULE_NAME, capsule_destructor);
  if (capsule == NULL) {
    export_destroy(&e->pub);
  }
  return capsule;
}

/* ---- from_hurray import ---- */

/* Owns an accepted capsule tensor: releases its buffers (events first) and
 * calls its destroy once no tensor uses it (PY-CAP-4). */
typedef struct {
  PyObject_HEAD hurray_capsule_tensor *ct;
} ImportObject;

static void import_release_all(hurray_capsule_tensor *ct, uint32_t accepted) {
  for (uint32_t i = 0; i < accepted; i++) {
    hurray_handoff *h = &ct->handoffs[i];
    uint32_t s = hurray_handoff_state_of(h);
    if (s == HURRAY_HANDOFF_EVENT_PENDING || s == HURRAY_HANDOFF_EVENT_WAITED) {
      cleanup_status_dropped(hurray_handoff_release_event(h, NULL));
    }
    cleanup_status_dropped(hurray_handoff_release(h, NULL));
  }
}

static void Import_dealloc(PyObject *self) {
  ImportObject *o = (ImportObject *)self;
  if (o->ct != NULL) {
    import_release_all(o->ct, o->ct->buffer_count);
    o->ct->destroy(o->ct);
  }
  PyObject_Free(self);
}

static PyTypeObject ImportType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray._Import",
    .tp_basicsize = sizeof(ImportObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = Import_dealloc,
};

static PyObject *not_importable(PyObject *obj) {
  PyErr_Format(PyExc_TypeError,
               "from_hurray needs an object with __hurray__() or a "
               "'hurray_tensor' capsule, not %.100s",
               Py_TYPE(obj)->tp_name);
  return NULL;
}

/* Gives back the buffers accepted so far, and the tensor that held them; the
 * rest stays offered and the capsule's destructor withdraws it (HO-OWN-2). */
static void import_abandon(hurray_capsule_tensor *ct, uint32_t accepted, TensorObject *t) {
  import_release_all(ct, accepted);
  Py_DECREF(t);
}

static PyObject *from_capsule(PyObject *capsule) {
  if (!PyCapsule_CheckExact(capsule)) {
    return not_importable(capsule);
  }
  const char *name = PyCapsule_GetName(capsule);
  if (name != NULL && strcmp(name, HURRAY_CAPSULE_USED_NAME) == 0) {
    return hurray_py_raise_with(HURRAY_PY_ERR_HANDOFF, "from_hurray",
                                "the capsule was already consumed (named "
                                "'used_hurray_tensor'); a capsule hands its buffers over once "
                                "(PY-CAP-3)",
                                HURRAY_ERR_ALREADY_RELEASED, 0, 0, 0);
  }
  if (name == NULL || strcmp(name, HURRAY_CAPSULE_NAME) != 0) {
    PyErr_Format(PyExc_TypeError, "from_hurray: capsule is named %s, not 'hurray_tensor'",
                 name == NULL ? "NULL" : name);
    return NULL;
  }
  hurray_capsule_tensor *ct = PyCapsule_GetPointer(capsule, HURRAY_CAPSULE_NAME);
  if (ct == NULL) {
    return NULL;
  }
  const char *problem = NULL;
  if (ct->struct_size < sizeof *ct) {
    problem = "the capsule's struct_size is smaller than hurray_capsule_tensor";
  } else if (ct->version != HURRAY_CAPSULE_VERSION) {
    problem = "the capsule's version is not 1";
  } else if (ct->dtype >= HURRAY_DTYPE_COUNT) {
    problem = "the capsule's dtype code is unknown";
  } else if (ct->ndim > HURRAY_CAPSULE_MAX_DIMS) {
    problem = "the capsule has more than 32 dimensions";
  } else if (ct->buffer_count == 0 || ct->buffer_count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    problem = "the capsule's buffer_count is outside 1..255";
  } else if (ct->handoffs == NULL || ct->destroy == NULL) {
    problem = "the capsule has no handoffs or no destroy function";
  }
  if (problem != NULL) {
    return hurray_py_raise_with(HURRAY_PY_ERR_BASE, "from_hurray", problem,
                                HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 0);
  }
  DTypeObject *dtype = (DTypeObject *)hurray_py_dtype(ct->dtype);
  uint64_t nbytes = dtype->itemsize;
  for (uint32_t d = 0; d < ct->ndim; d++) {
    if (ct->shape[d] < 0 || __builtin_mul_overflow(nbytes, (uint64_t)ct->shape[d], &nbytes)) {
      return hurray_py_raise_with(HURRAY_PY_ERR_BASE, "from_hurray",
                                  "the capsule's shape has a negative or overflowing dimension",
                                  HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)ct->shape[d], 0, d);
    }
  }
  TensorObject *t =
      hurray_py_tensor_alloc((PyTypeObject *)hurray_py_tensor_class(), ct->buffer_count);
  if (t == NULL) {
    return NULL;
  }
  uint32_t accepted = 0;
  hurray_error err;
  hurray_status st = HURRAY_OK;
  for (; accepted < ct->buffer_count; accepted++) {
    hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
    st = hurray_handoff_accept(&ct->handoffs[accepted], HURRAY_TRANSPORT_IN_PROCESS, 0, &out, &err);
    if (st != HURRAY_OK) {
      err.index = accepted;
      break;
    }
    t->handles[accepted] = out.handle;
    t->data[accepted] = out.data;
    t->events[accepted] = out.event;
    t->streams[accepted] = out.stream;
  }
  const char *context = "from_hurray: accepting a buffer";
  if (st == HURRAY_OK) {
    context = "from_hurray: the buffers are not colocated";
    st = hurray_validate_colocation(t->handles, t->count, NULL, &err);
  }
  if (st == HURRAY_OK && t->handles[0].byte_size != nbytes) {
    import_abandon(ct, accepted, t);
    return hurray_py_raise_with(HURRAY_PY_ERR_BASE, "from_hurray",
                                "buffer 0 does not hold the capsule's dtype and shape",
                                HURRAY_ERR_INVALID_ARGUMENT, 0, nbytes, 0);
  }
  if (st != HURRAY_OK) {
    import_abandon(ct, accepted, t);
    return hurray_py_raise(st, &err, context);
  }
  ImportObject *imp = PyObject_New(ImportObject, &ImportType);
  if (imp == NULL) {
    import_abandon(ct, accepted, t);
    return NULL;
  }
  imp->ct = ct;
  if (PyCapsule_SetName(capsule, HURRAY_CAPSULE_USED_NAME) < 0) {
    imp->ct = NULL;
    Py_DECREF(imp);
    import_abandon(ct, accepted, t);
    return NULL;
  }
  t->storage = STORAGE_OWNER;
  t->owner = (PyObject *)imp;
  if (hurray_py_tensor_finish(t, dtype, ct->shape, ct->ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

PyObject *hurray_py_from_hurray(PyObject *mod, PyObject *obj) {
  (void)mod;
  if (PyCapsule_CheckExact(obj)) {
    return from_capsule(obj);
  }
  PyObject *meth = PyObject_GetAttrString(obj, "__hurray__");
  if (meth == NULL) {
    PyErr_Clear();
    return not_importable(obj);
  }
  PyObject *capsule = PyObject_CallNoArgs(meth);
  Py_DECREF(meth);
  if (capsule == NULL) {
    return NULL;
  }
  PyObject *result = from_capsule(capsule);
  Py_DECREF(capsule);
  return result;
}

int hurray_py_capsule_ready(void) { return PyType_Ready(&ImportType); }
