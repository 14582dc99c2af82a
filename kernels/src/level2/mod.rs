//! BLAS Level 2 generators. [`gemv`]: y = α·op(A)·x + β·y on PTX targets.

pub mod gemv;
