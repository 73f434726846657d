/*
 * Shared between the files of hurray._native (not installed): one file per
 * concept (errors.c, dtype.c, device.c, handle.c, table.c, tensor.c,
 * from_host.c, capsule.c, dlpack.c; native.c is the module), this header
 * for what they use of each other.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PY_NATIVE_H
#define HURRAY_PY_NATIVE_H

#include <Python.h>

#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray_capsule.h"

/* CPython 3.11 takes char ** for keyword lists it never writes. */
#define KWLIST(k) ((char **)(uintptr_t)(k))

/* Cleanup on a path that cannot report (a deallocator, an error already being
 * raised): the status is deliberately dropped, through a call rather than a
 * (void) cast, which gcc's warn_unused_result does not accept (VER-SYM-4). */
static inline void cleanup_status_dropped(hurray_status status) { (void)status; }

static inline uint32_t hurray_py_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- errors.c: the exception classes (PY-ERR-1) ---- */

#define HURRAY_PY_ERR_BASE 0
#define HURRAY_PY_ERR_UNSUPPORTED 1
#define HURRAY_PY_ERR_COPY 2
#define HURRAY_PY_ERR_HANDOFF 3
#define HURRAY_PY_ERR_TABLE 4
#define HURRAY_PY_ERR_NOT_READABLE 5

/* Raises the exception for a libhurray failure; returns NULL. */
PyObject *hurray_py_raise(hurray_status status, const hurray_error *err, const char *context);
/* Raises the class `kind` names with "<context>: <message>" and the C
 * error's fields; status HURRAY_OK for the binding's own errors (.status is
 * None). Returns NULL. */
PyObject *hurray_py_raise_with(int kind, const char *context, const char *message,
                               hurray_status status, uint64_t value, uint64_t expected,
                               size_t index);
/* hurray_py_raise_with for an error of the binding's own. */
PyObject *hurray_py_error(int kind, const char *context, const char *message);
/* Creates the exception classes and adds them to the module. */
int hurray_py_errors_add(PyObject *m);

/* ---- dtype.c: element types ---- */

typedef struct {
  PyObject_HEAD uint32_t code;
  uint32_t itemsize;
  const char *name;
  /* DLPack DLDataType code and bits (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6). */
  uint8_t dl_code;
  uint8_t dl_bits;
} DTypeObject;

extern PyTypeObject hurray_py_dtype_type;

/* An element type from a DType or its name; raises otherwise. */
DTypeObject *hurray_py_as_dtype(PyObject *obj);
/* The singleton of code `code` (borrowed), NULL past HURRAY_DTYPE_COUNT. */
PyObject *hurray_py_dtype(uint32_t code);
void hurray_py_dtype_dlpack(PyObject *dtype, uint8_t *code, uint8_t *bits);
/* Creates the singletons hurray.bool .. hurray.float64 and adds them. */
int hurray_py_dtypes_add(PyObject *m);

/* ---- device.c ---- */

typedef struct {
  PyObject_HEAD hurray_device_tag tag;
  hurray_memory_class memory_class;
  uint32_t index;
} DeviceObject;

extern PyTypeObject hurray_py_device_type;

PyObject *hurray_py_device_new(hurray_device_tag tag, uint32_t index,
                               hurray_memory_class memory_class);
int hurray_py_device_equal(const DeviceObject *a, const DeviceObject *b);
/* PY-READ-1: the host may read the memory. */
int hurray_py_host_readable(hurray_device_tag tag, hurray_memory_class memory_class);
uint32_t hurray_py_device_index(PyObject *device);

/* ---- handle.c: BufferHandle ---- */

typedef struct {
  PyObject_HEAD hurray_buffer_handle handle;
  PyObject *device;
} HandleObject;

extern PyTypeObject hurray_py_handle_type;

/* A BufferHandle over a copy of *h on `device`, or on a new Device of its
 * tag and class when device is NULL. */
PyObject *hurray_py_handle_new(const hurray_buffer_handle *h, PyObject *device);
/* One BufferHandle per handle, all on `device` (colocated buffers). */
PyObject *hurray_py_handle_tuple(const hurray_buffer_handle *handles, size_t count,
                                 PyObject *device);

/* ---- table.c: buffer tables (module functions) ---- */

PyObject *hurray_py_decode_table(PyObject *mod, PyObject *args, PyObject *kwds);
PyObject *hurray_py_encode_table(PyObject *mod, PyObject *arg);
/* The encoded table of `count` handles (BP-TABLE-1), or NULL having raised
 * what the encoder refused, under `context`. */
PyObject *hurray_py_table_bytes(const hurray_buffer_handle *handles, size_t count,
                                const char *context);

/* ---- tensor.c ---- */

/* How a tensor holds its bytes. */
#define STORAGE_ALIGNED 1 /* a block this module allocated (free) */
#define STORAGE_VIEW 2    /* a Py_buffer on the producer's object (from_numpy, shared) */
#define STORAGE_OWNER 3   /* another object owns them (an import, a DLPack capsule) */

/* A tensor: its buffers' handles and data pointers, and whatever keeps the
 * bytes alive (`storage`). */
typedef struct {
  PyObject_HEAD PyObject *weakreflist;
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

extern PyTypeObject hurray_py_tensor_base_type;

/* Readies TensorBase and the types it uses. */
int hurray_py_tensor_ready(void);
int hurray_py_is_tensor(PyObject *obj);
/* hurray.Tensor, the Python subclass (borrowed). */
PyObject *hurray_py_tensor_class(void);
PyObject *hurray_py_set_tensor_class(PyObject *mod, PyObject *cls);
TensorObject *hurray_py_tensor_alloc(PyTypeObject *type, size_t count);
int hurray_py_tensor_finish(TensorObject *t, DTypeObject *dtype, const int64_t *shape, size_t ndim,
                            PyObject *device);
int hurray_py_parse_shape(PyObject *shape_obj, const DTypeObject *dtype, int64_t *shape,
                          size_t *ndim, uint64_t *nbytes);
/* Makes buffer 0 a copy of `size` bytes at `src` in a block of the
 * binding's own (STORAGE_ALIGNED, replacing a view the tensor held), aligned
 * to what it returns (BP-ALIGN-4); 0 with MemoryError raised when no block. */
uint32_t hurray_py_tensor_copy_in(TensorObject *t, const void *src, size_t size);
int hurray_py_check_readable(TensorObject *t, size_t i, const char *path);
PyObject *hurray_py_tensor_over(void *data, size_t size, const hurray_buffer_handle *handle,
                                PyObject *owner, PyObject *dtype_obj, const int64_t *shape,
                                size_t ndim);

/* ---- from_host.c: from_numpy's C half ---- */

PyObject *hurray_py_from_host(PyObject *mod, PyObject *args);

/* ---- capsule.c: the hurray_tensor capsule (PY-CAP-1..5) ---- */

int hurray_py_capsule_ready(void);
PyObject *hurray_py_tensor_hurray(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *hurray_py_from_hurray(PyObject *mod, PyObject *obj);

/* ---- dlpack.c: readies its types; its module methods ---- */

int hurray_py_dlpack_ready(void);
PyObject *hurray_py_tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *hurray_py_tensor_dlpack_device(PyObject *self, PyObject *unused);
PyObject *hurray_py_from_dlpack_capsule(PyObject *mod, PyObject *args);
#define HURRAY_PY_DLPACK_METHODS \
  {"_from_dlpack_capsule", hurray_py_from_dlpack_capsule, METH_VARARGS, "from_dlpack's C half"},

#endif
