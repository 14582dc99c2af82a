//! The CPU interpreter of the language: the reference every lowering is compared with.
//!
//! Workgroups run one after another; inside one, every statement runs for all active
//! work-items before the next (lock step), with an active mask per work-item for
//! divergent `if`s and loops, waves of the target's wave size for wave operations,
//! shared memory per workgroup and global memory as the host byte buffers of the
//! arguments. Results are exact where the arithmetic is exact and correctly rounded
//! elsewhere (rsqrt of f64: within 1 ulp, from two roundings).
//!
//! What it reports as an error (`Error::KernelFault`, naming the kernel, the work-item
//! and the operation) instead of computing something: an access outside an argument's
//! buffer or a shared array, an address that breaks the alignment the access states
//! (buffers count as 256-byte aligned), a load from shared memory that another
//! work-item wrote since the last barrier (a missing barrier), a barrier or wave
//! operation reached by part of the workgroup or wave, integer division by zero, a shift
//! by the bit width or more, and a loop that runs past 2²⁴ iterations.

use super::ir::*;
use rocm_core::{Error, Result};

/// A kernel argument: a scalar's bits (zero-extended), or a global buffer.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Scalar(u64),
    Buffer(Vec<u8>),
}

impl Arg {
    pub fn u32(v: u32) -> Arg {
        Arg::Scalar(v as u64)
    }
    pub fn f32(v: f32) -> Arg {
        Arg::Scalar(v.to_bits() as u64)
    }
    pub fn f64(v: f64) -> Arg {
        Arg::Scalar(v.to_bits())
    }
    /// A buffer holding `values` (little endian).
    pub fn buffer<T: Element>(values: &[T]) -> Arg {
        Arg::Buffer(values.iter().flat_map(|v| v.le_bytes()).collect())
    }
    /// A buffer's contents as `T`s (empty for a scalar).
    pub fn values<T: Element>(&self) -> Vec<T> {
        match self {
            Arg::Buffer(b) => b.chunks_exact(T::BYTES).map(T::from_le).collect(),
            Arg::Scalar(_) => Vec::new(),
        }
    }
}

/// Element types of argument buffers.
pub trait Element: Copy {
    const BYTES: usize;
    fn le_bytes(self) -> Vec<u8>;
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn le_bytes(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("chunk of the element's size"))
            }
        }
    )*};
}
element!(u8, u16, u32, i32, u64, i64, f32, f64);

/// Runs `kernel` on a `grid` of workgroups of `workgroup` work-items, with `args` in
/// parameter order; buffers are updated in place.
pub fn run(
    kernel: &KernelDef,
    grid: [u32; 3],
    workgroup: [u32; 3],
    args: &mut [Arg],
) -> Result<()> {
    let what = format!("launch of kernel `{}`", kernel.name);
    if args.len() != kernel.signature.params.len() {
        return Err(Error::invalid(
            what,
            format!(
                "{} arguments for {} parameters",
                args.len(),
                kernel.signature.params.len()
            ),
        ));
    }
    for (p, a) in kernel.signature.params.iter().zip(args.iter()) {
        let ok = matches!(
            (p.ty, a),
            (ParamType::Scalar(_), Arg::Scalar(_)) | (ParamType::Pointer { .. }, Arg::Buffer(_))
        );
        if !ok {
            return Err(Error::invalid(
                what,
                format!("argument `{}` is of the wrong kind", p.name),
            ));
        }
    }
    let threads = workgroup.iter().map(|&d| d as u64).product::<u64>();
    if threads == 0 || threads > kernel.max_workgroup_size as u64 || grid.contains(&0) {
        return Err(Error::invalid(
            what,
            format!(
                "grid {grid:?} of workgroups {workgroup:?} (at most {} work-items)",
                kernel.max_workgroup_size
            ),
        ));
    }
    let n = threads as usize;
    let mut wg = Workgroup {
        k: kernel,
        args,
        n,
        dims: workgroup,
        grid,
        id: [0; 3],
        values: vec![[0; 4]; kernel.values.len() * n],
        vars: vec![[0; 4]; kernel.vars.len() * n],
        shared: Vec::new(),
        writer: Vec::new(),
        epoch: 0,
        broke: vec![false; n],
        cont: vec![false; n],
    };
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                wg.id = [x, y, z];
                wg.shared = vec![0; kernel.shared_bytes() as usize];
                wg.writer = vec![(u32::MAX, 0); kernel.shared_bytes() as usize];
                let mut active = vec![true; n];
                wg.block(&kernel.body, &mut active)?;
            }
        }
    }
    Ok(())
}

