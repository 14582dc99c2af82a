//! BLAS Level 2 kernels for AMDGPU, built with the [`Assembler`] from the same parameters
//! as the PTX generators of [`crate::level2`] and with the same kernel contract (kernel
//! names, argument order and types, grid and workgroup meaning, workspace layout), so the
//! host launches them exactly as it launches the PTX kernels:
//!
//! - [`gemv`]: `rocm_blas_gemv` (N, T, C) and `rocm_blas_gemv_finish`.
//! - [`trimv`]: `rocm_blas_tri_mv` (symv/hemv, trmv N/T/C; dense, packed, band; gbmv
//!   N/T/C on a general band; the windowed products of the blocked trsv).
//! - [`trsv`]: `rocm_blas_trsv_block` (the diagonal-block solve of the blocked trsv;
//!   dense, packed, band).
//!
//! All for f32, f64, Complex32 and Complex64 on every gfx9 (wave64) and gfx11 (wave32)
//! target.
//!
//! The generators hand AMD targets here (`Gemv::generate`, …); the routines needing a
//! generator without an AMDGPU back end stay `Unsupported` on AMD devices.
//!
//! Conventions shared by the kernels (the PTX contract, restated for registers):
//! - `u64` arguments (sizes, leading dimensions) are read as their low 32 bits; `i64`
//!   increments likewise as `i32`. Element indices (every span a kernel indexes) and
//!   byte strides (`lda·size`, `inc·size`) must be
//!   below 2³¹; rocm-blas checks this before launching on AMD devices
//!   (`check_amdgpu_extent`) and answers `Unsupported` beyond.
//! - Addresses are 64-bit: a lane's element address is `base + index·stride` computed by
//!   `v_mad_u64_u32` with a sign fix for negative strides (`lane_address`), so negative
//!   increments (x and y passed at their logical element 0, the far end) need no
//!   special casing; column pointers that are uniform over a wave stay in SGPR pairs and
//!   the lane adds a 32-bit unsigned offset (`global_load … saddr`).
//! - Scalars: an f32 component is one `u32` argument, an f64 component an 8-byte-aligned
//!   `u64` (as the host packs `f32`/`f64`), complex re then im.
//! - Arithmetic: one rounding per instruction (`v_fma`, `v_mul`, `v_add`), complex
//!   products as four fmas (`cfma_into` of the Level 1 kernels' `math`); every sum in a fixed order.

pub mod gemv;
pub mod trimv;
pub mod trsv;

/// The launchable program of the assembled `kernels` (one code object; each kernel by
/// its name, which is the PTX kernel's), launched by the PTX program's `launch` rule:
/// every Level 2 back end ends here, so they differ only in what they assemble.
fn program_of(
    kernels: &[super::asm::AssembledKernel],
    signatures: Vec<crate::signature::Signature>,
    launch: crate::generator::LaunchRule,
) -> rocm_core::Result<crate::generator::Program> {
    Ok(crate::generator::Program {
        image: rocm_core::ModuleImage::CodeObject(super::asm::code_object(kernels)?.to_elf()?),
        kernels: kernels.iter().map(|k| k.name().to_string()).collect(),
        signatures,
        launch,
    })
}

use super::asm::Assembler;
use super::math::Real;
use super::math::{self, Val};
use super::regs::{Sgpr, Vgpr};
use crate::level2::Storage;
use rocm_core::isa::amdgpu::{InlineFloat, Instr, Op, Operand};
use rocm_core::{DType, Error, Result};

/// The element type of a kernel: its real type and components (1 real, 2 complex).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elem {
    pub real: Real,
    pub comps: u8,
}

impl Elem {
    pub(crate) fn of(d: DType) -> Result<Elem> {
        let (real, comps) = match d {
            DType::F32 => (Real::F32, 1),
            DType::F64 => (Real::F64, 1),
            DType::C32 => (Real::F32, 2),
            DType::C64 => (Real::F64, 2),
            other => {
                return Err(Error::unsupported(
                    format!("AMDGPU Level 2 kernels for {other}"),
                    "AMDGPU",
                ))
            }
        };
        Ok(Elem { real, comps })
    }

