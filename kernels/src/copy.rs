//! Device-to-device copy: the kernel behind `rocm-bench bandwidth`'s device-to-device
//! figure.
//!
//! The bulk moves as 16-byte vectors: each thread of a 256-thread block copies four
//! vectors strided by the block size inside the block's 16 KiB tile, so every warp-wide
//! load and store is a fully coalesced 512-byte transaction and each thread keeps four
//! loads in flight before its first store. A byte kernel covers the tail and misaligned
//! buffers.

use rocm_core::target::KernelIsa;
use rocm_core::{
    BufferSlice, BufferSliceMut, Device, Element, Error, KernelArgs, LaunchConfig, Module,
    ModuleImage, Result, Stream, Target,
};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Name of the 16-byte vector kernel.
pub const VECTOR_KERNEL: &str = "rocm_copy_b128";
/// Name of the byte kernel.
pub const BYTE_KERNEL: &str = "rocm_copy_b8";
/// Work-items per block.
pub const BLOCK: u32 = 256;
/// 16-byte vectors each work-item moves.
pub const VECTORS_PER_THREAD: u32 = 4;

/// The PTX module with both copy kernels, for an NVIDIA target.
pub fn ptx(target: &Target) -> Result<String> {
    if target.caps().kernel_isa != KernelIsa::Ptx {
        return Err(Error::unsupported("the PTX copy kernel", target));
    }
    let mut s = String::new();
    s.push_str(&format!(
        ".version 8.0\n.target {target}\n.address_size 64\n\n"
    ));
    s.push_str(&format!(
        r#"// dst[i] = src[i] for i < n16 sixteen-byte vectors.
.visible .entry {VECTOR_KERNEL}(
    .param .u64 p_dst,
    .param .u64 p_src,
    .param .u64 p_n16
)
{{
    .reg .pred %p<5>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<24>;

    ld.param.u64 %rd1, [p_dst];
    ld.param.u64 %rd2, [p_src];
    ld.param.u64 %rd3, [p_n16];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    shl.b32 %r4, %r2, 2;
    mul.wide.u32 %rd4, %r1, %r4;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    cvt.u64.u32 %rd6, %r2;
    add.u64 %rd7, %rd4, %rd6;
    add.u64 %rd8, %rd7, %rd6;
    add.u64 %rd9, %rd8, %rd6;
    setp.lt.u64 %p1, %rd4, %rd3;
    setp.lt.u64 %p2, %rd7, %rd3;
    setp.lt.u64 %p3, %rd8, %rd3;
    setp.lt.u64 %p4, %rd9, %rd3;
    shl.b64 %rd10, %rd4, 4;
    shl.b64 %rd11, %rd7, 4;
    shl.b64 %rd12, %rd8, 4;
    shl.b64 %rd13, %rd9, 4;
    add.u64 %rd14, %rd2, %rd10;
    add.u64 %rd15, %rd2, %rd11;
    add.u64 %rd16, %rd2, %rd12;
    add.u64 %rd17, %rd2, %rd13;
    @%p1 ld.global.nc.v4.u32 {{%r5, %r6, %r7, %r8}}, [%rd14];
    @%p2 ld.global.nc.v4.u32 {{%r9, %r10, %r11, %r12}}, [%rd15];
    @%p3 ld.global.nc.v4.u32 {{%r13, %r14, %r15, %r16}}, [%rd16];
    @%p4 ld.global.nc.v4.u32 {{%r17, %r18, %r19, %r20}}, [%rd17];
    add.u64 %rd10, %rd1, %rd10;
    add.u64 %rd11, %rd1, %rd11;
    add.u64 %rd12, %rd1, %rd12;
    add.u64 %rd13, %rd1, %rd13;
    @%p1 st.global.v4.u32 [%rd10], {{%r5, %r6, %r7, %r8}};
    @%p2 st.global.v4.u32 [%rd11], {{%r9, %r10, %r11, %r12}};
    @%p3 st.global.v4.u32 [%rd12], {{%r13, %r14, %r15, %r16}};
    @%p4 st.global.v4.u32 [%rd13], {{%r17, %r18, %r19, %r20}};
    ret;
}}

// dst[i] = src[i] for i < n bytes.
.visible .entry {BYTE_KERNEL}(
    .param .u64 p_dst,
    .param .u64 p_src,
    .param .u64 p_n
)
{{
    .reg .pred %p<2>;
    .reg .b16 %h<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [p_dst];
    ld.param.u64 %rd2, [p_src];
    ld.param.u64 %rd3, [p_n];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    setp.ge.u64 %p1, %rd4, %rd3;
    @%p1 bra DONE;
    add.u64 %rd6, %rd2, %rd4;
    add.u64 %rd7, %rd1, %rd4;
    ld.global.nc.u8 %h1, [%rd6];
    st.global.u8 [%rd7], %h1;
DONE:
    ret;
}}
"#
    ));
    Ok(s)
}

