//! Every generator × distribution × element type gives the CPU path's bits on every
//! emulated AMD target (through `Generator`, the plan and the executor), in the PTX
//! lowering run by the PTX interpreter, in the language interpreter, and on `cuda:0`
//! when one is present. Exact: the kernels and the CPU path run the same sequence of
//! exactly rounded operations (no tolerance applies).
//!
//! Also: the values do not depend on how a stream is cut (one call equals consecutive
//! calls of any sizes), the output ranges hold, and bad input is an error before any
//! work.

#[allow(dead_code)]
#[path = "../../kernels/tests/ptx_sim/mod.rs"]
mod ptx_sim;

use proptest::prelude::*;
use rocm_core::{DType, Device, DeviceBuffer, Element, Error};
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::ptx;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};
use rocm_rand::dist::PoissonTable;
use rocm_rand::gpu::{self, Params, PoissonShape, Problem};
use rocm_rand::{Dist, Generator, Kind, Layout};

const EMU: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];
const KINDS: [Kind; 2] = [Kind::Philox4x32_10, Kind::Threefry2x32_20];

/// The (distribution, element type) pairs XORWOW has: all but the f16 uniforms,
/// which only the counter-based generators give.
fn sequential_combos() -> Vec<(Dist, DType)> {
    combos().into_iter().filter(|c| c.1 != DType::F16).collect()
}

/// Every (distribution, element type) the counter-based generators have.
fn combos() -> Vec<(Dist, DType)> {
    vec![
        (Dist::Bits, DType::U32),
        (Dist::Uniform, DType::F16),
        (Dist::Uniform, DType::F32),
        (Dist::Uniform, DType::F64),
        (Dist::Normal, DType::F32),
        (Dist::Normal, DType::F64),
        (Dist::LogNormal, DType::F32),
        (Dist::LogNormal, DType::F64),
        (Dist::Poisson, DType::U32),
    ]
}

const MEAN: f64 = 0.25;
const STDDEV: f64 = 1.5;

/// `n` values from `offset` on `dev`, as raw bytes.
fn generate_on<T: Element>(
    dev: &Device,
    kind: Kind,
    dist: Dist,
    seed: u64,
    offset: u64,
    n: usize,
) -> Vec<T> {
    let mut g = Generator::new(dev, kind).unwrap();
    g.set_seed(seed);
    g.set_offset(offset);
    let mut buf = DeviceBuffer::<T>::zeros(dev, n).unwrap();
    g.generate(dist, &mut buf.as_slice_mut(), MEAN, STDDEV)
        .unwrap_or_else(|e| panic!("{kind:?} {dist:?} on {}: {e}", dev.id()));
    if kind.counter_based() {
        assert_eq!(g.offset(), offset + n as u64);
    }
    buf.to_vec().unwrap()
}

fn bytes_on(
    dev: &Device,
    kind: Kind,
    dist: Dist,
    dtype: DType,
    seed: u64,
    offset: u64,
    n: usize,
) -> Vec<u8> {
    fn b<T: Element>(v: Vec<T>) -> Vec<u8> {
        bytemuck::cast_slice(&v).to_vec()
    }
    match dtype {
        DType::U32 => b(generate_on::<u32>(dev, kind, dist, seed, offset, n)),
        DType::F32 => b(generate_on::<f32>(dev, kind, dist, seed, offset, n)),
        DType::F16 => b(generate_on::<half::f16>(dev, kind, dist, seed, offset, n)),
        _ => b(generate_on::<f64>(dev, kind, dist, seed, offset, n)),
    }
}

fn cpu() -> Device {
    Device::open("cpu").unwrap()
}