    /// VGPRs of one element.
    pub(crate) fn regs(self) -> u8 {
        self.real.regs() * self.comps
    }

    /// Bytes of one element.
    pub(crate) fn bytes(self) -> u32 {
        4 * u32::from(self.regs())
    }

    fn load_op(self) -> Op {
        match self.bytes() {
            4 => Op::GlobalLoadDword,
            8 => Op::GlobalLoadDwordx2,
            _ => Op::GlobalLoadDwordx4,
        }
    }

    fn store_op(self) -> Op {
        match self.bytes() {
            4 => Op::GlobalStoreDword,
            8 => Op::GlobalStoreDwordx2,
            _ => Op::GlobalStoreDwordx4,
        }
    }

    fn lds_write_op(self) -> Op {
        match self.bytes() {
            4 => Op::DsWriteB32,
            8 => Op::DsWriteB64,
            _ => Op::DsWriteB128,
        }
    }

    fn lds_read_op(self) -> Op {
        match self.bytes() {
            4 => Op::DsReadB32,
            8 => Op::DsReadB64,
            _ => Op::DsReadB128,
        }
    }

    /// A fresh element block (its registers contiguous, as loads write them).
    pub(crate) fn alloc(self, k: &mut Assembler) -> Result<Vgpr> {
        k.vgprs(self.regs())
    }

    /// The components of an element block.
    pub(crate) fn val(self, block: Vgpr) -> Val {
        math::comps(block, 0, self.real, self.comps)
    }

    /// A fresh element block set to zero.
    pub(crate) fn zero(self, k: &mut Assembler) -> Result<Vgpr> {
        let b = self.alloc(k)?;
        for i in 0..b.count() {
            k.op(Op::VMovB32, [b.at(i).op(), Operand::Int(0)]);
        }
        Ok(b)
    }

    /// `d += s`, component by component.
    pub(crate) fn add_into(self, k: &mut Assembler, d: Vgpr, s: Vgpr) {
        for (dc, sc) in self.val(d).into_iter().zip(self.val(s)) {
            math::add(k, self.real, dc, dc, sc, 0, 0);
        }
    }

    /// Loads the element at the 64-bit address `addr` into `dst`.
    pub(crate) fn load(self, k: &mut Assembler, dst: Vgpr, addr: Vgpr) {
        k.emit(Instr::new(
            self.load_op(),
            [dst.op(), addr.op(), Operand::Off],
        ));
    }

    /// Loads the element at `base + offset` (SGPR-pair base, 32-bit unsigned lane offset).
    pub(crate) fn load_at(self, k: &mut Assembler, dst: Vgpr, offset: Vgpr, base: Sgpr) {
        k.global_load(self.load_op(), dst, offset, base, 0);
    }

    /// Stores `data` at the 64-bit address `addr`.
    pub(crate) fn store(self, k: &mut Assembler, addr: Vgpr, data: Vgpr) {
        k.emit(Instr::new(
            self.store_op(),
            [addr.op(), data.op(), Operand::Off],
        ));
    }

    /// Writes `data` to LDS at byte address `addr + imm`.
    pub(crate) fn lds_write(self, k: &mut Assembler, addr: Vgpr, data: Vgpr, imm: u16) {
        k.ds_write(self.lds_write_op(), addr, data, imm);
    }

    /// Reads the element at LDS byte address `addr + imm`.
    pub(crate) fn lds_read(self, k: &mut Assembler, dst: Vgpr, addr: Vgpr, imm: u16) {
        k.ds_read(self.lds_read_op(), dst, addr, imm);
    }
}

