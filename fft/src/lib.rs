//! rocm-fft: rocFFT-style fast Fourier transforms.
//!
//! A [`PlanBuilder`] describes a transform (1-D, 2-D or 3-D; complex-to-complex,
//! real-to-complex or complex-to-real; forward or backward; `f16`/`bf16`/`f32`/`f64`;
//! batch; strides, distances and offsets; in or out of place; a scale factor) and
//! validates it. Planning ([`plan`]) decomposes it into a device-independent
//! [`PlanTree`] of explicit steps: Stockham radix passes, four-step row/column splits,
//! Bluestein convolutions, real pre/post-processing and axis passes. A [`Plan`] is then
//! executed many times on a stream; on the CPU by this crate's own radix passes
//! ([`cpu`]), with rayon across batches, rows and columns; on GPUs (CUDA, HIP, the
//! emulated `emu:<gfx>` devices) by kernels generated from the same tree ([`gpu`]).
//!
//! The forward transform is `X_k = Σ_j x_j e^{−2πijk/N}`; the backward one has `+` and
//! is not normalised (use [`PlanBuilder::scale`]).
//!
//! ```
//! use rocm_core::{Device, DeviceBuffer, Complex32};
//! use rocm_fft::{PlanBuilder, TransformType};
//! let dev = Device::cpu();
//! let plan = PlanBuilder::new(TransformType::ComplexForward, &[8]).build(&dev)?;
//! let x = DeviceBuffer::from_slice(&dev, &[Complex32::new(1.0, 0.0); 8])?;
//! let mut y = DeviceBuffer::<Complex32>::zeros(&dev, 8)?;
//! plan.execute(dev.default_stream(), &x.as_slice(), &mut y.as_slice_mut(), None)?;
//! let y = y.to_vec()?;
//! assert!((y[0].re - 8.0).abs() < 1e-6 && y[1].norm() < 1e-6);
//! # Ok::<(), rocm_core::Error>(())
//! ```

pub mod api;
pub mod cpu;
pub mod gpu;
pub mod layout;
pub mod plan;
pub mod reference;
pub mod scalar;
pub mod twiddle;

pub use api::{Placement, Plan, PlanBuilder};
pub use layout::Layout;
pub use plan::{Node, PlanTree, TransformType};
pub use scalar::{FftReal, Precision, Storage};
