//! The plan API: describe a transform once ([`PlanBuilder`]), execute it many times
//! ([`Plan::execute`], [`Plan::execute_in_place`]).
//!
//! Shapes follow rocFFT: `lengths[0]` is the innermost dimension; a real-to-complex
//! transform of real lengths `(N0, N1, N2)` produces `(N0/2 + 1, N1, N2)` complex values
//! (the Hermitian half along axis 0). Layouts ([`Layout`]) count complex elements on a
//! complex side and reals on a real side. Complex data may live in a buffer of the
//! complex type (`Complex32`, `Complex64`) or of the real scalar (`f32`, `f64`, `f16`,
//! `bf16`) holding interleaved (re, im) pairs. Results are unnormalised unless a
//! [`PlanBuilder::scale`] is given.

use crate::cpu::{CpuPlan, Raw};
use crate::gpu::{GpuPlan, GpuProblem, SharedGpuPlan};
use crate::layout::Layout;
use crate::plan::{PlanTree, TransformType};
use crate::scalar::{Precision, Storage};
use half::{bf16, f16};
use num_complex::Complex;
use rocm_core::{BufferSlice, BufferSliceMut, Device, Element, Error, Result, Stream};
use rocm_kernels::exec::DeviceView;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Whether the output overwrites the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    InPlace,
    NotInPlace,
}

/// Describes a transform; [`PlanBuilder::build`] validates it and makes a [`Plan`].
#[derive(Debug, Clone)]
pub struct PlanBuilder {
    kind: TransformType,
    lengths: Vec<usize>,
    batch: usize,
    precision: Precision,
    placement: Placement,
    input: Option<Layout>,
    output: Option<Layout>,
    scale: f64,
}

impl PlanBuilder {
    /// A transform of `lengths` (1 to 3 of them, innermost first); batch 1, `f32`,
    /// out of place, contiguous layouts, no scaling.
    pub fn new(kind: TransformType, lengths: &[usize]) -> Self {
        PlanBuilder {
            kind,
            lengths: lengths.to_vec(),
            batch: 1,
            precision: Precision::F32,
            placement: Placement::NotInPlace,
            input: None,
            output: None,
            scale: 1.0,
        }
    }

    /// Number of transforms.
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    pub fn precision(mut self, p: Precision) -> Self {
        self.precision = p;
        self
    }

    pub fn placement(mut self, p: Placement) -> Self {
        self.placement = p;
        self
    }

    /// The input layout (default: contiguous; for in-place real-to-complex, rows padded
    /// to `2·(N0/2 + 1)` reals).
    pub fn input_layout(mut self, l: Layout) -> Self {
        self.input = Some(l);
        self
    }

    /// The output layout (default: contiguous; for in-place complex-to-real, rows padded
    /// to `2·(N0/2 + 1)` reals).
    pub fn output_layout(mut self, l: Layout) -> Self {
        self.output = Some(l);
        self
    }