fn emu(name: &str) -> Device {
    Device::open(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Sizes and offsets that cut units at every place: empty, one value, odd, one unit
/// plus 1..3, and offsets inside a unit.
const CASES: [(usize, u64); 6] = [(0, 0), (1, 3), (7, 0), (13, 5), (517, 2), (1030, 1)];

#[test]
fn emulated_targets_equal_cpu() {
    let host = cpu();
    for name in EMU {
        let dev = emu(name);
        for kind in KINDS {
            for (dist, dtype) in combos() {
                for (n, offset) in CASES {
                    let seed = 0x1234_5678_9abc_def0 ^ n as u64;
                    let want = bytes_on(&host, kind, dist, dtype, seed, offset, n);
                    let got = bytes_on(&dev, kind, dist, dtype, seed, offset, n);
                    assert!(
                        got == want,
                        "{name} {kind:?} {dist:?} {dtype}: n {n} offset {offset} differs"
                    );
                }
            }
        }
    }
}

/// The kernel's arguments in signature order for the interpreters.
fn interp_args(p: &Problem, unit0: u64, lead: u32) -> Vec<Arg> {
    let es = p.dtype.size();
    let mut a = vec![
        Arg::Buffer(vec![0u8; p.n as usize * es]),
        Arg::Scalar(p.n),
        Arg::Scalar(unit0),
        Arg::u32(lead),
        Arg::u32(p.seed as u32),
        Arg::u32((p.seed >> 32) as u32),
    ];
    if matches!(p.dist, Dist::Normal | Dist::LogNormal) {
        let r = |x: f64| match p.dtype {
            DType::F64 => Arg::f64(x),
            _ => Arg::f32(x as f32),
        };
        a.push(r(p.mean));
        a.push(r(p.stddev));
    }
    if p.dist == Dist::Poisson {
        let t = PoissonTable::new(p.mean).unwrap();
        a.push(Arg::buffer(&t.cdf));
        a.push(Arg::u32(t.cdf.len() as u32));
        a.push(Arg::u32(t.k0));
        a.push(Arg::u32(t.steps()));
    }
    a
}

/// The PTX lowering in the PTX interpreter and the definition in the language
/// interpreter both give the CPU path's bytes; ptxas accepts the kernel for sm_80,
/// sm_90 and sm_90a.
#[test]
fn ptx_and_interpreter_equal_cpu() {
    let host = cpu();
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
    }
    for kind in KINDS {
        for (dist, dtype) in combos() {
            for vector_store in [false, true] {
                for arch in ["sm_80", "sm_90", "sm_90a"] {
                    let target = arch.parse().unwrap();
                    let params = Params {
                        kind,
                        dist,
                        dtype,
                        block: 64,
                        units_per_item: 2,
                        vector_store,
                    };
                    let def = gpu::kernel(&params, &target).unwrap();
                    let text = ptx::lower(&def).unwrap();
                    if let Some(p) = &ptxas {
                        let report = p
                            .compile(&text, &target)
                            .unwrap_or_else(|e| panic!("ptxas {arch} {params:?}: {e}"));
                        let k = report.kernel(gpu::KERNEL).unwrap();
                        assert_eq!(k.spill_stores, 0, "{arch} {params:?} spills");
                    }
                    if arch != "sm_90" {
                        continue;
                    }
                    let (n, offset) = if vector_store { (517, 0) } else { (301, 3) };
                    let p = Problem {
                        kind,
                        dist,
                        dtype,
                        n,
                        offset,
                        seed: 0xfeed_f00d_0bad_cafe,
                        mean: MEAN,
                        stddev: STDDEV,
                        address: 0,
                        poisson: (dist == Dist::Poisson)
                            .then(|| PoissonShape::of(&PoissonTable::new(MEAN).unwrap())),
                    };
                    let (layout, unit0, lead) = gpu::locate(&p).unwrap();
                    let want = bytes_on(&host, kind, dist, dtype, p.seed, offset, n as usize);
                    let units = (n + lead as u64).div_ceil(layout.values as u64);
                    let grid = units.div_ceil(128) as u32;
                    let mut args = interp_args(&p, unit0, lead);
                    interp::run(&def, [grid, 1, 1], [64, 1, 1], &mut args).unwrap();
                    let Arg::Buffer(got) = &args[0] else {
                        unreachable!()
                    };
                    assert!(got == &want, "interpreter {params:?} differs");
                    let kernel = ptx_sim::Kernel::parse(&text);
                    let mut mem = ptx_sim::Memory::default();
                    let params_bits: Vec<u64> = interp_args(&p, unit0, lead)
                        .iter()
                        .map(|a| match a {
                            Arg::Scalar(v) => *v,
                            Arg::Buffer(b) => mem.alloc(b.clone()),
                        })
                        .collect();
                    kernel.run([grid, 1, 1], 64, &params_bits, &mut mem);
                    let got = mem.bytes(params_bits[0]);
                    let bad = (0..want.len()).find(|&b| got[b] != want[b]);
                    assert!(
                        bad.is_none(),
                        "PTX interpreter {params:?} differs first at byte {bad:?}: {:02x?} vs {:02x?}",
                        &got[..16], &want[..16]
                    );
                }
            }
        }
    }
}

/// On `cuda:0` (skipped without one): every combination over a size that fills many
/// workgroups, with and without a unit-aligned start, equal to the CPU bit for bit.
#[test]
fn cuda_equals_cpu() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipped: no CUDA device (cuda:0 does not open)");
        return;
    };
    let host = cpu();
    for kind in KINDS {
        for (dist, dtype) in combos() {
            for (n, offset) in [(1 << 20, 0), ((1 << 20) + 3, 7), (5, 1)] {
                let want = bytes_on(&host, kind, dist, dtype, 42, offset, n);
                let got = bytes_on(&dev, kind, dist, dtype, 42, offset, n);
                assert!(
                    got == want,
                    "cuda {kind:?} {dist:?} {dtype}: n {n} offset {offset} differs"
                );
            }
        }
    }
}

