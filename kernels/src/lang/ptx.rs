//! Lowering to PTX: one instruction sequence per IR operation over virtual registers
//! (ptxas allocates), through the crate's PTX builder ([`crate::ptx`]).
//!
//! - Values map to registers (vectors to one register per lane; `pack`/`extract` only
//!   rename them); a variable is a register set that `assign` moves into, and reading
//!   it copies, so a value read before a later assignment keeps its bits.
//! - `if` is a predicated branch (`bra.uni` when the condition is at most
//!   wave-uniform); a loop is `head: body; latch: latch; bra head; exit:`, `break_if` a
//!   predicated branch to the exit, `continue_if` one to the latch.
//! - Shared arrays are laid out in one `.shared` array ([`KernelDef::shared_offsets`]).
//! - Wave operations are `shfl.sync` / `vote.sync` over the full warp; a wave reduction
//!   is the butterfly of the IR's definition (`shfl.sync.bfly` 16, 8, 4, 2, 1).
//! - Accuracy: `div`, `sqrt`, `rcp` are the correctly rounded `.rn` forms; `rsqrt` of
//!   f32 is `rsqrt.approx.f32` and one Newton step (within 1 ulp); of f64, `sqrt.rn`
//!   then `rcp.rn` (within 2 ulp); `exp2`/`log2` are `ex2.approx.f32`/`lg2.approx.f32`.

use super::ir::*;
use crate::ptx::{KernelBuilder, Label, Module, Op as POp, Reg, Ty};
use rocm_core::Result;

/// The most shared memory a kernel declares statically; a kernel needing more declares
/// its shared memory dynamically, and its launch must give
/// [`dynamic_shared_bytes`] (`LaunchConfig::shared_bytes`).
pub const STATIC_SHARED_LIMIT: u32 = 48 * 1024;

/// The dynamic shared memory a launch of `kernel`'s PTX must request: its shared bytes
/// when they exceed [`STATIC_SHARED_LIMIT`], else 0 (declared statically).
pub fn dynamic_shared_bytes(kernel: &KernelDef) -> u32 {
    match kernel.shared_bytes() {
        b if b > STATIC_SHARED_LIMIT => b,
        _ => 0,
    }
}

/// The PTX module (for the kernel's NVIDIA target) holding `kernel`.
pub fn lower(kernel: &KernelDef) -> Result<String> {
    let mut module = Module::for_kernels(
        &kernel.target,
        format_args!("kernel language kernel `{}`", kernel.name),
    )?;
    module.push(&entry(kernel));
    Ok(module.text())
}

/// The PTX register type of a scalar.
fn ty(s: Scalar) -> Ty {
    match s {
        Scalar::Pred => Ty::Pred,
        Scalar::U32 => Ty::U32,
        Scalar::I32 => Ty::S32,
        Scalar::U64 => Ty::U64,
        Scalar::I64 => Ty::S64,
        Scalar::F16 => Ty::F16,
        Scalar::Bf16 => Ty::Bf16,
        Scalar::F32 => Ty::F32,
        Scalar::F64 => Ty::F64,
    }
}

/// The untyped bit type of a scalar's size.
fn bits(s: Scalar) -> &'static str {
    match s.bits() {
        1 => "pred",
        16 => "b16",
        32 => "b32",
        _ => "b64",
    }
}

/// `.{rn,rz,rm,rp}` (to a float) or `.{rni,...}` (float to int).
fn rounding(r: Rounding, to_int: bool) -> String {
    let m = match r {
        Rounding::Nearest => "rn",
        Rounding::Zero => "rz",
        Rounding::Down => "rm",
        Rounding::Up => "rp",
    };
    format!(".{m}{}", if to_int { "i" } else { "" })
}

struct Lower<'a> {
    k: &'a KernelDef,
    b: KernelBuilder,
    values: Vec<Vec<Reg>>,
    vars: Vec<Vec<Reg>>,
    /// Global address of each pointer parameter (by parameter index).
    pointers: Vec<Option<Reg>>,
    /// Each scalar parameter's register, loaded once at the top.
    scalars: Vec<Option<Reg>>,
    shared: Option<Reg>,
    /// (latch, exit) of the enclosing loops.
    loops: Vec<(Label, Label)>,
}

