//! Hostile generator arguments (issue 29), for every generator kind on the CPU:
//! offsets at and near the end of the stream (the values of a call would pass 2^64),
//! dtypes a distribution does not have, Poisson λ ≤ 0, NaN, infinite or above 2^24,
//! non-finite normal parameters, discrete weights that are empty, negative or NaN,
//! quasi-random dimensions 0 and beyond the table, and orderings of the other family.
//! Each case must be a clean `Error` whose message names the argument, with nothing
//! written and the generator's offset unchanged; never a panic (each case runs under
//! `catch_unwind`, so a panic fails this test instead of aborting it). The outcomes are
//! printed in the issue-29 form.

use rocm_core::{Device, DeviceBuffer, Result};
use rocm_rand::dist::PoissonTable;
use rocm_rand::{Dist, Generator, Kind, Ordering};

const KINDS: [Kind; 8] = [
    Kind::Philox4x32_10,
    Kind::Threefry2x32_20,
    Kind::Xorwow,
    Kind::Mrg32k3a,
    Kind::Sobol32,
    Kind::ScrambledSobol32,
    Kind::Sobol64,
    Kind::ScrambledSobol64,
];

/// The value every output starts with: a refused call must leave it.
const UNTOUCHED: f32 = 7.5;

type Run = Box<dyn Fn(&mut Generator, &Device) -> Result<()>>;

fn uniform_f32(g: &mut Generator, dev: &Device, n: usize) -> Result<()> {
    let mut out = DeviceBuffer::from_slice(dev, &vec![UNTOUCHED; n])?;
    let r = g.generate_uniform(&mut out.as_slice_mut());
    if r.is_err() {
        assert!(
            out.to_vec()?.iter().all(|&v| v == UNTOUCHED),
            "a refused call wrote values"
        );
    }
    r
}

/// A case: its name, the word its error must contain, the generator's offset before
/// it, and what it runs.
type Case = (String, &'static str, u64, Run);

fn cases(kind: Kind) -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    // The values of the call would pass the end of the stream: 2^64 positions, or 2^32
    // points of a 32-bit Sobol sequence.
    let mut ends = vec![u64::MAX, u64::MAX - 8];
    if kind.sobol_bits() == 32 {
        ends.extend([(1 << 32) - 8, 1 << 32, 1 << 63]);
    }
    for offset in ends {
        v.push((
            format!("offset {offset} + 16 uniform f32"),
            "offset",
            offset,
            Box::new(|g, d| uniform_f32(g, d, 16)),
        ));
    }
    v.push((
        "uniform into i32".into(),
        "dtype",
        0,
        Box::new(|g, d| {
            let mut out = DeviceBuffer::<i32>::zeros(d, 16)?;
            g.generate_uniform(&mut out.as_slice_mut())
        }),
    ));
    v.push((
        "bits into f64".into(),
        "dtype",
        0,
        Box::new(|g, d| {
            let mut out = DeviceBuffer::<f64>::zeros(d, 16)?;
            g.generate(Dist::Bits, &mut out.as_slice_mut(), 0.0, 1.0)
        }),
    ));
    for (label, mean, stddev) in [
        ("NaN mean", f64::NAN, 1.0),
        ("infinite stddev", 0.0, f64::INFINITY),
    ] {
        v.push((
            format!("normal with {label}"),
            "mean/stddev",
            0,
            Box::new(move |g, d| {
                let mut out = DeviceBuffer::<f32>::zeros(d, 16)?;
                g.generate_normal(&mut out.as_slice_mut(), mean, stddev)
            }),
        ));
    }
    for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY, 2f64.powi(24) * 2.0] {
        v.push((
            format!("poisson lambda {lambda}"),
            "lambda",
            0,
            Box::new(move |g, d| {
                let mut out = DeviceBuffer::<u32>::zeros(d, 16)?;
                g.generate_poisson(&mut out.as_slice_mut(), lambda)
            }),
        ));
    }
    for (label, w) in [
        ("no weights", vec![]),
        ("a negative weight", vec![1.0, -1.0]),
        ("a NaN weight", vec![f64::NAN]),
        ("zero total weight", vec![0.0, 0.0]),
    ] {
        v.push((
            format!("discrete with {label}"),
            "weights",
            0,
            Box::new(move |_, _| PoissonTable::discrete(&w).map(|_| ())),
        ));
    }
    if kind.quasi() {
        for dims in [0, 20_001, u32::MAX] {
            v.push((
                format!("{dims} dimensions"),
                "dimensions",
                0,
                Box::new(move |g, _| g.set_dimensions(dims)),
            ));
        }
        v.push((
            "a pseudo-random ordering".into(),
            "ordering",
            0,
            Box::new(|g, _| g.set_ordering(Ordering::PseudoBest)),
        ));
    } else {
        v.push((
            "the quasi-random ordering".into(),
            "ordering",
            0,
            Box::new(|g, _| g.set_ordering(Ordering::QuasiDefault)),
        ));
    }
    v
}

#[test]
fn hostile_generator_arguments_are_clean_errors() {
    let dev = Device::cpu();
    let (mut tried, mut clean, mut panics, mut wrong) = (0, 0, 0, Vec::new());
    for kind in KINDS {
        for (name, word, start, run) in cases(kind) {
            tried += 1;
            let mut g = Generator::new(&dev, kind).expect("CPU generator");
            g.set_offset(start);
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let before = g.offset();
                let r = run(&mut g, &dev);
                (r, before)
            }));
            let label = format!("{} {name}", kind.name());
            let outcome = match got {
                Err(_) => {
                    panics += 1;
                    wrong.push(format!("{label}: panicked"));
                    "panic".to_string()
                }
                Ok((Ok(()), _)) => {
                    wrong.push(format!("{label}: accepted"));
                    "WRONG: accepted".to_string()
                }
                Ok((Err(e), before)) => {
                    let msg = e.to_string();
                    if !msg.contains(word) {
                        wrong.push(format!("{label}: error does not name `{word}`: {msg}"));
                        format!("WRONG: {msg}")
                    } else if g.offset() != before {
                        wrong.push(format!("{label}: a refused call moved the offset"));
                        "WRONG: offset moved".to_string()
                    } else {
                        clean += 1;
                        format!("clean error: {msg}")
                    }
                }
            };
            println!("{label:<56} {outcome}");
        }
    }
    println!(
        "rand arguments: tried {tried} / clean error {clean} / accepted 0 / panic {panics} / abort 0 / hang 0 / wrong {}",
        wrong.len() - panics
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
