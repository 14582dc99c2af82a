//! The GPU path against the f64 (double-double) reference on every emulated AMD target
//! and, when one is present, `cuda:0`; the same kernels' PTX through ptxas and their
//! definitions through the kernel language interpreter.
//!
//! Tolerance: the CPU path's bound, relative L2 error ≤ 4·ε·√max(1, log2 N) (ε of the
//! compute type) per transform. The kernel's arithmetic is the CPU path's kind: twiddles
//! rounded once from f64, radix butterflies whose constants are rounded once, one
//! rounding per add/fma, about log_R N passes, so the error grows like ε·√log2 N.

mod common;

use common::{bound, random_c, C64};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use rocm_core::{Complex32, Complex64, Device, DeviceBuffer, Error};
use rocm_fft::gpu::single::{self, Real};
use rocm_fft::reference::{fft_dd, rel_l2};
use rocm_fft::{Layout, Placement, PlanBuilder, Precision, TransformType};

const EMULATED: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];

/// The emulated targets and, when it opens, `cuda:0`.
fn devices() -> Vec<Device> {
    let mut d: Vec<Device> = EMULATED
        .iter()
        .map(|n| Device::open(n).expect("emulated targets are always present"))
        .collect();
    match Device::open("cuda:0") {
        Ok(c) => d.push(c),
        Err(e) => eprintln!("skipping cuda:0 ({e})"),
    }
    d
}

/// A c2c transform described fully.
#[derive(Debug, Clone)]
struct Case {
    n: usize,
    batch: usize,
    precision: Precision,
    forward: bool,
    in_place: bool,
    /// Input stride, distance, offset (complex elements).
    input: (usize, usize, usize),
    /// Output stride, distance, offset (ignored in place).
    output: (usize, usize, usize),
    scale: f64,
}

impl Case {
    fn contiguous(n: usize, batch: usize, precision: Precision, forward: bool) -> Case {
        Case {
            n,
            batch,
            precision,
            forward,
            in_place: false,
            input: (1, n, 0),
            output: (1, n, 0),
            scale: 1.0,
        }
    }

    fn layouts(&self) -> (Layout, Layout) {
        let l = |(s, d, o): (usize, usize, usize)| Layout::new(&[s], d, o);
        let i = l(self.input);
        let o = if self.in_place {
            i.clone()
        } else {
            l(self.output)
        };
        (i, o)
    }
}

fn extent(l: &Layout, n: usize, batch: usize) -> usize {
    l.extent(&[n], batch).unwrap()
}

/// One vector per transform of a batch.
type Lines = Vec<Vec<C64>>;

/// Runs `c` on `dev`, returning each transform's output and the input it read.
fn run(dev: &Device, c: &Case, seed: u64) -> rocm_core::Result<(Lines, Lines)> {
    let kind = if c.forward {
        TransformType::ComplexForward
    } else {
        TransformType::ComplexInverse
    };
    let (il, ol) = c.layouts();
    let placement = if c.in_place {
        Placement::InPlace
    } else {
        Placement::NotInPlace
    };
    let plan = PlanBuilder::new(kind, &[c.n])
        .batch(c.batch)
        .precision(c.precision)
        .placement(placement)
        .input_layout(il.clone())
        .output_layout(ol.clone())
        .scale(c.scale)
        .build(dev)?;
    let len_in = extent(&il, c.n, c.batch);
    let len_out = extent(&ol, c.n, c.batch);
    let len = if c.in_place {
        len_in.max(len_out)
    } else {
        len_in
    };
    let mut host = random_c(len, seed);
    if c.precision == Precision::F32 {
        host = common::round32(&host);
    }
    let inputs: Vec<Vec<C64>> = (0..c.batch)
        .map(|b| {
            (0..c.n)
                .map(|i| host[il.offset + b * il.distance + i * il.strides[0]])
                .collect()
        })
        .collect();
    let stream = dev.default_stream();
    let all: Vec<C64> = match c.precision {
        Precision::F64 => {
            let x: Vec<Complex64> = host.clone();
            let mut xb = DeviceBuffer::from_slice(dev, &x)?;
            if c.in_place {
                plan.execute_in_place(stream, &mut xb.as_slice_mut(), None)?;
                xb.to_vec()?
            } else {
                let mut yb = DeviceBuffer::<Complex64>::zeros(dev, len_out)?;
                plan.execute(stream, &xb.as_slice(), &mut yb.as_slice_mut(), None)?;
                yb.to_vec()?
            }
        }
        _ => {
            let x: Vec<Complex32> = host
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32))
                .collect();
            let mut xb = DeviceBuffer::from_slice(dev, &x)?;
            let y = if c.in_place {
                plan.execute_in_place(stream, &mut xb.as_slice_mut(), None)?;
                xb.to_vec()?
            } else {
                let mut yb = DeviceBuffer::<Complex32>::zeros(dev, len_out)?;
                plan.execute(stream, &xb.as_slice(), &mut yb.as_slice_mut(), None)?;
                yb.to_vec()?
            };
            y.iter()
                .map(|z| C64::new(z.re as f64, z.im as f64))
                .collect()
        }
    };
    let outputs = (0..c.batch)
        .map(|b| {
            (0..c.n)
                .map(|i| all[ol.offset + b * ol.distance + i * ol.strides[0]])
                .collect()
        })
        .collect();
    Ok((outputs, inputs))
}

