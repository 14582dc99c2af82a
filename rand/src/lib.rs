//! Random numbers as rocRAND and cuRAND provide them, on every device: counter-based
//! generators (Philox4x32-10, Threefry2x32-20) whose arithmetic is written once, over
//! the [`ops`] traits, and runs on the CPU (plain values, rayon over chunks) and in
//! the kernels (the kernel language's builder, lowered to PTX and AMDGPU), so the CPU,
//! CUDA and every emulated AMD target give the same bits.
//!
//! - [`bits`]: the generators as building blocks ([`bits::philox4x32_10`] is what
//!   dropout kernels call from their own builders), checked against Random123's
//!   known-answer vectors.
//! - [`math`]: ln, √, exp and sin/cos of turns from exactly rounded operations, with
//!   measured ulp bounds; [`dist`]: uniform (cuRAND's transforms), normal and
//!   log-normal (Box–Muller), Poisson (a CDF table searched by a uniform) and the
//!   stream [`dist::Layout`].
//! - [`gpu`]: the one fill kernel, its generator and plan (run by
//!   `rocm_kernels::exec::execute`); [`host`]: the cuRAND-shaped [`Generator`].
//!
//! **Layout.** A generator seeded `s` has key `(s mod 2³², s >> 32)`; counter `c`
//! (64 bits, the low words of the counter, the rest zero) gives a block of words
//! (4 for Philox, 2 for Threefry). Word `i` of the stream is word `i mod W` of block
//! `i / W`: for Philox the sequence of cuRAND's device API `curand_init(seed, 0, 0)`
//! (key = seed, counter = i / 4, word i mod 4), as its documentation defines it; whether
//! the host API's Philox generator writes the same order is what
//! `rocm-bench rand philox --dist bits --dtype u32 --vendor` reports (not yet run). A
//! distribution takes whole groups of words (f32: 1, f64: 2, Box–Muller pairs: 2 or 4),
//! so value `p` of a call from offset `o` is value `(o + p)` of that distribution's
//! stream, wherever it is computed.
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
pub mod gpu_sequential;
pub mod host;
pub mod math;
pub mod mrg32k3a;
pub mod ops;
pub mod sequential;
pub mod xorwow;

pub use dist::{Dist, Kind, Layout};
pub use host::{Generator, Ordering};
