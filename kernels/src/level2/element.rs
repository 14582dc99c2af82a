//! The element arithmetic the Level 2 generators share: an element is one real (f32,
//! f64) or two (Complex32, Complex64: re, im) of the real type `rt`, loaded and stored
//! as a vector of `comps` reals; complex products are four fused multiply-adds.

use crate::ptx::{KernelBuilder, LoadCache, Op, Reg, Ty};
use rocm_core::DType;

/// Element layout: the real type and reals per element.
#[derive(Clone, Copy)]
pub(crate) struct El {
    pub rt: Ty,
    pub comps: u32,
}

impl El {
    pub(crate) fn of(dtype: DType) -> El {
        match dtype {
            DType::F64 => El {
                rt: Ty::F64,
                comps: 1,
            },
            DType::C32 => El {
                rt: Ty::F32,
                comps: 2,
            },
            DType::C64 => El {
                rt: Ty::F64,
                comps: 2,
            },
            _ => El {
                rt: Ty::F32,
                comps: 1,
            },
        }
    }

    pub(crate) fn bytes(self) -> i64 {
        (self.rt.size() * self.comps) as i64
    }

    pub(crate) fn zero(self, k: &mut KernelBuilder) -> Vec<Reg> {
        let z = if self.rt == Ty::F64 {
            Op::F64(0.0)
        } else {
            Op::F32(0.0)
        };
        (0..self.comps).map(|_| k.mov(self.rt, z)).collect()
    }

    /// One element at `addr` (read-only path: A and x are never written by the kernel).
    pub(crate) fn load(self, k: &mut KernelBuilder, addr: Reg) -> Vec<Reg> {
        k.ld_global(self.rt, self.comps, addr, 0, LoadCache::NonCoherent)
    }

    /// acc + op(a)·b, op = conj when `conj`; one rounding per real fma.
    pub(crate) fn fma(
        self,
        k: &mut KernelBuilder,
        a: &[Reg],
        b: &[Reg],
        acc: &[Reg],
        conj: bool,
    ) -> Vec<Reg> {
        if self.comps == 1 {
            return vec![k.fma(self.rt, a[0], b[0], acc[0])];
        }
        let (ar, ai, br, bi) = (a[0], a[1], b[0], b[1]);
        let re = k.fma(self.rt, ar, br, acc[0]);
        let im = k.fma(self.rt, ar, bi, acc[1]);
        let nai = k.neg(self.rt, ai);
        // (ar + i·s·ai)(br + i·bi): re −= s·ai·bi, im += s·ai·br, s = −1 for conj.
        let (for_re, for_im) = if conj { (ai, nai) } else { (nai, ai) };
        vec![
            k.fma(self.rt, for_re, bi, re),
            k.fma(self.rt, for_im, br, im),
        ]
    }

    pub(crate) fn add(self, k: &mut KernelBuilder, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter()
            .zip(b)
            .map(|(x, y)| k.add(self.rt, *x, *y))
            .collect()
    }
}

/// The handles of the scalar parameters `name0..` (reals of the element).
pub(crate) fn scalar_params(
    params: &crate::ptx::Params,
    el: El,
    name: &str,
) -> rocm_core::Result<Vec<crate::ptx::Param>> {
    (0..el.comps)
        .map(|c| params.get(&format!("{name}{c}")).cloned())
        .collect()
}

/// Stores α·acc + β·y at `py` (y read only with `read_y`).
pub(crate) fn epilogue(
    k: &mut KernelBuilder,
    el: El,
    acc: &[Reg],
    py: Reg,
    alpha: &[Reg],
    beta: Option<&[Reg]>,
) {
    let zero = el.zero(k);
    let mut out = el.fma(k, alpha, acc, &zero, false);
    if let Some(beta) = beta {
        let yv = el.load_plain(k, py);
        out = el.fma(k, beta, &yv, &out, false);
    }
    k.st_global(py, 0, &out);
}

impl El {
    /// One element of y (plain load: y is written by the same kernel).
    pub(crate) fn load_plain(self, k: &mut KernelBuilder, addr: Reg) -> Vec<Reg> {
        k.ld_global(self.rt, self.comps, addr, 0, LoadCache::Default)
    }
}

pub(crate) fn ctaid_y(k: &mut KernelBuilder) -> Reg {
    let r = k.reg(Ty::U32);
    k.emit(format!("mov.u32 {r}, %ctaid.y"));
    r
}

pub(crate) fn nctaid_y(k: &mut KernelBuilder) -> Reg {
    let r = k.reg(Ty::U32);
    k.emit(format!("mov.u32 {r}, %nctaid.y"));
    r
}

impl El {
    /// The real constant `v` as an operand of the real type.
    pub(crate) fn imm(self, v: f64) -> Op {
        if self.rt == Ty::F64 {
            Op::F64(v)
        } else {
            Op::F32(v as f32)
        }
    }

    /// One element at `addr`, zero where `pred` is false (the load is skipped there, so
    /// an address outside the data is never touched). `cache`: `NonCoherent` only for
    /// data the kernel does not write.
    pub(crate) fn load_if(
        self,
        k: &mut KernelBuilder,
        addr: Reg,
        pred: Reg,
        cache: LoadCache,
    ) -> Vec<Reg> {
        let regs = self.zero(k);
        k.when(pred, false);
        k.ld_global_into(&regs, addr, 0, cache);
        regs
    }

    /// `p ? a : b` per component.
    pub(crate) fn select(self, k: &mut KernelBuilder, a: &[Reg], b: &[Reg], p: Reg) -> Vec<Reg> {
        a.iter()
            .zip(b)
            .map(|(x, y)| k.selp(self.rt, *x, *y, p))
            .collect()
    }

