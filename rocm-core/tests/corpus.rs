//! The clang corpus: OpenCL C kernels (`tests/corpus/*.cl`) compiled by clang-19 for
//! every emulated target at -O2 and -O3, run on `emu:<gfx>` and compared with host
//! computations of the same functions.
//!
//! The kernels are what a user would write, not a list of instructions: whatever LLVM
//! emits for them the decoder, printer and emulator must handle. Each code object is also
//! disassembled by `rocm_core::isa::amdgpu::disassemble_code_object` and compared line
//! for line with `llvm-objdump-19 -d`.
//!
//! Runs when `clang-19` is on the PATH (`scripts/test` installs it) and says so when it
//! is not. Targets: gfx908, gfx90a, gfx942, gfx1100; `ROCM_CORPUS_ALL_TARGETS=1` adds
//! the other gfx11 targets of the ISA model. Each source is compiled once per target and
//! level into a temporary directory.

use half::f16;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{Device, DeviceBuffer, Element, KernelArgs, LaunchConfig, Module, ModuleImage};
use std::path::{Path, PathBuf};
use std::process::Command;

const CLANG: &str = "clang-19";
const LEVELS: [&str; 2] = ["-O2", "-O3"];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn targets() -> Vec<IsaTarget> {
    if std::env::var_os("ROCM_CORPUS_ALL_TARGETS").is_some() {
        IsaTarget::ALL.to_vec()
    } else {
        vec![
            IsaTarget::Gfx908,
            IsaTarget::Gfx90a,
            IsaTarget::Gfx942,
            IsaTarget::Gfx1100,
        ]
    }
}

fn have_clang() -> bool {
    Command::new(CLANG)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Compiles `source` for `t` at `level` into `dir`; the code object's path.
fn compile(source: &str, t: IsaTarget, level: &str, dir: &Path) -> Result<PathBuf, String> {
    let stem = source.trim_end_matches(".cl");
    let out = dir.join(format!("{stem}_{}_{}.co", t.name(), &level[1..]));
    let o = Command::new(CLANG)
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
        .arg(format!("-mcpu={}", t.name()))
        .args(["-nogpulib", level])
        .arg(corpus_dir().join(source))
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("running {CLANG}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{CLANG} {source} for {t} {level}: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(out)
}

/// One kernel of the corpus: its source file, name and a run that launches it on a
/// device and compares with the host (an error says what differed).
struct Case {
    source: &'static str,
    kernel: &'static str,
    run: fn(&Run) -> Result<(), String>,
}

/// What a case's run gets: the device and the loaded module.
struct Run<'a> {
    dev: &'a Device,
    module: &'a Module,
    kernel: &'static str,
}

impl Run<'_> {
    fn up<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>, String> {
        self.dev.upload(data).map_err(|e| e.to_string())
    }

    fn launch(&self, grid: u32, block: u32, args: &KernelArgs) -> Result<(), String> {
        self.launch_cfg(LaunchConfig::linear(grid, block), args)
    }

    fn launch_cfg(&self, cfg: LaunchConfig, args: &KernelArgs) -> Result<(), String> {
        let k = self.module.kernel(self.kernel).map_err(|e| e.to_string())?;
        // SAFETY: the emulated device bounds-checks every access the kernel makes.
        unsafe { k.launch(self.dev.default_stream(), &cfg, args) }.map_err(|e| e.to_string())
    }
}

fn get<T: Element>(b: &DeviceBuffer<T>) -> Result<Vec<T>, String> {
    b.to_vec().map_err(|e| e.to_string())
}

/// Compares element by element with `ok(got, want)`; the first mismatch is the error.
fn check<T: Copy + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
    ok: impl Fn(T, T) -> bool,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} results, want {}",
            got.len(),
            want.len()
        ));
    }
    match (0..got.len()).find(|&i| !ok(got[i], want[i])) {
        Some(i) => Err(format!(
            "{what}[{i}] = {:?}, host says {:?}",
            got[i], want[i]
        )),
        None => Ok(()),
    }
}

fn exact<T: Copy + std::fmt::Debug + PartialEq>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    check(what, got, want, |a, b| a == b)
}

