/*
 * DLPack for hurray._native, over libhurray's include/hurray/dlpack.h:
 * Tensor.__dlpack__ / __dlpack_device__ and the C half of from_dlpack
 * (specs/python.md PY-DLPACK-1..4).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "hurray/dlpack.h"
#include "hurray/handoff.h"
#include "native.h"

static void dlpack_release_owner(void *buffer, void *ctx) {
  (void)buffer;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

/* Calls a DLPack tensor's deleter, if it has one: the versioned struct's or
 * the legacy one's. */
static void dl_tensor_delete(void *managed, int versioned) {
  if (versioned) {
    hurray_dl_managed_tensor_versioned *m = managed;
    if (m->deleter != NULL) {
      m->deleter(m);
    }
  } else {
    hurray_dl_managed_tensor *m = managed;
    if (m->deleter != NULL) {
      m->deleter(m);
    }
  }
}

/* An unconsumed capsule deletes its tensor (DLPack's convention). */
static void dl_capsule_delete_unconsumed(PyObject *capsule, const char *name, int versioned) {
  if (PyCapsule_IsValid(capsule, name)) {
    void *m = PyCapsule_GetPointer(capsule, name);
    if (m != NULL) {
      dl_tensor_delete(m, versioned);
    }
  }
}

static void dltensor_capsule_destructor(PyObject *capsule) {
  dl_capsule_delete_unconsumed(capsule, "dltensor", 0);
}

static void dltensor_versioned_capsule_destructor(PyObject *capsule) {
  dl_capsule_delete_unconsumed(capsule, "dltensor_versioned", 1);
}

static hurray_dl_data_type dl_dtype_of(PyObject *dtype) {
  uint8_t code;
  uint8_t bits;
  hurray_py_dtype_dlpack(dtype, &code, &bits);
  return hurray_dl_data_type_of(code, bits, 1);
}

/* PY-DLPACK-1: an export never moves bytes between devices, so dl_device
 * must name the tensor's own (device type, id); BufferError otherwise, as
 * the array API standard asks of a producer that cannot export there. */
static int dl_device_is_ours(TensorObject *t, PyObject *dl_device) {
  int type = 0;
  unsigned long long id = 0;
  if (!PyTuple_Check(dl_device) || !PyArg_ParseTuple(dl_device, "iK", &type, &id)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "__dlpack__: dl_device must be a (device_type, device_id) tuple of ints, not %R",
                 dl_device);
    return 0;
  }
  int32_t own_type = 0;
  hurray_error err;
  hurray_status st = hurray_dlpack_device_type_from_pair(
      t->handles[0].device_tag, t->handles[0].memory_class, &own_type, &err);
  if (st != HURRAY_OK) {
    hurray_py_raise(st, &err, "__dlpack__");
    return 0;
  }
  unsigned long long own_id = (unsigned long long)hurray_py_device_index(t->device);
  if (type != own_type || id != own_id) {
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__: dl_device (%d, %llu) is not this tensor's device (%d, %llu); "
                 "the export does not copy between devices",
                 type, id, (int)own_type, own_id);
    return 0;
  }
  return 1;
}

/* PY-DLPACK-1: copy=True exports a copy of buffer 0, made by the tensor's
 * own constructor (aligned storage of the package's), never the original
 * bytes. The package copies host memory only: BufferError for a device
 * tensor. */