/// A scalar argument of the element type: its words in SGPRs (f64 components as
/// 8-byte-aligned pairs), re before im.
pub(crate) fn scalar_arg(k: &mut Assembler, el: Elem, name: &str) -> Result<Vec<Sgpr>> {
    let mut words = Vec::new();
    for c in 0..el.comps {
        let part = match (el.comps, c) {
            (1, _) => name.to_string(),
            (_, 0) => format!("{name}_re"),
            _ => format!("{name}_im"),
        };
        match el.real {
            Real::F32 => words.push(k.arg_u32(&part)?),
            Real::F64 => words.push(k.arg_u64(&part)?),
        }
    }
    Ok(words)
}

/// A scalar argument's words moved into a fresh element block (once the kernarg loads
/// are waited for), so VOP3 arithmetic never reads two SGPRs.
pub(crate) fn scalar_block(k: &mut Assembler, el: Elem, words: &[Sgpr]) -> Result<Vgpr> {
    let b = el.alloc(k)?;
    let mut i = 0u8;
    for w in words {
        for j in 0..w.count() {
            k.op(Op::VMovB32, [b.at(i).op(), w.at(j).op()]);
            i += 1;
        }
    }
    Ok(b)
}

/// An SGPR pair copied into a VGPR pair (a 64-bit base for [`lane_address`]).
pub(crate) fn vgpr_pair(k: &mut Assembler, s: Sgpr) -> Result<Vgpr> {
    let v = k.vgprs(2)?;
    k.op(Op::VMovB32, [v.at(0).op(), s.at(0).op()]);
    k.op(Op::VMovB32, [v.at(1).op(), s.at(1).op()]);
    Ok(v)
}

/// A signed byte stride: `bytes = inc·size` (32-bit) and its sign word
/// (`bytes >> 31`, arithmetic: 0 or −1) for [`lane_address`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stride {
    pub bytes: Sgpr,
    pub sign: Sgpr,
}

/// The byte stride of an increment argument (an `i64` pair, read as `i32`).
pub(crate) fn stride(k: &mut Assembler, inc: Sgpr, size: u32) -> Result<Stride> {
    let (bytes, sign) = (k.sgprs(1)?, k.sgprs(1)?);
    k.op(
        Op::SMulI32,
        [bytes.op(), inc.at(0).op(), Operand::imm32(i64::from(size))],
    );
    k.op(Op::SAshrI32, [sign.op(), bytes.op(), Operand::Int(31)]);
    Ok(Stride { bytes, sign })
}

/// `dst = base + index·stride` as 64-bit addresses (`index` unsigned below 2³¹, the
/// stride signed): `v_mad_u64_u32` multiplies by the stride's unsigned 32 bits, which
/// for a negative stride adds `index·2³²` too much; the high word then gets
/// `index·sign = −index` added.
pub(crate) fn lane_address(
    k: &mut Assembler,
    dst: Vgpr,
    index: Vgpr,
    stride: Stride,
    base: Vgpr,
    carry: Sgpr,
) -> Result<()> {
    k.op(
        Op::VMadU64U32,
        [
            dst.op(),
            carry.op(),
            index.op(),
            stride.bytes.op(),
            base.op(),
        ],
    );
    let fix = k.vgprs(1)?;
    k.op(Op::VMulLoU32, [fix.op(), index.op(), stride.sign.op()]);
    k.op(Op::VAddU32, [dst.at(1).op(), fix.op(), dst.at(1).op()]);
    Ok(())
}

/// `dst = base + index·size` (unsigned, `size` an inline constant up to 64).
pub(crate) fn element_address(
    k: &mut Assembler,
    dst: Vgpr,
    index: Vgpr,
    size: u32,
    base: Vgpr,
    carry: Sgpr,
) {
    k.op(
        Op::VMadU64U32,
        [
            dst.op(),
            carry.op(),
            index.op(),
            Operand::Int(size as i8),
            base.op(),
        ],
    );
}

