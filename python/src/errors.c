/*
 * hurray._native's exceptions: the classes, and which one a libhurray status
 * raises, with the C error's fields as attributes (specs/python.md PY-ERR-1).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hurray/buffer.h"
#include "native.h"

static PyObject *HurrayError;
static PyObject *HandleError;
static PyObject *ColocationError;
static PyObject *TableError;
static PyObject *HandoffError;
static PyObject *CopyRequiredError;
static PyObject *NotReadableError;
static PyObject *UnsupportedError;

static PyObject *error_class_for(hurray_status status) {
  switch (status) {
    case HURRAY_ERR_DEVICE_TAG_MISMATCH:
    case HURRAY_ERR_MEMORY_CLASS_MISMATCH: return ColocationError;
    case HURRAY_ERR_EMPTY_BUFFER_LIST:
    case HURRAY_ERR_TRUNCATED:
    case HURRAY_ERR_TRAILING_BYTES:
    case HURRAY_ERR_CAPACITY: return TableError;
    case HURRAY_ERR_SYNC_MODE_MISMATCH:
    case HURRAY_ERR_ILLEGAL_TRANSITION:
    case HURRAY_ERR_ALREADY_RELEASED:
    case HURRAY_ERR_USE_AFTER_DESTROY:
    case HURRAY_ERR_SYNC_MODE_NOT_ALLOWED: return HandoffError;
    case HURRAY_ERR_UNSUPPORTED: return UnsupportedError;
    case HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO:
    case HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM:
    case HURRAY_ERR_INVALID_SYNC_MODE:
    case HURRAY_ERR_RESERVED_DEVICE_TAG:
    case HURRAY_ERR_INVALID_DEVICE_TAG:
    case HURRAY_ERR_RESERVED_MEMORY_CLASS:
    case HURRAY_ERR_INVALID_MEMORY_CLASS:
    case HURRAY_ERR_INVALID_PAIR:
    case HURRAY_ERR_RESERVED_BYTE_NONZERO: return HandleError;
    default: return HurrayError;
  }
}

/* Raises `cls` with message "<context>: <message>" and the C error's fields as
 * attributes (PY-ERR-1). status may be HURRAY_OK for errors of the binding's
 * own that carry no C status: then .status is None. */
static PyObject *raise_with(PyObject *cls, const char *context, const char *message,
                            hurray_status status, uint64_t value, uint64_t expected, size_t index) {
  PyObject *text = context != NULL ? PyUnicode_FromFormat("%s: %s", context, message)
                                   : PyUnicode_FromString(message);
  if (text == NULL) {
    return NULL;
  }
  PyObject *exc = PyObject_CallOneArg(cls, text);
  Py_DECREF(text);
  if (exc == NULL) {
    return NULL;
  }
  PyObject *status_name = status == HURRAY_OK ? Py_NewRef(Py_None)
                                              : PyUnicode_FromString(hurray_status_name(status));
  PyObject *status_code = status == HURRAY_OK ? Py_NewRef(Py_None) : PyLong_FromLong((long)status);
  PyObject *v = PyLong_FromUnsignedLongLong(value);
  PyObject *x = PyLong_FromUnsignedLongLong(expected);
  PyObject *i = PyLong_FromSize_t(index);
  PyObject *m = PyUnicode_FromString(message);
  int bad = status_name == NULL || status_code == NULL || v == NULL || x == NULL || i == NULL ||
            m == NULL || PyObject_SetAttrString(exc, "status", status_name) < 0 ||
            PyObject_SetAttrString(exc, "status_code", status_code) < 0 ||
            PyObject_SetAttrString(exc, "value", v) < 0 ||
            PyObject_SetAttrString(exc, "expected", x) < 0 ||
            PyObject_SetAttrString(exc, "index", i) < 0 ||
            PyObject_SetAttrString(exc, "message", m) < 0;
  Py_XDECREF(status_name);
  Py_XDECREF(status_code);
  Py_XDECREF(v);
  Py_XDECREF(x);
  Py_XDECREF(i);
  Py_XDECREF(m);
  if (!bad) {
    PyErr_SetObject(cls, exc);
  }
  Py_DECREF(exc);
  return NULL;
}

