//! `hipDeviceProp_tR0600`: the device-properties struct `hipGetDevicePropertiesR0600`
//! fills, laid out exactly as HIP's public header `hip/hip_runtime_api.h` declares it.
//!
//! The layout is the same in ROCm 6.x (ROCm/HIP, `include/hip/hip_runtime_api.h`, tag
//! rocm-6.2.x) and ROCm 7.x (ROCm/rocm-systems, `projects/hip/include/hip/hip_runtime_api.h`):
//! the struct is versioned (`R0600`) precisely so that it does not change under a symbol.
//! Fields are declared in header order with the header's C types (`int` → `i32`,
//! `unsigned int` → `u32`, `size_t` → `usize`, `char[N]` → `[c_char; N]`); the 17
//! one-bit `unsigned` fields of `hipDeviceArch_t` share one 32-bit storage unit. We read
//! only `name`, `totalGlobalMem`, `clockRate`, `multiProcessorCount` and `gcnArchName`;
//! the rest is declared so that those land at the header's offsets, which the tests pin.
//!
//! The runtime writes the struct through a pointer we hand it; [`PropsBuffer`] adds
//! zeroed slack after it, so a runtime whose struct grew (it should not, but the cost of
//! being wrong is memory corruption) writes into our slack, not past our allocation.

use std::ffi::c_char;

/// `hipDeviceProp_tR0600`, field for field.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct HipDevicePropR0600 {
    pub name: [c_char; 256],
    pub uuid: [c_char; 16],
    pub luid: [c_char; 8],
    pub luid_device_node_mask: u32,
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: i32,
    pub warp_size: i32,
    pub mem_pitch: usize,
    pub max_threads_per_block: i32,
    pub max_threads_dim: [i32; 3],
    pub max_grid_size: [i32; 3],
    /// Peak shader clock in kHz.
    pub clock_rate: i32,
    pub total_const_mem: usize,
    pub major: i32,
    pub minor: i32,
    pub texture_alignment: usize,
    pub texture_pitch_alignment: usize,
    pub device_overlap: i32,
    /// Compute units (in WGP mode on RDNA, workgroup processors: half the CUs).
    pub multi_processor_count: i32,
    pub kernel_exec_timeout_enabled: i32,
    pub integrated: i32,
    pub can_map_host_memory: i32,
    pub compute_mode: i32,
    pub max_texture_1d: i32,
    pub max_texture_1d_mipmap: i32,
    pub max_texture_1d_linear: i32,
    pub max_texture_2d: [i32; 2],
    pub max_texture_2d_mipmap: [i32; 2],
    pub max_texture_2d_linear: [i32; 3],
    pub max_texture_2d_gather: [i32; 2],
    pub max_texture_3d: [i32; 3],
    pub max_texture_3d_alt: [i32; 3],
    pub max_texture_cubemap: i32,
    pub max_texture_1d_layered: [i32; 2],
    pub max_texture_2d_layered: [i32; 3],
    pub max_texture_cubemap_layered: [i32; 2],
    pub max_surface_1d: i32,
    pub max_surface_2d: [i32; 2],
    pub max_surface_3d: [i32; 3],
    pub max_surface_1d_layered: [i32; 2],
    pub max_surface_2d_layered: [i32; 3],
    pub max_surface_cubemap: i32,
    pub max_surface_cubemap_layered: [i32; 2],
    pub surface_alignment: usize,
    pub concurrent_kernels: i32,
    pub ecc_enabled: i32,
    pub pci_bus_id: i32,
    pub pci_device_id: i32,
    pub pci_domain_id: i32,
    pub tcc_driver: i32,
    pub async_engine_count: i32,
    pub unified_addressing: i32,
    pub memory_clock_rate: i32,
    pub memory_bus_width: i32,
    pub l2_cache_size: i32,
    pub persisting_l2_cache_max_size: i32,
    pub max_threads_per_multi_processor: i32,
    pub stream_priorities_supported: i32,
    pub global_l1_cache_supported: i32,
    pub local_l1_cache_supported: i32,
    pub shared_mem_per_multiprocessor: usize,
    pub regs_per_multiprocessor: i32,
    pub managed_memory: i32,
    pub is_multi_gpu_board: i32,
    pub multi_gpu_board_group_id: i32,
    pub host_native_atomic_supported: i32,
    pub single_to_double_precision_perf_ratio: i32,
    pub pageable_memory_access: i32,
    pub concurrent_managed_access: i32,
    pub compute_preemption_supported: i32,
    pub can_use_host_pointer_for_registered_mem: i32,
    pub cooperative_launch: i32,
    pub cooperative_multi_device_launch: i32,
    pub shared_mem_per_block_optin: usize,
    pub pageable_memory_access_uses_host_page_tables: i32,
    pub direct_managed_mem_access_from_host: i32,
    pub max_blocks_per_multi_processor: i32,
    pub access_policy_max_window_size: i32,
    pub reserved_shared_mem_per_block: usize,
    pub host_register_supported: i32,
    pub sparse_hip_array_supported: i32,
    pub host_register_read_only_supported: i32,
    pub timeline_semaphore_interop_supported: i32,
    pub memory_pools_supported: i32,
    pub gpu_direct_rdma_supported: i32,
    pub gpu_direct_rdma_flush_writes_options: u32,
    pub gpu_direct_rdma_writes_ordering: i32,
    pub memory_pool_supported_handle_types: u32,
    pub deferred_mapping_hip_array_supported: i32,
    pub ipc_event_supported: i32,
    pub cluster_launch: i32,
    pub unified_function_pointers: i32,
    pub reserved: [i32; 63],
    pub hip_reserved: [i32; 32],
    /// The target ID, e.g. `gfx90a:sramecc+:xnack-`.
    pub gcn_arch_name: [c_char; 256],
    pub max_shared_memory_per_multi_processor: usize,
    pub clock_instruction_rate: i32,
    /// `hipDeviceArch_t`: 17 one-bit flags in one `unsigned`.
    pub arch: u32,
    pub hdp_mem_flush_cntl: *mut u32,
    pub hdp_reg_flush_cntl: *mut u32,
    pub cooperative_multi_device_unmatched_func: i32,
    pub cooperative_multi_device_unmatched_grid_dim: i32,
    pub cooperative_multi_device_unmatched_block_dim: i32,
    pub cooperative_multi_device_unmatched_shared_mem: i32,
    pub is_large_bar: i32,
    pub asic_revision: i32,
}