/// Checks every transform of `c` on `dev` against the reference.
fn check(dev: &Device, c: &Case, seed: u64) {
    let (outputs, inputs) = run(dev, c, seed).unwrap_or_else(|e| panic!("{} {c:?}: {e}", dev.id()));
    let tol = bound(c.precision, c.n, false);
    for (b, (y, x)) in outputs.iter().zip(&inputs).enumerate() {
        let want: Vec<C64> = fft_dd(x, c.forward).iter().map(|z| z * c.scale).collect();
        let err = rel_l2(y, &want);
        assert!(
            err <= tol,
            "{} {c:?} batch {b}: relative L2 error {err:.3e} above {tol:.3e}",
            dev.id()
        );
    }
}

/// Every radix alone and in mixed sequences, both directions, f32 and f64, on every
/// device.
#[test]
fn single_kernel_lengths_on_every_device() {
    let lengths = [
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        12,
        13,
        14,
        15,
        16,
        17 - 1,
        24,
        49,
        60,
        64,
        100,
        121,
        128,
        169,
        210,
        243,
        256,
        1000,
    ];
    for dev in devices() {
        for (i, &n) in lengths.iter().enumerate() {
            for precision in [Precision::F32, Precision::F64] {
                let forward = i % 2 == 0;
                check(&dev, &Case::contiguous(n, 3, precision, forward), n as u64);
            }
        }
    }
}

/// The largest single-kernel sizes the issue names: 4096 complex f32, 2048 f64.
#[test]
fn largest_single_kernel_sizes() {
    for dev in devices() {
        check(&dev, &Case::contiguous(4096, 1, Precision::F32, true), 1);
        check(&dev, &Case::contiguous(2048, 1, Precision::F64, false), 2);
        if dev.target().caps().kernel_isa == rocm_core::KernelIsa::Ptx {
            // Past 48 KiB of shared memory: dynamic shared memory, opted into at launch.
            check(&dev, &Case::contiguous(16384, 2, Precision::F32, true), 3);
            check(&dev, &Case::contiguous(8192, 1, Precision::F64, false), 4);
        }
    }
}

/// The two-kernel four-step (lengths above the single kernel's shared memory on the
/// emulated targets, and larger ones on NVIDIA): batches, both directions, in place,
/// strides and offsets.
#[test]
fn four_step_lengths_on_every_device() {
    for dev in devices() {
        let mut c = Case::contiguous(16384, 2, Precision::F32, true);
        check(&dev, &c, 5);
        c = Case::contiguous(12288, 1, Precision::F64, false);
        c.in_place = true;
        check(&dev, &c, 6);
        let mut c = Case::contiguous(3 * 8192, 2, Precision::F32, false);
        c.input = (2, 2 * c.n + 5, 3);
        c.output = (1, c.n + 1, 1);
        c.scale = 0.5;
        check(&dev, &c, 7);
        if dev.target().caps().kernel_isa == rocm_core::KernelIsa::Ptx {
            // NVIDIA's shared memory holds the lengths above in one kernel; these do not.
            let mut c = Case::contiguous(1 << 16, 2, Precision::F32, true);
            check(&dev, &c, 8);
            c = Case::contiguous(3 << 13, 1, Precision::F64, false);
            c.in_place = true;
            check(&dev, &c, 9);
        }
    }
}