/// Ranges: uniform in (0, 1], log-normal positive, normals finite; the mean and
/// variance of 2¹⁶ normals within 5 standard errors of (MEAN, STDDEV²).
#[test]
fn values_have_their_distribution() {
    let host = cpu();
    let n = 1 << 16;
    for kind in KINDS {
        let u = generate_on::<f64>(&host, kind, Dist::Uniform, 7, 0, n);
        assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0));
        let u32s = generate_on::<f32>(&host, kind, Dist::Uniform, 7, 0, n);
        assert!(u32s.iter().all(|&x| x > 0.0 && x <= 1.0));
        let m = u.iter().sum::<f64>() / n as f64;
        // Uniform mean ½, standard error √(1/12/n).
        assert!(
            (m - 0.5).abs() < 5.0 * (1.0 / 12.0 / n as f64).sqrt(),
            "{m}"
        );
        for dtype in [DType::F32, DType::F64] {
            let z: Vec<f64> = match dtype {
                DType::F32 => generate_on::<f32>(&host, kind, Dist::Normal, 9, 0, n)
                    .into_iter()
                    .map(f64::from)
                    .collect(),
                _ => generate_on::<f64>(&host, kind, Dist::Normal, 9, 0, n),
            };
            assert!(z.iter().all(|x| x.is_finite()));
            let mean = z.iter().sum::<f64>() / n as f64;
            let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let se_mean = STDDEV / (n as f64).sqrt();
            // Variance of the sample variance of a normal: 2σ⁴/(n−1).
            let se_var = (2.0 * STDDEV.powi(4) / (n - 1) as f64).sqrt();
            assert!(
                (mean - MEAN).abs() < 5.0 * se_mean,
                "{kind:?} {dtype} mean {mean}"
            );
            assert!(
                (var - STDDEV * STDDEV).abs() < 5.0 * se_var,
                "{kind:?} {dtype} var {var}"
            );
        }
        let l = generate_on::<f32>(&host, kind, Dist::LogNormal, 11, 0, n);
        assert!(l.iter().all(|&x| x > 0.0 && x.is_finite()));
    }
}

