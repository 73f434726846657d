/*
 * hurray._native.TensorBase, the C half of hurray.Tensor: a tensor's buffers
 * (handles, data pointers, what keeps the bytes alive), the Tensor(...)
 * constructor that copies into aligned memory, and read-only views of the
 * bytes (PY-READ-1..3).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray_capsule.h"
#include "native.h"

static PyTypeObject *tensor_type; /* hurray.Tensor, the Python subclass */

/* Large blocks ask for transparent huge pages, as NumPy's own allocator
 * does: a copy into fresh memory is otherwise dominated by page faults. */
static void *aligned_block_new(size_t size, uint32_t alignment) {
  void *p = NULL;
  if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) {
    return NULL;
  }
  if (size >= ((size_t)4 << 20)) {
    uintptr_t page_start = ((uintptr_t)p + 4095u) & ~(uintptr_t)4095u;
    size_t span = (size_t)((uintptr_t)p + size - page_start) & ~(size_t)4095u;
    (void)madvise((void *)page_start, span, MADV_HUGEPAGE);
  }
  return p;
}

/* Copies of up to a page are 64-byte aligned, larger ones page-aligned
 * (BP-ALIGN-4): the strongest the binding can promise for the block it
 * allocates; the declaration is still measured from the address. */
static uint32_t copy_alignment(size_t size) {
  return size >= HURRAY_PAGE_ALIGNMENT ? HURRAY_PAGE_ALIGNMENT : HURRAY_MIN_BUFFER_ALIGNMENT;
}

uint32_t hurray_py_tensor_copy_in(TensorObject *t, const void *src, size_t size) {
  uint32_t want = copy_alignment(size);
  void *block = aligned_block_new(size, want);
  if (block == NULL) {
    PyErr_NoMemory();
    return 0;
  }
  memcpy(block, src, size);
  if (t->storage == STORAGE_VIEW) {
    PyBuffer_Release(&t->view);
  }
  t->storage = STORAGE_ALIGNED;
  t->block = block;
  t->data[0] = block;
  return want;
}

TensorObject *hurray_py_tensor_alloc(PyTypeObject *type, size_t count) {
  TensorObject *t = (TensorObject *)type->tp_alloc(type, 0);
  if (t == NULL) {
    return NULL;
  }
  t->handles = PyMem_Calloc(count, sizeof *t->handles);
  t->data = PyMem_Calloc(count, sizeof *t->data);
  t->events = PyMem_Calloc(count, sizeof *t->events);
  t->streams = PyMem_Calloc(count, sizeof *t->streams);
  if (t->handles == NULL || t->data == NULL || t->events == NULL || t->streams == NULL) {
    Py_DECREF(t);
    PyErr_NoMemory();
    return NULL;
  }
  t->count = count;
  return t;
}

/* Builds the Python-side caches once the C fields are final. */
int hurray_py_tensor_finish(TensorObject *t, DTypeObject *dtype, const int64_t *shape, size_t ndim,
                            PyObject *device) {
  t->dtype = Py_NewRef((PyObject *)dtype);
  t->ndim = ndim;
  memcpy(t->shape, shape, ndim * sizeof *shape);
  t->shape_tuple = PyTuple_New((Py_ssize_t)ndim);
  if (t->shape_tuple == NULL) {
    return -1;
  }
  for (size_t i = 0; i < ndim; i++) {
    PyObject *d = PyLong_FromLongLong(shape[i]);
    if (d == NULL) {
      return -1;
    }
    PyTuple_SET_ITEM(t->shape_tuple, (Py_ssize_t)i, d);
  }
  if (device == NULL) {
    device = hurray_py_device_new(t->handles[0].device_tag, 0, t->handles[0].memory_class);
    if (device == NULL) {
      return -1;
    }
    t->device = device;
  } else {
    t->device = Py_NewRef(device);
  }
  t->handle_tuple = hurray_py_handle_tuple(t->handles, t->count, t->device);
  return t->handle_tuple == NULL ? -1 : 0;
}