fn same_f32(what: &str, got: &[f32], want: &[f32]) -> Result<(), String> {
    check(what, got, want, |a, b| a.to_bits() == b.to_bits())
}

/// Distance in units in the last place between two finite f32 of the same sign.
fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

/// A deterministic generator (xorshift64*), so failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    /// Uniform in [lo, hi).
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}

// ---------------------------------------------------------------------------------------
// arith.cl

/// Elements per element-wise case: not a multiple of the block, so the bound check runs.
const N: usize = 1000;
const BLOCK: u32 = 256;

fn groups(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize) as u32
}

fn vadd_f32(r: &Run) -> Result<(), String> {
    let mut g = Gen(1);
    let a: Vec<f32> = (0..N).map(|_| g.f32(-1e3, 1e3)).collect();
    let b: Vec<f32> = (0..N).map(|_| g.f32(-1e3, 1e3)).collect();
    let (da, db, dc) = (r.up(&a)?, r.up(&b)?, r.up(&vec![0f32; N + 64])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dc).push(N as i32);
    r.launch(groups(N + 64), BLOCK, &args)?;
    let mut want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    want.extend([0.0; 64]);
    same_f32("c", &get(&dc)?, &want)
}

fn axpy_f32(r: &Run) -> Result<(), String> {
    let mut g = Gen(2);
    let x: Vec<f32> = (0..N).map(|_| g.f32(-10.0, 10.0)).collect();
    let y: Vec<f32> = (0..N).map(|_| g.f32(-10.0, 10.0)).collect();
    let alpha = 0.7f32;
    let (dx, dy) = (r.up(&x)?, r.up(&y)?);
    let mut args = KernelArgs::new();
    args.push(alpha).push(&dx).push(&dy).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    // fma rounds once on both sides.
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    same_f32("y", &get(&dy)?, &want)
}

fn axpy_f64(r: &Run) -> Result<(), String> {
    let mut g = Gen(3);
    let x: Vec<f64> = (0..N).map(|_| g.f32(-10.0, 10.0) as f64 / 3.0).collect();
    let y: Vec<f64> = (0..N).map(|_| g.f32(-10.0, 10.0) as f64 / 7.0).collect();
    let alpha = 0.1f64;
    let (dx, dy) = (r.up(&x)?, r.up(&y)?);
    let mut args = KernelArgs::new();
    args.push(alpha).push(&dx).push(&dy).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    check("y", &get(&dy)?, &want, |a, b| a.to_bits() == b.to_bits())
}

fn axpy_f16(r: &Run) -> Result<(), String> {
    let mut g = Gen(4);
    let x: Vec<f16> = (0..N).map(|_| f16::from_f32(g.f32(-8.0, 8.0))).collect();
    let y: Vec<f16> = (0..N).map(|_| f16::from_f32(g.f32(-8.0, 8.0))).collect();
    let alpha = f16::from_f32(0.375);
    let (dx, dy) = (r.up(&x)?, r.up(&y)?);
    let mut args = KernelArgs::new();
    args.push(alpha).push(&dx).push(&dy).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    // LLVM contracts `alpha * x + y` into one fma (OpenCL's default FP_CONTRACT), or
    // rounds twice: either is within one f16 ulp of the exact result, and the exact
    // result is the f32 fma (11-bit operands: the product is exact in f32).
    let got = get(&dy)?;
    let want: Vec<f16> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| f16::from_f32(alpha.to_f32().mul_add(x.to_f32(), y.to_f32())))
        .collect();
    check("y", &got, &want, |a, b| {
        (a.to_bits() as i32 - b.to_bits() as i32).abs() <= 1
    })
}

