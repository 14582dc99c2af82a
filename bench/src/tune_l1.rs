//! `rocm-bench tune l1`: times candidate Level 1 variants per (op, dtype) on one GPU
//! and writes the target's catalog.
//!
//! The candidates are [`rocm_kernels::level1::tuning_candidates`] (block × unroll ×
//! grid × vector bytes, grid-stride variants for elementwise ops) for the device's
//! compute units. Each is put in force alone through [`Catalog::install`] and timed
//! through the library's own entry point (`Blas::dot`, `Blas::nrm2`, ...: what
//! `rocm-bench blas l1` measures, plan, first pass, finish and result download
//! included). The catalog in force before the run (the built-in one, or `--base FILE`)
//! is timed first as the baseline; the fastest candidate replaces the base's entry for
//! the same key and size only when it beats the baseline, and the catalog is written to
//! `--out` with the run described in its `source`.

use crate::blas::time;
use crate::tune::{merge, spread, write_catalog};
use rocm_blas::Blas;
use rocm_core::scalar::Scalar;
use rocm_core::{DType, Device, DeviceBuffer, Error, Result};
use rocm_kernels::catalog::{Catalog, Entry};
use rocm_kernels::generator::Generator;
use rocm_kernels::level1::{tuning_candidates, L1Op, Level1, Level1Params};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct TuneL1Args {
    #[arg(long)]
    device: Option<String>,
    /// Operations, comma-separated: dot, sum, asum, nrm2, iamax, iamin, axpy, copy, scal.
    #[arg(long)]
    op: String,
    /// Element types, comma-separated: f32, f64.
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Elements per vector (default: 1 GiB vectors, as `blas l1`: 2^28 f32, 2^27 f64).
    #[arg(long)]
    n: Option<usize>,
    /// Increment of every vector (1: the contiguous variants; else the strided ones).
    #[arg(long, default_value_t = 1)]
    inc: usize,
    /// Where to write the catalog.
    #[arg(long)]
    out: PathBuf,
    /// The catalog to merge into (default: the one in force for the device's target).
    #[arg(long)]
    base: Option<PathBuf>,
    /// Timed calls per candidate (after two warm-up calls).
    #[arg(long, default_value_t = 20)]
    iters: u32,
    /// At most this many candidates per (op, dtype): an even spread over the table.
    #[arg(long)]
    max_candidates: Option<usize>,
}

/// An operation name of `--op`.
fn parse_op(name: &str) -> Result<L1Op> {
    Ok(match name {
        "dot" => L1Op::Dot { conj: false },
        "sum" => L1Op::Sum,
        "asum" => L1Op::Asum,
        "nrm2" => L1Op::Nrm2,
        "iamax" => L1Op::Iamax { max: true },
        "iamin" => L1Op::Iamax { max: false },
        "axpy" => L1Op::Axpby { read_y: true },
        "copy" => L1Op::Copy,
        "scal" => L1Op::Scal,
        _ => {
            return Err(Error::invalid(
                "op",
                format!(
                    "{name:?} is not one of dot, sum, asum, nrm2, iamax, iamin, axpy, copy, scal"
                ),
            ))
        }
    })
}

/// A dtype name of `--dtype`.
fn parse_dtype(name: &str) -> Result<DType> {
    match name {
        "f32" => Ok(DType::F32),
        "f64" => Ok(DType::F64),
        _ => Err(Error::invalid(
            "dtype",
            format!("{name:?}: Level 1 tuning covers f32 and f64"),
        )),
    }
}

/// The comma-separated items of a flag, each parsed.
fn list<T>(text: &str, parse: impl Fn(&str) -> Result<T>) -> Result<Vec<T>> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(parse)
        .collect()
}

/// The catalog entry of `p` tuned at `n` elements.
fn entry(p: &Level1Params, n: usize) -> serde_json::Result<Entry> {
    Ok(Entry {
        generator: Level1::NAME.into(),
        key: Level1Params::key(p.op, p.dtype, p.contiguous),
        size: n as u64,
        shape: None,
        params: serde_json::to_value(p)?,
    })
}

