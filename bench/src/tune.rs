//! `rocm-bench tune gemm`: times candidate kernel parameters per problem on one device
//! and writes the target's catalog (Tensile's tuning step).
//!
//! For each problem (the benchmark shapes, or `--sizes FILE`), the generator
//! family lists its candidates ([`rocm_kernels::gemm::ptx::tuning_candidates`]); those
//! that do not fit the problem (tiles far larger than it, or tiny tiles on a problem
//! that fills the device many times over) are skipped, then each candidate is put in
//! force alone through [`Catalog::install`] and timed through the library's own entry
//! point (`rocm-bench blas gemm`'s measurement), so the time includes what a user's call
//! pays (selection, repacking, split-K). The fastest is kept. The catalog in force
//! before the run (the built-in one, or `--base FILE`) is timed too, as the baseline.
//! The winners replace the base catalog's entries for the same key and shape, and the
//! result is written to `--out` with the run described in its `source`.
//!
//! Sizes file: one problem a line, `dtype m n k [batch] [NN|NT|TN|TT]`, `#` comments;
//! dtype is f32, tf32, f64, f16 or bf16 (16-bit types tune the same-type-output
//! `gemm_ex` kernels).

use crate::blas_gemm::{self, Dtype, Problem};
use rocm_core::{DType, Device, Error, Result};
use rocm_kernels::catalog::{Catalog, Entry};
use rocm_kernels::gemm::{ptx, Gemm, GemmInstruction, GemmParams};
use rocm_kernels::generator::Generator;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum TuneCommand {
    /// Tune GEMM kernels for problems on one device and write its catalog.
    Gemm(TuneGemmArgs),
    /// Tune Level 1 kernels (block, unroll, grid, vector bytes) per op and dtype on one
    /// GPU and write its catalog.
    L1(crate::tune_l1::TuneL1Args),
}

#[derive(clap::Args)]
pub struct TuneGemmArgs {
    #[arg(long)]
    device: Option<String>,
    /// Problems, one a line: `dtype m n k [batch] [NN|NT|TN|TT]` (default: the GEMM
    /// issue's benchmark shapes).
    #[arg(long)]
    sizes: Option<PathBuf>,
    /// Where to write the catalog.
    #[arg(long)]
    out: PathBuf,
    /// The catalog to merge into (default: the one in force for the device's target).
    #[arg(long)]
    base: Option<PathBuf>,
    /// Timed calls per candidate (default: as `blas gemm`, about 2·10^13 flops' worth,
    /// halved).
    #[arg(long)]
    iters: Option<u32>,
    /// At most this many candidates per problem (an even spread over the fitting ones).
    #[arg(long, default_value_t = 48)]
    max_candidates: usize,
    /// Only candidates whose description (as printed: tile, warps, instruction, stages)
    /// contains this text, e.g. `MmaSync { m: 16` or `stages 4`; `|` separates
    /// alternatives.
    #[arg(long)]
    only: Option<String>,
    /// Also time cuBLAS on each problem (needs `--features vendor`).
    #[arg(long)]
    vendor: bool,
    /// Also offer the register-tiled kernels of the other three operand layouts: the
    /// call then transposes the operands whose layout differs into the handle's
    /// workspace first, and the copies are timed with the kernel.
    #[arg(long)]
    flip: bool,
}

/// The GEMM issue's benchmark problems.
const DEFAULT_SIZES: &str = "\
f32 8192 8192 8192
tf32 8192 8192 8192
f64 8192 8192 8192
f32 64 64 64 10000
bf16 8192 8192 8192
bf16 4097 4097 4097
bf16 64 8192 8192
bf16 8192 8192 64
";

pub fn run(cmd: &TuneCommand) -> std::result::Result<(), Box<dyn std::error::Error>> {
    match cmd {
        TuneCommand::Gemm(a) => gemm(a),
        TuneCommand::L1(a) => crate::tune_l1::run(a),
    }
}