#[test]
fn bad_input_is_an_error() {
    let host = cpu();
    let mut g = Generator::new(&host, Kind::Philox4x32_10).unwrap();
    let mut u = DeviceBuffer::<u32>::zeros(&host, 8).unwrap();
    let mut f = DeviceBuffer::<f32>::zeros(&host, 8).unwrap();
    let mut i = DeviceBuffer::<i32>::zeros(&host, 8).unwrap();
    let invalid = |e: Error, what: &str| match e {
        Error::InvalidArgument { what: w, why } => {
            assert_eq!(w, what, "{why}");
        }
        other => panic!("{other:?}"),
    };
    // A dtype the distribution does not have.
    invalid(
        g.generate_normal(&mut u.as_slice_mut(), 0.0, 1.0)
            .unwrap_err(),
        "dtype",
    );
    invalid(
        g.generate(Dist::Bits, &mut f.as_slice_mut(), 0.0, 1.0)
            .unwrap_err(),
        "dtype",
    );
    invalid(
        g.generate_uniform(&mut i.as_slice_mut()).unwrap_err(),
        "dtype",
    );
    // Offset overflow.
    g.set_offset(u64::MAX - 3);
    invalid(g.generate_u32(&mut u.as_slice_mut()).unwrap_err(), "offset");
    assert_eq!(g.offset(), u64::MAX - 3, "a failed call does not advance");
    // Non-finite parameters.
    g.set_offset(0);
    invalid(
        g.generate_normal(&mut f.as_slice_mut(), f64::NAN, 1.0)
            .unwrap_err(),
        "mean/stddev",
    );
    assert!(g.set_ordering(rocm_rand::Ordering::PseudoSeeded).is_err());
    // Poisson's λ.
    for lambda in [0.0, -1.0, f64::NAN, 2f64.powi(24) * 2.0] {
        invalid(
            g.generate_poisson(&mut u.as_slice_mut(), lambda)
                .unwrap_err(),
            "lambda",
        );
    }
    // Layout errors name the types the distribution has.
    let e = Layout::new(Kind::Threefry2x32_20, Dist::Uniform, DType::I64)
        .unwrap_err()
        .to_string();
    assert!(e.contains("f32 or f64"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// One call equals consecutive calls of any sizes (the stream does not depend on
    /// the cut), on the CPU and on an emulated target, for random seeds and offsets.
    #[test]
    fn any_cut_gives_the_same_stream(
        seed in any::<u64>(),
        offset in 0u64..1 << 40,
        sizes in proptest::collection::vec(0usize..40, 1..4),
        which in 0usize..8,
        k in 0usize..2,
    ) {
        let (dist, dtype) = combos()[which];
        let kind = KINDS[k];
        let total: usize = sizes.iter().sum();
        let host = cpu();
        let whole = bytes_on(&host, kind, dist, dtype, seed, offset, total);
        let dev = emu("emu:gfx90a");
        let mut pieces = Vec::new();
        let mut at = offset;
        for &s in &sizes {
            pieces.extend(bytes_on(&dev, kind, dist, dtype, seed, at, s));
            at += s as u64;
        }
        prop_assert!(pieces == whole);
    }
}

/// Poisson counts: mean and variance within 5 standard errors of λ over 2¹⁶ values, for
/// small and large λ (table from the mode outward); large λ on an emulated target too.
#[test]
fn poisson_has_its_moments() {
    let host = cpu();
    let n = 1 << 16;
    for lambda in [0.25, 7.5, 1000.0, 1.0e6] {
        let mut g = Generator::new(&host, Kind::Philox4x32_10).unwrap();
        g.set_seed(99);
        let mut b = DeviceBuffer::<u32>::zeros(&host, n).unwrap();
        g.generate_poisson(&mut b.as_slice_mut(), lambda).unwrap();
        let v: Vec<f64> = b.to_vec().unwrap().into_iter().map(f64::from).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Var(mean) = λ/n; Var(sample variance) ≈ (2λ² + λ)/n for a Poisson.
        let se_mean = (lambda / n as f64).sqrt();
        let se_var = ((2.0 * lambda * lambda + lambda) / n as f64).sqrt();
        assert!(
            (mean - lambda).abs() < 5.0 * se_mean,
            "λ {lambda}: mean {mean}"
        );
        assert!((var - lambda).abs() < 5.0 * se_var, "λ {lambda}: var {var}");
    }
    let dev = emu("emu:gfx942");
    for kind in KINDS {
        for lambda in [1000.0, 3.0e5] {
            let mut want = DeviceBuffer::<u32>::zeros(&host, 301).unwrap();
            let mut got = DeviceBuffer::<u32>::zeros(&dev, 301).unwrap();
            for (d, b) in [(&host, &mut want), (&dev, &mut got)] {
                let mut g = Generator::new(d, kind).unwrap();
                g.set_seed(5);
                g.set_offset(3);
                g.generate_poisson(&mut b.as_slice_mut(), lambda).unwrap();
            }
            assert_eq!(
                got.to_vec().unwrap(),
                want.to_vec().unwrap(),
                "{kind:?} λ {lambda}"
            );
        }
    }
}

/// An output that starts off a unit's alignment (a slice from element 1) takes the
/// value-by-value stores and still gives the CPU's values; the plans of every
/// combination check against their programs' signatures on PTX and AMDGPU targets.
#[test]
fn unaligned_outputs_and_plans_check() {
    let host = cpu();
    let dev = emu("emu:gfx1100");
    for kind in KINDS {
        let mut want = DeviceBuffer::<f32>::zeros(&host, 66).unwrap();
        let mut got = DeviceBuffer::<f32>::zeros(&dev, 66).unwrap();
        for (d, b) in [(&host, &mut want), (&dev, &mut got)] {
            let mut g = Generator::new(d, kind).unwrap();
            g.set_seed(17);
            g.generate_normal(&mut b.slice_mut(1..).unwrap(), 1.0, 2.0)
                .unwrap();
        }
        assert_eq!(got.to_vec().unwrap(), want.to_vec().unwrap(), "{kind:?}");
        assert_eq!(got.to_vec().unwrap()[0], 0.0, "element 0 is not written");
    }
    for target in ["sm_80", "sm_90a", "gfx908", "gfx942", "gfx1100"] {
        let target = target.parse().unwrap();
        for kind in KINDS {
            for (dist, dtype) in combos() {
                for (offset, address) in [(0, 256), (3, 260)] {
                    let p = Problem {
                        kind,
                        dist,
                        dtype,
                        n: 1000,
                        offset,
                        seed: 1,
                        mean: 2.0,
                        stddev: 1.0,
                        address,
                        poisson: (dist == Dist::Poisson)
                            .then(|| PoissonShape::of(&PoissonTable::new(2.0).unwrap())),
                    };
                    let plan = gpu::plan(&p, &target).unwrap();
                    plan.check(&target)
                        .unwrap_or_else(|e| panic!("{target} {p:?}: {e}"));
                    let text = plan.to_string();
                    let values = Layout::new(kind, dist, dtype).unwrap().values;
                    let vector = offset == 0 && values > 1;
                    assert!(
                        text.contains(&format!("\"vector_store\":{vector}")),
                        "{text}"
                    );
                }
            }
        }
    }
}

/// XORWOW's kernel (cuRAND's host ordering of 4096 threads) equals the CPU path bit for
/// bit on gfx90a and gfx1100, for fills that wrap past the thread count (a second
/// chunk per work-item), start inside a chunk (odd offsets of the normals are whole
/// chunks; a cut inside one is the CPU's too), and are empty or tiny.
#[test]
fn xorwow_kernel_equals_cpu() {
    let host = cpu();
    let threads = rocm_rand::sequential::Order::of(
        Kind::Xorwow,
        rocm_rand::Ordering::PseudoDefault,
        Dist::Bits,
    )
    .unwrap()
    .threads as usize;
    for name in ["emu:gfx90a", "emu:gfx1100"] {
        let dev = emu(name);
        for (dist, dtype) in sequential_combos() {
            for (n, offset) in [(0, 0), (3, 5), (2 * threads + 37, threads as u64 - 7)] {
                let want = bytes_on(&host, Kind::Xorwow, dist, dtype, 99, offset, n);
                let got = bytes_on(&dev, Kind::Xorwow, dist, dtype, 99, offset, n);
                assert!(
                    got == want,
                    "{name} xorwow {dist:?} {dtype}: n {n} offset {offset} differs"
                );
            }
        }
    }
    // MRG32k3a has no kernel yet: a clear error, not a wrong fill.
    let dev = emu("emu:gfx90a");
    let mut g = Generator::new(&dev, Kind::Mrg32k3a).unwrap();
    let mut buf = DeviceBuffer::<u32>::zeros(&dev, 4).unwrap();
    let e = g.generate_u32(&mut buf.as_slice_mut()).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
}

/// On `cuda:0` (skipped without one): XORWOW over many workgroups and passes, equal to
/// the CPU bit for bit.
#[test]
fn xorwow_cuda_equals_cpu() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipped: no CUDA device (cuda:0 does not open)");
        return;
    };
    let host = cpu();
    for (dist, dtype) in sequential_combos() {
        for (n, offset) in [(1 << 20, 0), ((1 << 20) + 3, 7), (5, 1)] {
            let want = bytes_on(&host, Kind::Xorwow, dist, dtype, 42, offset, n);
            let got = bytes_on(&dev, Kind::Xorwow, dist, dtype, 42, offset, n);
            assert!(
                got == want,
                "cuda xorwow {dist:?} {dtype}: n {n} offset {offset} differs"
            );
        }
    }
}