/// A compact name of a variant.
fn describe(p: &Level1Params) -> String {
    format!(
        "block {} unroll {} grid {}{} vector {}",
        p.block,
        p.unroll,
        p.grid,
        if p.grid_stride { " grid-stride" } else { "" },
        p.vector_bytes
    )
}

/// The vectors one tuning run reads and writes, and the timing of one op on them.
struct Vectors<T: Scalar> {
    x: DeviceBuffer<T>,
    y: DeviceBuffer<T>,
    n: usize,
    inc: isize,
}

impl<T: Scalar> Vectors<T> {
    fn new(dev: &Device, n: usize, inc: usize) -> Result<Self> {
        let len = n
            .checked_sub(1)
            .map_or(Some(0), |last| last.checked_mul(inc)?.checked_add(1))
            .ok_or_else(|| Error::invalid("n", format!("{n} × increment {inc} overflows")))?;
        let real = |v: f64| {
            T::from_real(num_traits::NumCast::from(v).unwrap_or_else(num_traits::Zero::zero))
        };
        let host: Vec<T> = (0..len)
            .map(|i| real(((i % 1000) as f64) * 1e-3 - 0.5))
            .collect();
        let inc = isize::try_from(inc).map_err(|_| Error::invalid("inc", "above isize::MAX"))?;
        Ok(Vectors {
            x: DeviceBuffer::from_slice(dev, &host)?,
            y: DeviceBuffer::from_slice(dev, &host)?,
            n,
            inc,
        })
    }

    /// Mean seconds per call of `op` through the library (two warm-ups first).
    fn time(&mut self, dev: &Device, blas: &Blas, op: L1Op, iters: u32) -> Result<f64> {
        let (n, inc) = (self.n, self.inc);
        let xs = self.x.as_slice();
        let half =
            T::from_real(num_traits::NumCast::from(0.5).unwrap_or_else(num_traits::Zero::zero));
        match op {
            L1Op::Dot { .. } => {
                let ys = self.y.as_slice();
                time(dev, iters, || blas.dot(n, &xs, inc, &ys, inc).map(|_| ()))
            }
            L1Op::Sum => time(dev, iters, || blas.sum(n, &xs, inc).map(|_| ())),
            L1Op::Asum => time(dev, iters, || blas.asum(n, &xs, inc).map(|_| ())),
            L1Op::Nrm2 => time(dev, iters, || blas.nrm2(n, &xs, inc).map(|_| ())),
            L1Op::Iamax { max: true } => time(dev, iters, || blas.iamax(n, &xs, inc).map(|_| ())),
            L1Op::Iamax { max: false } => time(dev, iters, || blas.iamin(n, &xs, inc).map(|_| ())),
            L1Op::Axpby { .. } => time(dev, iters, || {
                blas.axpy(n, half, &xs, inc, &mut self.y.as_slice_mut(), inc)
            }),
            L1Op::Copy => time(dev, iters, || {
                blas.copy(n, &xs, inc, &mut self.y.as_slice_mut(), inc)
            }),
            L1Op::Scal => time(dev, iters, || {
                blas.scal(n, half, &mut self.y.as_slice_mut(), inc)
            }),
            op => Err(Error::unsupported(format!("tuning {op:?}"), "rocm-bench")),
        }
    }
}

/// What one (op, dtype) tuning found: the baseline's and the best candidate's seconds.
struct Outcome {
    line: String,
    keep: Option<Entry>,
}