/// The copy module loaded on `device`, loaded once per process and device.
pub fn module(device: &Device) -> Result<Module> {
    static CACHE: OnceLock<Mutex<HashMap<String, Module>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = cache.get(device.id()) {
        return Ok(m.clone());
    }
    let m = device.load_module(&ModuleImage::Ptx(ptx(device.target())?))?;
    cache.insert(device.id().to_string(), m.clone());
    Ok(m)
}

fn grid_for(units: u64, per_block: u64) -> Result<u32> {
    u32::try_from(units.div_ceil(per_block))
        .map_err(|_| Error::invalid("copy length", format!("{units} units need too many blocks")))
}

/// Queues `dst = src` on `stream` with our kernels (CUDA devices).
pub fn copy<T: Element>(
    stream: &Stream,
    dst: &mut BufferSliceMut<'_, T>,
    src: &BufferSlice<'_, T>,
) -> Result<()> {
    let device = stream.device();
    for (what, d) in [("destination", dst.device()), ("source", src.device())] {
        if d != device {
            return Err(Error::DeviceMismatch {
                what: what.into(),
                expected: device.id().into(),
                found: d.id().into(),
            });
        }
    }
    if dst.len() != src.len() {
        return Err(Error::invalid(
            "src",
            format!("has {} elements, dst has {}", src.len(), dst.len()),
        ));
    }
    let bytes = (src.len() * std::mem::size_of::<T>()) as u64;
    if bytes == 0 {
        return Ok(());
    }
    let module = module(device)?;
    let aligned = dst.address() % 16 == 0 && src.address() % 16 == 0;
    let n16 = if aligned { bytes / 16 } else { 0 };
    if n16 > 0 {
        let k = module.kernel(VECTOR_KERNEL)?;
        let mut args = KernelArgs::new();
        args.push(&*dst).push(src).push(n16);
        let cfg = LaunchConfig::linear(grid_for(n16, (BLOCK * VECTORS_PER_THREAD) as u64)?, BLOCK);
        // SAFETY: the kernel reads n16 * 16 <= bytes bytes of `src` and writes as many of
        // `dst`, both views of that many bytes on this device, borrowed for the call.
        unsafe { k.launch(stream, &cfg, &args)? };
    }
    let done = n16 * 16;
    if done < bytes {
        let k = module.kernel(BYTE_KERNEL)?;
        let mut args = KernelArgs::new();
        args.push_pointer(dst.address() + done, device)
            .push_pointer(src.address() + done, device)
            .push(bytes - done);
        let cfg = LaunchConfig::linear(grid_for(bytes - done, BLOCK as u64)?, BLOCK);
        // SAFETY: the byte kernel touches [done, bytes) of both views, inside them.
        unsafe { k.launch(stream, &cfg, &args)? };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_exists_only_for_nvidia_targets() {
        for t in ["sm_80", "sm_90a"] {
            let text = ptx(&t.parse().unwrap()).unwrap();
            assert!(text.contains(&format!(".target {t}")));
            assert!(text.contains(VECTOR_KERNEL) && text.contains(BYTE_KERNEL));
        }
        assert!(ptx(&"gfx90a".parse().unwrap()).is_err());
        assert!(ptx(&Target::cpu()).is_err());
    }

    #[test]
    fn cpu_device_cannot_run_ptx() {
        let dev = Device::cpu();
        let src = dev.upload(&[1u8, 2, 3]).unwrap();
        let mut dst = dev.alloc::<u8>(3).unwrap();
        assert!(copy(
            dev.default_stream(),
            &mut dst.as_slice_mut(),
            &src.as_slice()
        )
        .is_err());
    }

    #[test]
    fn passes_ptxas_for_every_nvidia_target() {
        let Some(ptxas) = crate::ptxas::Ptxas::find() else {
            eprintln!("skipped: ptxas not found ({})", crate::ptxas::HOW_TO_GET);
            return;
        };
        for t in ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"] {
            let target: Target = t.parse().unwrap();
            let report = ptxas.compile(&ptx(&target).unwrap(), &target).unwrap();
            assert!(report.warnings.is_empty(), "{t}: {:?}", report.warnings);
            for k in [VECTOR_KERNEL, BYTE_KERNEL] {
                let r = report.kernel(k).unwrap();
                assert_eq!(r.spill_stores + r.spill_loads, 0, "{t} {k} spills");
                // <= 40 registers keeps >= 6 blocks of 256 threads resident per SM.
                assert!(r.registers <= 40, "{t} {k} uses {} registers", r.registers);
                eprintln!(
                    "{t} {k}: {} registers, {} bytes smem",
                    r.registers, r.shared_bytes
                );
            }
        }
    }
}
