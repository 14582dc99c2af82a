//! `rocm-bench rand capture --device cuda:0 --out FILE` (`--features vendor`): cuRAND's
//! host-API sequences as a text data file, so tests check rocm-rand's sequences and
//! orderings against cuRAND without a GPU (`rand/tests/data/curand_sequences.txt`, read
//! by `rand/tests/vendor_sequences.rs`).
//!
//! Two kinds of line (format 2; `#` lines are comments):
//!
//! - `seq generator ordering seed offset dims dist calls start count v0 v1 ...`: a fresh
//!   generator set to that ordering, seed (`-` for the quasi generators), offset and
//!   dimension count makes `calls` generate calls of `dist` (their sizes joined by `+`,
//!   e.g. `1000+64`); the values are the last call's positions `start..start+count`, each
//!   the hexadecimal bits of what cuRAND wrote (u32/f32: 8 digits, u64/f64: 16). Large
//!   calls are sampled in windows (the first 64 values, then 16 around every 2^k), so the
//!   file shows how positions past cuRAND's thread count continue, and a short odd call
//!   shows how a partial request is laid out.
//! - `locate generator ordering seed offset calls count p0 p1 ...`: the first `count` u32
//!   of that generator's last call, each replaced by the first position where it occurs in
//!   the same generator's single call of [`REFERENCE`] u32 at offset 0 (`-`: absent). This
//!   shows what an offset and a second call do in positions of the offset-0 stream (e.g.
//!   offset o landing at o·T tells the thread count T) without storing millions of words.
//!
//! A combination cuRAND refuses is a comment line `# refused: <the line's head>: status`,
//! so the file also records what cuRAND does not support. MTGP32 and MT19937 take no
//! offset: their generators are made without setting one, and a non-zero offset is
//! recorded as refused.

use cudarc::curand::sys::{self, curandOrdering_t as O, curandRngType_t as R};
use rocm_core::{Device, DeviceBuffer, Error, Result};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The pseudo-random generators and their orderings.
const PSEUDO: [(&str, R); 5] = [
    ("philox4_32_10", R::CURAND_RNG_PSEUDO_PHILOX4_32_10),
    ("xorwow", R::CURAND_RNG_PSEUDO_XORWOW),
    ("mrg32k3a", R::CURAND_RNG_PSEUDO_MRG32K3A),
    ("mtgp32", R::CURAND_RNG_PSEUDO_MTGP32),
    ("mt19937", R::CURAND_RNG_PSEUDO_MT19937),
];
const PSEUDO_ORDERINGS: [(&str, O); 5] = [
    ("pseudo_default", O::CURAND_ORDERING_PSEUDO_DEFAULT),
    ("pseudo_best", O::CURAND_ORDERING_PSEUDO_BEST),
    ("pseudo_legacy", O::CURAND_ORDERING_PSEUDO_LEGACY),
    ("pseudo_dynamic", O::CURAND_ORDERING_PSEUDO_DYNAMIC),
    ("pseudo_seeded", O::CURAND_ORDERING_PSEUDO_SEEDED),
];
/// The quasi-random generators (one ordering; no seed, a dimension count instead).
const QUASI: [(&str, R); 4] = [
    ("sobol32", R::CURAND_RNG_QUASI_SOBOL32),
    ("scrambled_sobol32", R::CURAND_RNG_QUASI_SCRAMBLED_SOBOL32),
    ("sobol64", R::CURAND_RNG_QUASI_SOBOL64),
    ("scrambled_sobol64", R::CURAND_RNG_QUASI_SCRAMBLED_SOBOL64),
];
/// A seed whose high word is zero and one whose high word is not (the key takes both).
const SEEDS: [u64; 2] = [1234, 0x0123_4567_89ab_cdef];
/// Offset 0 and one that is odd and not a multiple of a Philox block.
const OFFSETS: [u64; 2] = [0, 1001];
const QUASI_DIMS: [u32; 2] = [1, 4];

/// The large call: past any plausible thread count times a few values per thread.
const LARGE: usize = 1 << 22;
/// The call sequences each (generator, ordering, seed, offset, dist) is recorded for: one
/// large call, a short even and a short odd one, and a second call after a short one.
const CALLS: [&[usize]; 4] = [&[LARGE], &[1000], &[1001], &[1000, 64]];