/// XORWOW's kernel in PTX: ptxas accepts it for sm_80 and sm_90 without spills, and the
/// PTX interpreter's sm_90 run of a fill that starts inside a chunk near the thread
/// count equals the CPU path.
#[test]
fn xorwow_ptx_equals_cpu() {
    use rocm_rand::gpu_sequential as gs;
    let host = cpu();
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
    }
    for (dist, dtype) in sequential_combos() {
        let params = gs::Params {
            dist,
            dtype,
            block: 64,
        };
        for arch in ["sm_80", "sm_90"] {
            let target = arch.parse().unwrap();
            let def = gs::kernel(&params, &target).unwrap();
            let text = ptx::lower(&def).unwrap();
            if let Some(p) = &ptxas {
                let report = p
                    .compile(&text, &target)
                    .unwrap_or_else(|e| panic!("ptxas {arch} {params:?}: {e}"));
                let k = report.kernel(gs::KERNEL).unwrap();
                assert_eq!(k.spill_stores, 0, "{arch} {params:?} spills");
            }
            if arch != "sm_90" {
                continue;
            }
            let order = rocm_rand::sequential::Order::of(
                Kind::Xorwow,
                rocm_rand::Ordering::PseudoDefault,
                dist,
            )
            .unwrap();
            let (n, offset, seed) = (45u64, order.threads - 3, 0xfeed_f00d_0bad_cafe);
            let table = PoissonTable::new(MEAN).unwrap();
            let p = gs::Problem {
                dist,
                dtype,
                order,
                n,
                offset,
                seed,
                mean: MEAN,
                stddev: STDDEV,
                poisson: (dist == Dist::Poisson).then(|| PoissonShape::of(&table)),
            };
            let start = gs::start(&p, &gs::thread_states(seed, order.threads)).unwrap();
            let items = (start.states.len() / gs::STATE_WORDS) as u64;
            let want = bytes_on(&host, Kind::Xorwow, dist, dtype, seed, offset, n as usize);
            let kernel = ptx_sim::Kernel::parse(&text);
            let mut mem = ptx_sim::Memory::default();
            let out = mem.alloc(vec![0u8; n as usize * dtype.size()]);
            let states = mem.alloc(bytemuck::cast_slice(&start.states).to_vec());
            let mut args = vec![out, states, n, start.lead as u64, items, order.threads];
            args.push(start.iters as u64);
            if matches!(dist, Dist::Normal | Dist::LogNormal) {
                let r = |x: f64| match dtype {
                    DType::F64 => x.to_bits(),
                    _ => (x as f32).to_bits() as u64,
                };
                args.extend([r(MEAN), r(STDDEV)]);
            }
            if dist == Dist::Poisson {
                let cdf = mem.alloc(bytemuck::cast_slice(&table.cdf).to_vec());
                args.extend([cdf, table.cdf.len() as u64, table.k0 as u64]);
                args.push(table.steps() as u64);
            }
            kernel.run([items.div_ceil(64) as u32, 1, 1], 64, &args, &mut mem);
            assert!(
                mem.bytes(out)[..want.len()] == want[..],
                "PTX interpreter xorwow {dist:?} {dtype} differs"
            );
        }
    }
}

