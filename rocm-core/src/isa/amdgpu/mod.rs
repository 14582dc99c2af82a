//! The AMDGPU instruction model: instructions, encoder, decoder and LLVM-syntax printer
//! for gfx9 (gfx908, gfx90a, gfx942) and gfx11 (gfx1100, gfx1101, gfx1102, gfx1151).
//!
//! ```
//! use rocm_core::isa::amdgpu::*;
//! let t = IsaTarget::Gfx90a;
//! let mfma = Instr::new(
//!     Op::VMfmaF32_32x32x8F16,
//!     [vr(8, 16), vr(2, 2), vr(4, 2), Operand::Int(0)],
//! );
//! let words = encode(&mfma, t)?;
//! assert_eq!(words, [0xd3cc_0008, 0x0202_0902]);
//! assert_eq!(mfma.display(t).to_string(), "v_mfma_f32_32x32x8f16 v[8:23], v[2:3], v[4:5], 0");
//! assert_eq!(decode(&words, t)?, (mfma, 2));
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! # Design
//!
//! An [`Instr`] is an [`Op`] (one variant per operation, the same on every target: the
//! gfx9 `ds_read_b32` and the gfx11 `ds_load_b32` are both [`Op::DsReadB32`]), its
//! [`Operand`]s in assembler order, a `vop3` flag for VOP1/VOP2/VOPC instructions written
//! in the 64-bit `_e64` encoding, and [`Mods`] (source/output modifiers, packed-math
//! selects, MFMA broadcast controls, memory offsets and cache bits).
//!
//! Everything per instruction lives in one table, [`OPS`] (`ops.rs`): the encoding
//! [`Form`], the mnemonic on gfx908/gfx90a, gfx942 and gfx11, the opcode per target
//! column (gfx908, gfx90a, gfx942, gfx11; [`NA`] where the target lacks it), the source
//! value type [`Ty`] (decides modifiers, literals and how inline floats read), and the
//! operand [`Slot`]s. A slot says what an operand position accepts *and* which encoding
//! field it lives in (e.g. [`Slot::VReg`] is the VGPR-only `vsrc1` of VOP2,
//! [`Slot::MaskDst`] is `vcc` in VOPC and `sdst` in VOP3, [`Slot::GAddr`] is a VGPR pair
//! with `saddr = off` and one VGPR with an SGPR base). The encoder, decoder, printer and
//! the randomized tests all walk the slots, so most instructions are one table row.
//!
//! ## Forms
//!
//! | Form | gfx9 prefix | gfx11 prefix | Notes |
//! |---|---|---|---|
//! | SOP1/SOP2/SOPK/SOPC/SOPP | `10…` | same | 8-bit scalar operand codes, 32-bit literal |
//! | SMEM | `110000` | `111101` | gfx9: unsigned 20-bit offset, `glc`; gfx11: signed 21-bit, `glc dlc`, soffset = null |
//! | VOP1/VOP2/VOPC | `0111111`/`0…`/`0111110` | same | `_e32`; src0 9-bit, vsrc1 VGPR; literal in src0 |
//! | VOP3 (a and b) | `110100` | `110101` | promoted VOPC 0+op, VOP2 0x100+op, VOP1 0x140+op (gfx9) / 0x180+op (gfx11); VOP3b puts the carry-out SGPRs where VOP3a has `abs` |
//! | VOP3P | `110100111` | `11001100` | packed math, `v_accvgpr_read/write` on gfx9, WMMA on gfx11 |
//! | MAI (MFMA) | `110100111` | — | ACC_CD bit 15 (gfx90a+), ABID, CBSZ, BLGP, per-source AGPR bits 27/28 |
//! | DS | `110110` | `110110` | gfx9 opcode bits 24:17, AGPR data bit 25 (gfx90a+); gfx11 opcode 25:18 |
//! | GLOBAL | `110111`, seg 2 | same | signed 13-bit offset; `saddr` off = 0x7f (gfx9) / null (gfx11); AGPR bit 55 |
//! | SDWA / DPP / DPP8 | VOP1/2/C `_e32` with src0 0xf9 / 0xfa | 0xfa / 0xe9, 0xea | a second dword ([`Mods::ext`], `ext.rs`); SDWA gfx9 only |
//! | MUBUF | `111000` | same | only the operand-free cache ops (`buffer_gl0_inv`, `buffer_wbinvl1_vol`) |
//!
//! `v_madmk_f32`/`v_fmamk_f32` carry their constant in [`Slot::Kimm`] (always the
//! literal dword). gfx11 `v_cmpx_*` have no destination operand (they write EXEC; the
//! VOP3 form names `exec_lo` in vdst).
//!
//! ## How targets differ (all enforced by [`encode`])
//!
//! - Opcodes and mnemonics: gfx11 renumbers most scalar and vector ALU opcodes and renames
//!   memory instructions (`s_load_b128`, `global_load_b32`, `ds_store_b32`,
//!   `v_add_nc_u32`); gfx942 renames MFMAs (`v_mfma_f32_32x32x8_f16`) and their bf16 forms
//!   have other opcodes than gfx90a's `_1k` ones; availability differs (xf32 and fp8
//!   MFMA gfx942 only, f64 MFMA and `v_pk_fma_f32` gfx90a+, WMMA gfx11 only).
//! - Registers: gfx90a/gfx942 need 64-bit-aligned VGPR/AGPR tuples; SGPR tuples are
//!   aligned to 2 or 4 everywhere; gfx9 addresses s0–s101, gfx11 s0–s105 plus `null`;
//!   `m0` is code 124 on gfx9 and 125 on gfx11; lane masks are SGPR pairs (wave64, gfx9)
//!   or single SGPRs (wave32, gfx11).
//! - MFMA: gfx908 has C/D only in AGPRs and no ACC_CD bit; gfx90a+ put C/D in VGPRs or
//!   AGPRs and accept an inline constant C; C must equal D or not overlap it.
//! - VALU: gfx9 VOP3/VOP3P take no literal and read one scalar value; gfx11 VOP3 takes
//!   one literal and two scalar values (one for the 64-bit shifts); gfx11 16-bit `_e32`
//!   forms address v0–v127 only.
//! - `s_waitcnt` packs vmcnt/expcnt/lgkmcnt differently per family ([`Waitcnt`]); cache
//!   bits are `glc slc` (gfx9), `sc0 sc1 nt` (gfx942), `glc slc dlc` (gfx11).
//!
//! The model is wave64 on gfx9 and wave32 on gfx11 (what our kernels use).
//!
//! ## Printing
//!
//! [`Instr::display`] writes LLVM's canonical syntax (what `llvm-mc -show-encoding` echoes
//! back; the oracle tests compare the text too): `_e32`/`_e64` suffixes, only the waited
//! counters of `s_waitcnt`, `neg(..)` for negated constants, `swizzle(..)` offsets.
//! [`disassemble`] lists a whole code stream.
//!
//! ## Decoding
//!
//! [`decode`] classifies the first dword by its prefix, looks the opcode up in the
//! target's column, reads fields back through the slots, then re-encodes: bits the model
//! does not carry (VOP3 `op_sel`, `gds`, …) make it fail with an error instead
//! of being dropped. A literal whose value an inline constant could hold (what the
//! linker writes for relocated values such as `0`) is kept as a literal and prints as
//! that constant, as LLVM prints it. gfx11 dual-issue VOPD (`v_dual_*`) is an [`Instr`] whose
//! [`Instr::dual`] holds the Y half (`vopd.rs`).
//!
//! ## Adding an instruction
//!
//! 1. Find its encoding per target: `echo "v_foo v1, v2" | llvm-mc-19
//!    -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -show-encoding` (and gfx908, gfx942, gfx1100).
//! 2. Add an [`Op`] variant at the end of the enum and a row at the end of [`OPS`] with
//!    the form, the three mnemonics, the four opcodes (`NA` where it does not assemble),
//!    the type and the slots. Row order must follow the enum (a unit test checks).
//! 3. If it has a rule the slots cannot say (like `v_accvgpr_write`'s VGPR-or-constant
//!    source), check it in `encode.rs` and teach the generator in `oracle.rs`.
//! 4. `cargo test -p rocm-core isa::` assembles hundreds of random instances per form and
//!    target with llvm-mc-19 and compares bytes and decoding.

pub mod codeobj;
mod decode;
mod encode;
pub mod ext;
pub mod hazard;
mod instr;
pub mod matrix;
mod operand;
mod ops;
mod print;
mod target;
mod vopd;
pub mod waitcnt;

pub use decode::{decode, decode_all, disassemble};
pub use encode::{encode, encode_all, has_e64};
pub use instr::{Cache, Counter, Dpp, Dpp8, DstUnused, Instr, Mods, Sdwa, SdwaSel, VExt};
pub use operand::{a, ar, s, sr, v, vr, Aperture, InlineFloat, Operand, RegRange, Waitcnt};
pub use ops::{Form, ImmKind, Op, OpInfo, Slot, Ty, NA, OPS};
pub use print::InstrDisplay;
pub use target::{IsaFamily, IsaTarget};
pub use vopd::{vopd_code, vopd_ops, vopd_x};

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;