/// One line of a sizes file.
fn parse_line(line: &str) -> Result<Option<(Dtype, Problem)>> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(None);
    }
    let bad = |why: &str| Error::invalid("sizes", format!("{line:?}: {why}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 4 {
        return Err(bad("expected `dtype m n k [batch] [NN|NT|TN|TT]`"));
    }
    let dtype = Dtype::parse(words[0])?;
    if matches!(dtype, Dtype::C32 | Dtype::C64) {
        return Err(bad(
            "complex GEMM runs the real kernels on 2m×n×2k: tune that f32/f64 problem",
        ));
    }
    let num = |w: &str| {
        w.parse::<usize>()
            .map_err(|_| bad("m, n, k and batch are counts"))
    };
    let (m, n, k) = (num(words[1])?, num(words[2])?, num(words[3])?);
    let batch = match words.get(4) {
        Some(w) => num(w)?,
        None => 1,
    };
    let (ta, tb) = match words.get(5).copied() {
        None | Some("NN") => (false, false),
        Some("NT") => (false, true),
        Some("TN") => (true, false),
        Some("TT") => (true, true),
        Some(_) => return Err(bad("transposes are NN, NT, TN or TT")),
    };
    if m == 0 || n == 0 || k == 0 || batch == 0 {
        return Err(bad("m, n, k and batch must be at least 1"));
    }
    Ok(Some((
        dtype,
        Problem {
            m,
            n,
            k,
            batch,
            ta,
            tb,
        },
    )))
}

/// Whether `p` is worth timing on `prob`: its tiles not over twice the problem's
/// extents (rounded up to 32), and on matrices of at least 512 × 512 with at least
/// eight waves of 128×128 tiles over 132 SMs, no tile under 64×64.
fn fits(p: &GemmParams, prob: &Problem) -> bool {
    let round = |v: usize| (v.max(32).next_power_of_two()) as u32;
    if p.tile_m > 2 * round(prob.m) || p.tile_n > 2 * round(prob.n) {
        return false;
    }
    let big_tiles = prob.m.div_ceil(128) * prob.n.div_ceil(128) * prob.batch;
    let large = prob.m >= 512 && prob.n >= 512 && big_tiles >= 8 * 132;
    !(large && p.tile_m * p.tile_n < 64 * 64)
}

/// `take` of `v`, evenly spread (all of it when it is short enough).
pub(crate) fn spread<T: Clone>(v: &[T], take: usize) -> Vec<T> {
    if v.len() <= take {
        return v.to_vec();
    }
    (0..take).map(|i| v[i * v.len() / take].clone()).collect()
}

/// The catalog of `base` with `entry` replacing any entry of the same generator, key and
/// shape.
pub(crate) fn merge(base: &mut Catalog, entry: Entry) {
    base.entries.retain(|e| {
        let same_shape = match (&e.shape, &entry.shape) {
            (Some(a), Some(b)) => a == b,
            (None, _) => e.size == entry.size,
            _ => false,
        };
        !(e.generator == entry.generator && e.key == entry.key && same_shape)
    });
    base.entries.push(entry);
}