static PyObject *export_copy(PyObject *self, TensorObject *t, PyObject *stream,
                             PyObject *max_version) {
  if (t->handles[0].device_tag != HURRAY_DEVICE_CPU) {
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__: copy=True for a tensor in device memory (device tag 0x%02X): the "
                 "package copies host memory only",
                 (unsigned)t->handles[0].device_tag);
    return NULL;
  }
  PyObject *copy = NULL;
  PyObject *bytes = PyObject_CallMethod(self, "buffer", "i", 0);
  PyObject *dtype = bytes != NULL ? PyObject_GetAttrString(self, "dtype") : NULL;
  PyObject *shape = dtype != NULL ? PyObject_GetAttrString(self, "shape") : NULL;
  PyObject *device = shape != NULL ? PyObject_GetAttrString(self, "device") : NULL;
  PyObject *args = device != NULL ? PyTuple_Pack(3, bytes, dtype, shape) : NULL;
  PyObject *kwargs = args != NULL ? Py_BuildValue("{sO}", "device", device) : NULL;
  if (kwargs != NULL) {
    copy = PyObject_Call((PyObject *)Py_TYPE(self), args, kwargs);
  }
  Py_XDECREF(kwargs);
  Py_XDECREF(args);
  Py_XDECREF(device);
  Py_XDECREF(shape);
  Py_XDECREF(dtype);
  Py_XDECREF(bytes);
  if (copy == NULL) {
    return NULL;
  }
  PyObject *kw = Py_BuildValue("{sOsO}", "stream", stream, "max_version", max_version);
  PyObject *capsule = NULL;
  if (kw != NULL) {
    PyObject *none = PyTuple_New(0);
    if (none != NULL) {
      capsule = hurray_py_tensor_dlpack(copy, none, kw);
      Py_DECREF(none);
    }
    Py_DECREF(kw);
  }
  Py_DECREF(copy); /* the capsule holds its own reference */
  return capsule;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None):
 * buffer 0 as a DLPack capsule, zero copy unless copy=True; its deleter
 * drops the reference the capsule holds on the tensor, exactly once
 * (BP-DLPACK-5). A max_version of (1, x) gets a versioned, read-only
 * capsule. */
PyObject *hurray_py_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwds) {
  static const char *const kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None;
  PyObject *max_version = Py_None;
  PyObject *dl_device = Py_None;
  PyObject *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO:__dlpack__", KWLIST(kwlist), &stream,
                                   &max_version, &dl_device, &copy)) {
    return NULL;
  }
  TensorObject *t = (TensorObject *)self;
  if (dl_device != Py_None && !dl_device_is_ours(t, dl_device)) {
    return NULL;
  }
  if (copy == Py_True) {
    return export_copy(self, t, stream, max_version);
  }
  if (t->handles[0].sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
    hurray_py_check_readable(t, 0, "__dlpack__");
    return NULL;
  }
  if (stream != Py_None && t->handles[0].device_tag == HURRAY_DEVICE_CPU) {
    PyErr_Format(PyExc_ValueError, "__dlpack__: stream must be None for a CPU tensor, not %R",
                 stream);
    return NULL;
  }
  int versioned = 0;
  if (max_version != Py_None) {
    PyObject *major = PySequence_GetItem(max_version, 0);
    if (major == NULL) {
      return NULL;
    }
    long m = PyLong_AsLong(major);
    Py_DECREF(major);
    if (m == -1 && PyErr_Occurred()) {
      return NULL;
    }
    versioned = m >= 1;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  memcpy(shape, t->shape, t->ndim * sizeof shape[0]);
  int32_t device_id = (int32_t)hurray_py_device_index(t->device);
  hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(dl_dtype_of(t->dtype), (int32_t)t->ndim, shape, NULL, device_id);
  hurray_error err;
  hurray_status st;
  Py_INCREF(self); /* dropped by the deleter, or below on failure */
  PyObject *capsule = NULL;
  if (versioned) {
    hurray_dl_managed_tensor_versioned *m = NULL;
    st = hurray_dlpack_export_buffer_versioned(&t->handles[0], t->data[0], dlpack_release_owner,
                                               self, &layout, HURRAY_DLPACK_FLAG_READ_ONLY, &m,
                                               &err);
    if (st == HURRAY_OK) {
      capsule = PyCapsule_New(m, "dltensor_versioned", dltensor_versioned_capsule_destructor);
      if (capsule == NULL) {
        m->deleter(m);
      }
      return capsule;
    }
  } else {
    hurray_dl_managed_tensor *m = NULL;
    st = hurray_dlpack_export_buffer(&t->handles[0], t->data[0], dlpack_release_owner, self,
                                     &layout, &m, &err);
    if (st == HURRAY_OK) {
      capsule = PyCapsule_New(m, "dltensor", dltensor_capsule_destructor);
      if (capsule == NULL) {
        m->deleter(m);
      }
      return capsule;
    }
  }
  Py_DECREF(self);
  return hurray_py_raise(st, &err, "__dlpack__");
}

