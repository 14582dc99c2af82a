//! Convolution: problem description, algorithms and the front end.
//!
//! A user problem (convolution or transposed convolution, in one of three directions) is
//! reduced to one *core* operation of a plain convolution (cross-correlation, as MIOpen
//! and cuDNN define it) with geometry [`Geom`]:
//!
//! ```text
//! fwd:          Y[n,k,o] = Σ_{c∈g(k), f} X[n,c, o·stride − pad + f·dil] · W[k,c,f]
//! bwd-data:     dX = the adjoint of fwd applied to dY
//! bwd-weights:  dW[k,c,f] = Σ_{n,o} X[n,c, o·stride − pad + f·dil] · dY[n,k,o]
//! ```
//!
//! A transposed convolution's forward pass is the core backward-data, its backward-data
//! the core forward, and its backward-weights the core backward-weights with the roles
//! of x and y exchanged. The front end widens every tensor to f32 in packed logical
//! order (N, C, D, H, W), runs a solver on those, and stores `α·act(result + bias) + β·out`
//! through the output's strides and dtype.

mod direct;
mod im2col;
mod winograd;

use crate::activation::Activation;
use crate::find::FindMode;
use crate::tensor::{dim_name, sized, Tensor, TensorDesc, TensorMut};
use crate::{Dnn, DnnFloat};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, DeviceBuffer, Error, Result};
use std::fmt;

/// Plain or transposed convolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvMode {
    Convolution,
    Transposed,
}

/// Which pass of a convolution to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvDirection {
    Forward,
    BackwardData,
    BackwardWeights,
}

impl ConvDirection {
    pub fn name(self) -> &'static str {
        match self {
            ConvDirection::Forward => "fwd",
            ConvDirection::BackwardData => "bwd",
            ConvDirection::BackwardWeights => "wrw",
        }
    }
}

/// The operation of a plain convolution a solver runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CoreOp {
    Fwd,
    BwdData,
    BwdWeights,
}

/// Convolution algorithms (MIOpen's `miopenConvAlgorithm_t`, minus FFT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConvAlgo {
    /// Loop nest over outputs.
    Direct,
    /// im2col (unfold a tile of patches) then a rocm-blas GEMM per tile.
    Im2colGemm,
    /// Winograd F(2×2, 3×3): 16 multiplies per 4 outputs instead of 36.
    WinogradF2x3,
    /// Winograd F(4×4, 3×3): 36 multiplies per 16 outputs instead of 144.
    WinogradF4x3,
}

impl ConvAlgo {
    pub const ALL: [ConvAlgo; 4] = [
        ConvAlgo::Direct,
        ConvAlgo::Im2colGemm,
        ConvAlgo::WinogradF2x3,
        ConvAlgo::WinogradF4x3,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ConvAlgo::Direct => "direct",
            ConvAlgo::Im2colGemm => "gemm",
            ConvAlgo::WinogradF2x3 => "winograd-f2x3",
            ConvAlgo::WinogradF4x3 => "winograd-f4x3",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        ConvAlgo::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "algorithm",
                    format!("`{s}` is not one of direct, gemm, winograd-f2x3, winograd-f4x3"),
                )
            })
    }
}

impl fmt::Display for ConvAlgo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Padding, stride, dilation (one per spatial dimension), groups and mode.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConvDesc {
    pub mode: ConvMode,
    pub pads: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub groups: usize,
}

impl ConvDesc {
    /// A convolution descriptor; the three lists have one entry per spatial dimension
    /// (2 or 3) and strides, dilations and groups are at least 1.
    pub fn new(
        mode: ConvMode,
        pads: &[usize],
        strides: &[usize],
        dilations: &[usize],
        groups: usize,
    ) -> Result<Self> {
        let r = pads.len();
        if r != 2 && r != 3 {
            return Err(Error::invalid(
                "pads",
                format!("{r} entries; a convolution has 2 or 3 spatial dimensions"),
            ));
        }
        for (what, v) in [("strides", strides), ("dilations", dilations)] {
            if v.len() != r {
                return Err(Error::invalid(
                    what,
                    format!("{} entries for {r} spatial dimensions", v.len()),
                ));
            }
            if let Some(i) = v.iter().position(|&s| s == 0) {
                return Err(Error::invalid(
                    what,
                    format!("entry {i} is 0; it must be at least 1"),
                ));
            }
        }
        if groups == 0 {
            return Err(Error::invalid("groups", "must be at least 1"));
        }
        Ok(ConvDesc {
            mode,
            pads: pads.to_vec(),
            strides: strides.to_vec(),
            dilations: dilations.to_vec(),
            groups,
        })
    }

