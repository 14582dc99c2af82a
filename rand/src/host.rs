//! The host API (cuRAND's shape): a [`Generator`] of one kind on one device, with a
//! seed, an offset and an ordering, filling device buffers. On the CPU device the same
//! generic code runs on plain values, in parallel over chunks of units (rayon).

use crate::dist::{uniform, Dist, Kind, Layout, PoissonTable, Unit};
use crate::gpu::{self, PoissonShape, Problem};
use crate::ops::Host;
use rayon::prelude::*;
use rocm_core::{BufferSliceMut, DType, Device, DeviceBuffer, Element, Error, Result, Stream};
use rocm_kernels::exec::DeviceView;
use std::sync::Arc;

/// cuRAND's orderings of pseudo-random results, as its host API lays them out
/// (measured against cuRAND 10400: `tests/vendor_sequences.rs`). Default and best are
/// one layout for every generator, and legacy is that layout for Philox and XORWOW;
/// MRG32k3a's legacy layout (4096 threads, not the default's 81920) is not reproduced
/// yet ([`crate::sequential`]). `PseudoDynamic` (laid out
/// per GPU by cuRAND) and `PseudoSeeded` (XORWOW's per-state seeding) are not
/// reproduced: setting them is `Unsupported`. Threefry (not in cuRAND) has one layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ordering {
    #[default]
    PseudoDefault,
    PseudoBest,
    PseudoLegacy,
    PseudoDynamic,
    /// XORWOW's per-state seeding in cuRAND; not provided.
    PseudoSeeded,
    /// The quasi-random generators' one ordering (the dimensions one after another:
    /// [`crate::quasi`]).
    QuasiDefault,
}

/// A random number generator: `kind` on `device`, at stream position `offset`
/// (counted in values of each call's distribution; each call advances it by the values
/// it writes, so successive calls continue the stream; the sequential generators count
/// it in chunks of their ordering, as cuRAND does: [`crate::sequential`]; the
/// quasi-random ones in points of each dimension: [`crate::quasi`]).
#[derive(Debug, Clone)]
pub struct Generator {
    device: Device,
    /// Where the GPU fills are queued (the device's default stream until set).
    stream: Option<Stream>,
    kind: Kind,
    seed: u64,
    offset: u64,
    ordering: Ordering,
    /// The quasi-random generators' dimensions (1 for the others).
    dimensions: u32,
    /// XORWOW's per-thread start states of the last seed (made once per seed: a
    /// subsequence jump per thread).
    xorwow_states: Option<(u64, Arc<Vec<crate::xorwow::State<u32>>>)>,
    /// The Sobol kernel's direction words of the last (generator, dimensions).
    sobol_words: Option<(Kind, u32, Arc<Vec<u32>>)>,
}