/// Tunes `op` on `dtype` at `n` elements: baseline, then every candidate.
fn tune_one<T: Scalar>(
    dev: &Device,
    a: &TuneL1Args,
    catalog: &Catalog,
    op: L1Op,
    n: usize,
) -> std::result::Result<Outcome, Box<dyn std::error::Error>> {
    let contiguous = a.inc == 1;
    let all = tuning_candidates(op, T::DTYPE, contiguous, dev.info().compute_units)?;
    let candidates = spread(&all, a.max_candidates.unwrap_or(all.len()));
    let key = Level1Params::key(op, T::DTYPE, contiguous);
    println!(
        "# {key} n {n}: {} candidates ({} in the table), {} calls each",
        candidates.len(),
        all.len(),
        a.iters
    );
    let mut v = Vectors::<T>::new(dev, n, a.inc)?;
    let blas = Blas::new(dev);
    Catalog::install(catalog.clone());
    let baseline = v.time(dev, &blas, op, a.iters);
    match &baseline {
        Ok(s) => println!("  {:>9.4} ms  baseline (catalog in force)", s * 1e3),
        Err(e) => println!("  baseline failed: {e}"),
    }
    let mut best: Option<(f64, Level1Params)> = None;
    for p in &candidates {
        Catalog::install(Catalog {
            source: "tuning candidate".into(),
            entries: vec![entry(p, n)?],
        });
        match v.time(dev, &blas, op, a.iters) {
            Ok(secs) => {
                println!("  {:>9.4} ms  {}", secs * 1e3, describe(p));
                if best.as_ref().is_none_or(|(b, _)| secs < *b) {
                    best = Some((secs, p.clone()));
                }
            }
            Err(e) => println!("  failed: {}: {e}", describe(p)),
        }
    }
    Catalog::uninstall();
    Ok(decide(&key, n, baseline.ok(), best)?)
}

/// The summary line of one tuning and the entry to keep (the best candidate, when it
/// beats the baseline or there is none).
fn decide(
    key: &str,
    n: usize,
    baseline: Option<f64>,
    best: Option<(f64, Level1Params)>,
) -> serde_json::Result<Outcome> {
    let Some((secs, p)) = best else {
        return Ok(Outcome {
            line: format!("{key} n {n}: no candidate ran"),
            keep: None,
        });
    };
    let keep = baseline.is_none_or(|b| secs < b);
    let line = format!(
        "{key} n {n}: {} {:.4} ms (baseline {}){}",
        describe(&p),
        secs * 1e3,
        baseline.map_or("-".into(), |b| format!("{:.4} ms", b * 1e3)),
        if keep { "" } else { " (baseline kept)" }
    );
    Ok(Outcome {
        line,
        keep: if keep { Some(entry(&p, n)?) } else { None },
    })
}