    /// A 2-D convolution with the same padding, stride and dilation in H and W.
    pub fn conv2d(pad: usize, stride: usize, dilation: usize, groups: usize) -> Result<Self> {
        Self::new(
            ConvMode::Convolution,
            &[pad, pad],
            &[stride, stride],
            &[dilation, dilation],
            groups,
        )
    }

    /// The spatial rank (2 or 3).
    pub fn spatial_rank(&self) -> usize {
        self.pads.len()
    }

    /// The output dims `y` must have for input `x` and filter `w`.
    pub fn output_dims(&self, x: &TensorDesc, w: &TensorDesc) -> Result<Vec<usize>> {
        let r = self.spatial_rank();
        if x.rank() != r + 2 {
            return Err(Error::invalid(
                "x",
                format!("rank {} for a {r}-D convolution", x.rank()),
            ));
        }
        if w.rank() != r + 2 {
            return Err(Error::invalid(
                "w",
                format!("rank {} for a {r}-D convolution", w.rank()),
            ));
        }
        let (xd, wd) = (x.dims(), w.dims());
        let g = self.groups;
        let mut out = vec![xd[0]];
        match self.mode {
            ConvMode::Convolution => {
                check_channels(xd[1], wd[1], g, "x", "w")?;
                if wd[0] % g != 0 {
                    return Err(Error::invalid(
                        "w",
                        format!("dimension K = {} is not a multiple of groups = {g}", wd[0]),
                    ));
                }
                out.push(wd[0]);
            }
            ConvMode::Transposed => {
                if xd[1] != wd[0] {
                    return Err(Error::invalid(
                        "w",
                        format!(
                            "dimension K = {} must equal x's C = {} for a transposed convolution",
                            wd[0], xd[1]
                        ),
                    ));
                }
                if xd[1] % g != 0 {
                    return Err(Error::invalid(
                        "x",
                        format!("dimension C = {} is not a multiple of groups = {g}", xd[1]),
                    ));
                }
                out.push(sized("groups", wd[1].checked_mul(g), || {
                    format!("w's C {} x groups {g}", wd[1])
                })?);
            }
        }
        for i in 0..r {
            let (inp, f) = (xd[i + 2], wd[i + 2]);
            if f == 0 {
                return Err(Error::invalid(
                    "w",
                    format!("filter dimension {} is 0", dim_name(r + 2, i + 2)),
                ));
            }
            let (p, s, d) = (self.pads[i], self.strides[i], self.dilations[i]);
            let name = dim_name(r + 2, i + 2);
            let ext = sized(
                "dilations",
                d.checked_mul(f - 1).and_then(|e| e.checked_add(1)),
                || format!("the dilated filter extent {d} x ({f} - 1) + 1 of {name}"),
            )?;
            let padded = sized(
                "pads",
                p.checked_mul(2).and_then(|e| e.checked_add(inp)),
                || format!("the padded input {inp} + 2 x {p} of {name}"),
            )?;
            let o = match self.mode {
                ConvMode::Convolution => {
                    if padded < ext {
                        return Err(Error::invalid(
                            "x",
                            format!("dimension {name} = {inp} with padding {p} is smaller than the dilated filter extent {ext}"),
                        ));
                    }
                    (padded - ext) / s + 1
                }
                ConvMode::Transposed => {
                    let full = sized(
                        "strides",
                        (inp.max(1) - 1)
                            .checked_mul(s)
                            .and_then(|e| e.checked_add(ext)),
                        || format!("the transposed output ({inp} - 1) x {s} + {ext} of {name}"),
                    )?;
                    if full < padded - inp + 1 {
                        return Err(Error::invalid(
                            "x",
                            format!("dimension {name}: padding {p} removes the whole output"),
                        ));
                    }
                    full - (padded - inp)
                }
            };
            out.push(o);
        }
        Ok(out)
    }
}