    /// Multiplies every output by `scale` (e.g. `1/N` for a normalised inverse).
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// Validates the description and plans it for `device`.
    ///
    /// On a GPU device (CUDA, HIP, `emu:<gfx>`) the plan generates its kernels
    /// ([`crate::gpu`]); what the GPU path does not run yet is [`Error::Unsupported`]
    /// naming it. Errors: [`Error::InvalidArgument`] for empty or zero lengths, more than 3
    /// dimensions, a zero batch, a non-finite scale, strides of the wrong rank, an output
    /// layout whose elements overlap (within or across batches), an in-place transform
    /// whose input and output layouts differ, or an in-place real transform without
    /// the padding rows need.
    pub fn build(&self, device: &Device) -> Result<Plan> {
        let t0 = Instant::now();
        let rank = self.lengths.len();
        rocm_core::ensure_arg!(
            (1..=3).contains(&rank),
            "lengths",
            "a plan has 1, 2 or 3 dimensions, got {rank}"
        );
        rocm_core::ensure_arg!(
            self.lengths.iter().all(|&l| l > 0),
            "lengths",
            "every length must be at least 1, got {:?}",
            self.lengths
        );
        rocm_core::ensure_arg!(self.batch > 0, "batch", "must be at least 1");
        rocm_core::ensure_arg!(
            self.scale.is_finite(),
            "scale",
            "must be finite, got {}",
            self.scale
        );
        let total = self
            .lengths
            .iter()
            .try_fold(1usize, |a, &l| a.checked_mul(l))
            .and_then(|t| t.checked_mul(self.batch))
            .and_then(|t| t.checked_mul(4 * self.precision.compute_bytes()));
        rocm_core::ensure_arg!(
            total.is_some(),
            "lengths",
            "{:?} x batch {} overflows the address space",
            self.lengths,
            self.batch
        );
        let kind = self.kind;
        let real_lens = self.lengths.clone();
        let mut c_lens = self.lengths.clone();
        if kind.is_real() {
            c_lens[0] = real_lens[0] / 2 + 1;
        }
        let (in_lens, out_lens) = match kind {
            TransformType::ComplexForward | TransformType::ComplexInverse => {
                (c_lens.clone(), c_lens.clone())
            }
            TransformType::RealForward => (real_lens.clone(), c_lens.clone()),
            TransformType::RealInverse => (c_lens.clone(), real_lens.clone()),
        };
        let in_place = self.placement == Placement::InPlace;
        // Padded real layout for in-place real transforms: rows of 2·(N0/2+1) reals.
        let padded_real = {
            let mut l = Layout::contiguous(&c_lens);
            for s in &mut l.strides[1..] {
                *s *= 2;
            }
            l.distance *= 2;
            l
        };
        let default_for = |lens: &[usize], real_side: bool| {
            if real_side && in_place {
                padded_real.clone()
            } else {
                Layout::contiguous(lens)
            }
        };
        let in_real = kind == TransformType::RealForward;
        let out_real = kind == TransformType::RealInverse;
        let (input, output) = match (&self.input, &self.output, in_place && !kind.is_real()) {
            // In-place complex: one layout describes both sides.
            (Some(i), None, true) => (i.clone(), i.clone()),
            (None, Some(o), true) => (o.clone(), o.clone()),
            (i, o, _) => (
                i.clone().unwrap_or_else(|| default_for(&in_lens, in_real)),
                o.clone()
                    .unwrap_or_else(|| default_for(&out_lens, out_real)),
            ),
        };
        input.check_rank("input layout", rank)?;
        output.check_rank("output layout", rank)?;
        if !output.is_injective(&out_lens, self.batch) {
            return Err(Error::invalid(
                "output layout",
                format!(
                    "elements overlap (within a transform or across batches): strides {:?}, distance {}, lengths {:?}, batch {}",
                    output.strides, output.distance, out_lens, self.batch
                ),
            ));
        }
        for (what, l, lens) in [
            ("input layout", &input, &in_lens),
            ("output layout", &output, &out_lens),
        ] {
            rocm_core::ensure_arg!(
                l.extent(lens, self.batch).is_some(),
                what,
                "the largest index overflows the address space"
            );
        }
        if in_place {
            if !kind.is_real() {
                rocm_core::ensure_arg!(
                    input == output,
                    "output layout",
                    "an in-place complex transform needs the same input and output layouts; got {input:?} and {output:?}"
                );
            } else {
                // The real side and the complex side describe the same memory: the real
                // rows must be padded to hold N0/2+1 complex values.
                let (re, cx) = if in_real {
                    (&input, &output)
                } else {
                    (&output, &input)
                };
                let side = if in_real {
                    "input layout"
                } else {
                    "output layout"
                };
                rocm_core::ensure_arg!(
                    re.strides[0] == 1 && cx.strides[0] == 1,
                    side,
                    "in-place real transforms need unit stride along axis 0"
                );
                let row = if rank > 1 { re.strides[1] } else { re.distance };
                rocm_core::ensure_arg!(
                    self.batch == 1 && rank == 1 || row >= 2 * c_lens[0],
                    side,
                    "in-place real transforms of length {} need rows padded to 2*({}/2+1) = {} reals; the real row stride is {}",
                    real_lens[0],
                    real_lens[0],
                    2 * c_lens[0],
                    row
                );
                let same_rows = re.strides[1..]
                    .iter()
                    .zip(&cx.strides[1..])
                    .all(|(&r, &c)| r == 2 * c)
                    && (self.batch == 1 || re.distance == 2 * cx.distance)
                    && re.offset == 2 * cx.offset;
                rocm_core::ensure_arg!(
                    same_rows,
                    side,
                    "in-place real transforms need the real strides, distance and offset to be twice the complex ones (the same memory); real {re:?}, complex {cx:?}"
                );
            }
        }
        let tree = PlanTree::new(
            kind,
            &self.lengths,
            self.batch,
            2 * self.precision.compute_bytes(),
        );
        let exec = match self.precision {
            _ if !device.is_cpu() => {
                let problem = GpuProblem {
                    tree: &tree,
                    precision: self.precision,
                    in_place,
                    input: &input,
                    output: &output,
                    in_lens: &in_lens,
                    out_lens: &out_lens,
                    scale: self.scale,
                };
                ExecKind::Gpu(std::sync::Arc::new(GpuPlan::new(&problem, device)?))
            }
            Precision::F64 => ExecKind::F64(CpuPlan::new(&tree)?),
            _ => ExecKind::F32(CpuPlan::new(&tree)?),
        };
        Ok(Plan {
            device: device.clone(),
            tree,
            precision: self.precision,
            placement: self.placement,
            in_lens,
            out_lens,
            in_real,
            out_real,
            input,
            output,
            scale: self.scale,
            exec,
            plan_time: t0.elapsed(),
            work_cache: Default::default(),
        })
    }
}

