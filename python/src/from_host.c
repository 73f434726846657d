/*
 * from_numpy's C half: a CPU tensor that shares the C-contiguous bytes an
 * object exports when their measured alignment allows, or copies them into
 * aligned memory (specs/python.md PY-ALIGN-1..3).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>

#include "hurray/buffer.h"
#include "hurray_capsule.h"
#include "native.h"

/* _from_host(obj, dtype, shape, copy, max_alignment): a CPU tensor over the
 * C-contiguous bytes `obj` exports. copy: None (share when the measured
 * alignment reaches 64, else copy), False (share or raise
 * CopyRequiredError), True (always copy). PY-ALIGN-1..3. */
PyObject *hurray_py_from_host(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *obj;
  PyObject *dtype_obj;
  PyObject *shape_obj;
  PyObject *copy_obj;
  unsigned int max_alignment;
  if (!PyArg_ParseTuple(args, "OOOOI:_from_host", &obj, &dtype_obj, &shape_obj, &copy_obj,
                        &max_alignment)) {
    return NULL;
  }
  DTypeObject *dtype = hurray_py_as_dtype(dtype_obj);
  if (dtype == NULL) {
    return NULL;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  size_t ndim;
  uint64_t nbytes;
  if (hurray_py_parse_shape(shape_obj, dtype, shape, &ndim, &nbytes) < 0) {
    return NULL;
  }
  TensorObject *t = hurray_py_tensor_alloc((PyTypeObject *)hurray_py_tensor_class(), 1);
  if (t == NULL) {
    return NULL;
  }
  if (PyObject_GetBuffer(obj, &t->view, PyBUF_C_CONTIGUOUS) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  t->storage = STORAGE_VIEW;
  if ((uint64_t)t->view.len != nbytes) {
    PyErr_Format(PyExc_ValueError, "the array holds %zd bytes; %s of shape %R needs %llu",
                 t->view.len, dtype->name, shape_obj, (unsigned long long)nbytes);
    Py_DECREF(t);
    return NULL;
  }
  size_t size = (size_t)t->view.len;
  hurray_error err;
  hurray_status st;
  if (size == 0) {
    st = hurray_buffer_handle_new(0, 1, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                  &t->handles[0], &err);
  } else {
    st = HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM;
    if (copy_obj != Py_True) {
      st = hurray_buffer_handle_for_host_memory(t->view.buf, size, max_alignment, &t->handles[0],
                                                &err);
      t->data[0] = t->view.buf;
    }
    if (st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM && copy_obj == Py_False) {
      char msg[300];
      uint32_t measured = hurray_alignment_of(t->view.buf);
      snprintf(msg, sizeof msg,
               "array is %u-byte aligned, below the 64-byte minimum (BP-ALIGN-2); copy=False "
               "forbids the copy into aligned memory (allocate it inside "
               "hurray.aligned_allocator() to share it)",
               measured);
      Py_DECREF(t);
      return hurray_py_raise_with(HURRAY_PY_ERR_COPY, NULL, msg, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM,
                                  measured, HURRAY_MIN_BUFFER_ALIGNMENT, 0);
    }
    if (st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
      uint32_t want = hurray_py_tensor_copy_in(t, t->view.buf, size);
      if (want == 0) {
        Py_DECREF(t);
        return NULL;
      }
      st = hurray_buffer_handle_for_host_memory(
          t->block, size, hurray_py_min_u32(want, max_alignment), &t->handles[0], &err);
    }
  }
  if (st != HURRAY_OK) {
    Py_DECREF(t);
    return hurray_py_raise(st, &err, "from_numpy");
  }
  if (hurray_py_tensor_finish(t, dtype, shape, ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}
