/*
 * hurray.DType: the element types, singletons with the stable codes of
 * hurray_capsule.h and their DLPack (code, bits).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "hurray_capsule.h"
#include "native.h"

static const struct {
  const char *name;
  uint32_t itemsize;
  uint8_t dl_code;
} dtype_table[HURRAY_DTYPE_COUNT] = {
    {"bool", 1, 6},     {"int8", 1, 0},    {"int16", 2, 0},   {"int32", 4, 0},  {"int64", 8, 0},
    {"uint8", 1, 1},    {"uint16", 2, 1},  {"uint32", 4, 1},  {"uint64", 8, 1}, {"float16", 2, 2},
    {"bfloat16", 2, 4}, {"float32", 4, 2}, {"float64", 8, 2},
};

static PyObject *dtype_objects[HURRAY_DTYPE_COUNT];

static PyObject *DType_repr(PyObject *self) {
  return PyUnicode_FromFormat("hurray.%s", ((DTypeObject *)self)->name);
}

static PyObject *DType_get_name(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(((DTypeObject *)self)->name);
}
static PyObject *DType_get_itemsize(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLong(((DTypeObject *)self)->itemsize);
}
static PyObject *DType_get_code(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLong(((DTypeObject *)self)->code);
}
static PyObject *DType_get_dlpack(PyObject *self, void *closure) {
  (void)closure;
  DTypeObject *d = (DTypeObject *)self;
  return Py_BuildValue("(iii)", (int)d->dl_code, (int)d->dl_bits, 1);
}

static PyGetSetDef DType_getset[] = {
    {"name", DType_get_name, NULL, "the element type's name (\"float32\")", NULL},
    {"itemsize", DType_get_itemsize, NULL, "bytes per element", NULL},
    {"code", DType_get_code, NULL, "the stable code of hurray_capsule.h (HURRAY_DTYPE_*)", NULL},
    {"dlpack", DType_get_dlpack, NULL, "DLPack (code, bits, lanes)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject hurray_py_dtype_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.DType",
    .tp_basicsize = sizeof(DTypeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "An element type: hurray.bool, int8..int64, uint8..uint64, float16, bfloat16, "
        "float32, float64. Singletons; compare with `is` or ==.",
    .tp_repr = DType_repr,
    .tp_getset = DType_getset,
};

DTypeObject *hurray_py_as_dtype(PyObject *obj) {
  if (PyObject_TypeCheck(obj, &hurray_py_dtype_type)) {
    return (DTypeObject *)obj;
  }
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) {
      return NULL;
    }
    for (uint32_t c = 0; c < HURRAY_DTYPE_COUNT; c++) {
      if (strcmp(s, dtype_table[c].name) == 0) {
        return (DTypeObject *)dtype_objects[c];
      }
    }
    PyErr_Format(PyExc_ValueError,
                 "unknown element type %R (known: bool, int8..int64, "
                 "uint8..uint64, float16, bfloat16, float32, float64)",
                 obj);
    return NULL;
  }
  PyErr_Format(PyExc_TypeError,
               "dtype must be a hurray element type such as hurray.float32, "
               "not %.100s",
               Py_TYPE(obj)->tp_name);
  return NULL;
}

PyObject *hurray_py_dtype(uint32_t code) {
  return code < HURRAY_DTYPE_COUNT ? dtype_objects[code] : NULL;
}

void hurray_py_dtype_dlpack(PyObject *dtype, uint8_t *code, uint8_t *bits) {
  *code = ((DTypeObject *)dtype)->dl_code;
  *bits = ((DTypeObject *)dtype)->dl_bits;
}

int hurray_py_dtypes_add(PyObject *m) {
  for (uint32_t c = 0; c < HURRAY_DTYPE_COUNT; c++) {
    DTypeObject *d = PyObject_New(DTypeObject, &hurray_py_dtype_type);
    if (d == NULL) {
      return -1;
    }
    d->code = c;
    d->itemsize = dtype_table[c].itemsize;
    d->name = dtype_table[c].name;
    d->dl_code = dtype_table[c].dl_code;
    d->dl_bits = (uint8_t)(dtype_table[c].itemsize * 8u);
    dtype_objects[c] = (PyObject *)d;
    if (PyModule_AddObjectRef(m, d->name, (PyObject *)d) < 0) {
      return -1;
    }
  }
  return 0;
}
