//! rocm-core: the machines.
//!
//! Targets and their capabilities ([`target`]), devices ([`Device`]) behind one backend
//! interface ([`backend`]: cpu, cuda, hip), typed device memory ([`memory`]), page-locked
//! host memory ([`pinned`]), streams and events ([`stream`]), graphs ([`graph`]), and
//! modules with kernel launch ([`module`]). Libraries never call
//! a backend API directly: they get a program from `rocm-kernels` and load and launch it
//! through this crate.
//!
//! ```
//! use rocm_core::{Device, DeviceBuffer};
//! let dev = Device::open("cpu")?;
//! let x = DeviceBuffer::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
//! assert_eq!(x.slice(1..)?.to_vec()?, vec![2.0, 3.0]);
//! # Ok::<(), rocm_core::Error>(())
//! ```

pub mod backend;
pub mod complex_div;
pub mod device;
pub mod element;
pub mod emu;
pub mod error;
pub mod graph;
pub mod host_alloc;
pub mod isa;
pub mod linalg;
pub mod memory;
pub mod module;
pub mod pinned;
pub mod scalar;
pub mod stream;
pub mod target;
pub mod tensor_map;

pub use backend::{CopyStaging, PoolStats};
pub use device::{BackendKind, Device, DeviceInfo};
pub use element::{DType, Element};
pub use error::{Error, Result};
pub use graph::Graph;
pub use linalg::{Diag, Side, Transpose, Uplo};
pub use memory::{BufferSlice, BufferSliceMut, DeviceBuffer};
pub use module::{Kernel, KernelArg, KernelArgs, LaunchConfig, Module, ModuleImage};
pub use pinned::PinnedBuffer;
pub use scalar::{FloatElement, Half, Real, RealElement, Scalar};
pub use stream::{Event, Stream};
pub use target::{Arch, Caps, Family, KernelIsa, Target, Vendor};

pub use half::{bf16, f16};
pub use num_complex::{Complex32, Complex64};
