#include "prelude.h"

// Data-dependent loop trip counts and branches: Collatz steps, capped.
__kernel void collatz(__global const uint *start, __global uint *steps, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint x = start[i];
  uint k = 0;
  while (x != 1 && k < 1000) {
    if (x & 1)
      x = 3 * x + 1;
    else
      x >>= 1;
    k++;
  }
  steps[i] = k;
}

// A loop over a row with an early exit and a float accumulator: index of the first
// element above a threshold and the sum before it.
__kernel void first_above(__global const float *m, int cols, float threshold,
                          __global int *index, __global float *sum) {
  int row = get_global_id(0);
  float s = 0.0f;
  int found = -1;
  for (int j = 0; j < cols; j++) {
    float v = m[row * cols + j];
    if (v > threshold) {
      found = j;
      break;
    }
    s += v;
  }
  index[row] = found;
  sum[row] = s;
}

static __attribute__((noinline)) float poly(float x, __global const float *c, int degree) {
  float r = c[degree];
  for (int k = degree - 1; k >= 0; k--) r = __builtin_fmaf(r, x, c[k]);
  return r;
}

// A real call: the callee is not inlined.
__kernel void call_poly(__global const float *x, __global const float *c, int degree,
                        __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = poly(x[i], c, degree);
}

// A private array indexed by data: lives in scratch.
__kernel void private_hist(__global const uint *v, __global uint *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint bins[16];
  for (int b = 0; b < 16; b++) bins[b] = 0;
  uint x = v[i];
  for (int k = 0; k < 8; k++) {
    bins[(x >> (4 * k)) & 15] += k + 1;
  }
  uint r = 0;
  for (int b = 0; b < 16; b++) r = r * 31 + bins[b];
  out[i] = r;
}
