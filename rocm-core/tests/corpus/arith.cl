#include "prelude.h"

__kernel void vadd_f32(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void axpy_f32(float alpha, __global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = __builtin_fmaf(alpha, x[i], y[i]);
}

__kernel void axpy_f64(double alpha, __global const double *x, __global double *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = __builtin_fma(alpha, x[i], y[i]);
}

__kernel void axpy_f16(half alpha, __global const half *x, __global half *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = alpha * x[i] + y[i];
}

// Integer mix: multiply-high, shifts by variable amounts, min/max, bit ops, rotates.
__kernel void int_ops(__global const uint *a, __global const uint *b, __global uint *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint x = a[i], y = b[i];
  int sx = (int)x, sy = (int)y;
  out[8 * i + 0] = x * y + (x >> (y & 31));
  out[8 * i + 1] = (uint)(((ulong)x * y) >> 32) ^ (uint)(((long)sx * sy) >> 32);
  out[8 * i + 2] = (uint)(sx >> (y & 31)) | (x << ((y >> 5) & 31));
  out[8 * i + 3] = (x < y ? x : y) + (uint)(sx > sy ? sx : sy);
  out[8 * i + 4] = __builtin_popcount(x) + (y ? __builtin_clz(y) : 32) * 64u;
  out[8 * i + 5] = ((x << (y & 31)) | (x >> ((32 - (y & 31)) & 31))) & ~y;
  out[8 * i + 6] = (uint)(((ulong)x * (ulong)y) >> 7);
  out[8 * i + 7] = sx < sy ? x - y : y - x;
}

// Integer and floating-point division and remainder.
__kernel void divide(__global const int *a, __global const int *b, __global const float *fa,
                     __global const float *fb, __global int *q, __global float *fq, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int x = a[i], y = b[i];
  q[4 * i + 0] = x / y;
  q[4 * i + 1] = x % y;
  q[4 * i + 2] = (int)((uint)x / (uint)y);
  q[4 * i + 3] = (int)((uint)x % (uint)y);
  fq[i] = fa[i] / fb[i];
}

__kernel void divide_u64(__global const ulong *a, __global const ulong *b, __global ulong *q, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  q[2 * i] = a[i] / b[i];
  q[2 * i + 1] = a[i] % b[i];
}

// Conversions between float, double, half and the integer types (round toward zero
// from float, as C casts do).
__kernel void convert(__global const float *f, __global const int *k, __global int *oi,
                      __global float *of, __global double *od, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float x = f[i];
  int m = k[i];
  oi[4 * i + 0] = (int)x;
  oi[4 * i + 1] = (int)(uint)__builtin_fabsf(x);
  oi[4 * i + 2] = (int)(long)(x * 1024.0f);
  oi[4 * i + 3] = (int)(double)x;
  of[4 * i + 0] = (float)m;
  of[4 * i + 1] = (float)(uint)m;
  of[4 * i + 2] = (float)(half)x;
  of[4 * i + 3] = (float)(long)m * 0.5f;
  od[2 * i + 0] = (double)x * (double)m;
  od[2 * i + 1] = (double)(ulong)(uint)m;
}
