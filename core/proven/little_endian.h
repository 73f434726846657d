/*
 * Little-endian loads and stores: the one home of the byte order of every
 * wire form the core reads or writes (BP-WIRE-1's handles and tables,
 * IPC-MSG-1's and NET-MSG-1's messages). Each access goes byte by byte, so
 * it is independent of the host's byte order and alignment, and is written
 * in the form gcc and clang compile to one load or store of the whole value
 * on little-endian hosts: loads as a sum of shifted bytes (both compilers
 * merge it as they do an OR; a sum of products, which the provers would
 * take without bit reasoning, gcc 12 leaves as byte loads), stores as
 * quotients and remainders by powers of 256. Internal to the core.
 *
 * The loads are proved with WP's bitshift tactic (proofs/runner/config.py,
 * BIT_SHIFT_FUNCTIONS); their contracts are in the model's bp_le16, bp_le32
 * and bp_le64, the stores' in bp_byte.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_LITTLE_ENDIAN_H
#define HURRAY_CORE_LITTLE_ENDIAN_H

#include <stdint.h>

/*@
  requires \valid_read(p + (0 .. 7));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le64(p);  // BP-WIRE-1, IPC-MSG-1, NET-MSG-1
*/
static inline uint64_t load_le64(const uint8_t *p) {
  return (uint64_t)p[0] + ((uint64_t)p[1] << 8) + ((uint64_t)p[2] << 16) +
         ((uint64_t)p[3] << 24) + ((uint64_t)p[4] << 32) + ((uint64_t)p[5] << 40) +
         ((uint64_t)p[6] << 48) + ((uint64_t)p[7] << 56);
}

/*@
  requires \valid_read(p + (0 .. 3));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le32(p);  // BP-WIRE-1, IPC-MSG-1, NET-MSG-1
*/
static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] + ((uint32_t)p[1] << 8) + ((uint32_t)p[2] << 16) +
         ((uint32_t)p[3] << 24);
}

/*@
  requires \valid_read(p + (0 .. 1));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le16(p);  // IPC-MSG-1, NET-MSG-1
*/
static inline uint32_t load_le16(const uint8_t *p) {
  return (uint32_t)p[0] + ((uint32_t)p[1] << 8);
}

/*@
  requires \valid(p + (0 .. 7));
  terminates \true;
  assigns p[0 .. 7];
  ensures p[0] == bp_byte(v, 0) && p[1] == bp_byte(v, 1) && p[2] == bp_byte(v, 2) &&
          p[3] == bp_byte(v, 3) && p[4] == bp_byte(v, 4) && p[5] == bp_byte(v, 5) &&
          p[6] == bp_byte(v, 6) && p[7] == bp_byte(v, 7);  // BP-WIRE-1
*/
static inline void store_le64(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)(v % 0x100u);
  p[1] = (uint8_t)(v / 0x100u % 0x100u);
  p[2] = (uint8_t)(v / 0x10000u % 0x100u);
  p[3] = (uint8_t)(v / 0x1000000u % 0x100u);
  p[4] = (uint8_t)(v / 0x100000000u % 0x100u);
  p[5] = (uint8_t)(v / 0x10000000000u % 0x100u);
  p[6] = (uint8_t)(v / 0x1000000000000u % 0x100u);
  p[7] = (uint8_t)(v / 0x100000000000000u % 0x100u);
}

/*@
  requires \valid(p + (0 .. 3));
  terminates \true;
  assigns p[0 .. 3];
  ensures p[0] == bp_byte(v, 0) && p[1] == bp_byte(v, 1) && p[2] == bp_byte(v, 2) &&
          p[3] == bp_byte(v, 3);  // BP-WIRE-1
*/
static inline void store_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v % 0x100u);
  p[1] = (uint8_t)(v / 0x100u % 0x100u);
  p[2] = (uint8_t)(v / 0x10000u % 0x100u);
  p[3] = (uint8_t)(v / 0x1000000u % 0x100u);
}

#endif /* HURRAY_CORE_LITTLE_ENDIAN_H */
