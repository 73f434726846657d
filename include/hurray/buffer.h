/*
 * libhurray — the Hurray buffer protocol (Layer 1) in C.
 *
 * This header is the core API: wire values, the buffer handle, its 16-byte
 * wire form, buffer tables, colocation, the (device_tag, memory_class)
 * validity table, per-transport sync-mode rules and the DLPack mapping.
 *
 * Every rule this API enforces is defined once, in specs/buffer-protocol.md,
 * under a requirement ID (BP-...). The comments here cite those IDs instead of
 * restating the rules.
 *
 * Conventions
 *   - Every fallible function returns a hurray_status (HURRAY_OK == 0) and
 *     takes a trailing `hurray_error *err`, which may be NULL. On failure the
 *     error names the offending value; on success *err is left untouched.
 *   - Out-parameters are written only on success (tables too: BP-TABLE-8).
 *   - Nothing in this header allocates, performs I/O or keeps global state.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_BUFFER_H
#define HURRAY_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Constants                                                                */
/* ------------------------------------------------------------------------ */

/** Minimum alignment of a non-empty buffer's base address (BP-ALIGN-2). */
#define HURRAY_MIN_BUFFER_ALIGNMENT 64u
/** Alignment producers use for GPU, IPC and RDMA buffers (BP-ALIGN-4). */
#define HURRAY_PAGE_ALIGNMENT 4096u
/** Size of one encoded buffer handle (BP-WIRE-1). */
#define HURRAY_BUFFER_HANDLE_SIZE 16u
/** Most handles a buffer table can hold: its count is one byte (BP-TABLE-1). */
#define HURRAY_BUFFER_TABLE_MAX_HANDLES 255u
/** Largest encoded buffer table: 1 + 16 * 255 bytes (BP-TABLE-1). */
#define HURRAY_BUFFER_TABLE_MAX_SIZE (1u + 16u * 255u)

/* ------------------------------------------------------------------------ */
/* Wire values                                                              */
/* ------------------------------------------------------------------------ */

/**
 * device_tag byte (BP-DEV-1..4). A plain byte so that every wire value can be
 * represented; hurray_device_tag_from_byte() says whether it is acceptable.
 */
typedef uint8_t hurray_device_tag;
#define HURRAY_DEVICE_CPU 0x00u
#define HURRAY_DEVICE_CUDA 0x01u
#define HURRAY_DEVICE_ROCM 0x02u
#define HURRAY_DEVICE_METAL 0x03u
#define HURRAY_DEVICE_VULKAN 0x04u
#define HURRAY_DEVICE_WEBGPU 0x05u
#define HURRAY_DEVICE_HEXAGON 0x06u
#define HURRAY_DEVICE_LEVEL_ZERO 0x07u
#define HURRAY_DEVICE_OPENCL 0x08u
#define HURRAY_DEVICE_RESERVED_FIRST 0x09u
#define HURRAY_DEVICE_RESERVED_LAST 0xEFu
#define HURRAY_DEVICE_PRIVATE_FIRST 0xF0u
#define HURRAY_DEVICE_PRIVATE_LAST 0xFEu
#define HURRAY_DEVICE_INVALID 0xFFu

/** memory_class byte (BP-MEM-1..3). */
typedef uint8_t hurray_memory_class;
#define HURRAY_MEMORY_STANDARD 0x00u
#define HURRAY_MEMORY_HOST_PINNED 0x01u
#define HURRAY_MEMORY_UNIFIED 0x02u
#define HURRAY_MEMORY_PEER 0x03u
#define HURRAY_MEMORY_RESERVED_FIRST 0x04u
#define HURRAY_MEMORY_RESERVED_LAST 0xEFu
#define HURRAY_MEMORY_PRIVATE_FIRST 0xF0u
#define HURRAY_MEMORY_PRIVATE_LAST 0xFEu
#define HURRAY_MEMORY_INVALID 0xFFu