/* Parses a shape and checks it against `nbytes` of `dtype` (PY-SHAPE-1). */
int hurray_py_parse_shape(PyObject *shape_obj, const DTypeObject *dtype, int64_t *shape,
                          size_t *ndim, uint64_t *nbytes) {
  PyObject *seq = PySequence_Fast(shape_obj, "shape must be a sequence of ints");
  if (seq == NULL) {
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > (Py_ssize_t)HURRAY_CAPSULE_MAX_DIMS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "shape has %zd dimensions; at most %u are supported", n,
                 HURRAY_CAPSULE_MAX_DIMS);
    return -1;
  }
  uint64_t total = dtype->itemsize;
  int overflowed = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyLong_Check(item)) {
      PyErr_Format(PyExc_TypeError, "shape[%zd] must be an int, not %.100s", i,
                   Py_TYPE(item)->tp_name);
      Py_DECREF(seq);
      return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    if (overflow != 0) {
      PyErr_Format(PyExc_ValueError, "shape[%zd] = %R does not fit in 64 bits", i, item);
      Py_DECREF(seq);
      return -1;
    }
    if (v < 0) {
      PyErr_Format(PyExc_ValueError, "shape[%zd] = %lld is negative", i, v);
      Py_DECREF(seq);
      return -1;
    }
    shape[i] = v;
    if (__builtin_mul_overflow(total, (uint64_t)v, &total)) {
      overflowed = 1;
    }
  }
  if (overflowed) {
    PyErr_Format(PyExc_ValueError, "shape %R of %s holds more than 2**64 bytes", shape_obj,
                 dtype->name);
    Py_DECREF(seq);
    return -1;
  }
  Py_DECREF(seq);
  *ndim = (size_t)n;
  *nbytes = total;
  return 0;
}

static PyObject *TensorBase_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static const char *const kwlist[] = {"data", "dtype", "shape", "device", NULL};
  PyObject *data_obj;
  PyObject *dtype_obj;
  PyObject *shape_obj;
  PyObject *device_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|$O:Tensor", KWLIST(kwlist), &data_obj,
                                   &dtype_obj, &shape_obj, &device_obj)) {
    return NULL;
  }
  DTypeObject *dtype = hurray_py_as_dtype(dtype_obj);
  if (dtype == NULL) {
    return NULL;
  }
  PyObject *device = NULL;
  if (device_obj == NULL || device_obj == Py_None) {
    device = hurray_py_device_new(HURRAY_DEVICE_CPU, 0, HURRAY_MEMORY_STANDARD);
  } else if (PyObject_TypeCheck(device_obj, &hurray_py_device_type)) {
    device = Py_NewRef(device_obj);
  } else {
    device = PyObject_CallOneArg((PyObject *)&hurray_py_device_type, device_obj);
  }
  if (device == NULL) {
    return NULL;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  size_t ndim;
  uint64_t nbytes;
  if (hurray_py_parse_shape(shape_obj, dtype, shape, &ndim, &nbytes) < 0) {
    Py_DECREF(device);
    return NULL;
  }
  Py_buffer view;
  if (PyObject_GetBuffer(data_obj, &view, PyBUF_C_CONTIGUOUS) < 0) {
    Py_DECREF(device);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "data must be a C-contiguous bytes-like object, not %.100s",
                 Py_TYPE(data_obj)->tp_name);
    return NULL;
  }
  if ((uint64_t)view.len != nbytes) {
    PyErr_Format(PyExc_ValueError, "data holds %zd bytes; %s of shape %R needs %llu", view.len,
                 dtype->name, shape_obj, (unsigned long long)nbytes);
    PyBuffer_Release(&view);
    Py_DECREF(device);
    return NULL;
  }
  const DeviceObject *dev = (const DeviceObject *)device;
  TensorObject *t = hurray_py_tensor_alloc(type, 1);
  if (t == NULL) {
    PyBuffer_Release(&view);
    Py_DECREF(device);
    return NULL;
  }
  size_t size = (size_t)view.len;
  hurray_error err;
  hurray_status st;
  if (size == 0) {
    st = hurray_buffer_handle_with_memory_class(0, 1, dev->tag, HURRAY_SYNC_PRODUCER_SYNCED,
                                                dev->memory_class, &t->handles[0], &err);
  } else {
    uint32_t want = hurray_py_tensor_copy_in(t, view.buf, size);
    if (want == 0) {
      PyBuffer_Release(&view);
      Py_DECREF(device);
      Py_DECREF(t);
      return NULL;
    }
    /* PY-ALIGN-1: the declaration is the measured address, capped at what was asked for. */
    uint32_t declared = hurray_py_min_u32(hurray_alignment_of(t->block), want);
    st = hurray_buffer_handle_with_memory_class(size, declared, dev->tag,
                                                HURRAY_SYNC_PRODUCER_SYNCED, dev->memory_class,
                                                &t->handles[0], &err);
  }
  PyBuffer_Release(&view);
  if (st != HURRAY_OK || hurray_py_tensor_finish(t, dtype, shape, ndim, device) < 0) {
    if (st != HURRAY_OK) {
      hurray_py_raise(st, &err, "Tensor");
    }
    Py_DECREF(device);
    Py_DECREF(t);
    return NULL;
  }
  Py_DECREF(device);
  return (PyObject *)t;
}

