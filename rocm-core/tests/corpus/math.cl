#include "prelude.h"

// Double precision division, square root and reciprocal: correctly rounded in OpenCL C,
// so clang emits the full v_div_scale / v_div_fmas / v_div_fixup and rsq refinement
// sequences.
__kernel void f64_div_sqrt(__global const double *a, __global const double *b,
                           __global double *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  double x = a[i], y = b[i];
  out[3 * i + 0] = x / y;
  out[3 * i + 1] = __builtin_sqrt(__builtin_fabs(x));
  out[3 * i + 2] = 1.0 / y;
}

// f32 square root and division by a square root.
__kernel void f32_sqrt(__global const float *a, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float x = __builtin_fabsf(a[i]);
  out[2 * i + 0] = __builtin_sqrtf(x);
  out[2 * i + 1] = __builtin_fmaxf(x, 0.25f) * 0.5f + __builtin_fminf(x, 3.0f);
}

// Half precision arithmetic.
__kernel void f16_math(__global const half *a, __global const half *b, __global half *out,
                       int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  half x = a[i], y = b[i];
  out[4 * i + 0] = x * y - x;
  out[4 * i + 1] = x > y ? x - y : y + x;
  out[4 * i + 2] = (half)((float)x * (float)y);
  out[4 * i + 3] = -x * (half)0.5 + (half)3.0;
}

// Conversions with saturation and explicit rounding (what convert_int_sat_rte,
// convert_uchar_sat, convert_short_sat_rtz and rint/floor/ceil do), written with clang
// builtins since -nogpulib has no OpenCL library.
static inline int sat_rte(float x) {
  if (x != x) return 0;
  float r = __builtin_rintf(x);
  return r >= 2147483648.0f ? 2147483647 : r < -2147483648.0f ? (-2147483647 - 1) : (int)r;
}
static inline uchar sat_uchar(int v) { return (uchar)(v < 0 ? 0 : v > 255 ? 255 : v); }
static inline short sat_short_rtz(float x) {
  if (x != x) return 0;
  return x >= 32767.0f ? 32767 : x <= -32768.0f ? -32768 : (short)x;
}
__kernel void convert_sat(__global const float *f, __global const int *k, __global int *oi,
                          __global float *of, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float x = f[i];
  int m = k[i];
  oi[6 * i + 0] = sat_rte(x);
  oi[6 * i + 1] = sat_uchar(m);
  oi[6 * i + 2] = sat_short_rtz(x);
  oi[6 * i + 3] = (int)(char)m + (int)(ushort)m;
  oi[6 * i + 4] = (int)(uint)(ulong)(long)m;
  oi[6 * i + 5] = x != x ? -1 : (int)(x < 0.0f ? 0u : x >= 4294967296.0f ? 4294967295u : (uint)x);
  of[4 * i + 0] = __builtin_floorf(x) + __builtin_ceilf(x * 0.25f);
  of[4 * i + 1] = __builtin_truncf(x * 3.0f) - __builtin_rintf(x * 0.1f);
  of[4 * i + 2] = __builtin_roundf(x * 0.5f);
  of[4 * i + 3] = (float)(double)m + (float)(ulong)(uint)m;
}

// select, clamp, mad, min/max, copysign, fabs on floats and ints.
__kernel void select_clamp(__global const float *a, __global const float *b,
                           __global const int *k, __global float *of, __global int *oi, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float x = a[i], y = b[i];
  int m = k[i];
  of[4 * i + 0] = __builtin_fminf(__builtin_fmaxf(x, -1.0f), 1.0f);
  of[4 * i + 1] = x * y + 1.0f;
  of[4 * i + 2] = __builtin_copysignf(__builtin_fabsf(y), x);
  of[4 * i + 3] = m & 1 ? x : y;
  oi[3 * i + 0] = m < -100 ? -100 : m > 100 ? 100 : m;
  oi[3 * i + 1] = (x < y) ? m : -m;
  oi[3 * i + 2] = (uint)m > 1000u ? (int)((uint)m >> 3) : m * 3 + 1;
}

// Vector types: float4 and int2 loads, arithmetic and stores.
__kernel void vectors(__global const float4 *a, __global const float4 *b,
                      __global const int2 *k, __global float4 *out, __global int2 *ok, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 x = a[i], y = b[i];
  int2 m = k[i];
  float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  r.xy = r.yx;
  out[i] = r;
  int2 q = m * (int2)(3, -5) + m.yx;
  ok[i] = q ^ (int2)(0x55, 0x0f0);
}
