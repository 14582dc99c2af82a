//! Level 1 on GPUs through `rocm_kernels::level1`: PTX kernels on CUDA devices, AMDGPU
//! code objects on HIP and emulated devices.
//!
//! The host picks the kernel variant (catalog, then fallback), adapts it to the views
//! (alignment), fills the kernel's arguments from the call, launches, and for reductions
//! launches the final pass ([`rocm_kernels::level1::finish`]) that combines the
//! per-workgroup partials on the device into the result: in device pointer mode
//! straight into the caller's buffer, in host mode into the workspace, whence one
//! element is downloaded. Where a target has no final pass (AMDGPU nrm2 today) the host
//! downloads the partials and combines them in the same order ([`combine`]).
//!
//! The two kernel families take their arguments in different orders and encodings. Each
//! family is a row of [`CONVENTIONS`]: a list of argument [`Slot`]s filled from the call
//! (slots the call has no value for — y of a one-vector op, partials of an elementwise
//! op, increments of an AMDGPU contiguous kernel — are left out), plus how the family
//! receives scalars, where its reduction grid comes from, and its addressing limits:
//!
//! | family | arguments |
//! |---|---|
//! | PTX | `n: u64, x: u64, incx: i64, [y: u64, incy: i64], scalars, [partials: u64]` |
//! | AMDGPU | `x: u64, [y: u64], n: u32, groups: u32, [incx: i32, incy: i32], scalars, [partials: u64]` |
//!
//! - PTX vectors are the address of *logical* element 0 (the far end for a negative
//!   increment: the kernel then walks downwards); AMDGPU vectors are the *lowest* address
//!   of the vector (the kernel finds the far end itself).
//! - Scalars are reals in a fixed order per op (α then β, complex as re then im; rot: c
//!   then s; rotm: h11, h21, h12, h22; f16/bf16 ops take α, β as f32). PTX passes each as
//!   a parameter of its own type; AMDGPU as `u32` words (f32 bits; f64 low word, then
//!   high word). axpby with β = 0 (y not read): PTX declares α only, AMDGPU α and β (the
//!   host passes β = 0).
//! - A PTX reduction's grid is compiled into the kernel (`Level1Params::grid` is its loop
//!   step and the stride of its partials), so a smaller grid means another variant: the
//!   host asks for min(catalog grid, workgroups covering n) rounded up to a power of two,
//!   which bounds the variants to a dozen. AMDGPU kernels read their grid from `groups`,
//!   so any grid runs the same code: the host launches min(catalog grid, workgroups
//!   covering n). Either way the partials written are exactly `slots × grid` f64s
//!   (structure of arrays, `grid` per slot), all of which the final pass combines in
//!   its fixed order: the result is the same run to run and in either pointer mode.
//! - AMDGPU kernels address with 32-bit byte offsets, so a vector may span less than
//!   2³² bytes (n·|inc|·size) with |inc| < 2³¹; their contiguous kernels load 16-byte
//!   vectors, so a view that is not 16-byte aligned runs the strided kernel (at
//!   increment one). PTX kernels narrow their vector width to the views' alignment
//!   instead. Each vector is aligned to its own access width: for a conversion PTX's `vector_bytes` is
//!   x's (y's accesses cover as many elements, at most that wide), AMDGPU's the wider
//!   side's (the narrower side moves proportionally fewer bytes).

use crate::Blas;
use rocm_core::target::Family;
use rocm_core::{
    BufferSliceMut, DType, Device, Element, Error, KernelArgs, LaunchConfig, Result, Target,
};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::generator::{self, Generator};
use rocm_kernels::level1::finish::{
    finish_index, finish_sum, Finish, FinishParams, FINISH_KERNEL, FINISH_LANES,
};
use rocm_kernels::level1::{self as gen, L1Op, Level1, Level1Params};

/// A vector argument: where its stored elements start, its increment and element type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vector {
    /// The argument's name, for error messages (`x`, `y`).
    pub name: &'static str,
    /// Device address of the first stored element of the view (the lowest address).
    pub address: u64,
    pub inc: isize,
    pub dtype: DType,
}

impl Vector {
    fn esize(&self) -> u64 {
        self.dtype.size() as u64
    }

    /// Bytes from the lowest to one past the highest element of an `n`-vector.
    fn span_bytes(&self, n: usize) -> u128 {
        n as u128 * self.inc.unsigned_abs() as u128 * self.esize() as u128
    }