/// The offset-0 stream `locate` lines give positions in.
const REFERENCE: usize = LARGE;
/// `locate` lines: (offset, calls) whose first words are found in the reference stream.
const LOCATES: [(u64, &[usize]); 9] = [
    (1, &[1 << 16]),
    (2, &[1 << 16]),
    (3, &[1 << 16]),
    (4, &[1 << 16]),
    (1001, &[1 << 16]),
    (65536, &[1 << 16]),
    (0, &[1000, 1 << 16]),
    (0, &[1001, 1 << 16]),
    (0, &[4096, 1 << 16]),
];
/// Words located per `locate` line.
const LOCATED: usize = 16;

/// What one record asks of cuRAND.
#[derive(Clone, Copy, PartialEq)]
enum What {
    U32,
    U64,
    UniformF32,
    UniformF64,
    NormalF32,
    NormalF64,
    LogNormalF32,
    /// Poisson with λ = 4.
    Poisson4,
}

impl What {
    const ALL: [What; 8] = [
        What::U32,
        What::U64,
        What::UniformF32,
        What::UniformF64,
        What::NormalF32,
        What::NormalF64,
        What::LogNormalF32,
        What::Poisson4,
    ];

    fn name(self) -> &'static str {
        match self {
            What::U32 => "u32",
            What::U64 => "u64",
            What::UniformF32 => "uniform_f32",
            What::UniformF64 => "uniform_f64",
            What::NormalF32 => "normal_f32",
            What::NormalF64 => "normal_f64",
            What::LogNormalF32 => "lognormal_f32",
            What::Poisson4 => "poisson4",
        }
    }

    /// 64-bit values (two u32 words each in the buffer).
    fn wide(self) -> bool {
        matches!(self, What::U64 | What::UniformF64 | What::NormalF64)
    }

    /// Whether a large call is sampled past its first values: the kinds whose layout
    /// may differ (the bit streams, the two-word doubles, the Box–Muller pairs); the
    /// others are the same words transformed.
    fn sampled(self) -> bool {
        matches!(
            self,
            What::U32 | What::U64 | What::UniformF64 | What::NormalF32 | What::NormalF64
        )
    }
}

/// The windows `(start, count)` recorded of a last call of `n` values.
fn windows(n: usize, what: What) -> Vec<(usize, usize)> {
    let mut w = vec![(0, n.min(64))];
    if n >= LARGE && what.sampled() {
        for k in 6..=22 {
            let start = ((1usize << k) - 8).min(n - 16);
            w.push((start, 16));
        }
    } else if n > 64 {
        w.push((n / 2 - 8, 16));
        w.push((n - 16, 16));
    }
    w
}

fn check(what: &str, s: sys::curandStatus_t) -> std::result::Result<(), String> {
    if s == sys::curandStatus_t::CURAND_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {s:?}"))
    }
}

/// What a generator is made with.
#[derive(Clone, Copy)]
struct Setup {
    rng: R,
    ordering: O,
    /// The seed (pseudo) or none (quasi).
    seed: Option<u64>,
    offset: u64,
    dims: u32,
}