/// `dst = a + b` on SGPR pairs (64-bit).
pub(crate) fn s_add64(k: &mut Assembler, dst: Sgpr, a: Sgpr, b: Sgpr) {
    k.op(Op::SAddU32, [dst.at(0).op(), a.at(0).op(), b.at(0).op()]);
    k.op(Op::SAddcU32, [dst.at(1).op(), a.at(1).op(), b.at(1).op()]);
}

/// Narrows exec to the lanes where `index < bound` (unsigned), saving exec in `saved`.
pub(crate) fn lanes_below(k: &mut Assembler, saved: Sgpr, index: Vgpr, bound: Sgpr) {
    let vcc = k.vcc();
    k.op(Op::VCmpGtU32, [vcc, bound.op(), index.op()]);
    k.and_saveexec(saved, vcc);
}

/// The BLAS epilogue `y ← α·acc (+ β·y)` at the 64-bit address `addr`: the product
/// first (`fma(α, acc, 0)` per component, complex as four fmas), then `fma(β, y, ·)`;
/// without β y is not read.
pub(crate) fn epilogue(
    k: &mut Assembler,
    el: Elem,
    acc: Vgpr,
    addr: Vgpr,
    alpha: Vgpr,
    beta: Option<Vgpr>,
) -> Result<()> {
    let out = el.zero(k)?;
    math::cfma_into(
        k,
        el.real,
        &el.val(out),
        &el.val(alpha),
        &el.val(acc),
        false,
    );
    if let Some(beta) = beta {
        let yv = el.alloc(k)?;
        el.load(k, yv, addr);
        k.wait_vm(0);
        math::cfma_into(k, el.real, &el.val(out), &el.val(beta), &el.val(yv), false);
    }
    el.store(k, addr, out);
    Ok(())
}

/// The index of column `c`'s start in A's storage (`A(r, c)` lives at `r + start`), as
/// [`crate::level2::Storage`] lays it out, on scalars: dense `c·lda`; packed upper
/// `c(c+1)/2`, lower `c·n − c(c+1)/2`; band `c·lda − c (+ k when upper)`. `upper` is
/// nonzero for the upper triangle; `n_or_k` is n (packed) or the bandwidth k (band).
pub(crate) fn column_start(
    k: &mut Assembler,
    storage: Storage,
    upper: Sgpr,
    c: Sgpr,
    lda: Sgpr,
    n_or_k: Sgpr,
) -> Result<Sgpr> {
    let st = k.sgprs(1)?;
    match storage {
        Storage::Dense => {
            k.op(Op::SMulI32, [st.op(), c.op(), lda.op()]);
        }
        Storage::Packed => {
            let (t, low) = (k.sgprs(1)?, k.sgprs(1)?);
            k.op(Op::SAddU32, [t.op(), c.op(), Operand::Int(1)]);
            k.op(Op::SMulI32, [t.op(), t.op(), c.op()]);
            k.op(Op::SLshrB32, [t.op(), t.op(), Operand::Int(1)]);
            k.op(Op::SMulI32, [low.op(), c.op(), n_or_k.op()]);
            k.op(Op::SSubU32, [low.op(), low.op(), t.op()]);
            k.op(Op::SCmpLgU32, [upper.op(), Operand::Int(0)]);
            k.op(Op::SCselectB32, [st.op(), t.op(), low.op()]);
        }
        Storage::Band => {
            let up = k.sgprs(1)?;
            k.op(Op::SMulI32, [st.op(), c.op(), lda.op()]);
            k.op(Op::SSubU32, [st.op(), st.op(), c.op()]);
            k.op(Op::SAddU32, [up.op(), st.op(), n_or_k.op()]);
            k.op(Op::SCmpLgU32, [upper.op(), Operand::Int(0)]);
            k.op(Op::SCselectB32, [st.op(), up.op(), st.op()]);
        }
    }
    Ok(st)
}