    /// Address of logical element 0: BLAS walks negative increments from the far end.
    fn logical_start(&self, n: usize) -> u64 {
        if self.inc >= 0 || n == 0 {
            self.address
        } else {
            self.address + (n as u64 - 1) * self.inc.unsigned_abs() as u64 * self.esize()
        }
    }
}

/// A real scalar argument of a kernel, in the precision the kernel computes in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ScalarArg {
    F32(f32),
    F64(f64),
}

/// One kernel argument, as a family orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// n as u64 / u32.
    N64,
    N32,
    /// The launched grid, as u32.
    Groups,
    /// A vector's address: logical element 0, or the lowest address.
    XLogical,
    YLogical,
    XLowest,
    YLowest,
    /// Increments as i64 (always passed) or i32 (strided kernels only).
    IncX64,
    IncY64,
    IncX32,
    IncY32,
    /// The op's scalars in order, encoded per [`ScalarWords`].
    Scalars,
    /// Device address of the reduction partials (reductions only).
    Partials,
}

/// How a family receives a real scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarWords {
    /// One parameter of the real's own type (f32 or f64).
    Native,
    /// `u32` words: f32 bits, or the f64's low then high word.
    U32,
}

/// Where a reduction's grid comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GridSource {
    /// Compiled in (`Level1Params::grid`): a different grid is a different variant.
    Params,
    /// The `groups` argument: any launched grid runs the same code.
    Argument,
}

/// What `Level1Params::vector_bytes` measures when x and y differ in element size (a
/// conversion); each vector must be aligned to its own access width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VectorWidth {
    /// x's loads; y's accesses cover as many elements, split to at most that width.
    OfX,
    /// The wider side's accesses; the narrower side's cover as many elements.
    OfWider,
}

/// One kernel family's argument convention and limits.
#[derive(Debug)]
struct Convention {
    name: &'static str,
    slots: &'static [Slot],
    scalars: ScalarWords,
    grid: GridSource,
    /// The largest byte span of one vector plus one, and the largest |inc| plus one.
    max_span_bytes: Option<u128>,
    max_inc: Option<u128>,
    /// Contiguous kernels with a fixed vector width: unaligned views run strided.
    fixed_vector: bool,
    /// Whether axpby's β = 0 variant (y not read) still declares β (passed as 0).
    beta_without_y: bool,
    vector_width: VectorWidth,
}

const PTX: Convention = Convention {
    name: "PTX",
    slots: &[
        Slot::N64,
        Slot::XLogical,
        Slot::IncX64,
        Slot::YLogical,
        Slot::IncY64,
        Slot::Scalars,
        Slot::Partials,
    ],
    scalars: ScalarWords::Native,
    grid: GridSource::Params,
    max_span_bytes: None,
    max_inc: None,
    fixed_vector: false,
    beta_without_y: false,
    vector_width: VectorWidth::OfX,
};

const AMDGPU: Convention = Convention {
    name: "AMDGPU",
    slots: &[
        Slot::XLowest,
        Slot::YLowest,
        Slot::N32,
        Slot::Groups,
        Slot::IncX32,
        Slot::IncY32,
        Slot::Scalars,
        Slot::Partials,
    ],
    scalars: ScalarWords::U32,
    grid: GridSource::Argument,
    max_span_bytes: Some(1 << 32),
    max_inc: Some(1 << 31),
    fixed_vector: true,
    beta_without_y: true,
    vector_width: VectorWidth::OfWider,
};

/// The conventions by target family.
const CONVENTIONS: &[(Family, &Convention)] = &[
    (Family::Nvidia, &PTX),
    (Family::Cdna, &AMDGPU),
    (Family::Rdna3, &AMDGPU),
    (Family::Rdna4, &AMDGPU),
];

fn convention(blas: &Blas, routine: &str) -> Result<&'static Convention> {
    let family = blas.device().target().family();
    CONVENTIONS
        .iter()
        .find(|(f, _)| *f == family)
        .map(|(_, c)| *c)
        .ok_or_else(|| blas.unsupported(routine))
}

