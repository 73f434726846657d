/*
 * hurray.BufferHandle: a buffer handle as a Python value, read from tensors
 * and tables and encoded to its 16 wire bytes (BP-WIRE-1).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>

#include "hurray/buffer.h"
#include "native.h"

PyObject *hurray_py_handle_new(const hurray_buffer_handle *h, PyObject *device) {
  HandleObject *o = PyObject_New(HandleObject, &hurray_py_handle_type);
  if (o == NULL) {
    return NULL;
  }
  o->handle = *h;
  if (device != NULL) {
    o->device = Py_NewRef(device);
  } else {
    o->device = hurray_py_device_new(h->device_tag, 0, h->memory_class);
    if (o->device == NULL) {
      Py_DECREF(o);
      return NULL;
    }
  }
  return (PyObject *)o;
}

PyObject *hurray_py_handle_tuple(const hurray_buffer_handle *handles, size_t count,
                                 PyObject *device) {
  PyObject *tuple = PyTuple_New((Py_ssize_t)count);
  if (tuple == NULL) {
    return NULL;
  }
  for (size_t i = 0; i < count; i++) {
    PyObject *h = hurray_py_handle_new(&handles[i], device);
    if (h == NULL) {
      Py_DECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, h);
  }
  return tuple;
}

static void Handle_dealloc(PyObject *self) {
  Py_XDECREF(((HandleObject *)self)->device);
  PyObject_Free(self);
}

#define H(self) (&((HandleObject *)(self))->handle)

static PyObject *Handle_get_byte_size(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong(hurray_buffer_handle_byte_size(H(s)));
}
static PyObject *Handle_get_alignment(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromUnsignedLong(hurray_buffer_handle_alignment(H(s)));
}
static PyObject *Handle_get_device(PyObject *s, void *c) {
  (void)c;
  return Py_NewRef(((HandleObject *)s)->device);
}
static PyObject *Handle_get_device_tag(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromLong(hurray_buffer_handle_device_tag(H(s)));
}
static PyObject *Handle_get_sync_mode(PyObject *s, void *c) {
  (void)c;
  return PyUnicode_FromString(hurray_sync_mode_name(hurray_buffer_handle_sync_mode(H(s))));
}
static PyObject *Handle_get_sync_mode_tag(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromLong(hurray_buffer_handle_sync_mode(H(s)));
}
static PyObject *Handle_get_memory_class(PyObject *s, void *c) {
  (void)c;
  return PyUnicode_FromString(hurray_memory_class_name(hurray_buffer_handle_memory_class(H(s))));
}
static PyObject *Handle_get_memory_class_tag(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromLong(hurray_buffer_handle_memory_class(H(s)));
}
static PyObject *Handle_get_is_empty(PyObject *s, void *c) {
  (void)c;
  return PyBool_FromLong(hurray_buffer_handle_is_empty(H(s)));
}

static PyGetSetDef Handle_getset[] = {
    {"byte_size", Handle_get_byte_size, NULL, "bytes in the buffer", NULL},
    {"alignment", Handle_get_alignment, NULL, "declared alignment of the base address", NULL},
    {"device", Handle_get_device, NULL, "the Device (the tensor's own object)", NULL},
    {"device_tag", Handle_get_device_tag, NULL, "the device_tag byte", NULL},
    {"sync_mode", Handle_get_sync_mode, NULL,
     "\"producer_synced\", \"event\" or \"consumer_stream\" (read-only)", NULL},
    {"sync_mode_tag", Handle_get_sync_mode_tag, NULL, "the sync_mode byte", NULL},
    {"memory_class", Handle_get_memory_class, NULL, "the memory class's name", NULL},
    {"memory_class_tag", Handle_get_memory_class_tag, NULL, "the memory_class byte", NULL},
    {"is_empty", Handle_get_is_empty, NULL, "byte_size == 0: never dereferenced", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *Handle_encode(PyObject *self, PyObject *unused) {
  (void)unused;
  uint8_t out[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(H(self), out);
  return PyBytes_FromStringAndSize((const char *)out, HURRAY_BUFFER_HANDLE_SIZE);
}

static PyObject *Handle_decode(PyObject *cls, PyObject *arg) {
  (void)cls;
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
    return NULL;
  }
  if (view.len != (Py_ssize_t)HURRAY_BUFFER_HANDLE_SIZE) {
    Py_ssize_t len = view.len;
    PyBuffer_Release(&view);
    return hurray_py_raise_with(HURRAY_PY_ERR_TABLE, "BufferHandle.decode",
                                "a handle is exactly 16 bytes", HURRAY_ERR_TRUNCATED, (uint64_t)len,
                                HURRAY_BUFFER_HANDLE_SIZE, 0);
  }
  hurray_buffer_handle h;
  hurray_error err;
  hurray_status st = hurray_buffer_handle_decode((const uint8_t *)view.buf, &h, &err);
  PyBuffer_Release(&view);
  if (st != HURRAY_OK) {
    return hurray_py_raise(st, &err, "BufferHandle.decode");
  }
  return hurray_py_handle_new(&h, NULL);
}

static PyMethodDef Handle_methods[] = {
    {"encode", Handle_encode, METH_NOARGS, "encode() -> the 16 wire bytes (BP-WIRE-1)"},
    {"decode", Handle_decode, METH_O | METH_CLASS,
     "BufferHandle.decode(b) -> handle; validates in the order of BP-ORDER-1"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Handle_repr(PyObject *self) {
  const hurray_buffer_handle *h = H(self);
  char text[240];
  snprintf(text, sizeof text,
           "hurray.BufferHandle(byte_size=%llu, alignment=%u, device=0x%02X %s, sync_mode=%s, "
           "memory_class=0x%02X %s)",
           (unsigned long long)h->byte_size, h->alignment, (unsigned)h->device_tag,
           hurray_device_tag_name(h->device_tag), hurray_sync_mode_name(h->sync_mode),
           (unsigned)h->memory_class, hurray_memory_class_name(h->memory_class));
  return PyUnicode_FromString(text);
}

static PyObject *Handle_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, &hurray_py_handle_type) || (op != Py_EQ && op != Py_NE)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  int eq = hurray_buffer_handle_equal(H(a), H(b)) &&
           hurray_py_device_equal((DeviceObject *)((HandleObject *)a)->device,
                                  (DeviceObject *)((HandleObject *)b)->device);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t Handle_hash(PyObject *self) {
  PyObject *b = Handle_encode(self, NULL);
  if (b == NULL) {
    return -1;
  }
  Py_hash_t h = PyObject_Hash(b);
  Py_DECREF(b);
  return h;
}

PyTypeObject hurray_py_handle_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.BufferHandle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "A buffer handle: a value copied out of a buffer table. It holds no reference\n"
        "to a tensor or a buffer, so keeping handles pins nothing. Python reads\n"
        "handles (Tensor.buffer_handles, decode_table, BufferHandle.decode) and\n"
        "never authors one field by field.",
    .tp_dealloc = Handle_dealloc,
    .tp_repr = Handle_repr,
    .tp_hash = Handle_hash,
    .tp_richcompare = Handle_richcompare,
    .tp_getset = Handle_getset,
    .tp_methods = Handle_methods,
};
