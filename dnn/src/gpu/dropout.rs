//! Dropout on GPUs, forward and backward, written once in the kernel language.
//!
//! The mask is rocm-rand's Philox4x32-10 ([`rocm_rand::bits::philox4x32_10`], the same
//! generic function the CPU path calls): element `i` of a call with (seed, offset) uses
//! word `c mod 4` of the block at counter `c / 4`, `c = offset + i`, so a work-item
//! computes one block and handles the (up to) four elements it covers. Kept where
//! `(word >> 8)·2⁻²⁴ ≥ p`; forward writes `y = x·scale` or 0 and the mask byte, backward
//! `dx = dy·scale` where the mask byte is set, with the same f32 operations as the CPU
//! path, so masks and outputs are the same bits on every device.
//!
//! Elements are addressed by their logical index: directly where every tensor is
//! packed in logical order ([`Params::packed`]), else through its five coordinates and
//! each tensor's strides.

use super::{check_on_device, narrow, storage, widen};
use crate::tensor::{Tensor, TensorDesc, TensorMut};
use crate::DnnFloat;
use rocm_core::{BufferSlice, BufferSliceMut, DType, Error, LaunchConfig, Result, Stream, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Buf, Builder, Cache, KernelDef, Scalar, Type, Value};
use rocm_kernels::plan::{Arg, Plan, ProgramRef, Step};
use rocm_kernels::signature::{Signature, Value as ArgValue};
use rocm_rand::ops::Ops;
use serde::{Deserialize, Serialize};

/// Work-items per workgroup.
pub const WORKGROUP: u32 = 256;

/// Philox words per block: the elements one work-item handles.
pub const PER_ITEM: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    Forward,
    Backward,
}

/// One kernel variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Params {
    pub direction: Direction,
    pub dtype: DType,
    /// Every tensor packed in logical order (element `i` at offset `i`).
    pub packed: bool,
}

/// The generator of the dropout kernels.
pub struct DropoutKernels;

impl Generator for DropoutKernels {
    type Params = Params;
    const NAME: &'static str = "dnn_dropout";
    const VERSION: u32 = 1;

    fn generate(p: &Params, target: &Target) -> Result<Program> {
        lang::program(
            &[kernel(p, target)?],
            LaunchRule::Cover {
                block: WORKGROUP,
                units_per_item: PER_ITEM,
            },
        )
    }

    /// The definition's signature, without lowering it (plans ask on every call).
    fn signatures(p: &Params, target: &Target) -> Result<Vec<Signature>> {
        Ok(vec![kernel(p, target)?.signature])
    }
}

/// The kernel's name for `p`.
pub fn kernel_name(p: &Params) -> String {
    format!(
        "dnn_dropout_{}_{}_{}",
        match p.direction {
            Direction::Forward => "fwd",
            Direction::Backward => "bwd",
        },
        if p.packed { "packed" } else { "strided" },
        p.dtype
    )
}