/* Raises the exception for a libhurray failure, its message from
 * hurray_error_format (the library's words, naming the values). */
PyObject *hurray_py_raise(hurray_status status, const hurray_error *err, const char *context) {
  char message[512];
  hurray_error_format(err, message, sizeof message);
  return raise_with(error_class_for(status), context, message, status, err->value, err->expected,
                    err->index);
}

/* The classes the other files name by kind (HURRAY_PY_ERR_*), for errors
 * with no libhurray failure behind them or with a status of their choosing. */
static PyObject *class_of_kind(int kind) {
  switch (kind) {
    case HURRAY_PY_ERR_UNSUPPORTED: return UnsupportedError;
    case HURRAY_PY_ERR_COPY: return CopyRequiredError;
    case HURRAY_PY_ERR_HANDOFF: return HandoffError;
    case HURRAY_PY_ERR_TABLE: return TableError;
    case HURRAY_PY_ERR_NOT_READABLE: return NotReadableError;
    default: return HurrayError;
  }
}

PyObject *hurray_py_raise_with(int kind, const char *context, const char *message,
                               hurray_status status, uint64_t value, uint64_t expected,
                               size_t index) {
  return raise_with(class_of_kind(kind), context, message, status, value, expected, index);
}

PyObject *hurray_py_error(int kind, const char *context, const char *message) {
  return raise_with(class_of_kind(kind), context, message, HURRAY_OK, 0, 0, 0);
}

static int add_error(PyObject *m, PyObject **slot, const char *name, PyObject *bases,
                     const char *doc) {
  char full[64];
  snprintf(full, sizeof full, "hurray.%s", name);
  *slot = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
  if (*slot == NULL) {
    return -1;
  }
  return PyModule_AddObjectRef(m, name, *slot);
}

/* The binding's exception classes, each after the class it derives from. */
static const struct error_class {
  PyObject **slot;
  const char *name;
  PyObject **base;  /* NULL: Exception */
  bool value_error; /* also derives from ValueError */
  const char *doc;
} error_classes[] = {
    {&HurrayError, "HurrayError", NULL, false,
     "Base of the binding's errors. Attributes: status (the C status name, "
     "e.g. 'INVALID_PAIR', or None), status_code, value, expected, index, "
     "message (libhurray's words)."},
    {&HandleError, "HandleError", &HurrayError, true,
     "A handle, device tag, memory class or pair the spec rejects."},
    {&TableError, "TableError", &HurrayError, true,
     "A buffer table that is truncated, too long, empty or over capacity."},
    {&CopyRequiredError, "CopyRequiredError", &HurrayError, true,
     "copy=False, but the source cannot be shared as it is."},
    {&ColocationError, "ColocationError", &HandleError, false,
     "Buffers on different devices or memory classes."},
    {&HandoffError, "HandoffError", &HurrayError, false,
     "A handoff or capsule used against its state machine."},
    {&NotReadableError, "NotReadableError", &HurrayError, false,
     "A buffer whose bytes the binding may not hand out (sync mode, device)."},
    {&UnsupportedError, "UnsupportedError", &HurrayError, false,
     "Something with no mapping (DLPack device or dtype)."},
};

int hurray_py_errors_add(PyObject *m) {
  for (size_t i = 0; i < sizeof error_classes / sizeof error_classes[0]; i++) {
    const struct error_class *c = &error_classes[i];
    PyObject *bases = NULL;
    if (c->base != NULL) {
      bases = c->value_error ? PyTuple_Pack(2, *c->base, PyExc_ValueError)
                             : PyTuple_Pack(1, *c->base);
      if (bases == NULL) {
        return -1;
      }
    }
    int added = add_error(m, c->slot, c->name, bases, c->doc);
    Py_XDECREF(bases);
    if (added < 0) {
      return -1;
    }
  }
  return 0;
}