fn check_channels(c: usize, wc: usize, g: usize, xn: &str, wn: &str) -> Result<()> {
    if c % g != 0 {
        return Err(Error::invalid(
            xn,
            format!("dimension C = {c} is not a multiple of groups = {g}"),
        ));
    }
    if wc.checked_mul(g) != Some(c) {
        return Err(Error::invalid(
            wn,
            format!("dimension C = {wc} must be x's C / groups = {c} / {g}"),
        ));
    }
    Ok(())
}

/// The geometry of a plain 3-D convolution (2-D problems have depth 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Geom {
    pub n: usize,
    pub c: usize,
    pub k: usize,
    pub g: usize,
    pub i: [usize; 3],
    pub o: [usize; 3],
    pub f: [usize; 3],
    pub pad: [usize; 3],
    pub stride: [usize; 3],
    pub dil: [usize; 3],
}

impl Geom {
    pub fn cg(&self) -> usize {
        self.c / self.g
    }
    pub fn kg(&self) -> usize {
        self.k / self.g
    }
    pub fn isize(&self) -> usize {
        self.i.iter().product()
    }
    pub fn osize(&self) -> usize {
        self.o.iter().product()
    }
    pub fn fsize(&self) -> usize {
        self.f.iter().product()
    }
    pub fn x_len(&self) -> usize {
        self.n * self.c * self.isize()
    }
    pub fn w_len(&self) -> usize {
        self.k * self.cg() * self.fsize()
    }
    pub fn y_len(&self) -> usize {
        self.n * self.k * self.osize()
    }
    /// Multiply-adds × 2 of the core forward (the same for all three ops).
    pub fn flops(&self) -> f64 {
        2.0 * (self.n * self.k * self.osize()) as f64 * (self.cg() * self.fsize()) as f64
    }
    /// Whether the problem is 2-D with a 3×3 filter, stride 1 and dilation 1.
    pub fn is_3x3_unit(&self) -> bool {
        self.i[0] == 1
            && self.f == [1, 3, 3]
            && self.pad[0] == 0
            && self.stride == [1, 1, 1]
            && self.dil == [1, 1, 1]
    }
}

/// A validated convolution problem: descriptors, direction and core geometry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConvProblem {
    pub conv: ConvDesc,
    pub direction: ConvDirection,
    pub x: TensorDesc,
    pub w: TensorDesc,
    pub y: TensorDesc,
    pub(crate) geom: Geom,
    pub(crate) op: CoreOp,
}

impl ConvProblem {
    /// Checks that `x`, `w` and `y` fit `conv` (every mismatch names the tensor and
    /// dimension) and builds the problem. `y` is the convolution's output in every
    /// direction (for backward passes its gradient has the same shape).
    pub fn new(
        direction: ConvDirection,
        conv: &ConvDesc,
        x: &TensorDesc,
        w: &TensorDesc,
        y: &TensorDesc,
    ) -> Result<Self> {
        let yd = conv.output_dims(x, w)?;
        y.expect_dims("y", &yd)?;
        if x.dtype() != w.dtype() || x.dtype() != y.dtype() {
            return Err(Error::invalid(
                "w",
                format!(
                    "x, w and y hold {}, {} and {}; they must agree",
                    x.dtype(),
                    w.dtype(),
                    y.dtype()
                ),
            ));
        }
        let r = conv.spatial_rank();
        let sp3 = |v: &[usize], fill: usize| -> [usize; 3] {
            if r == 2 {
                [fill, v[0], v[1]]
            } else {
                [v[0], v[1], v[2]]
            }
        };
        let (xd, wd) = (x.dims(), w.dims());
        let (pad, stride, dil) = (
            sp3(&conv.pads, 0),
            sp3(&conv.strides, 1),
            sp3(&conv.dilations, 1),
        );
        let f = sp3(&wd[2..], 1);
        let (geom, op) = match conv.mode {
            ConvMode::Convolution => (
                Geom {
                    n: xd[0],
                    c: xd[1],
                    k: wd[0],
                    g: conv.groups,
                    i: sp3(&xd[2..], 1),
                    o: sp3(&yd[2..], 1),
                    f,
                    pad,
                    stride,
                    dil,
                },
                match direction {
                    ConvDirection::Forward => CoreOp::Fwd,
                    ConvDirection::BackwardData => CoreOp::BwdData,
                    ConvDirection::BackwardWeights => CoreOp::BwdWeights,
                },
            ),
            ConvMode::Transposed => (
                Geom {
                    n: xd[0],
                    c: yd[1],
                    k: xd[1],
                    g: conv.groups,
                    i: sp3(&yd[2..], 1),
                    o: sp3(&xd[2..], 1),
                    f,
                    pad,
                    stride,
                    dil,
                },
                match direction {
                    ConvDirection::Forward => CoreOp::BwdData,
                    ConvDirection::BackwardData => CoreOp::Fwd,
                    ConvDirection::BackwardWeights => CoreOp::BwdWeights,
                },
            ),
        };
        Ok(ConvProblem {
            conv: conv.clone(),
            direction,
            x: x.clone(),
            w: w.clone(),
            y: y.clone(),
            geom,
            op,
        })
    }

