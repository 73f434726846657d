/*
 * hurray._native: the C half of the Python package `hurray`.
 *
 * Every rule about handles, devices and tables is libhurray's: this module
 * builds handles with hurray_buffer_handle_with_memory_class, validates
 * devices and pairs through it, measures alignment with hurray_alignment_of,
 * encodes and decodes tables with hurray_buffer_table_*, and moves buffers
 * between extensions through hurray_handoff_* (specs/python.md, PY-...).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sys/mman.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray_capsule.h"
#include "native.h"

/* Cleanup on a path that cannot report (a deallocator, an error already being
 * raised): the status is deliberately dropped, through a call rather than a
 * (void) cast, which gcc's warn_unused_result does not accept (VER-SYM-4). */
static void cleanup_status_dropped(hurray_status status) { (void)status; }

/* CPython 3.11 takes char ** for keyword lists it never writes. */
#define KWLIST(k) ((char **)(uintptr_t)(k))

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

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
  case HURRAY_ERR_MEMORY_CLASS_MISMATCH:
    return ColocationError;
  case HURRAY_ERR_EMPTY_BUFFER_LIST:
  case HURRAY_ERR_TRUNCATED:
  case HURRAY_ERR_TRAILING_BYTES:
  case HURRAY_ERR_CAPACITY:
    return TableError;
  case HURRAY_ERR_SYNC_MODE_MISMATCH:
  case HURRAY_ERR_ILLEGAL_TRANSITION:
  case HURRAY_ERR_ALREADY_RELEASED:
  case HURRAY_ERR_USE_AFTER_DESTROY:
  case HURRAY_ERR_SYNC_MODE_NOT_ALLOWED:
    return HandoffError;
  case HURRAY_ERR_UNSUPPORTED:
    return UnsupportedError;
  case HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO:
  case HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM:
  case HURRAY_ERR_INVALID_SYNC_MODE:
  case HURRAY_ERR_RESERVED_DEVICE_TAG:
  case HURRAY_ERR_INVALID_DEVICE_TAG:
  case HURRAY_ERR_RESERVED_MEMORY_CLASS:
  case HURRAY_ERR_INVALID_MEMORY_CLASS:
  case HURRAY_ERR_INVALID_PAIR:
  case HURRAY_ERR_RESERVED_BYTE_NONZERO:
    return HandleError;
  default:
    return HurrayError;
  }
}

/* Raises `cls` with message "<context>: <message>" and the C error's fields as
 * attributes (PY-ERR-1). status may be HURRAY_OK for errors of the binding's
 * own that carry no C status: then .status is None. */
static PyObject *raise_with(PyObject *cls, const char *context, const char *message,
                            hurray_status status, uint64_t value, uint64_t expected,
                            size_t index) {
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
  PyObject *status_code = status == HURRAY_OK ? Py_NewRef(Py_None)
                                              : PyLong_FromLong((long)status);
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
static PyObject *raise_hurray(hurray_status status, const hurray_error *err, const char *context) {
  char message[512];
  hurray_error_format(err, message, sizeof message);
  return raise_with(error_class_for(status), context, message, status, err->value, err->expected,
                    err->index);
}

/* ------------------------------------------------------------------------ */
/* Element types                                                            */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  uint32_t code;
  uint32_t itemsize;
  const char *name;
  /* DLPack DLDataType code and bits (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6). */
  uint8_t dl_code;
  uint8_t dl_bits;
} DTypeObject;

static PyTypeObject DTypeType;

static const struct {
  const char *name;
  uint32_t itemsize;
  uint8_t dl_code;
} dtype_table[HURRAY_DTYPE_COUNT] = {
    {"bool", 1, 6},    {"int8", 1, 0},    {"int16", 2, 0},    {"int32", 4, 0},    {"int64", 8, 0},
    {"uint8", 1, 1},   {"uint16", 2, 1},  {"uint32", 4, 1},   {"uint64", 8, 1},   {"float16", 2, 2},
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

static PyTypeObject DTypeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.DType",
    .tp_basicsize = sizeof(DTypeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An element type: hurray.bool, int8..int64, uint8..uint64, float16, bfloat16, "
              "float32, float64. Singletons; compare with `is` or ==.",
    .tp_repr = DType_repr,
    .tp_getset = DType_getset,
};

static DTypeObject *as_dtype(PyObject *obj) {
  if (PyObject_TypeCheck(obj, &DTypeType)) {
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
    PyErr_Format(PyExc_ValueError, "unknown element type %R (known: bool, int8..int64, "
                 "uint8..uint64, float16, bfloat16, float32, float64)", obj);
    return NULL;
  }
  PyErr_Format(PyExc_TypeError, "dtype must be a hurray element type such as hurray.float32, "
               "not %.100s", Py_TYPE(obj)->tp_name);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Device                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  hurray_device_tag tag;
  hurray_memory_class memory_class;
  uint32_t index;
} DeviceObject;

static PyTypeObject DeviceType;

/* Reads a wire byte from an int, naming the field when it is not one. */
static int byte_from_int(PyObject *obj, const char *field, uint8_t *out) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  if (overflow != 0 || v < 0 || v > 255) {
    PyErr_Format(PyExc_ValueError, "%s %R is not a byte (0..255)", field, obj);
    return -1;
  }
  *out = (uint8_t)v;
  return 0;
}