/// The `.entry` for `kernel`.
pub(super) fn entry(kernel: &KernelDef) -> KernelBuilder {
    let (mut b, handles) = KernelBuilder::from_signature(&kernel.signature);
    b.max_threads(kernel.max_workgroup_size);
    let n = kernel.signature.params.len();
    let (mut pointers, mut scalars) = (vec![None; n], vec![None; n]);
    for (i, p) in kernel.signature.params.iter().enumerate() {
        let Ok(decl) = handles.get(&p.name) else {
            continue;
        };
        let decl = decl.clone();
        match p.ty {
            ParamType::Pointer { .. } => pointers[i] = Some(b.ld_param_global_ptr(&decl)),
            ParamType::Scalar(_) => scalars[i] = Some(b.ld_param(&decl)),
            ParamType::Bytes { .. } => {}
        }
    }
    let shared = match kernel.shared_bytes() {
        0 => None,
        bytes if bytes > STATIC_SHARED_LIMIT => Some(b.dynamic_shared_array(16)),
        bytes => Some(b.shared_array("lang_shared", bytes, 16)),
    };
    let mut l = Lower {
        k: kernel,
        b,
        values: vec![Vec::new(); kernel.values.len()],
        vars: vec![Vec::new(); kernel.vars.len()],
        pointers,
        scalars,
        shared,
        loops: Vec::new(),
    };
    l.block(&kernel.body);
    l.b.ret();
    l.b
}