#[derive(Debug, Clone)]
enum ExecKind {
    F32(CpuPlan<f32>),
    F64(CpuPlan<f64>),
    Gpu(SharedGpuPlan),
}

/// A planned transform: created once, executed many times.
#[derive(Debug, Clone)]
pub struct Plan {
    device: Device,
    tree: PlanTree,
    precision: Precision,
    placement: Placement,
    in_lens: Vec<usize>,
    out_lens: Vec<usize>,
    in_real: bool,
    out_real: bool,
    input: Layout,
    output: Layout,
    scale: f64,
    exec: ExecKind,
    plan_time: Duration,
    /// The work buffer of executions without a caller-supplied one, kept for the next
    /// call (shared by clones; a call that finds it busy allocates its own).
    work_cache: Arc<Mutex<Vec<Complex<f64>>>>,
}

impl Plan {
    /// The decomposition.
    pub fn tree(&self) -> &PlanTree {
        &self.tree
    }

    /// The generated kernels of a GPU plan (`None` on the CPU).
    pub fn gpu(&self) -> Option<&GpuPlan> {
        match &self.exec {
            ExecKind::Gpu(g) => Some(g),
            _ => None,
        }
    }

    /// The decomposition and layouts as text (`rocm-bench fft --explain`); a GPU plan
    /// adds its kernel node and launch plan.
    pub fn describe(&self) -> String {
        format!(
            "{}{}precision {}, {:?}, scale {}\ninput  {:?} of {:?}\noutput {:?} of {:?}\nwork buffer {} bytes, planned in {:?}\n",
            self.tree.describe(),
            self.gpu().map(|g| g.describe()).unwrap_or_default(),
            self.precision,
            self.placement,
            self.scale,
            self.input,
            self.in_lens,
            self.output,
            self.out_lens,
            self.work_buffer_size(),
            self.plan_time
        )
    }

    /// The device the plan was made for.
    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The resolved input layout.
    pub fn input_layout(&self) -> &Layout {
        &self.input
    }

    /// The resolved output layout.
    pub fn output_layout(&self) -> &Layout {
        &self.output
    }

    /// How long planning took.
    pub fn plan_time(&self) -> Duration {
        self.plan_time
    }

    /// Elements (of the input's side: complex or real) an input buffer needs.
    pub fn input_elements(&self) -> usize {
        self.input
            .extent(&self.in_lens, self.tree.batch)
            .unwrap_or(usize::MAX)
    }

    /// Elements (of the output's side) an output buffer needs.
    pub fn output_elements(&self) -> usize {
        self.output
            .extent(&self.out_lens, self.tree.batch)
            .unwrap_or(usize::MAX)
    }

    fn lane_bytes(&self) -> (usize, usize) {
        match &self.exec {
            ExecKind::F32(p) => (p.lane_len() * 8, p.lanes(self.tree.batch)),
            ExecKind::F64(p) => (p.lane_len() * 16, p.lanes(self.tree.batch)),
            ExecKind::Gpu(_) => (0, 0),
        }
    }

    /// Bytes of work buffer for full parallelism. A smaller one (at least
    /// [`Self::min_work_buffer_size`]) runs fewer transforms at once.
    pub fn work_buffer_size(&self) -> usize {
        let (b, l) = self.lane_bytes();
        b * l
    }

    /// The smallest work buffer accepted.
    pub fn min_work_buffer_size(&self) -> usize {
        self.lane_bytes().0
    }