/** sync_mode byte (BP-SYNC-1..3). */
typedef uint8_t hurray_sync_mode;
#define HURRAY_SYNC_PRODUCER_SYNCED 0x00u
#define HURRAY_SYNC_EVENT 0x01u
#define HURRAY_SYNC_CONSUMER_STREAM 0x02u
#define HURRAY_SYNC_INVALID 0xFFu

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

/**
 * Outcome of every fallible call. Values are stable: new codes are only ever
 * appended. hurray_error's `value`, `expected` and `index` carry the payload
 * each code documents below.
 */
typedef uint32_t hurray_status;
/* The values of hurray_status: constants only, never a type (HO-ABI-4). */
enum {
  HURRAY_OK = 0,
  /** value: the alignment. */
  HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO = 1,
  /** value: the alignment; expected: the minimum (64). */
  HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM = 2,
  /** value: the sync_mode byte; expected: the mode required (CPU rule), or 0. */
  HURRAY_ERR_INVALID_SYNC_MODE = 3,
  /** value: the device_tag byte (0x09..0xEF). */
  HURRAY_ERR_RESERVED_DEVICE_TAG = 4,
  /** value: the device_tag byte (0xFF). */
  HURRAY_ERR_INVALID_DEVICE_TAG = 5,
  /** value: the memory_class byte (0x04..0xEF). */
  HURRAY_ERR_RESERVED_MEMORY_CLASS = 6,
  /** value: the memory_class byte (0xFF). */
  HURRAY_ERR_INVALID_MEMORY_CLASS = 7,
  /** value: the memory_class byte; expected: the device_tag byte. */
  HURRAY_ERR_INVALID_PAIR = 8,
  /** value: the reserved byte. */
  HURRAY_ERR_RESERVED_BYTE_NONZERO = 9,
  /** value: the tag found; expected: the first handle's tag; index: position. */
  HURRAY_ERR_DEVICE_TAG_MISMATCH = 10,
  /** value: the class found; expected: the first handle's class; index. */
  HURRAY_ERR_MEMORY_CLASS_MISMATCH = 11,
  /** A list or table with no handle where at least one is required. */
  HURRAY_ERR_EMPTY_BUFFER_LIST = 12,
  /** value: bytes available; expected: bytes needed. */
  HURRAY_ERR_TRUNCATED = 13,
  /** value: bytes available; expected: bytes the table occupies. */
  HURRAY_ERR_TRAILING_BYTES = 14,
  /** value: handles (or bytes) needed; expected: the capacity given. */
  HURRAY_ERR_CAPACITY = 15,
  /** value: the sync_mode byte; expected: the hurray_transport. */
  HURRAY_ERR_SYNC_MODE_NOT_ALLOWED = 16,
  /** value/expected: what has no mapping (see the function). */
  HURRAY_ERR_UNSUPPORTED = 17,
  /** index: position of the NULL argument, counting from 0. */
  HURRAY_ERR_NULL_ARGUMENT = 18,
  /* Handoff (include/hurray/handoff.h, specs/handoff.md). */
  /** value: the sync_mode declared; expected: see specs/handoff.md. */
  HURRAY_ERR_SYNC_MODE_MISMATCH = 19,
  /** value: the operation; expected: the state it was attempted in. */
  HURRAY_ERR_ILLEGAL_TRANSITION = 20,
  /** The buffer (or event) was already released; value: the operation. */
  HURRAY_ERR_ALREADY_RELEASED = 21,
  /** The object was destroyed (poisoned) before this use. */
  HURRAY_ERR_USE_AFTER_DESTROY = 22,
  /* Plugins (include/hurray/plugin.h, specs/plugin-abi.md). */
  /** dlopen or dlsym failed; detail: the loader's message. */
  HURRAY_ERR_PLUGIN_LOAD_FAILED = 23,
  /** value: the plugin's ABI version; expected: the host's. */
  HURRAY_ERR_PLUGIN_ABI_MISMATCH = 24,
  /** The plugin's table breaks the ABI; detail says which field. */
  HURRAY_ERR_PLUGIN_INVALID = 25,
  /** The plugin file or path is not safe to load; detail says why. */
  HURRAY_ERR_PLUGIN_UNSAFE_PATH = 26,
  /** value: the device tag already served by another plugin. */
  HURRAY_ERR_PLUGIN_DUPLICATE_TAG = 27,
  /** The runtime or device is missing; detail says which and why. */
  HURRAY_ERR_DEVICE_UNAVAILABLE = 28,
  /** value: bytes requested. */
  HURRAY_ERR_OUT_OF_MEMORY = 29,
  /** A vendor call failed; value: the vendor's error code; detail: its name. */
  HURRAY_ERR_DEVICE_ERROR = 30,
  /** An argument outside its documented range; value: the argument. */
  HURRAY_ERR_INVALID_ARGUMENT = 31,
  /** A wait did not complete in time; value: the timeout in ns. */
  HURRAY_ERR_TIMEOUT = 32,
  /* IPC (include/hurray/ipc.h, specs/ipc.md). */
  /** The peer refused the connection; value: the reason (HURRAY_IPC_REFUSE_*); expected: the uid. */
  HURRAY_ERR_IPC_REFUSED = 33,
  /** The other process hung up or died; value: its pid (0 when unknown). */
  HURRAY_ERR_IPC_PEER_GONE = 34,
  /** A received descriptor is not a usable segment; value: found; expected: required; index: buffer. */
  HURRAY_ERR_IPC_BAD_SEGMENT = 35,
  /** A system call failed; value: errno; detail: the call. */
  HURRAY_ERR_IO = 36
};