/// The tensors of a direction (input, output) and the mask's access.
fn tensors(d: Direction) -> ([&'static str; 2], Access) {
    match d {
        Direction::Forward => (["x", "y"], Access::Write),
        Direction::Backward => (["dy", "dx"], Access::Read),
    }
}

/// A tensor addressed by logical index: its pointer and (strided kernels) its strides
/// `{name}_s0..4` of the five logical dimensions.
#[derive(Clone, Copy)]
struct Elements {
    buf: Buf,
    strides: Option<[Value; 5]>,
}

impl Elements {
    fn declare(k: &mut Builder, name: &str, elem: Scalar, access: Access, packed: bool) -> Self {
        let buf = k.ptr(name, elem, access);
        let strides = (!packed)
            .then(|| std::array::from_fn(|d| k.param(&format!("{name}_s{d}"), Scalar::U32)));
        Elements { buf, strides }
    }

    /// Byte offset of logical element `i` with coordinates `coords` (strided kernels).
    fn at(&self, k: &mut Builder, i: Value, coords: &Option<[Value; 5]>) -> Value {
        match (self.strides, coords) {
            (Some(s), Some(c)) => {
                let mut o = k.mul(c[0], s[0]);
                for (&ci, &si) in c.iter().zip(&s).skip(1) {
                    o = k.fma(ci, si, o);
                }
                k.at(self.buf, o)
            }
            _ => k.at(self.buf, i),
        }
    }
}

/// The dropout kernel of `p` for `target`. Parameters: `n: u32` elements, `first: u32`
/// (`offset mod 4`, the position of element 0 in its block), `block0: u64`
/// (`offset / 4`), `seed: u64`, `threshold: f32` (p), `scale: f32`, then (strided
/// kernels) `d1..d4: u32` (sizes of the logical dimensions but the first), the input
/// and output pointers with (strided) their strides, and `mask` (bytes). One work-item
/// per block: launch `⌈(n + first) / 4⌉` work-items in workgroups of [`WORKGROUP`].
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let elem = storage(p.dtype)?;
    let mut k = Builder::new(kernel_name(p), target)?;
    k.max_workgroup_size(WORKGROUP);
    let n = k.param("n", Scalar::U32);
    let first = k.param("first", Scalar::U32);
    let block0 = k.param("block0", Scalar::U64);
    let seed = k.param("seed", Scalar::U64);
    let threshold = k.param("threshold", Scalar::F32);
    let scale = k.param("scale", Scalar::F32);
    let dims: Option<[Value; 4]> =
        (!p.packed).then(|| std::array::from_fn(|d| k.param(&format!("d{}", d + 1), Scalar::U32)));
    let ([src_name, dst_name], mask_access) = tensors(p.direction);
    let src = Elements::declare(&mut k, src_name, elem, Access::Read, p.packed);
    let dst = Elements::declare(&mut k, dst_name, elem, Access::Write, p.packed);
    let mask = k.ptr_dtype("mask", DType::U8, Scalar::U32, mask_access);
    let g = k.global_id();
    let words: Option<[Value; 4]> = match p.direction {
        Direction::Forward => {
            let g64 = k.convert(g, Scalar::U64);
            // Counters wrap modulo 2^64 as on the CPU, so blocks modulo 2^62.
            let block = k.add(block0, g64);
            let block = k.and(block, (1u64 << 62) - 1);
            let (lo, hi) = (k.lo32(block), k.hi32(block));
            let (s_lo, s_hi) = (k.lo32(seed), k.hi32(seed));
            let zero = k.lit(0u32);
            Some(rocm_rand::bits::philox4x32_10(
                &mut k,
                [lo, hi, zero, zero],
                [s_lo, s_hi],
            ))
        }
        Direction::Backward => None,
    };
    let base = k.mul(g, PER_ITEM);
    for w in 0..PER_ITEM {
        // Element i = 4g + w − first, where 0 ≤ i < n (unsigned wrap-around below 0).
        let bw = k.add(base, w);
        let i = k.sub(bw, first);
        let started = k.ge(bw, first);
        let below = k.lt(i, n);
        let inside = k.and(started, below);
        k.if_(inside, |k| {
            let coords = dims.map(|d| logical_coords(k, i, &d));
            let (so, doff) = (src.at(k, i, &coords), dst.at(k, i, &coords));
            let mo = k.convert(i, Scalar::U64);
            let v = k.load(src.buf, so);
            let v = widen(k, v);
            let keep = match words {
                Some(ws) => {
                    let top = k.shr(ws[w as usize], 8u32);
                    let f = k.convert(top, Scalar::F32);
                    let u = k.mul(f, 1.0f32 / 16_777_216.0);
                    let keep = k.ge(u, threshold);
                    let byte = k.select(keep, 1u32, 0u32);
                    k.store_with(mask, mo, byte, 1, 1, Cache::Default);
                    keep
                }
                None => {
                    let byte = k.load_with(mask, mo, Type::U32, 1, 1, Cache::Default);
                    k.ne(byte, 0u32)
                }
            };
            let scaled = k.mul(v, scale);
            let out = k.select(keep, scaled, 0.0f32);
            let out = narrow(k, out, elem);
            k.store(dst.buf, doff, out);
        });
    }
    k.finish()
}