/// Strides, distances, offsets, batches, directions, scales and placements at random
/// smooth lengths, on a random device of the list.
fn case_strategy() -> impl Strategy<Value = Case> {
    let lengths = prop::sample::select(vec![
        1usize, 2, 3, 5, 6, 8, 12, 18, 20, 27, 32, 36, 45, 48, 72, 80, 96, 105, 125, 128, 143, 192,
        224, 256, 320, 343, 512,
    ]);
    (
        lengths,
        1usize..6,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        (1usize..4, 0usize..5, 0usize..4),
        (1usize..4, 0usize..5, 0usize..4),
        prop::sample::select(vec![1.0, 0.5, -3.0]),
    )
        .prop_map(|(n, batch, f64p, forward, in_place, i, o, scale)| {
            let lay = |(s, pad, off): (usize, usize, usize)| (s, n * s + pad, off);
            Case {
                n,
                batch,
                precision: if f64p { Precision::F64 } else { Precision::F32 },
                forward,
                in_place,
                input: lay(i),
                output: lay(o),
                scale,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn layouts_batches_and_directions(c in case_strategy(), d in 0usize..EMULATED.len(), seed in any::<u64>()) {
        let dev = Device::open(EMULATED[d]).unwrap();
        check(&dev, &c, seed);
    }
}

/// The same layouts on `cuda:0` (skipped without one).
#[test]
fn layouts_on_cuda() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipping: no cuda:0");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..64 {
        let c = case_strategy().new_tree(&mut runner).unwrap().current();
        check(&dev, &c, c.n as u64);
    }
}

/// The check above fails on a wrong answer: the forward result is far from the
/// backward reference.
#[test]
fn the_check_can_fail() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let c = Case::contiguous(12, 1, Precision::F32, true);
    let (y, x) = run(&dev, &c, 3).unwrap();
    let wrong = fft_dd(&x[0], false);
    assert!(rel_l2(&y[0], &wrong) > 0.1);
}

/// Bad input is an error before any launch: zero lengths, lengths the GPU path does not
/// run, unsupported precisions, buffers on another device or too small, a misaligned
/// buffer, layouts reaching past the buffer.
#[test]
fn bad_input_is_an_error() {
    let dev = Device::open("emu:gfx1100").unwrap();
    let plan = |n: usize, p: Precision| {
        PlanBuilder::new(TransformType::ComplexForward, &[n])
            .precision(p)
            .build(&dev)
    };
    assert!(matches!(
        plan(0, Precision::F32),
        Err(Error::InvalidArgument { .. })
    ));
    for (n, p) in [
        (17, Precision::F32),
        (17 * 19, Precision::F32),
        (1 << 28, Precision::F32),
        (8, Precision::F16),
    ] {
        let e = plan(n, p).unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{n} {p}: {e}");
    }
    let r2c = PlanBuilder::new(TransformType::RealForward, &[16]).build(&dev);
    assert!(matches!(r2c, Err(Error::Unsupported { .. })));

    let p = plan(16, Precision::F32).unwrap();
    let x = DeviceBuffer::<Complex32>::zeros(&dev, 16).unwrap();
    let mut y = DeviceBuffer::<Complex32>::zeros(&dev, 16).unwrap();
    let stream = dev.default_stream();
    // Another device's buffer.
    let cpu = Device::cpu();
    let xc = DeviceBuffer::<Complex32>::zeros(&cpu, 16).unwrap();
    let e = p.execute(stream, &xc.as_slice(), &mut y.as_slice_mut(), None);
    assert!(matches!(e, Err(Error::DeviceMismatch { .. })), "{e:?}");
    let other = Device::open("emu:gfx90a").unwrap();
    let e = p.execute(
        other.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        None,
    );
    assert!(matches!(e, Err(Error::DeviceMismatch { .. })), "{e:?}");
    // Too small.
    let small = DeviceBuffer::<Complex32>::zeros(&dev, 15).unwrap();
    let e = p.execute(stream, &small.as_slice(), &mut y.as_slice_mut(), None);
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    // The wrong precision.
    let xd = DeviceBuffer::<Complex64>::zeros(&dev, 16).unwrap();
    let e = p.execute(stream, &xd.as_slice(), &mut y.as_slice_mut(), None);
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    // An f32 buffer of interleaved pairs starting at an odd scalar.
    let xs = DeviceBuffer::<f32>::zeros(&dev, 40).unwrap();
    let odd = xs.slice(1..33).unwrap();
    let e = p.execute(stream, &odd, &mut y.as_slice_mut(), None);
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    // A layout reaching past the buffer.
    let strided = PlanBuilder::new(TransformType::ComplexForward, &[16])
        .input_layout(Layout::new(&[2], 32, 0))
        .build(&dev)
        .unwrap();
    let e = strided.execute(stream, &x.as_slice(), &mut y.as_slice_mut(), None);
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
}

