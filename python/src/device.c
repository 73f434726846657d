/*
 * hurray.Device: where a buffer lives, a device tag and memory class whose
 * pair libhurray's table must accept (BP-PAIR-1..3), and an index.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hurray/buffer.h"
#include "native.h"

/* Reads an int in 0..max: 0, or 1 when it is outside (the caller names the
 * field), or -1 with Python's own error. */
static int int_in_range(PyObject *obj, long long max, long long *out) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  if (overflow != 0 || v < 0 || v > max) {
    return 1;
  }
  *out = v;
  return 0;
}

/* A wire byte Python gives by name or by value: the names are the library's
 * and so is the check of the byte. */
typedef struct {
  const char *field;      /* "device tag": the byte and the library's refusal */
  const char *name_field; /* "device name": a name that names nothing */
  const char *names;      /* what "names no ..." lists */
  const char *rule;       /* the TypeError for neither an int nor a str */
  unsigned named_end;     /* the named values are 0..named_end-1 */
  const char *(*name_of)(uint8_t value);
  hurray_status (*from_byte)(uint8_t byte, uint8_t *out, hurray_error *err);
} wire_field;

static const wire_field device_tag_field = {
    .field = "device tag",
    .name_field = "device name",
    .names =
        "device (cpu, cuda, rocm, metal, vulkan, webgpu, hexagon, level_zero, opencl; a "
        "private device is given by its tag byte 0xF0..0xFE)",
    .rule = "device must be a tag byte or a name",
    .named_end = HURRAY_DEVICE_RESERVED_FIRST,
    .name_of = hurray_device_tag_name,
    .from_byte = hurray_device_tag_from_byte,
};

static const wire_field memory_class_field = {
    .field = "memory class",
    .name_field = "memory class",
    .names =
        "class (standard, host_pinned, unified, peer; a private class is given by its "
        "byte 0xF0..0xFE)",
    .rule = "memory_class must be a byte or a name",
    .named_end = HURRAY_MEMORY_RESERVED_FIRST,
    .name_of = hurray_memory_class_name,
    .from_byte = hurray_memory_class_from_byte,
};

static int parse_wire_byte(PyObject *obj, const wire_field *f, uint8_t *out) {
  uint8_t byte = 0;
  if (PyUnicode_Check(obj)) {
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) {
      return -1;
    }
    unsigned v = 0;
    while (v < f->named_end && strcmp(s, f->name_of((uint8_t)v)) != 0) {
      v++;
    }
    if (v == f->named_end) {
      PyErr_Format(PyExc_ValueError, "%s %R names no %s", f->name_field, obj, f->names);
      return -1;
    }
    byte = (uint8_t)v;
  } else if (!PyLong_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s, not %.100s", f->rule, Py_TYPE(obj)->tp_name);
    return -1;
  } else {
    long long v = 0;
    int outside = int_in_range(obj, 255, &v);
    if (outside < 0) {
      return -1;
    }
    if (outside) {
      PyErr_Format(PyExc_ValueError, "%s %R is not a byte (0..255)", f->field, obj);
      return -1;
    }
    byte = (uint8_t)v;
  }
  /* A named value is valid; a byte is the library's to judge. */
  hurray_error err;
  hurray_status st = f->from_byte(byte, out, &err);
  if (st != HURRAY_OK) {
    hurray_py_raise(st, &err, f->field);
    return -1;
  }
  return 0;
}

static int parse_tag(PyObject *obj, hurray_device_tag *out) {
  if (PyObject_TypeCheck(obj, &hurray_py_device_type)) {
    *out = ((DeviceObject *)obj)->tag;
    return 0;
  }
  return parse_wire_byte(obj, &device_tag_field, out);
}

static int parse_memory_class(PyObject *obj, hurray_memory_class *out) {
  if (obj == NULL || obj == Py_None) {
    *out = HURRAY_MEMORY_STANDARD;
    return 0;
  }
  return parse_wire_byte(obj, &memory_class_field, out);
}

PyObject *hurray_py_device_new(hurray_device_tag tag, uint32_t index,
                               hurray_memory_class memory_class) {
  DeviceObject *d = PyObject_New(DeviceObject, &hurray_py_device_type);
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
    long long v = 0;
    int outside = int_in_range(index_obj, (long long)UINT32_MAX, &v);
    if (outside < 0) {
      return NULL;
    }
    if (outside) {
      PyErr_Format(PyExc_ValueError, "device index %R is outside 0..4294967295", index_obj);
      return NULL;
    }
    index = (uint32_t)v;
  }
  /* The validity table is the library's (BP-PAIR-1..3): ask it through the
   * constructor of an empty handle, which names the pair when it refuses. */
  hurray_buffer_handle probe;
  hurray_error err;
  hurray_status st = hurray_buffer_handle_with_memory_class(0, 1, tag, HURRAY_SYNC_PRODUCER_SYNCED,
                                                            memory_class, &probe, &err);
  if (st != HURRAY_OK) {
    return hurray_py_raise(st, &err, "device");
  }
  return hurray_py_device_new(tag, index, memory_class);
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
  Py_hash_t h =
      (Py_hash_t)(((uint64_t)d->index << 16) | ((uint64_t)d->tag << 8) | (uint64_t)d->memory_class);
  return h == -1 ? -2 : h;
}

int hurray_py_device_equal(const DeviceObject *a, const DeviceObject *b) {
  return a->tag == b->tag && a->index == b->index && a->memory_class == b->memory_class;
}

static PyObject *Device_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, &hurray_py_device_type) || (op != Py_EQ && op != Py_NE)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  int eq = hurray_py_device_equal((DeviceObject *)a, (DeviceObject *)b);
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
int hurray_py_host_readable(hurray_device_tag tag, hurray_memory_class memory_class) {
  return tag == HURRAY_DEVICE_CPU || memory_class == HURRAY_MEMORY_HOST_PINNED ||
         memory_class == HURRAY_MEMORY_UNIFIED;
}
static PyObject *Device_get_host_readable(PyObject *self, void *c) {
  (void)c;
  const DeviceObject *d = (const DeviceObject *)self;
  return PyBool_FromLong(hurray_py_host_readable(d->tag, d->memory_class));
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

PyTypeObject hurray_py_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hurray.Device",
    .tp_basicsize = sizeof(DeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Device(tag or name, index=0, memory_class=None): where a buffer lives.\n\n"
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

uint32_t hurray_py_device_index(PyObject *device) { return ((DeviceObject *)device)->index; }