    /// Out-of-place execution on `stream`. Buffers may be the complex type or the real
    /// scalar of the plan's precision (complex data then interleaved). `work`, if given,
    /// must hold at least [`Self::min_work_buffer_size`] bytes, aligned to the compute
    /// scalar; without it the plan allocates one.
    pub fn execute<I: Element, O: Element>(
        &self,
        stream: &Stream,
        input: &BufferSlice<'_, I>,
        output: &mut BufferSliceMut<'_, O>,
        work: Option<&mut BufferSliceMut<'_, u8>>,
    ) -> Result<()> {
        rocm_core::ensure_arg!(
            self.placement == Placement::NotInPlace,
            "placement",
            "this plan is in-place; use execute_in_place"
        );
        if let ExecKind::Gpu(_) = &self.exec {
            self.check_gpu_device(stream, "input", input.device())?;
            self.check_gpu_device(stream, "output", output.device())?;
        } else {
            self.check_device(stream, input.device())?;
            self.check_device(stream, output.device())?;
        }
        self.check_buffer::<I>("input", input.len(), self.in_real, self.input_elements())?;
        self.check_buffer::<O>(
            "output",
            output.len(),
            self.out_real,
            self.output_elements(),
        )?;
        if let ExecKind::Gpu(g) = &self.exec {
            return g.run(
                stream,
                &[DeviceView::read(input), DeviceView::write(output)],
            );
        }
        let src = input
            .as_host()
            .ok_or_else(|| Error::unsupported("rocm-fft execute", input.device().id()))?;
        let dev = output.device().clone();
        let dst = output
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("rocm-fft execute", dev.id()))?;
        // `output` is borrowed mutably for this call and `input` is a different (shared)
        // borrow, so the two do not alias; the executor only reads through `src`.
        self.dispatch(
            src.as_ptr() as *mut I,
            src.len(),
            dst.as_mut_ptr(),
            dst.len(),
            work,
        )
    }

    /// In-place execution on `stream`: `data` holds the input and receives the output.
    pub fn execute_in_place<T: Element>(
        &self,
        stream: &Stream,
        data: &mut BufferSliceMut<'_, T>,
        work: Option<&mut BufferSliceMut<'_, u8>>,
    ) -> Result<()> {
        rocm_core::ensure_arg!(
            self.placement == Placement::InPlace,
            "placement",
            "this plan is out-of-place; use execute"
        );
        if let ExecKind::Gpu(_) = &self.exec {
            self.check_gpu_device(stream, "data", data.device())?;
        } else {
            self.check_device(stream, data.device())?;
        }
        self.check_buffer::<T>("data", data.len(), self.in_real, self.input_elements())?;
        self.check_buffer::<T>("data", data.len(), self.out_real, self.output_elements())?;
        if let ExecKind::Gpu(g) = &self.exec {
            return g.run(stream, &[DeviceView::write(data)]);
        }
        let dev = data.device().clone();
        let host = data
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("rocm-fft execute", dev.id()))?;
        let (p, len) = (host.as_mut_ptr(), host.len());
        self.dispatch(p, len, p, len, work)
    }

    fn check_device(&self, stream: &Stream, buf: &Device) -> Result<()> {
        for d in [stream.device(), buf] {
            if !d.is_cpu() {
                return Err(Error::unsupported("rocm-fft execute", d.id()));
            }
        }
        Ok(())
    }

    /// A GPU plan runs on its own device's streams and buffers.
    fn check_gpu_device(&self, stream: &Stream, what: &str, buf: &Device) -> Result<()> {
        for (w, d) in [("stream", stream.device()), (what, buf)] {
            if d != &self.device {
                return Err(Error::DeviceMismatch {
                    what: format!("rocm-fft plan's {w}"),
                    expected: self.device.id().into(),
                    found: d.id().into(),
                });
            }
        }
        Ok(())
    }

    /// Checks a buffer's dtype and that it holds `need` elements of its side.
    fn check_buffer<E: Element>(
        &self,
        what: &str,
        len: usize,
        real: bool,
        need: usize,
    ) -> Result<()> {
        if !self.precision.accepts(E::DTYPE) {
            return Err(Error::invalid(
                what,
                format!(
                    "a {} plan cannot use a buffer of {}",
                    self.precision,
                    E::DTYPE
                ),
            ));
        }
        let scalars = if E::DTYPE.is_complex() { 2 * len } else { len };
        let have = if real { scalars } else { scalars / 2 };
        if have < need {
            return Err(Error::invalid(
                what,
                format!(
                    "buffer too small: the layout needs {need} {} elements, the buffer holds {have}",
                    if real { "real" } else { "complex" }
                ),
            ));
        }
        Ok(())
    }

    fn dispatch<I: Element, O: Element>(
        &self,
        src: *mut I,
        src_len: usize,
        dst: *mut O,
        dst_len: usize,
        work: Option<&mut BufferSliceMut<'_, u8>>,
    ) -> Result<()> {
        let si = if I::DTYPE.is_complex() { 2 } else { 1 };
        let so = if O::DTYPE.is_complex() { 2 } else { 1 };
        macro_rules! go {
            ($s:ty, $p:expr) => {{
                // SAFETY: the callers checked that both pointers cover their lengths of
                // I/O elements, whose dtypes (checked) are $s or complex pairs of $s, so
                // they are valid for si·len (so·len) scalars of $s with $s's alignment.
                let (s, d) = unsafe {
                    (
                        Raw::new(src as *mut $s, src_len * si),
                        Raw::new(dst as *mut $s, dst_len * so),
                    )
                };
                self.run::<$s>($p, s, d, work)
            }};
        }
        match (&self.exec, self.precision) {
            (ExecKind::F32(p), Precision::F32) => go!(f32, p),
            (ExecKind::F32(p), Precision::F16) => go!(f16, p),
            (ExecKind::F32(p), Precision::Bf16) => go!(bf16, p),
            (ExecKind::F64(p), Precision::F64) => go!(f64, p),
            _ => Err(Error::invalid("precision", "plan and executor disagree")),
        }
    }

    fn run<S: Storage>(
        &self,
        p: &CpuPlan<S::Compute>,
        src: Raw<S>,
        dst: Raw<S>,
        work: Option<&mut BufferSliceMut<'_, u8>>,
    ) -> Result<()> {
        // Layouts in scalars of each side: a complex element is two scalars, handled
        // by the executor; real sides are already in scalars.
        let batch = self.tree.batch;
        let lane = p.lane_len();
        // Tables deferred to the first execution, built here so that one that cannot
        // be held is this call's error.
        p.prepare()?;
        match work {
            Some(w) => {
                let dev = w.device().clone();
                let bytes = w
                    .as_host_mut()
                    .ok_or_else(|| Error::unsupported("rocm-fft work buffer", dev.id()))?;
                let cs = std::mem::size_of::<Complex<S::Compute>>();
                let usable = bytes.len() / cs * cs;
                let work: &mut [Complex<S::Compute>] =
                    bytemuck::try_cast_slice_mut(&mut bytes[..usable]).map_err(|_| {
                        Error::invalid(
                            "work buffer",
                            format!("must be aligned to {} bytes", cs / 2),
                        )
                    })?;
                rocm_core::ensure_arg!(
                    work.len() >= lane,
                    "work buffer",
                    "too small: needs at least {} bytes ({} for full parallelism), got {}",
                    lane * cs,
                    self.work_buffer_size(),
                    bytes.len()
                );
                p.execute(src, dst, &self.input, &self.output, batch, self.scale, work);
            }
            None => {
                const WHAT: &str = "rocm-fft work buffer";
                let len = rocm_core::host_alloc::elements(WHAT, &[lane, p.lanes(batch)])?;
                let run = |work: &mut [Complex<S::Compute>]| {
                    p.execute(src, dst, &self.input, &self.output, batch, self.scale, work)
                };
                match self.work_cache.try_lock() {
                    Ok(mut cache) => {
                        let cs = std::mem::size_of::<Complex<S::Compute>>();
                        let bytes = rocm_core::host_alloc::elements(WHAT, &[len, cs])?;
                        let slots = bytes.div_ceil(std::mem::size_of::<Complex<f64>>());
                        let have = cache.len();
                        if have < slots {
                            cache.try_reserve_exact(slots - have).map_err(|_| {
                                Error::OutOfMemory {
                                    device: format!("host ({WHAT})"),
                                    bytes,
                                }
                            })?;
                            cache.resize(slots, Complex::new(0.0, 0.0));
                        }
                        let work: &mut [Complex<S::Compute>] =
                            bytemuck::cast_slice_mut(&mut cache[..slots]);
                        run(&mut work[..len]);
                    }
                    Err(_) => {
                        let zero = Complex::new(S::Compute::zero(), S::Compute::zero());
                        run(&mut rocm_core::host_alloc::try_vec(WHAT, len, zero)?);
                    }
                }
            }
        }
        Ok(())
    }
}

use num_traits::Zero as _;