/// Every shape's PTX assembles for sm_80 and sm_90a without spills (skipped without
/// ptxas), and the definitions run in the kernel language interpreter on sm_90 (wave
/// 32) against the reference.
#[test]
fn ptx_assembles_and_interprets() {
    // 8192 and 16384 f32, 4096 and 8192 f64 need more than the 48 KiB PTX declares
    // statically: their shared memory is dynamic and their launch requests it.
    let shapes: Vec<(usize, Real)> = [1, 2, 7, 12, 64, 100, 169, 1000, 1024, 4096, 8192, 16384]
        .iter()
        .map(|&n| (n, Real::F32))
        .chain(
            [2, 60, 256, 2048, 4096, 8192]
                .iter()
                .map(|&n| (n, Real::F64)),
        )
        .collect();
    let ptxas = rocm_kernels::ptxas::Ptxas::find();
    if ptxas.is_none() {
        eprintln!("skipping ptxas: {}", rocm_kernels::ptxas::HOW_TO_GET);
    }
    for arch in ["sm_80", "sm_90a"] {
        let target: rocm_core::Target = arch.parse().unwrap();
        for &(n, real) in &shapes {
            let p = single::shape(n, real, true, false, &target).unwrap();
            let def = single::kernel(&p, &target).unwrap();
            let text = rocm_kernels::lang::ptx::lower(&def).unwrap();
            let dynamic = single::launch_shared_bytes(&p, &target);
            assert_eq!(
                dynamic > 0,
                text.contains(".extern .shared"),
                "{arch} {n} {real:?}: launch requests {dynamic} dynamic bytes"
            );
            assert_eq!(
                dynamic > 0,
                p.shared_bytes() > 48 * 1024,
                "{arch} {n} {real:?}"
            );
            if let Some(ptxas) = &ptxas {
                let r = ptxas.compile(&text, &target).unwrap();
                let k = r.kernel(single::KERNEL).unwrap();
                assert_eq!(
                    (k.spill_stores, k.spill_loads),
                    (0, 0),
                    "{arch} {n} {real:?}"
                );
                assert!(r.warnings.is_empty(), "{arch} {n}: {:?}", r.warnings);
            }
        }
    }
    let target: rocm_core::Target = "sm_90".parse().unwrap();
    for &(n, real) in shapes.iter().filter(|s| s.0 <= 1024) {
        interpret(&target, n, real, 3);
    }
}

/// Runs the kernel for `n` in the interpreter on `batch` contiguous transforms.
fn interpret(target: &rocm_core::Target, n: usize, real: Real, batch: usize) {
    use rocm_kernels::lang::interp::{self, Arg};
    let p = single::shape(n, real, true, false, target).unwrap();
    let def = single::kernel(&p, target).unwrap();
    let x = random_c(n * batch, n as u64);
    let x = if real == Real::F32 {
        common::round32(&x)
    } else {
        x
    };
    let flat: Vec<f64> = x.iter().flat_map(|z| [z.re, z.im]).collect();
    let f32s: Vec<f32> = flat.iter().map(|&v| v as f32).collect();
    let (input, output, table, scale) = match real {
        Real::F32 => (
            Arg::buffer(&f32s),
            Arg::buffer(&vec![0f32; 2 * n * batch]),
            Arg::buffer(&single::twiddle_table(&p, |v| v as f32)),
            Arg::f32(1.0),
        ),
        Real::F64 => (
            Arg::buffer(&flat),
            Arg::buffer(&vec![0f64; 2 * n * batch]),
            Arg::buffer(&single::twiddle_table(&p, |v| v)),
            Arg::f64(1.0),
        ),
    };
    let mut args = vec![input, output];
    if p.uses_twiddles() {
        args.push(table);
    }
    args.extend([batch as u32, 0, 1, n as u32, 0, 1, n as u32].map(Arg::u32));
    args.push(scale);
    let grid = batch.div_ceil(p.transforms as usize) as u32;
    interp::run(&def, [grid, 1, 1], [p.workgroup_size(), 1, 1], &mut args).unwrap();
    let y: Vec<f64> = match real {
        Real::F32 => args[1].values::<f32>().iter().map(|&v| v as f64).collect(),
        Real::F64 => args[1].values::<f64>(),
    };
    let precision = if real == Real::F32 {
        Precision::F32
    } else {
        Precision::F64
    };
    for b in 0..batch {
        let yb: Vec<C64> = (0..n)
            .map(|i| C64::new(y[2 * (b * n + i)], y[2 * (b * n + i) + 1]))
            .collect();
        let want = fft_dd(&x[b * n..(b + 1) * n], true);
        let err = rel_l2(&yb, &want);
        assert!(
            err <= bound(precision, n, false),
            "interp {n} {real:?}: {err:.3e}"
        );
    }
}

