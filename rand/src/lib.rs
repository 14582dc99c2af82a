//! Random numbers as rocRAND and cuRAND provide them, on every device: counter-based
//! generators (Philox4x32-10, Threefry2x32-20), cuRAND's sequential XORWOW and
//! MRG32k3a and its quasi-random Sobol32/64, whose arithmetic is written once, over
//! the [`ops`] traits, and runs on the CPU (plain values, rayon) and in the kernels
//! (the kernel language's builder, lowered to PTX and AMDGPU), so the CPU, CUDA and
//! every emulated AMD target give the same bits (MRG32k3a and the Sobol normals: CPU
//! only so far).
//!
//! - [`bits`]: the counter-based generators as building blocks
//!   ([`bits::philox4x32_10`] is what dropout kernels call from their own builders),
//!   checked against Random123's known-answer vectors; [`xorwow`], [`mrg32k3a`]: the
//!   sequential ones with cuRAND's `curand_init` and skip-ahead.
//! - [`math`]: ln, √, exp and sin/cos of turns from exactly rounded operations, with
//!   measured ulp bounds; [`dist`]: uniform (cuRAND's transforms), normal and
//!   log-normal (Box–Muller), Poisson (a CDF table searched by a uniform) and the
//!   counter stream [`dist::Layout`]; [`sequential`]: cuRAND's host orderings of
//!   thread-structured streams and the sequential generators' CPU fill.
//! - [`sobol`]: Sobol's direction vectors (Joe–Kuo) and points; [`quasi`]: cuRAND's
//!   quasi-random host layout and transforms on the CPU.
//! - [`gpu`], [`gpu_sequential`], [`gpu_quasi`]: the fill kernels (counter-based,
//!   XORWOW, Sobol), their generators and plans (run by `rocm_kernels::exec::execute`);
//!   [`host`]: the cuRAND-shaped [`Generator`].
//!
//! **Layout.** Values are where cuRAND's host API puts them (checked against its output
//! by `tests/vendor_sequences.rs`): output position `p` belongs to one of cuRAND's
//! threads, each running its own subsequence (`curand_init(seed, t, 0)`), in chunks of
//! values one thread writes at a time (Philox: four values of 2¹⁶ threads, the key the
//! seed's two words, the counter (step, thread); XORWOW: 4096 threads, MRG32k3a: 81920,
//! one value or one Box–Muller pair a chunk). Threefry, which cuRAND lacks, is one
//! stream (counter p / values-per-unit). A distribution takes whole groups of words (f32:
//! 1, f64: 2, Box–Muller pairs: 2 or 4; MRG32k3a one step per uniform), wherever it is
//! computed, so any grid or cut of a call gives the same values.
//!
//! ```
//! use rocm_core::{Device, DeviceBuffer};
//! use rocm_rand::{Generator, Kind};
//!
//! let dev = Device::open("cpu")?;
//! let mut g = Generator::new(&dev, Kind::Philox4x32_10)?;
//! g.set_seed(1234);
//! let mut x = DeviceBuffer::<f32>::zeros(&dev, 1000)?;
//! g.generate_normal(&mut x.as_slice_mut(), 0.0, 1.0)?;
//! let v = x.to_vec()?;
//! assert!(v.iter().all(|z| z.is_finite()));
//!
//! // The same values from the emulated AMD device, bit for bit.
//! let emu = Device::open("emu:gfx90a")?;
//! let mut e = Generator::new(&emu, Kind::Philox4x32_10)?;
//! e.set_seed(1234);
//! let mut y = DeviceBuffer::<f32>::zeros(&emu, 1000)?;
//! e.generate_normal(&mut y.as_slice_mut(), 0.0, 1.0)?;
//! assert_eq!(y.to_vec()?, v);
//! # Ok::<(), rocm_core::Error>(())
//! ```

pub mod bits;
pub mod dist;
pub mod gpu;
pub mod gpu_quasi;
pub mod gpu_sequential;
pub mod host;
pub mod math;
pub mod mrg32k3a;
pub mod ops;
pub mod quasi;
pub mod sequential;
pub mod sobol;
pub mod xorwow;

pub use dist::{Dist, Kind, Layout};
pub use host::{Generator, Ordering};
