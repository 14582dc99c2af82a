#include "prelude.h"

// Cross-lane operations as wave reductions, scans and shuffles are written with the
// AMDGPU builtins (OpenCL's sub_group_* need the device library): DPP row shifts,
// quad permutes and mirrors, ds_bpermute, readlane. Results depend only on the
// documented lane patterns, not on the wave size (rows are 16 lanes everywhere).

// Inclusive prefix sum within each row of 16 lanes (Hillis-Steele over row_shr, lanes
// shifted past the row start read 0), then the row totals combined with readlane.
__kernel void row_scan(__global const int *x, __global int *scan, __global int *total) {
  uint gid = get_global_id(0);
  int v = x[gid];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false); // row_shr:1
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false); // row_shr:2
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false); // row_shr:4
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false); // row_shr:8
  scan[gid] = v;
  // Every lane is active here: lanes 15 and 31 hold the first two rows' totals.
  int t = __builtin_amdgcn_readlane(v, 15) + __builtin_amdgcn_readlane(v, 31);
  if ((get_local_id(0) & 31) == 0) total[gid / 32] = t;
}

// Quad and row reductions in f32 (quad_perm and row_mirror / row_half_mirror), and a
// max over the quad in integers.
__kernel void quad_ops(__global const float *x, __global float *qsum, __global float *mir,
                       __global int *qmax) {
  uint gid = get_global_id(0);
  float v = x[gid];
  int iv = __builtin_bit_cast(int, v);
  float s = v + __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(iv, 0xb1, 0xf, 0xf, false)); // [1,0,3,2]
  int is = __builtin_bit_cast(int, s);
  s = s + __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(is, 0x4e, 0xf, 0xf, false)); // [2,3,0,1]
  qsum[gid] = s;
  int m = __builtin_amdgcn_mov_dpp(iv, 0x140, 0xf, 0xf, false); // row_mirror
  int h = __builtin_amdgcn_mov_dpp(iv, 0x141, 0xf, 0xf, false); // row_half_mirror
  mir[2 * gid] = v - __builtin_bit_cast(float, m);
  mir[2 * gid + 1] = v * __builtin_bit_cast(float, h);
  int k = (int)(v * 100.0f);
  int k1 = __builtin_amdgcn_mov_dpp(k, 0x1b, 0xf, 0xf, false); // [3,2,1,0]
  k = k > k1 ? k : k1;
  int k2 = __builtin_amdgcn_mov_dpp(k, 0x4e, 0xf, 0xf, false);
  qmax[gid] = k > k2 ? k : k2;
}

// Shuffles through ds_bpermute: xor butterflies (a full wave sum), a rotate by 5
// within 32 lanes, and a broadcast of the first active lane.
__kernel void shuffles(__global const uint *x, __global uint *sum, __global uint *rot,
                       __global uint *first) {
  uint gid = get_global_id(0);
  uint l = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
  uint v = x[gid];
  uint s = v;
  for (uint m = 1; m < 32; m <<= 1)
    s += __builtin_amdgcn_ds_bpermute((int)(((l ^ m) & 31) | (l & ~31u)) * 4, (int)s);
  sum[gid] = s;
  rot[gid] = __builtin_amdgcn_ds_bpermute((int)((((l & 31) + 5) & 31) | (l & ~31u)) * 4, (int)v);
  uint keep = v & 1;
  uint r = 0;
  if (keep) r = __builtin_amdgcn_readfirstlane(v);
  first[gid] = r;
}