static void TensorBase_dealloc(PyObject *self) {
  TensorObject *t = (TensorObject *)self;
  PyObject_GC_UnTrack(self);
  if (t->weakreflist != NULL) {
    PyObject_ClearWeakRefs(self);
  }
  Py_CLEAR(t->dtype);
  Py_CLEAR(t->device);
  Py_CLEAR(t->shape_tuple);
  Py_CLEAR(t->handle_tuple);
  if (t->storage == STORAGE_ALIGNED) {
    free(t->block);
  } else if (t->storage == STORAGE_VIEW) {
    PyBuffer_Release(&t->view);
  }
  Py_CLEAR(t->owner);
  PyMem_Free(t->handles);
  PyMem_Free(t->data);
  PyMem_Free(t->events);
  PyMem_Free(t->streams);
  /* hurray.Tensor's subtype_dealloc drops the reference to its heap type. */
  Py_TYPE(self)->tp_free(self);
}

static int TensorBase_traverse(PyObject *self, visitproc visit, void *arg) {
  TensorObject *t = (TensorObject *)self;
  Py_VISIT(t->owner);
  if (t->storage == STORAGE_VIEW) {
    Py_VISIT(t->view.obj);
  }
  return 0;
}

static PyObject *Tensor_get_dtype(PyObject *s, void *c) {
  (void)c;
  return Py_NewRef(((TensorObject *)s)->dtype);
}
static PyObject *Tensor_get_shape(PyObject *s, void *c) {
  (void)c;
  return Py_NewRef(((TensorObject *)s)->shape_tuple);
}
static PyObject *Tensor_get_device(PyObject *s, void *c) {
  (void)c;
  return Py_NewRef(((TensorObject *)s)->device);
}
static PyObject *Tensor_get_buffer_handles(PyObject *s, void *c) {
  (void)c;
  return Py_NewRef(((TensorObject *)s)->handle_tuple);
}
static PyObject *Tensor_get_nbytes(PyObject *s, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong(((TensorObject *)s)->handles[0].byte_size);
}

/* PY-READ-1, PY-READ-2: whether buffer i may be handed out as bytes. Raises
 * NotReadableError naming the reason when it may not. */