fn gemm(a: &TuneGemmArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let text = match &a.sizes {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?
        }
        None => DEFAULT_SIZES.to_string(),
    };
    let mut problems = Vec::new();
    for line in text.lines() {
        if let Some(p) = parse_line(line)? {
            problems.push(p);
        }
    }
    let mut catalog = match &a.base {
        Some(path) => Catalog::parse(
            &std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?,
        )?,
        None => Catalog::for_target(dev.target()).clone(),
    };
    println!("device {} ({})", dev.id(), dev.info().name);
    let mut summary = Vec::new();
    for (dtype, prob) in problems {
        let (ab, c, reduced) = dtype.classes();
        let mut all = ptx::tuning_candidates(dev.target(), ab, c, prob.ta, prob.tb, reduced);
        if a.flip {
            // Filed under the problem's own key: the selection looks the call's layout up.
            let compute = if ab == DType::F64 { ab } else { DType::F32 };
            let own = GemmParams::key(ab, c, compute, prob.ta, prob.tb)
                + if reduced { "/tf32" } else { "" };
            for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
                if (ta, tb) == (prob.ta, prob.tb) {
                    continue;
                }
                all.extend(
                    ptx::tuning_candidates(dev.target(), ab, c, ta, tb, reduced)
                        .into_iter()
                        .filter(|(_, p)| !matches!(p.instruction, GemmInstruction::Wgmma { .. }))
                        .map(|(_, p)| (own.clone(), p)),
                );
            }
        }
        let wanted = |p: &GemmParams| {
            a.only
                .as_ref()
                .is_none_or(|o| o.split('|').any(|alt| describe(p).contains(alt)))
        };
        let fitting: Vec<_> = all
            .iter()
            .filter(|(_, p)| fits(p, &prob) && wanted(p))
            .cloned()
            .collect();
        let candidates = spread(&fitting, a.max_candidates);
        let iters = a
            .iters
            .unwrap_or_else(|| (blas_gemm::iterations(&prob, None) / 2).max(3));
        println!(
            "# {} {}x{}x{} batch {} {}{}: {} candidates ({} generate, {} fit), {iters} calls each",
            dtype.name(),
            prob.m,
            prob.n,
            prob.k,
            prob.batch,
            if prob.ta { 'T' } else { 'N' },
            if prob.tb { 'T' } else { 'N' },
            candidates.len(),
            all.len(),
            fitting.len()
        );
        // The baseline: the catalog in force before this run (what users get today).
        Catalog::install(catalog.clone());
        let base_row = blas_gemm::row(&dev, dtype, prob, iters, a.vendor, None)?;
        let baseline = base_row.ours.clone().ok();
        let peer = base_row.peer.clone().and_then(|p| p.ok());
        let mut best: Option<(f64, String, GemmParams)> = None;
        for (key, p) in &candidates {
            Catalog::install(Catalog {
                source: "tuning candidate".into(),
                entries: vec![entry(key, &prob, p)?],
            });
            let r = blas_gemm::row(&dev, dtype, prob, iters, false, None)?;
            match r.ours {
                Ok(secs) => {
                    println!(
                        "  {:>9.4} ms {:>8.2} TFLOP/s  {key}  {}",
                        secs * 1e3,
                        prob.flops() / secs / 1e12,
                        describe(p)
                    );
                    if best.as_ref().is_none_or(|(b, _, _)| secs < *b) {
                        best = Some((secs, key.clone(), p.clone()));
                    }
                }
                Err(e) => println!("  failed: {key} {}: {e}", describe(p)),
            }
        }
        Catalog::uninstall();
        let Some((secs, key, params)) = best else {
            println!("  no candidate ran");
            continue;
        };
        let keep = baseline.is_none_or(|b| secs < b);
        let line = format!(
            "{} {}x{}x{}x{} {}{}: {} {:.4} ms ({:.2} TFLOP/s, baseline {}, cuBLAS {}){}",
            dtype.name(),
            prob.m,
            prob.n,
            prob.k,
            prob.batch,
            if prob.ta { 'T' } else { 'N' },
            if prob.tb { 'T' } else { 'N' },
            describe(&params),
            secs * 1e3,
            prob.flops() / secs / 1e12,
            baseline.map_or("-".into(), |b| format!("{:.4} ms", b * 1e3)),
            peer.map_or("-".into(), |p| format!("{:.4} ms", p * 1e3)),
            if keep { "" } else { " (baseline kept)" }
        );
        println!("best: {line}");
        summary.push(line);
        if keep {
            merge(&mut catalog, entry(&key, &prob, &params)?);
        }
    }
    write_catalog(catalog, "gemm", &dev, &summary, &a.out)
}

/// Writes `catalog` to `out`, its source extended by the run (`rocm-bench tune <what>`
/// on `dev`: the summary lines).
pub(crate) fn write_catalog(
    mut catalog: Catalog,
    what: &str,
    dev: &Device,
    summary: &[String],
    out: &std::path::Path,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    catalog.source = format!(
        "{}; rocm-bench tune {what} on {} ({}): {}",
        catalog.source,
        dev.id(),
        dev.info().name,
        summary.join("; ")
    );
    let json = serde_json::to_string_pretty(&catalog)?;
    std::fs::write(out, json + "\n").map_err(|e| Error::io(out.display().to_string(), e))?;
    println!("catalog written to {}", out.display());
    Ok(())
}

