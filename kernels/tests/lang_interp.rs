//! The language's example kernels (`rocm_kernels::lang::examples`) run by the CPU
//! interpreter against plain Rust on random data, on a wave64 target (gfx90a) and a
//! wave32 one (gfx1100), and the interpreter's error reports.
//!
//! Exact where the kernel's arithmetic is a fixed sequence of correctly rounded
//! operations (the test repeats the sequence: bitwise equal). The softmax, whose
//! reference is computed in f64, is within (cols + 16)·2⁻²⁴ relative: each exponential
//! is off by at most 6u (the subtraction and the scaling by log₂e round once each, an
//! argument error δ becomes a relative error ln2·δ with |argument| ≤ 3 here, and exp2
//! rounds once), the sum of cols of them adds (cols − 1)u and the division u.

use rocm_core::{Error, Target};
use rocm_kernels::lang::examples;
use rocm_kernels::lang::interp::{run, Arg};
use rocm_kernels::lang::{Access, Builder, KernelDef, Scalar};

struct Rng(u64);

impl Rng {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn below(&mut self, n: u32) -> u32 {
        ((self.next() + 1.0) * 0.5 * n as f64) as u32 % n
    }
}

const TARGETS: [&str; 2] = ["gfx90a", "gfx1100"];

fn targets() -> impl Iterator<Item = Target> {
    TARGETS.iter().map(|t| t.parse().unwrap())
}

fn launch(k: &KernelDef, grid: u32, block: u32, args: &mut [Arg]) {
    run(k, [grid, 1, 1], [block, 1, 1], args).unwrap_or_else(|e| panic!("{}: {e}", k.name));
}

#[test]
fn vector_add_is_exact() {
    let mut rng = Rng(1);
    for t in targets() {
        let k = examples::vector_add(&t).unwrap();
        let n = 1000;
        let a: Vec<f32> = (0..n).map(|_| rng.next() as f32).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.next() as f32).collect();
        let mut args = [
            Arg::buffer(&a),
            Arg::buffer(&b),
            Arg::buffer(&vec![0f32; n]),
            Arg::u32(n as u32),
        ];
        launch(&k, n.div_ceil(128) as u32, 128, &mut args);
        let c: Vec<f32> = args[2].values();
        for i in 0..n {
            assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "{t} element {i}");
        }
    }
}

#[test]
fn axpy_grid_stride_is_exact() {
    let mut rng = Rng(2);
    for t in targets() {
        let k = examples::axpy(&t).unwrap();
        let n = 777;
        let alpha = rng.next();
        let x: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let y: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let mut args = [
            Arg::u32(n as u32),
            Arg::f64(alpha),
            Arg::buffer(&x),
            Arg::buffer(&y),
        ];
        // 3 workgroups of 64 cover 777 elements in 5 grid strides.
        launch(&k, 3, 64, &mut args);
        let out: Vec<f64> = args[3].values();
        for i in 0..n {
            assert_eq!(
                out[i].to_bits(),
                alpha.mul_add(x[i], y[i]).to_bits(),
                "{t} element {i}"
            );
        }
    }
}

#[test]
fn convert_f16_rounds_to_nearest_even() {
    let mut rng = Rng(3);
    let t: Target = "gfx90a".parse().unwrap();
    let k = examples::convert_f16(&t).unwrap();
    let mut x: Vec<f32> = (0..500).map(|_| (rng.next() * 70000.0) as f32).collect();
    // Ties, subnormals, overflow and specials.
    x.extend([
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        2f32.powi(-25),
        3.0 * 2f32.powi(-26),
        65520.0,
        65519.0,
        -1e9,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
    ]);
    let n = x.len();
    let mut args = [
        Arg::u32(n as u32),
        Arg::buffer(&x),
        Arg::buffer(&vec![0u16; n]),
    ];
    launch(&k, n.div_ceil(64) as u32, 64, &mut args);
    let y: Vec<u16> = args[2].values();
    for i in 0..n {
        let want = rocm_core::f16::from_f32(x[i]);
        let got = rocm_core::f16::from_bits(y[i]);
        let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
        assert!(
            same,
            "x = {:e}: {:#06x} vs {:#06x}",
            x[i],
            y[i],
            want.to_bits()
        );
    }
}

/// The workgroup sum's exact order: lane sums in grid-stride order, a butterfly over
/// each wave, then a butterfly over the waves' sums padded to a wave with zeros.
fn workgroup_sum_reference<T: Copy + std::ops::Add<Output = T>>(
    x: &[T],
    zero: T,
    grid: usize,
    block: usize,
    wave: usize,
) -> Vec<T> {
    let butterfly = |mut v: Vec<T>| {
        let mut m = v.len() / 2;
        while m > 0 {
            v = (0..v.len()).map(|i| v[i] + v[i ^ m]).collect();
            m /= 2;
        }
        v[0]
    };
    (0..grid)
        .map(|g| {
            let lanes: Vec<T> = (0..block)
                .map(|t| {
                    let mut acc = zero;
                    let mut i = g * block + t;
                    while i < x.len() {
                        acc = acc + x[i];
                        i += grid * block;
                    }
                    acc
                })
                .collect();
            let mut waves: Vec<T> = lanes.chunks(wave).map(|c| butterfly(c.to_vec())).collect();
            waves.resize(wave, zero);
            butterfly(waves)
        })
        .collect()
}

