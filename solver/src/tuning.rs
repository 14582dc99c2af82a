//! Block sizes per target family: a small table with a CPU row, looked up once per
//! handle (rocSOLVER keeps the same kind of constants in `ideal_sizes.hpp`).

use rocm_core::{Family, Target};

/// The block sizes the blocked algorithms use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSizes {
    /// Panel width of blocked GETRF (the panel itself is factored recursively).
    pub getrf: usize,
    /// Block width of blocked POTRF.
    pub potrf: usize,
    /// Block width of blocked GETRI.
    pub getri: usize,
    /// Panel width of blocked GEQRF / ORGQR (rocSOLVER: 64).
    pub geqrf: usize,
    /// Panel width of blocked SYTRD / HETRD (LATRD panels; rocSOLVER: 32).
    pub sytrd: usize,
    /// Panel width of blocked GEBRD (LABRD panels; rocSOLVER: 32).
    pub gebrd: usize,
    /// Widths at or below which recursive panels (LU, Cholesky, QR, triangular inverse)
    /// switch to the unblocked kernels.
    pub unblocked: usize,
    /// Orders at or below which a whole problem is factored by the unblocked kernels
    /// (the small-matrix path batched problems take).
    pub small: usize,
}

impl BlockSizes {
    /// Sizes for `family`.
    pub fn for_family(family: Family) -> BlockSizes {
        TABLE
            .iter()
            .find(|(f, _)| *f == family)
            .map(|(_, s)| *s)
            .unwrap_or(DEFAULT)
    }

    /// Sizes for `target`'s family.
    pub fn for_target(target: &Target) -> BlockSizes {
        Self::for_family(target.family())
    }

    /// Every size clamped to at least 1 (a block of 0 would never advance).
    pub(crate) fn sanitized(self) -> BlockSizes {
        BlockSizes {
            getrf: self.getrf.max(1),
            potrf: self.potrf.max(1),
            getri: self.getri.max(1),
            geqrf: self.geqrf.max(1),
            sytrd: self.sytrd.max(1),
            gebrd: self.gebrd.max(1),
            unblocked: self.unblocked.max(1),
            small: self.small,
        }
    }
}

const DEFAULT: BlockSizes = BlockSizes {
    getrf: 128,
    potrf: 128,
    getri: 64,
    geqrf: 64,
    sytrd: 32,
    gebrd: 32,
    unblocked: 16,
    small: 32,
};

/// GPU rows follow rocSOLVER 3.27's `ideal_sizes.hpp` (GETRF 256 for mid sizes, POTRF
/// 127 for 8-byte types, GETRI 256). CPU row: GETRF 256 measured with the
/// criterion bench on 16 cores. POTRF 128 (with the lookahead and the 256³ nested-GEMM
/// threshold; before them 128 had been 1.4x slower than 256 on 16 cores): `potrf_nb`,
/// f64, three runs, ms for nb 96 / 128 / 192 / 256 / 512 / faer — 16-core Xeon,
/// n = 1024: 6.0 / 6.4 / 6.6 / 7.8 / 10.2 / 6.5, 7.0 / 6.3 / 9.1 / 9.0 / 12.2 / 18.7,
/// 7.5 / 6.6 / 6.9 / 7.5 / 11.7 / 8.7; n = 2048: 29.5 / 29.6 / 27.2 / 31.8 / 40.3 / 58.8,
/// 41.8 / 28.7 / 26.2 / 27.1 / 36.8 / 42.5, 45.2 / 51.2 / 49.4 / 40.3 / 45.7 / 44.6;
/// 2 vCPUs, ms for nb 128 / 256 / faer: n = 1024 9.2 / 12.2 / 12.1, 12.8 / 12.7 / 12.9,
/// 9.7 / 12.9 / 13.7; n = 2048 72 / 89 / 112, 91 / 80 / 109.
/// GEQRF 64 with the recursive panel and its lookahead: `geqrf_nb` on 2 vCPUs, f64, two runs, ms for nb 32 / 48 / 64 / 96 / 128 /
/// faer: n = 1024 36 / 49 / 38 / 40 / 46 / 62 and 49 / 43 / 43 / 44 / 35 / 61; n = 2048
/// 291 / 281 / 294 / 271 / 221 / 313 and 311 / 282 / 301 / 306 / 307 / 390: within the
/// noise of a shared machine from 32 to 128, so rocSOLVER's 64 stays.
const TABLE: &[(Family, BlockSizes)] = &[
    (
        Family::Cpu,
        BlockSizes {
            getrf: 256,
            potrf: 128,
            getri: 64,
            geqrf: 64,
            sytrd: 32,
            gebrd: 32,
            unblocked: 16,
            small: 32,
        },
    ),
    (
        Family::Cdna,
        BlockSizes {
            getrf: 256,
            potrf: 127,
            getri: 256,
            geqrf: 64,
            sytrd: 32,
            gebrd: 32,
            unblocked: 32,
            small: 64,
        },
    ),
    (
        Family::Rdna3,
        BlockSizes {
            getrf: 256,
            potrf: 127,
            getri: 256,
            geqrf: 64,
            sytrd: 32,
            gebrd: 32,
            unblocked: 32,
            small: 64,
        },
    ),
    (
        Family::Rdna4,
        BlockSizes {
            getrf: 256,
            potrf: 127,
            getri: 256,
            geqrf: 64,
            sytrd: 32,
            gebrd: 32,
            unblocked: 32,
            small: 64,
        },
    ),
    (
        Family::Nvidia,
        BlockSizes {
            getrf: 256,
            potrf: 128,
            getri: 256,
            geqrf: 64,
            sytrd: 32,
            gebrd: 32,
            unblocked: 32,
            small: 64,
        },
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_a_row() {
        for f in [
            Family::Cpu,
            Family::Cdna,
            Family::Rdna3,
            Family::Rdna4,
            Family::Nvidia,
        ] {
            assert!(TABLE.iter().any(|(g, _)| *g == f), "{f:?}");
        }
        assert_eq!(BlockSizes::for_target(&Target::cpu()).getrf, 256);
    }

    /// The CPU row's POTRF width is the measured 128; GPU rows keep rocSOLVER's.
    #[test]
    fn potrf_widths() {
        assert_eq!(BlockSizes::for_family(Family::Cpu).potrf, 128);
        assert_eq!(BlockSizes::for_family(Family::Cdna).potrf, 127);
    }
}
