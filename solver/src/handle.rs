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

    /// Checks the routine can run on this device. Every device runs every routine: the
    /// CPU in place, the others hybrid (see [`Solver::explain`]). Host staging copies on
    /// the device's default stream, so a handle on another stream is refused off the CPU.
    pub(crate) fn engine(&self, op: &str) -> Result<()> {
        crate::staging::deferred()?;
        if self.device().kind() != BackendKind::Cpu
            && !self.blas.stream().same_as(self.device().default_stream())
        {
            return Err(Error::unsupported(
                format!("solver {op} on a non-default stream"),
                self.device(),
            ));
        }
        Ok(())
    }

    /// How this handle runs `op`, in words (`rocm-bench solver --explain`).
    pub fn explain(&self, op: &str) -> String {
        let b = self.sizes;
        match self.device().kind() {
            BackendKind::Cpu => format!(
                "{op} on {}: host, blocked right-looking (panels of {} columns, unblocked below {}), \
                 Level-3 updates through rocm-blas on the CPU",
                self.device(), b.getrf, b.unblocked
            ),
            _ => format!(
                "{op} on {}: hybrid, blocked right-looking with the panel on the host \
                 (panel copied down, factored by the host kernels, copied back; row swaps, \
                 pivots and the tridiagonal/bidiagonal iterations of the eigen/SVD drivers on \
                 the host too); trailing updates (GEMM/TRSM/HERK/TRMM) by rocm-blas on the device",
                self.device()
            ),
        }
    }
}