#[test]
fn workgroup_sum_is_exact_in_its_documented_order() {
    let mut rng = Rng(4);
    for t in targets() {
        let wave = t.caps().wave_size() as usize;
        let (grid, block, n) = (5, 192, 4000);
        let x: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let k = examples::workgroup_sum(&t, Scalar::F64).unwrap();
        let mut args = [
            Arg::u32(n as u32),
            Arg::buffer(&x),
            Arg::buffer(&vec![0f64; grid]),
        ];
        launch(&k, grid as u32, block as u32, &mut args);
        let got: Vec<f64> = args[2].values();
        let want = workgroup_sum_reference(&x, 0.0, grid, block, wave);
        assert_eq!(got, want, "{t} f64");
        let total: f64 = x.iter().sum();
        assert!((got.iter().sum::<f64>() - total).abs() < 1e-12 * n as f64);

        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let k = examples::workgroup_sum(&t, Scalar::F32).unwrap();
        let mut args = [
            Arg::u32(n as u32),
            Arg::buffer(&x32),
            Arg::buffer(&vec![0f32; grid]),
        ];
        launch(&k, grid as u32, block as u32, &mut args);
        let got: Vec<f32> = args[2].values();
        assert_eq!(
            got,
            workgroup_sum_reference(&x32, 0.0, grid, block, wave),
            "{t} f32"
        );
    }
}

#[test]
fn divergent_branches_write_their_own_values() {
    let mut rng = Rng(5);
    for t in targets() {
        let k = examples::divergent(&t).unwrap();
        let n = 300;
        let x: Vec<f32> = (0..n).map(|_| rng.next() as f32).collect();
        let mut args = [
            Arg::u32(n as u32),
            Arg::buffer(&x),
            Arg::buffer(&vec![0f32; n]),
            Arg::buffer(&vec![0u32; n]),
        ];
        launch(&k, n.div_ceil(64) as u32, 64, &mut args);
        let (y, flag): (Vec<f32>, Vec<u32>) = (args[2].values(), args[3].values());
        for i in 0..n {
            let (want, f) = if x[i] > 0.0 {
                (x[i].sqrt(), i as u32)
            } else {
                (x[i].mul_add(x[i], 1.0), !(i as u32))
            };
            assert_eq!(
                (y[i].to_bits(), flag[i]),
                (want.to_bits(), f),
                "{t} element {i}"
            );
        }
    }
}

#[test]
fn varying_loop_sums_in_order() {
    let mut rng = Rng(6);
    for t in targets() {
        let k = examples::varying_loop(&t).unwrap();
        let n = 200;
        let count: Vec<u32> = (0..n).map(|_| rng.below(40)).collect();
        let x: Vec<f32> = (0..n).map(|_| rng.next() as f32).collect();
        let mut args = [
            Arg::u32(n as u32),
            Arg::buffer(&count),
            Arg::buffer(&x),
            Arg::buffer(&vec![0f32; n]),
        ];
        launch(&k, n.div_ceil(64) as u32, 64, &mut args);
        let y: Vec<f32> = args[3].values();
        for i in 0..n {
            let want = (0..count[i] as usize)
                .filter(|j| j % 3 != 2)
                .fold(0f32, |s, j| s + x[(i + j) % n]);
            assert_eq!(y[i].to_bits(), want.to_bits(), "{t} element {i}");
        }
    }
}