PyObject *hurray_py_tensor_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  TensorObject *t = (TensorObject *)self;
  int32_t type;
  hurray_error err;
  hurray_status st = hurray_dlpack_device_type_from_pair(t->handles[0].device_tag,
                                                         t->handles[0].memory_class, &type, &err);
  if (st != HURRAY_OK) {
    return hurray_py_raise(st, &err, "__dlpack_device__");
  }
  return Py_BuildValue("(iI)", (int)type, (unsigned)hurray_py_device_index(t->device));
}

/* ---- import ---- */

/* Owns a handoff holding an imported DLPack tensor; its release calls the
 * producer's deleter exactly once (BP-DLPACK-13). */
typedef struct {
  PyObject_HEAD hurray_handoff handoff;
} DLImportObject;

static void DLImport_dealloc(PyObject *self) {
  DLImportObject *o = (DLImportObject *)self;
  cleanup_status_dropped(hurray_handoff_release(&o->handoff, NULL));
  cleanup_status_dropped(hurray_handoff_destroy(&o->handoff, NULL));
  PyObject_Free(self);
}

static PyTypeObject DLImportType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray._DLImport",
    .tp_basicsize = sizeof(DLImportObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = DLImport_dealloc,
};

int hurray_py_dlpack_ready(void) { return PyType_Ready(&DLImportType); }

static PyObject *dtype_from_dl(hurray_dl_data_type d) {
  static const struct {
    uint8_t code, bits;
    uint32_t hurray;
  } map[] = {
      {HURRAY_DL_BOOL, 8, HURRAY_DTYPE_BOOL},        {HURRAY_DL_INT, 8, HURRAY_DTYPE_INT8},
      {HURRAY_DL_INT, 16, HURRAY_DTYPE_INT16},       {HURRAY_DL_INT, 32, HURRAY_DTYPE_INT32},
      {HURRAY_DL_INT, 64, HURRAY_DTYPE_INT64},       {HURRAY_DL_UINT, 8, HURRAY_DTYPE_UINT8},
      {HURRAY_DL_UINT, 16, HURRAY_DTYPE_UINT16},     {HURRAY_DL_UINT, 32, HURRAY_DTYPE_UINT32},
      {HURRAY_DL_UINT, 64, HURRAY_DTYPE_UINT64},     {HURRAY_DL_FLOAT, 16, HURRAY_DTYPE_FLOAT16},
      {HURRAY_DL_BFLOAT, 16, HURRAY_DTYPE_BFLOAT16}, {HURRAY_DL_FLOAT, 32, HURRAY_DTYPE_FLOAT32},
      {HURRAY_DL_FLOAT, 64, HURRAY_DTYPE_FLOAT64},
  };
  if (d.lanes == 1) {
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
      if (map[i].code == d.code && map[i].bits == d.bits) {
        return hurray_py_dtype(map[i].hurray);
      }
    }
  }
  char msg[160];
  snprintf(msg, sizeof msg, "DLPack dtype (code %u, bits %u, lanes %u) has no Hurray element type",
           (unsigned)d.code, (unsigned)d.bits, (unsigned)d.lanes);
  hurray_py_error(HURRAY_PY_ERR_UNSUPPORTED, "from_dlpack", msg);
  return NULL;
}

static int is_compact(const hurray_dl_tensor *t) {
  if (t->strides == NULL) {
    return 1;
  }
  int64_t expected = 1;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] > 1 && t->strides[d] != expected) {
      return 0;
    }
    expected *= t->shape[d];
  }
  return 1;
}

