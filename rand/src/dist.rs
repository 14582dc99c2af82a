//! The distributions as transforms of generator words, each written once over
//! [`FloatOps`], and the layout that places every output value at a fixed position of
//! the generator's counter stream (so any grid or chunking gives the same sequence).

use crate::bits::{philox4x32_10, threefry2x32_20};
use crate::math::{exp, ln, sincos_turns, sqrt};
use crate::ops::{FloatOps, HalfOps, Ops, Real};
use rocm_core::{DType, Error, Result};
use serde::{Deserialize, Serialize};

/// The bit generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Philox4x32-10: four words per counter, key = the seed's two words.
    Philox4x32_10,
    /// Threefry2x32-20: two words per counter, key = the seed's two words.
    Threefry2x32_20,
    /// XORWOW ([`crate::xorwow`]): a sequential generator, one word per step.
    Xorwow,
    /// MRG32k3a ([`crate::mrg32k3a`]): a sequential generator, one value in
    /// 1..=m1 per step.
    Mrg32k3a,
    /// Sobol's quasi-random sequence in 32 bits ([`crate::sobol`], [`crate::quasi`]).
    Sobol32,
    /// Sobol32 scrambled ([`crate::sobol`]: not cuRAND's scrambling tables).
    ScrambledSobol32,
    /// Sobol's quasi-random sequence in 64 bits.
    Sobol64,
    /// Sobol64 scrambled.
    ScrambledSobol64,
}

impl Kind {
    /// Words one counter value gives.
    /// Sequential generators (one step after another, skip-ahead by jumps) have no
    /// counter blocks.
    pub fn block_words(self) -> u32 {
        match self {
            Kind::Philox4x32_10 => 4,
            Kind::Threefry2x32_20 => 2,
            _ => 1,
        }
    }

    /// Quasi-random: points of a low-discrepancy sequence in one or more dimensions.
    pub fn quasi(self) -> bool {
        self.sobol_bits() != 0
    }

    /// The bits of a Sobol generator's points (0 for the others).
    pub fn sobol_bits(self) -> u32 {
        match self {
            Kind::Sobol32 | Kind::ScrambledSobol32 => 32,
            Kind::Sobol64 | Kind::ScrambledSobol64 => 64,
            _ => 0,
        }
    }

    /// A scrambled quasi-random generator.
    pub fn scrambled(self) -> bool {
        matches!(self, Kind::ScrambledSobol32 | Kind::ScrambledSobol64)
    }

    /// Counter-based: any block is computed directly from its counter.
    pub fn counter_based(self) -> bool {
        matches!(self, Kind::Philox4x32_10 | Kind::Threefry2x32_20)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Philox4x32_10 => "philox",
            Kind::Threefry2x32_20 => "threefry",
            Kind::Xorwow => "xorwow",
            Kind::Mrg32k3a => "mrg32k3a",
            Kind::Sobol32 => "sobol32",
            Kind::ScrambledSobol32 => "scrambled_sobol32",
            Kind::Sobol64 => "sobol64",
            Kind::ScrambledSobol64 => "scrambled_sobol64",
        }
    }

    /// Parses `philox` / `threefry` / `xorwow` / `mrg32k3a` (and the cuRAND-style
    /// full names).
    pub fn parse(s: &str) -> Result<Kind> {
        match s.to_ascii_lowercase().as_str() {
            "philox" | "philox4x32_10" | "philox4_32_10" => Ok(Kind::Philox4x32_10),
            "threefry" | "threefry2x32_20" | "threefry2_32_20" => Ok(Kind::Threefry2x32_20),
            "xorwow" => Ok(Kind::Xorwow),
            "mrg32k3a" | "mrg" => Ok(Kind::Mrg32k3a),
            "sobol32" => Ok(Kind::Sobol32),
            "scrambled_sobol32" => Ok(Kind::ScrambledSobol32),
            "sobol64" => Ok(Kind::Sobol64),
            "scrambled_sobol64" => Ok(Kind::ScrambledSobol64),
            _ => Err(Error::invalid(
                "generator",
                format!(
                    "`{s}` is not a generator (philox, threefry, xorwow, mrg32k3a, sobol32, \
                     scrambled_sobol32, sobol64, scrambled_sobol64)"
                ),
            )),
        }
    }

    /// The words of counter `ctr` of subsequence `sub` under seed `seed` (`[lo, hi]`):
    /// Philox's counter is `(ctr, sub)` as four words, as `curand_init(seed, sub, ·)`
    /// sets it; Threefry has one subsequence (`sub` is 0).
    pub fn block<O: Ops>(
        self,
        o: &mut O,
        ctr: O::U64,
        sub: O::U64,
        seed: [O::U32; 2],
    ) -> Unit<O::U32> {
        let lo = o.lo32(ctr);
        let hi = o.hi32(ctr);
        match self {
            Kind::Philox4x32_10 => {
                let (slo, shi) = (o.lo32(sub), o.hi32(sub));
                Unit::of(&philox4x32_10(o, [lo, hi, slo, shi], seed))
            }
            Kind::Threefry2x32_20 => Unit::of(&threefry2x32_20(o, [lo, hi], seed)),
            _ => {
                unreachable!("Layout::new refuses the sequential and quasi generators")
            }
        }
    }
}