static int parse_tag(PyObject *obj, hurray_device_tag *out) {
  if (PyObject_TypeCheck(obj, &DeviceType)) {
    *out = ((DeviceObject *)obj)->tag;
    return 0;
  }
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) {
      return -1;
    }
    for (unsigned t = HURRAY_DEVICE_CPU; t < HURRAY_DEVICE_RESERVED_FIRST; t++) {
      if (strcmp(s, hurray_device_tag_name((hurray_device_tag)t)) == 0) {
        *out = (hurray_device_tag)t;
        return 0;
      }
    }
    PyErr_Format(PyExc_ValueError,
                 "device name %R names no device (cpu, cuda, rocm, metal, vulkan, webgpu, "
                 "hexagon, level_zero, opencl; a private device is given by its tag byte "
                 "0xF0..0xFE)", obj);
    return -1;
  }
  if (!PyLong_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "device must be a tag byte or a name, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  uint8_t byte;
  if (byte_from_int(obj, "device tag", &byte) < 0) {
    return -1;
  }
  hurray_error err;
  hurray_status st = hurray_device_tag_from_byte(byte, out, &err);
  if (st != HURRAY_OK) {
    raise_hurray(st, &err, "device tag");
    return -1;
  }
  return 0;
}

static int parse_memory_class(PyObject *obj, hurray_memory_class *out) {
  if (obj == NULL || obj == Py_None) {
    *out = HURRAY_MEMORY_STANDARD;
    return 0;
  }
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) {
      return -1;
    }
    for (unsigned c = HURRAY_MEMORY_STANDARD; c < HURRAY_MEMORY_RESERVED_FIRST; c++) {
      if (strcmp(s, hurray_memory_class_name((hurray_memory_class)c)) == 0) {
        *out = (hurray_memory_class)c;
        return 0;
      }
    }
    PyErr_Format(PyExc_ValueError,
                 "memory class %R names no class (standard, host_pinned, unified, peer; a "
                 "private class is given by its byte 0xF0..0xFE)", obj);
    return -1;
  }
  if (!PyLong_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "memory_class must be a byte or a name, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  uint8_t byte;
  if (byte_from_int(obj, "memory class", &byte) < 0) {
    return -1;
  }
  hurray_error err;
  hurray_status st = hurray_memory_class_from_byte(byte, out, &err);
  if (st != HURRAY_OK) {
    raise_hurray(st, &err, "memory class");
    return -1;
  }
  return 0;
}

static PyObject *device_new_raw(hurray_device_tag tag, uint32_t index,
                                hurray_memory_class memory_class) {
  DeviceObject *d = PyObject_New(DeviceObject, &DeviceType);
  if (d == NULL) {
    return NULL;
  }
  d->tag = tag;
  d->index = index;
  d->memory_class = memory_class;
  return (PyObject *)d;
}

static PyObject *Device_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)type;
  static const char *const kwlist[] = {"tag", "index", "memory_class", NULL};
  PyObject *tag_obj;
  PyObject *index_obj = NULL;
  PyObject *class_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO:Device", KWLIST(kwlist), &tag_obj, &index_obj,
                                   &class_obj)) {
    return NULL;
  }
  hurray_device_tag tag;
  hurray_memory_class memory_class;
  uint32_t index = 0;
  if (parse_tag(tag_obj, &tag) < 0 || parse_memory_class(class_obj, &memory_class) < 0) {
    return NULL;
  }
  if (index_obj != NULL && index_obj != Py_None) {
    if (!PyLong_Check(index_obj)) {
      PyErr_Format(PyExc_TypeError, "device index must be an int, not %.100s",
                   Py_TYPE(index_obj)->tp_name);
      return NULL;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index_obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
      return NULL;
    }
    if (overflow != 0 || v < 0 || v > (long long)UINT32_MAX) {
      PyErr_Format(PyExc_ValueError, "device index %R is outside 0..4294967295", index_obj);
      return NULL;
    }
    index = (uint32_t)v;
  }
  /* The validity table is the library's (BP-PAIR-1..3): ask it through the
   * constructor of an empty handle, which names the pair when it refuses. */
  hurray_buffer_handle probe;
  hurray_error err;
  hurray_status st = hurray_buffer_handle_with_memory_class(
      0, 1, tag, HURRAY_SYNC_PRODUCER_SYNCED, memory_class, &probe, &err);
  if (st != HURRAY_OK) {
    return raise_hurray(st, &err, "device");
  }
  return device_new_raw(tag, index, memory_class);
}