/// A discrete distribution (a CDF table searched by a uniform f64): each count's
/// frequency within 5 standard errors √(p(1 − p)/n) of its probability, zero weights
/// never drawn, on the CPU for every generator; and the same counts on an emulated
/// target, on cuda:0 when present, and from XORWOW's kernel.
#[test]
fn discrete_has_its_frequencies_on_every_device() {
    let weights = [0.0, 3.0, 1.0, 0.0, 0.5, 2.5, 0.0];
    let total: f64 = weights.iter().sum();
    let table = PoissonTable::discrete(&weights).unwrap();
    let host = cpu();
    let n = 1 << 16;
    let draw = |dev: &Device, kind: Kind, n: usize, offset: u64| {
        let mut g = Generator::new(dev, kind).unwrap();
        g.set_seed(21);
        g.set_offset(offset);
        let mut b = DeviceBuffer::<u32>::zeros(dev, n).unwrap();
        g.generate_discrete(&mut b.as_slice_mut(), &table).unwrap();
        b.to_vec().unwrap()
    };
    for kind in [
        Kind::Philox4x32_10,
        Kind::Threefry2x32_20,
        Kind::Xorwow,
        Kind::Mrg32k3a,
    ] {
        let v = draw(&host, kind, n, 0);
        for (k, &w) in weights.iter().enumerate() {
            let count = v.iter().filter(|&&x| x == k as u32).count();
            let p = w / total;
            let freq = count as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            if w == 0.0 {
                assert_eq!(count, 0, "{kind:?}: weight-0 count {k} drawn");
            } else {
                assert!(
                    (freq - p).abs() < 5.0 * se,
                    "{kind:?} count {k}: {freq} vs {p}"
                );
            }
        }
        assert!(v.iter().all(|&x| (x as usize) < weights.len()));
    }
    let mut devices = vec![emu("emu:gfx90a")];
    match Device::open("cuda:0") {
        Ok(d) => devices.push(d),
        Err(_) => eprintln!("cuda:0 skipped: no CUDA device"),
    }
    for dev in &devices {
        for kind in [Kind::Philox4x32_10, Kind::Threefry2x32_20, Kind::Xorwow] {
            assert_eq!(
                draw(dev, kind, 1001, 3),
                draw(&host, kind, 1001, 3),
                "{kind:?} on {}",
                dev.id()
            );
        }
    }
    // Bad weights are errors.
    for bad in [
        &[][..],
        &[1.0, -1.0],
        &[0.0, 0.0],
        &[1.0, f64::NAN],
        &[f64::INFINITY],
    ] {
        let e = PoissonTable::discrete(bad).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { ref what, .. } if what == "weights"),
            "{e}"
        );
    }
}

/// The quasi-random generators and the f16 uniforms: clear errors for what they do not
/// have (wrong element types, lengths that are not a multiple of the dimensions,
/// offsets past the sequence, bad dimension counts, a GPU device for the quasi ones).
#[test]
fn quasi_and_f16_bad_input_is_an_error() {
    let host = cpu();
    let mut s = Generator::new(&host, Kind::Sobol32).unwrap();
    let mut u = DeviceBuffer::<u32>::zeros(&host, 6).unwrap();
    let mut l = DeviceBuffer::<i64>::zeros(&host, 6).unwrap();
    let mut h = DeviceBuffer::<half::f16>::zeros(&host, 6).unwrap();
    let what = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        Error::Unsupported { .. } => "unsupported".into(),
        other => panic!("{other:?}"),
    };
    assert_eq!(what(s.set_dimensions(0).unwrap_err()), "dimensions");
    assert_eq!(what(s.set_dimensions(20_001).unwrap_err()), "dimensions");
    s.set_dimensions(4).unwrap();
    assert_eq!(
        what(s.generate_u32(&mut u.as_slice_mut()).unwrap_err()),
        "length"
    );
    assert_eq!(
        what(s.generate_u64(&mut l.as_slice_mut()).unwrap_err()),
        "dtype"
    );
    assert_eq!(
        what(s.generate_uniform(&mut h.as_slice_mut()).unwrap_err()),
        "dtype"
    );
    assert_eq!(
        what(s.generate_poisson(&mut u.as_slice_mut(), 4.0).unwrap_err()),
        "unsupported"
    );
    s.set_dimensions(2).unwrap();
    s.set_offset((1 << 32) - 2);
    assert_eq!(
        what(s.generate_u32(&mut u.as_slice_mut()).unwrap_err()),
        "offset"
    );
    assert_eq!(s.offset(), (1 << 32) - 2, "a failed call does not advance");
    s.set_offset((1 << 32) - 3);
    s.generate_u32(&mut u.as_slice_mut()).unwrap();
    assert_eq!(s.offset(), 1 << 32);
    assert!(s.set_ordering(rocm_rand::Ordering::PseudoDefault).is_err());
    let mut p = Generator::new(&host, Kind::Philox4x32_10).unwrap();
    assert_eq!(what(p.set_dimensions(2).unwrap_err()), "unsupported");
    assert!(p.set_ordering(rocm_rand::Ordering::QuasiDefault).is_err());
    let mut x = Generator::new(&host, Kind::Xorwow).unwrap();
    assert_eq!(
        what(x.generate_uniform(&mut h.as_slice_mut()).unwrap_err()),
        "dtype"
    );
    let mut s64 = Generator::new(&host, Kind::Sobol64).unwrap();
    assert_eq!(
        what(s64.generate_u32(&mut u.as_slice_mut()).unwrap_err()),
        "dtype"
    );
    // On a GPU: the normals have no kernel; the checks are the CPU's.
    let dev = emu("emu:gfx90a");
    let mut e = Generator::new(&dev, Kind::Sobol32).unwrap();
    let mut d = DeviceBuffer::<f32>::zeros(&dev, 4).unwrap();
    let r = e.generate_normal(&mut d.as_slice_mut(), 0.0, 1.0);
    assert_eq!(what(r.unwrap_err()), "unsupported");
    e.set_dimensions(3).unwrap();
    assert_eq!(
        what(e.generate_uniform(&mut d.as_slice_mut()).unwrap_err()),
        "length"
    );
}