/// The words or values of one unit (at most eight), kept on the stack so the CPU path
/// allocates nothing per unit.
#[derive(Debug, Clone, Copy)]
pub struct Unit<T: Copy> {
    vals: [T; 8],
    len: usize,
}

impl<T: Copy> Unit<T> {
    /// The unit holding `s` (one to eight values).
    pub fn of(s: &[T]) -> Unit<T> {
        let mut vals = [s[0]; 8];
        vals[..s.len()].copy_from_slice(s);
        Unit { vals, len: s.len() }
    }

    /// Appends `v` (a unit holds at most eight).
    pub fn push(&mut self, v: T) {
        self.vals[self.len] = v;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[T] {
        &self.vals[..self.len]
    }

    /// The unit of `f` applied to each group of `n` values.
    pub fn map_groups<U: Copy>(&self, n: usize, mut f: impl FnMut(&[T]) -> U) -> Unit<U> {
        let mut groups = self.as_slice().chunks(n);
        let mut out = Unit::of(&[f(groups.next().expect("a unit is never empty"))]);
        for g in groups {
            out.push(f(g));
        }
        out
    }
}

/// What the words become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dist {
    /// The words themselves (u32).
    Bits,
    /// Uniform in (0, 1]: cuRAND's transforms (`x·2⁻³² + 2⁻³³` for f32; for f64 53 bits
    /// `x ^ (y << 21)`, `· 2⁻⁵³ + 2⁻⁵⁴`).
    Uniform,
    /// Normal (Box–Muller on two uniforms: `√(−2 ln u)·(sin 2πv, cos 2πv)`), then
    /// `mean + stddev·z`.
    Normal,
    /// `e^normal`.
    LogNormal,
    /// Poisson counts (u32) of mean λ: the first `k` whose CDF reaches a uniform f64
    /// `u` in (0, 1] ([`PoissonTable`], one search per value).
    Poisson,
}

impl Dist {
    pub fn name(self) -> &'static str {
        match self {
            Dist::Bits => "bits",
            Dist::Uniform => "uniform",
            Dist::Normal => "normal",
            Dist::LogNormal => "lognormal",
            Dist::Poisson => "poisson",
        }
    }

    pub fn parse(s: &str) -> Result<Dist> {
        match s.to_ascii_lowercase().as_str() {
            "bits" | "u32" => Ok(Dist::Bits),
            "uniform" => Ok(Dist::Uniform),
            "normal" => Ok(Dist::Normal),
            "lognormal" | "log-normal" | "log_normal" => Ok(Dist::LogNormal),
            "poisson" => Ok(Dist::Poisson),
            _ => Err(Error::invalid(
                "distribution",
                format!("`{s}` is not a distribution (bits, uniform, normal, lognormal, poisson)"),
            )),
        }
    }
}

/// Where the values of one (distribution, element type) sit in a generator's stream:
/// a unit is `unit_words` consecutive words (whole counters) giving `values` values;
/// output value `p` of the stream (counting from the stream's start, offset included)
/// is value `p % values` of unit `u = p / values`. Threefry: unit `u` is counters
/// `u·blocks ..`. Philox, as cuRAND's host API orders it: a unit is four values (one
/// thread's write), unit `u` is thread `u mod 2^threads_log2`'s (subsequence's)
/// counters `(u >> threads_log2)·blocks ..`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub kind: Kind,
    pub dist: Dist,
    pub dtype: DType,
    /// Words one group of values takes (1 for u32 or f32, 2 for f64, Box–Muller's pair
    /// 2 or 4).
    pub group_words: u32,
    /// Values per group (2 for Box–Muller, else 1).
    pub group_values: u32,
    /// Counters per unit.
    pub blocks: u32,
    /// Values per unit.
    pub values: u32,
    /// log₂ of the subsequences units rotate through (none: one subsequence).
    pub threads_log2: Option<u32>,
}