    /// Floating-point operations of one call (2 per multiply-add).
    pub fn flops(&self) -> f64 {
        self.geom.flops()
    }

    /// The algorithms that can solve this problem.
    pub fn applicable(&self) -> Vec<ConvAlgo> {
        ConvAlgo::ALL
            .into_iter()
            .filter(|&a| solver(a).applies(&self.geom, self.op))
            .collect()
    }

    /// A canonical text key (MIOpen's find-db problem string analogue):
    /// `<op>-n,c,k,g-i..-f..-p..-s..-d..-<dtype>`.
    pub fn key(&self) -> String {
        let g = &self.geom;
        let op = match self.op {
            CoreOp::Fwd => "F",
            CoreOp::BwdData => "B",
            CoreOp::BwdWeights => "W",
        };
        let j = |v: [usize; 3]| format!("{}x{}x{}", v[0], v[1], v[2]);
        format!(
            "{op}-n{}c{}k{}g{}-i{}-f{}-p{}-s{}-d{}-{}",
            g.n,
            g.c,
            g.k,
            g.g,
            j(g.i),
            j(g.f),
            j(g.pad),
            j(g.stride),
            j(g.dil),
            self.x.dtype()
        )
    }

    /// The heuristic choice (immediate mode without a find-db entry), from CPU
    /// measurements (single-thread CPU time, N = 1 to 32, C = K from 16 to 512): direct for
    /// depthwise and tiny problems; Winograd for 3×3 stride-1 forward problems with at
    /// least 8 channels per group on both sides: F(4,3) when the batch has at least 256
    /// 4×4 output tiles, or at least 64 with its transformed filters (36·C·K f32) within
    /// 16 MiB, else F(2,3) when the batch has at least 64 2×2 tiles; else im2col + GEMM.
    /// Winograd's filter transform costs α²·C·K per call and only pays off over enough
    /// tiles: C = K = 512 at 7×7 (37.7 MB of F(4,3) filters) ran F(4,3) below F(2,3) up
    /// to N = 32 and below im2col at N ≤ 16; C = K = 256 at 14×14 with N = 1 (16 tiles)
    /// ran both Winograds below im2col.
    pub fn heuristic(&self) -> ConvAlgo {
        let g = &self.geom;
        let app = self.applicable();
        let tiles = |m: usize| g.n * g.o[1].div_ceil(m) * g.o[2].div_ceil(m);
        let f4_filter_bytes = 36 * g.cg() * g.k * 4;
        let pick = if g.cg() == 1 || g.kg() == 1 || g.flops() < 2e5 {
            ConvAlgo::Direct
        } else if app.contains(&ConvAlgo::WinogradF4x3) && g.cg() >= 8 && g.kg() >= 8 {
            if tiles(4) >= 256 || (tiles(4) >= 64 && f4_filter_bytes <= 16 << 20) {
                ConvAlgo::WinogradF4x3
            } else if tiles(2) >= 64 {
                ConvAlgo::WinogradF2x3
            } else {
                ConvAlgo::Im2colGemm
            }
        } else {
            ConvAlgo::Im2colGemm
        };
        if app.contains(&pick) {
            pick
        } else {
            ConvAlgo::Direct
        }
    }

