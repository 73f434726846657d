/*
 * Status names.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/buffer.h"

#include <stdint.h>

/* The name of each status, the enumerator of include/hurray/buffer.h without
 * its HURRAY_ or HURRAY_ERR_ prefix, indexed by value (HURRAY_OK == 0 up to
 * HURRAY_ERR_IO, contiguous); the last row names every other value. A
 * table rather than a switch: one path instead of 38 keeps the proof (and its
 * smoke tests) small, and the contract below pins every name. */
static const char status_names[38][27] = {
    "OK",
    "ALIGNMENT_NOT_POWER_OF_TWO",
    "ALIGNMENT_BELOW_MINIMUM",
    "INVALID_SYNC_MODE",
    "RESERVED_DEVICE_TAG",
    "INVALID_DEVICE_TAG",
    "RESERVED_MEMORY_CLASS",
    "INVALID_MEMORY_CLASS",
    "INVALID_PAIR",
    "RESERVED_BYTE_NONZERO",
    "DEVICE_TAG_MISMATCH",
    "MEMORY_CLASS_MISMATCH",
    "EMPTY_BUFFER_LIST",
    "TRUNCATED",
    "TRAILING_BYTES",
    "CAPACITY",
    "SYNC_MODE_NOT_ALLOWED",
    "UNSUPPORTED",
    "NULL_ARGUMENT",
    "SYNC_MODE_MISMATCH",
    "ILLEGAL_TRANSITION",
    "ALREADY_RELEASED",
    "USE_AFTER_DESTROY",
    "PLUGIN_LOAD_FAILED",
    "PLUGIN_ABI_MISMATCH",
    "PLUGIN_INVALID",
    "PLUGIN_UNSAFE_PATH",
    "PLUGIN_DUPLICATE_TAG",
    "DEVICE_UNAVAILABLE",
    "OUT_OF_MEMORY",
    "DEVICE_ERROR",
    "INVALID_ARGUMENT",
    "TIMEOUT",
    "IPC_REFUSED",
    "IPC_PEER_GONE",
    "IPC_BAD_SEGMENT",
    "IO",
    "UNKNOWN",
};