/// The quasi generators' (dist, dtype) pairs the Sobol kernel has.
fn sobol_combos(kind: Kind) -> Vec<(Dist, DType)> {
    let bits = if kind.sobol_bits() == 64 {
        DType::I64
    } else {
        DType::U32
    };
    vec![
        (Dist::Bits, bits),
        (Dist::Uniform, DType::F32),
        (Dist::Uniform, DType::F64),
    ]
}

const SOBOL_KINDS: [Kind; 4] = [
    Kind::Sobol32,
    Kind::ScrambledSobol32,
    Kind::Sobol64,
    Kind::ScrambledSobol64,
];

/// `n` values of `dims` dimensions from point `offset` on `dev`, as bytes; two calls
/// (the second continuing the first) so the offset's advance is in the loop.
fn sobol_bytes_on(
    dev: &Device,
    kind: Kind,
    dims: u32,
    dist: Dist,
    dtype: DType,
    offset: u64,
    n: usize,
) -> Vec<u8> {
    fn run<T: Element>(
        dev: &Device,
        kind: Kind,
        dims: u32,
        dist: Dist,
        offset: u64,
        n: usize,
    ) -> Vec<u8> {
        let mut g = Generator::new(dev, kind).unwrap();
        g.set_dimensions(dims).unwrap();
        g.set_offset(offset);
        let mut out = Vec::new();
        for _ in 0..2 {
            let mut buf = DeviceBuffer::<T>::zeros(dev, n).unwrap();
            g.generate(dist, &mut buf.as_slice_mut(), 0.0, 1.0)
                .unwrap_or_else(|e| panic!("{kind:?} {dist:?} on {}: {e}", dev.id()));
            out.extend_from_slice(bytemuck::cast_slice(&buf.to_vec().unwrap()));
        }
        assert_eq!(g.offset(), offset + 2 * (n as u64 / dims as u64));
        out
    }
    match dtype {
        DType::U32 => run::<u32>(dev, kind, dims, dist, offset, n),
        DType::I64 => run::<i64>(dev, kind, dims, dist, offset, n),
        DType::F32 => run::<f32>(dev, kind, dims, dist, offset, n),
        _ => run::<f64>(dev, kind, dims, dist, offset, n),
    }
}

/// Sizes (a multiple of the dimensions) and offsets: empty, one point, a workgroup and
/// a bit, offsets near 2^k (the Gray code's high bits), many dimensions (each its own
/// workgroups; dimensions up to 20000 are checked on the CPU by `sobol`'s tests).
const SOBOL_CASES: [(u32, usize, u64); 6] = [
    (1, 0, 0),
    (1, 1, 0),
    (3, 3 * 261, 5),
    (2, 2 * 300, (1 << 20) - 7),
    (1, 513, (1 << 31) + 11),
    (64, 64 * 3, 9),
];

/// The Sobol kernel gives the CPU's bytes on every emulated target and on cuda:0 when
/// present.
#[test]
fn sobol_kernels_equal_cpu() {
    let host = cpu();
    let mut devices: Vec<Device> = EMU.iter().map(|e| emu(e)).collect();
    match Device::open("cuda:0") {
        Ok(d) => devices.push(d),
        Err(_) => eprintln!("cuda:0 skipped: no CUDA device"),
    }
    for dev in &devices {
        for kind in SOBOL_KINDS {
            for (dist, dtype) in sobol_combos(kind) {
                for (dims, n, offset) in SOBOL_CASES {
                    // The many-dimension case once per device.
                    if dims > 3 && (kind != Kind::ScrambledSobol64 || dist != Dist::Uniform) {
                        continue;
                    }
                    let want = sobol_bytes_on(&host, kind, dims, dist, dtype, offset, n);
                    let got = sobol_bytes_on(dev, kind, dims, dist, dtype, offset, n);
                    assert!(
                        got == want,
                        "{} {kind:?} {dist:?} {dtype} dims {dims} n {n} offset {offset} differs",
                        dev.id()
                    );
                }
            }
        }
    }
}