/*
 * Transport-neutral names of the statuses a peer causes (specs/inbound.md
 * RX-ST-1), for every transport: the IPC names above are the ABI 1.0
 * spellings of the same values and stay. hurray_status_name keeps giving
 * "IPC_REFUSED" and "IPC_PEER_GONE".
 */
/** A peer refused; value: the reason; expected: what it names (IPC: the uid). */
#define HURRAY_ERR_REFUSED HURRAY_ERR_IPC_REFUSED
/** The peer hung up, died or ended the connection; values by transport (RX-ST-2). */
#define HURRAY_ERR_PEER_GONE HURRAY_ERR_IPC_PEER_GONE

/** One more than the largest hurray_status value. */
#define HURRAY_STATUS_COUNT 37

/** Capacity of hurray_error.detail, the terminating NUL included. */
#define HURRAY_ERROR_DETAIL_SIZE 192

/**
 * What went wrong, with the values that make it go wrong. Filled by every
 * fallible function on failure (when err != NULL). `detail` holds free text
 * from outside the core (a file name, a loader or vendor message); the core
 * leaves it empty.
 */
typedef struct hurray_error {
  hurray_status status;
  /** Keeps `value` 8-aligned without implicit padding (HO-ABI-3); not written, ignore it. */
  uint32_t reserved;
  uint64_t value;
  uint64_t expected;
  size_t index;
  char detail[HURRAY_ERROR_DETAIL_SIZE];
} hurray_error;

/** Name of a status without the HURRAY_ERR_ prefix ("OK", "TRUNCATED"); "UNKNOWN" otherwise. */
HURRAY_API const char *hurray_status_name(hurray_status status);

/**
 * Writes a one-line human message for `err` into buf (at most cap bytes,
 * always NUL-terminated when cap > 0), naming its values. Returns the length
 * the full message has, like snprintf, so a caller can detect truncation.
 */