    /// A MIOpenDriver command line that reproduces the problem.
    pub fn driver_command(&self) -> String {
        let g = &self.geom;
        let c = &self.conv;
        let r = c.spatial_rank();
        let (xd, wd) = (self.x.dims(), self.w.dims());
        let dir = match self.direction {
            ConvDirection::Forward => 1,
            ConvDirection::BackwardData => 2,
            ConvDirection::BackwardWeights => 4,
        };
        let mut s = format!(
            "rocm-bench dnn conv -n {} -c {} -k {}",
            g.n,
            xd[1],
            if c.mode == ConvMode::Convolution {
                wd[0]
            } else {
                wd[1] * c.groups
            }
        );
        let sp = &xd[2..];
        let fs = &wd[2..];
        if r == 3 {
            s += &format!(" --spatial-dim 3 --in-d {} --fil-d {} --pad-d {} --conv-stride-d {} --dilation-d {}", sp[0], fs[0], c.pads[0], c.strides[0], c.dilations[0]);
        }
        let o = r - 2;
        s += &format!(
            " -H {} -W {} -y {} -x {} -p {} -q {} -u {} -v {} -l {} -j {} -g {} -m {} -F {dir} -t 1 --dtype {}",
            sp[o], sp[o + 1], fs[o], fs[o + 1], c.pads[o], c.pads[o + 1], c.strides[o], c.strides[o + 1],
            c.dilations[o], c.dilations[o + 1], c.groups,
            if c.mode == ConvMode::Convolution { "conv" } else { "trans" },
            self.x.dtype()
        );
        s
    }
}

/// One convolution algorithm.
pub(crate) trait ConvSolver: Sync {
    fn applies(&self, g: &Geom, op: CoreOp) -> bool;
    /// Runs core `op`: (a, b) = (x, w) for Fwd, (dy, w) for BwdData, (x, dy) for
    /// BwdWeights; `out` (y, dx or dw) is overwritten. All packed, f32, on the CPU.
    fn run(
        &self,
        dnn: &Dnn,
        g: &Geom,
        op: CoreOp,
        a: BufferSlice<'_, f32>,
        b: BufferSlice<'_, f32>,
        out: BufferSliceMut<'_, f32>,
    ) -> Result<()>;
}

pub(crate) fn solver(a: ConvAlgo) -> &'static dyn ConvSolver {
    match a {
        ConvAlgo::Direct => &direct::Direct,
        ConvAlgo::Im2colGemm => &im2col::Im2col,
        ConvAlgo::WinogradF2x3 => &winograd::Winograd::<2, 4>,
        ConvAlgo::WinogradF4x3 => &winograd::Winograd::<4, 6>,
    }
}

pub(crate) fn host<'a>(b: BufferSlice<'a, f32>, what: &str) -> Result<&'a [f32]> {
    b.as_host()
        .ok_or_else(|| Error::unsupported(format!("dnn workspace {what}"), b.device()))
}

pub(crate) fn host_mut<'a>(
    b: &'a mut BufferSliceMut<'_, f32>,
    what: &str,
) -> Result<&'a mut [f32]> {
    let dev = b.device();
    b.as_host_mut()
        .ok_or_else(|| Error::unsupported(format!("dnn workspace {what}"), dev))
}

/// Host memory of an owned workspace.
pub(crate) fn ws_mut<'a>(b: &'a mut DeviceBuffer<f32>, what: &str) -> Result<&'a mut [f32]> {
    let dev = b.device().clone();
    b.as_host_mut()
        .ok_or_else(|| Error::unsupported(format!("dnn workspace {what}"), dev))
}

/// Whether a tensor is stored as the solvers want it: f32 packed channels-first.
fn solver_ready<T: DnnFloat>(desc: &TensorDesc) -> bool {
    T::DTYPE == rocm_core::DType::F32 && desc.layout().is_some_and(|l| !l.channels_last())
}

/// A solver input: the caller's tensor read in place when it is already packed f32
/// NC(D)HW, else a widened packed copy.
enum Operand<'a> {
    InPlace(BufferSlice<'a, f32>),
    Staged(DeviceBuffer<f32>),
}

