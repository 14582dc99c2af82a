//! Hostile solver arguments (issue 29): every routine with orders, leading dimensions
//! and batch counts of 0, 2^32, 2^40, 2^64 − 1 (a negative LAPACK integer read as
//! unsigned), leading dimensions below the order and buffers shorter than the matrix.
//! Each case must either be the valid quick return LAPACK defines (order 0 or batch 0
//! with legal leading dimensions: accepted, and nothing written) or a clean
//! `InvalidArgument` naming exactly the argument to fix; never a panic (each case runs
//! under `catch_unwind`, so a panic fails this test instead of aborting it). Huge
//! sizes are refused before anything is allocated, so the table runs in milliseconds;
//! its outcomes are printed in the issue-29 form.

use rocm_core::{Device, DeviceBuffer, Error, Result};
use rocm_solver::{Diag, Evect, Solver, Svect, Transpose, Uplo};

const HUGE: [usize; 3] = [1 << 32, 1 << 40, usize::MAX];

/// What a case must end in: `Ok` (a valid quick return) or an error naming the argument
/// (`"m|n"`: either, for square problems whose first checked order is `m`).
#[derive(Clone, Copy)]
enum Want {
    Ok,
    Arg(&'static str),
}

type Run = Box<dyn Fn(&Solver) -> Result<()>>;

/// Buffers of `len` f64 values (and `len` pivots) on the solver's device.
struct Bufs {
    a: DeviceBuffer<f64>,
    b: DeviceBuffer<f64>,
    c: DeviceBuffer<f64>,
    w: DeviceBuffer<f64>,
    p: DeviceBuffer<i32>,
}

fn bufs(s: &Solver, len: usize) -> Result<Bufs> {
    let d = s.device();
    Ok(Bufs {
        a: DeviceBuffer::zeros(d, len)?,
        b: DeviceBuffer::zeros(d, len)?,
        c: DeviceBuffer::zeros(d, len)?,
        w: DeviceBuffer::zeros(d, len)?,
        p: DeviceBuffer::zeros(d, len)?,
    })
}

/// `(name, want, run)` for every routine: `n` the order, `ld` the leading dimension,
/// `len` the buffers' length.
fn single(
    name: &'static str,
    n: usize,
    ld: usize,
    len: usize,
    want: Want,
) -> Vec<(String, Want, Run)> {
    let label = |r: &str| format!("{r} n={n} ld={ld} len={len} ({name})");
    let mut v: Vec<(String, Want, Run)> = Vec::new();
    v.push((
        label("getrf"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.getrf(n, n, &mut x.a.as_slice_mut(), ld, &mut x.p.as_slice_mut())
                .map(|_| ())
        }),
    ));
    v.push((
        label("getrs"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.getrs(
                Transpose::N,
                n,
                1,
                &x.a.as_slice(),
                ld,
                &x.p.as_slice(),
                &mut x.b.as_slice_mut(),
                ld,
            )
        }),
    ));
    v.push((
        label("potrf"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.potrf(Uplo::Lower, n, &mut x.a.as_slice_mut(), ld)
                .map(|_| ())
        }),
    ));
    v.push((
        label("trtri"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.trtri(Uplo::Upper, Diag::NonUnit, n, &mut x.a.as_slice_mut(), ld)
                .map(|_| ())
        }),
    ));
    v.push((
        label("geqrf"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.geqrf(n, n, &mut x.a.as_slice_mut(), ld, &mut x.b.as_slice_mut())
        }),
    ));
    v.push((
        label("gels"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.gels(
                Transpose::N,
                n,
                n,
                1,
                &mut x.a.as_slice_mut(),
                ld,
                &mut x.b.as_slice_mut(),
                ld,
            )
            .map(|_| ())
        }),
    ));
    v.push((
        label("syevd"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.syevd(
                Evect::Original,
                Uplo::Lower,
                n,
                &mut x.a.as_slice_mut(),
                ld,
                &mut x.w.as_slice_mut(),
            )
            .map(|_| ())
        }),
    ));
    v.push((
        label("gesvd"),
        want,
        Box::new(move |s| {
            let mut x = bufs(s, len)?;
            s.gesvd(
                Svect::All,
                Svect::All,
                n,
                n,
                &mut x.a.as_slice_mut(),
                ld,
                &mut x.w.as_slice_mut(),
                &mut x.b.as_slice_mut(),
                ld,
                &mut x.c.as_slice_mut(),
                ld,
            )
            .map(|_| ())
        }),
    ));
    v
}