pub fn run(a: &TuneL1Args) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let ops = list(&a.op, parse_op)?;
    let dtypes = list(&a.dtype, parse_dtype)?;
    if ops.is_empty() || dtypes.is_empty() {
        return Err(Error::invalid("op/dtype", "name at least one operation and one dtype").into());
    }
    if a.inc == 0 {
        return Err(Error::invalid("inc", "the increment must be at least 1").into());
    }
    if a.iters == 0 {
        return Err(Error::invalid("iters", "time at least one call").into());
    }
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    if dev.is_cpu() {
        return Err(Error::unsupported(
            "tune l1 times GPU kernels; the CPU runs host code with no kernel variants",
            dev.id(),
        )
        .into());
    }
    let mut catalog = match &a.base {
        Some(path) => Catalog::parse(
            &std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?,
        )?,
        None => Catalog::for_target(dev.target()).clone(),
    };
    println!(
        "device {} ({}, {} compute units)",
        dev.id(),
        dev.info().name,
        dev.info().compute_units
    );
    let mut summary = Vec::new();
    for &dtype in &dtypes {
        // 1 GiB vectors by default, as `blas l1`.
        let n = a.n.unwrap_or((1usize << 30) / dtype.size());
        for &op in &ops {
            let outcome = match dtype {
                DType::F64 => tune_one::<f64>(&dev, a, &catalog, op, n)?,
                _ => tune_one::<f32>(&dev, a, &catalog, op, n)?,
            };
            println!("best: {}", outcome.line);
            summary.push(outcome.line);
            if let Some(e) = outcome.keep {
                merge(&mut catalog, e);
            }
        }
    }
    write_catalog(catalog, "l1", &dev, &summary, &a.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(device: &str, out: PathBuf) -> TuneL1Args {
        TuneL1Args {
            device: Some(device.into()),
            op: "dot,iamax".into(),
            dtype: "f32,f64".into(),
            n: Some(1000),
            inc: 1,
            out,
            base: None,
            iters: 1,
            max_candidates: Some(2),
        }
    }

    #[test]
    fn names_parse_and_bad_ones_are_refused() {
        assert_eq!(
            list("dot, nrm2,iamin", parse_op).unwrap(),
            vec![
                L1Op::Dot { conj: false },
                L1Op::Nrm2,
                L1Op::Iamax { max: false }
            ]
        );
        assert!(list("dot,rotm", parse_op).is_err());
        assert_eq!(list("f64", parse_dtype).unwrap(), vec![DType::F64]);
        assert!(parse_dtype("c32").is_err());
    }

    #[test]
    fn the_best_candidate_replaces_only_its_key_and_size_and_only_when_faster() {
        let p = |grid| Level1Params {
            grid,
            ..Level1Params::fallback(L1Op::Nrm2, DType::F32, true)
        };
        let kept = decide("nrm2/f32/contiguous", 64, Some(2.0), Some((1.0, p(528)))).unwrap();
        let e = kept.keep.expect("faster than the baseline: kept");
        assert_eq!((e.key.as_str(), e.size), ("nrm2/f32/contiguous", 64));
        let back: Level1Params = serde_json::from_value(e.params.clone()).unwrap();
        assert_eq!(back, p(528));
        let slower = decide("nrm2/f32/contiguous", 64, Some(1.0), Some((2.0, p(528)))).unwrap();
        assert!(slower.keep.is_none() && slower.line.ends_with("(baseline kept)"));
        assert!(decide("k", 1, None, None).unwrap().keep.is_none());

        let other = |key: &str, size| Entry {
            generator: Level1::NAME.into(),
            key: key.into(),
            size,
            shape: None,
            params: serde_json::json!(0),
        };
        let mut c = Catalog {
            source: String::new(),
            entries: vec![
                other("nrm2/f32/contiguous", 64),
                other("nrm2/f32/contiguous", 1 << 28),
                other("asum/f32/contiguous", 64),
            ],
        };
        merge(&mut c, e);
        let keys: Vec<(String, u64)> = c.entries.iter().map(|e| (e.key.clone(), e.size)).collect();
        assert_eq!(
            keys[..2],
            [
                ("nrm2/f32/contiguous".into(), 1 << 28),
                ("asum/f32/contiguous".into(), 64)
            ]
        );
        assert_eq!(c.entries.len(), 3);
        // The written catalog parses back, the tuned entry selected at its size.
        let text = serde_json::to_string(&c).unwrap();
        let back = Catalog::parse(&text).unwrap();
        let chosen: Level1Params = back.select(
            Level1::NAME,
            "nrm2/f32/contiguous",
            64,
            Level1Params::fallback(L1Op::Nrm2, DType::F32, true),
        );
        assert_eq!(chosen.grid, 528);
    }

    #[test]
    fn the_cpu_is_refused_with_a_reason() {
        let out = std::env::temp_dir().join("rocm-bench-tune-l1-cpu.json");
        let e = run(&args("cpu", out.clone())).unwrap_err().to_string();
        assert!(e.contains("GPU"), "{e}");
        assert!(!out.exists());
    }

    #[test]
    fn tunes_end_to_end_on_the_emulator() {
        let out =
            std::env::temp_dir().join(format!("rocm-bench-tune-l1-{}.json", std::process::id()));
        run(&args("emu:gfx90a", out.clone())).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        std::fs::remove_file(&out).ok();
        let c = Catalog::parse(&text).unwrap();
        assert!(
            c.source.contains("rocm-bench tune l1 on emu:gfx90a"),
            "{}",
            c.source
        );
        for key in [
            "dot/f32/contiguous",
            "iamax/f32/contiguous",
            "dot/f64/contiguous",
            "iamax/f64/contiguous",
        ] {
            assert!(c.source.contains(key), "{key} not reported: {}", c.source);
            // Kept or not, an entry at n = 1000 is one of the timed candidates.
            let cus = Device::open("emu:gfx90a").unwrap().info().compute_units;
            for e in c.entries.iter().filter(|e| e.key == key && e.size == 1000) {
                let p: Level1Params = serde_json::from_value(e.params.clone()).unwrap();
                let table = tuning_candidates(p.op, p.dtype, true, cus).unwrap();
                assert!(table.contains(&p), "{p:?} is not a candidate");
            }
        }
    }
}