/// A lane's value: up to four scalars' bits, zero-extended.
type Lanes = [u64; 4];

struct Workgroup<'a> {
    k: &'a KernelDef,
    args: &'a mut [Arg],
    n: usize,
    dims: [u32; 3],
    grid: [u32; 3],
    id: [u32; 3],
    values: Vec<Lanes>,
    vars: Vec<Lanes>,
    shared: Vec<u8>,
    /// Per shared byte: the work-item that last wrote it and the barrier epoch.
    writer: Vec<(u32, u32)>,
    epoch: u32,
    /// Work-items that left the innermost loop / skipped to its latch.
    broke: Vec<bool>,
    cont: Vec<bool>,
}

const MAX_ITERATIONS: u64 = 1 << 24;

fn mask_of(s: Scalar) -> u64 {
    match s.bits() {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

/// Sign-extends the bits of a signed scalar to i64 (unsigned: as is).
fn sext(s: Scalar, v: u64) -> i64 {
    match s {
        Scalar::I32 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

impl Workgroup<'_> {
    fn fault(&self, lane: usize, what: impl Into<String>) -> Error {
        Error::KernelFault {
            kernel: self.k.name.clone(),
            pc: 0,
            lane: Some(lane as u32),
            address: None,
            what: what.into(),
        }
    }

    fn val(&self, v: Value, lane: usize) -> Lanes {
        self.values[v.id as usize * self.n + lane]
    }

    fn s(&self, v: Value, lane: usize) -> u64 {
        self.val(v, lane)[0]
    }

    fn block(&mut self, b: &Block, active: &mut [bool]) -> Result<()> {
        for stmt in &b.0 {
            if !active.iter().any(|&a| a) {
                return Ok(());
            }
            self.stmt(stmt, active)?;
        }
        Ok(())
    }

    fn lanes(active: &[bool]) -> impl Iterator<Item = usize> + '_ {
        active.iter().enumerate().filter(|a| *a.1).map(|a| a.0)
    }

    fn stmt(&mut self, stmt: &Stmt, active: &mut [bool]) -> Result<()> {
        match stmt {
            Stmt::Let(v, op) if op.is_wave_op() => self.wave_op(*v, op, active)?,
            Stmt::Let(v, op) => {
                for l in Self::lanes(active) {
                    let r = self.eval(op, *v, l)?;
                    self.values[v.id as usize * self.n + l] = r;
                }
            }
            Stmt::Var(var, v) | Stmt::Assign(var, v) => {
                for l in Self::lanes(active) {
                    self.vars[var.id as usize * self.n + l] = self.val(*v, l);
                }
            }
            Stmt::Store(m, v) => {
                for l in Self::lanes(active) {
                    let bytes = self.to_bytes(v.ty, self.val(*v, l), m.bytes);
                    let at = self.address(m, l)?;
                    self.memory(m.mem, at, m.bytes, l, Some(&bytes), false)?;
                }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let mut t: Vec<bool> = (0..self.n)
                    .map(|l| active[l] && self.s(*cond, l) != 0)
                    .collect();
                let mut e: Vec<bool> = (0..self.n)
                    .map(|l| active[l] && self.s(*cond, l) == 0)
                    .collect();
                self.block(then, &mut t)?;
                self.block(otherwise, &mut e)?;
                for (a, (b, c)) in active.iter_mut().zip(self.broke.iter().zip(&self.cont)) {
                    *a &= !(b | c);
                }
            }
            Stmt::Loop { body, latch } => {
                let broke = std::mem::replace(&mut self.broke, vec![false; self.n]);
                let cont = std::mem::replace(&mut self.cont, vec![false; self.n]);
                let mut running: Vec<bool> = active.to_vec();
                let mut iterations = 0u64;
                while running.iter().any(|&r| r) {
                    iterations += 1;
                    if iterations > MAX_ITERATIONS {
                        let l = running.iter().position(|&r| r).unwrap_or(0);
                        return Err(
                            self.fault(l, format!("a loop ran past {MAX_ITERATIONS} iterations"))
                        );
                    }
                    let mut m = running.clone();
                    self.block(body, &mut m)?;
                    self.cont.fill(false);
                    let mut m: Vec<bool> =
                        (0..self.n).map(|l| running[l] && !self.broke[l]).collect();
                    self.block(latch, &mut m)?;
                    for (r, b) in running.iter_mut().zip(&self.broke) {
                        *r &= !b;
                    }
                }
                self.broke = broke;
                self.cont = cont;
            }
            Stmt::Break(c) | Stmt::Continue(c) => {
                let is_break = matches!(stmt, Stmt::Break(_));
                for (l, a) in active.iter_mut().enumerate() {
                    if *a && self.values[c.id as usize * self.n + l][0] != 0 {
                        *a = false;
                        if is_break {
                            self.broke[l] = true;
                        } else {
                            self.cont[l] = true;
                        }
                    }
                }
            }
            Stmt::Barrier => {
                if let Some(l) = active.iter().position(|&a| !a) {
                    return Err(self.fault(
                        l,
                        "barrier reached by part of the workgroup (this work-item is not there)",
                    ));
                }
                self.epoch += 1;
            }
            Stmt::Fence(_) => {}
        }
        Ok(())
    }

    /// The byte address of an access in its memory (the offset; buffers and shared
    /// arrays start at 0), checked against the stated alignment.
    fn address(&self, m: &MemAccess, l: usize) -> Result<u64> {
        let at = self.s(m.offset, l);
        let base = match m.mem {
            Mem::Global(_) => 0,
            Mem::Shared(i) => self.k.shared_offsets()[i as usize].0 as u64,
        };
        if at % m.align as u64 != 0 {
            return Err(self.fault(
                l,
                format!(
                    "{:?} at byte offset {at} breaks its stated alignment {}",
                    m.mem, m.align
                ),
            ));
        }
        Ok(base + at)
    }

    /// Reads (`store` = None) or writes `bytes` bytes at `at` of `mem`.
    fn memory(
        &mut self,
        mem: Mem,
        at: u64,
        bytes: u32,
        l: usize,
        store: Option<&[u8]>,
        atomic: bool,
    ) -> Result<Vec<u8>> {
        let range = |len: usize, lo: u64| -> Option<std::ops::Range<usize>> {
            let end = at.checked_add(bytes as u64)?;
            (at >= lo && end <= lo + len as u64).then_some(at as usize..end as usize)
        };
        match mem {
            Mem::Global(p) => {
                let name = self.k.signature.params[p as usize].name.clone();
                let Arg::Buffer(buf) = &mut self.args[p as usize] else {
                    return Err(self.fault(l, format!("`{name}` is not a buffer")));
                };
                let Some(r) = range(buf.len(), 0) else {
                    let len = buf.len();
                    return Err(self.fault(
                        l,
                        format!("{bytes}-byte access at byte offset {at} of `{name}`, which has {len} bytes"),
                    ));
                };
                if let Some(data) = store {
                    buf[r.clone()].copy_from_slice(data);
                }
                Ok(buf[r].to_vec())
            }
            Mem::Shared(i) => {
                let (lo, len) = self.k.shared_offsets()[i as usize];
                let Some(r) = range(len as usize, lo as u64) else {
                    let name = &self.k.shared[i as usize].name;
                    return Err(self.fault(
                        l,
                        format!("{bytes}-byte access at byte {} of shared `{name}`, which has {len} bytes", at - lo as u64),
                    ));
                };
                match store {
                    // Atomics are coherent among work-items: neither checked nor
                    // recorded by the race check.
                    Some(data) if atomic => self.shared[r.clone()].copy_from_slice(data),
                    None if atomic => {}
                    Some(data) => {
                        self.shared[r.clone()].copy_from_slice(data);
                        self.writer[r.clone()].fill((l as u32, self.epoch));
                    }
                    None => {
                        for &(w, e) in &self.writer[r.clone()] {
                            if w != u32::MAX && w != l as u32 && e == self.epoch {
                                let name = &self.k.shared[i as usize].name;
                                return Err(self.fault(
                                    l,
                                    format!("reads shared `{name}` written by work-item {w} without a barrier between"),
                                ));
                            }
                        }
                    }
                }
                Ok(self.shared[r].to_vec())
            }
        }
    }

    fn to_bytes(&self, ty: Type, v: Lanes, bytes: u32) -> Vec<u8> {
        let es = ty.scalar.bytes() as usize;
        let mut out: Vec<u8> = (0..ty.lanes as usize)
            .flat_map(|i| v[i].to_le_bytes()[..es].to_vec())
            .collect();
        out.truncate(bytes as usize);
        out
    }

    fn from_bytes(ty: Type, b: &[u8]) -> Lanes {
        let mut v = [0u64; 4];
        if (b.len() as u32) < ty.bytes() {
            // A narrow load into a u32/i32: zero- or sign-extended.
            let mut raw = [0u8; 8];
            raw[..b.len()].copy_from_slice(b);
            let x = u64::from_le_bytes(raw);
            let bits = b.len() as u32 * 8;
            v[0] = if ty.scalar.is_signed() && x >> (bits - 1) & 1 == 1 {
                (x | !((1u64 << bits) - 1)) & 0xFFFF_FFFF
            } else {
                x
            };
            return v;
        }
        let es = ty.scalar.bytes() as usize;
        for (i, c) in b.chunks_exact(es).enumerate() {
            let mut raw = [0u8; 8];
            raw[..es].copy_from_slice(c);
            v[i] = u64::from_le_bytes(raw);
        }
        v
    }

    fn special(&self, s: Special, l: usize) -> u64 {
        let d = self.dims;
        let tid = [
            l as u32 % d[0],
            l as u32 / d[0] % d[1],
            l as u32 / (d[0] * d[1]),
        ];
        let axis = |a: Axis| a as usize;
        (match s {
            Special::ThreadId(a) => tid[axis(a)],
            Special::WorkgroupId(a) => self.id[axis(a)],
            Special::WorkgroupSize(a) => d[axis(a)],
            Special::GridSize(a) => self.grid[axis(a)],
            Special::LaneId => l as u32 % self.k.wave_size,
            Special::WaveId => l as u32 / self.k.wave_size,
            Special::WaveSize => self.k.wave_size,
        }) as u64
    }

    fn eval(&mut self, op: &Op, dst: Value, l: usize) -> Result<Lanes> {
        let one = |x: u64| [x, 0, 0, 0];
        let ty = dst.ty;
        Ok(match op {
            Op::Const(c) => one(*c),
            Op::Param(p) => match self.args[*p as usize] {
                Arg::Scalar(v) => one(v & mask_of(ty.scalar)),
                Arg::Buffer(_) => one(0),
            },
            Op::Special(s) => one(self.special(*s, l)),
            Op::Var(v) => self.vars[v.id as usize * self.n + l],
            Op::Unary(u, a) => {
                let a = self.val(*a, l);
                let mut r = [0; 4];
                for i in 0..ty.lanes as usize {
                    r[i] = unary(*u, ty.scalar, a[i]);
                }
                r
            }
            Op::Binary(b, x, y) => {
                let (xs, ys) = (self.val(*x, l), self.val(*y, l));
                let mut r = [0; 4];
                for i in 0..x.ty.lanes as usize {
                    r[i] = binary(*b, x.ty.scalar, xs[i], ys[i]).map_err(|e| self.fault(l, e))?;
                }
                r
            }
            Op::Fma(a, b, c) => {
                let (a, b, c) = (self.val(*a, l), self.val(*b, l), self.val(*c, l));
                let mut r = [0; 4];
                for i in 0..ty.lanes as usize {
                    r[i] = fma(ty.scalar, a[i], b[i], c[i]);
                }
                r
            }
            Op::Cmp(c, a, b) => one(compare(*c, a.ty.scalar, self.s(*a, l), self.s(*b, l)) as u64),
            Op::Select(c, a, b) => {
                if self.s(*c, l) != 0 {
                    self.val(*a, l)
                } else {
                    self.val(*b, l)
                }
            }
            Op::Convert(a, r) => one(convert(self.s(*a, l), a.ty.scalar, ty.scalar, *r)),
            Op::Bitcast(a) => {
                let bytes = self.to_bytes(a.ty, self.val(*a, l), a.ty.bytes());
                Self::from_bytes(ty, &bytes)
            }
            Op::Pack(vs) => {
                let mut r = [0; 4];
                for (i, v) in vs.iter().enumerate() {
                    r[i] = self.s(*v, l);
                }
                r
            }
            Op::Extract(v, i) => one(self.val(*v, l)[*i as usize]),
            Op::Load(m) => {
                let at = self.address(m, l)?;
                let b = self.memory(m.mem, at, m.bytes, l, None, false)?;
                Self::from_bytes(ty, &b)
            }
            Op::Atomic {
                op,
                mem,
                offset,
                value,
                compare,
            } => {
                let s = ty.scalar;
                let bytes = s.bytes();
                let access = MemAccess {
                    mem: *mem,
                    offset: *offset,
                    bytes,
                    align: bytes,
                    cache: Cache::Default,
                };
                let at = self.address(&access, l)?;
                let old = Self::from_bytes(ty, &self.memory(*mem, at, bytes, l, None, true)?)[0];
                let v = self.s(*value, l);
                let new = match op {
                    AtomicOp::Add => binary(Binary::Add, s, old, v),
                    AtomicOp::Min => binary(Binary::Min, s, old, v),
                    AtomicOp::Max => binary(Binary::Max, s, old, v),
                    AtomicOp::Exchange => Ok(v),
                    AtomicOp::CompareSwap => {
                        let c = compare.map_or(0, |c| self.s(c, l));
                        Ok(if old == c { v } else { old })
                    }
                }
                .map_err(|e| self.fault(l, e))?;
                let data = self.to_bytes(ty, one(new), bytes);
                self.memory(*mem, at, bytes, l, Some(&data), true)?;
                one(old)
            }
            _ => unreachable!("wave operations run per wave"),
        })
    }

    /// A wave operation: on each wave with an active lane, every lane of the wave must
    /// be active.
    fn wave_op(&mut self, dst: Value, op: &Op, active: &[bool]) -> Result<()> {
        let ws = self.k.wave_size as usize;
        for w in (0..self.n).step_by(ws) {
            let lanes = w..(w + ws).min(self.n);
            if !active[lanes.clone()].iter().any(|&a| a) {
                continue;
            }
            if lanes.len() < ws || active[lanes.clone()].iter().any(|&a| !a) {
                let l = lanes.clone().find(|&l| !active[l]).unwrap_or(w);
                return Err(self.fault(
                    l,
                    format!("wave operation {op:?} with inactive lanes in the wave"),
                ));
            }
            let src =
                |wg: &Self, v: Value| -> Vec<u64> { lanes.clone().map(|l| wg.s(v, l)).collect() };
            let out: Vec<u64> = match op {
                Op::Shuffle(v, from) => {
                    let x = src(self, *v);
                    let idx = match from {
                        Shuffle::Idx(i) => src(self, *i),
                        _ => vec![0; ws],
                    };
                    (0..ws)
                        .map(|i| {
                            let from = match from {
                                Shuffle::Idx(_) => Some(idx[i] as usize % ws),
                                Shuffle::Up(d) => i.checked_sub(*d as usize),
                                Shuffle::Down(d) => Some(i + *d as usize),
                                Shuffle::Xor(m) => Some(i ^ *m as usize),
                            };
                            x[from.filter(|&f| f < ws).unwrap_or(i)]
                        })
                        .collect()
                }
                Op::WaveReduce(r, v) => {
                    let mut x = src(self, *v);
                    let b = match r {
                        Reduce::Add => Binary::Add,
                        Reduce::Min => Binary::Min,
                        Reduce::Max => Binary::Max,
                    };
                    let mut m = ws / 2;
                    while m > 0 {
                        let y: Vec<u64> = (0..ws).map(|i| x[i ^ m]).collect();
                        for i in 0..ws {
                            x[i] = binary(b, v.ty.scalar, x[i], y[i])
                                .map_err(|e| self.fault(w + i, e))?;
                        }
                        m /= 2;
                    }
                    x
                }
                Op::Ballot(p) => {
                    let bits = src(self, *p)
                        .iter()
                        .enumerate()
                        .fold(0u64, |acc, (i, &b)| acc | (b & 1) << i);
                    vec![bits; ws]
                }
                Op::Any(p) => vec![src(self, *p).iter().any(|&b| b != 0) as u64; ws],
                Op::All(p) => vec![src(self, *p).iter().all(|&b| b != 0) as u64; ws],
                _ => unreachable!("not a wave operation"),
            };
            for (i, l) in lanes.enumerate() {
                self.values[dst.id as usize * self.n + l] = [out[i], 0, 0, 0];
            }
        }
        Ok(())
    }
}

fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

fn f64_of(s: Scalar, v: u64) -> f64 {
    match s {
        Scalar::F64 => f64::from_bits(v),
        Scalar::F32 => f32_of(v) as f64,
        Scalar::F16 => rocm_core::f16::from_bits(v as u16).to_f64(),
        Scalar::Bf16 => rocm_core::bf16::from_bits(v as u16).to_f64(),
        _ => sext(s, v) as f64,
    }
}

/// Applies a float operation in the type's own precision.
fn float2(
    s: Scalar,
    a: u64,
    b: u64,
    f32op: fn(f32, f32) -> f32,
    f64op: fn(f64, f64) -> f64,
) -> u64 {
    match s {
        Scalar::F32 => f32op(f32_of(a), f32_of(b)).to_bits() as u64,
        _ => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

fn unary(op: Unary, s: Scalar, a: u64) -> u64 {
    let m = mask_of(s);
    let sign = 1u64 << (s.bits() - 1);
    if !s.is_float() {
        return match op {
            Unary::Neg => a.wrapping_neg() & m,
            Unary::Abs if s.is_signed() => (sext(s, a).wrapping_abs() as u64) & m,
            Unary::Abs => a,
            Unary::Not if s == Scalar::Pred => (a == 0) as u64,
            _ => !a & m,
        };
    }
    let x = f64_of(s, a);
    let rounded = |v: f64| convert(v.to_bits(), Scalar::F64, s, Rounding::Nearest);
    match op {
        Unary::Neg => a ^ sign,
        Unary::Abs => a & !sign,
        Unary::Sqrt => float2(s, a, 0, |x, _| x.sqrt(), |x, _| x.sqrt()),
        Unary::Rcp => float2(s, a, 0, |x, _| 1.0 / x, |x, _| 1.0 / x),
        // f32: one rounding of a result accurate to f64 (exact but for rare double
        // rounding); f64: within 1 ulp.
        Unary::Rsqrt => rounded(1.0 / x.sqrt()),
        Unary::Exp2 => rounded(x.exp2()),
        Unary::Log2 => rounded(x.log2()),
        Unary::Not => !a & m,
    }
}

fn binary(op: Binary, s: Scalar, a: u64, b: u64) -> std::result::Result<u64, String> {
    let m = mask_of(s);
    if s.is_float() {
        let r = match op {
            Binary::Add => float2(s, a, b, |x, y| x + y, |x, y| x + y),
            Binary::Sub => float2(s, a, b, |x, y| x - y, |x, y| x - y),
            Binary::Mul => float2(s, a, b, |x, y| x * y, |x, y| x * y),
            Binary::Div => float2(s, a, b, |x, y| x / y, |x, y| x / y),
            Binary::Min | Binary::Max => {
                let (x, y) = (f64_of(s, a), f64_of(s, b));
                if x.is_nan() {
                    return Ok(b);
                }
                if y.is_nan() {
                    return Ok(a);
                }
                // −0 below +0: order by value, then by sign.
                let less = x < y || (x == y && x.is_sign_negative() && !y.is_sign_negative());
                if less == (op == Binary::Min) {
                    a
                } else {
                    b
                }
            }
            _ => return Err(format!("{} of floats", op.name())),
        };
        return Ok(r);
    }
    let (sa, sb) = (sext(s, a), sext(s, b));
    let bits = s.bits();
    Ok(match op {
        Binary::Add => a.wrapping_add(b) & m,
        Binary::Sub => a.wrapping_sub(b) & m,
        Binary::Mul => a.wrapping_mul(b) & m,
        Binary::MulHi => {
            let p = if s.is_signed() {
                (sa as i128 * sb as i128) >> bits
            } else {
                ((a as u128 * b as u128) >> bits) as i128
            };
            p as u64 & m
        }
        Binary::MulWide => {
            if s.is_signed() {
                (sa * sb) as u64
            } else {
                a * b
            }
        }
        Binary::Div | Binary::Rem => {
            if b == 0 {
                return Err(format!("integer {} by zero", op.name()));
            }
            let r = match (op, s.is_signed()) {
                (Binary::Div, true) => sa.wrapping_div(sb) as u64,
                (Binary::Div, false) => a / b,
                (_, true) => sa.wrapping_rem(sb) as u64,
                (_, false) => a % b,
            };
            r & m
        }
        Binary::Min | Binary::Max => {
            let less = if s.is_signed() { sa < sb } else { a < b };
            if less == (op == Binary::Min) {
                a
            } else {
                b
            }
        }
        Binary::And => a & b,
        Binary::Or => a | b,
        Binary::Xor => a ^ b,
        Binary::Shl | Binary::Shr => {
            if b >= bits as u64 {
                return Err(format!("{} by {b} bits of a {}-bit value", op.name(), bits));
            }
            match (op, s.is_signed()) {
                (Binary::Shl, _) => (a << b) & m,
                (_, true) => (sa >> b) as u64 & m,
                (_, false) => a >> b,
            }
        }
    })
}

fn fma(s: Scalar, a: u64, b: u64, c: u64) -> u64 {
    match s {
        Scalar::F32 => f32_of(a).mul_add(f32_of(b), f32_of(c)).to_bits() as u64,
        Scalar::F64 => f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits(),
        _ => a.wrapping_mul(b).wrapping_add(c) & mask_of(s),
    }
}

fn compare(c: Cmp, s: Scalar, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    let ord = if s.is_float() {
        f64_of(s, a).partial_cmp(&f64_of(s, b))
    } else if s.is_signed() {
        Some(sext(s, a).cmp(&sext(s, b)))
    } else {
        Some(a.cmp(&b))
    };
    match c {
        Cmp::Eq => ord == Some(Ordering::Equal),
        Cmp::Ne => ord != Some(Ordering::Equal),
        Cmp::Lt => ord == Some(Ordering::Less),
        Cmp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        Cmp::Gt => ord == Some(Ordering::Greater),
        Cmp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
    }
}

/// Mantissa and exponent bits of a float type.
fn format_of(s: Scalar) -> (u32, u32) {
    match s {
        Scalar::F16 => (10, 5),
        Scalar::Bf16 => (7, 8),
        Scalar::F32 => (23, 8),
        _ => (52, 11),
    }
}

/// Converts between scalars (see the module docs of [`super::ir`]).
pub fn convert(v: u64, from: Scalar, to: Scalar, r: Rounding) -> u64 {
    if !to.is_float() {
        if !from.is_float() {
            let x = if from.is_signed() {
                sext(from, v) as u64
            } else {
                v
            };
            return x & mask_of(to);
        }
        let x = f64_of(from, v);
        let x = match r {
            Rounding::Nearest => x.round_ties_even(),
            Rounding::Zero => x.trunc(),
            Rounding::Down => x.floor(),
            Rounding::Up => x.ceil(),
        };
        // `as` saturates and maps NaN to 0.
        return match to {
            Scalar::U32 => x as u32 as u64,
            Scalar::I32 => x as i32 as u32 as u64,
            Scalar::U64 => x as u64,
            _ => x as i64 as u64,
        };
    }
    // An exact value: sign, integer magnitude, binary exponent.
    let (neg, mag, exp) = if from.is_float() {
        let x = f64_of(from, v);
        if x.is_nan() {
            let (mant, e) = format_of(to);
            let sign = (x.is_sign_negative() as u64) << (mant + e);
            return sign | (((1u64 << e) - 1) << mant) | (1u64 << (mant - 1));
        }
        if x.is_infinite() || x == 0.0 {
            return float_from_parts(
                to,
                x.is_sign_negative(),
                if x == 0.0 { 0 } else { u128::MAX },
                0,
                r,
            );
        }
        let b = x.to_bits();
        let (e, m) = ((b >> 52 & 0x7FF) as i32, b & ((1 << 52) - 1));
        let (m, e) = if e == 0 {
            (m, -1074)
        } else {
            (m | 1 << 52, e - 1075)
        };
        (x < 0.0, m as u128, e)
    } else if from.is_signed() {
        let x = sext(from, v);
        (x < 0, x.unsigned_abs() as u128, 0)
    } else {
        (false, v as u128, 0)
    };
    float_from_parts(to, neg, mag, exp, r)
}

/// The float of type `to` nearest (by `r`) to ±mag·2^exp; `mag = u128::MAX` with
/// exp 0 stands for infinity.
fn float_from_parts(to: Scalar, neg: bool, mag: u128, exp: i32, r: Rounding) -> u64 {
    let (mant, ebits) = format_of(to);
    let sign = (neg as u64) << (mant + ebits);
    let inf = ((1u64 << ebits) - 1) << mant;
    if mag == 0 {
        return sign;
    }
    if mag == u128::MAX {
        return sign | inf;
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let top = 127 - mag.leading_zeros() as i32 + exp;
    let q = top.max(1 - bias) - mant as i32;
    let shift = q - exp;
    let mut n = if shift <= 0 {
        mag << (-shift) as u32
    } else if shift >= 128 {
        0
    } else {
        mag >> shift
    };
    let rem_nonzero_and_cmp_half = if shift <= 0 {
        None
    } else if shift >= 128 {
        Some(std::cmp::Ordering::Less)
    } else {
        let rem = mag & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        (rem != 0).then(|| rem.cmp(&half))
    };
    if let Some(c) = rem_nonzero_and_cmp_half {
        let up = match r {
            Rounding::Nearest => c.is_gt() || (c.is_eq() && n & 1 == 1),
            Rounding::Zero => false,
            Rounding::Up => !neg,
            Rounding::Down => neg,
        };
        n += up as u128;
    }
    let mut q = q;
    if n >> (mant + 1) != 0 {
        n >>= 1;
        q += 1;
    }
    let field = if n >> mant == 0 {
        0
    } else {
        (q + mant as i32 + bias) as u64
    };
    if field >= (1 << ebits) - 1 {
        let to_inf = match r {
            Rounding::Nearest => true,
            Rounding::Zero => false,
            Rounding::Up => !neg,
            Rounding::Down => neg,
        };
        return sign | if to_inf { inf } else { inf - 1 };
    }
    sign | field << mant | (n as u64 & ((1 << mant) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_by_mode() {
        let f = |x: f64| x.to_bits();
        // 1 + 2^-11 lies halfway between two f16 values: ties to even goes down.
        let h = convert(
            f(1.0 + 2f64.powi(-11)),
            Scalar::F64,
            Scalar::F16,
            Rounding::Nearest,
        );
        assert_eq!(h, 0x3C00);
        let h = convert(
            f(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
            Scalar::F64,
            Scalar::F16,
            Rounding::Nearest,
        );
        assert_eq!(
            h, 0x3C01,
            "just above the tie rounds up (half's from_f64 would not)"
        );
        assert_eq!(
            convert(f(1.0 + 1e-9), Scalar::F64, Scalar::F32, Rounding::Up),
            0x3F80_0001
        );
        assert_eq!(
            convert(f(-1.0 - 1e-9), Scalar::F64, Scalar::F32, Rounding::Zero),
            0xBF80_0000
        );
        assert_eq!(
            convert(f(1e300), Scalar::F64, Scalar::F32, Rounding::Zero),
            0x7F7F_FFFF
        );
        assert_eq!(
            convert(f(1e300), Scalar::F64, Scalar::F32, Rounding::Nearest),
            0x7F80_0000
        );
        // Subnormal f16: 2^-24 is the smallest.
        assert_eq!(
            convert(
                f(2f64.powi(-24)),
                Scalar::F64,
                Scalar::F16,
                Rounding::Nearest
            ),
            1
        );
        assert_eq!(
            convert(f(2f64.powi(-26)), Scalar::F64, Scalar::F16, Rounding::Up),
            1
        );
        // Ints: u64::MAX to f32 rounds to 2^64; down gives the float below.
        assert_eq!(
            convert(u64::MAX, Scalar::U64, Scalar::F32, Rounding::Nearest),
            0x5F80_0000
        );
        assert_eq!(
            convert(u64::MAX, Scalar::U64, Scalar::F32, Rounding::Down),
            0x5F7F_FFFF
        );
        assert_eq!(
            convert(
                -3i32 as u32 as u64,
                Scalar::I32,
                Scalar::F64,
                Rounding::Nearest
            ),
            f(-3.0)
        );
        // Float to int: rounding, saturation, NaN.
        assert_eq!(
            convert(f(2.5), Scalar::F64, Scalar::I32, Rounding::Nearest),
            2
        );
        assert_eq!(
            convert(f(-2.5), Scalar::F64, Scalar::I32, Rounding::Down),
            -3i32 as u32 as u64
        );
        assert_eq!(
            convert(f(1e20), Scalar::F64, Scalar::U32, Rounding::Zero),
            u32::MAX as u64
        );
        assert_eq!(
            convert(f(f64::NAN), Scalar::F64, Scalar::I32, Rounding::Zero),
            0
        );
        assert_eq!(
            convert(0xFFFF_FFFF, Scalar::I32, Scalar::I64, Rounding::Nearest),
            u64::MAX
        );
    }

    #[test]
    fn float_min_max_follow_the_documented_rules() {
        let (nan, one, pz, nz) = (
            f32::NAN.to_bits() as u64,
            1f32.to_bits() as u64,
            0u64,
            0x8000_0000u64,
        );
        assert_eq!(binary(Binary::Min, Scalar::F32, nan, one), Ok(one));
        assert_eq!(binary(Binary::Max, Scalar::F32, one, nan), Ok(one));
        assert_eq!(binary(Binary::Min, Scalar::F32, pz, nz), Ok(nz));
        assert_eq!(binary(Binary::Max, Scalar::F32, nz, pz), Ok(pz));
        assert!(binary(Binary::Div, Scalar::U32, 1, 0).is_err());
        assert!(binary(Binary::Shl, Scalar::U32, 1, 32).is_err());
        assert_eq!(
            binary(Binary::Shr, Scalar::I32, 0x8000_0000, 4),
            Ok(0xF800_0000)
        );
        assert_eq!(
            binary(Binary::MulHi, Scalar::I32, -2i32 as u32 as u64, 3),
            Ok(0xFFFF_FFFF)
        );
        assert!(compare(Cmp::Ne, Scalar::F32, nan, nan));
        assert!(compare(Cmp::Lt, Scalar::I32, 0xFFFF_FFFF, 0));
    }
}
