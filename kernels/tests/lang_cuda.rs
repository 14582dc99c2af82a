//! The language's kernels lowered to PTX and run on `cuda:0` (skipped with a printed
//! reason where no CUDA device is present), against the language's CPU interpreter on
//! the same random inputs: every example and the Level 1 copy/axpby port.
//!
//! Every kernel but the softmax is a fixed sequence of correctly rounded operations
//! (and butterfly reductions in the IR's order), so its buffers must come back with the
//! same bytes. The softmax uses `ex2.approx.f32`: each output is checked against an f64
//! reference within (cols + 16)·2⁻²⁴ relative, from inputs in [−1, 1): the argument
//! t = (x − m)·log₂e (|t| ≤ 2.9) carries two roundings, a relative error of at most
//! ln2·2u·2.9 ≈ 4u in 2^t, ex2's 2 ulp add 4u, the sum of cols terms (cols − 1)u, the
//! division u (u = 2⁻²⁴); the interpreter's output is checked against the same bound.
//!
//! `cargo test -p rocm-kernels --release --test lang_cuda`.

use rocm_core::{Device, LaunchConfig, ModuleImage, Target};
use rocm_kernels::lang::interp::{run, Arg};
use rocm_kernels::lang::{examples, ptx, KernelDef, Scalar};
use rocm_kernels::level1::{L1Op, Level1Params};
use rocm_kernels::signature::{self, Packed, ParamType, ScalarType};

fn cuda() -> Option<Device> {
    match Device::enumerate()
        .into_iter()
        .find(|d| d.id.starts_with("cuda:"))
    {
        Some(info) => Some(Device::open(&info.id).unwrap()),
        None => {
            println!("skipped: no CUDA device present (no driver or no GPU)");
            None
        }
    }
}

/// The device's target (its compute capability) for building kernels.
fn target(dev: &Device) -> Target {
    dev.info().target.clone()
}

/// Runs `k` on `dev` with `args` (buffers uploaded, scalars packed by the signature)
/// and returns the buffers afterwards, in argument order (scalars: empty).
fn on_device(dev: &Device, k: &KernelDef, grid: u32, block: u32, args: &[Arg]) -> Vec<Vec<u8>> {
    let text = ptx::lower(k).unwrap();
    let module = dev.load_module(&ModuleImage::Ptx(text)).unwrap();
    let kernel = module.kernel(&k.name).unwrap();
    let buffers: Vec<_> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(b) => Some(dev.upload(b).unwrap()),
            Arg::Scalar(_) => None,
        })
        .collect();
    let packed: Vec<Packed> = args
        .iter()
        .zip(&buffers)
        .zip(&k.signature().params)
        .map(|((a, buf), p)| match (a, buf, p.ty) {
            (_, Some(b), _) => Packed::Pointer(b.address()),
            (Arg::Scalar(v), None, ParamType::Scalar(s)) => Packed::Value(match s {
                ScalarType::U32 => signature::Value::U32(*v as u32),
                ScalarType::I32 => signature::Value::I32(*v as u32 as i32),
                ScalarType::U64 => signature::Value::U64(*v),
                ScalarType::I64 => signature::Value::I64(*v as i64),
                ScalarType::F32 => signature::Value::F32(f32::from_bits(*v as u32)),
                ScalarType::F64 => signature::Value::F64(f64::from_bits(*v)),
            }),
            other => panic!("argument {other:?}"),
        })
        .collect();
    let kargs = k.signature().pack(&packed, dev).unwrap();
    let cfg = LaunchConfig::linear(grid, block);
    // SAFETY: the arguments are packed from the kernel's own signature; every buffer is
    // one the interpreter ran the same launch on without an out-of-bounds access, and
    // they outlive the synchronisation below.
    unsafe { kernel.launch(dev.default_stream(), &cfg, &kargs).unwrap() };
    dev.synchronize().unwrap();
    buffers
        .iter()
        .map(|b| b.as_ref().map_or(Vec::new(), |b| b.to_vec().unwrap()))
        .collect()
}

/// Interpreter and device on the same arguments; every buffer byte-equal.
fn same_on_device(dev: &Device, k: &KernelDef, grid: u32, block: u32, args: Vec<Arg>) {
    let mut reference = args.clone();
    run(k, [grid, 1, 1], [block, 1, 1], &mut reference).unwrap_or_else(|e| panic!("{e}"));
    let got = on_device(dev, k, grid, block, &args);
    for (i, (want, got)) in reference.iter().zip(&got).enumerate() {
        if let Arg::Buffer(want) = want {
            let bad = (0..want.len()).find(|&b| got[b] != want[b]);
            assert!(
                bad.is_none(),
                "{}: argument `{}` differs first at byte {bad:?}",
                k.name,
                k.signature().params[i].name
            );
        }
    }
}

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
}

fn buffer<T: rocm_kernels::lang::interp::Element>(
    rng: &mut Rng,
    n: usize,
    f: impl Fn(f64) -> T,
) -> Arg {
    Arg::buffer(&(0..n).map(|_| f(rng.next())).collect::<Vec<T>>())
}