/// log₂ of the threads cuRAND's host API runs Philox4x32-10 on (every ordering it
/// accepts gives the same values): measured from the capture
/// (`tests/vendor_sequences.rs`).
pub const PHILOX_THREADS_LOG2: u32 = 16;

impl Layout {
    /// The layout of `dist` in `dtype` from `kind`, or an error naming the element
    /// types `dist` has.
    pub fn new(kind: Kind, dist: Dist, dtype: DType) -> Result<Layout> {
        if !kind.counter_based() {
            return Err(Error::unsupported(
                format!("{} in the counter-block layout", kind.name()),
                "a sequential generator (its values come from crate::sequential)",
            ));
        }
        let (group_words, group_values) = match (dist, dtype) {
            (Dist::Bits, DType::U32) | (Dist::Uniform, DType::F32 | DType::F16) => (1, 1),
            (Dist::Uniform, DType::F64) | (Dist::Poisson, DType::U32) => (2, 1),
            (Dist::Normal | Dist::LogNormal, DType::F32) => (2, 2),
            (Dist::Normal | Dist::LogNormal, DType::F64) => (4, 2),
            _ => {
                let has = match dist {
                    Dist::Bits | Dist::Poisson => "u32",
                    Dist::Uniform => "f16, f32 or f64",
                    _ => "f32 or f64",
                };
                return Err(Error::invalid(
                    "dtype",
                    format!("{} values are {has}, not {dtype}", dist.name()),
                ));
            }
        };
        // Philox: four values a unit, as a cuRAND thread writes them.
        let (unit_words, threads_log2) = match kind {
            Kind::Philox4x32_10 => (4 * group_words / group_values, Some(PHILOX_THREADS_LOG2)),
            _ => (group_words.max(kind.block_words()), None),
        };
        Ok(Layout {
            kind,
            dist,
            dtype,
            group_words,
            group_values,
            blocks: unit_words / kind.block_words(),
            values: unit_words / group_words * group_values,
            threads_log2,
        })
    }

    /// The words of unit `unit` in a call whose first unit is `call`. Philox: cuRAND
    /// skips each thread by one counter per unit it owns before the call's first unit
    /// (`skipped`), then takes `blocks` counters a unit, so a unit at pass `p` starts
    /// at counter `skipped + blocks·(p − skipped)`.
    pub fn unit_words<O: Ops>(
        &self,
        o: &mut O,
        unit: O::U64,
        call: O::U64,
        seed: [O::U32; 2],
    ) -> Unit<O::U32> {
        let (pass, sub, skipped) = match self.threads_log2 {
            Some(k) => {
                // Units below `call` congruent to `sub`: ⌈(call − sub) / 2^k⌉, as
                // (call + 2^k − 1 − sub) >> k (never below zero: sub < 2^k).
                let sub = o.low_bits64(unit, k);
                let top = o.u64((1u64 << k) - 1);
                let c = o.add64(call, top);
                let c = o.sub64(c, sub);
                (o.shr64(unit, k), sub, Some(o.shr64(c, k)))
            }
            None => (unit, o.u64(0), None),
        };
        if self.blocks == 1 {
            return self.kind.block(o, pass, sub, seed);
        }
        let first = o.shl64(pass, self.blocks.trailing_zeros());
        let first = match skipped {
            Some(s) => {
                // blocks·p − (blocks − 1)·skipped, blocks a power of two.
                let s_times = o.shl64(s, self.blocks.trailing_zeros());
                let f = o.add64(first, s);
                o.sub64(f, s_times)
            }
            None => first,
        };
        let mut words = self.kind.block(o, first, sub, seed);
        for b in 1..self.blocks {
            let db = o.u64(b as u64);
            let ctr = o.add64(first, db);
            for &w in self.kind.block(o, ctr, sub, seed).as_slice() {
                words.push(w);
            }
        }
        words
    }