int hurray_py_check_readable(TensorObject *t, size_t i, const char *path) {
  const hurray_buffer_handle *h = &t->handles[i];
  if (h->sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "buffer %zu is sync_mode %s: its producer requires a wait on its device %s before "
             "any byte is read (BP-SYNC-3), which this binding cannot perform; relaying it with "
             "__hurray__ or re-encoding its table still works",
             i, hurray_sync_mode_name(h->sync_mode),
             h->sync_mode == HURRAY_SYNC_EVENT ? "event" : "stream");
    hurray_py_raise_with(HURRAY_PY_ERR_NOT_READABLE, path, msg, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED,
                         h->sync_mode, HURRAY_SYNC_PRODUCER_SYNCED, i);
    return -1;
  }
  if (!hurray_py_host_readable(h->device_tag, h->memory_class)) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "buffer %zu lives on device 0x%02X %s, memory class 0x%02X %s, which the host "
             "cannot read (PY-READ-1); buffer_handles still describes it",
             i, (unsigned)h->device_tag, hurray_device_tag_name(h->device_tag),
             (unsigned)h->memory_class, hurray_memory_class_name(h->memory_class));
    hurray_py_raise_with(HURRAY_PY_ERR_NOT_READABLE, path, msg, HURRAY_ERR_UNSUPPORTED,
                         h->memory_class, h->device_tag, i);
    return -1;
  }
  return 0;
}

/* The object a memoryview of buffer i exports from: it keeps the tensor alive. */
typedef struct {
  PyObject_HEAD PyObject *tensor;
  size_t index;
} BufferViewObject;

static int BufferView_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  BufferViewObject *b = (BufferViewObject *)self;
  TensorObject *t = (TensorObject *)b->tensor;
  static char empty_byte;
  void *data = t->handles[b->index].byte_size == 0 ? &empty_byte : t->data[b->index];
  /* Read-only (PY-READ-3): other consumers may share these bytes. */
  return PyBuffer_FillInfo(view, self, data, (Py_ssize_t)t->handles[b->index].byte_size, 1, flags);
}

static void BufferView_dealloc(PyObject *self) {
  Py_XDECREF(((BufferViewObject *)self)->tensor);
  PyObject_Free(self);
}

static PyBufferProcs BufferView_as_buffer = {.bf_getbuffer = BufferView_getbuffer};

static PyTypeObject BufferViewType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray._BufferView",
    .tp_basicsize = sizeof(BufferViewObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = BufferView_dealloc,
    .tp_as_buffer = &BufferView_as_buffer,
};

/* The index of one of the tensor's buffers, from an int. */
static int buffer_index(const TensorObject *t, PyObject *arg, size_t *out) {
  Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) {
    return -1;
  }
  if (i < 0 || (size_t)i >= t->count) {
    PyErr_Format(PyExc_IndexError, "buffer index %zd out of range: the tensor has %zu buffer(s)", i,
                 t->count);
    return -1;
  }
  *out = (size_t)i;
  return 0;
}

static PyObject *Tensor_buffer(PyObject *self, PyObject *arg) {
  TensorObject *t = (TensorObject *)self;
  size_t i;
  if (buffer_index(t, arg, &i) < 0) {
    return NULL;
  }
  if (hurray_py_check_readable(t, i, "buffer()") < 0) {
    return NULL;
  }
  BufferViewObject *b = PyObject_New(BufferViewObject, &BufferViewType);
  if (b == NULL) {
    return NULL;
  }
  b->tensor = Py_NewRef(self);
  b->index = i;
  PyObject *mv = PyMemoryView_FromObject((PyObject *)b);
  Py_DECREF(b);
  return mv;
}

static PyObject *Tensor_buffer_table(PyObject *self, PyObject *unused) {
  (void)unused;
  const TensorObject *t = (const TensorObject *)self;
  return hurray_py_table_bytes(t->handles, t->count, "buffer_table");
}

static PyObject *Tensor_data_ptr(PyObject *self, PyObject *arg) {
  TensorObject *t = (TensorObject *)self;
  size_t i;
  if (buffer_index(t, arg, &i) < 0) {
    return NULL;
  }
  return PyLong_FromVoidPtr(t->data[i]);
}

