// Work-item functions for OpenCL C compiled with `-nogpulib` (no device library): the
// clang builtins they lower to, so the corpus needs nothing but clang.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

static inline uint corpus_local_size(uint d) {
  return d == 0 ? __builtin_amdgcn_workgroup_size_x()
       : d == 1 ? __builtin_amdgcn_workgroup_size_y()
                : __builtin_amdgcn_workgroup_size_z();
}
static inline uint corpus_group_id(uint d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x()
       : d == 1 ? __builtin_amdgcn_workgroup_id_y()
                : __builtin_amdgcn_workgroup_id_z();
}
static inline uint corpus_local_id(uint d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x()
       : d == 1 ? __builtin_amdgcn_workitem_id_y()
                : __builtin_amdgcn_workitem_id_z();
}
#define get_local_id(d) corpus_local_id(d)
#define get_group_id(d) corpus_group_id(d)
#define get_local_size(d) corpus_local_size(d)
#define get_global_id(d) (corpus_group_id(d) * corpus_local_size(d) + corpus_local_id(d))
// A work-group barrier with the LDS fences OpenCL's barrier(CLK_LOCAL_MEM_FENCE) implies.
#define local_barrier()                                                              \
  do {                                                                               \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");                          \
    __builtin_amdgcn_s_barrier();                                                    \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");                          \
  } while (0)