/// One launch, independent of the convention.
struct Call<'a> {
    op: L1Op,
    dtype: DType,
    n: usize,
    x: Vector,
    y: Option<Vector>,
    /// Whether the kernel is the strided variant (AMDGPU passes increments only then).
    strided: bool,
    scalars: &'a [ScalarArg],
    partials: Option<u64>,
    groups: u32,
}

impl Convention {
    /// The kernel arguments of `call`, slot by slot.
    fn args(&self, dev: &Device, call: &Call<'_>) -> KernelArgs {
        self.args_by_slot(dev, call).0
    }

    /// The kernel arguments of `call` and the slot each parameter came from.
    fn args_by_slot(&self, dev: &Device, call: &Call<'_>) -> (KernelArgs, Vec<Slot>) {
        let mut args = KernelArgs::new();
        let mut from = Vec::new();
        let n = call.n;
        for slot in self.slots {
            match (*slot, call.y) {
                (Slot::N64, _) => {
                    args.push(n as u64);
                }
                (Slot::N32, _) => {
                    args.push(n as u32);
                }
                (Slot::Groups, _) => {
                    args.push(call.groups);
                }
                (Slot::XLogical, _) => {
                    args.push_pointer(call.x.logical_start(n), dev);
                }
                (Slot::YLogical, Some(y)) => {
                    args.push_pointer(y.logical_start(n), dev);
                }
                (Slot::XLowest, _) => {
                    args.push_pointer(call.x.address, dev);
                }
                (Slot::YLowest, Some(y)) => {
                    args.push_pointer(y.address, dev);
                }
                (Slot::IncX64, _) => {
                    args.push(call.x.inc as i64);
                }
                (Slot::IncY64, Some(y)) => {
                    args.push(y.inc as i64);
                }
                (Slot::IncX32, _) if call.strided => {
                    args.push(call.x.inc as i32);
                }
                (Slot::IncY32, Some(y)) if call.strided => {
                    args.push(y.inc as i32);
                }
                (Slot::Scalars, _) => {
                    let declared = self.scalars_declared(call.op, call.dtype);
                    for s in call.scalars.iter().take(declared) {
                        self.push_scalar(&mut args, *s);
                    }
                }
                (Slot::Partials, _) => {
                    if let Some(p) = call.partials {
                        args.push_pointer(p, dev);
                    }
                }
                // y slots of one-vector ops, increments of contiguous AMDGPU kernels.
                _ => {}
            }
            from.resize(args.slots().len(), *slot);
        }
        (args, from)
    }

    /// How many of the op's scalars ([`scalar_count`]) the family's kernel declares.
    fn scalars_declared(&self, op: L1Op, dtype: DType) -> usize {
        let all = scalar_count(op, dtype);
        match op {
            L1Op::Axpby { read_y: false } if !self.beta_without_y => all / 2,
            _ => all,
        }
    }

    fn push_scalar(&self, args: &mut KernelArgs, s: ScalarArg) {
        match (self.scalars, s) {
            (ScalarWords::Native, ScalarArg::F32(v)) => args.push(v),
            (ScalarWords::Native, ScalarArg::F64(v)) => args.push(v),
            (ScalarWords::U32, ScalarArg::F32(v)) => args.push(v.to_bits()),
            (ScalarWords::U32, ScalarArg::F64(v)) => {
                let b = v.to_bits();
                args.push(b as u32).push((b >> 32) as u32)
            }
        };
    }

    /// Rejects vectors the family cannot address.
    fn check_limits(&self, blas: &Blas, routine: &str, n: usize, vectors: &[Vector]) -> Result<()> {
        for v in vectors {
            let inc = v.inc.unsigned_abs() as u128;
            let span = v.span_bytes(n);
            let too_far = self.max_span_bytes.is_some_and(|m| span >= m);
            let too_wide = self.max_inc.is_some_and(|m| inc >= m);
            if too_far || too_wide {
                return Err(Error::unsupported(
                    format!(
                        "blas {routine} with {} spanning {span} bytes (n = {n}, inc{} = {}): \
                         the {} kernels address with 32-bit byte offsets (span < 2^32, \
                         |inc| < 2^31)",
                        v.name, v.name, v.inc, self.name
                    ),
                    blas.device(),
                ));
            }
        }
        Ok(())
    }