impl Generator {
    /// A generator of `kind` on `device` with seed 0 at offset 0.
    pub fn new(device: &Device, kind: Kind) -> Result<Generator> {
        Ok(Generator {
            device: device.clone(),
            stream: None,
            kind,
            seed: 0,
            offset: 0,
            ordering: if kind.quasi() {
                Ordering::QuasiDefault
            } else {
                Ordering::default()
            },
            dimensions: 1,
            xorwow_states: None,
            sobol_words: None,
        })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Queues this generator's GPU fills on `stream` (of the generator's device), as
    /// `curandSetStream` does; a fill captured into a graph replays the same values.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        if stream.device() != &self.device {
            return Err(Error::DeviceMismatch {
                what: "stream".into(),
                expected: self.device.id().into(),
                found: stream.device().id().into(),
            });
        }
        self.stream = Some(stream.clone());
        Ok(())
    }

    /// The stream GPU fills are queued on.
    pub fn stream(&self) -> &Stream {
        self.stream
            .as_ref()
            .unwrap_or_else(|| self.device.default_stream())
    }

    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
    }

    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Sets the ordering; one the generator does not have (`PseudoSeeded` and
    /// `PseudoDynamic` for every generator here) is `Unsupported`.
    pub fn set_ordering(&mut self, ordering: Ordering) -> Result<()> {
        if self.kind.quasi() != (ordering == Ordering::QuasiDefault) {
            return Err(Error::invalid(
                "ordering",
                format!(
                    "{ordering:?} is not an ordering of {} (the quasi-random generators \
                     have QuasiDefault only, the others the pseudo-random orderings)",
                    self.kind.name()
                ),
            ));
        }
        if self.kind.quasi() {
            self.ordering = ordering;
            return Ok(());
        }
        if !self.kind.counter_based() {
            crate::sequential::Order::of(self.kind, ordering, Dist::Bits)?;
        }
        if matches!(ordering, Ordering::PseudoSeeded | Ordering::PseudoDynamic) {
            return Err(Error::unsupported(
                "the PseudoSeeded ordering",
                self.device.target(),
            ));
        }
        self.ordering = ordering;
        Ok(())
    }

    pub fn ordering(&self) -> Ordering {
        self.ordering
    }

    /// Sets a quasi-random generator's dimensions (1..=20000, cuRAND's
    /// `curandSetQuasiRandomGeneratorDimensions`); a pseudo-random generator has none
    /// (`Unsupported`).
    pub fn set_dimensions(&mut self, dimensions: u32) -> Result<()> {
        if !self.kind.quasi() {
            return Err(Error::unsupported(
                format!("dimensions of {}", self.kind.name()),
                "a pseudo-random generator",
            ));
        }
        if !(1..=crate::sobol::DIMENSIONS).contains(&dimensions) {
            return Err(Error::invalid(
                "dimensions",
                format!("must be 1..={}, got {dimensions}", crate::sobol::DIMENSIONS),
            ));
        }
        self.dimensions = dimensions;
        Ok(())
    }

    pub fn dimensions(&self) -> u32 {
        self.dimensions
    }

    /// Random 32-bit words (cuRAND's `curandGenerate`).
    pub fn generate_u32(&mut self, out: &mut BufferSliceMut<'_, u32>) -> Result<()> {
        self.generate(Dist::Bits, out, 0.0, 1.0)
    }

    /// 64-bit words of the 64-bit quasi-random generators (cuRAND's
    /// `curandGenerateLongLong`), stored in an `i64` buffer (the same bits; rocm-core
    /// has no u64 element).
    pub fn generate_u64(&mut self, out: &mut BufferSliceMut<'_, i64>) -> Result<()> {
        self.generate(Dist::Bits, out, 0.0, 1.0)
    }

    /// Uniform values in (0, 1] (f32 or f64; f16 from the counter-based generators).
    pub fn generate_uniform<T: Element>(&mut self, out: &mut BufferSliceMut<'_, T>) -> Result<()> {
        self.generate(Dist::Uniform, out, 0.0, 1.0)
    }

    /// Normal values of `mean` and `stddev` (f32 or f64).
    pub fn generate_normal<T: Element>(
        &mut self,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
    ) -> Result<()> {
        self.generate(Dist::Normal, out, mean, stddev)
    }

    /// Log-normal values: `e^x` for `x` normal of `mean` and `stddev` (f32 or f64).
    pub fn generate_log_normal<T: Element>(
        &mut self,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
    ) -> Result<()> {
        self.generate(Dist::LogNormal, out, mean, stddev)
    }

    /// Poisson counts of mean `lambda` (0 < λ ≤ 2²⁴).
    pub fn generate_poisson(
        &mut self,
        out: &mut BufferSliceMut<'_, u32>,
        lambda: f64,
    ) -> Result<()> {
        self.generate(Dist::Poisson, out, lambda, 0.0)
    }

    /// `out.len()` values of `dist` (the normal distributions' `mean` and `stddev`;
    /// Poisson's λ is `mean`),
    /// from the generator's offset, which then advances by `out.len()`. Errors before
    /// any work: a dtype `dist` does not have, a non-finite `mean`/`stddev`, an offset
    /// whose values would pass the end of the stream.
    pub fn generate<T: Element>(
        &mut self,
        dist: Dist,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
    ) -> Result<()> {
        let table = match dist {
            Dist::Poisson => Some(PoissonTable::new(mean)?),
            _ => None,
        };
        self.generate_with(dist, out, mean, stddev, table)
    }

    /// Counts `k` drawn with probability proportional to `weights[k]`
    /// ([`PoissonTable::discrete`]: the CDF table searched by a uniform f64, by the same
    /// code as Poisson on every device), one per value like Poisson's.
    pub fn generate_discrete(
        &mut self,
        out: &mut BufferSliceMut<'_, u32>,
        table: &PoissonTable,
    ) -> Result<()> {
        self.generate_with(Dist::Poisson, out, 0.0, 0.0, Some(table.clone()))
    }

    fn generate_with<T: Element>(
        &mut self,
        dist: Dist,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
        table: Option<PoissonTable>,
    ) -> Result<()> {
        if !(mean.is_finite() && stddev.is_finite()) {
            return Err(Error::invalid(
                "mean/stddev",
                format!("must be finite, got mean {mean} and stddev {stddev}"),
            ));
        }
        if out.device() != &self.device {
            return Err(Error::DeviceMismatch {
                what: "output buffer".into(),
                expected: self.device.id().into(),
                found: out.device().id().into(),
            });
        }
        if self.kind.quasi() {
            return self.generate_quasi(dist, out, mean, stddev);
        }
        if !self.kind.counter_based() {
            return self.generate_sequential(dist, out, mean, stddev, table.as_ref());
        }
        let p = Problem {
            kind: self.kind,
            dist,
            dtype: T::DTYPE,
            n: out.len() as u64,
            offset: self.offset,
            seed: self.seed,
            mean,
            stddev,
            address: out.address(),
            poisson: table.as_ref().map(PoissonShape::of),
        };
        let (layout, _, _) = gpu::locate(&p)?;
        if let Some(host) = out.as_host_mut() {
            match &table {
                Some(t) => {
                    fill_poisson_host(&layout, p.seed, p.offset, t, bytemuck::cast_slice_mut(host))
                }
                None => fill_host(&layout, p.seed, p.offset, mean, stddev, host)?,
            }
        } else {
            let stream = self.stream();
            match &table {
                Some(t) => {
                    let cdf = DeviceBuffer::from_slice(&self.device, &t.cdf)?;
                    let cdf = cdf.as_slice();
                    let views = [DeviceView::write(out), DeviceView::read(&cdf)];
                    gpu::run(&p, stream, &views)?;
                    // The table lives until the fill has read it.
                    stream.synchronize()?;
                }
                None => gpu::run(&p, stream, &[DeviceView::write(out)])?,
            }
        }
        self.offset += p.n;
        Ok(())
    }
}