/// One fresh generator's calls of `what` into `buf`, or the status that refused them; the
/// last call's values are at the start of `buf`.
fn generate(
    s: Setup,
    what: What,
    calls: &[usize],
    buf: &DeviceBuffer<u32>,
) -> std::result::Result<(), String> {
    let per = if what.wide() { 2 } else { 1 };
    if calls.iter().any(|&n| n * per > buf.len()) {
        return Err("a call larger than the capture buffer".into());
    }
    let addr = buf.address();
    let mut gen: sys::curandGenerator_t = std::ptr::null_mut();
    // SAFETY: `gen` is an out-parameter cuRAND fills.
    check("curandCreateGenerator", unsafe {
        sys::curandCreateGenerator(&mut gen, s.rng)
    })?;
    // SAFETY: `gen` is live until the destroy below; `addr` is a device buffer of
    // `buf.len()` u32 in the primary context cuRAND runs in, and every call's values fit
    // in it (checked above).
    let r = unsafe {
        (|| {
            check(
                "curandSetGeneratorOrdering",
                sys::curandSetGeneratorOrdering(gen, s.ordering),
            )?;
            if let Some(seed) = s.seed {
                check(
                    "curandSetPseudoRandomGeneratorSeed",
                    sys::curandSetPseudoRandomGeneratorSeed(gen, seed),
                )?;
            } else {
                check(
                    "curandSetQuasiRandomGeneratorDimensions",
                    sys::curandSetQuasiRandomGeneratorDimensions(gen, s.dims),
                )?;
            }
            // MTGP32 and MT19937 refuse any offset call, so offset 0 is left unset.
            if s.offset != 0 {
                check(
                    "curandSetGeneratorOffset",
                    sys::curandSetGeneratorOffset(gen, s.offset),
                )?;
            }
            for &n in calls {
                let st = match what {
                    What::U32 => sys::curandGenerate(gen, addr as *mut u32, n),
                    What::U64 => sys::curandGenerateLongLong(gen, addr as *mut u64, n),
                    What::UniformF32 => sys::curandGenerateUniform(gen, addr as *mut f32, n),
                    What::UniformF64 => sys::curandGenerateUniformDouble(gen, addr as *mut f64, n),
                    What::NormalF32 => {
                        sys::curandGenerateNormal(gen, addr as *mut f32, n, 0.0, 1.0)
                    }
                    What::NormalF64 => {
                        sys::curandGenerateNormalDouble(gen, addr as *mut f64, n, 0.0, 1.0)
                    }
                    What::LogNormalF32 => {
                        sys::curandGenerateLogNormal(gen, addr as *mut f32, n, 0.0, 1.0)
                    }
                    What::Poisson4 => sys::curandGeneratePoisson(gen, addr as *mut u32, n, 4.0),
                };
                check("curandGenerate", st)?;
            }
            Ok(())
        })()
    };
    // SAFETY: created above, destroyed once (after the generate calls have been issued;
    // cuRAND synchronises its own stream on destroy).
    let _ = unsafe { sys::curandDestroyGenerator(gen) };
    r
}

/// The last call's values `start..start + n` as bits (wide kinds: two words each).
fn values(buf: &DeviceBuffer<u32>, start: usize, n: usize, what: What) -> Result<Vec<u64>> {
    if what.wide() {
        let w = buf.slice(2 * start..2 * (start + n))?.to_vec()?;
        Ok(w.chunks_exact(2)
            .map(|p| p[0] as u64 | (p[1] as u64) << 32)
            .collect())
    } else {
        Ok(buf
            .slice(start..start + n)?
            .to_vec()?
            .into_iter()
            .map(u64::from)
            .collect())
    }
}

fn calls_text(calls: &[usize]) -> String {
    calls
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("+")
}

/// The capture's device state: the buffer and the context cuRAND's stream runs in.
struct Run<'a> {
    dev: &'a Device,
    ctx: std::sync::Arc<cudarc::driver::CudaContext>,
    buf: DeviceBuffer<u32>,
}

impl Run<'_> {
    /// Clears the buffer, runs the calls and waits for them.
    fn call(
        &mut self,
        s: Setup,
        what: What,
        calls: &[usize],
    ) -> Result<std::result::Result<(), String>> {
        self.buf.fill_zero()?;
        self.dev.synchronize()?;
        let r = generate(s, what, calls, &self.buf);
        self.ctx
            .synchronize()
            .map_err(|e| Error::backend("cuCtxSynchronize", 0, e.to_string()))?;
        Ok(r)
    }
}

/// `seq` lines of one generator setup and value kind, for every call sequence.
fn seq_lines(out: &mut String, run: &mut Run<'_>, head: &str, s: Setup, what: What) -> Result<()> {
    for calls in CALLS {
        let ct = calls_text(calls);
        let line_head = format!("seq {head} {} {ct}", what.name());
        match run.call(s, what, calls)? {
            Ok(()) => {
                let n = calls[calls.len() - 1];
                for (start, count) in windows(n, what) {
                    let _ = write!(out, "{line_head} {start} {count}");
                    for x in values(&run.buf, start, count, what)? {
                        if what.wide() {
                            let _ = write!(out, " {x:016x}");
                        } else {
                            let _ = write!(out, " {x:08x}");
                        }
                    }
                    out.push('\n');
                }
            }
            Err(e) => {
                let _ = writeln!(out, "# refused: {line_head}: {e}");
            }
        }
    }
    Ok(())
}

