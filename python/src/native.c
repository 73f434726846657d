/*
 * hurray._native: the C half of the Python package `hurray`; this file is
 * the module itself, its functions and its initialization.
 *
 * Every rule about handles, devices and tables is libhurray's: this module
 * builds handles with hurray_buffer_handle_with_memory_class, validates
 * devices and pairs through it, measures alignment with hurray_alignment_of,
 * encodes and decodes tables with hurray_buffer_table_*, and moves buffers
 * between extensions through hurray_handoff_* (specs/python.md, PY-...).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hurray/buffer.h"
#include "native.h"

static PyObject *mod_alignment_of(PyObject *mod, PyObject *arg) {
  (void)mod;
  void *p = PyLong_AsVoidPtr(arg);
  if (p == NULL && PyErr_Occurred()) {
    return NULL;
  }
  return PyLong_FromUnsignedLong(hurray_alignment_of(p));
}

static PyMethodDef module_methods[] = {
    {"from_hurray", hurray_py_from_hurray, METH_O,
     "from_hurray(obj) -> Tensor: imports obj.__hurray__() or a 'hurray_tensor' capsule; the\n"
     "capsule is renamed 'used_hurray_tensor' and cannot be consumed again (PY-CAP-3)."},
    {"_from_host", hurray_py_from_host, METH_VARARGS, "from_numpy's C half"},
    {"_set_tensor_class", hurray_py_set_tensor_class, METH_O, "internal"},
    {"decode_table", (PyCFunction)(void (*)(void))hurray_py_decode_table,
     METH_VARARGS | METH_KEYWORDS,
     "decode_table(data, *, exact=True) -> tuple of BufferHandle (BP-TABLE-1..6); exact=False\n"
     "ignores bytes after the table"},
    {"encode_table", hurray_py_encode_table, METH_O,
     "encode_table(handles) -> bytes; validates each handle and colocation first"},
    {"alignment_of", mod_alignment_of, METH_O,
     "alignment_of(address) -> largest power of two (<= 2**31) dividing it"},
    HURRAY_PY_DLPACK_METHODS{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hurray._native",
    .m_doc = "The C half of the hurray package, over libhurray.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void);
PyMODINIT_FUNC PyInit__native(void) {
  if (PyType_Ready(&hurray_py_dtype_type) < 0 || PyType_Ready(&hurray_py_device_type) < 0 ||
      PyType_Ready(&hurray_py_handle_type) < 0 || hurray_py_tensor_ready() < 0 ||
      hurray_py_capsule_ready() < 0 || hurray_py_dlpack_ready() < 0) {
    return NULL;
  }
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) {
    return NULL;
  }
  int bad = hurray_py_errors_add(m) < 0 ||
            PyModule_AddObjectRef(m, "Device", (PyObject *)&hurray_py_device_type) < 0 ||
            PyModule_AddObjectRef(m, "BufferHandle", (PyObject *)&hurray_py_handle_type) < 0 ||
            PyModule_AddObjectRef(m, "DType", (PyObject *)&hurray_py_dtype_type) < 0 ||
            PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&hurray_py_tensor_base_type) < 0 ||
            PyModule_AddIntConstant(m, "MIN_BUFFER_ALIGNMENT", HURRAY_MIN_BUFFER_ALIGNMENT) < 0 ||
            PyModule_AddIntConstant(m, "PAGE_ALIGNMENT", HURRAY_PAGE_ALIGNMENT) < 0 ||
            PyModule_AddIntConstant(m, "C_ABI_VERSION", (long)hurray_c_abi_version()) < 0 ||
            hurray_py_dtypes_add(m) < 0;
  if (bad || hurray_c_abi_version() < HURRAY_C_ABI_VERSION) {
    if (!bad) {
      PyErr_SetString(PyExc_ImportError, "libhurray's C ABI is older than this module needs");
    }
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