impl Operand<'_> {
    fn view(&self) -> BufferSlice<'_, f32> {
        match self {
            Operand::InPlace(v) => *v,
            Operand::Staged(b) => b.as_slice(),
        }
    }
}

fn operand<'a, T: DnnFloat>(dnn: &Dnn, t: &Tensor<'a, T>, what: &str) -> Result<Operand<'a>> {
    let src = t.host(what)?;
    let numel = t.desc.numel();
    if solver_ready::<T>(t.desc) {
        if let Some(v) = T::f32_view(t.data) {
            return Ok(Operand::InPlace(v.slice(..numel)?));
        }
    }
    let mut buf = DeviceBuffer::<f32>::zeros(dnn.device(), numel)?;
    let dst = ws_mut(&mut buf, what)?;
    crate::tensor::gather_into(t.desc, src, dst);
    Ok(Operand::Staged(buf))
}

/// What the forward pass applies to the raw convolution before storing it.
#[derive(Clone, Copy)]
struct Epilogue<'a> {
    bias: Option<&'a [f32]>,
    act: Activation,
    /// Output channels (the bias index of plane p is p mod k).
    k: usize,
    /// Elements per output plane (one image and channel).
    plane: usize,
}

impl Epilogue<'_> {
    const NONE: Epilogue<'static> = Epilogue {
        bias: None,
        act: Activation::Identity,
        k: 1,
        plane: 0,
    };

    /// v = scale·act(v + bias), one output plane per work item.
    fn apply(&self, v: &mut [f32], scale: f32) {
        let trivial = self.bias.is_none() && self.act == Activation::Identity;
        if (trivial && scale == 1.0) || self.plane == 0 {
            return;
        }
        v.par_chunks_mut(self.plane)
            .enumerate()
            .for_each(|(p, vp)| {
                let b = self
                    .bias
                    .and_then(|b| b.get(p % self.k.max(1)))
                    .copied()
                    .unwrap_or(0.0);
                vp.iter_mut()
                    .for_each(|e| *e = scale * self.act.apply_f32(*e + b));
            });
    }
}

/// The inputs of one call in user terms.
struct ConvArgs<'a, T: DnnFloat> {
    a: Tensor<'a, T>,
    b: Tensor<'a, T>,
    a_name: &'static str,
    b_name: &'static str,
}

impl Dnn {
    /// The algorithm to run for `p` under the handle's find mode: the find-db's best
    /// (fast and hybrid), else a fresh find (normal and hybrid, recorded in the db), else
    /// the heuristic (fast).
    pub fn select_convolution_algorithm(&self, p: &ConvProblem) -> Result<ConvAlgo> {
        let app = p.applicable();
        if self.find_mode() != FindMode::Normal {
            if let Some(db) = self.find_db() {
                if let Some(best) = db
                    .lookup(&self.find_db_key(p))
                    .into_iter()
                    .find(|a| app.contains(&a.algo))
                {
                    return Ok(best.algo);
                }
            }
        }
        match self.find_mode() {
            FindMode::Fast => Ok(p.heuristic()),
            FindMode::Normal | FindMode::Hybrid => {
                let perf = self.find_convolution_algorithm(p)?;
                Ok(perf
                    .first()
                    .map(|r| r.algo)
                    .unwrap_or_else(|| p.heuristic()))
            }
        }
    }

    pub(crate) fn find_db_key(&self, p: &ConvProblem) -> String {
        format!("{}@{}@{}", p.key(), self.device().target(), crate::VERSION)
    }