/* _from_dlpack_capsule(capsule, copy, max_alignment) -> Tensor. copy None:
 * share when the library accepts the tensor as it is (compact, measured
 * alignment >= 64), else copy a CPU tensor into aligned memory; False:
 * share or CopyRequiredError; True: always copy. The capsule is renamed
 * used_* once its tensor is ours. */
PyObject *hurray_py_from_dlpack_capsule(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *capsule;
  PyObject *copy;
  unsigned int max_alignment;
  if (!PyArg_ParseTuple(args, "OOI:_from_dlpack_capsule", &capsule, &copy, &max_alignment)) {
    return NULL;
  }
  if (!PyCapsule_CheckExact(capsule)) {
    PyErr_Format(PyExc_TypeError,
                 "from_dlpack needs an object with __dlpack__() or a DLPack "
                 "capsule, not %.100s",
                 Py_TYPE(capsule)->tp_name);
    return NULL;
  }
  const char *name = PyCapsule_GetName(capsule);
  int versioned;
  if (name != NULL && strcmp(name, "dltensor") == 0) {
    versioned = 0;
  } else if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
    versioned = 1;
  } else if (name != NULL && strncmp(name, "used_", 5) == 0) {
    return hurray_py_error(HURRAY_PY_ERR_HANDOFF, "from_dlpack",
                           "the DLPack capsule was already consumed");
  } else {
    PyErr_Format(PyExc_TypeError, "from_dlpack: capsule is named %s, not 'dltensor'",
                 name == NULL ? "NULL" : name);
    return NULL;
  }
  void *ptr = PyCapsule_GetPointer(capsule, name);
  if (ptr == NULL) {
    return NULL;
  }
  hurray_dl_tensor *dl = versioned ? &((hurray_dl_managed_tensor_versioned *)ptr)->dl_tensor
                                   : &((hurray_dl_managed_tensor *)ptr)->dl_tensor;
  if (versioned && ((hurray_dl_managed_tensor_versioned *)ptr)->version.major != 1) {
    return hurray_py_error(HURRAY_PY_ERR_UNSUPPORTED, "from_dlpack",
                           "DLPack major version is not 1");
  }
  if (dl->ndim < 0 || dl->ndim > (int32_t)HURRAY_CAPSULE_MAX_DIMS) {
    return hurray_py_error(HURRAY_PY_ERR_UNSUPPORTED, "from_dlpack",
                           "the DLPack tensor has more than 32 dimensions");
  }
  PyObject *dtype = dtype_from_dl(dl->dtype);
  if (dtype == NULL) {
    return NULL;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  size_t ndim = (size_t)dl->ndim;
  for (size_t d = 0; d < ndim; d++) {
    shape[d] = dl->shape[d];
  }
  DLImportObject *owner = PyObject_New(DLImportObject, &DLImportType);
  if (owner == NULL) {
    return NULL;
  }
  hurray_handoff_init(&owner->handoff);
  hurray_error err;
  hurray_status st = HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM;
  int want_copy = copy == Py_True;
  st = versioned ? hurray_dlpack_import_versioned(&owner->handoff, ptr, NULL, &err)
                 : hurray_dlpack_import(&owner->handoff, ptr, &err);
  if (st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM && copy != Py_False) {
    want_copy = 1;
  }
  if (st != HURRAY_OK && !want_copy) {
    cleanup_status_dropped(hurray_handoff_destroy(&owner->handoff, NULL));
    PyObject_Free(owner);
    if (st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
      char msg[300];
      snprintf(msg, sizeof msg,
               "array is %llu-byte aligned, below the 64-byte minimum (BP-ALIGN-2); copy=False "
               "forbids the copy into aligned memory",
               (unsigned long long)err.value);
      return hurray_py_error(HURRAY_PY_ERR_COPY, NULL, msg);
    }
    return hurray_py_raise(st, &err, "from_dlpack");
  }
  if (st != HURRAY_OK) {
    /* The copy path for a tensor the library would not share as it is: only
     * host memory the binding can read, compact row-major. */
    cleanup_status_dropped(hurray_handoff_destroy(&owner->handoff, NULL));
    PyObject_Free(owner);
    if (dl->device.device_type != HURRAY_DLPACK_CPU &&
        dl->device.device_type != HURRAY_DLPACK_CUDA_HOST) {
      return hurray_py_raise(st, &err, "from_dlpack");
    }
    if (!is_compact(dl)) {
      return hurray_py_error(HURRAY_PY_ERR_UNSUPPORTED, "from_dlpack",
                             "the DLPack tensor is strided; make it contiguous first");
    }
    uint64_t nbytes = (uint64_t)dl->dtype.bits / 8u;
    for (size_t d = 0; d < ndim; d++) {
      if (shape[d] < 0 || __builtin_mul_overflow(nbytes, (uint64_t)shape[d], &nbytes)) {
        return hurray_py_error(HURRAY_PY_ERR_BASE, "from_dlpack", "shape overflows");
      }
    }
    PyObject *bytes =
        PyBytes_FromStringAndSize((const char *)dl->data + dl->byte_offset, (Py_ssize_t)nbytes);
    if (bytes == NULL) {
      return NULL;
    }
    PyObject *shape_list = PyList_New((Py_ssize_t)ndim);
    for (size_t d = 0; shape_list != NULL && d < ndim; d++) {
      PyList_SET_ITEM(shape_list, (Py_ssize_t)d, PyLong_FromLongLong(shape[d]));
    }
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) {
      Py_DECREF(bytes);
      Py_XDECREF(shape_list);
      return NULL;
    }
    dl_tensor_delete(ptr, versioned);
    if (shape_list == NULL) {
      Py_DECREF(bytes);
      return NULL;
    }
    PyObject *tensor =
        PyObject_CallFunction(hurray_py_tensor_class(), "OOO", bytes, dtype, shape_list);
    Py_DECREF(bytes);
    Py_DECREF(shape_list);
    return tensor;
  }
  /* Ours from here: the handoff owns the DLPack tensor. */
  if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) {
    cleanup_status_dropped(hurray_handoff_withdraw(&owner->handoff, NULL));
    cleanup_status_dropped(hurray_handoff_destroy(&owner->handoff, NULL));
    PyObject_Free(owner);
    return NULL;
  }
  hurray_accepted_buffer acc = HURRAY_ACCEPTED_BUFFER_INIT;
  st = hurray_handoff_accept(&owner->handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &acc, &err);
  if (st != HURRAY_OK) {
    /* Withdrawn, the DLPack tensor is ours again (BP-DLPACK-13) and the
     * capsule already renamed: delete it here, once. */
    cleanup_status_dropped(hurray_handoff_withdraw(&owner->handoff, NULL));
    cleanup_status_dropped(hurray_handoff_destroy(&owner->handoff, NULL));
    PyObject_Free(owner);
    dl_tensor_delete(ptr, versioned);
    return hurray_py_raise(st, &err, "from_dlpack");
  }
  if (acc.handle.alignment > max_alignment) {
    acc.handle.alignment = max_alignment; /* PY-ALIGN-1: declare at most a page */
  }
  PyObject *tensor = hurray_py_tensor_over(acc.data, (size_t)acc.handle.byte_size, &acc.handle,
                                           (PyObject *)owner, dtype, shape, ndim);
  Py_DECREF(owner);
  if (tensor != NULL && want_copy) {
    /* copy=True on a tensor the library accepted: copy, then let the owner go. */
    PyObject *view = PyObject_CallMethod(tensor, "buffer", "i", 0);
    PyObject *shape_tuple = PyObject_GetAttrString(tensor, "shape");
    PyObject *copied = NULL;
    if (view != NULL && shape_tuple != NULL) {
      copied = PyObject_CallFunction(hurray_py_tensor_class(), "OOO", view, dtype, shape_tuple);
    }
    Py_XDECREF(view);
    Py_XDECREF(shape_tuple);
    Py_DECREF(tensor);
    return copied;
  }
  return tensor;
}