fn int_ops(r: &Run) -> Result<(), String> {
    let mut g = Gen(5);
    let a: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let mut b: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    b[0] = 0; // clz of zero takes the kernel's explicit branch
    let (da, db, dout) = (r.up(&a)?, r.up(&b)?, r.up(&vec![0u32; 8 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let mut want = Vec::with_capacity(8 * N);
    for (&x, &y) in a.iter().zip(&b) {
        let (sx, sy) = (x as i32, y as i32);
        want.extend([
            x.wrapping_mul(y).wrapping_add(x >> (y & 31)),
            ((x as u64 * y as u64) >> 32) as u32 ^ ((sx as i64 * sy as i64) >> 32) as u32,
            ((sx >> (y & 31)) as u32) | (x << ((y >> 5) & 31)),
            x.min(y).wrapping_add(sx.max(sy) as u32),
            x.count_ones() + if y != 0 { y.leading_zeros() } else { 32 } * 64,
            x.rotate_left(y & 31) & !y,
            ((x as u64 * y as u64) >> 7) as u32,
            if sx < sy {
                x.wrapping_sub(y)
            } else {
                y.wrapping_sub(x)
            },
        ]);
    }
    exact("out", &get(&dout)?, &want)
}

fn divide(r: &Run) -> Result<(), String> {
    let mut g = Gen(6);
    let mut a: Vec<i32> = (0..N).map(|_| g.u32() as i32).collect();
    let mut b: Vec<i32> = (0..N)
        .map(|i| match i % 3 {
            0 => g.u32() as i32,
            1 => (g.u32() % 1000) as i32 - 500,
            _ => (g.u32() % 70000) as i32 + 1,
        })
        .map(|y| if y == 0 { 7 } else { y })
        .collect();
    // Edges: i32::MIN / -1 overflows in C; i32::MIN / 1 and / i32::MIN do not.
    a[1] = i32::MIN;
    b[1] = 1;
    a[2] = 5;
    b[2] = i32::MIN;
    let fa: Vec<f32> = (0..N).map(|_| g.f32(-1e4, 1e4)).collect();
    let fb: Vec<f32> = (0..N).map(|_| g.f32(0.5, 100.0)).collect();
    let (da, db, dfa, dfb) = (r.up(&a)?, r.up(&b)?, r.up(&fa)?, r.up(&fb)?);
    let (dq, dfq) = (r.up(&vec![0i32; 4 * N])?, r.up(&vec![0f32; N])?);
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&dfa)
        .push(&dfb)
        .push(&dq)
        .push(&dfq)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let mut want = Vec::with_capacity(4 * N);
    for (&x, &y) in a.iter().zip(&b) {
        want.extend([
            x.wrapping_div(y),
            x.wrapping_rem(y),
            ((x as u32) / (y as u32)) as i32,
            ((x as u32) % (y as u32)) as i32,
        ]);
    }
    exact("q", &get(&dq)?, &want)?;
    // OpenCL C allows 2.5 ulp for single-precision division (without
    // -cl-fp32-correctly-rounded-divide-sqrt); quotients here are normal numbers.
    let fwant: Vec<f32> = fa.iter().zip(&fb).map(|(x, y)| x / y).collect();
    check("fq", &get(&dfq)?, &fwant, |a, b| ulps(a, b) <= 3)
}

fn divide_u64(r: &Run) -> Result<(), String> {
    let mut g = Gen(7);
    let a: Vec<u64> = (0..N).map(|_| g.next()).collect();
    let b: Vec<u64> = (0..N)
        .map(|i| match i % 3 {
            0 => g.next() | 1,
            1 => u64::from(g.u32() | 1),
            _ => g.next() >> (g.u32() % 60) | 1,
        })
        .collect();
    // Device buffers of i64 carry the u64 bit patterns.
    let bits = |v: &[u64]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let (da, db, dq) = (
        r.up(&bits(&a))?,
        r.up(&bits(&b))?,
        r.up(&vec![0i64; 2 * N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dq).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<u64> = a.iter().zip(&b).flat_map(|(x, y)| [x / y, x % y]).collect();
    exact("q", &get(&dq)?, &bits(&want))
}

fn convert(r: &Run) -> Result<(), String> {
    let mut g = Gen(8);
    let mut f: Vec<f32> = (0..N).map(|_| g.f32(-1e6, 1e6)).collect();
    f[0] = -0.75;
    f[1] = 0.0;
    f[2] = 65504.0;
    let k: Vec<i32> = (0..N).map(|_| g.u32() as i32).collect();
    let (df, dk) = (r.up(&f)?, r.up(&k)?);
    let (doi, dof, dod) = (
        r.up(&vec![0i32; 4 * N])?,
        r.up(&vec![0f32; 4 * N])?,
        r.up(&vec![0f64; 2 * N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&df)
        .push(&dk)
        .push(&doi)
        .push(&dof)
        .push(&dod)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (mut oi, mut of, mut od) = (vec![], vec![], vec![]);
    for (&x, &m) in f.iter().zip(&k) {
        oi.extend([
            x as i32,
            x.abs() as u32 as i32,
            (x * 1024.0) as i64 as i32,
            x as f64 as i32,
        ]);
        of.extend([
            m as f32,
            m as u32 as f32,
            f16::from_f32(x).to_f32(),
            m as i64 as f32 * 0.5,
        ]);
        od.extend([x as f64 * m as f64, m as u32 as f64]);
    }
    exact("oi", &get(&doi)?, &oi)?;
    same_f32("of", &get(&dof)?, &of)?;
    check("od", &get(&dod)?, &od, |a, b| a.to_bits() == b.to_bits())
}

const CASES: &[Case] = &[
    Case {
        source: "arith.cl",
        kernel: "vadd_f32",
        run: vadd_f32,
    },
    Case {
        source: "arith.cl",
        kernel: "axpy_f32",
        run: axpy_f32,
    },
    Case {
        source: "arith.cl",
        kernel: "axpy_f64",
        run: axpy_f64,
    },
    Case {
        source: "arith.cl",
        kernel: "axpy_f16",
        run: axpy_f16,
    },
    Case {
        source: "arith.cl",
        kernel: "int_ops",
        run: int_ops,
    },
    Case {
        source: "arith.cl",
        kernel: "divide",
        run: divide,
    },
    Case {
        source: "arith.cl",
        kernel: "divide_u64",
        run: divide_u64,
    },
    Case {
        source: "arith.cl",
        kernel: "convert",
        run: convert,
    },
];

/// Cases known not to run yet, as `(kernel, target)`, with why; the test fails if one
/// of them starts passing (so the list shrinks) or if any other case fails.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[
    (
        "divide",
        "gfx1100",
        "gfx11 dual-issue v_dual_* (VOPD) is not in the model",
    ),
    (
        "divide_u64",
        "gfx1100",
        "gfx11 dual-issue v_dual_* (VOPD) is not in the model",
    ),
];

fn known_failure(kernel: &str, t: IsaTarget) -> bool {
    KNOWN_FAILURES
        .iter()
        .any(|(k, tn, _)| *k == kernel && (*tn == "*" || *tn == t.name()))
}

#[test]
fn clang_corpus_runs_on_every_emulated_target() {
    if !have_clang() {
        eprintln!("clang corpus skipped: {CLANG} is not on the PATH (scripts/test installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rocm-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sources: Vec<&str> = CASES.iter().map(|c| c.source).collect();
    sources.dedup();
    let mut table = Vec::new();
    let mut wrong = Vec::new();
    for t in targets() {
        let dev = Device::open(&format!("emu:{}", t.name())).unwrap();
        for level in LEVELS {
            for source in &sources {
                let co = compile(source, t, level, &dir).unwrap();
                let elf = std::fs::read(&co).unwrap();
                let module = dev.load_module(&ModuleImage::CodeObject(elf));
                for case in CASES.iter().filter(|c| c.source == *source) {
                    let result = module.as_ref().map_err(|e| e.to_string()).and_then(|m| {
                        (case.run)(&Run {
                            dev: &dev,
                            module: m,
                            kernel: case.kernel,
                        })
                    });
                    let known = known_failure(case.kernel, t);
                    let mark = match (&result, known) {
                        (Ok(()), false) => "pass",
                        (Err(_), true) => "known failure",
                        (Ok(()), true) => "pass (listed as a known failure)",
                        (Err(_), false) => "FAIL",
                    };
                    table.push(format!(
                        "{:<14} {:<8} {level}  {mark}",
                        case.kernel,
                        t.name()
                    ));
                    if result.is_ok() == known {
                        wrong.push(format!(
                            "{} {t} {level}: {}",
                            case.kernel,
                            result
                                .err()
                                .unwrap_or_else(|| "passes; remove it from KNOWN_FAILURES".into())
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{}", table.join("\n"));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
