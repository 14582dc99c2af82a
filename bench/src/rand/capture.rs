//! `rocm-bench rand capture --device cuda:0 --out FILE` (`--features vendor`): cuRAND's
//! host-API sequences as a text data file, so tests check rocm-rand's sequences against
//! cuRAND without a GPU (`rand/tests/data/curand_sequences.txt`, read by
//! `rand/tests/vendor_sequences.rs`).
//!
//! One record per line: `generator ordering seed offset dims dist count v0 v1 ...`, each
//! value the hexadecimal bits of what cuRAND wrote (u32/f32: 8 digits, u64/f64: 16), the
//! first `count` values of a fresh generator set to that ordering, seed, offset and (quasi
//! generators) dimension count. A combination cuRAND refuses is a comment line naming the
//! status, so the file also records what cuRAND does not support.

use cudarc::curand::sys::{self, curandOrdering_t as O, curandRngType_t as R};
use rocm_core::{Device, DeviceBuffer, Error, Result};
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

/// What one record asks of cuRAND, and how many values.
#[derive(Clone, Copy)]
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

    /// Values per record: the bit streams in full, a few of each distribution (a
    /// multiple of 4 and of every dimension count, as cuRAND's quasi generators ask).
    fn count(self) -> usize {
        match self {
            What::U32 => 64,
            What::U64 => 32,
            _ => 16,
        }
    }

    /// 64-bit values (two u32 words each in the buffer).
    fn wide(self) -> bool {
        matches!(self, What::U64 | What::UniformF64 | What::NormalF64)
    }
}

/// The device buffer the values land in: room for the widest record.
const WORDS: usize = 128;

fn check(what: &str, s: sys::curandStatus_t) -> std::result::Result<(), String> {
    if s == sys::curandStatus_t::CURAND_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {s:?}"))
    }
}

/// One fresh generator's first values, or the status that refused them.
fn record(
    rng: R,
    ordering: O,
    seed: Option<u64>,
    offset: u64,
    dims: u32,
    what: What,
    addr: u64,
) -> std::result::Result<(), String> {
    let mut gen: sys::curandGenerator_t = std::ptr::null_mut();
    // SAFETY: `gen` is an out-parameter cuRAND fills.
    check("curandCreateGenerator", unsafe {
        sys::curandCreateGenerator(&mut gen, rng)
    })?;
    let n = what.count();
    // SAFETY: `gen` is live until the destroy below; `addr` is a device buffer of WORDS
    // u32 in the primary context cuRAND runs in, and `n` values of `what` fit in it.
    let r = unsafe {
        (|| {
            check(
                "curandSetGeneratorOrdering",
                sys::curandSetGeneratorOrdering(gen, ordering),
            )?;
            if let Some(s) = seed {
                check(
                    "curandSetPseudoRandomGeneratorSeed",
                    sys::curandSetPseudoRandomGeneratorSeed(gen, s),
                )?;
            } else {
                check(
                    "curandSetQuasiRandomGeneratorDimensions",
                    sys::curandSetQuasiRandomGeneratorDimensions(gen, dims),
                )?;
            }
            check(
                "curandSetGeneratorOffset",
                sys::curandSetGeneratorOffset(gen, offset),
            )?;
            let s = match what {
                What::U32 => sys::curandGenerate(gen, addr as *mut u32, n),
                What::U64 => sys::curandGenerateLongLong(gen, addr as *mut u64, n),
                What::UniformF32 => sys::curandGenerateUniform(gen, addr as *mut f32, n),
                What::UniformF64 => sys::curandGenerateUniformDouble(gen, addr as *mut f64, n),
                What::NormalF32 => sys::curandGenerateNormal(gen, addr as *mut f32, n, 0.0, 1.0),
                What::NormalF64 => {
                    sys::curandGenerateNormalDouble(gen, addr as *mut f64, n, 0.0, 1.0)
                }
                What::LogNormalF32 => {
                    sys::curandGenerateLogNormal(gen, addr as *mut f32, n, 0.0, 1.0)
                }
                What::Poisson4 => sys::curandGeneratePoisson(gen, addr as *mut u32, n, 4.0),
            };
            check("curandGenerate", s)
        })()
    };
    // SAFETY: created above, destroyed once (after the generate call has been issued;
    // cuRAND synchronises its own stream on destroy).
    let _ = unsafe { sys::curandDestroyGenerator(gen) };
    r
}

/// The file's text: every generator × ordering × seed/dims × offset × value kind.
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
    let mut buf = DeviceBuffer::<u32>::zeros(dev, WORDS)?;
    let addr = buf.address();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# cuRAND host-API sequences: `rocm-bench rand capture` on {} ({}), cuRAND {version}\n\
         # generator ordering seed offset dims dist count values (hex bits; seed '-' for quasi)",
        dev.id(),
        dev.target()
    );
    // (generator, its type, ordering, its value, seed (pseudo) or none (quasi), dims)
    type Job = (&'static str, R, &'static str, O, Option<u64>, u32);
    let mut jobs: Vec<Job> = Vec::new();
    for &(g, rng) in &PSEUDO {
        for &(o, ord) in &PSEUDO_ORDERINGS {
            for &s in &SEEDS {
                jobs.push((g, rng, o, ord, Some(s), 1));
            }
        }
    }
    for &(g, rng) in &QUASI {
        for &d in &QUASI_DIMS {
            jobs.push((
                g,
                rng,
                "quasi_default",
                O::CURAND_ORDERING_QUASI_DEFAULT,
                None,
                d,
            ));
        }
    }
    for (g, rng, o, ord, seed, dims) in jobs {
        for &offset in &OFFSETS {
            for what in What::ALL {
                let seed_text = seed.map_or("-".to_string(), |s| s.to_string());
                let head = format!("{g} {o} {seed_text} {offset} {dims} {}", what.name());
                buf.fill_zero()?;
                dev.synchronize()?;
                match record(rng, ord, seed, offset, dims, what, addr) {
                    Ok(()) => {
                        ctx.synchronize()
                            .map_err(|e| Error::backend("cuCtxSynchronize", 0, e.to_string()))?;
                        let w = buf.to_vec()?;
                        let n = what.count();
                        let _ = write!(out, "{head} {n}");
                        for i in 0..n {
                            if what.wide() {
                                let v = (w[2 * i] as u64) | ((w[2 * i + 1] as u64) << 32);
                                let _ = write!(out, " {v:016x}");
                            } else {
                                let _ = write!(out, " {:08x}", w[i]);
                            }
                        }
                        out.push('\n');
                    }
                    Err(e) => {
                        let _ = writeln!(out, "# refused: {head}: {e}");
                    }
                }
            }
        }
    }
    Ok(out)
}