/// The five logical coordinates of element `i` (`d` the sizes of dimensions 1..4).
fn logical_coords(k: &mut Builder, i: Value, d: &[Value; 4]) -> [Value; 5] {
    let mut c = [i; 5];
    let mut rest = i;
    for j in (0..4).rev() {
        c[j + 1] = k.rem(rest, d[j]);
        rest = k.div(rest, d[j]);
    }
    c[0] = rest;
    c
}

/// Dims and strides of `d` as five logical dimensions (a 4-D tensor gets D = 1).
fn five(d: &TensorDesc) -> ([usize; 5], [usize; 5]) {
    let (dims, s) = (d.dims(), d.strides());
    if dims.len() == 4 {
        (
            [dims[0], dims[1], 1, dims[2], dims[3]],
            [s[0], s[1], 0, s[2], s[3]],
        )
    } else {
        (
            [dims[0], dims[1], dims[2], dims[3], dims[4]],
            [s[0], s[1], s[2], s[3], s[4]],
        )
    }
}

/// The settings of one call the plan binds.
#[derive(Debug, Clone, Copy)]
pub struct Call {
    pub p: f32,
    pub seed: u64,
    pub offset: u64,
}

/// The plan of one dropout pass over tensors `descs` (input, output; one shape), with
/// `mask` bytes in logical order (slots: 0 input, 1 output, 2 mask): one launch, none
/// for an empty tensor.
pub fn plan(
    target: &Target,
    direction: Direction,
    dtype: DType,
    descs: [&TensorDesc; 2],
    call: Call,
) -> Result<Plan> {
    let n = descs[0].numel();
    if n == 0 {
        return Ok(Plan::default());
    }
    let first = (call.offset % PER_ITEM as u64) as u32;
    let items = (n as u64 + first as u64).div_ceil(PER_ITEM as u64);
    let fits32 = |v: usize| u32::try_from(v).is_ok();
    if !fits32(n + PER_ITEM as usize) || items.div_ceil(WORKGROUP as u64) > i32::MAX as u64 {
        return Err(Error::invalid(
            "x",
            format!("{n} elements; the GPU kernels take fewer than 2^32 - 4"),
        ));
    }
    let (names, mask_access) = tensors(direction);
    let packed = descs.iter().all(|d| is_logical_order(d));
    let params = Params {
        direction,
        dtype,
        packed,
    };
    let program = ProgramRef::of::<DropoutKernels>(params);
    let sig = program
        .signatures(target)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::invalid("plan", "the dropout program declares no kernel"))?;
    let u32v = |v: usize| Arg::Value(ArgValue::U32(v as u32));
    let mut bindings: Vec<(String, Arg)> = vec![
        ("n".into(), u32v(n)),
        ("first".into(), Arg::Value(ArgValue::U32(first))),
        (
            "block0".into(),
            Arg::Value(ArgValue::U64(call.offset / PER_ITEM as u64)),
        ),
        ("seed".into(), Arg::Value(ArgValue::U64(call.seed))),
        ("threshold".into(), Arg::Value(ArgValue::F32(call.p))),
        (
            "scale".into(),
            Arg::Value(ArgValue::F32(1.0 / (1.0 - call.p))),
        ),
    ];
    let (dims, _) = five(descs[0]);
    if !packed {
        for (d, &size) in dims.iter().enumerate().skip(1) {
            bindings.push((format!("d{d}"), u32v(size)));
        }
    }
    let size = dtype.size() as u64;
    for (slot, (name, d)) in names.iter().zip(descs).enumerate() {
        let extent = d.required_len()?;
        if !fits32(extent) || !d.strides().iter().all(|&s| fits32(s)) {
            return Err(Error::invalid(
                *name,
                format!(
                    "dims {:?} with strides {:?} span {extent} elements; the GPU kernels \
                     address at most 2^32 - 1",
                    d.dims(),
                    d.strides()
                ),
            ));
        }
        let access = if slot == 0 {
            Access::Read
        } else {
            Access::Write
        };
        bindings.push((
            name.to_string(),
            Arg::Buffer {
                slot,
                offset_bytes: 0,
                touched: 0..extent as u64 * size,
                access,
            },
        ));
        if !packed {
            let (_, strides) = five(d);
            for (i, &s) in strides.iter().enumerate() {
                bindings.push((format!("{name}_s{i}"), u32v(s)));
            }
        }
    }
    bindings.push((
        "mask".into(),
        Arg::Buffer {
            slot: 2,
            offset_bytes: 0,
            touched: 0..n as u64,
            access: mask_access,
        },
    ));
    let config = LaunchConfig::linear(items.div_ceil(WORKGROUP as u64) as u32, WORKGROUP);
    let bindings = bindings
        .iter()
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    let step = Step::bind(program, sig, config, bindings)?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
}