/// `locate` lines of one pseudo generator, ordering and seed.
fn locate_lines(out: &mut String, run: &mut Run<'_>, head: &str, s: Setup) -> Result<()> {
    let reference = Setup { offset: 0, ..s };
    if let Err(e) = run.call(reference, What::U32, &[REFERENCE])? {
        let _ = writeln!(out, "# refused: locate {head} 0 {REFERENCE}: {e}");
        return Ok(());
    }
    let stream = values(&run.buf, 0, REFERENCE, What::U32)?;
    let mut first: HashMap<u64, usize> = HashMap::with_capacity(REFERENCE);
    for (i, &w) in stream.iter().enumerate() {
        first.entry(w).or_insert(i);
    }
    for (offset, calls) in LOCATES {
        let line_head = format!("locate {head} {offset} {}", calls_text(calls));
        match run.call(Setup { offset, ..s }, What::U32, calls)? {
            Ok(()) => {
                let _ = write!(out, "{line_head} {LOCATED}");
                for w in values(&run.buf, 0, LOCATED, What::U32)? {
                    match first.get(&w) {
                        Some(p) => {
                            let _ = write!(out, " {p}");
                        }
                        None => out.push_str(" -"),
                    }
                }
                out.push('\n');
            }
            Err(e) => {
                let _ = writeln!(out, "# refused: {line_head}: {e}");
            }
        }
    }
    Ok(())
}

/// The file's text: every generator × ordering × seed/dims × offset × value kind × call
/// sequence, and the pseudo generators' `locate` lines.
pub fn capture(dev: &Device) -> Result<String> {
    if dev.kind() != rocm_core::BackendKind::Cuda {
        return Err(Error::unsupported("rand capture (cuRAND)", dev.id()));
    }
    // SAFETY: probing the library only dlopens it.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::unsupported(
            "rand capture",
            format!("{} (libcurand not found on the library path)", dev.id()),
        ));
    }
    let ctx = super::curand::bind_primary_context(dev)?;
    let mut version = 0;
    // SAFETY: an out-parameter.
    let _ = unsafe { sys::curandGetVersion(&mut version) };
    let words = 2 * LARGE.max(REFERENCE);
    let mut run = Run {
        dev,
        ctx,
        buf: DeviceBuffer::<u32>::zeros(dev, words)?,
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# cuRAND host-API sequences: `rocm-bench rand capture` on {} ({}), cuRAND {version}\n\
         # format 2 (bench/src/rand/capture.rs):\n\
         # seq generator ordering seed offset dims dist calls start count values (hex bits)\n\
         # locate generator ordering seed offset calls count positions (in the offset-0 \
         stream of {REFERENCE} u32)",
        dev.id(),
        dev.target()
    );
    for &(g, rng) in &PSEUDO {
        for &(o, ordering) in &PSEUDO_ORDERINGS {
            for &seed in &SEEDS {
                for &offset in &OFFSETS {
                    let s = Setup {
                        rng,
                        ordering,
                        seed: Some(seed),
                        offset,
                        dims: 1,
                    };
                    let head = format!("{g} {o} {seed} {offset} 1");
                    for what in What::ALL {
                        seq_lines(&mut out, &mut run, &head, s, what)?;
                    }
                }
                let s = Setup {
                    rng,
                    ordering,
                    seed: Some(seed),
                    offset: 0,
                    dims: 1,
                };
                locate_lines(&mut out, &mut run, &format!("{g} {o} {seed}"), s)?;
            }
        }
    }
    for &(g, rng) in &QUASI {
        for &dims in &QUASI_DIMS {
            for &offset in &OFFSETS {
                let s = Setup {
                    rng,
                    ordering: O::CURAND_ORDERING_QUASI_DEFAULT,
                    seed: None,
                    offset,
                    dims,
                };
                let head = format!("{g} quasi_default - {offset} {dims}");
                for what in What::ALL {
                    seq_lines(&mut out, &mut run, &head, s, what)?;
                }
            }
        }
    }
    Ok(out)
}
