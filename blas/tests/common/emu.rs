//! The emulated AMD devices and what the GPU GEMM supports on each: THE table the
//! Level 3 emulator tests (`level3_emu.rs`, `batched.rs`) follow. Every Level 3 routine
//! runs its triangle kernels on every target, but its products are GEMMs, so it works
//! exactly where the GEMM supports the type and otherwise must answer the GEMM's
//! `Unsupported`. Update this table when GEMM kernels land (the AMDGPU FMA GEMM for
//! gfx11 f32/f64 and gfx908 f64, and complex GEMM on AMD): the tests then run those
//! cases instead of asserting `Unsupported`.

use rocm_blas::Scalar;
use rocm_core::{DType, Device};

/// (target, [f32, f64, Complex32, Complex64]): whether the GPU GEMM runs the type there.
pub const EMU_GEMM_TYPES: &[(&str, [bool; 4])] = &[
    ("gfx908", [true, false, false, false]),
    ("gfx90a", [true, true, false, false]),
    ("gfx942", [true, true, false, false]),
    ("gfx1100", [false, false, false, false]),
    ("gfx1101", [false, false, false, false]),
    ("gfx1102", [false, false, false, false]),
    ("gfx1151", [false, false, false, false]),
];

/// Whether the GEMM of `target` supports `T`.
pub fn gemm_supports<T: Scalar>(target: &str) -> bool {
    let col = match T::DTYPE {
        DType::F32 => 0,
        DType::F64 => 1,
        DType::C32 => 2,
        DType::C64 => 3,
        _ => return false,
    };
    EMU_GEMM_TYPES
        .iter()
        .any(|(t, types)| *t == target && types[col])
}

/// Every emulated AMD device, split by whether the GEMM supports `T` there.
pub fn emu_devices<T: Scalar>() -> (Vec<Device>, Vec<Device>) {
    let (mut runs, mut refuses) = (Vec::new(), Vec::new());
    for (t, _) in EMU_GEMM_TYPES {
        let dev = Device::open(&format!("emu:{t}")).unwrap_or_else(|e| panic!("emu:{t}: {e}"));
        if gemm_supports::<T>(t) {
            runs.push(dev);
        } else {
            refuses.push(dev);
        }
    }
    (runs, refuses)
}
