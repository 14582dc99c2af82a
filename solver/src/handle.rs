//! The `Solver` handle: a rocm-blas handle (device and stream) plus the block sizes of
//! its target, like a `rocblas_handle` used by rocSOLVER.

use crate::tuning::BlockSizes;
use rocm_blas::Blas;
use rocm_core::{BackendKind, Device, Error, Result};

/// LAPACK's `info` for one problem: 0 on success; k > 0 names the 1-based position of
/// the failure (the first exactly-zero pivot of LU, the order of the first leading minor
/// that is not positive definite for Cholesky, the zero diagonal element of a triangle
/// or of GELS's R or L); for SYEVD and GESVD k counts the off-diagonal elements the
/// iteration left unconverged. Factorisations complete even when `info > 0`, as
/// LAPACK's do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Info(pub usize);

impl Info {
    pub const OK: Info = Info(0);

    pub fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// The first failure of two (the one with the smaller nonzero position).
    pub(crate) fn first(self, other: Info) -> Info {
        if self.0 == 0 {
            other
        } else {
            self
        }
    }

    /// A local failure position shifted by `offset` (zero stays zero).
    pub(crate) fn shifted(self, offset: usize) -> Info {
        if self.0 == 0 {
            self
        } else {
            Info(self.0 + offset)
        }
    }
}

/// A dense-solver context bound to one device.
#[derive(Debug, Clone)]
pub struct Solver {
    pub(crate) blas: Blas,
    pub(crate) sizes: BlockSizes,
}

impl Solver {
    /// A handle on `device` with the block sizes of its target.
    pub fn new(device: &Device) -> Self {
        Solver {
            blas: Blas::new(device),
            sizes: BlockSizes::for_target(device.target()),
        }
    }

    /// A handle over an existing BLAS handle (sharing its stream).
    pub fn from_blas(blas: Blas) -> Self {
        let sizes = BlockSizes::for_target(blas.device().target());
        Solver { blas, sizes }
    }

    /// Overrides the block sizes (tests use tiny blocks to exercise the blocked path on
    /// small matrices).
    pub fn with_block_sizes(mut self, sizes: BlockSizes) -> Self {
        self.sizes = sizes.sanitized();
        self
    }

    pub fn block_sizes(&self) -> BlockSizes {
        self.sizes
    }

    pub fn blas(&self) -> &Blas {
        &self.blas
    }

    pub fn device(&self) -> &Device {
        self.blas.device()
    }

    /// Checks the routine can run on this device: the CPU for now.
    pub(crate) fn engine(&self, op: &str) -> Result<()> {
        match self.device().kind() {
            BackendKind::Cpu => Ok(()),
            _ => Err(Error::unsupported(format!("solver {op}"), self.device())),
        }
    }
}