static PyObject *Device_repr(PyObject *self) {
  DeviceObject *d = (DeviceObject *)self;
  char text[160];
  snprintf(text, sizeof text, "hurray.Device(0x%02X %s, index=%u, memory_class=0x%02X %s)",
           (unsigned)d->tag, hurray_device_tag_name(d->tag), d->index, (unsigned)d->memory_class,
           hurray_memory_class_name(d->memory_class));
  return PyUnicode_FromString(text);
}

static Py_hash_t Device_hash(PyObject *self) {
  DeviceObject *d = (DeviceObject *)self;
  Py_hash_t h = (Py_hash_t)(((uint64_t)d->index << 16) | ((uint64_t)d->tag << 8) |
                            (uint64_t)d->memory_class);
  return h == -1 ? -2 : h;
}

static int device_equal(const DeviceObject *a, const DeviceObject *b) {
  return a->tag == b->tag && a->index == b->index && a->memory_class == b->memory_class;
}

static PyObject *Device_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, &DeviceType) || (op != Py_EQ && op != Py_NE)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  int eq = device_equal((DeviceObject *)a, (DeviceObject *)b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Device_get_tag(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(((DeviceObject *)self)->tag);
}
static PyObject *Device_get_index(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromUnsignedLong(((DeviceObject *)self)->index);
}
static PyObject *Device_get_kind(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(hurray_device_tag_name(((DeviceObject *)self)->tag));
}
static PyObject *Device_get_is_private(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(hurray_device_tag_is_private(((DeviceObject *)self)->tag));
}
static PyObject *Device_get_memory_class(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(hurray_memory_class_name(((DeviceObject *)self)->memory_class));
}
static PyObject *Device_get_memory_class_tag(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(((DeviceObject *)self)->memory_class);
}
/* PY-READ-1: the host may read the device's memory. */
static int device_host_readable(const DeviceObject *d) {
  return d->tag == HURRAY_DEVICE_CPU || d->memory_class == HURRAY_MEMORY_HOST_PINNED ||
         d->memory_class == HURRAY_MEMORY_UNIFIED;
}
static PyObject *Device_get_host_readable(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(device_host_readable((DeviceObject *)self));
}

static PyGetSetDef Device_getset[] = {
    {"tag", Device_get_tag, NULL, "the device_tag wire byte", NULL},
    {"index", Device_get_index, NULL, "which device of its kind (not on the wire)", NULL},
    {"kind", Device_get_kind, NULL, "\"cpu\", \"cuda\", ...; \"private\" for 0xF0..0xFE", NULL},
    {"is_private", Device_get_is_private, NULL, "the tag is in 0xF0..0xFE", NULL},
    {"memory_class", Device_get_memory_class, NULL,
     "\"standard\", \"host_pinned\", \"unified\", \"peer\" or \"private\"", NULL},
    {"memory_class_tag", Device_get_memory_class_tag, NULL, "the memory_class wire byte", NULL},
    {"host_readable", Device_get_host_readable, NULL,
     "the host can read this memory (PY-READ-1): cpu, or host_pinned or unified memory", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject DeviceType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.Device",
    .tp_basicsize = sizeof(DeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Device(tag or name, index=0, memory_class=None): where a buffer lives.\n\n"
              "tag: a wire byte (0x00..0x08 named, 0xF0..0xFE private) or a name (\"cpu\").\n"
              "memory_class: a byte or a name; standard by default. The (tag, class) pair\n"
              "must be valid by libhurray's table (BP-PAIR-1..3). A value: equal devices\n"
              "hash alike.",
    .tp_new = Device_new,
    .tp_repr = Device_repr,
    .tp_hash = Device_hash,
    .tp_richcompare = Device_richcompare,
    .tp_getset = Device_getset,
};

/* ------------------------------------------------------------------------ */
/* BufferHandle                                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  hurray_buffer_handle handle;
  PyObject *device;
} HandleObject;

static PyTypeObject HandleType;

static PyObject *handle_new_raw(const hurray_buffer_handle *h, PyObject *device) {
  HandleObject *o = PyObject_New(HandleObject, &HandleType);
  if (o == NULL) {
    return NULL;
  }
  o->handle = *h;
  if (device != NULL) {
    o->device = Py_NewRef(device);
  } else {
    o->device = device_new_raw(h->device_tag, 0, h->memory_class);
    if (o->device == NULL) {
      Py_DECREF(o);
      return NULL;
    }
  }
  return (PyObject *)o;
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
  return PyUnicode_FromString(
      hurray_memory_class_name(hurray_buffer_handle_memory_class(H(s))));
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
    return raise_with(TableError, "BufferHandle.decode", "a handle is exactly 16 bytes",
                      HURRAY_ERR_TRUNCATED, (uint64_t)len, HURRAY_BUFFER_HANDLE_SIZE, 0);
  }
  hurray_buffer_handle h;
  hurray_error err;
  hurray_status st = hurray_buffer_handle_decode((const uint8_t *)view.buf, &h, &err);
  PyBuffer_Release(&view);
  if (st != HURRAY_OK) {
    return raise_hurray(st, &err, "BufferHandle.decode");
  }
  return handle_new_raw(&h, NULL);
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
  if (!PyObject_TypeCheck(b, &HandleType) || (op != Py_EQ && op != Py_NE)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  int eq = hurray_buffer_handle_equal(H(a), H(b)) &&
           device_equal((DeviceObject *)((HandleObject *)a)->device,
                        (DeviceObject *)((HandleObject *)b)->device);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t Handle_hash(PyObject *self) {
  uint8_t out[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(H(self), out);
  PyObject *b = PyBytes_FromStringAndSize((const char *)out, HURRAY_BUFFER_HANDLE_SIZE);
  if (b == NULL) {
    return -1;
  }
  Py_hash_t h = PyObject_Hash(b);
  Py_DECREF(b);
  return h;
}

static PyTypeObject HandleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.BufferHandle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A buffer handle: a value copied out of a buffer table. It holds no reference\n"
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

/* ------------------------------------------------------------------------ */
/* Tensor                                                                   */
/* ------------------------------------------------------------------------ */

/* How a tensor holds its bytes. */
#define STORAGE_ALIGNED 1 /* a block this module allocated (aligned_block_free) */
#define STORAGE_VIEW 2    /* a Py_buffer on the producer's object (from_numpy, shared) */
#define STORAGE_OWNER 3   /* another object owns them (an import, a DLPack capsule) */

static PyTypeObject *tensor_type; /* hurray.Tensor, the Python subclass */
static PyTypeObject TensorBaseType;

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

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static TensorObject *tensor_alloc(PyTypeObject *type, size_t count) {
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
static int tensor_finish(TensorObject *t, DTypeObject *dtype, const int64_t *shape, size_t ndim,
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
    device = device_new_raw(t->handles[0].device_tag, 0, t->handles[0].memory_class);
    if (device == NULL) {
      return -1;
    }
    t->device = device;
  } else {
    t->device = Py_NewRef(device);
  }
  t->handle_tuple = PyTuple_New((Py_ssize_t)t->count);
  if (t->handle_tuple == NULL) {
    return -1;
  }
  for (size_t i = 0; i < t->count; i++) {
    PyObject *h = handle_new_raw(&t->handles[i], t->device);
    if (h == NULL) {
      return -1;
    }
    PyTuple_SET_ITEM(t->handle_tuple, (Py_ssize_t)i, h);
  }
  return 0;
}

/* Parses a shape and checks it against `nbytes` of `dtype` (PY-SHAPE-1). */
static int parse_shape(PyObject *shape_obj, const DTypeObject *dtype, int64_t *shape,
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
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|$O:Tensor", KWLIST(kwlist), &data_obj, &dtype_obj,
                                   &shape_obj, &device_obj)) {
    return NULL;
  }
  DTypeObject *dtype = as_dtype(dtype_obj);
  if (dtype == NULL) {
    return NULL;
  }
  PyObject *device = NULL;
  if (device_obj == NULL || device_obj == Py_None) {
    device = device_new_raw(HURRAY_DEVICE_CPU, 0, HURRAY_MEMORY_STANDARD);
  } else if (PyObject_TypeCheck(device_obj, &DeviceType)) {
    device = Py_NewRef(device_obj);
  } else {
    device = PyObject_CallOneArg((PyObject *)&DeviceType, device_obj);
  }
  if (device == NULL) {
    return NULL;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  size_t ndim;
  uint64_t nbytes;
  if (parse_shape(shape_obj, dtype, shape, &ndim, &nbytes) < 0) {
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
  TensorObject *t = tensor_alloc(type, 1);
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
    uint32_t want = copy_alignment(size);
    void *block = aligned_block_new(size, want);
    if (block == NULL) {
      PyBuffer_Release(&view);
      Py_DECREF(device);
      Py_DECREF(t);
      return PyErr_NoMemory();
    }
    memcpy(block, view.buf, size);
    t->storage = STORAGE_ALIGNED;
    t->block = block;
    t->data[0] = block;
    /* PY-ALIGN-1: the declaration is the measured address, capped at what was asked for. */
    st = hurray_buffer_handle_with_memory_class(size, min_u32(hurray_alignment_of(block), want),
                                                dev->tag, HURRAY_SYNC_PRODUCER_SYNCED,
                                                dev->memory_class, &t->handles[0], &err);
  }
  PyBuffer_Release(&view);
  if (st != HURRAY_OK || tensor_finish(t, dtype, shape, ndim, device) < 0) {
    if (st != HURRAY_OK) {
      raise_hurray(st, &err, "Tensor");
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
    raise_with(NotReadableError, path, msg, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, h->sync_mode,
               HURRAY_SYNC_PRODUCER_SYNCED, i);
    return -1;
  }
  DeviceObject probe = {.tag = h->device_tag, .memory_class = h->memory_class};
  if (!device_host_readable(&probe)) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "buffer %zu lives on device 0x%02X %s, memory class 0x%02X %s, which the host "
             "cannot read (PY-READ-1); buffer_handles still describes it",
             i, (unsigned)h->device_tag, hurray_device_tag_name(h->device_tag),
             (unsigned)h->memory_class, hurray_memory_class_name(h->memory_class));
    raise_with(NotReadableError, path, msg, HURRAY_ERR_UNSUPPORTED, h->memory_class,
               h->device_tag, i);
    return -1;
  }
  return 0;
}

/* The object a memoryview of buffer i exports from: it keeps the tensor alive. */
typedef struct {
  PyObject_HEAD
  PyObject *tensor;
  size_t index;
} BufferViewObject;

static int BufferView_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  BufferViewObject *b = (BufferViewObject *)self;
  TensorObject *t = (TensorObject *)b->tensor;
  static char empty_byte;
  void *data = t->handles[b->index].byte_size == 0 ? &empty_byte : t->data[b->index];
  /* Read-only (PY-READ-3): other consumers may share these bytes. */
  return PyBuffer_FillInfo(view, self, data, (Py_ssize_t)t->handles[b->index].byte_size, 1,
                           flags);
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

static PyObject *Tensor_buffer(PyObject *self, PyObject *arg) {
  TensorObject *t = (TensorObject *)self;
  Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) {
    return NULL;
  }
  if (i < 0 || (size_t)i >= t->count) {
    PyErr_Format(PyExc_IndexError, "buffer index %zd out of range: the tensor has %zu buffer(s)",
                 i, t->count);
    return NULL;
  }
  if (hurray_py_check_readable(t, (size_t)i, "buffer()") < 0) {
    return NULL;
  }
  BufferViewObject *b = PyObject_New(BufferViewObject, &BufferViewType);
  if (b == NULL) {
    return NULL;
  }
  b->tensor = Py_NewRef(self);
  b->index = (size_t)i;
  PyObject *mv = PyMemoryView_FromObject((PyObject *)b);
  Py_DECREF(b);
  return mv;
}

