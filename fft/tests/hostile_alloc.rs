//! Plans whose tables cannot be held (issue 29): under an address-space limit of 4 GiB
//! above what the process already maps (`setrlimit(RLIMIT_AS)`, this test binary's only
//! test, so no other test runs under it), the four-step, real, mixed-radix and
//! convolution plans of lengths near 2^40 must end in a clean error naming the table
//! (an allocation failure inside plan creation would abort the process, failing this
//! test), or build where their tables fit. Afterwards a small plan still builds and
//! runs correctly: a failed table leaves nothing behind in the plan cache.

#![cfg(target_os = "linux")]

use rocm_core::{Complex32, Device, DeviceBuffer, Error};
use rocm_fft::{PlanBuilder, Precision, TransformType};

/// Bytes the process maps now (`/proc/self/statm`, first field, in pages).
fn mapped_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .expect("statm's first field");
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * page.max(4096) as u64
}

/// Runs `f` with the soft address-space limit `mapped + extra` bytes, then restores it.
fn with_address_limit<R>(extra: u64, f: impl FnOnce() -> R) -> R {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `old` is a valid rlimit to write into.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut old) }, 0);
    let want = (mapped_bytes() + extra).min(old.rlim_max);
    let new = libc::rlimit {
        rlim_cur: want,
        rlim_max: old.rlim_max,
    };
    // SAFETY: `new` is a valid rlimit; lowering the soft limit needs no privilege.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &new) }, 0);
    let r = f();
    // SAFETY: as above; restoring the soft limit up to the unchanged hard limit.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &old) }, 0);
    r
}

#[test]
fn unholdable_plan_tables_are_clean_errors() {
    let dev = Device::cpu();
    // Start rayon's pool before the limit (its threads' stacks are not the subject).
    rayon::broadcast(|_| ());
    let c2c = TransformType::ComplexForward;
    let r2c = TransformType::RealForward;
    // (name, kind, lengths, precision, must fail): `must fail` plans need more than the
    // limit in tables alone (the four-step tables of 2^40 points are 2^31 values, 16
    // GiB in f32); the others may build where their tables fit.
    let cases: Vec<(&str, TransformType, Vec<usize>, Precision, bool)> = vec![
        (
            "c2c 2^40 f32 (four-step)",
            c2c,
            vec![1 << 40],
            Precision::F32,
            true,
        ),
        (
            "c2c 2^40 f64 (four-step)",
            c2c,
            vec![1 << 40],
            Precision::F64,
            true,
        ),
        (
            "r2c 2^41 f32 (half-length four-step)",
            r2c,
            vec![1 << 41],
            Precision::F32,
            true,
        ),
        (
            "c2c 3^25 f32 (mixed radix)",
            c2c,
            vec![3usize.pow(25)],
            Precision::F32,
            true,
        ),
        (
            "c2c 2^20 x 2^20 f32 (per-axis tables)",
            c2c,
            vec![1 << 20, 1 << 20],
            Precision::F32,
            false,
        ),
        (
            "c2c 2^31-1 f32 (prime: convolution)",
            c2c,
            vec![(1 << 31) - 1],
            Precision::F32,
            false,
        ),
    ];
    let outcomes = with_address_limit(4 << 30, || {
        cases
            .iter()
            .map(|(name, kind, lens, prec, _)| {
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    PlanBuilder::new(*kind, lens).precision(*prec).build(&dev)
                }));
                (name, got.map(|r| r.map(|p| p.describe())))
            })
            .collect::<Vec<_>>()
    });
    let (mut clean, mut accepted, mut wrong) = (0, 0, Vec::new());
    for ((name, got), (_, _, _, _, must_fail)) in outcomes.into_iter().zip(&cases) {
        let outcome = match got {
            Err(_) => "WRONG: panicked".to_string(),
            Ok(Ok(plan)) if !must_fail => {
                accepted += 1;
                format!("accepted: {plan}")
            }
            Ok(Ok(_)) => "WRONG: built".to_string(),
            Ok(Err(e)) => {
                let msg = e.to_string();
                // The error names the table that could not be held.
                let named = matches!(e, Error::OutOfMemory { .. }) && msg.contains("table");
                if named {
                    clean += 1;
                    format!("clean error: {msg}")
                } else {
                    format!("WRONG: {msg}")
                }
            }
        };
        if outcome.starts_with("WRONG") {
            wrong.push(format!("{name}: {outcome}"));
        }
        println!("{name:<44} {outcome}");
    }
    println!(
        "fft unholdable plans: tried {} / clean error {clean} / accepted {accepted} / panic 0 / abort 0 / hang 0 / wrong {}",
        cases.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // The cache kept nothing broken: a small plan builds and transforms an impulse.
    let plan = PlanBuilder::new(c2c, &[64])
        .build(&dev)
        .expect("64-point plan");
    let mut x = vec![Complex32::new(0.0, 0.0); 64];
    x[0] = Complex32::new(1.0, 0.0);
    let x = DeviceBuffer::from_slice(&dev, &x).unwrap();
    let mut y = DeviceBuffer::<Complex32>::zeros(&dev, 64).unwrap();
    plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        None,
    )
    .unwrap();
    // The transform of an impulse is all ones; each output passes log2(64) = 6
    // butterfly stages of at most a few roundings of unit-size values: 8·6·ε bounds it.
    let bound = 8.0 * 6.0 * f32::EPSILON;
    for (k, z) in y.to_vec().unwrap().iter().enumerate() {
        assert!(
            (z - Complex32::new(1.0, 0.0)).norm() <= bound,
            "X[{k}] = {z}"
        );
    }
}