    /// The f16 uniforms of unit `unit` ([`uniform_f16`] of each word).
    pub fn unit_halves<O: HalfOps>(
        &self,
        o: &mut O,
        unit: O::U64,
        call: O::U64,
        seed: [O::U32; 2],
    ) -> Unit<O::H> {
        let words = self.unit_words(o, unit, call, seed);
        words.map_groups(1, |w| uniform_f16(o, w[0]))
    }

    /// The float values of unit `unit` (`Uniform`, `Normal`, `LogNormal` of `R`).
    pub fn unit_floats<R: Real, O: FloatOps<R>>(
        &self,
        o: &mut O,
        unit: O::U64,
        call: O::U64,
        seed: [O::U32; 2],
        mean: O::F,
        stddev: O::F,
    ) -> Unit<O::F> {
        let words = self.unit_words(o, unit, call, seed);
        let gw = self.group_words as usize;
        match self.dist {
            Dist::Uniform => words.map_groups(gw, |g| uniform::<R, O>(o, g)),
            Dist::Normal | Dist::LogNormal => {
                let mut out: Option<Unit<O::F>> = None;
                for g in words.as_slice().chunks(gw) {
                    let (z0, z1) = box_muller::<R, O>(o, g);
                    for z in [z0, z1] {
                        let x = o.fma(z, stddev, mean);
                        let v = if self.dist == Dist::LogNormal {
                            exp::<R, O>(o, x)
                        } else {
                            x
                        };
                        match &mut out {
                            Some(u) => u.push(v),
                            None => out = Some(Unit::of(&[v])),
                        }
                    }
                }
                out.expect("a unit is never empty")
            }
            Dist::Bits | Dist::Poisson => unreachable!("integer values have no float layout"),
        }
    }
}

/// A uniform value in (0, 1] from `R::WORDS` words, as cuRAND computes it.
pub fn uniform<R: Real, O: FloatOps<R>>(o: &mut O, w: &[O::U32]) -> O::F {
    if R::WORDS == 1 {
        let x = o.u32_to_f(w[0]);
        let scale = o.fc(2f64.powi(-32));
        let half = o.fc(2f64.powi(-33));
        o.fma(x, scale, half)
    } else {
        // 53 bits z = x ^ (y << 21): the low word x ^ (y << 21 mod 2³²), the high
        // y >> 11; z is exact as hi·2³² + lo.
        let ys = o.shl32(w[1], 21);
        let lo = o.xor32(w[0], ys);
        let hi = o.shr32(w[1], 11);
        let (lo, hi) = (o.u32_to_f(lo), o.u32_to_f(hi));
        let two32 = o.fc(2f64.powi(32));
        let z = o.fma(hi, two32, lo);
        let scale = o.fc(2f64.powi(-53));
        let half = o.fc(2f64.powi(-54));
        o.fma(z, scale, half)
    }
}

/// An f16 uniform in (0, 1] from one word: its high half `h` as `(h + 1)·2⁻¹⁶`
/// (exact in f32), rounded to f16 (to nearest even; 2⁻¹⁶ is a subnormal f16, never 0).
/// cuRAND has no f16 generation; this is rocRAND's 16-bit resolution, one value per
/// word so the layout is the f32 uniforms'.
pub fn uniform_f16<O: HalfOps>(o: &mut O, w: O::U32) -> O::H {
    let h = o.shr32(w, 16);
    let one = o.u32(1);
    let h = o.add32(h, one);
    let h = o.u32_to_f(h);
    let scale = FloatOps::<f32>::fc(o, 2f64.powi(-16));
    let v = FloatOps::<f32>::fmul(o, h, scale);
    o.to_f16(v)
}

/// Two standard normal values from `2·R::WORDS` words (Box–Muller: `u` from the first
/// half, the angle `v` in turns from the second).
pub fn box_muller<R: Real, O: FloatOps<R>>(o: &mut O, w: &[O::U32]) -> (O::F, O::F) {
    let n = R::WORDS;
    let u = uniform::<R, O>(o, &w[..n]);
    let v = uniform::<R, O>(o, &w[n..2 * n]);
    box_muller_of::<R, O>(o, u, v)
}

/// Two standard normal values from uniforms `u` (the radius) and `v` (the angle in
/// turns), both in (0, 1].
pub fn box_muller_of<R: Real, O: FloatOps<R>>(o: &mut O, u: O::F, v: O::F) -> (O::F, O::F) {
    let l = ln::<R, O>(o, u);
    let m2 = o.fc(-2.0);
    let l = o.fmul(l, m2);
    let r = sqrt::<R, O>(o, l);
    let (s, c) = sincos_turns::<R, O>(o, v);
    (o.fmul(r, s), o.fmul(r, c))
}