    /// The variant for the views: the catalog's choice, adapted to their alignment.
    fn params(
        &self,
        target: &Target,
        op: L1Op,
        dtype: DType,
        n: usize,
        vectors: &[Vector],
    ) -> Level1Params {
        let select = |contiguous: bool| {
            Catalog::for_target(target).select(
                Level1::NAME,
                &Level1Params::key(op, dtype, contiguous),
                n as u64,
                Level1Params::fallback(op, dtype, contiguous),
            )
        };
        let contiguous = vectors.iter().all(|v| v.inc == 1);
        let mut p = select(contiguous);
        if !contiguous {
            return p;
        }
        // Each vector's alignment for `bytes`-wide vectors (a conversion's two sides
        // differ in element size: see `VectorWidth`).
        let widest = vectors.iter().map(Vector::esize).max().unwrap_or(1);
        let aligned = |bytes: u32| {
            vectors.iter().all(|v| {
                let bytes = bytes as u64;
                let own = match self.vector_width {
                    VectorWidth::OfX => bytes.min(bytes * v.esize() / dtype.size() as u64),
                    VectorWidth::OfWider => bytes * v.esize() / widest,
                };
                own == 0 || v.address % own == 0
            })
        };
        if self.fixed_vector {
            if aligned(p.vector_bytes) {
                p
            } else {
                select(false)
            }
        } else {
            // The widest vector every view is aligned to, and never below one element.
            let esize = dtype.size() as u32;
            while p.vector_bytes > esize && !aligned(p.vector_bytes) {
                p.vector_bytes /= 2;
            }
            p.vector_bytes = p.vector_bytes.max(esize);
            p
        }
    }
}

/// How many real scalars the host passes for `op` on `dtype`, in the order the module
/// doc states: α and β of the element type (β = 0 when y is not read: a family may
/// leave it undeclared, see [`Convention::scalars_declared`]), rot's real c and element-type s,
/// rotm's four reals; f16/bf16 scalars are one f32 each.
pub(crate) fn scalar_count(op: L1Op, dtype: DType) -> usize {
    let element = if dtype.is_complex() { 2 } else { 1 };
    match op {
        L1Op::Scal | L1Op::Fill => element,
        L1Op::Axpby { .. } => 2 * element,
        L1Op::Rot => 1 + element,
        L1Op::Rotm => 4,
        L1Op::Copy
        | L1Op::Swap
        | L1Op::Convert { .. }
        | L1Op::Dot { .. }
        | L1Op::Sum
        | L1Op::Asum
        | L1Op::Nrm2
        | L1Op::Iamax { .. } => 0,
    }
}

/// Work units (vectors when contiguous, elements when strided) of `n` elements.
fn units(p: &Level1Params, n: usize) -> u64 {
    let esize = p.dtype.size() as u64;
    if p.contiguous {
        let per_unit = (p.vector_bytes as u64 / esize).max(1);
        (n as u64).div_ceil(per_unit)
    } else {
        n as u64
    }
}

/// Workgroups whose one tile each (block × unroll units) covers `n`; at least one.
fn covering_groups(p: &Level1Params, n: usize) -> u64 {
    let tile = p.block as u64 * p.unroll as u64;
    units(p, n).div_ceil(tile.max(1)).max(1)
}

/// Generates (once) and launches `p` with `args_of(groups)`; returns the grid launched.
fn launch(
    blas: &Blas,
    routine: &str,
    conv: &Convention,
    p: &Level1Params,
    n: usize,
    args_of: impl FnOnce(u32) -> KernelArgs,
) -> Result<u32> {
    let loaded = generator::load::<Level1>(blas.device(), p).map_err(|e| match e {
        Error::Unsupported { op, .. } => {
            Error::unsupported(format!("blas {routine} (no kernel: {op})"), blas.device())
        }
        other => other,
    })?;
    let name = loaded
        .program
        .kernels
        .first()
        .map_or(gen::KERNEL, |k| k.as_str());
    let kernel = loaded.module.kernel(name)?;
    let cfg = if p.op.is_reduction() {
        match conv.grid {
            // The variant was generated for exactly this grid.
            GridSource::Params => LaunchConfig::linear(p.grid.max(1), p.block),
            GridSource::Argument => {
                let g = covering_groups(p, n).min(p.grid.max(1) as u64) as u32;
                LaunchConfig::linear(g, p.block)
            }
        }
    } else {
        loaded.program.launch.config(units(p, n))
    };
    let args = args_of(cfg.grid[0]);
    // SAFETY: the caller checked that every vector holds `n` elements at its increment
    // and the family's addressing limits; the kernel touches exactly those (predicated
    // on n, looping over the grid passed or compiled in), the partials buffer holds
    // `slots × grid` f64s, and the views stay borrowed until the call returns, after
    // which the stream is synchronised before any result is read.
    unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
    Ok(cfg.grid[0])
}

