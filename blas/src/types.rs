//! The enumerated BLAS arguments.

use std::fmt;

/// `op(A)`: A, Aᵀ or Aᴴ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transpose {
    /// op(A) = A
    N,
    /// op(A) = Aᵀ
    T,
    /// op(A) = Aᴴ (Aᵀ for real types)
    C,
}

impl Transpose {
    pub const ALL: [Transpose; 3] = [Transpose::N, Transpose::T, Transpose::C];

    /// Whether op swaps rows and columns.
    pub fn is_trans(self) -> bool {
        self != Transpose::N
    }

    /// Whether op conjugates.
    pub fn is_conj(self) -> bool {
        self == Transpose::C
    }

    /// (rows, cols) of the stored matrix whose op is `rows × cols`.
    pub fn stored_dims(self, rows: usize, cols: usize) -> (usize, usize) {
        if self.is_trans() {
            (cols, rows)
        } else {
            (rows, cols)
        }
    }
}

/// Which triangle of a symmetric, Hermitian or triangular matrix is referenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Uplo {
    Upper,
    Lower,
}

impl Uplo {
    pub const ALL: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];

    /// The other triangle.
    pub fn flip(self) -> Self {
        match self {
            Uplo::Upper => Uplo::Lower,
            Uplo::Lower => Uplo::Upper,
        }
    }

    /// Whether (i, j) lies in this triangle (diagonal included).
    pub fn contains(self, i: usize, j: usize) -> bool {
        match self {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        }
    }
}

/// Whether a triangular matrix multiplies from the left or the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub const ALL: [Side; 2] = [Side::Left, Side::Right];
}

/// Whether a triangular matrix has an implicit unit diagonal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Diag {
    NonUnit,
    Unit,
}

impl Diag {
    pub const ALL: [Diag; 2] = [Diag::NonUnit, Diag::Unit];
}

impl fmt::Display for Transpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