    /// conj(a) where `p` holds (complex only; reals are returned as they are).
    pub(crate) fn conj_if(self, k: &mut KernelBuilder, a: &[Reg], p: Option<Reg>) -> Vec<Reg> {
        let Some(p) = p.filter(|_| self.comps == 2) else {
            return a.to_vec();
        };
        let neg = k.neg(self.rt, a[1]);
        vec![a[0], k.selp(self.rt, neg, a[1], p)]
    }

    /// The element with its imaginary part replaced by zero where `p` holds (the real
    /// diagonal of a Hermitian matrix); reals unchanged.
    pub(crate) fn real_if(self, k: &mut KernelBuilder, a: &[Reg], p: Reg) -> Vec<Reg> {
        if self.comps == 1 {
            return a.to_vec();
        }
        let zero = self.imm(0.0);
        vec![a[0], k.selp(self.rt, zero, a[1], p)]
    }

    /// a / b, each part correctly rounded for reals; complex as
    /// (a·conj(b)) / |b|² (b = c + di: ((ac + bd) + (bc − ad)i) / (c² + d²)).
    pub(crate) fn div(self, k: &mut KernelBuilder, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        if self.comps == 1 {
            return vec![k.div(self.rt, a[0], b[0])];
        }
        let zero = self.zero(k);
        let num = self.fma(k, b, a, &zero, true);
        let d2 = k.mul(self.rt, b[1], b[1]);
        let d2 = k.fma(self.rt, b[0], b[0], d2);
        num.iter().map(|v| k.div(self.rt, *v, d2)).collect()
    }
}

/// `flags & bit != 0`.
pub(crate) fn flag(k: &mut KernelBuilder, flags: Reg, bit: u32) -> Reg {
    let v = k.and_b32(flags, bit);
    k.setp(crate::ptx::Cmp::Ne, Ty::U32, v, 0u32)
}

/// `base + i·inc·es` for a vector passed as the address of its logical element 0 with a
/// signed increment (so a negative increment walks down from the far end).
pub(crate) fn vector_at(k: &mut KernelBuilder, base: Reg, i: Reg, incb: Reg) -> Reg {
    let off = k.mul(Ty::S64, i, incb);
    k.add(Ty::U64, base, off)
}

/// How the stored triangle is laid out (the column start; within a column the stored
/// rows are consecutive in both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Storage {
    /// Column-major with leading dimension `lda`: A(i, j) at `i + j·lda`.
    Dense,
    /// BLAS packed triangle: upper A(i, j) at `i + j(j+1)/2`, lower at
    /// `i + j·n − j(j+1)/2` (`lda` unused).
    Packed,
    /// BLAS band triangle with `k` off-diagonals (sbmv, hbmv, tbmv): upper A(i, j) at
    /// `k + i − j + j·lda`, lower at `i − j + j·lda`; only |i − j| ≤ k is stored.
    Band,
}

/// Byte address of element (i, j): `a + (i + start(j))·es`, start(j) per [`Storage`]
/// (`upper` picks the packed or band formula; it is unused for dense storage). The
/// third operand is the order n for packed storage and the bandwidth k for band
/// storage (unused for dense).
pub(crate) fn element_at(
    k: &mut KernelBuilder,
    storage: Storage,
    (a, lda, n): (Reg, Reg, Reg),
    upper: Reg,
    (i, j): (Reg, Reg),
    es: i64,
) -> Reg {
    let start = match storage {
        Storage::Dense => k.mul(Ty::U64, j, lda),
        Storage::Packed => {
            let j1 = k.add(Ty::U64, j, 1i64);
            let jj = k.mul(Ty::U64, j, j1);
            let tri = k.shr(Ty::U64, jj, 1);
            let jn = k.mul(Ty::U64, j, n);
            let low = k.sub(Ty::U64, jn, tri);
            k.selp(Ty::U64, tri, low, upper)
        }
        Storage::Band => {
            // j·lda − j (+ k when upper), in wrapping u64: the sum with i is the index.
            let col = k.mul(Ty::U64, j, lda);
            let diag = k.sub(Ty::U64, col, j);
            let shifted = k.add(Ty::U64, diag, n);
            k.selp(Ty::U64, shifted, diag, upper)
        }
    };
    let el = k.add(Ty::U64, start, i);
    k.fma(Ty::U64, el, es, a)
}

impl El {
    /// Stores an element in shared memory at byte address `at` (components consecutive).
    pub(crate) fn st_shared(self, k: &mut KernelBuilder, at: Reg, v: &[Reg]) {
        for (c, r) in v.iter().enumerate() {
            k.st_shared(at, (c as u32 * self.rt.size()) as i64, *r);
        }
    }

    /// Loads an element from shared memory at byte address `at`.
    pub(crate) fn ld_shared(self, k: &mut KernelBuilder, at: Reg) -> Vec<Reg> {
        (0..self.comps)
            .map(|c| k.ld_shared(self.rt, at, (c * self.rt.size()) as i64))
            .collect()
    }

    /// Byte address of element `index` (u32) of a shared array at `base`.
    pub(crate) fn shared_slot(self, k: &mut KernelBuilder, base: Reg, index: Reg) -> Reg {
        let b = k.mul(Ty::U32, index, self.bytes() as u32);
        k.add(Ty::U32, base, b)
    }

    /// The element one (1 + 0i).
    pub(crate) fn one(self, k: &mut KernelBuilder) -> Vec<Reg> {
        let mut v = self.zero(k);
        v[0] = k.mov(self.rt, self.imm(1.0));
        v
    }
}