HURRAY_API size_t hurray_error_format(const hurray_error *err, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Predicates (HO-ABI-5)                                                   */
/* ------------------------------------------------------------------------ */

/**
 * What every public predicate returns: exactly HURRAY_TRUE (1) or
 * HURRAY_FALSE (0), a fixed-width integer rather than a C `bool`, whose
 * size and representation the ABI does not fix (HO-ABI-3, HO-ABI-5).
 */
typedef uint32_t hurray_bool32;
#define HURRAY_TRUE 1u
#define HURRAY_FALSE 0u

/* ------------------------------------------------------------------------ */
/* Byte conversions and names                                               */
/* ------------------------------------------------------------------------ */

/** Accepts a named or private tag (BP-DEV-2, BP-DEV-3); rejects reserved and 0xFF. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_device_tag_from_byte(uint8_t byte,
                                                                      hurray_device_tag *out,
                                                                      hurray_error *err);
/** HURRAY_TRUE for 0xF0..0xFE, else HURRAY_FALSE. */
HURRAY_API hurray_bool32 hurray_device_tag_is_private(hurray_device_tag tag);
/** "cpu", "cuda", …, "level_zero", "opencl", "private", "reserved" or "invalid". */
HURRAY_API const char *hurray_device_tag_name(hurray_device_tag tag);

/** Accepts 0x00..0x03 and private classes 0xF0..0xFE (BP-MEM-1, BP-MEM-2). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_memory_class_from_byte(uint8_t byte,
                                                                        hurray_memory_class *out,
                                                                        hurray_error *err);
/** HURRAY_TRUE for 0xF0..0xFE, else HURRAY_FALSE. */
HURRAY_API hurray_bool32 hurray_memory_class_is_private(hurray_memory_class memory_class);
/** "standard", "host_pinned", "unified", "peer", "private", "reserved" or "invalid". */
HURRAY_API const char *hurray_memory_class_name(hurray_memory_class memory_class);

/** Accepts 0x00..0x02 (BP-SYNC-1). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_sync_mode_from_byte(uint8_t byte,
                                                                     hurray_sync_mode *out,
                                                                     hurray_error *err);
/** Always HURRAY_FALSE in this version of the protocol: there are no private sync modes. */
HURRAY_API hurray_bool32 hurray_sync_mode_is_private(hurray_sync_mode mode);
/** "producer_synced", "event", "consumer_stream", "reserved" or "invalid". */
HURRAY_API const char *hurray_sync_mode_name(hurray_sync_mode mode);

/**
 * Display forms for people: the name, or "private(0xF2)", "reserved(0x09)",
 * "invalid(0xFF)" where the name alone would not tell two values apart.
 * snprintf-style: returns the full length; writes at most cap bytes.
 */
HURRAY_API size_t hurray_device_tag_display(hurray_device_tag tag, char *buf, size_t cap);
HURRAY_API size_t hurray_memory_class_display(hurray_memory_class memory_class, char *buf,
                                              size_t cap);
HURRAY_API size_t hurray_sync_mode_display(hurray_sync_mode mode, char *buf, size_t cap);

/** The validity table (BP-PAIR-1..3): HURRAY_TRUE when the pair may appear in a handle. */
HURRAY_API hurray_bool32 hurray_pair_is_valid(hurray_device_tag device_tag,
                                              hurray_memory_class memory_class);

/* ------------------------------------------------------------------------ */
/* The buffer handle                                                        */
/* ------------------------------------------------------------------------ */

/**
 * A declaration of one buffer: size, alignment, device, sync mode and memory
 * class. A value: it holds no pointer (BP-WIRE-1).
 */
typedef struct hurray_buffer_handle {
  uint64_t byte_size;
  uint32_t alignment;
  hurray_device_tag device_tag;
  hurray_sync_mode sync_mode;
  hurray_memory_class memory_class;
  /** Zero; the struct's last byte, named so that it is not padding (HO-ABI-3). */
  uint8_t reserved;
} hurray_buffer_handle;

/**
 * Checks a handle against every rule, in the decoding order of BP-ORDER-1
 * (the reserved byte aside, which a value struct does not have).
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_handle_validate(const hurray_buffer_handle *handle, hurray_error *err);

/** A standard-class handle; fails as hurray_buffer_handle_validate() does. */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_handle_new(uint64_t byte_size, uint32_t alignment, hurray_device_tag device_tag,
                         hurray_sync_mode sync_mode, hurray_buffer_handle *out, hurray_error *err);

/** As hurray_buffer_handle_new() with an explicit memory class. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_handle_with_memory_class(
    uint64_t byte_size, uint32_t alignment, hurray_device_tag device_tag,
    hurray_sync_mode sync_mode, hurray_memory_class memory_class, hurray_buffer_handle *out,
    hurray_error *err);

/**
 * An empty buffer on `device_tag`: byte_size 0, alignment 1, producer_synced,
 * standard (BP-ALIGN-3). Infallible; the tag is stored as given, so a reserved
 * or invalid tag yields a handle that hurray_buffer_handle_validate() rejects.
 */
HURRAY_API hurray_buffer_handle hurray_buffer_handle_empty(hurray_device_tag device_tag);

HURRAY_API uint64_t hurray_buffer_handle_byte_size(const hurray_buffer_handle *handle);
HURRAY_API uint32_t hurray_buffer_handle_alignment(const hurray_buffer_handle *handle);
HURRAY_API hurray_device_tag hurray_buffer_handle_device_tag(const hurray_buffer_handle *handle);
HURRAY_API hurray_sync_mode hurray_buffer_handle_sync_mode(const hurray_buffer_handle *handle);
HURRAY_API hurray_memory_class
hurray_buffer_handle_memory_class(const hurray_buffer_handle *handle);
/** HURRAY_TRUE when byte_size == 0 (else HURRAY_FALSE): the buffer's pointer must not be dereferenced (BP-ALIGN-3). */
HURRAY_API hurray_bool32 hurray_buffer_handle_is_empty(const hurray_buffer_handle *handle);
/** HURRAY_TRUE when every field but `reserved` is equal, else HURRAY_FALSE. */
HURRAY_API hurray_bool32 hurray_buffer_handle_equal(const hurray_buffer_handle *a,
                                                    const hurray_buffer_handle *b);

/**
 * The largest power of two (at most 2^31) that divides the address; 2^31 for
 * NULL. What a producer may honestly declare for memory it did not align
 * itself (BP-ALIGN-5: alignment is measured, not asserted).
 */
HURRAY_API uint32_t hurray_alignment_of(const void *address);

/**
 * A handle for `byte_size` bytes of host memory at `address`, declaring the
 * alignment measured from the address (capped at `max_alignment`, a power of
 * two, so a producer can promise less than it happens to have). Fails with
 * ALIGNMENT_BELOW_MINIMUM (value: the measured alignment) when a non-empty
 * buffer's address is not 64-byte aligned: copy it to aligned memory first.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_handle_for_host_memory(
    const void *address, uint64_t byte_size, uint32_t max_alignment, hurray_buffer_handle *out,
    hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Wire form                                                                */
/* ------------------------------------------------------------------------ */

/** Writes the 16 little-endian bytes of a handle (BP-WIRE-1); reserved byte 0. */
HURRAY_API void hurray_buffer_handle_encode(const hurray_buffer_handle *handle,
                                            uint8_t out[HURRAY_BUFFER_HANDLE_SIZE]);

/** Decodes and validates 16 bytes in the order of BP-ORDER-1. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_handle_decode(
    const uint8_t in[HURRAY_BUFFER_HANDLE_SIZE], hurray_buffer_handle *out, hurray_error *err);

/** Bytes a table of `count` handles occupies: 1 + 16 * count (BP-TABLE-1). */
HURRAY_API size_t hurray_buffer_table_encoded_size(size_t count);

/**
 * Decodes a buffer table at the start of `in` (BP-TABLE-1..5): the count
 * byte, then count handles, then colocation. It reads at most
 * 1 + 16 * count bytes and ignores anything after them (a table is usually
 * followed by the rest of a descriptor). On success *count is the number of
 * handles written to out[0..count); on failure nothing is written to out[]
 * or *count, only to err (BP-TABLE-8).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_table_decode(const uint8_t *in, size_t len,
                                                                     hurray_buffer_handle *out,
                                                                     size_t cap, size_t *count,
                                                                     hurray_error *err);

/**
 * As hurray_buffer_table_decode(), but the table must be all of `in`:
 * TRAILING_BYTES otherwise (BP-TABLE-6), reported after everything the table
 * itself could be rejected for. A NULL argument is reported before anything
 * in the table is read; out[] and *count are written only on success
 * (BP-TABLE-8).
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_table_decode_exact(const uint8_t *in, size_t len, hurray_buffer_handle *out,
                                 size_t cap, size_t *count, hurray_error *err);

/**
 * Checks the buffer table at the start of `in` without decoding it
 * (BP-TABLE-10): the status and error hurray_buffer_table_decode() gives for
 * the same bytes with room for every handle, BP-TABLE-1..3 and BP-TABLE-5 with
 * colocation (BP-COLOC-1/2). It reads at most 1 + 16 * count bytes. On
 * success *count is the number of handles; on failure only err is written.
 * NULL_ARGUMENT names `in` (index 0) or `count` (index 2). Read the handles of
 * an accepted table with hurray_buffer_table_handle().
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_table_check(const uint8_t *in, size_t len,
                                                                    size_t *count,
                                                                    hurray_error *err);

/**
 * The field values of handle `index` of a table hurray_buffer_table_check()
 * accepted, read from its bytes into *out (BP-WIRE-1, BP-TABLE-10); `table`
 * is the `in` the check was given. An index at or past the count is
 * INVALID_ARGUMENT (value: the index, expected: the count, index: 1) and no
 * byte of that handle is read; NULL_ARGUMENT names `table` (0) or `out` (2).
 * *out is written only on success.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_table_handle(const uint8_t *table,
                                                                     size_t index,
                                                                     hurray_buffer_handle *out,
                                                                     hurray_error *err);

/**
 * Encodes `count` handles as a table into out[0..cap). Validates each handle
 * and colocation first, so it never writes a table a reader would reject.
 * *written receives 1 + 16 * count. CAPACITY when cap is too small (value:
 * bytes needed); EMPTY_BUFFER_LIST when count is 0; CAPACITY when count > 255.
 * out[] and *written are written only on success: a refused table leaves
 * every byte of out[0..cap) as it was (BP-TABLE-9).
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_table_encode(const hurray_buffer_handle *handles, size_t count, uint8_t *out,
                           size_t cap, size_t *written, hurray_error *err);

/**
 * Flag of the *_flags table functions: a table of count 0 is legal, as in the
 * descriptor of a composite head (layout tag 0x0B), whose bytes live in its
 * partitions (BP-TABLE-7). Only the caller, who read the layout tag, knows.
 */
#define HURRAY_BUFFER_TABLE_ALLOW_EMPTY 0x1u

/**
 * As hurray_buffer_table_decode(), with `flags` 0 or
 * HURRAY_BUFFER_TABLE_ALLOW_EMPTY. With 0 it behaves exactly as
 * hurray_buffer_table_decode() (count 0 is EMPTY_BUFFER_LIST, BP-TABLE-3).
 * With HURRAY_BUFFER_TABLE_ALLOW_EMPTY a count byte of 0 is a valid table of
 * zero handles (BP-TABLE-7): HURRAY_OK, *count = 0, nothing written to out[]
 * or err (out must still be non-NULL; cap may be 0). Any other flag bit is
 * INVALID_ARGUMENT (value: flags, expected: the defined bits, index: 5),
 * reported after a NULL argument and before the table is read.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_table_decode_flags(const uint8_t *in, size_t len, hurray_buffer_handle *out,
                                 size_t cap, size_t *count, uint32_t flags, hurray_error *err);

/**
 * As hurray_buffer_table_decode_exact(), with the flags of
 * hurray_buffer_table_decode_flags(). With HURRAY_BUFFER_TABLE_ALLOW_EMPTY the
 * input of a zero-count table must be the single byte 0x00: TRAILING_BYTES
 * (value: len, expected: 1) otherwise (BP-TABLE-6, BP-TABLE-7).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_table_decode_exact_flags(
    const uint8_t *in, size_t len, hurray_buffer_handle *out, size_t cap, size_t *count,
    uint32_t flags, hurray_error *err);

/**
 * As hurray_buffer_table_encode(), with `flags` 0 (exactly
 * hurray_buffer_table_encode()) or HURRAY_BUFFER_TABLE_ALLOW_EMPTY: then
 * count 0 writes the one-byte table 0x00 (*written = 1; CAPACITY, value 1,
 * when cap is 0), BP-TABLE-7. `handles` must still be non-NULL. Any other
 * flag bit is INVALID_ARGUMENT (value: flags, expected: the defined bits,
 * index: 5) and nothing is written.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_table_encode_flags(const hurray_buffer_handle *handles, size_t count, uint8_t *out,
                                 size_t cap, size_t *written, uint32_t flags, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Colocation                                                               */
/* ------------------------------------------------------------------------ */

/**
 * All handles share the first one's device_tag and memory_class (BP-COLOC-1,
 * BP-COLOC-2). On success *out_device (may be NULL) is that tag.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_validate_colocation(const hurray_buffer_handle *handles, size_t n,
                           hurray_device_tag *out_device, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Transports                                                               */
/* ------------------------------------------------------------------------ */

/** How a buffer crosses from producer to consumer (BP-XPORT-1); HO-ABI-4. */
typedef uint32_t hurray_transport;
#define HURRAY_TRANSPORT_IN_PROCESS 0u
#define HURRAY_TRANSPORT_IPC 1u
#define HURRAY_TRANSPORT_NETWORK 2u

/** Capability bits a device declares for IPC (plugins report these). */
#define HURRAY_IPC_EXPORTS_EVENTS 0x1u
#define HURRAY_IPC_EXPORTS_STREAMS 0x2u

/**
 * The IPC capabilities the spec assumes for a named device when no plugin says
 * otherwise (BP-XPORT-3): events for CUDA and ROCm, nothing else.
 */
HURRAY_API uint32_t hurray_device_default_ipc_capabilities(hurray_device_tag device_tag);

/**
 * Whether `mode` may be used on `transport` (BP-XPORT-2..4); for IPC,
 * `ipc_capabilities` is the device's HURRAY_IPC_* bits. SYNC_MODE_NOT_ALLOWED
 * (value: the mode, expected: the transport) otherwise; INVALID_SYNC_MODE for
 * a mode byte that is not defined; INVALID_ARGUMENT for an unknown transport.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_transport_check_sync_mode(hurray_transport transport, hurray_sync_mode mode,
                                 uint32_t ipc_capabilities, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* DLPack                                                                   */
/* ------------------------------------------------------------------------ */

/** DLPack DLDeviceType values used by the mapping (BP-DLPACK-1). */
#define HURRAY_DLPACK_CPU 1
#define HURRAY_DLPACK_CUDA 2
#define HURRAY_DLPACK_CUDA_HOST 3
#define HURRAY_DLPACK_OPENCL 4
#define HURRAY_DLPACK_VULKAN 7
#define HURRAY_DLPACK_METAL 8
#define HURRAY_DLPACK_ROCM 10
#define HURRAY_DLPACK_ROCM_HOST 11
#define HURRAY_DLPACK_CUDA_MANAGED 13
#define HURRAY_DLPACK_ONEAPI 14
#define HURRAY_DLPACK_WEBGPU 15
#define HURRAY_DLPACK_HEXAGON 16

/**
 * The DLDeviceType of a (device_tag, memory_class) pair (BP-DLPACK-1).
 * UNSUPPORTED (value: the memory class, expected: the device tag) where DLPack
 * has no equivalent; never a guess.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_dlpack_device_type_from_pair(hurray_device_tag device_tag, hurray_memory_class memory_class,
                                    int32_t *out_device_type, hurray_error *err);

/**
 * The (device_tag, memory_class) a DLDeviceType maps back to (BP-DLPACK-2).
 * Where several classes share one DLPack value, the class is standard.
 * UNSUPPORTED (value: the device type) for a type with no Hurray equivalent.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_dlpack_device_type_to_pair(int32_t device_type, hurray_device_tag *out_device_tag,
                                  hurray_memory_class *out_memory_class, hurray_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_BUFFER_H */
