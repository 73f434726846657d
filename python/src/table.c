/*
 * Buffer tables from Python: hurray.decode_table and hurray.encode_table
 * over libhurray's hurray_buffer_table_* (BP-TABLE-1..6).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "hurray/buffer.h"
#include "native.h"

PyObject *hurray_py_decode_table(PyObject *mod, PyObject *args, PyObject *kwds) {
  (void)mod;
  static const char *const kwlist[] = {"data", "exact", NULL};
  Py_buffer view;
  int exact = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|$p:decode_table", KWLIST(kwlist), &view,
                                   &exact)) {
    return NULL;
  }
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  size_t count = 0;
  hurray_error err;
  hurray_status st =
      exact ? hurray_buffer_table_decode_exact(view.buf, (size_t)view.len, handles,
                                               HURRAY_BUFFER_TABLE_MAX_HANDLES, &count, &err)
            : hurray_buffer_table_decode(view.buf, (size_t)view.len, handles,
                                         HURRAY_BUFFER_TABLE_MAX_HANDLES, &count, &err);
  PyBuffer_Release(&view);
  if (st != HURRAY_OK) {
    return hurray_py_raise(st, &err, "decode_table");
  }
  /* Colocated (BP-COLOC-1): one Device for every handle. */
  PyObject *device = NULL;
  if (count > 0) {
    device = hurray_py_device_new(handles[0].device_tag, 0, handles[0].memory_class);
    if (device == NULL) {
      return NULL;
    }
  }
  PyObject *tuple = hurray_py_handle_tuple(handles, count, device);
  Py_XDECREF(device);
  return tuple;
}

PyObject *hurray_py_table_bytes(const hurray_buffer_handle *handles, size_t count,
                                const char *context) {
  uint8_t out[HURRAY_BUFFER_TABLE_MAX_SIZE];
  size_t written;
  hurray_error err;
  hurray_status st = hurray_buffer_table_encode(handles, count, out, sizeof out, &written, &err);
  if (st != HURRAY_OK) {
    return hurray_py_raise(st, &err, context);
  }
  return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)written);
}

PyObject *hurray_py_encode_table(PyObject *mod, PyObject *arg) {
  (void)mod;
  PyObject *seq = PySequence_Fast(arg, "encode_table needs a sequence of BufferHandle");
  if (seq == NULL) {
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > (Py_ssize_t)HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    Py_DECREF(seq);
    return hurray_py_raise_with(HURRAY_PY_ERR_TABLE, "encode_table",
                                "a table holds at most 255 handles", HURRAY_ERR_CAPACITY,
                                (uint64_t)n, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyObject_TypeCheck(item, &hurray_py_handle_type)) {
      PyErr_Format(PyExc_TypeError, "encode_table: item %zd is %.100s, not a BufferHandle", i,
                   Py_TYPE(item)->tp_name);
      Py_DECREF(seq);
      return NULL;
    }
    handles[i] = ((HandleObject *)item)->handle;
  }
  Py_DECREF(seq);
  return hurray_py_table_bytes(handles, (size_t)n, "encode_table");
}
