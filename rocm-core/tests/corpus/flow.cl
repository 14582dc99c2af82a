#include "prelude.h"

// Nested loops with break and continue, and a switch.
__kernel void nested_loops(__global const int *x, __global int *y, int n, int width) {
  int i = get_global_id(0);
  if (i >= n) return;
  uint acc = 0;
  for (int r = 0; r < 8; r++) {
    if (((x[i] >> r) & 3) == 3) continue;
    for (int c = 0; c < width; c++) {
      int v = x[(i + r * 3 + c) % n];
      if (v < 0 && c > 2) break;
      switch ((v >> 4) & 7) {
      case 0: acc += v; break;
      case 1: acc -= (uint)(v >> 1); break;
      case 2: acc ^= v; break;
      case 3: acc = acc * 3 + 1; break;
      case 5: acc += (uint)(r * c);
      // fall through
      case 6: acc += 17; break;
      default: acc -= (uint)c;
      }
    }
  }
  y[i] = (int)acc;
}

static __attribute__((noinline)) int gcd(int a, int b) {
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static __attribute__((noinline)) float lerp_clamped(float a, float b, float t) {
  t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
  return __builtin_fmaf(t, b - a, a);
}

// Two non-inlined callees, one called twice.
__kernel void calls(__global const int *a, __global const int *b, __global const float *f,
                    __global int *g, __global float *h, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  g[i] = gcd(a[i], b[i]) + gcd(b[i], 12);
  h[i] = lerp_clamped(f[i], f[(i + 1) % n], f[i] * 0.5f);
}

// Work-item geometry in three dimensions: group id, local size, global offset.
__kernel void geometry(__global uint *out) {
  uint gx = get_group_id(0), gy = get_group_id(1), gz = get_group_id(2);
  uint sx = get_local_size(0), sy = get_local_size(1), sz = get_local_size(2);
  uint lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
  // Code object v5 hidden arguments: the global offsets at bytes 40, 48, 56.
  __constant ulong *implicit = (__constant ulong *)__builtin_amdgcn_implicitarg_ptr();
  uint ox = (uint)implicit[5], oy = (uint)implicit[6], oz = (uint)implicit[7];
  uint nx = __builtin_amdgcn_grid_size_x(), ny = __builtin_amdgcn_grid_size_y();
  uint x = ox + gx * sx + lx, y = oy + gy * sy + ly, z = oz + gz * sz + lz;
  uint idx = (z * ny + y) * nx + x;
  out[2 * idx] = gx | gy << 8 | gz << 16 | (sx * sy * sz) << 24;
  out[2 * idx + 1] = lx | ly << 8 | lz << 16;
}

// Block-wide inclusive scan with subgroup-free barriers (work-efficient, Blelloch up and
// down sweeps) and a max reduction over the same LDS.
__kernel void scan_blelloch(__global const uint *x, __global uint *y, __global uint *mx) {
  __local uint t[256];
  __local uint m[256];
  uint l = get_local_id(0);
  uint v = x[get_global_id(0)];
  t[l] = v;
  m[l] = v;
  local_barrier();
  for (uint d = 1; d < 256; d <<= 1) {
    uint k = (l + 1) * 2 * d - 1;
    if (k < 256) t[k] += t[k - d];
    local_barrier();
  }
  if (l == 0) t[255] = 0;
  local_barrier();
  for (uint d = 128; d > 0; d >>= 1) {
    uint k = (l + 1) * 2 * d - 1;
    if (k < 256) {
      uint u = t[k - d];
      t[k - d] = t[k];
      t[k] += u;
    }
    local_barrier();
  }
  for (uint s = 128; s > 0; s >>= 1) {
    if (l < s) m[l] = m[l] > m[l + s] ? m[l] : m[l + s];
    local_barrier();
  }
  y[get_global_id(0)] = t[l] + v;
  if (l == 0) mx[get_group_id(0)] = m[0];
}