/* A CPU tensor over `size` bytes at `data` owned by `owner` (a DLPack
 * capsule's keeper): used by hurray_py_tensor_over. */
PyObject *hurray_py_tensor_over(void *data, size_t size, const hurray_buffer_handle *handle,
                                PyObject *owner, PyObject *dtype_obj, const int64_t *shape,
                                size_t ndim) {
  (void)size;
  TensorObject *t = hurray_py_tensor_alloc(tensor_type, 1);
  if (t == NULL) {
    return NULL;
  }
  t->handles[0] = *handle;
  t->data[0] = data;
  t->storage = STORAGE_OWNER;
  t->owner = Py_NewRef(owner);
  if (hurray_py_tensor_finish(t, (DTypeObject *)dtype_obj, shape, ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

PyObject *hurray_py_set_tensor_class(PyObject *mod, PyObject *cls) {
  (void)mod;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &hurray_py_tensor_base_type)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class needs a subclass of TensorBase");
    return NULL;
  }
  Py_XDECREF(tensor_type);
  tensor_type = (PyTypeObject *)Py_NewRef(cls);
  Py_RETURN_NONE;
}

static PyMethodDef Tensor_methods[] = {
    {"buffer", Tensor_buffer, METH_O,
     "buffer(i) -> read-only memoryview of buffer i. Refuses (NotReadableError) a buffer\n"
     "that is not producer_synced or that lives where the host cannot read (PY-READ-1..3)."},
    {"buffer_table", Tensor_buffer_table, METH_NOARGS,
     "buffer_table() -> the encoded buffer table (BP-TABLE-1); works for every tensor"},
    {"data_ptr", Tensor_data_ptr, METH_O,
     "data_ptr(i) -> address of buffer i as an int (for zero-copy checks)"},
    {"__hurray__", (PyCFunction)(void (*)(void))hurray_py_tensor_hurray,
     METH_VARARGS | METH_KEYWORDS,
     "__hurray__() -> a 'hurray_tensor' PyCapsule over libhurray's handoff ABI (PY-CAP-1)"},
    {"__dlpack__", (PyCFunction)(void (*)(void))hurray_py_tensor_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None) -> DLPack capsule of buffer 0, zero copy\n"
     "(PY-DLPACK-1); refuses a buffer that is not producer_synced"},
    {"__dlpack_device__", hurray_py_tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (DLDeviceType, device index) by BP-DLPACK-1"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Tensor_getset[] = {
    {"dtype", Tensor_get_dtype, NULL, "the element type", NULL},
    {"shape", Tensor_get_shape, NULL, "the shape, a tuple of ints", NULL},
    {"device", Tensor_get_device, NULL, "the Device every buffer is on (BP-COLOC-1)", NULL},
    {"buffer_handles", Tensor_get_buffer_handles, NULL,
     "one BufferHandle per buffer, in descriptor order", NULL},
    {"nbytes", Tensor_get_nbytes, NULL, "bytes in buffer 0 (the elements)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject hurray_py_tensor_base_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray._native.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C half of hurray.Tensor.",
    .tp_new = TensorBase_new,
    .tp_dealloc = TensorBase_dealloc,
    .tp_traverse = TensorBase_traverse,
    .tp_weaklistoffset = offsetof(TensorObject, weakreflist),
    .tp_methods = Tensor_methods,
    .tp_getset = Tensor_getset,
};

int hurray_py_tensor_ready(void) {
  if (PyType_Ready(&hurray_py_tensor_base_type) < 0 || PyType_Ready(&BufferViewType) < 0) {
    return -1;
  }
  tensor_type = (PyTypeObject *)Py_NewRef((PyObject *)&hurray_py_tensor_base_type);
  return 0;
}

int hurray_py_is_tensor(PyObject *obj) {
  return PyObject_TypeCheck(obj, &hurray_py_tensor_base_type);
}

PyObject *hurray_py_tensor_class(void) { return (PyObject *)tensor_type; }
