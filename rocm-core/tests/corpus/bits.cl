#include "prelude.h"

// Bit counting, rotates, bitfield extract/insert, byte swap and bit reversal, 32 and 64
// bits.
__kernel void bit_ops(__global const uint *a, __global const ulong *b, __global uint *out,
                      int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint x = a[i];
  ulong y = b[i];
  uint s = x & 31;
  out[10 * i + 0] = __builtin_popcount(x);
  out[10 * i + 1] = x ? __builtin_clz(x) : 32;
  out[10 * i + 2] = x ? __builtin_ctz(x) : 32;
  out[10 * i + 3] = (x >> s) | (x << ((32 - s) & 31));
  out[10 * i + 4] = (x >> (s & 15)) & ((1u << ((x >> 8) & 15)) - 1);
  out[10 * i + 5] = (x & ~(0xffu << 8)) | ((uint)(y & 0xff) << 8);
  out[10 * i + 6] = __builtin_bswap32(x) ^ __builtin_bitreverse32(x);
  out[10 * i + 7] = __builtin_popcountll(y) + (y ? __builtin_clzll(y) : 64) * 128;
  out[10 * i + 8] = (uint)((y >> (s + 1)) ^ (y << (63 - s)));
  out[10 * i + 9] = (uint)(((int)x) >> 7) + (uint)(((long)y) >> 40) + (y ? __builtin_ctzll(y) : 64);
}

// Signed and unsigned 64-bit division and remainder, 64-bit multiply.
__kernel void int64_ops(__global const long *a, __global const long *b, __global long *out,
                        int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  long x = a[i], y = b[i];
  out[4 * i + 0] = x / y;
  out[4 * i + 1] = x % y;
  out[4 * i + 2] = x * y + (x >> 3);
  out[4 * i + 3] = (long)((ulong)x / 10u) + (long)((ulong)x % 10u);
}