/// Bytes of zeroed slack after the struct (see the module doc).
const SLACK: usize = 2048;

/// The struct plus slack, zero-initialised, for the runtime to fill.
#[repr(C)]
pub(crate) struct PropsBuffer {
    pub props: HipDevicePropR0600,
    _slack: [u8; SLACK],
}

impl PropsBuffer {
    /// All fields zero (null pointers, empty strings).
    pub fn zeroed() -> Box<Self> {
        // SAFETY: every field is an integer, an array of integers or a raw pointer, for all
        // of which the all-zero bit pattern is a valid value.
        Box::new(unsafe { std::mem::zeroed() })
    }
}

/// The text of a fixed-size C string field: up to the first NUL, or the whole field if the
/// runtime left it unterminated; invalid UTF-8 is replaced, never trusted.
pub(crate) fn c_chars_to_string(field: &[c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Offsets and size on LP64 (x86_64/aarch64 Linux) as the header declares the struct:
    /// obtained by compiling the header's `hipDeviceProp_t` with a C compiler and printing
    /// `offsetof`/`sizeof`, and checked by hand for the first fields (name 256 + uuid 16 +
    /// luid 8 + mask 4 = 284, padded to 288 for the first `size_t`).
    #[test]
    fn layout_matches_the_header() {
        type P = HipDevicePropR0600;
        let expected = [
            ("name", offset_of!(P, name), 0),
            ("uuid", offset_of!(P, uuid), 256),
            ("totalGlobalMem", offset_of!(P, total_global_mem), 288),
            (
                "sharedMemPerBlock",
                offset_of!(P, shared_mem_per_block),
                296,
            ),
            ("warpSize", offset_of!(P, warp_size), 308),
            ("memPitch", offset_of!(P, mem_pitch), 312),
            ("clockRate", offset_of!(P, clock_rate), 348),
            ("totalConstMem", offset_of!(P, total_const_mem), 352),
            ("major", offset_of!(P, major), 360),
            ("minor", offset_of!(P, minor), 364),
            ("textureAlignment", offset_of!(P, texture_alignment), 368),
            (
                "multiProcessorCount",
                offset_of!(P, multi_processor_count),
                388,
            ),
            (
                "maxSurfaceCubemapLayered",
                offset_of!(P, max_surface_cubemap_layered),
                560,
            ),
            ("surfaceAlignment", offset_of!(P, surface_alignment), 568),
            ("concurrentKernels", offset_of!(P, concurrent_kernels), 576),
            (
                "sharedMemPerMultiprocessor",
                offset_of!(P, shared_mem_per_multiprocessor),
                640,
            ),
            (
                "sharedMemPerBlockOptin",
                offset_of!(P, shared_mem_per_block_optin),
                696,
            ),
            (
                "reservedSharedMemPerBlock",
                offset_of!(P, reserved_shared_mem_per_block),
                720,
            ),
            (
                "unifiedFunctionPointers",
                offset_of!(P, unified_function_pointers),
                776,
            ),
            ("reserved", offset_of!(P, reserved), 780),
            ("hipReserved", offset_of!(P, hip_reserved), 1032),
            ("gcnArchName", offset_of!(P, gcn_arch_name), 1160),
            (
                "maxSharedMemoryPerMultiProcessor",
                offset_of!(P, max_shared_memory_per_multi_processor),
                1416,
            ),
            (
                "clockInstructionRate",
                offset_of!(P, clock_instruction_rate),
                1424,
            ),
            ("arch", offset_of!(P, arch), 1428),
            ("hdpMemFlushCntl", offset_of!(P, hdp_mem_flush_cntl), 1432),
            ("asicRevision", offset_of!(P, asic_revision), 1468),
        ];
        for (field, ours, header) in expected {
            assert_eq!(ours, header, "offset of {field}");
        }
        assert_eq!(size_of::<P>(), 1472);
        assert_eq!(align_of::<P>(), 8);
        assert!(size_of::<PropsBuffer>() >= size_of::<P>() + SLACK);
    }

    #[test]
    fn zeroed_buffer_reads_as_empty() {
        let b = PropsBuffer::zeroed();
        assert_eq!(c_chars_to_string(&b.props.name), "");
        assert_eq!(c_chars_to_string(&b.props.gcn_arch_name), "");
        assert_eq!(b.props.total_global_mem, 0);
        assert!(b.props.hdp_mem_flush_cntl.is_null());
    }

    fn field_from(text: &[u8]) -> [c_char; 256] {
        let mut f = [0 as c_char; 256];
        for (d, &s) in f.iter_mut().zip(text) {
            *d = s as c_char;
        }
        f
    }

    #[test]
    fn c_strings_stop_at_nul_and_survive_bad_input() {
        assert_eq!(
            c_chars_to_string(&field_from(b"gfx90a:sramecc+:xnack-\0garbage")),
            "gfx90a:sramecc+:xnack-"
        );
        // Unterminated: the whole field, no read past it.
        let full = field_from(&[b'x'; 256]);
        assert_eq!(c_chars_to_string(&full).len(), 256);
        // Invalid UTF-8 is replaced, not trusted.
        let s = c_chars_to_string(&field_from(&[b'A', 0xff, b'B']));
        assert!(s.starts_with('A') && s.ends_with('B') && s.contains('\u{fffd}'));
    }
}
