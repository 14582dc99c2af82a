//! Running kernels of the language on the emulated AMD devices with the interpreter's
//! arguments (`lang::interp::Arg`), shared by the language's AMDGPU and oracle tests.

use rocm_core::{Device, KernelArgs, LaunchConfig, ModuleImage};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::lang::interp::Arg;
use rocm_kernels::lang::{KernelDef, ParamType};

/// Runs `k` (lowered from `def`) on `dev` with `args` in parameter order, as the
/// interpreter takes them: buffers are uploaded as bytes and read back in place.
pub fn run(
    dev: &Device,
    def: &KernelDef,
    k: &AssembledKernel,
    grid: u32,
    block: u32,
    args: &mut [Arg],
) {
    let c = LaunchConfig::linear(grid, block);
    run3(dev, def, k, &c, args);
}

/// [`run`] with a launch of any shape.
pub fn run3(
    dev: &Device,
    def: &KernelDef,
    k: &AssembledKernel,
    c: &LaunchConfig,
    args: &mut [Arg],
) {
    let m = dev
        .load_module(&ModuleImage::CodeObject(k.to_elf().unwrap()))
        .unwrap();
    let f = m.kernel(k.name()).unwrap();
    let mut bufs = Vec::new();
    for a in args.iter() {
        if let Arg::Buffer(b) = a {
            // At least one byte: an empty vector still gets an address.
            let mut b = b.clone();
            if b.is_empty() {
                b.push(0);
            }
            bufs.push(Some(dev.upload(&b).unwrap()));
        } else {
            bufs.push(None);
        }
    }
    let mut ka = KernelArgs::new();
    for ((a, p), buf) in args.iter().zip(&def.signature.params).zip(&bufs) {
        match (a, p.ty, buf) {
            (_, ParamType::Pointer { .. }, Some(b)) => {
                ka.push(b);
            }
            (Arg::Scalar(bits), ParamType::Scalar(s), _) if s.size() == 8 => {
                ka.push(*bits);
            }
            (Arg::Scalar(bits), ParamType::Scalar(_), _) => {
                ka.push(*bits as u32);
            }
            other => panic!("argument {other:?} for parameter {p:?}"),
        }
    }
    // SAFETY: the arguments follow the kernel's parameters (checked above) and the
    // emulated device checks every access against the buffers.
    unsafe {
        f.launch(dev.default_stream(), c, &ka)
            .unwrap_or_else(|e| panic!("{} on {}: {e}\n{}", k.name(), k.target.isa, k.listing))
    };
    dev.synchronize().unwrap();
    for (a, buf) in args.iter_mut().zip(bufs) {
        if let (Arg::Buffer(b), Some(d)) = (a, buf) {
            let back: Vec<u8> = d.to_vec().unwrap();
            let n = b.len();
            b.copy_from_slice(&back[..n]);
        }
    }
}