/// Strided-batched GETRF, POTRF and GELS on 4×4 problems `stride` apart.
fn batched(
    name: &'static str,
    stride: usize,
    count: usize,
    len: usize,
    want: Want,
) -> Vec<(String, Want, Run)> {
    let label = |r: &str| format!("{r} stride={stride} batch={count} len={len} ({name})");
    vec![
        (
            label("getrf_strided_batched"),
            want,
            Box::new(move |s: &Solver| {
                let mut x = bufs(s, len)?;
                s.getrf_strided_batched(
                    4,
                    4,
                    &mut x.a.as_slice_mut(),
                    4,
                    stride,
                    &mut x.p.as_slice_mut(),
                    4,
                    count,
                )
                .map(|_| ())
            }) as Run,
        ),
        (
            label("potrf_strided_batched"),
            want,
            Box::new(move |s: &Solver| {
                let mut x = bufs(s, len)?;
                s.potrf_strided_batched(Uplo::Upper, 4, &mut x.a.as_slice_mut(), 4, stride, count)
                    .map(|_| ())
            }),
        ),
        (
            label("gels_strided_batched"),
            want,
            Box::new(move |s: &Solver| {
                let mut x = bufs(s, len)?;
                s.gels_strided_batched(
                    Transpose::N,
                    4,
                    4,
                    1,
                    &mut x.a.as_slice_mut(),
                    4,
                    stride,
                    &mut x.b.as_slice_mut(),
                    4,
                    stride,
                    count,
                )
                .map(|_| ())
            }),
        ),
    ]
}

fn table() -> Vec<(String, Want, Run)> {
    let mut t = Vec::new();
    // Order 0: a quick return with lda >= 1, LAPACK's rule; lda = 0 is an error.
    t.extend(single("order 0", 0, 1, 16, Want::Ok));
    t.extend(single("order 0, lda 0", 0, 0, 16, Want::Arg("lda")));
    for &h in &HUGE {
        t.extend(single("huge order", h, h, 16, Want::Arg("m|n")));
        // A leading dimension near 2^64 over a small matrix: the extent must not wrap.
        t.extend(single("huge lda", 4, h, 16, Want::Arg("a")));
    }
    t.extend(single("lda < n", 4, 3, 64, Want::Arg("lda")));
    t.extend(single("short buffer", 4, 4, 15, Want::Arg("a")));
    // Batches: 0 is a quick return; huge counts and strides are refused.
    t.extend(batched("batch 0", 16, 0, 16, Want::Ok));
    for &h in &HUGE {
        // Too short a buffer for the count, or a count whose extent overflows.
        t.extend(batched("huge batch", 16, h, 64, Want::Arg("a|stride_a")));
        t.extend(batched("huge stride", h, 2, 64, Want::Arg("a|stride_a")));
    }
    t.extend(batched(
        "overlapping outputs",
        8,
        2,
        64,
        Want::Arg("stride_a"),
    ));
    t.extend(batched("short batch buffer", 16, 4, 63, Want::Arg("a")));
    t
}

/// Huge batches of empty problems pass every stride check (nothing is read): the count
/// itself must be refused before one view or `Info` per problem is allocated.
#[test]
fn huge_batches_of_empty_problems_are_refused() {
    let s = Solver::new(&Device::cpu());
    let mut a = DeviceBuffer::<f64>::zeros(s.device(), 1).unwrap();
    let mut p = DeviceBuffer::<i32>::zeros(s.device(), 1).unwrap();
    for &h in &HUGE {
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            s.getrf_strided_batched(
                0,
                0,
                &mut a.as_slice_mut(),
                1,
                0,
                &mut p.as_slice_mut(),
                0,
                h,
            )
        }));
        match got {
            Ok(Err(Error::InvalidArgument { what, .. })) => assert_eq!(what, "batch_count"),
            Ok(other) => panic!("batch {h} of 0x0 problems: {other:?}"),
            Err(_) => panic!("batch {h} of 0x0 problems panicked"),
        }
    }
}

#[test]
fn hostile_solver_arguments_are_clean_errors() {
    let solver = Solver::new(&Device::cpu());
    let cases = table();
    let (mut clean, mut accepted, mut panics, mut wrong) = (0, 0, 0, Vec::new());
    for (name, want, run) in &cases {
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&solver)));
        let outcome = match (got, want) {
            (Err(_), _) => {
                panics += 1;
                "panic".to_string()
            }
            (Ok(Ok(())), Want::Ok) => {
                accepted += 1;
                "accepted (quick return)".to_string()
            }
            (Ok(Err(Error::InvalidArgument { what, why })), Want::Arg(arg))
                if arg.split('|').any(|a| a == what) =>
            {
                clean += 1;
                format!("clean error: `{what}`: {why}")
            }
            (Ok(got), _) => format!("WRONG: {got:?}"),
        };
        if outcome.starts_with("WRONG") || outcome == "panic" {
            wrong.push(format!("{name}: {outcome}"));
        }
        println!("{name:<64} {outcome}");
    }
    println!(
        "solver arguments: tried {} / clean error {clean} / accepted {accepted} / panic {panics} / abort 0 / hang 0 / wrong {}",
        cases.len(),
        wrong.len() - panics
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