impl Lower<'_> {
    fn emit(&mut self, text: String) {
        self.b.emit(text);
    }

    fn regs(&self, v: Value) -> Vec<Reg> {
        self.values[v.id as usize].clone()
    }

    fn r(&self, v: Value) -> Reg {
        self.values[v.id as usize][0]
    }

    fn new_regs(&mut self, t: Type) -> Vec<Reg> {
        (0..t.lanes).map(|_| self.b.reg(ty(t.scalar))).collect()
    }

    /// `dst = src` for registers of one type.
    fn mov(&mut self, dst: Reg, src: Reg) {
        let t = if dst.ty() == Ty::Pred {
            "pred".to_string()
        } else {
            bits_of(dst.ty())
        };
        self.emit(format!("mov.{t} {dst}, {src}"));
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(v, op) => {
                let regs = self.op(*v, op);
                self.values[v.id as usize] = regs;
            }
            Stmt::Var(var, v) => {
                let regs = self.new_regs(var.ty);
                for (d, s) in regs.iter().zip(self.regs(*v)) {
                    self.mov(*d, s);
                }
                self.vars[var.id as usize] = regs;
            }
            Stmt::Assign(var, v) => {
                for (d, s) in self.vars[var.id as usize]
                    .clone()
                    .into_iter()
                    .zip(self.regs(*v))
                {
                    self.mov(d, s);
                }
            }
            Stmt::Store(m, v) => self.store(m, *v),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let uni = if self.k.uniformity(*cond) == Uniformity::Varying {
                    ""
                } else {
                    ".uni"
                };
                let (els, end) = (self.b.label(), self.b.label());
                let c = self.r(*cond);
                self.emit(format!("@!{c} bra{uni} {els}"));
                self.block(then);
                if otherwise.0.is_empty() {
                    self.b.place(els);
                } else {
                    self.emit(format!("bra.uni {end}"));
                    self.b.place(els);
                    self.block(otherwise);
                }
                self.b.place(end);
            }
            Stmt::Loop { body, latch } => {
                let (head, latch_l, exit) = (self.b.label(), self.b.label(), self.b.label());
                self.b.place(head);
                self.loops.push((latch_l, exit));
                self.block(body);
                self.b.place(latch_l);
                self.block(latch);
                self.loops.pop();
                self.b.bra(head);
                self.b.place(exit);
            }
            Stmt::Break(c) | Stmt::Continue(c) => {
                let &(latch, exit) = self.loops.last().expect("the builder checks loop nesting");
                let to = if matches!(s, Stmt::Break(_)) {
                    exit
                } else {
                    latch
                };
                let c = self.r(*c);
                self.b.bra_if(c, false, to);
            }
            Stmt::Barrier => self.b.bar_sync(),
            Stmt::Fence(Scope::Workgroup) => self.emit("fence.acq_rel.cta".into()),
            Stmt::Fence(Scope::Device) => self.emit("fence.acq_rel.gpu".into()),
        }
    }

    /// The address register of an access and the space suffix.
    fn address(&mut self, mem: Mem, offset: Value) -> (Reg, &'static str) {
        let o = self.r(offset);
        match mem {
            Mem::Global(p) => {
                let base = self.pointers[p as usize].expect("a pointer parameter");
                (self.b.add(Ty::U64, base, o), "global")
            }
            Mem::Shared(i) => {
                let at = self.k.shared_offsets()[i as usize].0;
                let base = self.shared.expect("shared memory declared");
                let a = self.b.add(Ty::U32, base, o);
                let a = if at == 0 {
                    a
                } else {
                    self.b.add(Ty::U32, a, at)
                };
                (a, "shared")
            }
        }
    }

    /// Splits an access into pieces of at most `align` bytes: (byte offset, lanes).
    fn pieces(m: &MemAccess, t: Type) -> Vec<(u32, u32)> {
        let es = t.scalar.bytes().max(1);
        if m.bytes < t.bytes() {
            return vec![(0, 1)];
        }
        let per = (m.align / es).clamp(1, t.lanes as u32);
        (0..t.lanes as u32)
            .step_by(per as usize)
            .map(|l| (l * es, per))
            .collect()
    }

    /// The `ld`/`st` type suffix of an access of `t` moving `bytes` per lane.
    fn mem_suffix(t: Type, bytes: u32) -> String {
        if bytes < t.bytes() {
            let sign = if t.scalar.is_signed() { "s" } else { "u" };
            return format!("{sign}{}", bytes * 8);
        }
        match t.scalar {
            Scalar::F16 | Scalar::Bf16 => "b16".into(),
            s => ty(s).name().into(),
        }
    }

    fn load(&mut self, m: &MemAccess, t: Type) -> Vec<Reg> {
        let (addr, space) = self.address(m.mem, m.offset);
        let regs = self.new_regs(t);
        let cache = match (m.mem, m.cache) {
            (Mem::Global(_), Cache::ReadOnly) => ".nc",
            (Mem::Global(_), Cache::Streaming) => ".cs",
            _ => "",
        };
        let suffix = Self::mem_suffix(t, m.bytes);
        for (off, n) in Self::pieces(m, t) {
            let first = (off / t.scalar.bytes().max(1)) as usize;
            let list = reg_list(&regs[first..first + n as usize]);
            let v = vec_suffix(n);
            self.emit(format!(
                "ld.{space}{cache}{v}.{suffix} {list}, [{addr}{}]",
                offset(off)
            ));
        }
        regs
    }

    fn store(&mut self, m: &MemAccess, value: Value) {
        let t = value.ty;
        let (addr, space) = self.address(m.mem, m.offset);
        let regs = self.regs(value);
        let cache = match (m.mem, m.cache) {
            (Mem::Global(_), Cache::Streaming) => ".cs",
            _ => "",
        };
        let suffix = Self::mem_suffix(t, m.bytes);
        for (off, n) in Self::pieces(m, t) {
            let first = (off / t.scalar.bytes().max(1)) as usize;
            let list = reg_list(&regs[first..first + n as usize]);
            let v = vec_suffix(n);
            self.emit(format!(
                "st.{space}{cache}{v}.{suffix} [{addr}{}], {list}",
                offset(off)
            ));
        }
    }

    fn constant(&mut self, t: Type, bits: u64) -> Reg {
        let r = self.b.reg(ty(t.scalar));
        let imm = match t.scalar {
            Scalar::Pred => {
                self.emit(format!("setp.ne.u32 {r}, {}, 0", bits & 1));
                return r;
            }
            Scalar::F32 => POp::F32(f32::from_bits(bits as u32)).to_string(),
            Scalar::F64 => POp::F64(f64::from_bits(bits)).to_string(),
            Scalar::F16 | Scalar::Bf16 => format!("0x{bits:04X}"),
            Scalar::I32 => (bits as u32 as i32).to_string(),
            Scalar::I64 => (bits as i64).to_string(),
            _ => bits.to_string(),
        };
        let t = if t.scalar.is_float() && t.scalar.bits() == 16 {
            "b16".to_string()
        } else {
            ty(t.scalar).name().to_string()
        };
        self.emit(format!("mov.{t} {r}, {imm}"));
        r
    }

    fn special(&mut self, s: Special) -> Reg {
        let name = |base: &str, a: Axis| {
            let a = match a {
                Axis::X => "x",
                Axis::Y => "y",
                Axis::Z => "z",
            };
            format!("%{base}.{a}")
        };
        let src = match s {
            Special::ThreadId(a) => name("tid", a),
            Special::WorkgroupId(a) => name("ctaid", a),
            Special::WorkgroupSize(a) => name("ntid", a),
            Special::GridSize(a) => name("nctaid", a),
            Special::LaneId => "%laneid".into(),
            Special::WaveSize => "32".into(),
            Special::WaveId => {
                // The flattened work-item id over the warp size.
                let (x, y, z) = (
                    self.special(Special::ThreadId(Axis::X)),
                    self.special(Special::ThreadId(Axis::Y)),
                    self.special(Special::ThreadId(Axis::Z)),
                );
                let (nx, ny) = (
                    self.special(Special::WorkgroupSize(Axis::X)),
                    self.special(Special::WorkgroupSize(Axis::Y)),
                );
                let zy = self.b.fma(Ty::U32, z, ny, y);
                let flat = self.b.fma(Ty::U32, zy, nx, x);
                return self.b.shr(Ty::U32, flat, 5);
            }
        };
        let r = self.b.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {src}"));
        r
    }

    fn op(&mut self, dst: Value, op: &Op) -> Vec<Reg> {
        let t = dst.ty;
        let one = |r: Reg| vec![r];
        match op {
            Op::Const(c) => one(self.constant(t, *c)),
            Op::Param(p) => one(self.scalars[*p as usize].expect("a scalar parameter")),
            Op::Special(s) => one(self.special(*s)),
            Op::Var(v) => {
                let regs = self.new_regs(t);
                for (d, s) in regs.iter().zip(self.vars[v.id as usize].clone()) {
                    self.mov(*d, s);
                }
                regs
            }
            Op::Unary(u, a) => {
                let a = self.regs(*a);
                a.iter().map(|&x| self.unary(*u, t.scalar, x)).collect()
            }
            Op::Binary(bop, a, b) => {
                let s = a.ty.scalar;
                let (a, b) = (self.regs(*a), self.regs(*b));
                a.iter()
                    .zip(&b)
                    .map(|(&x, &y)| self.binary(*bop, x, y, s))
                    .collect()
            }
            Op::Fma(a, b, c) => {
                let (a, b, c) = (self.regs(*a), self.regs(*b), self.regs(*c));
                (0..a.len())
                    .map(|i| self.b.fma(ty(t.scalar), a[i], b[i], c[i]))
                    .collect()
            }
            Op::Cmp(c, a, b) => one(self.compare(*c, self.r(*a), self.r(*b), a.ty.scalar)),
            Op::Select(c, a, b) => {
                let (c, a, b) = (self.r(*c), self.regs(*a), self.regs(*b));
                a.iter()
                    .zip(&b)
                    .map(|(&x, &y)| {
                        let r = self.b.reg(x.ty());
                        if x.ty() == Ty::Pred {
                            self.emit(format!("@{c} mov.pred {r}, {x}"));
                            self.emit(format!("@!{c} mov.pred {r}, {y}"));
                        } else {
                            self.emit(format!("selp.{} {r}, {x}, {y}, {c}", bits_of(x.ty())));
                        }
                        r
                    })
                    .collect()
            }
            Op::Convert(a, r) => one(self.convert(self.r(*a), a.ty.scalar, t.scalar, *r)),
            Op::Bitcast(a) => self.bitcast(*a, t),
            Op::Pack(vs) => vs.iter().map(|v| self.r(*v)).collect(),
            Op::Extract(v, i) => one(self.regs(*v)[*i as usize]),
            Op::Load(m) => self.load(m, t),
            Op::Atomic {
                op,
                mem,
                offset,
                value,
                compare,
            } => {
                let (addr, space) = self.address(*mem, *offset);
                let s = t.scalar;
                let (name, tyname) = match op {
                    AtomicOp::Add => ("add", ty(s).name().to_string()),
                    AtomicOp::Min => ("min", ty(s).name().to_string()),
                    AtomicOp::Max => ("max", ty(s).name().to_string()),
                    AtomicOp::Exchange => ("exch", bits(s).to_string()),
                    AtomicOp::CompareSwap => ("cas", bits(s).to_string()),
                };
                let r = self.b.reg(ty(s));
                let v = self.r(*value);
                match compare {
                    Some(c) => {
                        let c = self.r(*c);
                        self.emit(format!(
                            "atom.{space}.{name}.{tyname} {r}, [{addr}], {c}, {v}"
                        ));
                    }
                    None => self.emit(format!("atom.{space}.{name}.{tyname} {r}, [{addr}], {v}")),
                }
                one(r)
            }
            Op::Shuffle(v, from) => {
                let (mode, b, c) = match from {
                    Shuffle::Idx(i) => ("idx", self.r(*i).to_string(), 31),
                    Shuffle::Up(d) => ("up", d.to_string(), 0),
                    Shuffle::Down(d) => ("down", d.to_string(), 31),
                    Shuffle::Xor(m) => ("bfly", m.to_string(), 31),
                };
                let x = self.r(*v);
                one(self.shuffle(x, mode, &b, c))
            }
            Op::WaveReduce(red, v) => {
                let bop = match red {
                    Reduce::Add => Binary::Add,
                    Reduce::Min => Binary::Min,
                    Reduce::Max => Binary::Max,
                };
                let mut x = self.r(*v);
                for m in [16, 8, 4, 2, 1] {
                    let y = self.shuffle(x, "bfly", &m.to_string(), 31);
                    x = self.binary(bop, x, y, v.ty.scalar);
                }
                one(x)
            }
            Op::Ballot(p) => {
                let (w, r) = (self.b.reg(Ty::U32), self.b.reg(Ty::U64));
                let p = self.r(*p);
                self.emit(format!("vote.sync.ballot.b32 {w}, {p}, 0xffffffff"));
                self.emit(format!("cvt.u64.u32 {r}, {w}"));
                one(r)
            }
            Op::Any(p) | Op::All(p) => {
                let mode = if matches!(op, Op::Any(_)) {
                    "any"
                } else {
                    "all"
                };
                let (r, p) = (self.b.reg(Ty::Pred), self.r(*p));
                self.emit(format!("vote.sync.{mode}.pred {r}, {p}, 0xffffffff"));
                one(r)
            }
        }
    }

    /// `shfl.sync.<mode>.b32` of a 32- or 64-bit register (64 bits as two halves).
    fn shuffle(&mut self, x: Reg, mode: &str, b: &str, c: u32) -> Reg {
        let r = self.b.reg(x.ty());
        if x.ty().size() == 4 {
            self.emit(format!(
                "shfl.sync.{mode}.b32 {r}, {x}, {b}, {c}, 0xffffffff"
            ));
            return r;
        }
        let (lo, hi, slo, shi) = (
            self.b.reg(Ty::B32),
            self.b.reg(Ty::B32),
            self.b.reg(Ty::B32),
            self.b.reg(Ty::B32),
        );
        self.emit(format!("mov.b64 {{{lo}, {hi}}}, {x}"));
        self.emit(format!(
            "shfl.sync.{mode}.b32 {slo}, {lo}, {b}, {c}, 0xffffffff"
        ));
        self.emit(format!(
            "shfl.sync.{mode}.b32 {shi}, {hi}, {b}, {c}, 0xffffffff"
        ));
        self.emit(format!("mov.b64 {r}, {{{slo}, {shi}}}"));
        r
    }

    fn unary(&mut self, u: Unary, s: Scalar, x: Reg) -> Reg {
        let t = ty(s);
        let r = self.b.reg(t);
        let text = match (u, s) {
            (Unary::Not, Scalar::Pred) => format!("not.pred {r}, {x}"),
            (Unary::Not, _) => format!("not.{} {r}, {x}", bits(s)),
            (Unary::Neg, Scalar::U32) => format!("neg.s32 {r}, {x}"),
            (Unary::Neg, Scalar::U64) => format!("neg.s64 {r}, {x}"),
            (Unary::Abs, Scalar::U32 | Scalar::U64) => format!("mov.{t} {r}, {x}"),
            (Unary::Neg, _) => format!("neg.{t} {r}, {x}"),
            (Unary::Abs, _) => format!("abs.{t} {r}, {x}"),
            (Unary::Sqrt, _) => format!("sqrt.rn.{t} {r}, {x}"),
            (Unary::Rcp, _) => format!("rcp.rn.{t} {r}, {x}"),
            (Unary::Rsqrt, Scalar::F32) => {
                // y0 = rsqrt.approx (relative error ≤ 2^-22.9), one Newton step
                // y0 + y0/2·(1 − x·y0²) with the residual from one fma: ≤ 1 ulp. Where the
                // residual is NaN (x = ±0, +∞, negative, NaN) y0 is already the answer.
                let (y0, h, res, half) = (
                    self.b.reg(Ty::F32),
                    self.b.reg(Ty::F32),
                    self.b.reg(Ty::F32),
                    self.b.reg(Ty::F32),
                );
                let (y1, finite) = (self.b.reg(Ty::F32), self.b.reg(Ty::Pred));
                let one = POp::F32(1.0);
                let a_half = POp::F32(0.5);
                self.emit(format!("rsqrt.approx.f32 {y0}, {x}"));
                self.emit(format!("mul.rn.f32 {h}, {x}, {y0}"));
                self.emit(format!("neg.f32 {h}, {h}"));
                self.emit(format!("fma.rn.f32 {res}, {h}, {y0}, {one}"));
                self.emit(format!("mul.rn.f32 {half}, {y0}, {a_half}"));
                self.emit(format!("fma.rn.f32 {y1}, {half}, {res}, {y0}"));
                self.emit(format!("setp.eq.f32 {finite}, {res}, {res}"));
                format!("selp.f32 {r}, {y1}, {y0}, {finite}")
            }
            (Unary::Rsqrt, _) => {
                self.emit(format!("sqrt.rn.f64 {r}, {x}"));
                format!("rcp.rn.f64 {r}, {r}")
            }
            (Unary::Exp2, _) => format!("ex2.approx.f32 {r}, {x}"),
            (Unary::Log2, _) => format!("lg2.approx.f32 {r}, {x}"),
        };
        self.emit(text);
        r
    }

    fn binary(&mut self, op: Binary, x: Reg, y: Reg, s: Scalar) -> Reg {
        let t = ty(s);
        let float = s.is_float();
        let (name, out, tyname) = match op {
            Binary::Add if float => ("add.rn", t, t.name().to_string()),
            Binary::Sub if float => ("sub.rn", t, t.name().to_string()),
            Binary::Mul if float => ("mul.rn", t, t.name().to_string()),
            Binary::Div if float => ("div.rn", t, t.name().to_string()),
            Binary::Add => ("add", t, t.name().to_string()),
            Binary::Sub => ("sub", t, t.name().to_string()),
            Binary::Mul => ("mul.lo", t, t.name().to_string()),
            Binary::MulHi => ("mul.hi", t, t.name().to_string()),
            Binary::MulWide => {
                let wide = if s == Scalar::U32 { Ty::U64 } else { Ty::S64 };
                ("mul.wide", wide, t.name().to_string())
            }
            Binary::Div => ("div", t, t.name().to_string()),
            Binary::Rem => ("rem", t, t.name().to_string()),
            Binary::Min => ("min", t, t.name().to_string()),
            Binary::Max => ("max", t, t.name().to_string()),
            Binary::And => ("and", t, bits(s).to_string()),
            Binary::Or => ("or", t, bits(s).to_string()),
            Binary::Xor => ("xor", t, bits(s).to_string()),
            Binary::Shl => ("shl", t, bits(s).to_string()),
            Binary::Shr => ("shr", t, t.name().to_string()),
        };
        let r = self.b.reg(out);
        self.emit(format!("{name}.{tyname} {r}, {x}, {y}"));
        r
    }

    fn compare(&mut self, c: Cmp, x: Reg, y: Reg, s: Scalar) -> Reg {
        let r = self.b.reg(Ty::Pred);
        if s == Scalar::Pred {
            self.emit(format!("xor.pred {r}, {x}, {y}"));
            if c == Cmp::Eq {
                self.emit(format!("not.pred {r}, {r}"));
            }
            return r;
        }
        let name = match c {
            Cmp::Eq => "eq",
            Cmp::Ne if s.is_float() => "neu",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        };
        self.emit(format!("setp.{name}.{} {r}, {x}, {y}", ty(s)));
        r
    }

    fn convert(&mut self, x: Reg, from: Scalar, to: Scalar, r: Rounding) -> Reg {
        let d = self.b.reg(ty(to));
        let (ft, tt) = (ty(from), ty(to));
        let mode = if to.is_float() && (!from.is_float() || to.bits() < from.bits()) {
            rounding(r, false)
        } else if from.is_float() && !to.is_float() {
            rounding(r, true)
        } else {
            String::new()
        };
        if from == to || (from.is_int() && to.is_int() && from.bits() == to.bits()) {
            self.emit(format!("mov.{} {d}, {x}", bits(to)));
        } else {
            self.emit(format!("cvt{mode}.{tt}.{ft} {d}, {x}"));
        }
        d
    }

    /// The same bits as type `t`, through 32-bit words (16-bit scalars directly).
    fn bitcast(&mut self, a: Value, t: Type) -> Vec<Reg> {
        let src = self.regs(a);
        if a.ty.bytes() == 2 {
            let r = self.b.reg(ty(t.scalar));
            self.emit(format!("mov.b16 {r}, {}", src[0]));
            return vec![r];
        }
        let mut words = Vec::new();
        for chunk in src.chunks(if a.ty.scalar.bits() == 16 { 2 } else { 1 }) {
            match chunk[0].ty().size() {
                2 => {
                    let w = self.b.reg(Ty::B32);
                    self.emit(format!("mov.b32 {w}, {{{}, {}}}", chunk[0], chunk[1]));
                    words.push(w);
                }
                4 => words.push(chunk[0]),
                _ => {
                    let (lo, hi) = (self.b.reg(Ty::B32), self.b.reg(Ty::B32));
                    self.emit(format!("mov.b64 {{{lo}, {hi}}}, {}", chunk[0]));
                    words.extend([lo, hi]);
                }
            }
        }
        let mut out = Vec::new();
        let mut w = words.into_iter();
        while out.len() < t.lanes as usize {
            match t.scalar.bits() {
                16 => {
                    let (h0, h1) = (self.b.reg(ty(t.scalar)), self.b.reg(ty(t.scalar)));
                    let word = w.next().expect("enough words");
                    self.emit(format!("mov.b32 {{{h0}, {h1}}}, {word}"));
                    out.extend([h0, h1]);
                }
                32 => {
                    let r = self.b.reg(ty(t.scalar));
                    let word = w.next().expect("enough words");
                    self.emit(format!("mov.b32 {r}, {word}"));
                    out.push(r);
                }
                _ => {
                    let r = self.b.reg(ty(t.scalar));
                    let (lo, hi) = (
                        w.next().expect("enough words"),
                        w.next().expect("enough words"),
                    );
                    self.emit(format!("mov.b64 {r}, {{{lo}, {hi}}}"));
                    out.push(r);
                }
            }
        }
        out
    }
}

/// The `bN` type of a register type's size.
fn bits_of(t: Ty) -> String {
    format!("b{}", t.size() * 8)
}

fn vec_suffix(n: u32) -> &'static str {
    match n {
        1 => "",
        2 => ".v2",
        _ => ".v4",
    }
}

fn reg_list(regs: &[Reg]) -> String {
    match regs {
        [r] => r.to_string(),
        _ => format!(
            "{{{}}}",
            regs.iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn offset(o: u32) -> String {
    if o == 0 {
        String::new()
    } else {
        format!("+{o}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::examples;

    #[test]
    fn vector_add_lowers_to_typed_ptx() {
        let k = examples::vector_add(&"sm_90".parse().unwrap()).unwrap();
        let text = lower(&k).unwrap();
        assert!(text.contains(".visible .entry vector_add("), "{text}");
        assert!(text.contains(".maxntid 256, 1, 1"), "{text}");
        assert!(text.contains("add.rn.f32"), "{text}");
        assert!(text.contains("mul.wide.u32"), "{text}");
        assert!(lower(&examples::vector_add(&"gfx90a".parse().unwrap()).unwrap()).is_err());
    }
}