impl Generator {
    /// A quasi-random generator's fill: [`crate::quasi`] on the CPU, the Sobol kernel
    /// ([`crate::gpu_quasi`]: bits and uniforms) on a GPU.
    fn generate_quasi<T: Element>(
        &mut self,
        dist: Dist,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
    ) -> Result<()> {
        crate::quasi::check_dtype(self.kind, dist, T::DTYPE)?;
        let Some(host) = out.as_host_mut() else {
            // A GPU: the Sobol kernel, with the direction words of the dimensions.
            let p = crate::gpu_quasi::Problem {
                kind: self.kind,
                dims: self.dimensions,
                dist,
                dtype: T::DTYPE,
                n: out.len() as u64,
                offset: self.offset,
            };
            let per = crate::quasi::check(p.kind, p.dims, dist, p.dtype, p.offset, p.n)?;
            if p.n > 0 {
                let words = match &self.sobol_words {
                    Some((kind, dims, w)) if *kind == p.kind && *dims == p.dims => w.clone(),
                    _ => {
                        let w = Arc::new(crate::gpu_quasi::direction_words(p.kind, p.dims)?);
                        self.sobol_words = Some((p.kind, p.dims, w.clone()));
                        w
                    }
                };
                let stream = self.stream();
                let dirs = DeviceBuffer::from_slice(&self.device, &words)?;
                let dirs = dirs.as_slice();
                crate::gpu_quasi::run(
                    &p,
                    stream,
                    &[DeviceView::write(out), DeviceView::read(&dirs)],
                )?;
                // The direction words live until the fill has read them.
                stream.synchronize()?;
            }
            self.offset += per;
            return Ok(());
        };
        let advance = crate::quasi::fill(
            self.kind,
            self.dimensions,
            dist,
            self.offset,
            mean,
            stddev,
            host,
        )?;
        self.offset += advance;
        Ok(())
    }

    /// A sequential generator's fill: on the CPU, or XORWOW's kernel on a GPU.
    fn generate_sequential<T: Element>(
        &mut self,
        dist: Dist,
        out: &mut BufferSliceMut<'_, T>,
        mean: f64,
        stddev: f64,
        table: Option<&PoissonTable>,
    ) -> Result<()> {
        use crate::gpu_sequential as gs;
        if let Some(host) = out.as_host_mut() {
            let advance = crate::sequential::fill(
                self.kind,
                self.ordering,
                dist,
                self.seed,
                self.offset,
                mean,
                stddev,
                table,
                host,
            )?;
            self.offset += advance;
            return Ok(());
        }
        // XORWOW on a GPU: the work-items' start states made here, the values by the
        // kernel of `crate::gpu_sequential`.
        if self.kind != Kind::Xorwow {
            return Err(Error::unsupported(
                format!(
                    "{} on a GPU (its kernel is not written yet)",
                    self.kind.name()
                ),
                self.device.target(),
            ));
        }
        let order = crate::sequential::Order::of(self.kind, self.ordering, dist)?;
        let p = gs::Problem {
            dist,
            dtype: T::DTYPE,
            order,
            n: out.len() as u64,
            offset: self.offset,
            seed: self.seed,
            mean,
            stddev,
            poisson: table.map(PoissonShape::of),
        };
        let states = match &self.xorwow_states {
            Some((seed, s)) if *seed == self.seed && s.len() as u64 == order.threads => s.clone(),
            _ => {
                let s = Arc::new(gs::thread_states(self.seed, order.threads));
                self.xorwow_states = Some((self.seed, s.clone()));
                s
            }
        };
        let start = gs::start(&p, &states)?;
        if p.n > 0 {
            let stream = self.stream();
            let st = DeviceBuffer::from_slice(&self.device, &start.states)?;
            let st = st.as_slice();
            match table {
                Some(t) => {
                    let cdf = DeviceBuffer::from_slice(&self.device, &t.cdf)?;
                    let cdf = cdf.as_slice();
                    let views = [
                        DeviceView::write(out),
                        DeviceView::read(&st),
                        DeviceView::read(&cdf),
                    ];
                    gs::run(&p, &start, stream, &views)?;
                    // The inputs live until the fill has read them.
                    stream.synchronize()?;
                }
                None => {
                    gs::run(
                        &p,
                        &start,
                        stream,
                        &[DeviceView::write(out), DeviceView::read(&st)],
                    )?;
                    stream.synchronize()?;
                }
            }
        }
        self.offset += p.n.div_ceil(order.chunk);
        Ok(())
    }
}