/*@
  terminates \true;
  assigns \result \from status;
  ensures \valid_read(\result + (0 .. 26));
  ensures name_ok: status == HURRAY_OK ==>  // "OK"
      \result[0] == 'O' && \result[1] == 'K' && \result[2] == 0;
  ensures name_alignment_not_power_of_two: status == HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO ==>  // "ALIGNMENT_NOT_POWER_OF_TWO"
      \result[0] == 'A' && \result[1] == 'L' && \result[2] == 'I' && \result[3] == 'G' &&
      \result[4] == 'N' && \result[5] == 'M' && \result[6] == 'E' && \result[7] == 'N' &&
      \result[8] == 'T' && \result[9] == '_' && \result[10] == 'N' && \result[11] == 'O' &&
      \result[12] == 'T' && \result[13] == '_' && \result[14] == 'P' && \result[15] == 'O' &&
      \result[16] == 'W' && \result[17] == 'E' && \result[18] == 'R' && \result[19] == '_' &&
      \result[20] == 'O' && \result[21] == 'F' && \result[22] == '_' && \result[23] == 'T' &&
      \result[24] == 'W' && \result[25] == 'O' && \result[26] == 0;
  ensures name_alignment_below_minimum: status == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM ==>  // "ALIGNMENT_BELOW_MINIMUM"
      \result[0] == 'A' && \result[1] == 'L' && \result[2] == 'I' && \result[3] == 'G' &&
      \result[4] == 'N' && \result[5] == 'M' && \result[6] == 'E' && \result[7] == 'N' &&
      \result[8] == 'T' && \result[9] == '_' && \result[10] == 'B' && \result[11] == 'E' &&
      \result[12] == 'L' && \result[13] == 'O' && \result[14] == 'W' && \result[15] == '_' &&
      \result[16] == 'M' && \result[17] == 'I' && \result[18] == 'N' && \result[19] == 'I' &&
      \result[20] == 'M' && \result[21] == 'U' && \result[22] == 'M' && \result[23] == 0;
  ensures name_invalid_sync_mode: status == HURRAY_ERR_INVALID_SYNC_MODE ==>  // "INVALID_SYNC_MODE"
      \result[0] == 'I' && \result[1] == 'N' && \result[2] == 'V' && \result[3] == 'A' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'S' && \result[9] == 'Y' && \result[10] == 'N' && \result[11] == 'C' &&
      \result[12] == '_' && \result[13] == 'M' && \result[14] == 'O' && \result[15] == 'D' &&
      \result[16] == 'E' && \result[17] == 0;
  ensures name_reserved_device_tag: status == HURRAY_ERR_RESERVED_DEVICE_TAG ==>  // "RESERVED_DEVICE_TAG"
      \result[0] == 'R' && \result[1] == 'E' && \result[2] == 'S' && \result[3] == 'E' &&
      \result[4] == 'R' && \result[5] == 'V' && \result[6] == 'E' && \result[7] == 'D' &&
      \result[8] == '_' && \result[9] == 'D' && \result[10] == 'E' && \result[11] == 'V' &&
      \result[12] == 'I' && \result[13] == 'C' && \result[14] == 'E' && \result[15] == '_' &&
      \result[16] == 'T' && \result[17] == 'A' && \result[18] == 'G' && \result[19] == 0;
  ensures name_invalid_device_tag: status == HURRAY_ERR_INVALID_DEVICE_TAG ==>  // "INVALID_DEVICE_TAG"
      \result[0] == 'I' && \result[1] == 'N' && \result[2] == 'V' && \result[3] == 'A' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'D' && \result[9] == 'E' && \result[10] == 'V' && \result[11] == 'I' &&
      \result[12] == 'C' && \result[13] == 'E' && \result[14] == '_' && \result[15] == 'T' &&
      \result[16] == 'A' && \result[17] == 'G' && \result[18] == 0;
  ensures name_reserved_memory_class: status == HURRAY_ERR_RESERVED_MEMORY_CLASS ==>  // "RESERVED_MEMORY_CLASS"
      \result[0] == 'R' && \result[1] == 'E' && \result[2] == 'S' && \result[3] == 'E' &&
      \result[4] == 'R' && \result[5] == 'V' && \result[6] == 'E' && \result[7] == 'D' &&
      \result[8] == '_' && \result[9] == 'M' && \result[10] == 'E' && \result[11] == 'M' &&
      \result[12] == 'O' && \result[13] == 'R' && \result[14] == 'Y' && \result[15] == '_' &&
      \result[16] == 'C' && \result[17] == 'L' && \result[18] == 'A' && \result[19] == 'S' &&
      \result[20] == 'S' && \result[21] == 0;
  ensures name_invalid_memory_class: status == HURRAY_ERR_INVALID_MEMORY_CLASS ==>  // "INVALID_MEMORY_CLASS"
      \result[0] == 'I' && \result[1] == 'N' && \result[2] == 'V' && \result[3] == 'A' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'M' && \result[9] == 'E' && \result[10] == 'M' && \result[11] == 'O' &&
      \result[12] == 'R' && \result[13] == 'Y' && \result[14] == '_' && \result[15] == 'C' &&
      \result[16] == 'L' && \result[17] == 'A' && \result[18] == 'S' && \result[19] == 'S' &&
      \result[20] == 0;
  ensures name_invalid_pair: status == HURRAY_ERR_INVALID_PAIR ==>  // "INVALID_PAIR"
      \result[0] == 'I' && \result[1] == 'N' && \result[2] == 'V' && \result[3] == 'A' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'P' && \result[9] == 'A' && \result[10] == 'I' && \result[11] == 'R' &&
      \result[12] == 0;
  ensures name_reserved_byte_nonzero: status == HURRAY_ERR_RESERVED_BYTE_NONZERO ==>  // "RESERVED_BYTE_NONZERO"
      \result[0] == 'R' && \result[1] == 'E' && \result[2] == 'S' && \result[3] == 'E' &&
      \result[4] == 'R' && \result[5] == 'V' && \result[6] == 'E' && \result[7] == 'D' &&
      \result[8] == '_' && \result[9] == 'B' && \result[10] == 'Y' && \result[11] == 'T' &&
      \result[12] == 'E' && \result[13] == '_' && \result[14] == 'N' && \result[15] == 'O' &&
      \result[16] == 'N' && \result[17] == 'Z' && \result[18] == 'E' && \result[19] == 'R' &&
      \result[20] == 'O' && \result[21] == 0;
  ensures name_device_tag_mismatch: status == HURRAY_ERR_DEVICE_TAG_MISMATCH ==>  // "DEVICE_TAG_MISMATCH"
      \result[0] == 'D' && \result[1] == 'E' && \result[2] == 'V' && \result[3] == 'I' &&
      \result[4] == 'C' && \result[5] == 'E' && \result[6] == '_' && \result[7] == 'T' &&
      \result[8] == 'A' && \result[9] == 'G' && \result[10] == '_' && \result[11] == 'M' &&
      \result[12] == 'I' && \result[13] == 'S' && \result[14] == 'M' && \result[15] == 'A' &&
      \result[16] == 'T' && \result[17] == 'C' && \result[18] == 'H' && \result[19] == 0;
  ensures name_memory_class_mismatch: status == HURRAY_ERR_MEMORY_CLASS_MISMATCH ==>  // "MEMORY_CLASS_MISMATCH"
      \result[0] == 'M' && \result[1] == 'E' && \result[2] == 'M' && \result[3] == 'O' &&
      \result[4] == 'R' && \result[5] == 'Y' && \result[6] == '_' && \result[7] == 'C' &&
      \result[8] == 'L' && \result[9] == 'A' && \result[10] == 'S' && \result[11] == 'S' &&
      \result[12] == '_' && \result[13] == 'M' && \result[14] == 'I' && \result[15] == 'S' &&
      \result[16] == 'M' && \result[17] == 'A' && \result[18] == 'T' && \result[19] == 'C' &&
      \result[20] == 'H' && \result[21] == 0;
  ensures name_empty_buffer_list: status == HURRAY_ERR_EMPTY_BUFFER_LIST ==>  // "EMPTY_BUFFER_LIST"
      \result[0] == 'E' && \result[1] == 'M' && \result[2] == 'P' && \result[3] == 'T' &&
      \result[4] == 'Y' && \result[5] == '_' && \result[6] == 'B' && \result[7] == 'U' &&
      \result[8] == 'F' && \result[9] == 'F' && \result[10] == 'E' && \result[11] == 'R' &&
      \result[12] == '_' && \result[13] == 'L' && \result[14] == 'I' && \result[15] == 'S' &&
      \result[16] == 'T' && \result[17] == 0;
  ensures name_truncated: status == HURRAY_ERR_TRUNCATED ==>  // "TRUNCATED"
      \result[0] == 'T' && \result[1] == 'R' && \result[2] == 'U' && \result[3] == 'N' &&
      \result[4] == 'C' && \result[5] == 'A' && \result[6] == 'T' && \result[7] == 'E' &&
      \result[8] == 'D' && \result[9] == 0;
  ensures name_trailing_bytes: status == HURRAY_ERR_TRAILING_BYTES ==>  // "TRAILING_BYTES"
      \result[0] == 'T' && \result[1] == 'R' && \result[2] == 'A' && \result[3] == 'I' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'N' && \result[7] == 'G' &&
      \result[8] == '_' && \result[9] == 'B' && \result[10] == 'Y' && \result[11] == 'T' &&
      \result[12] == 'E' && \result[13] == 'S' && \result[14] == 0;
  ensures name_capacity: status == HURRAY_ERR_CAPACITY ==>  // "CAPACITY"
      \result[0] == 'C' && \result[1] == 'A' && \result[2] == 'P' && \result[3] == 'A' &&
      \result[4] == 'C' && \result[5] == 'I' && \result[6] == 'T' && \result[7] == 'Y' &&
      \result[8] == 0;
  ensures name_sync_mode_not_allowed: status == HURRAY_ERR_SYNC_MODE_NOT_ALLOWED ==>  // "SYNC_MODE_NOT_ALLOWED"
      \result[0] == 'S' && \result[1] == 'Y' && \result[2] == 'N' && \result[3] == 'C' &&
      \result[4] == '_' && \result[5] == 'M' && \result[6] == 'O' && \result[7] == 'D' &&
      \result[8] == 'E' && \result[9] == '_' && \result[10] == 'N' && \result[11] == 'O' &&
      \result[12] == 'T' && \result[13] == '_' && \result[14] == 'A' && \result[15] == 'L' &&
      \result[16] == 'L' && \result[17] == 'O' && \result[18] == 'W' && \result[19] == 'E' &&
      \result[20] == 'D' && \result[21] == 0;
  ensures name_unsupported: status == HURRAY_ERR_UNSUPPORTED ==>  // "UNSUPPORTED"
      \result[0] == 'U' && \result[1] == 'N' && \result[2] == 'S' && \result[3] == 'U' &&
      \result[4] == 'P' && \result[5] == 'P' && \result[6] == 'O' && \result[7] == 'R' &&
      \result[8] == 'T' && \result[9] == 'E' && \result[10] == 'D' && \result[11] == 0;
  ensures name_null_argument: status == HURRAY_ERR_NULL_ARGUMENT ==>  // "NULL_ARGUMENT"
      \result[0] == 'N' && \result[1] == 'U' && \result[2] == 'L' && \result[3] == 'L' &&
      \result[4] == '_' && \result[5] == 'A' && \result[6] == 'R' && \result[7] == 'G' &&
      \result[8] == 'U' && \result[9] == 'M' && \result[10] == 'E' && \result[11] == 'N' &&
      \result[12] == 'T' && \result[13] == 0;
  ensures name_sync_mode_mismatch: status == HURRAY_ERR_SYNC_MODE_MISMATCH ==>  // "SYNC_MODE_MISMATCH"
      \result[0] == 'S' && \result[1] == 'Y' && \result[2] == 'N' && \result[3] == 'C' &&
      \result[4] == '_' && \result[5] == 'M' && \result[6] == 'O' && \result[7] == 'D' &&
      \result[8] == 'E' && \result[9] == '_' && \result[10] == 'M' && \result[11] == 'I' &&
      \result[12] == 'S' && \result[13] == 'M' && \result[14] == 'A' && \result[15] == 'T' &&
      \result[16] == 'C' && \result[17] == 'H' && \result[18] == 0;
  ensures name_illegal_transition: status == HURRAY_ERR_ILLEGAL_TRANSITION ==>  // "ILLEGAL_TRANSITION"
      \result[0] == 'I' && \result[1] == 'L' && \result[2] == 'L' && \result[3] == 'E' &&
      \result[4] == 'G' && \result[5] == 'A' && \result[6] == 'L' && \result[7] == '_' &&
      \result[8] == 'T' && \result[9] == 'R' && \result[10] == 'A' && \result[11] == 'N' &&
      \result[12] == 'S' && \result[13] == 'I' && \result[14] == 'T' && \result[15] == 'I' &&
      \result[16] == 'O' && \result[17] == 'N' && \result[18] == 0;
  ensures name_already_released: status == HURRAY_ERR_ALREADY_RELEASED ==>  // "ALREADY_RELEASED"
      \result[0] == 'A' && \result[1] == 'L' && \result[2] == 'R' && \result[3] == 'E' &&
      \result[4] == 'A' && \result[5] == 'D' && \result[6] == 'Y' && \result[7] == '_' &&
      \result[8] == 'R' && \result[9] == 'E' && \result[10] == 'L' && \result[11] == 'E' &&
      \result[12] == 'A' && \result[13] == 'S' && \result[14] == 'E' && \result[15] == 'D' &&
      \result[16] == 0;
  ensures name_use_after_destroy: status == HURRAY_ERR_USE_AFTER_DESTROY ==>  // "USE_AFTER_DESTROY"
      \result[0] == 'U' && \result[1] == 'S' && \result[2] == 'E' && \result[3] == '_' &&
      \result[4] == 'A' && \result[5] == 'F' && \result[6] == 'T' && \result[7] == 'E' &&
      \result[8] == 'R' && \result[9] == '_' && \result[10] == 'D' && \result[11] == 'E' &&
      \result[12] == 'S' && \result[13] == 'T' && \result[14] == 'R' && \result[15] == 'O' &&
      \result[16] == 'Y' && \result[17] == 0;
  ensures name_plugin_load_failed: status == HURRAY_ERR_PLUGIN_LOAD_FAILED ==>  // "PLUGIN_LOAD_FAILED"
      \result[0] == 'P' && \result[1] == 'L' && \result[2] == 'U' && \result[3] == 'G' &&
      \result[4] == 'I' && \result[5] == 'N' && \result[6] == '_' && \result[7] == 'L' &&
      \result[8] == 'O' && \result[9] == 'A' && \result[10] == 'D' && \result[11] == '_' &&
      \result[12] == 'F' && \result[13] == 'A' && \result[14] == 'I' && \result[15] == 'L' &&
      \result[16] == 'E' && \result[17] == 'D' && \result[18] == 0;
  ensures name_plugin_abi_mismatch: status == HURRAY_ERR_PLUGIN_ABI_MISMATCH ==>  // "PLUGIN_ABI_MISMATCH"
      \result[0] == 'P' && \result[1] == 'L' && \result[2] == 'U' && \result[3] == 'G' &&
      \result[4] == 'I' && \result[5] == 'N' && \result[6] == '_' && \result[7] == 'A' &&
      \result[8] == 'B' && \result[9] == 'I' && \result[10] == '_' && \result[11] == 'M' &&
      \result[12] == 'I' && \result[13] == 'S' && \result[14] == 'M' && \result[15] == 'A' &&
      \result[16] == 'T' && \result[17] == 'C' && \result[18] == 'H' && \result[19] == 0;
  ensures name_plugin_invalid: status == HURRAY_ERR_PLUGIN_INVALID ==>  // "PLUGIN_INVALID"
      \result[0] == 'P' && \result[1] == 'L' && \result[2] == 'U' && \result[3] == 'G' &&
      \result[4] == 'I' && \result[5] == 'N' && \result[6] == '_' && \result[7] == 'I' &&
      \result[8] == 'N' && \result[9] == 'V' && \result[10] == 'A' && \result[11] == 'L' &&
      \result[12] == 'I' && \result[13] == 'D' && \result[14] == 0;
  ensures name_plugin_unsafe_path: status == HURRAY_ERR_PLUGIN_UNSAFE_PATH ==>  // "PLUGIN_UNSAFE_PATH"
      \result[0] == 'P' && \result[1] == 'L' && \result[2] == 'U' && \result[3] == 'G' &&
      \result[4] == 'I' && \result[5] == 'N' && \result[6] == '_' && \result[7] == 'U' &&
      \result[8] == 'N' && \result[9] == 'S' && \result[10] == 'A' && \result[11] == 'F' &&
      \result[12] == 'E' && \result[13] == '_' && \result[14] == 'P' && \result[15] == 'A' &&
      \result[16] == 'T' && \result[17] == 'H' && \result[18] == 0;
  ensures name_plugin_duplicate_tag: status == HURRAY_ERR_PLUGIN_DUPLICATE_TAG ==>  // "PLUGIN_DUPLICATE_TAG"
      \result[0] == 'P' && \result[1] == 'L' && \result[2] == 'U' && \result[3] == 'G' &&
      \result[4] == 'I' && \result[5] == 'N' && \result[6] == '_' && \result[7] == 'D' &&
      \result[8] == 'U' && \result[9] == 'P' && \result[10] == 'L' && \result[11] == 'I' &&
      \result[12] == 'C' && \result[13] == 'A' && \result[14] == 'T' && \result[15] == 'E' &&
      \result[16] == '_' && \result[17] == 'T' && \result[18] == 'A' && \result[19] == 'G' &&
      \result[20] == 0;
  ensures name_device_unavailable: status == HURRAY_ERR_DEVICE_UNAVAILABLE ==>  // "DEVICE_UNAVAILABLE"
      \result[0] == 'D' && \result[1] == 'E' && \result[2] == 'V' && \result[3] == 'I' &&
      \result[4] == 'C' && \result[5] == 'E' && \result[6] == '_' && \result[7] == 'U' &&
      \result[8] == 'N' && \result[9] == 'A' && \result[10] == 'V' && \result[11] == 'A' &&
      \result[12] == 'I' && \result[13] == 'L' && \result[14] == 'A' && \result[15] == 'B' &&
      \result[16] == 'L' && \result[17] == 'E' && \result[18] == 0;
  ensures name_out_of_memory: status == HURRAY_ERR_OUT_OF_MEMORY ==>  // "OUT_OF_MEMORY"
      \result[0] == 'O' && \result[1] == 'U' && \result[2] == 'T' && \result[3] == '_' &&
      \result[4] == 'O' && \result[5] == 'F' && \result[6] == '_' && \result[7] == 'M' &&
      \result[8] == 'E' && \result[9] == 'M' && \result[10] == 'O' && \result[11] == 'R' &&
      \result[12] == 'Y' && \result[13] == 0;
  ensures name_device_error: status == HURRAY_ERR_DEVICE_ERROR ==>  // "DEVICE_ERROR"
      \result[0] == 'D' && \result[1] == 'E' && \result[2] == 'V' && \result[3] == 'I' &&
      \result[4] == 'C' && \result[5] == 'E' && \result[6] == '_' && \result[7] == 'E' &&
      \result[8] == 'R' && \result[9] == 'R' && \result[10] == 'O' && \result[11] == 'R' &&
      \result[12] == 0;
  ensures name_invalid_argument: status == HURRAY_ERR_INVALID_ARGUMENT ==>  // "INVALID_ARGUMENT"
      \result[0] == 'I' && \result[1] == 'N' && \result[2] == 'V' && \result[3] == 'A' &&
      \result[4] == 'L' && \result[5] == 'I' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'A' && \result[9] == 'R' && \result[10] == 'G' && \result[11] == 'U' &&
      \result[12] == 'M' && \result[13] == 'E' && \result[14] == 'N' && \result[15] == 'T' &&
      \result[16] == 0;
  ensures name_timeout: status == HURRAY_ERR_TIMEOUT ==>  // "TIMEOUT"
      \result[0] == 'T' && \result[1] == 'I' && \result[2] == 'M' && \result[3] == 'E' &&
      \result[4] == 'O' && \result[5] == 'U' && \result[6] == 'T' && \result[7] == 0;
  ensures name_ipc_refused: status == HURRAY_ERR_IPC_REFUSED ==>  // "IPC_REFUSED"
      \result[0] == 'I' && \result[1] == 'P' && \result[2] == 'C' && \result[3] == '_' &&
      \result[4] == 'R' && \result[5] == 'E' && \result[6] == 'F' && \result[7] == 'U' &&
      \result[8] == 'S' && \result[9] == 'E' && \result[10] == 'D' && \result[11] == 0;
  ensures name_ipc_peer_gone: status == HURRAY_ERR_IPC_PEER_GONE ==>  // "IPC_PEER_GONE"
      \result[0] == 'I' && \result[1] == 'P' && \result[2] == 'C' && \result[3] == '_' &&
      \result[4] == 'P' && \result[5] == 'E' && \result[6] == 'E' && \result[7] == 'R' &&
      \result[8] == '_' && \result[9] == 'G' && \result[10] == 'O' && \result[11] == 'N' &&
      \result[12] == 'E' && \result[13] == 0;
  ensures name_ipc_bad_segment: status == HURRAY_ERR_IPC_BAD_SEGMENT ==>  // "IPC_BAD_SEGMENT"
      \result[0] == 'I' && \result[1] == 'P' && \result[2] == 'C' && \result[3] == '_' &&
      \result[4] == 'B' && \result[5] == 'A' && \result[6] == 'D' && \result[7] == '_' &&
      \result[8] == 'S' && \result[9] == 'E' && \result[10] == 'G' && \result[11] == 'M' &&
      \result[12] == 'E' && \result[13] == 'N' && \result[14] == 'T' && \result[15] == 0;
  ensures name_io: status == HURRAY_ERR_IO ==>  // "IO"
      \result[0] == 'I' && \result[1] == 'O' && \result[2] == 0;
  ensures name_unknown: !(HURRAY_OK <= status <= HURRAY_ERR_IO) ==>  // "UNKNOWN"
      \result[0] == 'U' && \result[1] == 'N' && \result[2] == 'K' && \result[3] == 'N' &&
      \result[4] == 'O' && \result[5] == 'W' && \result[6] == 'N' && \result[7] == 0;
*/
const char *hurray_status_name(hurray_status status) {
  uint32_t value = (uint32_t)status;
  return status_names[value <= (uint32_t)HURRAY_ERR_IO ? value : 37u];
}