/// [`column_start`] for a column index per lane (`c` a VGPR).
pub(crate) fn lane_column_start(
    k: &mut Assembler,
    storage: Storage,
    upper: Sgpr,
    c: Vgpr,
    lda: Sgpr,
    n_or_k: Sgpr,
) -> Result<Vgpr> {
    let st = k.vgprs(1)?;
    let vcc = k.vcc();
    match storage {
        Storage::Dense => {
            k.op(Op::VMulLoU32, [st.op(), c.op(), lda.op()]);
        }
        Storage::Packed => {
            let (t, low) = (k.vgprs(1)?, k.vgprs(1)?);
            k.op(Op::VAddU32, [t.op(), Operand::Int(1), c.op()]);
            k.op(Op::VMulLoU32, [t.op(), t.op(), c.op()]);
            k.op(Op::VLshrrevB32, [t.op(), Operand::Int(1), t.op()]);
            k.op(Op::VMulLoU32, [low.op(), c.op(), n_or_k.op()]);
            k.op(Op::VSubU32, [low.op(), low.op(), t.op()]);
            upper_vcc(k, upper)?;
            k.op(Op::VCndmaskB32, [st.op(), low.op(), t.op(), vcc]);
        }
        Storage::Band => {
            let up = k.vgprs(1)?;
            k.op(Op::VMulLoU32, [st.op(), c.op(), lda.op()]);
            k.op(Op::VSubU32, [st.op(), st.op(), c.op()]);
            k.op(Op::VAddU32, [up.op(), n_or_k.op(), st.op()]);
            upper_vcc(k, upper)?;
            k.op(Op::VCndmaskB32, [st.op(), st.op(), up.op(), vcc]);
        }
    }
    Ok(st)
}

/// vcc = every lane when `upper` is nonzero, else none.
fn upper_vcc(k: &mut Assembler, upper: Sgpr) -> Result<()> {
    let zero = k.vgprs(1)?;
    k.op(Op::VMovB32, [zero.op(), Operand::Int(0)]);
    let vcc = k.vcc();
    k.op(Op::VCmpNeU32, [vcc, upper.op(), zero.op()]);
    Ok(())
}

/// Negates the imaginary part of a complex element (its sign bit), in place.
pub(crate) fn conj_in_place(k: &mut Assembler, el: Elem, v: Vgpr) {
    if el.comps == 2 {
        let im = el.val(v)[1];
        let sign_word = im.at(im.count() - 1);
        k.op(
            Op::VXorB32,
            [
                sign_word.op(),
                Operand::Literal(0x8000_0000),
                sign_word.op(),
            ],
        );
    }
}

/// Sets a complex element's imaginary part to zero (Hermitian diagonals).
pub(crate) fn clear_imag(k: &mut Assembler, el: Elem, v: Vgpr) {
    if el.comps == 2 {
        let im = el.val(v)[1];
        for i in 0..im.count() {
            k.op(Op::VMovB32, [im.at(i).op(), Operand::Int(0)]);
        }
    }
}

/// Sets an element to one.
pub(crate) fn set_one(k: &mut Assembler, el: Elem, v: Vgpr) {
    for i in 0..v.count() {
        k.op(Op::VMovB32, [v.at(i).op(), Operand::Int(0)]);
    }
    match el.real {
        Real::F32 => k.op(
            Op::VMovB32,
            [v.at(0).op(), Operand::Float(InlineFloat::One)],
        ),
        // 1.0f64's high word (not an f32 inline constant, so LLVM keeps the literal).
        Real::F64 => k.op(Op::VMovB32, [v.at(1).op(), Operand::Literal(0x3ff0_0000)]),
    };
}

/// `exec &= vcc` (a further condition inside a masked region).
pub(crate) fn and_exec_vcc(k: &mut Assembler) {
    let (vcc, exec) = (k.vcc(), k.exec());
    let op = if k.wave_size() == 64 {
        Op::SAndB64
    } else {
        Op::SAndB32
    };
    k.op(op, [exec, exec, vcc]);
}