/// scal, axpby (axpy), copy, swap, fill, rot, rotm, convert.
#[allow(clippy::too_many_arguments)]
pub(crate) fn elementwise(
    blas: &Blas,
    routine: &str,
    op: L1Op,
    dtype: DType,
    n: usize,
    x: Vector,
    y: Option<Vector>,
    scalars: &[ScalarArg],
) -> Result<()> {
    if scalars.len() != scalar_count(op, dtype) {
        return Err(Error::invalid(
            "scalars",
            format!(
                "{op:?} on {dtype} takes {} reals, got {}",
                scalar_count(op, dtype),
                scalars.len()
            ),
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let conv = convention(blas, routine)?;
    let vectors: Vec<Vector> = std::iter::once(x).chain(y).collect();
    conv.check_limits(blas, routine, n, &vectors)?;
    let p = conv.params(blas.device().target(), op, dtype, n, &vectors);
    launch(blas, routine, conv, &p, n, |groups| {
        conv.args(
            blas.device(),
            &Call {
                op,
                dtype,
                n,
                x,
                y,
                strided: !p.contiguous,
                scalars,
                partials: None,
                groups,
            },
        )
    })?;
    Ok(())
}

/// The result of a reduction combined on the host (where a target has no finish
/// program), before its rounding to the result type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reduced {
    Sum(f64, f64),
    Nrm2(f64),
    /// 0-based index, or None when no element qualified (all NaN).
    Index(Option<u64>),
    /// n = 0: 0, or index 0.
    Zero,
}

impl Reduced {
    /// The result as `R` (`out` its dtype), rounded as the finish programs round: `as`
    /// from f64 (nearest even), the 1-based index as i64 (1 when none qualified).
    fn encode<R: Element>(self, out: DType) -> Result<R> {
        let mut bytes = Vec::with_capacity(16);
        let real = |v: f64, bytes: &mut Vec<u8>| match out {
            DType::F32 | DType::C32 => bytes.extend((v as f32).to_le_bytes()),
            _ => bytes.extend(v.to_le_bytes()),
        };
        match self {
            Reduced::Sum(re, im) => {
                real(re, &mut bytes);
                if out.is_complex() {
                    real(im, &mut bytes);
                }
            }
            Reduced::Nrm2(v) => real(v, &mut bytes),
            Reduced::Index(i) => bytes.extend(i.map_or(1i64, |i| i as i64 + 1).to_le_bytes()),
            Reduced::Zero => bytes.resize(std::mem::size_of::<R>(), 0),
        }
        if R::DTYPE != out {
            return Err(Error::invalid(
                "result",
                format!("a {out} result cannot be stored as {}", R::DTYPE),
            ));
        }
        element_from_bytes(&bytes)
    }
}

/// The `R` whose little-endian bytes are `bytes` (exactly `size_of::<R>()` of them).
fn element_from_bytes<R: Element>(bytes: &[u8]) -> Result<R> {
    if bytes.len() != std::mem::size_of::<R>() {
        return Err(Error::invalid(
            "result",
            format!("{} bytes are no {}", bytes.len(), R::DTYPE),
        ));
    }
    // SAFETY: `Element` types are plain old data (`bytemuck::Pod`): every bit pattern
    // of their size is a value, and `bytes` holds exactly that many (read unaligned).
    Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<R>()) })
}