    /// Runs `p` with `algo` (or the find mode's choice) and stores
    /// `alpha·epilogue(result) + beta·out` into `out`. An f32 packed NC(D)HW output with
    /// β = 0 is written by the solver in place; anything else goes through a packed f32
    /// result that is then scattered (rounding once to the storage type).
    #[allow(clippy::too_many_arguments)]
    fn conv_run<T: DnnFloat>(
        &self,
        p: &ConvProblem,
        algo: Option<ConvAlgo>,
        args: ConvArgs<'_, T>,
        alpha: f32,
        epilogue: Epilogue<'_>,
        beta: f32,
        out: &mut TensorMut<'_, T>,
        out_name: &str,
    ) -> Result<ConvAlgo> {
        self.engine("convolution")?;
        // The buffers are checked against their descriptors before an algorithm is
        // chosen: finding one runs the problem on buffers of the descriptors' sizes.
        args.a
            .desc
            .check_buffer::<T>(args.a_name, args.a.data.len())?;
        args.b
            .desc
            .check_buffer::<T>(args.b_name, args.b.data.len())?;
        out.desc.check_buffer::<T>(out_name, out.data.len())?;
        let algo = match algo {
            Some(a) => a,
            None => self.select_convolution_algorithm(p)?,
        };
        let s = solver(algo);
        if !s.applies(&p.geom, p.op) {
            return Err(Error::invalid(
                "algorithm",
                format!("{algo} does not apply to {}", p.key()),
            ));
        }
        let a = operand(self, &args.a, args.a_name)?;
        let b = operand(self, &args.b, args.b_name)?;
        let numel = out.desc.numel();
        if beta == 0.0 && solver_ready::<T>(out.desc) {
            out.host_mut(out_name)?;
            if let Some(mut v) = T::f32_view_mut(out.data.reborrow()) {
                let mut v = v.slice_mut(..numel)?;
                s.run(self, &p.geom, p.op, a.view(), b.view(), v.reborrow())?;
                epilogue.apply(host_mut(&mut v, out_name)?, alpha);
                return Ok(algo);
            }
        }
        let mut res = DeviceBuffer::<f32>::zeros(self.device(), numel)?;
        s.run(self, &p.geom, p.op, a.view(), b.view(), res.as_slice_mut())?;
        let v = ws_mut(&mut res, out_name)?;
        epilogue.apply(v, 1.0);
        out.store(out_name, v, alpha, beta)?;
        Ok(algo)
    }