/// The resource report of the single-kernel sizes on gfx90a and gfx1100 (printed with
/// `--nocapture`): every kernel fits (at least one workgroup resident, no more LDS than
/// the target has).
#[test]
fn resource_reports() {
    for arch in ["gfx90a", "gfx1100"] {
        let target: rocm_core::Target = arch.parse().unwrap();
        for (n, real) in [
            (64, Real::F32),
            (256, Real::F32),
            (1000, Real::F32),
            (1024, Real::F32),
            (4096, Real::F32),
            (64, Real::F64),
            (1024, Real::F64),
            (2048, Real::F64),
        ] {
            let p = single::shape(n, real, true, false, &target).unwrap();
            let r = single::resource_report(&p, &target).unwrap();
            println!(
                "{arch} {n} {real:?} radices {:?} workgroup {}: {r}",
                p.radices,
                p.workgroup_size()
            );
            assert!(r.occupancy >= 1, "{arch} {n}: {r}");
            assert!(r.lds_bytes <= target.caps().lds_bytes_per_workgroup);
        }
    }
}

/// Every exchange layout is a bijection into its line, and the writing pass's stores
/// of one bank phase (16 work-items of 8-byte values, 8 of 16-byte ones: one 128-byte
/// bank row) hit distinct banks for the power-of-two sizes (at most two to a bank for
/// the rest), while the next pass's contiguous reads also stay conflict-free.
#[test]
fn shared_exchanges_spread_over_the_banks() {
    let target: rocm_core::Target = "sm_90".parse().unwrap();
    let sizes = [
        16, 32, 64, 128, 256, 512, 1000, 1024, 2048, 4096, 60, 210, 243,
    ];
    for real in [Real::F32, Real::F64] {
        let phase = 128 / real.complex_bytes();
        for n in sizes {
            let Some(p) = single::shape(n, real, true, false, &target) else {
                continue;
            };
            let mut ns = 1;
            for (pass, x) in p.exchanges().iter().enumerate() {
                let r = p.radices[pass] as usize;
                let slots: Vec<usize> = (0..n).map(|e| x.slot(e)).collect();
                let mut seen = vec![false; x.slots()];
                for &s in &slots {
                    assert!(s < x.slots() && !seen[s], "{n} {real:?} {x:?}: slot {s}");
                    seen[s] = true;
                }
                // Worst bank multiplicity over a phase of consecutive butterflies `j`.
                let worst = |addr: &dyn Fn(usize) -> usize, count: usize| {
                    (0..count)
                        .step_by(phase)
                        .map(|j0| {
                            let mut banks = vec![0; phase];
                            for j in j0..(j0 + phase).min(count) {
                                banks[addr(j) % phase] += 1;
                            }
                            banks.into_iter().max().unwrap_or(0)
                        })
                        .max()
                        .unwrap_or(0)
                };
                let m = n / r;
                // Odd factors leave a few runs on shared banks (10·j mod 16 repeats).
                let limit = if n.is_power_of_two() { 1 } else { 3 };
                for i in 0..r {
                    let write = |j: usize| slots[(j / ns) * ns * r + j % ns + i * ns];
                    let w = worst(&write, m);
                    assert!(
                        w <= limit,
                        "{n} {real:?} pass radix {r} ns {ns} output {i}: {w}-way"
                    );
                }
                let next = n / p.radices[pass + 1] as usize;
                for i in 0..n / next {
                    let read = |j: usize| slots[j + i * next];
                    let w = worst(&read, next);
                    assert!(
                        w <= limit,
                        "{n} {real:?} read after radix {r} ns {ns}: {w}-way"
                    );
                }
                ns *= r;
            }
        }
    }
}
