//! The enumerated arguments of dense and sparse linear algebra: which operation is applied
//! to a matrix ([`Transpose`]), which triangle is referenced ([`Uplo`]), whether the
//! diagonal is implied ones ([`Diag`]) and on which side a matrix multiplies ([`Side`]).
//!
//! BLAS, LAPACK, rocSPARSE and the benchmarks share these. Each prints and parses as the
//! one-letter code of the reference BLAS interface (`N`/`T`/`C`, `U`/`L`, `U`/`N`,
//! `L`/`R`), upper or lower case on input.

use crate::{Error, Result};
use std::fmt;
use std::str::FromStr;

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

    /// The reference BLAS character (`N`, `T`, `C`).
    pub const fn as_char(self) -> char {
        match self {
            Transpose::N => 'N',
            Transpose::T => 'T',
            Transpose::C => 'C',
        }
    }
}

/// Which triangle of a symmetric, Hermitian or triangular matrix is referenced (BLAS's
/// `uplo`, rocSPARSE's `rocsparse_fill_mode`).
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

    /// The reference BLAS character (`U`, `L`).
    pub const fn as_char(self) -> char {
        match self {
            Uplo::Upper => 'U',
            Uplo::Lower => 'L',
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

    /// The reference BLAS character (`L`, `R`).
    pub const fn as_char(self) -> char {
        match self {
            Side::Left => 'L',
            Side::Right => 'R',
        }
    }
}

/// Whether a triangular matrix has an implicit unit diagonal (BLAS's `diag`, rocSPARSE's
/// `rocsparse_diag_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Diag {
    NonUnit,
    Unit,
}

impl Diag {
    pub const ALL: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

    /// The reference BLAS character (`N`, `U`).
    pub const fn as_char(self) -> char {
        match self {
            Diag::NonUnit => 'N',
            Diag::Unit => 'U',
        }
    }
}

/// `Display` as the BLAS character and `FromStr` from it (either case), for each enum;
/// `from_char` is the parse of one character.
macro_rules! blas_char {
    ($($t:ident: $what:literal),* $(,)?) => {$(
        impl $t {
            /// The value whose BLAS character is `c` (either case).
            pub fn from_char(c: char) -> Result<Self> {
                let up = c.to_ascii_uppercase();
                Self::ALL.into_iter().find(|v| v.as_char() == up).ok_or_else(|| {
                    Error::invalid(
                        $what,
                        format!(
                            "`{c}` is not one of {}",
                            Self::ALL.map(|v| v.as_char().to_string()).join(", ")
                        ),
                    )
                })
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.as_char())
            }
        }

        impl FromStr for $t {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Self::from_char(c),
                    _ => Err(Error::invalid(
                        $what,
                        format!(
                            "`{s}` is not one of {}",
                            Self::ALL.map(|v| v.as_char().to_string()).join(", ")
                        ),
                    )),
                }
            }
        }
    )*};
}

blas_char!(Transpose: "trans", Uplo: "uplo", Side: "side", Diag: "diag");

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T>(all: &[T])
    where
        T: Copy + PartialEq + fmt::Debug + fmt::Display + FromStr<Err = Error>,
    {
        for &v in all {
            let s = v.to_string();
            assert_eq!(s.len(), 1, "{v:?}");
            assert_eq!(s.parse::<T>().unwrap(), v);
            assert_eq!(s.to_ascii_lowercase().parse::<T>().unwrap(), v);
        }
        for bad in ["", "x", "NN", "Upper"] {
            assert!(bad.parse::<T>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn blas_characters_round_trip() {
        round_trips(&Transpose::ALL);
        round_trips(&Uplo::ALL);
        round_trips(&Side::ALL);
        round_trips(&Diag::ALL);
        assert_eq!(Transpose::C.to_string(), "C");
        assert_eq!(Uplo::Lower.as_char(), 'L');
        assert_eq!(Diag::NonUnit.as_char(), 'N');
        assert_eq!(Side::from_char('r').unwrap(), Side::Right);
    }

    #[test]
    fn parse_errors_name_the_argument() {
        let e = "q".parse::<Uplo>().unwrap_err().to_string();
        assert!(e.contains("uplo") && e.contains("U, L"), "{e}");
    }

    #[test]
    fn triangles() {
        assert!(Uplo::Upper.contains(0, 3) && !Uplo::Upper.contains(3, 0));
        assert!(Uplo::Lower.contains(3, 0) && Uplo::Lower.contains(2, 2));
        assert_eq!(Uplo::Upper.flip(), Uplo::Lower);
        assert_eq!(Transpose::T.stored_dims(2, 5), (5, 2));
        assert_eq!(Transpose::N.stored_dims(2, 5), (2, 5));
    }
}