static PyObject *Tensor_buffer_table(PyObject *self, PyObject *unused) {
  (void)unused;
  TensorObject *t = (TensorObject *)self;
  uint8_t out[HURRAY_BUFFER_TABLE_MAX_SIZE];
  size_t written;
  hurray_error err;
  hurray_status st = hurray_buffer_table_encode(t->handles, t->count, out, sizeof out, &written,
                                                &err);
  if (st != HURRAY_OK) {
    return raise_hurray(st, &err, "buffer_table");
  }
  return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)written);
}

static PyObject *Tensor_data_ptr(PyObject *self, PyObject *arg) {
  TensorObject *t = (TensorObject *)self;
  Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) {
    return NULL;
  }
  if (i < 0 || (size_t)i >= t->count) {
    PyErr_Format(PyExc_IndexError, "buffer index %zd out of range: the tensor has %zu buffer(s)",
                 i, t->count);
    return NULL;
  }
  return PyLong_FromVoidPtr(t->data[i]);
}

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

static PyObject *Tensor_hurray(PyObject *self, PyObject *args, PyObject *kwds) {
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
      return raise_hurray(st, &err, "__hurray__");
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
  PyObject_HEAD
  hurray_capsule_tensor *ct;
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

static PyObject *from_capsule(PyObject *capsule) {
  if (!PyCapsule_CheckExact(capsule)) {
    PyErr_Format(PyExc_TypeError, "from_hurray needs an object with __hurray__() or a "
                 "'hurray_tensor' capsule, not %.100s", Py_TYPE(capsule)->tp_name);
    return NULL;
  }
  const char *name = PyCapsule_GetName(capsule);
  if (name != NULL && strcmp(name, HURRAY_CAPSULE_USED_NAME) == 0) {
    return raise_with(HandoffError, "from_hurray",
                      "the capsule was already consumed (named 'used_hurray_tensor'); a "
                      "capsule hands its buffers over once (PY-CAP-3)",
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
    return raise_with(HurrayError, "from_hurray", problem, HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 0);
  }
  DTypeObject *dtype = (DTypeObject *)dtype_objects[ct->dtype];
  uint64_t nbytes = dtype->itemsize;
  for (uint32_t d = 0; d < ct->ndim; d++) {
    if (ct->shape[d] < 0 || __builtin_mul_overflow(nbytes, (uint64_t)ct->shape[d], &nbytes)) {
      return raise_with(HurrayError, "from_hurray",
                        "the capsule's shape has a negative or overflowing dimension",
                        HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)ct->shape[d], 0, d);
    }
  }
  TensorObject *t = tensor_alloc(tensor_type, ct->buffer_count);
  if (t == NULL) {
    return NULL;
  }
  uint32_t accepted = 0;
  hurray_error err;
  hurray_status st = HURRAY_OK;
  for (; accepted < ct->buffer_count; accepted++) {
    hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
    st = hurray_handoff_accept(&ct->handoffs[accepted], HURRAY_TRANSPORT_IN_PROCESS, 0, &out,
                               &err);
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
    import_release_all(ct, accepted);
    Py_DECREF(t);
    return raise_with(HurrayError, "from_hurray",
                      "buffer 0 does not hold the capsule's dtype and shape",
                      HURRAY_ERR_INVALID_ARGUMENT, 0, nbytes, 0);
  }
  if (st != HURRAY_OK) {
    /* Give back what was taken; the rest stays offered and the capsule's
     * destructor withdraws it (HO-OWN-2). */
    import_release_all(ct, accepted);
    Py_DECREF(t);
    return raise_hurray(st, &err, context);
  }
  ImportObject *imp = PyObject_New(ImportObject, &ImportType);
  if (imp == NULL) {
    import_release_all(ct, accepted);
    Py_DECREF(t);
    return NULL;
  }
  imp->ct = ct;
  if (PyCapsule_SetName(capsule, HURRAY_CAPSULE_USED_NAME) < 0) {
    imp->ct = NULL;
    Py_DECREF(imp);
    import_release_all(ct, accepted);
    Py_DECREF(t);
    return NULL;
  }
  t->storage = STORAGE_OWNER;
  t->owner = (PyObject *)imp;
  if (tensor_finish(t, dtype, ct->shape, ct->ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

static PyObject *mod_from_hurray(PyObject *mod, PyObject *obj) {
  (void)mod;
  if (PyCapsule_CheckExact(obj)) {
    return from_capsule(obj);
  }
  PyObject *meth = PyObject_GetAttrString(obj, "__hurray__");
  if (meth == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "from_hurray needs an object with __hurray__() or a "
                 "'hurray_tensor' capsule, not %.100s", Py_TYPE(obj)->tp_name);
    return NULL;
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

/* ---- sharing and copying host bytes (from_numpy's C half) ---- */

/* _from_host(obj, dtype, shape, copy, max_alignment): a CPU tensor over the
 * C-contiguous bytes `obj` exports. copy: None (share when the measured
 * alignment reaches 64, else copy), False (share or raise
 * CopyRequiredError), True (always copy). PY-ALIGN-1..3. */
static PyObject *mod_from_host(PyObject *mod, PyObject *args) {
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
  DTypeObject *dtype = as_dtype(dtype_obj);
  if (dtype == NULL) {
    return NULL;
  }
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  size_t ndim;
  uint64_t nbytes;
  if (parse_shape(shape_obj, dtype, shape, &ndim, &nbytes) < 0) {
    return NULL;
  }
  TensorObject *t = tensor_alloc(tensor_type, 1);
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
      return raise_with(CopyRequiredError, NULL, msg, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM,
                        measured, HURRAY_MIN_BUFFER_ALIGNMENT, 0);
    }
    if (st == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
      uint32_t want = copy_alignment(size);
      void *block = aligned_block_new(size, want);
      if (block == NULL) {
        Py_DECREF(t);
        return PyErr_NoMemory();
      }
      memcpy(block, t->view.buf, size);
      PyBuffer_Release(&t->view);
      t->storage = STORAGE_ALIGNED;
      t->block = block;
      t->data[0] = block;
      st = hurray_buffer_handle_for_host_memory(block, size, min_u32(want, max_alignment),
                                                &t->handles[0], &err);
    }
  }
  if (st != HURRAY_OK) {
    Py_DECREF(t);
    return raise_hurray(st, &err, "from_numpy");
  }
  if (tensor_finish(t, dtype, shape, ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

/* A CPU tensor over `size` bytes at `data` owned by `owner` (a DLPack
 * capsule's keeper): used by hurray_py_tensor_over. */
PyObject *hurray_py_tensor_over(void *data, size_t size, const hurray_buffer_handle *handle,
                                PyObject *owner, PyObject *dtype_obj, const int64_t *shape,
                                size_t ndim) {
  (void)size;
  TensorObject *t = tensor_alloc(tensor_type, 1);
  if (t == NULL) {
    return NULL;
  }
  t->handles[0] = *handle;
  t->data[0] = data;
  t->storage = STORAGE_OWNER;
  t->owner = Py_NewRef(owner);
  if (tensor_finish(t, (DTypeObject *)dtype_obj, shape, ndim, NULL) < 0) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

static PyObject *mod_set_tensor_class(PyObject *mod, PyObject *cls) {
  (void)mod;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class needs a subclass of TensorBase");
    return NULL;
  }
  Py_XDECREF(tensor_type);
  tensor_type = (PyTypeObject *)Py_NewRef(cls);
  Py_RETURN_NONE;
}

/* ---- tables ---- */

static PyObject *mod_decode_table(PyObject *mod, PyObject *args, PyObject *kwds) {
  (void)mod;
  static const char *const kwlist[] = {"data", "exact", NULL};
  Py_buffer view;
  int exact = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|$p:decode_table", KWLIST(kwlist), &view, &exact)) {
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
    return raise_hurray(st, &err, "decode_table");
  }
  PyObject *tuple = PyTuple_New((Py_ssize_t)count);
  if (tuple == NULL) {
    return NULL;
  }
  PyObject *device = count > 0 ? device_new_raw(handles[0].device_tag, 0, handles[0].memory_class)
                               : NULL;
  if (count > 0 && device == NULL) {
    Py_DECREF(tuple);
    return NULL;
  }
  for (size_t i = 0; i < count; i++) {
    PyObject *h = handle_new_raw(&handles[i], device); /* colocated: one device */
    if (h == NULL) {
      Py_XDECREF(device);
      Py_DECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, h);
  }
  Py_XDECREF(device);
  return tuple;
}

static PyObject *mod_encode_table(PyObject *mod, PyObject *arg) {
  (void)mod;
  PyObject *seq = PySequence_Fast(arg, "encode_table needs a sequence of BufferHandle");
  if (seq == NULL) {
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > (Py_ssize_t)HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    Py_DECREF(seq);
    return raise_with(TableError, "encode_table", "a table holds at most 255 handles",
                      HURRAY_ERR_CAPACITY, (uint64_t)n, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyObject_TypeCheck(item, &HandleType)) {
      PyErr_Format(PyExc_TypeError, "encode_table: item %zd is %.100s, not a BufferHandle", i,
                   Py_TYPE(item)->tp_name);
      Py_DECREF(seq);
      return NULL;
    }
    handles[i] = *H(item);
  }
  Py_DECREF(seq);
  uint8_t out[HURRAY_BUFFER_TABLE_MAX_SIZE];
  size_t written;
  hurray_error err;
  hurray_status st =
      hurray_buffer_table_encode(handles, (size_t)n, out, sizeof out, &written, &err);
  if (st != HURRAY_OK) {
    return raise_hurray(st, &err, "encode_table");
  }
  return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)written);
}

static PyObject *mod_alignment_of(PyObject *mod, PyObject *arg) {
  (void)mod;
  void *p = PyLong_AsVoidPtr(arg);
  if (p == NULL && PyErr_Occurred()) {
    return NULL;
  }
  return PyLong_FromUnsignedLong(hurray_alignment_of(p));
}

static PyMethodDef Tensor_methods[] = {
    {"buffer", Tensor_buffer, METH_O,
     "buffer(i) -> read-only memoryview of buffer i. Refuses (NotReadableError) a buffer\n"
     "that is not producer_synced or that lives where the host cannot read (PY-READ-1..3)."},
    {"buffer_table", Tensor_buffer_table, METH_NOARGS,
     "buffer_table() -> the encoded buffer table (BP-TABLE-1); works for every tensor"},
    {"data_ptr", Tensor_data_ptr, METH_O,
     "data_ptr(i) -> address of buffer i as an int (for zero-copy checks)"},
    {"__hurray__", (PyCFunction)(void (*)(void))Tensor_hurray, METH_VARARGS | METH_KEYWORDS,
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

static PyTypeObject TensorBaseType = {
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

/* ------------------------------------------------------------------------ */
/* Module                                                                   */
/* ------------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"from_hurray", mod_from_hurray, METH_O,
     "from_hurray(obj) -> Tensor: imports obj.__hurray__() or a 'hurray_tensor' capsule; the\n"
     "capsule is renamed 'used_hurray_tensor' and cannot be consumed again (PY-CAP-3)."},
    {"_from_host", mod_from_host, METH_VARARGS, "from_numpy's C half"},
    {"_set_tensor_class", mod_set_tensor_class, METH_O, "internal"},
    {"decode_table", (PyCFunction)(void (*)(void))mod_decode_table, METH_VARARGS | METH_KEYWORDS,
     "decode_table(data, *, exact=True) -> tuple of BufferHandle (BP-TABLE-1..6); exact=False\n"
     "ignores bytes after the table"},
    {"encode_table", mod_encode_table, METH_O,
     "encode_table(handles) -> bytes; validates each handle and colocation first"},
    {"alignment_of", mod_alignment_of, METH_O,
     "alignment_of(address) -> largest power of two (<= 2**31) dividing it"},
    HURRAY_PY_DLPACK_METHODS{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "hurray._native",
    .m_doc = "The C half of the hurray package, over libhurray.", .m_size = -1,
    .m_methods = module_methods,
};

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

PyMODINIT_FUNC PyInit__native(void);
PyMODINIT_FUNC PyInit__native(void) {
  if (PyType_Ready(&DTypeType) < 0 || PyType_Ready(&DeviceType) < 0 ||
      PyType_Ready(&HandleType) < 0 || PyType_Ready(&TensorBaseType) < 0 ||
      PyType_Ready(&BufferViewType) < 0 || PyType_Ready(&ImportType) < 0 ||
      hurray_py_dlpack_ready() < 0) {
    return NULL;
  }
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) {
    return NULL;
  }
  tensor_type = (PyTypeObject *)Py_NewRef((PyObject *)&TensorBaseType);
  PyObject *value_error_bases = NULL;
  int bad = add_error(m, &HurrayError, "HurrayError", NULL,
                      "Base of the binding's errors. Attributes: status (the C status name, "
                      "e.g. 'INVALID_PAIR', or None), status_code, value, expected, index, "
                      "message (libhurray's words).") < 0;
  if (!bad) {
    value_error_bases = PyTuple_Pack(2, HurrayError, PyExc_ValueError);
    bad = value_error_bases == NULL;
  }
  bad = bad ||
        add_error(m, &HandleError, "HandleError", value_error_bases,
                  "A handle, device tag, memory class or pair the spec rejects.") < 0 ||
        add_error(m, &TableError, "TableError", value_error_bases,
                  "A buffer table that is truncated, too long, empty or over capacity.") < 0 ||
        add_error(m, &CopyRequiredError, "CopyRequiredError", value_error_bases,
                  "copy=False, but the source cannot be shared as it is.") < 0;
  if (!bad) {
    PyObject *b = PyTuple_Pack(1, HandleError);
    bad = b == NULL || add_error(m, &ColocationError, "ColocationError", b,
                                 "Buffers on different devices or memory classes.") < 0;
    Py_XDECREF(b);
  }
  bad = bad ||
        add_error(m, &HandoffError, "HandoffError", HurrayError,
                  "A handoff or capsule used against its state machine.") < 0 ||
        add_error(m, &NotReadableError, "NotReadableError", HurrayError,
                  "A buffer whose bytes the binding may not hand out (sync mode, device).") <
            0 ||
        add_error(m, &UnsupportedError, "UnsupportedError", HurrayError,
                  "Something with no mapping (DLPack device or dtype).") < 0;
  Py_XDECREF(value_error_bases);
  bad = bad || PyModule_AddObjectRef(m, "Device", (PyObject *)&DeviceType) < 0 ||
        PyModule_AddObjectRef(m, "BufferHandle", (PyObject *)&HandleType) < 0 ||
        PyModule_AddObjectRef(m, "DType", (PyObject *)&DTypeType) < 0 ||
        PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&TensorBaseType) < 0 ||
        PyModule_AddIntConstant(m, "MIN_BUFFER_ALIGNMENT", HURRAY_MIN_BUFFER_ALIGNMENT) < 0 ||
        PyModule_AddIntConstant(m, "PAGE_ALIGNMENT", HURRAY_PAGE_ALIGNMENT) < 0 ||
        PyModule_AddIntConstant(m, "C_ABI_VERSION", (long)hurray_c_abi_version()) < 0;
  for (uint32_t c = 0; !bad && c < HURRAY_DTYPE_COUNT; c++) {
    DTypeObject *d = PyObject_New(DTypeObject, &DTypeType);
    if (d == NULL) {
      bad = 1;
      break;
    }
    d->code = c;
    d->itemsize = dtype_table[c].itemsize;
    d->name = dtype_table[c].name;
    d->dl_code = dtype_table[c].dl_code;
    d->dl_bits = (uint8_t)(dtype_table[c].itemsize * 8u);
    dtype_objects[c] = (PyObject *)d;
    bad = PyModule_AddObjectRef(m, d->name, (PyObject *)d) < 0;
  }
  if (bad || hurray_c_abi_version() < HURRAY_C_ABI_VERSION) {
    if (!bad) {
      PyErr_SetString(PyExc_ImportError, "libhurray's C ABI is older than this module needs");
    }
    Py_DECREF(m);
    return NULL;
  }
  return m;
}

/* Used by dlpack.c. */
PyObject *hurray_py_raise(hurray_status status, const hurray_error *err, const char *context) {
  return raise_hurray(status, err, context);
}
PyObject *hurray_py_error(int kind, const char *context, const char *message) {
  PyObject *cls = kind == HURRAY_PY_ERR_UNSUPPORTED  ? UnsupportedError
                  : kind == HURRAY_PY_ERR_COPY       ? CopyRequiredError
                  : kind == HURRAY_PY_ERR_HANDOFF    ? HandoffError
                                                     : HurrayError;
  return raise_with(cls, context, message, HURRAY_OK, 0, 0, 0);
}
PyObject *hurray_py_dtype(uint32_t code) {
  return code < HURRAY_DTYPE_COUNT ? dtype_objects[code] : NULL;
}
int hurray_py_is_tensor(PyObject *obj) { return PyObject_TypeCheck(obj, &TensorBaseType); }
PyObject *hurray_py_tensor_class(void) { return (PyObject *)tensor_type; }
void hurray_py_dtype_dlpack(PyObject *dtype, uint8_t *code, uint8_t *bits) {
  *code = ((DTypeObject *)dtype)->dl_code;
  *bits = ((DTypeObject *)dtype)->dl_bits;
}
uint32_t hurray_py_device_index(PyObject *device) { return ((DeviceObject *)device)->index; }
