//! rocm-ccl: NCCL/RCCL-style communicators and collectives.
//!
//! ```
//! use rocm_ccl::{Comm, ReduceOp};
//! use rocm_core::{Device, DeviceBuffer};
//!
//! let devices = vec![Device::cpu(); 2];
//! let comms = Comm::init_all(&devices)?;
//! let sums: Vec<Vec<f32>> = std::thread::scope(|s| {
//!     let handles: Vec<_> = comms
//!         .into_iter()
//!         .map(|mut comm| {
//!             s.spawn(move || -> rocm_core::Result<Vec<f32>> {
//!                 let dev = comm.device().clone();
//!                 let x = DeviceBuffer::from_slice(&dev, &[comm.rank() as f32 + 1.0; 3])?;
//!                 let mut y = DeviceBuffer::<f32>::zeros(&dev, 3)?;
//!                 comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)?;
//!                 y.to_vec()
//!             })
//!         })
//!         .collect();
//!     handles.into_iter().map(|h| h.join().unwrap()).collect::<rocm_core::Result<_>>()
//! })?;
//! assert_eq!(sums, vec![vec![3.0f32; 3]; 2]);
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! Modules: [`op`] (reduction operators and element types), [`comm`] (communicators and
//! calls), `algo` (ring / tree / doubling algorithms), `engine` (progress of concurrent
//! transfers, headers, timeouts), `transport` (shared-memory rings and TCP links),
//! `stream` (streaming stores for large transfers),
//! [`bootstrap`] (unique ids, TCP rendezvous, shared segments, launcher environment),
//! [`reference`] (sequential reference results), [`error`] (failure kinds).

mod algo;
pub mod bootstrap;
pub mod comm;
pub mod config;
mod direct;
mod engine;
pub mod error;
pub mod op;
pub mod reference;
mod shared;
mod stream;
mod transport;

pub use bootstrap::UniqueId;
pub use comm::{AbortHandle, Comm, Group, Transport};
pub use config::Config;
pub use error::{failure_kind, FailureKind};
pub use op::{ReduceOp, Reducible};