    /// y = α·conv(x, w) + β·y (or the transposed convolution). `algo = None` selects one
    /// by the find mode. Returns the algorithm that ran.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution_forward<T: DnnFloat>(
        &self,
        conv: &ConvDesc,
        algo: Option<ConvAlgo>,
        alpha: f32,
        x: Tensor<'_, T>,
        w: Tensor<'_, T>,
        beta: f32,
        y: TensorMut<'_, T>,
    ) -> Result<ConvAlgo> {
        self.convolution_bias_activation_forward(
            conv,
            algo,
            alpha,
            x,
            w,
            None,
            Activation::Identity,
            beta,
            y,
        )
    }

    /// The fused y = α·act(conv(x, w) + bias) + β·y; `bias` holds one value per output
    /// channel.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution_bias_activation_forward<T: DnnFloat>(
        &self,
        conv: &ConvDesc,
        algo: Option<ConvAlgo>,
        alpha: f32,
        x: Tensor<'_, T>,
        w: Tensor<'_, T>,
        bias: Option<BufferSlice<'_, T>>,
        act: Activation,
        beta: f32,
        mut y: TensorMut<'_, T>,
    ) -> Result<ConvAlgo> {
        let p = ConvProblem::new(ConvDirection::Forward, conv, x.desc, w.desc, y.desc)?;
        let kout = y.desc.dims()[1];
        let bias = match bias {
            Some(b) => {
                let h = b
                    .as_host()
                    .ok_or_else(|| Error::unsupported("dnn bias", b.device()))?;
                if h.len() != kout {
                    return Err(Error::invalid(
                        "bias",
                        format!("holds {} elements; y has K = {kout} channels", h.len()),
                    ));
                }
                Some(h.iter().map(|v| v.to_f32()).collect::<Vec<_>>())
            }
            None => None,
        };
        let epilogue = Epilogue {
            bias: bias.as_deref(),
            act,
            k: kout,
            plane: y.desc.spatial().iter().product(),
        };
        let args = ConvArgs {
            a: x,
            b: w,
            a_name: "x",
            b_name: "w",
        };
        self.conv_run(&p, algo, args, alpha, epilogue, beta, &mut y, "y")
    }

    /// dx = α·(∂y/∂x)ᵀ·dy + β·dx.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution_backward_data<T: DnnFloat>(
        &self,
        conv: &ConvDesc,
        algo: Option<ConvAlgo>,
        alpha: f32,
        dy: Tensor<'_, T>,
        w: Tensor<'_, T>,
        beta: f32,
        mut dx: TensorMut<'_, T>,
    ) -> Result<ConvAlgo> {
        let p = ConvProblem::new(ConvDirection::BackwardData, conv, dx.desc, w.desc, dy.desc)?;
        let args = ConvArgs {
            a: dy,
            b: w,
            a_name: "dy",
            b_name: "w",
        };
        self.conv_run(&p, algo, args, alpha, Epilogue::NONE, beta, &mut dx, "dx")
    }

    /// dw = α·(∂y/∂w)ᵀ·dy + β·dw.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution_backward_weights<T: DnnFloat>(
        &self,
        conv: &ConvDesc,
        algo: Option<ConvAlgo>,
        alpha: f32,
        x: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        beta: f32,
        mut dw: TensorMut<'_, T>,
    ) -> Result<ConvAlgo> {
        let p = ConvProblem::new(
            ConvDirection::BackwardWeights,
            conv,
            x.desc,
            dw.desc,
            dy.desc,
        )?;
        // Core bwd-weights takes (image side, output side): (x, dy) for a convolution,
        // (dy, x) for a transposed one.
        let args = match conv.mode {
            ConvMode::Convolution => ConvArgs {
                a: x,
                b: dy,
                a_name: "x",
                b_name: "dy",
            },
            ConvMode::Transposed => ConvArgs {
                a: dy,
                b: x,
                a_name: "dy",
                b_name: "x",
            },
        };
        self.conv_run(&p, algo, args, alpha, Epilogue::NONE, beta, &mut dw, "dw")
    }

    /// Runs every applicable algorithm of `p` on random data on the handle's device and
    /// returns them fastest first (MIOpen's Find); the ranking is recorded in the find-db
    /// (a db that cannot be written gets a warning on stderr).
    pub fn find_convolution_algorithm(
        &self,
        p: &ConvProblem,
    ) -> Result<Vec<crate::find::AlgoPerf>> {
        self.engine("find_convolution_algorithm")?;
        let g = p.geom;
        let (a_len, b_len, out_len) = match p.op {
            CoreOp::Fwd => (g.x_len(), g.w_len(), g.y_len()),
            CoreOp::BwdData => (g.y_len(), g.w_len(), g.x_len()),
            CoreOp::BwdWeights => (g.x_len(), g.y_len(), g.w_len()),
        };
        let fill = |len: usize, seed: u64| -> Result<DeviceBuffer<f32>> {
            let v = rocm_core::host_alloc::try_from_fn("find operand", len, |i| {
                crate::dropout::uniform(seed, i as u64) - 0.5
            })?;
            DeviceBuffer::from_slice(self.device(), &v)
        };
        let (a, b) = (fill(a_len, 1)?, fill(b_len, 2)?);
        let mut out = DeviceBuffer::<f32>::zeros(self.device(), out_len)?;
        let mut perf = Vec::new();
        for algo in p.applicable() {
            let s = solver(algo);
            // One warm-up, then the best of up to three timed runs within ~0.5 s.
            let (a, b) = (a.as_slice(), b.as_slice());
            s.run(self, &g, p.op, a, b, out.as_slice_mut())?;
            let mut best = f64::INFINITY;
            let start = std::time::Instant::now();
            for _ in 0..3 {
                let t = std::time::Instant::now();
                s.run(self, &g, p.op, a, b, out.as_slice_mut())?;
                best = best.min(t.elapsed().as_secs_f64());
                if start.elapsed().as_secs_f64() > 0.5 {
                    break;
                }
            }
            perf.push(crate::find::AlgoPerf {
                algo,
                time_us: best * 1e6,
            });
        }
        perf.sort_by(|x, y| x.time_us.total_cmp(&y.time_us));
        // A db that cannot be written (read-only cache, full disk) costs a re-find next
        // time, not this call.
        if let Some(db) = self.find_db() {
            if let Err(e) = db.record(&self.find_db_key(p), &perf) {
                eprintln!("rocm-dnn: warning: find result not recorded: {e}");
            }
        }
        Ok(perf)
    }
}
