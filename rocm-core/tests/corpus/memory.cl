#include "prelude.h"

// A private array indexed by data, too big for registers: lives in scratch (private
// segment). Insertion sort of 48 values per work-item.
__kernel void private_sort(__global const int *x, __global int *y, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int v[48];
  for (int k = 0; k < 48; k++) v[k] = x[i * 48 + k];
  for (int a = 1; a < 48; a++) {
    int t = v[a];
    int b = a - 1;
    while (b >= 0 && v[b] > t) {
      v[b + 1] = v[b];
      b--;
    }
    v[b + 1] = t;
  }
  for (int k = 0; k < 48; k++) y[i * 48 + k] = v[k] + v[(uint)(k * 7 + x[i]) % 48u];
}

// Every atomic operation on global and local memory, 32 and 64 bits, with and without
// using the returned value, and float add.
#define RELAXED __ATOMIC_RELAXED
__kernel void atomics_all(__global const uint *v, __global uint *g32, __global ulong *g64,
                          __global float *gf, __global uint *ret, int n) {
  __local uint l32[8];
  __local ulong l64[4];
  __local float lf[1];
  uint l = get_local_id(0);
  if (l < 8) l32[l] = l == 1 ? 0xffffffffu : l == 2 ? 0x7fffffffu : 0;
  if (l < 4) l64[l] = l == 1 ? ~0ul : 0;
  if (l == 0) lf[0] = 0.0f;
  local_barrier();
  int i = get_global_id(0);
  if (i < n) {
    uint x = v[i];
    ulong wide = ((ulong)x << 32) | (x ^ 0x9e3779b9u);
    // Global, 32-bit.
    __atomic_fetch_add(&g32[0], x & 0xff, RELAXED);
    __atomic_fetch_sub(&g32[1], x & 0xf, RELAXED);
    __atomic_fetch_and(&g32[2], ~(1u << (x & 31)), RELAXED);
    __atomic_fetch_or(&g32[3], 1u << ((x >> 5) & 31), RELAXED);
    __atomic_fetch_xor(&g32[4], x, RELAXED);
    __atomic_fetch_min(&g32[5], x, RELAXED);
    __atomic_fetch_max(&g32[6], x, RELAXED);
    __atomic_fetch_min((__global int *)&g32[7], (int)x, RELAXED);
    __atomic_fetch_max((__global int *)&g32[8], (int)x, RELAXED);
    __builtin_amdgcn_atomic_inc32(&g32[9], 99u, RELAXED, "agent");
    __builtin_amdgcn_atomic_dec32(&g32[10], 99u, RELAXED, "agent");
    ret[4 * i + 0] = __atomic_exchange_n(&g32[11], (uint)i, RELAXED) < (uint)n;
    ret[4 * i + 1] = __atomic_fetch_add(&g32[12], 1u, RELAXED) < (uint)n;
    // Global, 64-bit.
    __atomic_fetch_add(&g64[0], wide, RELAXED);
    __atomic_fetch_and(&g64[1], ~(1ul << (x & 63)), RELAXED);
    __atomic_fetch_or(&g64[2], 1ul << ((x >> 6) & 63), RELAXED);
    __atomic_fetch_xor(&g64[3], wide, RELAXED);
    __atomic_fetch_min(&g64[4], wide, RELAXED);
    __atomic_fetch_max((__global long *)&g64[5], (long)wide, RELAXED);
    ulong expected = 0;
    ret[4 * i + 2] =
        __atomic_compare_exchange_n(&g64[6], &expected, wide | 1, false, RELAXED, RELAXED);
    __atomic_fetch_add(&gf[0], (float)(x & 7), RELAXED);
    // Local.
    __atomic_fetch_add(&l32[0], x & 0xff, RELAXED);
    __atomic_fetch_and(&l32[1], ~(1u << (x & 31)), RELAXED);
    __atomic_fetch_min(&l32[2], x, RELAXED);
    __atomic_fetch_max((__local int *)&l32[3], (int)x, RELAXED);
    __atomic_fetch_or(&l32[4], 1u << (x & 31), RELAXED);
    __atomic_fetch_xor(&l32[5], x, RELAXED);
    ret[4 * i + 3] = __atomic_exchange_n(&l32[6], x, RELAXED) != 0x12345678u;
    __builtin_amdgcn_atomic_inc32(&l32[7], 7u, RELAXED, "workgroup");
    __atomic_fetch_add(&l64[0], wide, RELAXED);
    __atomic_fetch_and(&l64[1], ~(1ul << (x & 63)), RELAXED);
    __atomic_fetch_max(&l64[2], wide, RELAXED);
    uint lexp = 0;
    __atomic_compare_exchange_n(&l32[6], &lexp, lexp, false, RELAXED, RELAXED);
    __atomic_fetch_add(&lf[0], (float)(x & 3), RELAXED);
  }
  local_barrier();
  if (l < 8 && l != 6) __atomic_fetch_add(&g32[16 + 8 * get_group_id(0) + l], l32[l], RELAXED);
  if (l < 3) g64[8 + 4 * get_group_id(0) + l] = l64[l];
  if (l == 0) gf[1 + get_group_id(0)] = lf[0];
}

struct params {
  float scale;
  int offset;
  uint mask;
  short bias;
};

static __attribute__((noinline)) float combine(struct params p, float v, int k) {
  return v * p.scale + (float)((k + p.offset) & (int)p.mask) + (float)p.bias;
}

// A struct argument by value passed on to a called function.
__kernel void struct_arg(struct params p, __global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = combine(p, x[i], i);
}
