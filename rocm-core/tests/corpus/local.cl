#include "prelude.h"

// Tree reduction in LDS, one partial sum per workgroup (block of 256).
__kernel void reduce_sum(__global const float *x, __global float *partial) {
  __local float tile[256];
  uint l = get_local_id(0);
  tile[l] = x[get_global_id(0)];
  local_barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (l < s) tile[l] += tile[l + s];
    local_barrier();
  }
  if (l == 0) partial[get_group_id(0)] = tile[0];
}

// Inclusive scan of integers within each workgroup (Hillis-Steele, double buffered).
__kernel void scan_inclusive(__global const int *x, __global int *y) {
  __local int buf[2][256];
  uint l = get_local_id(0);
  int p = 0;
  buf[0][l] = x[get_global_id(0)];
  local_barrier();
  for (uint off = 1; off < 256; off <<= 1) {
    int v = buf[p][l];
    if (l >= off) v += buf[p][l - off];
    buf[1 - p][l] = v;
    p = 1 - p;
    local_barrier();
  }
  y[get_global_id(0)] = buf[p][l];
}

// Tiled matrix multiply C = A * B (n x n, n a multiple of 16), 16x16 tiles in LDS.
__kernel void matmul_tiled(__global const float *a, __global const float *b,
                           __global float *c, int n) {
  __local float ta[16][16];
  __local float tb[16][17];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col = get_group_id(0) * 16 + tx, row = get_group_id(1) * 16 + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[ty][tx] = a[row * n + k0 + tx];
    tb[ty][tx] = b[(k0 + ty) * n + col];
    local_barrier();
    for (int k = 0; k < 16; k++) acc = __builtin_fmaf(ta[ty][k], tb[k][tx], acc);
    local_barrier();
  }
  c[row * n + col] = acc;
}

// Dynamic LDS: the __local buffer's size is set at launch. Reverses each block.
__kernel void reverse_dynamic(__global const int *x, __global int *y, __local int *tmp) {
  uint l = get_local_id(0), size = get_local_size(0);
  tmp[l] = x[get_global_id(0)];
  local_barrier();
  y[get_global_id(0)] = tmp[size - 1 - l];
}

// Atomics on global and local memory: histogram, min/max, bit ops, counters,
// compare-exchange and float add (relaxed, device scope: what clang maps to the hardware
// atomics directly).
#define RELAXED __ATOMIC_RELAXED
__kernel void atomics(__global const uint *v, __global uint *hist, __global int *mm,
                      __global uint *bits, __global float *fsum, int n) {
  __local uint lh[16];
  __local int lmin;
  uint l = get_local_id(0);
  if (l < 16) lh[l] = 0;
  if (l == 0) lmin = 0x7fffffff;
  local_barrier();
  int i = get_global_id(0);
  if (i < n) {
    uint x = v[i];
    __atomic_fetch_add(&lh[x & 15], 1u, RELAXED);
    __atomic_fetch_min(&lmin, (int)x, RELAXED);
    __atomic_fetch_min(&mm[0], (int)x, RELAXED);
    __atomic_fetch_max(&mm[1], (int)x, RELAXED);
    __atomic_fetch_min((__global uint *)&mm[2], x, RELAXED);
    __atomic_fetch_max((__global uint *)&mm[3], x, RELAXED);
    __atomic_fetch_or(&bits[0], 1u << (x & 31), RELAXED);
    __atomic_fetch_and(&bits[1], ~(1u << ((x >> 5) & 31)), RELAXED);
    __atomic_fetch_xor(&bits[2], x, RELAXED);
    __atomic_fetch_sub(&bits[3], x & 255, RELAXED);
    uint expected = 0;
    if (__atomic_compare_exchange_n(&bits[4], &expected, (uint)i + 1, false, RELAXED, RELAXED))
      __atomic_fetch_add(&bits[5], 1u, RELAXED);
    __atomic_fetch_add(fsum, (float)(x & 7), RELAXED);
  }
  local_barrier();
  if (l < 16) __atomic_fetch_add(&hist[l], lh[l], RELAXED);
  if (l == 0) __atomic_fetch_min(&mm[4], lmin, RELAXED);
}