#[test]
fn softmax_rows_match_f64_within_the_bound() {
    let mut rng = Rng(7);
    for t in targets() {
        let k = examples::softmax_row(&t).unwrap();
        for (rows, cols, block) in [(3, 1000, 256), (2, 37, 64), (1, 1, 64)] {
            let x: Vec<f32> = (0..rows * cols)
                .map(|_| (rng.next() * 2.0) as f32)
                .collect();
            let mut args = [
                Arg::u32(cols as u32),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f32; rows * cols]),
            ];
            launch(&k, rows as u32, block, &mut args);
            let y: Vec<f32> = args[2].values();
            let bound = (cols as f64 + 16.0) * 2f64.powi(-24);
            for r in 0..rows {
                let row = &x[r * cols..(r + 1) * cols];
                let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
                let s: f64 = e.iter().sum();
                for j in 0..cols {
                    let want = e[j] / s;
                    let got = y[r * cols + j] as f64;
                    assert!(
                        (got - want).abs() <= bound * want,
                        "{t} {rows}x{cols} ({r}, {j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn out_of_bounds_access_names_kernel_and_buffer() {
    let t: Target = "gfx90a".parse().unwrap();
    let k = examples::vector_add(&t).unwrap();
    let mut args = [
        Arg::buffer(&[0f32; 64]),
        Arg::buffer(&[0f32; 64]),
        Arg::buffer(&[0f32; 63]),
        Arg::u32(64),
    ];
    let e = run(&k, [1, 1, 1], [64, 1, 1], &mut args).unwrap_err();
    let Error::KernelFault {
        kernel, lane, what, ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!((kernel.as_str(), *lane), ("vector_add", Some(63)));
    assert!(what.contains("`c`") && what.contains("252"), "{what}");
}

#[test]
fn missing_barrier_and_partial_waves_are_reported() {
    let t: Target = "gfx90a".parse().unwrap();
    // Each work-item reads its neighbour's shared slot without a barrier.
    let mut k = Builder::new("racy", &t).unwrap();
    let out = k.ptr("out", Scalar::U32, Access::Write);
    let s = k.shared("s", Scalar::U32, 64);
    let tid = k.thread_id();
    let o = k.at(s, tid);
    k.store(s, o, tid);
    let next = k.add(tid, 1u32);
    let next = k.and(next, 63u32);
    let no = k.at(s, next);
    let v = k.load(s, no);
    let go = k.at(out, tid);
    k.store(out, go, v);
    let racy = k.finish().unwrap();
    let mut args = [Arg::buffer(&[0u32; 64])];
    let e = run(&racy, [1, 1, 1], [64, 1, 1], &mut args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("without a barrier"), "{e}");

    // A workgroup of 96 on wave64 leaves the second wave partial.
    let k = examples::workgroup_sum(&t, Scalar::F32).unwrap();
    let mut args = [
        Arg::u32(10),
        Arg::buffer(&[1f32; 10]),
        Arg::buffer(&[0f32; 1]),
    ];
    let e = run(&k, [1, 1, 1], [96, 1, 1], &mut args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("inactive lanes"), "{e}");

    let mut args = [Arg::u32(10)];
    let e = run(&k, [1, 1, 1], [64, 1, 1], &mut args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 parameters"), "{e}");
}

#[test]
fn shared_atomics_from_every_work_item_need_no_barrier() {
    let t: Target = "gfx90a".parse().unwrap();
    let mut k = Builder::new("count", &t).unwrap();
    let out = k.ptr("out", Scalar::U32, Access::Write);
    let s = k.shared("s", Scalar::U32, 1);
    let tid = k.thread_id();
    let first = k.eq(tid, 0u32);
    k.if_(first, |k| {
        let zero = k.lit(0u32);
        k.store(s, 0u32, zero);
    });
    k.barrier();
    let one = k.lit(1u32);
    let _ = k.atomic(rocm_kernels::lang::AtomicOp::Add, s, 0u32, one);
    k.barrier();
    let total = k.load(s, 0u32);
    let o = k.at(out, tid);
    k.store(out, o, total);
    let k = k.finish().unwrap();
    let mut args = [Arg::buffer(&[0u32; 128])];
    launch(&k, 1, 128, &mut args);
    assert_eq!(args[0].values::<u32>(), vec![128u32; 128]);
}

#[test]
fn wave_operations_follow_their_definitions() {
    let mut rng = Rng(9);
    for t in targets() {
        let ws = t.caps().wave_size() as usize;
        let k = examples::wave_ops(&t).unwrap();
        let n = 128;
        let x: Vec<u32> = (0..n)
            .map(|_| ((rng.next() + 1.0) * 2147483648.0) as u32)
            .collect();
        let mut args = [
            Arg::buffer(&x),
            Arg::buffer(&vec![0u32; 4 * n]),
            Arg::buffer(&vec![0u64; 3 * n]),
        ];
        launch(&k, 2, 64, &mut args);
        let (out, votes): (Vec<u32>, Vec<u64>) = (args[1].values(), args[2].values());
        for i in 0..n {
            let (w, l) = (i / ws * ws, i % ws);
            let lane = |s: Option<usize>| x[w + s.filter(|&s| s < ws).unwrap_or(l)];
            let want = [
                x[w + (x[i] % 64) as usize % ws],
                lane(l.checked_sub(3)),
                lane(Some(l + 5)),
                lane(Some(l ^ 9)),
            ];
            assert_eq!(out[4 * i..4 * i + 4], want, "{t} work-item {i}");
            let wave = &x[w..w + ws];
            let ballot = wave
                .iter()
                .enumerate()
                .fold(0u64, |b, (j, v)| b | ((v & 1) as u64) << j);
            let any = wave.iter().any(|&v| v > 1 << 31) as u64;
            let all = wave.iter().all(|&v| v > 1 << 31) as u64;
            assert_eq!(
                votes[3 * i..3 * i + 3],
                [ballot, any, all],
                "{t} work-item {i}"
            );
        }
    }
}