/// Units per parallel task of the CPU path.
const CHUNK_UNITS: usize = 4096;

/// Fills `out` with the values of `layout` from stream position `offset` on the CPU.
pub fn fill_host<T: Element>(
    layout: &Layout,
    seed: u64,
    offset: u64,
    mean: f64,
    stddev: f64,
    out: &mut [T],
) -> Result<()> {
    fill_host_window(layout, seed, offset, 0, mean, stddev, out)
}

/// [`fill_host`]'s values from position `skip` of a call from `offset` on: a window of
/// a long call, made without the values before it.
pub fn fill_host_window<T: Element>(
    layout: &Layout,
    seed: u64,
    offset: u64,
    skip: u64,
    mean: f64,
    stddev: f64,
    out: &mut [T],
) -> Result<()> {
    let call = offset / layout.values as u64;
    let offset = offset
        .checked_add(skip)
        .ok_or_else(|| Error::invalid("skip", "passes the end of the stream"))?;
    if T::DTYPE != layout.dtype {
        return Err(Error::invalid(
            "dtype",
            format!("{} buffer for {} values", T::DTYPE, layout.dtype),
        ));
    }
    match layout.dtype {
        DType::U32 => {
            let out: &mut [u32] = bytemuck::cast_slice_mut(out);
            fill_units(layout, offset, out, |u| {
                layout.unit_words(&mut Host, u, call, seed_words(seed))
            });
        }
        DType::F32 => {
            let out: &mut [f32] = bytemuck::cast_slice_mut(out);
            let (m, s) = (mean as f32, stddev as f32);
            fill_units(layout, offset, out, |u| {
                layout.unit_floats::<f32, Host>(&mut Host, u, call, seed_words(seed), m, s)
            });
        }
        DType::F16 => {
            let out: &mut [half::f16] = bytemuck::cast_slice_mut(out);
            fill_units(layout, offset, out, |u| {
                layout.unit_halves(&mut Host, u, call, seed_words(seed))
            });
        }
        DType::F64 => {
            let out: &mut [f64] = bytemuck::cast_slice_mut(out);
            fill_units(layout, offset, out, |u| {
                let seed = seed_words(seed);
                layout.unit_floats::<f64, Host>(&mut Host, u, call, seed, mean, stddev)
            });
        }
        d => return Err(Error::invalid("dtype", format!("no random {d} values"))),
    }
    Ok(())
}

/// Fills `out` with Poisson counts searched in `table` on the CPU.
pub fn fill_poisson_host(
    layout: &Layout,
    seed: u64,
    offset: u64,
    table: &PoissonTable,
    out: &mut [u32],
) {
    let call = offset / layout.values as u64;
    fill_units(layout, offset, out, |u| {
        let words = layout.unit_words(&mut Host, u, call, seed_words(seed));
        words.map_groups(2, |w| table.sample(uniform::<f64, Host>(&mut Host, w)))
    });
}

fn seed_words(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Writes unit `u`'s values (`values(u)`) at their output positions: the rest of the
/// first unit, then whole chunks of units in parallel.
fn fill_units<T: Copy + Send + Sync>(
    layout: &Layout,
    offset: u64,
    out: &mut [T],
    values: impl Fn(u64) -> Unit<T> + Sync,
) {
    let v = layout.values as usize;
    let (unit0, lead) = (offset / v as u64, (offset % v as u64) as usize);
    let head = ((v - lead) % v).min(out.len());
    let (first, rest) = out.split_at_mut(head);
    if head > 0 {
        first.copy_from_slice(&values(unit0).as_slice()[lead..lead + head]);
    }
    let start = unit0 + (head > 0) as u64;
    rest.par_chunks_mut(v * CHUNK_UNITS)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (j, slot) in chunk.chunks_mut(v).enumerate() {
                let u = start + (c * CHUNK_UNITS + j) as u64;
                slot.copy_from_slice(&values(u).as_slice()[..slot.len()]);
            }
        });
}
