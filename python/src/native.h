/*
 * Shared between the files of hurray._native (not installed).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PY_NATIVE_H
#define HURRAY_PY_NATIVE_H

#include <Python.h>

#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray_capsule.h"

/* A tensor: its buffers' handles and data pointers, and whatever keeps the
 * bytes alive (see `storage` in native.c). */
typedef struct {
  PyObject_HEAD
  PyObject *weakreflist;
  PyObject *dtype;
  PyObject *device;
  PyObject *shape_tuple;
  PyObject *handle_tuple;
  PyObject *owner;
  size_t count;
  size_t ndim;
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  hurray_buffer_handle *handles;
  void **data;
  /* Per buffer: the producer's event or stream (imports only), for relays. */
  void **events;
  void **streams;
  int storage;
  void *block;
  Py_buffer view;
} TensorObject;

#define HURRAY_PY_ERR_BASE 0
#define HURRAY_PY_ERR_UNSUPPORTED 1
#define HURRAY_PY_ERR_COPY 2
#define HURRAY_PY_ERR_HANDOFF 3

PyObject *hurray_py_raise(hurray_status status, const hurray_error *err, const char *context);
PyObject *hurray_py_error(int kind, const char *context, const char *message);
PyObject *hurray_py_dtype(uint32_t code);
int hurray_py_is_tensor(PyObject *obj);
PyObject *hurray_py_tensor_class(void);
void hurray_py_dtype_dlpack(PyObject *dtype, uint8_t *code, uint8_t *bits);
uint32_t hurray_py_device_index(PyObject *device);
int hurray_py_check_readable(TensorObject *t, size_t i, const char *path);
PyObject *hurray_py_tensor_over(void *data, size_t size, const hurray_buffer_handle *handle,
                                PyObject *owner, PyObject *dtype_obj, const int64_t *shape,
                                size_t ndim);

/* dlpack.c: readies its types; its module methods. */
int hurray_py_dlpack_ready(void);
PyObject *hurray_py_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *hurray_py_tensor_dlpack_device(PyObject *self, PyObject *unused);
PyObject *hurray_py_from_dlpack_capsule(PyObject *mod, PyObject *args);
#define HURRAY_PY_DLPACK_METHODS                                                               \
  {"_from_dlpack_capsule", hurray_py_from_dlpack_capsule, METH_VARARGS,                       \
   "from_dlpack's C half"},

#endif