/// Whether element `i` (logical order) of `d` lives at offset `i`.
fn is_logical_order(d: &TensorDesc) -> bool {
    let mut want = 1;
    for (&n, &s) in d.dims().iter().zip(d.strides()).rev() {
        if n > 1 && s != want {
            return false;
        }
        want *= n;
    }
    true
}

fn check_mask(what: &str, len: usize, n: usize) -> Result<()> {
    if len != n {
        return Err(Error::invalid(
            what,
            format!("holds {len} bytes; the tensor has {n} elements"),
        ));
    }
    Ok(())
}

fn check_mask_device(stream: &Stream, device: &rocm_core::Device) -> Result<()> {
    if device != stream.device() {
        return Err(Error::invalid(
            "mask",
            format!("is on {device}, the handle's device is {}", stream.device()),
        ));
    }
    Ok(())
}

/// y = x·mask/(1 − p) on `stream` (queued), writing the mask; settings and dims checked
/// by the caller.
pub fn forward<T: DnnFloat>(
    stream: &Stream,
    call: Call,
    x: Tensor<'_, T>,
    mut y: TensorMut<'_, T>,
    mask: &mut BufferSliceMut<'_, u8>,
) -> Result<()> {
    check_on_device(stream, "x", &x)?;
    check_on_device(stream, "y", &Tensor::new(y.desc, y.data.as_slice()))?;
    y.desc.check_non_overlapping("y")?;
    check_mask("mask", mask.len(), x.desc.numel())?;
    check_mask_device(stream, mask.device())?;
    let target = stream.device().target();
    let plan = plan(target, Direction::Forward, T::DTYPE, [x.desc, y.desc], call)?;
    let views = [
        DeviceView::read(&x.data),
        DeviceView::write(&mut y.data),
        DeviceView::write(mask),
    ];
    rocm_kernels::exec::execute(&plan, stream, &views, None)
}

/// dx = dy·mask/(1 − p) on `stream` (queued).
pub fn backward<T: DnnFloat>(
    stream: &Stream,
    call: Call,
    dy: Tensor<'_, T>,
    mask: &BufferSlice<'_, u8>,
    mut dx: TensorMut<'_, T>,
) -> Result<()> {
    check_on_device(stream, "dy", &dy)?;
    check_on_device(stream, "dx", &Tensor::new(dx.desc, dx.data.as_slice()))?;
    dx.desc.check_non_overlapping("dx")?;
    check_mask("mask", mask.len(), dy.desc.numel())?;
    check_mask_device(stream, mask.device())?;
    let target = stream.device().target();
    let plan = plan(
        target,
        Direction::Backward,
        T::DTYPE,
        [dy.desc, dx.desc],
        call,
    )?;
    let views = [
        DeviceView::read(&dy.data),
        DeviceView::write(&mut dx.data),
        DeviceView::read(mask),
    ];
    rocm_kernels::exec::execute(&plan, stream, &views, None)
}