/// The Sobol kernel's PTX in the PTX interpreter gives the CPU's bytes; ptxas accepts
/// it without spills for sm_80 and sm_90.
#[test]
fn sobol_ptx_equals_cpu() {
    use rocm_rand::gpu_quasi as gq;
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
    }
    for kind in SOBOL_KINDS {
        for (dist, dtype) in sobol_combos(kind) {
            let params = gq::Params {
                bits: kind.sobol_bits(),
                dist,
                dtype,
                block: 64,
            };
            for arch in ["sm_80", "sm_90"] {
                let target = arch.parse().unwrap();
                let def = gq::kernel(&params, &target).unwrap();
                let text = ptx::lower(&def).unwrap();
                if let Some(p) = &ptxas {
                    let report = p
                        .compile(&text, &target)
                        .unwrap_or_else(|e| panic!("ptxas {arch} {params:?}: {e}"));
                    let k = report.kernel(gq::KERNEL).unwrap();
                    assert_eq!(k.spill_stores, 0, "{arch} {params:?} spills");
                }
                if arch != "sm_90" {
                    continue;
                }
                let (dims, per, offset) = (3u32, 70u64, (1u64 << 31) - 20);
                let n = dims as usize * per as usize;
                let mut want = vec![0u8; n * dtype.size()];
                let q = |w: &mut [u8]| match dtype {
                    DType::U32 => quasi_fill::<u32>(kind, dims, dist, offset, w),
                    DType::I64 => quasi_fill::<i64>(kind, dims, dist, offset, w),
                    DType::F32 => quasi_fill::<f32>(kind, dims, dist, offset, w),
                    _ => quasi_fill::<f64>(kind, dims, dist, offset, w),
                };
                q(&mut want);
                let words = gq::direction_words(kind, dims).unwrap();
                let kernel = ptx_sim::Kernel::parse(&text);
                let mut mem = ptx_sim::Memory::default();
                let out = mem.alloc(vec![0u8; want.len()]);
                let dirs = mem.alloc(bytemuck::cast_slice(&words).to_vec());
                let groups = per.div_ceil(64);
                let args = [out, dirs, per, offset, groups];
                kernel.run([(groups * dims as u64) as u32, 1, 1], 64, &args, &mut mem);
                assert!(
                    mem.bytes(out)[..want.len()] == want[..],
                    "PTX interpreter {kind:?} {dist:?} {dtype} differs"
                );
            }
        }
    }
}

fn quasi_fill<T: Element>(kind: Kind, dims: u32, dist: Dist, offset: u64, out: &mut [u8]) {
    rocm_rand::quasi::fill::<T>(
        kind,
        dims,
        dist,
        offset,
        0.0,
        1.0,
        bytemuck::cast_slice_mut(out),
    )
    .unwrap();
}

/// f16 uniforms: in (0, 1] (the ends are 2⁻¹⁶ and 1 exactly), mean ½ within 5
/// standard errors (σ² = 1/12), every word's high half as `(h + 1)·2⁻¹⁶` rounded.
#[test]
fn f16_uniforms_have_their_range_and_mean() {
    use rocm_rand::ops::Host;
    assert_eq!(
        rocm_rand::dist::uniform_f16(&mut Host, 0).to_f64(),
        2f64.powi(-16)
    );
    assert_eq!(
        rocm_rand::dist::uniform_f16(&mut Host, u32::MAX).to_f64(),
        1.0
    );
    // 32753·2⁻¹⁶ lies in [¼, ½), where f16 values are 2⁻¹² apart: it is rounded.
    let r = rocm_rand::dist::uniform_f16(&mut Host, 0x7ff0_0000).to_f64();
    assert_eq!(r, half::f16::from_f64(32753.0 / 65536.0).to_f64());
    let host = cpu();
    let n = 1 << 16;
    for kind in KINDS {
        let v = generate_on::<half::f16>(&host, kind, Dist::Uniform, 3, 0, n);
        assert!(v.iter().all(|x| x.to_f64() > 0.0 && x.to_f64() <= 1.0));
        let mean = v.iter().map(|x| x.to_f64()).sum::<f64>() / n as f64;
        let se = (1.0 / 12.0 / n as f64).sqrt();
        assert!((mean - 0.5).abs() < 5.0 * se, "{kind:?}: mean {mean}");
    }
}