#[test]
fn cuda_examples_match_the_interpreter() {
    let Some(dev) = cuda() else { return };
    let t = target(&dev);
    let mut rng = Rng(21);
    let n = 100_003usize;
    let n32 = Arg::u32(n as u32);

    let k = examples::vector_add(&t).unwrap();
    let args = vec![
        buffer(&mut rng, n, |v| v as f32),
        buffer(&mut rng, n, |v| v as f32),
        Arg::buffer(&vec![0f32; n]),
        n32.clone(),
    ];
    same_on_device(&dev, &k, n.div_ceil(256) as u32, 256, args);

    let k = examples::axpy(&t).unwrap();
    let args = vec![
        n32.clone(),
        Arg::f64(rng.next()),
        buffer(&mut rng, n, |v| v),
        buffer(&mut rng, n, |v| v),
    ];
    same_on_device(&dev, &k, 40, 256, args);

    let k = examples::convert_f16(&t).unwrap();
    let args = vec![
        n32.clone(),
        buffer(&mut rng, n, |v| (v * 7e4) as f32),
        Arg::buffer(&vec![0u16; n]),
    ];
    same_on_device(&dev, &k, n.div_ceil(256) as u32, 256, args);

    for elem in [Scalar::F32, Scalar::F64] {
        let k = examples::workgroup_sum(&t, elem).unwrap();
        let x = match elem {
            Scalar::F32 => buffer(&mut rng, n, |v| v as f32),
            _ => buffer(&mut rng, n, |v| v),
        };
        let grid = 24;
        let partials = Arg::Buffer(vec![0; grid * elem.bytes() as usize]);
        same_on_device(&dev, &k, grid as u32, 256, vec![n32.clone(), x, partials]);
    }

    let k = examples::divergent(&t).unwrap();
    let args = vec![
        n32.clone(),
        buffer(&mut rng, n, |v| v as f32),
        Arg::buffer(&vec![0f32; n]),
        Arg::buffer(&vec![0u32; n]),
    ];
    same_on_device(&dev, &k, n.div_ceil(128) as u32, 128, args);

    let k = examples::varying_loop(&t).unwrap();
    let m = 5000usize;
    let args = vec![
        Arg::u32(m as u32),
        buffer(&mut rng, m, |v| ((v + 1.0) * 30.0) as u32),
        buffer(&mut rng, m, |v| v as f32),
        Arg::buffer(&vec![0f32; m]),
    ];
    same_on_device(&dev, &k, m.div_ceil(128) as u32, 128, args);

    let k = examples::wave_ops(&t).unwrap();
    let args = vec![
        buffer(&mut rng, 1024, |v| ((v + 1.0) * 2147483648.0) as u32),
        Arg::buffer(&[0u32; 4 * 1024]),
        Arg::buffer(&[0u64; 3 * 1024]),
    ];
    same_on_device(&dev, &k, 4, 256, args);
}

#[test]
fn cuda_softmax_within_its_bound() {
    let Some(dev) = cuda() else { return };
    let t = target(&dev);
    let k = examples::softmax_row(&t).unwrap();
    let mut rng = Rng(22);
    for (rows, cols, block) in [(64usize, 1000usize, 256u32), (7, 33, 64), (3, 5000, 128)] {
        let x: Vec<f32> = (0..rows * cols).map(|_| rng.next() as f32).collect();
        let args = vec![
            Arg::u32(cols as u32),
            Arg::buffer(&x),
            Arg::buffer(&vec![0f32; rows * cols]),
        ];
        let mut reference = args.clone();
        run(&k, [rows as u32, 1, 1], [block, 1, 1], &mut reference).unwrap();
        let interp: Vec<f32> = reference[2].values();
        let got = on_device(&dev, &k, rows as u32, block, &args);
        let got: Vec<f32> = Arg::Buffer(got[2].clone()).values();
        let bound = (cols as f64 + 16.0) * 2f64.powi(-24);
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
            let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
            let s: f64 = e.iter().sum();
            for j in 0..cols {
                let want = e[j] / s;
                for (what, v) in [
                    ("device", got[r * cols + j]),
                    ("interpreter", interp[r * cols + j]),
                ] {
                    assert!(
                        (v as f64 - want).abs() <= bound * want,
                        "{what} {rows}x{cols} ({r}, {j}): {v} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn cuda_level1_port_matches_the_interpreter() {
    let Some(dev) = cuda() else { return };
    let t = target(&dev);
    let mut rng = Rng(23);
    for (dtype, elem) in [
        (rocm_core::DType::F32, Scalar::F32),
        (rocm_core::DType::F64, Scalar::F64),
    ] {
        for op in [
            L1Op::Copy,
            L1Op::Axpby { read_y: true },
            L1Op::Axpby { read_y: false },
        ] {
            for (contiguous, inc) in [(true, 1i64), (false, 3)] {
                for grid_stride in [false, true] {
                    let p = Level1Params {
                        grid_stride,
                        grid: 16,
                        ..Level1Params::fallback(op, dtype, contiguous)
                    };
                    let k = rocm_kernels::lang::level1::kernel(&p, &t).unwrap();
                    let n = 100_001usize;
                    let len = (n - 1) * inc as usize + 1;
                    let vector = |rng: &mut Rng| match elem {
                        Scalar::F32 => buffer(rng, len, |v| v as f32),
                        _ => buffer(rng, len, |v| v),
                    };
                    let scalar = |rng: &mut Rng| match elem {
                        Scalar::F32 => Arg::f32(rng.next() as f32),
                        _ => Arg::f64(rng.next()),
                    };
                    let mut args = vec![
                        Arg::Scalar(n as u64),
                        vector(&mut rng),
                        Arg::Scalar(inc as u64),
                        vector(&mut rng),
                        Arg::Scalar(inc as u64),
                    ];
                    while args.len() < k.signature().params.len() {
                        args.push(scalar(&mut rng));
                    }
                    let grid = if grid_stride {
                        p.grid
                    } else {
                        (n as u64).div_ceil(p.elements_per_tile().unwrap()) as u32
                    };
                    same_on_device(&dev, &k, grid, p.block, args);
                }
            }
        }
    }
}
