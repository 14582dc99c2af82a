//! The emulated AMD devices every emulator test covers. Each runs every GPU BLAS routine
//! for f32, f64, Complex32 and Complex64: GEMM through MFMA (gfx90a/gfx942, and f32 on
//! gfx908), WMMA (16-bit inputs on gfx11) or the register-tiled FMA kernel (f32/f64 on
//! gfx11, f64 on gfx908), complex GEMM through those real kernels.

use rocm_core::Device;

/// Every emulated AMD target.
pub const EMU_TARGETS: [&str; 7] = [
    "gfx908", "gfx90a", "gfx942", "gfx1100", "gfx1101", "gfx1102", "gfx1151",
];

/// Every emulated AMD device, in [`EMU_TARGETS`] order.
pub fn emu_devices() -> Vec<Device> {
    EMU_TARGETS
        .iter()
        .map(|t| Device::open(&format!("emu:{t}")).unwrap_or_else(|e| panic!("emu:{t}: {e}")))
        .collect()
}