/// The largest λ [`PoissonTable`] takes (its table then holds about 80 000 entries).
pub const POISSON_MAX_LAMBDA: f64 = (1u32 << 24) as f64;

/// Poisson(λ)'s CDF over the counts whose probability is above 10⁻²⁰ of the mode's
/// (the mass left out is far below the 2⁻⁵³ resolution of the uniform that searches
/// it): `cdf[i]` = P(K ≤ k0 + i), the last entry exactly 1. Built once on the host and
/// read by the CPU path and the kernels alike, so both find the same count.
#[derive(Debug, Clone, PartialEq)]
pub struct PoissonTable {
    pub k0: u32,
    pub cdf: Vec<f64>,
}

impl PoissonTable {
    /// The table of mean `lambda`: an error unless 0 < λ ≤ [`POISSON_MAX_LAMBDA`].
    pub fn new(lambda: f64) -> Result<PoissonTable> {
        if !(lambda > 0.0 && lambda <= POISSON_MAX_LAMBDA) {
            return Err(Error::invalid(
                "lambda",
                format!("Poisson needs 0 < λ ≤ 2^24, got {lambda}"),
            ));
        }
        // Probabilities relative to the mode's, outward: p(k+1) = p(k)·λ/(k+1),
        // p(k−1) = p(k)·k/λ.
        let mode = lambda.floor();
        let tiny = 1e-20;
        let mut up = vec![1.0f64];
        let mut k = mode;
        while *up.last().unwrap() > tiny {
            k += 1.0;
            let next = up.last().unwrap() * lambda / k;
            up.push(next);
        }
        let mut down = Vec::new();
        let (mut p, mut k) = (1.0f64, mode);
        while k > 0.0 && p > tiny {
            p *= k / lambda;
            k -= 1.0;
            down.push(p);
        }
        let k0 = (mode as u32) - down.len() as u32;
        let pmf: Vec<f64> = down.iter().rev().chain(&up).copied().collect();
        let total: f64 = pmf.iter().sum();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = pmf
            .iter()
            .map(|p| {
                acc += p / total;
                acc.min(1.0)
            })
            .collect();
        *cdf.last_mut().unwrap() = 1.0;
        Ok(PoissonTable { k0, cdf })
    }

    /// The table of a discrete distribution on `0..weights.len()` with probabilities
    /// proportional to `weights`: an error unless there are 1..=2²⁴ weights, each
    /// finite and ≥ 0, with a positive finite sum. Counts whose weight is 0 never
    /// occur (their CDF step is empty, and a uniform is never 0).
    pub fn discrete(weights: &[f64]) -> Result<PoissonTable> {
        if weights.is_empty() || weights.len() > 1 << 24 {
            return Err(Error::invalid(
                "weights",
                format!(
                    "a discrete distribution needs 1..=2^24 weights, got {}",
                    weights.len()
                ),
            ));
        }
        if let Some((k, w)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !(w.is_finite() && **w >= 0.0))
        {
            return Err(Error::invalid(
                "weights",
                format!("weight {k} is {w}; weights must be finite and non-negative"),
            ));
        }
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Err(Error::invalid(
                "weights",
                format!("the weights sum to {total}; it must be positive and finite"),
            ));
        }
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = weights
            .iter()
            .map(|w| {
                acc += w;
                (acc / total).min(1.0)
            })
            .collect();
        // The last positive weight's step ends at 1 exactly, so every u ≤ 1 finds a
        // count of positive weight; zero weights after it keep 1 and are never found.
        let last = weights
            .iter()
            .rposition(|&w| w > 0.0)
            .expect("the sum is positive");
        for c in &mut cdf[last..] {
            *c = 1.0;
        }
        Ok(PoissonTable { k0: 0, cdf })
    }

    /// The count for uniform `u` in (0, 1]: `k0` + the first index whose CDF is ≥ `u`.
    pub fn sample(&self, u: f64) -> u32 {
        self.k0 + self.cdf.partition_point(|&c| c < u) as u32
    }

    /// Halvings of the search range the kernels make: ⌈log₂ len⌉.
    pub fn steps(&self) -> u32 {
        let len = self.cdf.len() as u32;
        32 - (len - 1).leading_zeros()
    }
}