/// The catalog entry of `params` for `prob`'s shape under `key`.
fn entry(key: &str, prob: &Problem, params: &GemmParams) -> serde_json::Result<Entry> {
    Ok(Entry {
        generator: Gemm::NAME.into(),
        key: key.into(),
        size: (prob.m * prob.n * prob.k) as u64,
        shape: Some(vec![prob.m as u64, prob.n as u64, prob.k as u64]),
        params: serde_json::to_value(params)?,
    })
}

/// A compact name of a variant: tile, warps, instruction, stages, tensor-copy staging.
fn describe(p: &GemmParams) -> String {
    format!(
        "{}x{}x{} warps {}x{} {:?} stages {}{} reads {}{}",
        p.tile_m,
        p.tile_n,
        p.tile_k,
        p.warps_m,
        p.warps_n,
        p.instruction,
        p.stages,
        if p.tma { " tma" } else { "" },
        if p.trans_a { 'T' } else { 'N' },
        if p.trans_b { 'T' } else { 'N' },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_lines_parse_and_bad_ones_are_named() {
        let (d, p) = parse_line("bf16 64 8192 8192 # split-K").unwrap().unwrap();
        assert_eq!(d.name(), "bf16");
        assert_eq!(
            (p.m, p.n, p.k, p.batch, p.ta, p.tb),
            (64, 8192, 8192, 1, false, false)
        );
        let (_, p) = parse_line("f32 64 64 64 10000 TN").unwrap().unwrap();
        assert_eq!((p.batch, p.ta, p.tb), (10000, true, false));
        assert!(parse_line("  # only a comment").unwrap().is_none());
        for bad in [
            "f32 1 2",
            "f32 1 2 x",
            "f32 0 2 3",
            "f32 1 2 3 1 XY",
            "i4 1 2 3",
        ] {
            assert!(parse_line(bad).is_err(), "{bad} should be refused");
        }
        for line in DEFAULT_SIZES.lines() {
            assert!(parse_line(line).unwrap().is_some());
        }
    }

    #[test]
    fn merge_replaces_only_the_same_key_and_shape() {
        let entry = |key: &str, shape: Option<Vec<u64>>, size: u64, tag: u64| Entry {
            generator: "gemm".into(),
            key: key.into(),
            size,
            shape,
            params: serde_json::json!(tag),
        };
        let mut c = Catalog {
            source: String::new(),
            entries: vec![
                entry("f32-f32-f32/NN", None, 262144, 1),
                entry("f32-f32-f32/NN", Some(vec![64, 8192, 8192]), 1 << 32, 2),
                entry("f32-f32-f32/TN", None, 262144, 3),
            ],
        };
        merge(
            &mut c,
            entry("f32-f32-f32/NN", Some(vec![64, 64, 64]), 262144, 4),
        );
        let tags: Vec<u64> = c
            .entries
            .iter()
            .map(|e| e.params.as_u64().unwrap())
            .collect();
        assert_eq!(tags, vec![2, 3, 4]);
    }

    #[test]
    fn fitting_skips_oversized_and_tiny_tiles() {
        let small = Problem {
            m: 64,
            n: 64,
            k: 64,
            batch: 10000,
            ta: false,
            tb: false,
        };
        let big = Problem {
            m: 8192,
            n: 8192,
            k: 8192,
            batch: 1,
            ta: false,
            tb: false,
        };
        let mut p = ptx::simt(rocm_core::DType::F32, 128, 8, false, false);
        assert!(fits(&p, &small) && fits(&p, &big));
        p.tile_m = 256;
        assert!(!fits(&p, &small) && fits(&p, &big));
        p.tile_m = 32;
        p.tile_n = 32;
        assert!(fits(&p, &small) && !fits(&p, &big));
    }
}