/// Where a reduction's result goes.
pub(crate) enum Dest<'a, 'b, R: Element> {
    /// Returned to the host (the call waits for it).
    Host(&'a mut R),
    /// Element 0 of a device buffer: the call only enqueues (device pointer mode).
    Device(&'a mut BufferSliceMut<'b, R>),
}

/// dot, dotc, sum, asum, nrm2, iamax, iamin: the first pass writes `slots × grid`
/// partials to the handle's workspace, then the finish program
/// ([`rocm_kernels::level1::finish`]) combines them on the device into the result
/// (`R`, of dtype `out`) at `dest`, or into the workspace's tail, from which the host
/// downloads that one element. n = 0 runs the finish alone (`grid = 0`: the result is
/// 0). A target without a finish program downloads the partials and combines them in
/// the same order on the host ([`combine`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_into<R: Element>(
    blas: &Blas,
    routine: &str,
    op: L1Op,
    dtype: DType,
    n: usize,
    x: Vector,
    y: Option<Vector>,
    dest: Dest<'_, '_, R>,
) -> Result<()> {
    if !op.is_reduction() {
        return Err(Error::invalid("op", format!("{op:?} is not a reduction")));
    }
    let fin = FinishParams {
        op,
        dtype,
        out: R::DTYPE,
    };
    fin.validate()?;
    if let Dest::Device(r) = &dest {
        blas.check_device("result", r.device())?;
        if r.is_empty() {
            return Err(Error::invalid("result", "the result buffer is empty"));
        }
    }
    let conv = convention(blas, routine)?;
    let vectors: Vec<Vector> = std::iter::once(x).chain(y).collect();
    conv.check_limits(blas, routine, n, &vectors)?;
    let mut p = conv.params(blas.device().target(), op, dtype, n, &vectors);
    if conv.grid == GridSource::Params {
        let covering = covering_groups(&p, n).next_power_of_two();
        p.grid = (p.grid as u64).min(covering).max(1) as u32;
    }
    let finish = match generator::load::<Finish>(blas.device(), &fin) {
        Ok(l) => Some(l),
        Err(Error::Unsupported { .. }) => None,
        Err(e) => return Err(e),
    };
    let slots = fin.slots();
    // At most this many workgroups are launched (the AMDGPU grid may be fewer); two
    // more f64s hold a result on its way to the host.
    let most = if n == 0 { 0 } else { p.grid.max(1) as usize };
    let tail = slots * most;
    blas.with_workspace(tail + 2, |work| {
        let partials = work.address();
        let grid = if n == 0 {
            0
        } else {
            launch(blas, routine, conv, &p, n, |groups| {
                conv.args(
                    blas.device(),
                    &Call {
                        op,
                        dtype,
                        n,
                        x,
                        y,
                        strided: !p.contiguous,
                        scalars: &[],
                        partials: Some(partials),
                        groups,
                    },
                )
            })? as usize
        };
        let Some(finish) = finish else {
            // No finish program: combine on the host, upload for device mode.
            let mut host = vec![0.0f64; slots * grid];
            if grid > 0 {
                work.slice(..slots * grid)?
                    .download_on(blas.stream(), &mut host)?;
            }
            let value: R = combine(op, &host, grid, n).encode(R::DTYPE)?;
            return match dest {
                Dest::Host(r) => {
                    *r = value;
                    Ok(())
                }
                Dest::Device(r) => r.slice_mut(..1)?.upload_on(blas.stream(), &[value]),
            };
        };
        let result = match &dest {
            Dest::Device(r) => r.address(),
            Dest::Host(_) => partials + (tail * 8) as u64,
        };
        let name = finish
            .program
            .kernels
            .first()
            .map_or(FINISH_KERNEL, |k| k.as_str());
        let kernel = finish.module.kernel(name)?;
        let mut args = KernelArgs::new();
        args.push_pointer(partials, blas.device())
            .push_pointer(result, blas.device())
            .push(grid as u32);
        let cfg = LaunchConfig::linear(1, FINISH_LANES);
        // SAFETY: the first pass (ordered before on this stream) wrote `slots × grid`
        // f64s at `partials`; the finish reads exactly those and writes one `R` at
        // `result`: element 0 of a non-empty device view of R, or the workspace's two
        // spare f64s (16 bytes, at least size_of::<R>()). The workspace is held by this
        // call and is reused only by later work on the same stream.
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        if let Dest::Host(r) = dest {
            let mut words = [0.0f64; 2];
            work.slice(tail..tail + 2)?
                .download_on(blas.stream(), &mut words)?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            *r = element_from_bytes(&bytes[..std::mem::size_of::<R>()])?;
        }
        Ok(())
    })
}

