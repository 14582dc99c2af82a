#include "prelude.h"

// Narrow integer vectors: char4 and short2 arithmetic with wrap-around, saturation,
// widening and byte shuffles (gfx9 lowers much of it to SDWA byte/word selects).
__kernel void narrow_ints(__global const char4 *a, __global const char4 *b,
                          __global const short2 *c, __global char4 *o8, __global short2 *o16,
                          __global int *oi, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  char4 x = a[i], y = b[i];
  short2 s = c[i];
  char4 r = x + y * (char4)(3, -1, 2, 5);
  r.s02 = r.s20 ^ x.s13;
  o8[2 * i] = r;
  o8[2 * i + 1] = __builtin_elementwise_add_sat(x, y);
  uchar4 ux = __builtin_bit_cast(uchar4, x);
  short2 t = s * (short2)(7, -3) + (short2)(x.s0, y.s3);
  o16[2 * i] = t >> (short2)(1, 3);
  o16[2 * i + 1] = __builtin_elementwise_sub_sat(s, (short2)(y.s1, x.s2));
  oi[4 * i] = (int)ux.s0 + (int)ux.s1 * 256 - (int)x.s2 * (int)y.s3;
  oi[4 * i + 1] = (int)s.s0 * (int)s.s1 + (int)(ushort)s.s1;
  oi[4 * i + 2] = (x.s0 < y.s0 ? x.s0 : y.s0) + ((uchar)ux.s3 >> 2);
  oi[4 * i + 3] = __builtin_bit_cast(int, r) + (int)(float)x.s1;
}

// half2 and half4: packed arithmetic, conversions to and from float and int, and
// comparisons.
__kernel void half_vectors(__global const half2 *a, __global const half4 *b, __global half2 *o2,
                           __global half4 *o4, __global float *of, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  half2 x = a[i];
  half4 y = b[i];
  o2[i] = x * y.s23 + y.s01;
  half4 z = y * (half)0.5h - (half4)(x, x.s10);
  z.s1 = z.s1 > x.s0 ? z.s1 : x.s0;
  o4[i] = z;
  of[2 * i] = (float)x.s0 * (float)y.s3 + (float)x.s1;
  of[2 * i + 1] = (float)(half)((float)y.s2 * 3.0f) + (float)(int)y.s0;
}

// Double-precision math: rounding, fma, min/max, copysign, ldexp, conversions to and
// from 64-bit integers, and a data-dependent polynomial.
__kernel void f64_math(__global const double *a, __global const long *k, __global double *o,
                       __global long *ol, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  double x = a[i];
  long m = k[i];
  o[6 * i + 0] = __builtin_floor(x) + __builtin_ceil(x * 0.25);
  o[6 * i + 1] = __builtin_trunc(x * 3.0) - __builtin_rint(x * 0.1);
  o[6 * i + 2] = __builtin_fma(x, x, -2.0) * __builtin_copysign(1.5, -x);
  o[6 * i + 3] = __builtin_fmin(x, 1.0) + __builtin_fmax(__builtin_fabs(x), 0.5);
  o[6 * i + 4] = __builtin_ldexp(x, (int)(m & 15) - 7);
  o[6 * i + 5] = (double)m * 0.125 + (double)(ulong)(m >> 3);
  ol[2 * i] = (long)(x * 1e6);
  ol[2 * i + 1] = (long)(ulong)__builtin_fabs(x * 1e9) ^ m;
}

// 64-bit integer arithmetic: multiply-high, rotates, signed division by constants,
// compares and selects.
__kernel void int64_more(__global const ulong *a, __global const ulong *b, __global ulong *o,
                         int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  ulong x = a[i], y = b[i];
  long sx = (long)x, sy = (long)y;
  ulong lo = (x & 0xffffffff) * (y & 0xffffffff);
  ulong mid = (x >> 32) * (y & 0xffffffff) + (lo >> 32);
  ulong mid2 = (x & 0xffffffff) * (y >> 32) + (mid & 0xffffffff);
  o[6 * i + 0] = (x >> 32) * (y >> 32) + (mid >> 32) + (mid2 >> 32);
  o[6 * i + 1] = (x << (y & 63)) | (x >> ((64 - (y & 63)) & 63));
  o[6 * i + 2] = (ulong)(sx / 7) + (ulong)(sx % 1000003);
  o[6 * i + 3] = sx < sy ? x : y;
  o[6 * i + 4] = (ulong)(sx >> (y & 63)) + (x > y ? 1 : 0);
  o[6 * i + 5] = x * 0x9e3779b97f4a7c15ul + (y ^ (y >> 29));
}

// Dynamic LDS (a local pointer argument sized at launch) holding two arrays: a
// per-block permutation through one and a tree reduction through the other.
__kernel void dynamic_two(__global const float *x, __global float *y, __global float *sums,
                          __local float *lds) {
  uint l = get_local_id(0), size = get_local_size(0);
  __local float *tile = lds, *red = lds + size;
  float v = x[get_global_id(0)];
  tile[l] = v;
  red[l] = v;
  local_barrier();
  for (uint s = size / 2; s > 0; s >>= 1) {
    if (l < s) red[l] += red[l + s];
    local_barrier();
  }
  y[get_global_id(0)] = tile[(l * 7) % size] - red[0] / (float)size;
  if (l == 0) sums[get_group_id(0)] = red[0];
}

// A callee that takes a private array by pointer (a real call with stack-passed data).
static __attribute__((noinline)) uint mix_private(uint *p, int len, uint seed) {
  uint h = seed;
  for (int k = 0; k < len; k++) h = (h ^ p[k]) * 16777619u;
  return h;
}

__kernel void call_private(__global const uint *x, __global uint *y, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint buf[12];
  for (int k = 0; k < 12; k++) buf[k] = x[i] + (uint)k * x[(i + k) % n];
  y[i] = mix_private(buf, 12 - (i & 3), 2166136261u) + mix_private(buf + 2, 4, 7u);
}
