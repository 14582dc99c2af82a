// Generic (flat) address space: functions taking unqualified pointers called with
// global, local and private memory, address-space tests on generic pointers, flat
// atomics (32- and 64-bit, a compare-exchange loop) and several local pointer
// arguments, each its own region of LDS.
#include "prelude.h"

// A hash over a generic pointer: the same code reads global, LDS or scratch.
static __attribute__((noinline)) uint gsum(const uint *p, int n, uint seed) {
  uint h = seed;
  for (int k = 0; k < n; k++) h = (h ^ p[k]) * 16777619u;
  return h;
}

// Writes through a generic pointer.
static __attribute__((noinline)) void gscale(uint *p, int n, uint m) {
  for (int k = 0; k < n; k++) p[k] = p[k] * m + (uint)k;
}

// Which space a generic pointer points into, decided on the device (the aperture
// checks), and a read through the named space.
static __attribute__((noinline)) uint classify(uint *p) {
  if (__builtin_amdgcn_is_shared(p)) return 0x20000000u + *(__local uint *)p;
  if (__builtin_amdgcn_is_private(p)) return 0x30000000u + *(__private uint *)p;
  return 0x10000000u + *(__global uint *)p;
}

// Blocks of 64 work-items; n = every work-item (no bound check, the barrier needs all).
__kernel void generic_ptrs(__global uint *x, __global uint *y) {
  __local uint tile[64];
  uint l = get_local_id(0);
  int i = get_global_id(0);
  uint priv[8];
  for (int k = 0; k < 8; k++) priv[k] = x[i] ^ ((uint)k * 0x9e3779b9u);
  tile[l] = x[i] + 1u;
  local_barrier();
  gscale(priv, 8 - (int)(l & 3), 3u);
  uint a = gsum(priv, 8, 1u);
  uint b = gsum(&tile[l & ~7u], 8, 2u);
  uint c = gsum((uint *)&x[i & ~7], 8, 3u);
  uint which = classify(&tile[l ^ 1]) ^ classify(&priv[l & 7]) ^ classify(&x[i ^ 2]);
  y[2 * i] = a ^ (b * 3u) ^ (c * 5u);
  y[2 * i + 1] = which;
}

// Atomics through generic pointers: a 32-bit add, a 64-bit max and a float add by a
// compare-exchange loop.
static __attribute__((noinline)) void bump(uint *c32, ulong *c64, uint *f32bits, uint v) {
  __atomic_fetch_add(c32, v & 0xffu, __ATOMIC_RELAXED);
  __atomic_fetch_max(c64, (ulong)v * 0x100000001ul, __ATOMIC_RELAXED);
  uint old = __atomic_load_n(f32bits, __ATOMIC_RELAXED);
  for (;;) {
    uint want = as_uint(as_float(old) + (float)(v & 7u));
    if (__atomic_compare_exchange_n(f32bits, &old, want, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      break;
  }
}

// Counters in global memory (g) and in LDS per block (written to lsum by work-item 0).
__kernel void generic_atomics(__global const uint *v, __global uint *g32, __global ulong *g64,
                              __global uint *gf, __global uint *l32, __global ulong *l64,
                              __global uint *lf) {
  __local uint c32, cf;
  __local ulong c64;
  uint l = get_local_id(0), gid = get_group_id(0);
  if (l == 0) {
    c32 = 0;
    c64 = 0;
    cf = 0;
  }
  local_barrier();
  uint x = v[get_global_id(0)];
  bump((uint *)g32, (ulong *)g64, (uint *)gf, x);
  bump(&c32, &c64, &cf, x);
  local_barrier();
  if (l == 0) {
    l32[gid] = c32;
    l64[gid] = c64;
    lf[gid] = cf;
  }
}

// Three dynamic LDS arrays (each a local pointer argument the launch places): a
// scatter through one, a gather through the next and a reduction through the last;
// if two alias the results differ.
__kernel void local_args3(__global const int *x, __global int *y, __local int *a, __local int *b,
                          __local int *c) {
  uint l = get_local_id(0), size = get_local_size(0);
  int v = x[get_global_id(0)];
  a[l] = v;
  b[(l * 5u) % size] = v * 2;
  c[l] = v;
  local_barrier();
  for (uint s = size / 2; s > 0; s >>= 1) {
    if (l < s) c[l] += c[l + s];
    local_barrier();
  }
  y[get_global_id(0)] = a[size - 1u - l] + b[l] + c[0];
}