/// Combines `grid` partials per slot (structure of arrays) in the finish programs'
/// order ([`finish_sum`], [`finish_index`]); n = 0 gives 0.
fn combine(op: L1Op, host: &[f64], grid: usize, n: usize) -> Reduced {
    let slot = |s: usize| host.get(s * grid..(s + 1) * grid).unwrap_or(&[]);
    let total = |s: usize| finish_sum(slot(s));
    match op {
        _ if n == 0 => Reduced::Zero,
        L1Op::Iamax { max } => Reduced::Index(finish_index(slot(0), slot(1), max)),
        L1Op::Nrm2 => Reduced::Nrm2(gen::blue_finish(total(0), total(1), total(2))),
        // Dot, Sum, Asum: slot 0 the real part, slot 1 (complex only) the imaginary.
        _ => Reduced::Sum(total(0), total(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocm_core::isa::amdgpu::IsaTarget;
    use rocm_core::ModuleImage;

    /// The ops and dtypes whose kernels exist on some family (the rest are skipped by
    /// the generators' `Unsupported`).
    fn variants() -> Vec<Level1Params> {
        let mut ops: Vec<L1Op> = gen::ALL_OPS.to_vec();
        ops.extend([L1Op::Fill, L1Op::Rot, L1Op::Rotm]);
        let dtypes = [
            DType::F32,
            DType::F64,
            DType::C32,
            DType::C64,
            DType::F16,
            DType::Bf16,
        ];
        let mut out = Vec::new();
        for contiguous in [true, false] {
            for op in &ops {
                for dtype in dtypes {
                    out.push(Level1Params::fallback(*op, dtype, contiguous));
                }
            }
            for (from, to) in [
                (DType::F32, DType::F16),
                (DType::F16, DType::F32),
                (DType::F32, DType::Bf16),
                (DType::Bf16, DType::F32),
                (DType::F64, DType::F32),
                (DType::F32, DType::F64),
            ] {
                out.push(Level1Params::fallback(
                    L1Op::Convert { to },
                    from,
                    contiguous,
                ));
            }
        }
        out
    }

    /// The vectors of a call of `p`'s shape (y at a negative increment when strided).
    fn vectors_of(p: &Level1Params) -> (Vector, Option<Vector>) {
        let inc = if p.contiguous { 1 } else { 2 };
        let x = Vector {
            name: "x",
            address: 0x1000,
            inc,
            dtype: p.dtype,
        };
        let y_dtype = match p.op {
            L1Op::Convert { to } => to,
            _ => p.dtype,
        };
        let y = p.op.has_y().then_some(Vector {
            name: "y",
            address: 0x8000,
            inc: -inc,
            dtype: y_dtype,
        });
        (x, y)
    }

    fn scalars_of(p: &Level1Params) -> Vec<ScalarArg> {
        let one = match p.dtype {
            DType::F64 | DType::C64 => ScalarArg::F64(1.0),
            _ => ScalarArg::F32(1.0),
        };
        vec![one; scalar_count(p.op, p.dtype)]
    }

    /// The parameter name a slot fills (scalars are named by each kernel).
    fn slot_name(slot: Slot) -> Option<&'static str> {
        match slot {
            Slot::N64 | Slot::N32 => Some("n"),
            Slot::Groups => Some("groups"),
            Slot::XLogical | Slot::XLowest => Some("x"),
            Slot::YLogical | Slot::YLowest => Some("y"),
            Slot::IncX64 | Slot::IncX32 => Some("incx"),
            Slot::IncY64 | Slot::IncY32 => Some("incy"),
            Slot::Partials => Some("partials"),
            Slot::Scalars => None,
        }
    }

    /// The packed arguments of every generated variant match the kernel's declared
    /// parameters: count, names (scalars aside), sizes, and on AMDGPU kernarg offsets.
    #[test]
    fn slot_tables_match_the_generated_kernels() {
        let dev = Device::cpu();
        let mut compared = [0usize; 2];
        for target in ["sm_90", "gfx90a", "gfx1100"] {
            let target: Target = target.parse().unwrap();
            let conv = CONVENTIONS
                .iter()
                .find(|(f, _)| *f == target.family())
                .unwrap()
                .1;
            for p in variants() {
                // (name, size, offset) of each declared parameter.
                let declared: Vec<(String, usize, Option<usize>)> = match target.family() {
                    Family::Nvidia => {
                        let Ok(prog) = Level1::generate(&p, &target) else {
                            continue;
                        };
                        let ModuleImage::Ptx(text) = prog.image else {
                            panic!("{p:?}: not PTX")
                        };
                        text.lines()
                            .filter_map(|l| l.trim().strip_prefix(".param ."))
                            .map(|l| {
                                let (ty, name) = l.trim_end_matches(',').split_once(' ').unwrap();
                                let size = match &ty[1..] {
                                    "64" => 8,
                                    "32" => 4,
                                    "16" => 2,
                                    other => panic!("{ty}: {other}"),
                                };
                                (name.trim_start_matches("p_").to_string(), size, None)
                            })
                            .collect()
                    }
                    _ => {
                        let t = IsaTarget::try_from(&target).unwrap();
                        let Ok(k) = rocm_kernels::amdgpu::level1::generate(t, &p) else {
                            continue;
                        };
                        k.kernel
                            .metadata
                            .args
                            .iter()
                            .map(|a| {
                                let name = a.name.clone().unwrap_or_default();
                                (name, a.size as usize, Some(a.offset as usize))
                            })
                            .collect()
                    }
                };
                let scalars = scalars_of(&p);
                let (x, y) = vectors_of(&p);
                let call = Call {
                    op: p.op,
                    dtype: p.dtype,
                    n: 10,
                    x,
                    y,
                    strided: !p.contiguous,
                    scalars: &scalars,
                    partials: p.op.is_reduction().then_some(0x20000),
                    groups: 3,
                };
                let (args, from) = conv.args_by_slot(&dev, &call);
                let packed = args.slots();
                let what = format!("{p:?} on {target}: declared {declared:?}, packed {from:?}");
                assert_eq!(packed.len(), declared.len(), "{what}");
                for ((slot, packed), (name, size, offset)) in from.iter().zip(packed).zip(&declared)
                {
                    if let Some(want) = slot_name(*slot) {
                        assert_eq!(name, want, "{what}");
                    }
                    assert_eq!(packed.size, *size, "{what}: {name}");
                    if let Some(offset) = offset {
                        assert_eq!(packed.offset, *offset, "{what}: {name}");
                    }
                }
                compared[usize::from(target.family() != Family::Nvidia)] += 1;
            }
        }
        // Today: every PTX op on the four BLAS dtypes; the AMDGPU first slice.
        assert!(
            compared[0] >= 2 * 12 * 4 && compared[1] >= 2 * 2 * 20,
            "{compared:?}"
        );
    }

    #[test]
    fn vectors_start_where_each_family_expects() {
        let v = Vector {
            name: "x",
            address: 4096,
            inc: -3,
            dtype: DType::F64,
        };
        // Logical element 0 of a 5-vector at increment −3 is the last stored: 4·3·8 on.
        assert_eq!(v.logical_start(5), 4096 + 96);
        assert_eq!(v.logical_start(0), 4096);
        assert_eq!(v.span_bytes(5), 120);
        let mut args = KernelArgs::new();
        AMDGPU.push_scalar(&mut args, ScalarArg::F64(-2.5));
        let bits = (-2.5f64).to_bits();
        let mut want = (bits as u32).to_le_bytes().to_vec();
        want.extend(((bits >> 32) as u32).to_le_bytes());
        assert_eq!(args.bytes(), want);
    }

    #[test]
    fn partials_are_combined_in_order_per_slot() {
        // Two workgroups, structure of arrays: slot 0 = [a0, a1], slot 1 = [b0, b1].
        let host = [1.0, 2.0, 10.0, 20.0];
        assert_eq!(
            combine(L1Op::Dot { conj: false }, &host, 2, 4),
            Reduced::Sum(3.0, 30.0)
        );
        // iamax: (value, index) per workgroup; the smaller index wins a tie, an empty
        // workgroup (index u64::MAX) never wins.
        let idx = |i: u64| f64::from_bits(i);
        let host = [5.0, 6.0, 1.0, idx(7), idx(3), idx(u64::MAX)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &host, 3, 9),
            Reduced::Index(Some(3))
        );
        assert_eq!(
            combine(L1Op::Iamax { max: false }, &host, 3, 9),
            Reduced::Index(Some(7))
        );
        let tie = [5.0, 5.0, idx(7), idx(3)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &tie, 2, 9),
            Reduced::Index(Some(3))
        );
        let none = [0.0, idx(u64::MAX)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &none, 1, 9),
            Reduced::Index(None)
        );
    }
}
