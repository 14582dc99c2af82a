//! rocm-dnn: MIOpen-equivalent DNN primitives on every rocm-rs device.
//!
//! A [`Dnn`] handle binds a device (like `miopenHandle_t`); tensors are described by
//! [`TensorDesc`] (4-D/5-D, NCHW/NHWC/NCDHW/NDHWC or explicit strides; f32, f16, bf16,
//! all computed in f32) and passed as [`Tensor`]/[`TensorMut`] (descriptor + buffer view).
//!
//! - [`conv`]: 2-D/3-D convolution and transposed convolution, forward, backward-data,
//!   backward-weights, groups, dilation, fused bias + activation; algorithms direct,
//!   im2col + rocm-blas GEMM, Winograd F(2,3) and F(4,3); algorithm selection by find
//!   mode and a persistent find-db ([`find`]).
//! - [`pooling`], [`activation`], [`norm`] (batch, layer, RMS, group), [`softmax`],
//!   [`dropout`], [`attention`] (fused, tiled, O(sequence) memory).
//! - [`reference`]: obviously-correct f64 implementations every kernel is tested against.
//!
//! Executed on the CPU device; on GPU devices (CUDA, and the emulated AMD targets)
//! [`gpu`] runs softmax, log-softmax and dropout with generated kernels, and the other
//! operations return `Error::Unsupported` until their kernels land.

pub mod activation;
pub mod attention;
pub mod conv;
pub mod dropout;
mod element;
pub mod find;
pub mod gpu;
mod handle;
pub mod norm;
pub mod pooling;
pub mod reference;
mod simd;
pub mod softmax;
pub mod tensor;

pub use activation::Activation;
pub use attention::AttentionDesc;
pub use conv::{ConvAlgo, ConvDesc, ConvDirection, ConvMode, ConvProblem};
pub use dropout::DropoutDesc;
pub use element::DnnFloat;
pub use find::{AlgoPerf, FindDb, FindMode};
pub use handle::Dnn;
pub use tensor::{Layout, Tensor, TensorDesc, TensorMut};

/// The library version find-db entries are keyed by.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
