//! The clang corpus: OpenCL C kernels (`tests/corpus/*.cl`) compiled by clang-19 for
//! every emulated target at -O2 and -O3, run on `emu:<gfx>` and compared with host
//! computations of the same functions.
//!
//! The kernels are what a user would write, not a list of instructions: whatever LLVM
//! emits for them the decoder, printer and emulator must handle. `rocm-bench`'s disasm
//! test compiles the same sources and compares its listing line for line with
//! `llvm-objdump-19 -d`.
//!
//! Runs when `clang-19` is on the PATH (`scripts/test` installs it) and says so when it
//! is not. Targets: gfx908, gfx90a, gfx942, gfx1100; `ROCM_CORPUS_ALL_TARGETS=1` adds
//! the other gfx11 targets of the ISA model. Each source is compiled once per target and
//! level into a temporary directory.

use half::f16;
use rocm_core::isa::amdgpu::codeobj::CodeObject;
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
    /// Lanes per wave of the target (64 on gfx9, 32 on gfx11).
    lanes: usize,
    /// The kernel's static LDS bytes (`group_segment_fixed_size`), where dynamic LDS
    /// starts.
    static_lds: u32,
}

impl Run<'_> {
    fn up<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>, String> {
        self.dev.upload(data).map_err(|e| e.to_string())
    }

    /// Places dynamic LDS arrays `(bytes, alignment)` (one per `__local` pointer
    /// argument, in order) after the kernel's static LDS, each aligned, as the OpenCL
    /// runtime does: their offsets (the argument values) and the launch's
    /// `shared_bytes` (the group segment less the static part).
    fn local_regions(&self, arrays: &[(u32, u32)]) -> Result<(Vec<u32>, u32), String> {
        let mut end = self.static_lds;
        let mut offsets = Vec::with_capacity(arrays.len());
        for &(bytes, align) in arrays {
            let at = end
                .checked_next_multiple_of(align.max(1))
                .ok_or("LDS offset overflows")?;
            offsets.push(at);
            end = at.checked_add(bytes).ok_or("LDS size overflows")?;
        }
        Ok((offsets, end - self.static_lds))
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

// ---------------------------------------------------------------------------------------
// control.cl

fn collatz(r: &Run) -> Result<(), String> {
    let mut g = Gen(9);
    let start: Vec<u32> = (0..N).map(|_| g.u32() % 100_000 + 1).collect();
    let (ds, dsteps) = (r.up(&start)?, r.up(&vec![0u32; N])?);
    let mut args = KernelArgs::new();
    args.push(&ds).push(&dsteps).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<u32> = start
        .iter()
        .map(|&x0| {
            let (mut x, mut k) = (x0, 0u32);
            while x != 1 && k < 1000 {
                x = if x & 1 != 0 {
                    x.wrapping_mul(3).wrapping_add(1)
                } else {
                    x >> 1
                };
                k += 1;
            }
            k
        })
        .collect();
    exact("steps", &get(&dsteps)?, &want)
}

fn first_above(r: &Run) -> Result<(), String> {
    let (rows, cols) = (512usize, 37usize);
    let mut g = Gen(10);
    let m: Vec<f32> = (0..rows * cols).map(|_| g.f32(0.0, 1.0)).collect();
    let threshold = 0.97f32;
    let (dm, di, dsum) = (
        r.up(&m)?,
        r.up(&vec![0i32; rows])?,
        r.up(&vec![0f32; rows])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dm)
        .push(cols as i32)
        .push(threshold)
        .push(&di)
        .push(&dsum);
    r.launch(groups(rows), BLOCK, &args)?;
    let (mut wi, mut ws) = (vec![], vec![]);
    for row in m.chunks(cols) {
        let (mut s, mut found) = (0f32, -1);
        for (j, &v) in row.iter().enumerate() {
            if v > threshold {
                found = j as i32;
                break;
            }
            s += v;
        }
        wi.push(found);
        ws.push(s);
    }
    exact("index", &get(&di)?, &wi)?;
    // The same additions in the same order.
    same_f32("sum", &get(&dsum)?, &ws)
}

fn call_poly(r: &Run) -> Result<(), String> {
    let mut g = Gen(11);
    let x: Vec<f32> = (0..N).map(|_| g.f32(-1.0, 1.0)).collect();
    let c: Vec<f32> = (0..8).map(|_| g.f32(-2.0, 2.0)).collect();
    let degree = 7;
    let (dx, dc, dy) = (r.up(&x)?, r.up(&c)?, r.up(&vec![0f32; N])?);
    let mut args = KernelArgs::new();
    args.push(&dx)
        .push(&dc)
        .push(degree)
        .push(&dy)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<f32> = x
        .iter()
        .map(|&x| {
            let mut acc = c[degree as usize];
            for k in (0..degree as usize).rev() {
                acc = acc.mul_add(x, c[k]);
            }
            acc
        })
        .collect();
    same_f32("y", &get(&dy)?, &want)
}

fn private_hist(r: &Run) -> Result<(), String> {
    let mut g = Gen(12);
    let v: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let (dv, dout) = (r.up(&v)?, r.up(&vec![0u32; N])?);
    let mut args = KernelArgs::new();
    args.push(&dv).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<u32> = v
        .iter()
        .map(|&x| {
            let mut bins = [0u32; 16];
            for k in 0..8 {
                bins[((x >> (4 * k)) & 15) as usize] += k + 1;
            }
            bins.iter()
                .fold(0u32, |r, &b| r.wrapping_mul(31).wrapping_add(b))
        })
        .collect();
    exact("out", &get(&dout)?, &want)
}

// ---------------------------------------------------------------------------------------
// local.cl

fn reduce_sum(r: &Run) -> Result<(), String> {
    let groups_n = 6usize;
    let n = groups_n * 256;
    let mut g = Gen(13);
    let x: Vec<f32> = (0..n).map(|_| g.f32(-1.0, 1.0)).collect();
    let (dx, dp) = (r.up(&x)?, r.up(&vec![0f32; groups_n])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dp);
    r.launch(groups_n as u32, 256, &args)?;
    // The kernel's tree, in the same order.
    let want: Vec<f32> = x
        .chunks(256)
        .map(|c| {
            let mut t = c.to_vec();
            let mut s = 128;
            while s > 0 {
                for l in 0..s {
                    t[l] += t[l + s];
                }
                s >>= 1;
            }
            t[0]
        })
        .collect();
    same_f32("partial", &get(&dp)?, &want)
}

fn scan_inclusive(r: &Run) -> Result<(), String> {
    let n = 4 * 256;
    let mut g = Gen(14);
    let x: Vec<i32> = (0..n).map(|_| g.u32() as i32 >> 4).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0i32; n])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy);
    r.launch(4, 256, &args)?;
    let mut want = Vec::with_capacity(n);
    for c in x.chunks(256) {
        let mut acc = 0i32;
        for &v in c {
            acc = acc.wrapping_add(v);
            want.push(acc);
        }
    }
    exact("y", &get(&dy)?, &want)
}

fn matmul_tiled(r: &Run) -> Result<(), String> {
    let n = 48usize;
    let mut g = Gen(15);
    let a: Vec<f32> = (0..n * n).map(|_| g.f32(-1.0, 1.0)).collect();
    let b: Vec<f32> = (0..n * n).map(|_| g.f32(-1.0, 1.0)).collect();
    let (da, db, dc) = (r.up(&a)?, r.up(&b)?, r.up(&vec![0f32; n * n])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dc).push(n as i32);
    let tiles = (n / 16) as u32;
    r.launch_cfg(
        LaunchConfig {
            grid: [tiles, tiles, 1],
            block: [16, 16, 1],
            shared_bytes: 0,
        },
        &args,
    )?;
    // One fma per k, in k order, as the kernel accumulates.
    let mut want = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            want[row * n + col] = acc;
        }
    }
    same_f32("c", &get(&dc)?, &want)
}

fn reverse_dynamic(r: &Run) -> Result<(), String> {
    let (block, grid) = (128usize, 5usize);
    let n = block * grid;
    let x: Vec<i32> = (0..n as i32).map(|i| i * 7 - 300).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0i32; n])?);
    let mut args = KernelArgs::new();
    // The __local pointer: the device sets it; the caller reserves its 4 bytes.
    args.push(&dx).push(&dy).push(0u32);
    r.launch_cfg(
        LaunchConfig {
            grid: [grid as u32, 1, 1],
            block: [block as u32, 1, 1],
            shared_bytes: (block * 4) as u32,
        },
        &args,
    )?;
    let want: Vec<i32> = x
        .chunks(block)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    exact("y", &get(&dy)?, &want)
}

fn atomics(r: &Run) -> Result<(), String> {
    let mut g = Gen(16);
    let v: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let dv = r.up(&v)?;
    let dhist = r.up(&[0u32; 16])?;
    let dmm = r.up(&[i32::MAX, i32::MIN, -1, 0, i32::MAX])?;
    let dbits = r.up(&[0u32, u32::MAX, 0, 0, 0, 0])?;
    let dfsum = r.up(&[0f32])?;
    let mut args = KernelArgs::new();
    args.push(&dv)
        .push(&dhist)
        .push(&dmm)
        .push(&dbits)
        .push(&dfsum)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let mut hist = [0u32; 16];
    let mut bits = [0u32, u32::MAX, 0, 0, 0, 1];
    let mut fsum = 0u32;
    for &x in &v {
        hist[(x & 15) as usize] += 1;
        bits[0] |= 1 << (x & 31);
        bits[1] &= !(1 << ((x >> 5) & 31));
        bits[2] ^= x;
        bits[3] = bits[3].wrapping_sub(x & 255);
        fsum += x & 7;
    }
    let imin = v.iter().map(|&x| x as i32).min().unwrap();
    let mm = [
        imin,
        v.iter().map(|&x| x as i32).max().unwrap(),
        *v.iter().min().unwrap() as i32,
        *v.iter().max().unwrap() as i32,
        imin,
    ];
    exact("hist", &get(&dhist)?, &hist)?;
    exact("minmax", &get(&dmm)?, &mm)?;
    // Which work-item's compare-exchange wins is up to the hardware: any one of them,
    // exactly once.
    let mut got = get(&dbits)?;
    if !(1..=N as u32).contains(&got[4]) {
        return Err(format!("cmpxchg winner {} is no work-item", got[4]));
    }
    got[4] = 0;
    exact("bits", &got, &bits)?;
    // Small integers: every order of float additions is exact.
    same_f32("fsum", &get(&dfsum)?, &[fsum as f32])
}

// ---------------------------------------------------------------------------------------
// math.cl

/// Whether two floats are the same value (NaNs of any payload count as equal).
fn same_or_nan_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn f64_div_sqrt(r: &Run) -> Result<(), String> {
    let mut g = Gen(17);
    // Wide exponents, both signs; the division and reciprocal are correctly rounded in
    // OpenCL C, so they must match the host bit for bit.
    let wide = |g: &mut Gen| {
        let m = 1.0 + g.f32(0.0, 1.0) as f64;
        let e = (g.u32() % 1200) as i32 - 600;
        let s = if g.u32() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f64.powi(e)
    };
    let mut a: Vec<f64> = (0..N).map(|_| wide(&mut g)).collect();
    let b: Vec<f64> = (0..N).map(|_| wide(&mut g)).collect();
    a[0] = 0.0;
    a[1] = f64::MAX;
    a[2] = 5e-324;
    let (da, db, dout) = (r.up(&a)?, r.up(&b)?, r.up(&vec![0f64; 3 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let got = get(&dout)?;
    for i in 0..N {
        let (q, s, rc) = (got[3 * i], got[3 * i + 1], got[3 * i + 2]);
        if q.to_bits() != (a[i] / b[i]).to_bits() || rc.to_bits() != (1.0 / b[i]).to_bits() {
            return Err(format!(
                "{i}: {:e} / {:e} = {q:e}, 1/b = {rc:e}",
                a[i], b[i]
            ));
        }
        // sqrt is correctly rounded in OpenCL C too; one ulp allows for the rsq
        // refinement, which the emulator starts from an exact reciprocal square root.
        let want = a[i].abs().sqrt();
        if (s.to_bits() as i64 - want.to_bits() as i64).abs() > 1 {
            return Err(format!(
                "{i}: sqrt({:e}) = {s:e}, host {want:e}",
                a[i].abs()
            ));
        }
    }
    Ok(())
}

fn f32_sqrt(r: &Run) -> Result<(), String> {
    let mut g = Gen(18);
    let mut a: Vec<f32> = (0..N).map(|_| g.f32(-1e4, 1e4)).collect();
    a[0] = 0.0;
    a[1] = 1e-40; // denormal
    a[2] = f32::MAX;
    let (da, dout) = (r.up(&a)?, r.up(&vec![0f32; 2 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let got = get(&dout)?;
    for (i, &x) in a.iter().enumerate() {
        let x = x.abs();
        // OpenCL C allows sqrt 3 ulp (without -cl-fp32-correctly-rounded-divide-sqrt).
        let want = x.sqrt();
        if ulps(got[2 * i], want) > 3 {
            return Err(format!("sqrt({x:e}) = {:e}, host {want:e}", got[2 * i]));
        }
        // The product by 0.5 is exact: fused or not, one rounding.
        let want = x.max(0.25) * 0.5 + x.min(3.0);
        if got[2 * i + 1].to_bits() != want.to_bits() {
            return Err(format!(
                "{i}: max/min mix {:e}, host {want:e}",
                got[2 * i + 1]
            ));
        }
    }
    Ok(())
}

fn f16_math(r: &Run) -> Result<(), String> {
    let mut g = Gen(19);
    let h = |g: &mut Gen| f16::from_f32(g.f32(-8.0, 8.0));
    let a: Vec<f16> = (0..N).map(|_| h(&mut g)).collect();
    let b: Vec<f16> = (0..N).map(|_| h(&mut g)).collect();
    let (da, db, dout) = (r.up(&a)?, r.up(&b)?, r.up(&vec![f16::ZERO; 4 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let got = get(&dout)?;
    let r16 = f16::from_f64;
    for i in 0..N {
        let (x, y) = (a[i].to_f64(), b[i].to_f64());
        // f16 products and sums of these are exact in f64: each candidate is the
        // result rounded once (contracted into an fma) or after every operation.
        let cands: [Vec<f16>; 4] = [
            vec![r16(x * y - x), r16(r16(x * y).to_f64() - x)],
            vec![if x > y { r16(x - y) } else { r16(y + x) }],
            vec![f16::from_f32(a[i].to_f32() * b[i].to_f32())],
            vec![r16(-x * 0.5 + 3.0), r16(r16(-x * 0.5).to_f64() + 3.0)],
        ];
        for (k, c) in cands.iter().enumerate() {
            if !c.contains(&got[4 * i + k]) {
                return Err(format!(
                    "{i}.{k}: x {x} y {y}: {} not in {c:?}",
                    got[4 * i + k]
                ));
            }
        }
    }
    Ok(())
}

fn convert_sat(r: &Run) -> Result<(), String> {
    let mut g = Gen(20);
    let mut f: Vec<f32> = (0..N).map(|_| g.f32(-70000.0, 70000.0)).collect();
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2.5,
        -3.5,
        0.5,
        -0.5,
        1e10,
        -1e10,
        4294967296.0,
        4294967040.0,
        2147483648.0,
        -2147483904.0,
        32767.9,
        -32768.9,
        -0.0,
    ];
    f[..specials.len()].copy_from_slice(&specials);
    let mut k: Vec<i32> = (0..N).map(|_| g.u32() as i32).collect();
    k[..6].copy_from_slice(&[0, -1, 255, 256, i32::MIN, i32::MAX]);
    let (df, dk) = (r.up(&f)?, r.up(&k)?);
    let (doi, dof) = (r.up(&vec![0i32; 6 * N])?, r.up(&vec![0f32; 4 * N])?);
    let mut args = KernelArgs::new();
    args.push(&df)
        .push(&dk)
        .push(&doi)
        .push(&dof)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (mut oi, mut of) = (vec![], vec![]);
    for (&x, &m) in f.iter().zip(&k) {
        let sat_rte = if x.is_nan() {
            0
        } else {
            let r = x.round_ties_even();
            if r >= 2147483648.0 {
                i32::MAX
            } else if r < -2147483648.0 {
                i32::MIN
            } else {
                r as i32
            }
        };
        let sat_short = if x.is_nan() {
            0
        } else if x >= 32767.0 {
            32767
        } else if x <= -32768.0 {
            -32768
        } else {
            x as i16 as i32
        };
        let sat_uint = if x.is_nan() {
            -1
        } else if x < 0.0 {
            0
        } else if x >= 4294967296.0 {
            u32::MAX as i32
        } else {
            x as u32 as i32
        };
        oi.extend([
            sat_rte,
            m.clamp(0, 255),
            sat_short,
            (m as i8 as i32).wrapping_add(m as u16 as i32),
            m,
            sat_uint,
        ]);
        of.extend([
            x.floor() + (x * 0.25).ceil(),
            (x * 3.0).trunc() - (x * 0.1).round_ties_even(),
            (x * 0.5).round(),
            m as f32 + m as u32 as f32,
        ]);
    }
    exact("oi", &get(&doi)?, &oi)?;
    check("of", &get(&dof)?, &of, same_or_nan_f32)
}

fn select_clamp(r: &Run) -> Result<(), String> {
    let mut g = Gen(21);
    let a: Vec<f32> = (0..N).map(|_| g.f32(-3.0, 3.0)).collect();
    let b: Vec<f32> = (0..N).map(|_| g.f32(-3.0, 3.0)).collect();
    let mut k: Vec<i32> = (0..N).map(|_| g.u32() as i32 >> (g.u32() % 31)).collect();
    k[..4].copy_from_slice(&[i32::MIN, 1000, 1001, -100]);
    let (da, db, dk) = (r.up(&a)?, r.up(&b)?, r.up(&k)?);
    let (dof, doi) = (r.up(&vec![0f32; 4 * N])?, r.up(&vec![0i32; 3 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&dk)
        .push(&dof)
        .push(&doi)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (gf, gi) = (get(&dof)?, get(&doi)?);
    for i in 0..N {
        let (x, y, m) = (a[i], b[i], k[i]);
        // x * y + 1: fused (one rounding) or not.
        let mad = [x.mul_add(y, 1.0), x * y + 1.0];
        let fw = [
            x.clamp(-1.0, 1.0),
            y.abs().copysign(x),
            if m & 1 != 0 { x } else { y },
        ];
        let ok = gf[4 * i] == fw[0]
            && mad.contains(&gf[4 * i + 1])
            && gf[4 * i + 2].to_bits() == fw[1].to_bits()
            && gf[4 * i + 3] == fw[2];
        let iw = [
            m.clamp(-100, 100),
            if x < y { m } else { m.wrapping_neg() },
            if m as u32 > 1000 {
                (m as u32 >> 3) as i32
            } else {
                m.wrapping_mul(3).wrapping_add(1)
            },
        ];
        if !ok || gi[3 * i..3 * i + 3] != iw {
            return Err(format!(
                "{i}: got {:?} {:?}, host {fw:?} {mad:?} {iw:?}",
                &gf[4 * i..4 * i + 4],
                &gi[3 * i..3 * i + 3]
            ));
        }
    }
    Ok(())
}

fn vectors(r: &Run) -> Result<(), String> {
    let mut g = Gen(22);
    let a: Vec<f32> = (0..4 * N).map(|_| g.f32(-10.0, 10.0)).collect();
    let b: Vec<f32> = (0..4 * N).map(|_| g.f32(-10.0, 10.0)).collect();
    let k: Vec<i32> = (0..2 * N).map(|_| g.u32() as i32).collect();
    let (da, db, dk) = (r.up(&a)?, r.up(&b)?, r.up(&k)?);
    let (dout, dok) = (r.up(&vec![0f32; 4 * N])?, r.up(&vec![0i32; 2 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&dk)
        .push(&dout)
        .push(&dok)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (got, goti) = (get(&dout)?, get(&dok)?);
    for i in 0..N {
        // Lane c of r = x * y + (c + 1), then r.xy swapped.
        for (c, from) in [1usize, 0, 2, 3].into_iter().enumerate() {
            let (x, y) = (a[4 * i + from], b[4 * i + from]);
            let add = (from + 1) as f32;
            let cands = [x.mul_add(y, add), x * y + add];
            if !cands.contains(&got[4 * i + c]) {
                return Err(format!("{i}.{c}: {} not in {cands:?}", got[4 * i + c]));
            }
        }
        let (mx, my) = (k[2 * i], k[2 * i + 1]);
        let want = [
            mx.wrapping_mul(3).wrapping_add(my) ^ 0x55,
            my.wrapping_mul(-5).wrapping_add(mx) ^ 0xf0,
        ];
        if goti[2 * i..2 * i + 2] != want {
            return Err(format!(
                "{i}: int2 {:?}, host {want:?}",
                &goti[2 * i..2 * i + 2]
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// bits.cl

fn bit_ops(r: &Run) -> Result<(), String> {
    let mut g = Gen(23);
    let mut a: Vec<u32> = (0..N).map(|_| g.u32() >> (g.u32() % 32)).collect();
    let mut b: Vec<u64> = (0..N).map(|_| g.next() >> (g.u32() % 64)).collect();
    a[..3].copy_from_slice(&[0, u32::MAX, 1 << 31]);
    b[..3].copy_from_slice(&[0, u64::MAX, 1 << 63]);
    let bits: Vec<i64> = b.iter().map(|&x| x as i64).collect();
    let (da, db, dout) = (r.up(&a)?, r.up(&bits)?, r.up(&vec![0u32; 10 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let mut want = Vec::with_capacity(10 * N);
    for (&x, &y) in a.iter().zip(&b) {
        let s = x & 31;
        want.extend([
            x.count_ones(),
            if x != 0 { x.leading_zeros() } else { 32 },
            if x != 0 { x.trailing_zeros() } else { 32 },
            x.rotate_right(s),
            (x >> (s & 15)) & ((1u32 << ((x >> 8) & 15)) - 1),
            (x & !(0xff << 8)) | (((y & 0xff) as u32) << 8),
            x.swap_bytes() ^ x.reverse_bits(),
            // OpenCL C's `long long` is 128 bits: clzll counts the zero-extended high half.
            y.count_ones() + if y != 0 { 64 + y.leading_zeros() } else { 64 } * 128,
            ((y >> (s + 1)) ^ (y << (63 - s))) as u32,
            (((x as i32) >> 7) as u32)
                .wrapping_add(((y as i64) >> 40) as u32)
                .wrapping_add(if y != 0 { y.trailing_zeros() } else { 64 }),
        ]);
    }
    exact("out", &get(&dout)?, &want)
}

fn int64_ops(r: &Run) -> Result<(), String> {
    let mut g = Gen(24);
    let mut a: Vec<i64> = (0..N).map(|_| g.next() as i64 >> (g.u32() % 63)).collect();
    let mut b: Vec<i64> = (0..N)
        .map(|_| g.next() as i64 >> (g.u32() % 63))
        .map(|y| if y == 0 { 3 } else { y })
        .collect();
    a[..4].copy_from_slice(&[i64::MIN, i64::MAX, -7, 7]);
    b[..4].copy_from_slice(&[1, -1, 2, -2]);
    let (da, db, dout) = (r.up(&a)?, r.up(&b)?, r.up(&vec![0i64; 4 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dout).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let want: Vec<i64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            [
                x / y,
                x % y,
                x.wrapping_mul(y).wrapping_add(x >> 3),
                ((x as u64 / 10) as i64).wrapping_add((x as u64 % 10) as i64),
            ]
        })
        .collect();
    exact("out", &get(&dout)?, &want)
}

// ---------------------------------------------------------------------------------------
// memory.cl

fn private_sort(r: &Run) -> Result<(), String> {
    let n = 300usize;
    let mut g = Gen(25);
    let x: Vec<i32> = (0..48 * n).map(|_| g.u32() as i32 >> 8).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0i32; 48 * n])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy).push(n as i32);
    r.launch(groups(n), BLOCK, &args)?;
    let mut want = Vec::with_capacity(48 * n);
    for i in 0..n {
        let mut v = x[48 * i..48 * i + 48].to_vec();
        v.sort();
        for k in 0..48 {
            let j = ((k as i32 * 7).wrapping_add(x[i]) as u32 % 48) as usize;
            want.push(v[k].wrapping_add(v[j]));
        }
    }
    exact("y", &get(&dy)?, &want)
}

fn atomics_all(r: &Run) -> Result<(), String> {
    let (groups_n, n) = (3usize, 3 * 256 - 17);
    let mut g = Gen(26);
    let v: Vec<u32> = (0..n)
        .map(|_| g.u32())
        .map(|x| if x == 0x1234_5678 { 1 } else { x })
        .collect();
    let mut g32 = vec![0u32; 16 + 8 * groups_n];
    g32[..13].copy_from_slice(&[
        0,
        1_000_000,
        u32::MAX,
        0,
        0,
        u32::MAX,
        0,
        i32::MAX as u32,
        i32::MIN as u32,
        0,
        50,
        0,
        0,
    ]);
    let mut g64 = vec![0u64; 8 + 4 * groups_n];
    g64[..7].copy_from_slice(&[0, u64::MAX, 0, 0, u64::MAX, i64::MIN as u64, 0]);
    let as_i64 = |v: &[u64]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let (dv, d32, d64) = (r.up(&v)?, r.up(&g32)?, r.up(&as_i64(&g64))?);
    let (df, dret) = (r.up(&vec![0f32; 1 + groups_n])?, r.up(&vec![0u32; 4 * n])?);
    let mut args = KernelArgs::new();
    args.push(&dv)
        .push(&d32)
        .push(&d64)
        .push(&df)
        .push(&dret)
        .push(n as i32);
    r.launch(groups_n as u32, 256, &args)?;
    let wide = |x: u32| (u64::from(x) << 32) | u64::from(x ^ 0x9e37_79b9);
    let mut w32 = g32.clone();
    let mut w64 = g64.clone();
    for &x in &v {
        w32[0] = w32[0].wrapping_add(x & 0xff);
        w32[1] = w32[1].wrapping_sub(x & 0xf);
        w32[2] &= !(1 << (x & 31));
        w32[3] |= 1 << ((x >> 5) & 31);
        w32[4] ^= x;
        w32[5] = w32[5].min(x);
        w32[6] = w32[6].max(x);
        w32[7] = (w32[7] as i32).min(x as i32) as u32;
        w32[8] = (w32[8] as i32).max(x as i32) as u32;
        w64[0] = w64[0].wrapping_add(wide(x));
        w64[1] &= !(1 << (x & 63));
        w64[2] |= 1 << ((x >> 6) & 63);
        w64[3] ^= wide(x);
        w64[4] = w64[4].min(wide(x));
        w64[5] = (w64[5] as i64).max(wide(x) as i64) as u64;
    }
    // inc/dec with limit 99 cycle through 0..=99 whatever the order.
    w32[9] = (n % 100) as u32;
    w32[10] = ((50 + 100 * n - n) % 100) as u32;
    w32[12] = n as u32;
    let mut fsum = 0f32;
    let mut wf = vec![0f32; 1 + groups_n];
    for (grp, c) in v.chunks(256).enumerate() {
        let mut l32 = [0u32, u32::MAX, 0x7fff_ffff, 0, 0, 0, 0, 0];
        let (mut l64, mut lf) = ([0u64, u64::MAX, 0], 0f32);
        for &x in c {
            l32[0] = l32[0].wrapping_add(x & 0xff);
            l32[1] &= !(1 << (x & 31));
            l32[2] = l32[2].min(x);
            l32[3] = (l32[3] as i32).max(x as i32) as u32;
            l32[4] |= 1 << (x & 31);
            l32[5] ^= x;
            l32[7] = (l32[7] + 1) % 8;
            l64[0] = l64[0].wrapping_add(wide(x));
            l64[1] &= !(1 << (x & 63));
            l64[2] = l64[2].max(wide(x));
            lf += (x & 3) as f32;
            fsum += (x & 7) as f32;
        }
        for (l, &val) in l32.iter().enumerate().filter(|(l, _)| *l != 6) {
            w32[16 + 8 * grp + l] = val;
        }
        w64[8 + 4 * grp..8 + 4 * grp + 3].copy_from_slice(&l64);
        wf[1 + grp] = lf;
    }
    wf[0] = fsum;
    let mut got32 = get(&d32)?;
    let mut got64: Vec<u64> = get(&d64)?.iter().map(|&x| x as u64).collect();
    let ret = get(&dret)?;
    // The exchange leaves some work-item's index; the compare-exchange succeeds for
    // exactly one work-item, whose value stays.
    if got32[11] as usize >= n {
        return Err(format!("exchange left {}, no work-item index", got32[11]));
    }
    got32[11] = 0;
    let winners: Vec<usize> = (0..n).filter(|&i| ret[4 * i + 2] == 1).collect();
    match winners.as_slice() {
        [i] if got64[6] == wide(v[*i]) | 1 => got64[6] = 0,
        _ => {
            return Err(format!(
                "cmpxchg winners {winners:?}, value {:#x}",
                got64[6]
            ))
        }
    }
    exact("g32", &got32, &w32)?;
    exact("g64", &got64, &w64)?;
    // Small integers: every order of float additions is exact.
    same_f32("gf", &get(&df)?, &wf)?;
    let flags: Vec<u32> = (0..n)
        .flat_map(|i| [ret[4 * i], ret[4 * i + 1], ret[4 * i + 3]])
        .collect();
    exact("returned values", &flags, &vec![1; 3 * n])
}

fn struct_arg(r: &Run) -> Result<(), String> {
    let mut g = Gen(27);
    let x: Vec<f32> = (0..N).map(|_| g.f32(-5.0, 5.0)).collect();
    let (scale, offset, mask, bias) = (1.75f32, -37i32, 0x3fu32, -300i16);
    // struct params { float; int; uint; short; }: 14 bytes, padded to 16, align 4.
    let mut p = Vec::with_capacity(16);
    p.extend(scale.to_le_bytes());
    p.extend(offset.to_le_bytes());
    p.extend(mask.to_le_bytes());
    p.extend(bias.to_le_bytes());
    p.extend([0, 0]);
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0f32; N])?);
    let mut args = KernelArgs::new();
    args.push_bytes(&p, 4).push(&dx).push(&dy).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let got = get(&dy)?;
    for (i, &v) in x.iter().enumerate() {
        let k = ((i as i32 + offset) & mask as i32) as f32;
        // v * scale + k fused or not, then + bias.
        let cands = [
            v.mul_add(scale, k) + f32::from(bias),
            v * scale + k + f32::from(bias),
        ];
        if !cands.contains(&got[i]) {
            return Err(format!("{i}: {} not in {cands:?}", got[i]));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// flow.cl

fn nested_loops(r: &Run) -> Result<(), String> {
    let (n, width) = (700usize, 9i32);
    let mut g = Gen(28);
    let x: Vec<i32> = (0..n).map(|_| (g.u32() % 2000) as i32 - 400).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0i32; n])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy).push(n as i32).push(width);
    r.launch(groups(n), BLOCK, &args)?;
    let want: Vec<i32> = (0..n)
        .map(|i| {
            let mut acc = 0u32;
            for row in 0..8i32 {
                if (x[i] >> row) & 3 == 3 {
                    continue;
                }
                for c in 0..width {
                    let v = x[(i + (row * 3 + c) as usize) % n];
                    if v < 0 && c > 2 {
                        break;
                    }
                    match (v >> 4) & 7 {
                        0 => acc = acc.wrapping_add(v as u32),
                        1 => acc = acc.wrapping_sub((v >> 1) as u32),
                        2 => acc ^= v as u32,
                        3 => acc = acc.wrapping_mul(3).wrapping_add(1),
                        5 => acc = acc.wrapping_add((row * c) as u32).wrapping_add(17),
                        6 => acc = acc.wrapping_add(17),
                        _ => acc = acc.wrapping_sub(c as u32),
                    }
                }
            }
            acc as i32
        })
        .collect();
    exact("y", &get(&dy)?, &want)
}

fn calls(r: &Run) -> Result<(), String> {
    let mut g = Gen(29);
    let a: Vec<i32> = (0..N).map(|_| (g.u32() % 100_000) as i32 + 1).collect();
    let b: Vec<i32> = (0..N).map(|_| (g.u32() % 5_000) as i32 * 6 + 6).collect();
    let f: Vec<f32> = (0..N).map(|_| g.f32(-1.0, 3.0)).collect();
    let (da, db, df) = (r.up(&a)?, r.up(&b)?, r.up(&f)?);
    let (dg, dh) = (r.up(&vec![0i32; N])?, r.up(&vec![0f32; N])?);
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&df)
        .push(&dg)
        .push(&dh)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let gcd = |mut a: i32, mut b: i32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let gw: Vec<i32> = (0..N).map(|i| gcd(a[i], b[i]) + gcd(b[i], 12)).collect();
    let hw: Vec<f32> = (0..N)
        .map(|i| {
            let (x, y) = (f[i], f[(i + 1) % N]);
            (f[i] * 0.5).clamp(0.0, 1.0).mul_add(y - x, x)
        })
        .collect();
    exact("g", &get(&dg)?, &gw)?;
    same_f32("h", &get(&dh)?, &hw)
}

fn geometry(r: &Run) -> Result<(), String> {
    let (grid, block) = ([3u32, 2, 2], [4u32, 3, 2]);
    let (nx, ny, nz) = (grid[0] * block[0], grid[1] * block[1], grid[2] * block[2]);
    let total = (nx * ny * nz) as usize;
    let dout = r.up(&vec![0u32; 2 * total])?;
    let mut args = KernelArgs::new();
    args.push(&dout);
    r.launch_cfg(
        LaunchConfig {
            grid,
            block,
            shared_bytes: 0,
        },
        &args,
    )?;
    let mut want = vec![0u32; 2 * total];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let idx = ((z * ny + y) * nx + x) as usize;
                let (g, l) = (
                    [x / block[0], y / block[1], z / block[2]],
                    [x % block[0], y % block[1], z % block[2]],
                );
                want[2 * idx] =
                    g[0] | g[1] << 8 | g[2] << 16 | (block.iter().product::<u32>()) << 24;
                want[2 * idx + 1] = l[0] | l[1] << 8 | l[2] << 16;
            }
        }
    }
    exact("out", &get(&dout)?, &want)
}

fn scan_blelloch(r: &Run) -> Result<(), String> {
    let groups_n = 4usize;
    let mut g = Gen(30);
    let x: Vec<u32> = (0..256 * groups_n).map(|_| g.u32()).collect();
    let (dx, dy, dm) = (
        r.up(&x)?,
        r.up(&vec![0u32; 256 * groups_n])?,
        r.up(&vec![0u32; groups_n])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy).push(&dm);
    r.launch(groups_n as u32, 256, &args)?;
    let mut want = Vec::new();
    for c in x.chunks(256) {
        let mut acc = 0u32;
        for &v in c {
            acc = acc.wrapping_add(v);
            want.push(acc);
        }
    }
    let mx: Vec<u32> = x.chunks(256).map(|c| *c.iter().max().unwrap()).collect();
    exact("y", &get(&dy)?, &want)?;
    exact("max", &get(&dm)?, &mx)
}

// ---------------------------------------------------------------------------------------
// wave.cl

/// Enough whole blocks that every lane of every wave is active.
const WAVE_N: usize = 1024;

fn row_scan(r: &Run) -> Result<(), String> {
    let mut g = Gen(40);
    let x: Vec<i32> = (0..WAVE_N)
        .map(|_| (g.u32() % 2001) as i32 - 1000)
        .collect();
    let (dx, ds, dt) = (
        r.up(&x)?,
        r.up(&vec![0i32; WAVE_N])?,
        r.up(&[0i32; WAVE_N / 32])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dx).push(&ds).push(&dt);
    r.launch(groups(WAVE_N), BLOCK, &args)?;
    // Inclusive prefix sums within rows of 16.
    let scan: Vec<i32> = x
        .chunks(16)
        .flat_map(|row| {
            row.iter()
                .scan(0i32, |acc, &v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    exact("scan", &get(&ds)?, &scan)?;
    // Each 32-lane group writes the sum of the first 32 lanes of its wave.
    let total: Vec<i32> = (0..WAVE_N / 32)
        .map(|k| {
            let wave = k * 32 / r.lanes * r.lanes;
            x[wave..wave + 32].iter().sum()
        })
        .collect();
    exact("total", &get(&dt)?, &total)
}

fn quad_ops(r: &Run) -> Result<(), String> {
    let mut g = Gen(41);
    let x: Vec<f32> = (0..WAVE_N).map(|_| g.f32(-50.0, 50.0)).collect();
    let (dx, dq, dm, dk) = (
        r.up(&x)?,
        r.up(&vec![0f32; WAVE_N])?,
        r.up(&vec![0f32; 2 * WAVE_N])?,
        r.up(&vec![0i32; WAVE_N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dq).push(&dm).push(&dk);
    r.launch(groups(WAVE_N), BLOCK, &args)?;
    let pair = |l: usize| x[l] + x[l ^ 1];
    let qsum: Vec<f32> = (0..WAVE_N).map(|l| pair(l) + pair(l ^ 2)).collect();
    same_f32("qsum", &get(&dq)?, &qsum)?;
    let mir: Vec<f32> = (0..WAVE_N)
        .flat_map(|l| {
            let row_mirror = (l & !15) | (15 - (l & 15));
            let half_mirror = (l & !7) | (7 - (l & 7));
            [x[l] - x[row_mirror], x[l] * x[half_mirror]]
        })
        .collect();
    same_f32("mirror", &get(&dm)?, &mir)?;
    let qmax: Vec<i32> = (0..WAVE_N)
        .map(|l| {
            (0..4)
                .map(|k| (x[(l & !3) | k] * 100.0) as i32)
                .max()
                .unwrap_or(0)
        })
        .collect();
    exact("qmax", &get(&dk)?, &qmax)
}

fn shuffles(r: &Run) -> Result<(), String> {
    let mut g = Gen(42);
    let x: Vec<u32> = (0..WAVE_N).map(|_| g.u32()).collect();
    let (dx, ds, dr, df) = (
        r.up(&x)?,
        r.up(&vec![0u32; WAVE_N])?,
        r.up(&vec![0u32; WAVE_N])?,
        r.up(&vec![0u32; WAVE_N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dx).push(&ds).push(&dr).push(&df);
    r.launch(groups(WAVE_N), BLOCK, &args)?;
    let sum: Vec<u32> = (0..WAVE_N)
        .map(|l| {
            x[l & !31..(l & !31) + 32]
                .iter()
                .fold(0u32, |a, &v| a.wrapping_add(v))
        })
        .collect();
    exact("sum", &get(&ds)?, &sum)?;
    let rot: Vec<u32> = (0..WAVE_N).map(|l| x[(l & !31) | ((l + 5) & 31)]).collect();
    exact("rot", &get(&dr)?, &rot)?;
    // readfirstlane under `if (v odd)`: the lowest odd lane of the wave.
    let first: Vec<u32> = (0..WAVE_N)
        .map(|l| {
            let wave = l / r.lanes * r.lanes;
            let lowest = x[wave..wave + r.lanes].iter().find(|v| *v & 1 == 1);
            match (x[l] & 1, lowest) {
                (1, Some(&v)) => v,
                _ => 0,
            }
        })
        .collect();
    exact("first", &get(&df)?, &first)
}

// ---------------------------------------------------------------------------------------
// types.cl

/// The four bytes of a packed `char4` (lane 0 lowest).
fn bytes_of(w: u32) -> [i8; 4] {
    w.to_le_bytes().map(|b| b as i8)
}

fn pack_bytes(b: [i8; 4]) -> u32 {
    u32::from_le_bytes(b.map(|x| x as u8))
}

/// The two halves of a packed `short2`.
fn shorts_of(w: u32) -> [i16; 2] {
    [w as i16, (w >> 16) as i16]
}

fn pack_shorts(s: [i16; 2]) -> u32 {
    u32::from(s[0] as u16) | u32::from(s[1] as u16) << 16
}

fn narrow_ints(r: &Run) -> Result<(), String> {
    let mut g = Gen(43);
    let mut a: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let b: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let mut c: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    // Saturation edges: 127 + 127, -128 - x, i16 extremes.
    a[0] = 0x807f_7f80;
    c[0] = 0x8000_7fff;
    let (da, db, dc) = (r.up(&a)?, r.up(&b)?, r.up(&c)?);
    let (d8, d16, di) = (
        r.up(&vec![0u32; 2 * N])?,
        r.up(&vec![0u32; 2 * N])?,
        r.up(&vec![0i32; 4 * N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&dc)
        .push(&d8)
        .push(&d16)
        .push(&di)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (mut w8, mut w16, mut wi) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..N {
        let (x, y, s) = (bytes_of(a[i]), bytes_of(b[i]), shorts_of(c[i]));
        // OpenCL vector arithmetic wraps in the element type (no promotion).
        let k = [3i8, -1, 2, 5];
        let mut rv: [i8; 4] = std::array::from_fn(|j| x[j].wrapping_add(y[j].wrapping_mul(k[j])));
        let (r0, r2) = (rv[2] ^ x[1], rv[0] ^ x[3]);
        rv[0] = r0;
        rv[2] = r2;
        w8.push(pack_bytes(rv));
        w8.push(pack_bytes(std::array::from_fn(|j| {
            x[j].saturating_add(y[j])
        })));
        let t = [
            s[0].wrapping_mul(7).wrapping_add(i16::from(x[0])),
            s[1].wrapping_mul(-3).wrapping_add(i16::from(y[3])),
        ];
        w16.push(pack_shorts([t[0] >> 1, t[1] >> 3]));
        w16.push(pack_shorts([
            s[0].saturating_sub(i16::from(y[1])),
            s[1].saturating_sub(i16::from(x[2])),
        ]));
        let ux = a[i].to_le_bytes();
        wi.push(i32::from(ux[0]) + i32::from(ux[1]) * 256 - i32::from(x[2]) * i32::from(y[3]));
        wi.push(i32::from(s[0]) * i32::from(s[1]) + i32::from(s[1] as u16));
        wi.push(i32::from(x[0].min(y[0])) + i32::from(ux[3] >> 2));
        wi.push((pack_bytes(rv) as i32).wrapping_add(i32::from(x[1])));
    }
    exact("o8", &get(&d8)?, &w8)?;
    exact("o16", &get(&d16)?, &w16)?;
    exact("oi", &get(&di)?, &wi)
}

/// f16 results computed with or without fma contraction (LLVM may contract `a * b + c`
/// under OpenCL's default FP_CONTRACT): either rounding is accepted.
fn f16_either(got: f16, fused: f32, unfused: f16) -> bool {
    got.to_bits() == f16::from_f32(fused).to_bits() || got.to_bits() == unfused.to_bits()
}

fn half_vectors(r: &Run) -> Result<(), String> {
    let mut g = Gen(44);
    let h = |g: &mut Gen| f16::from_f32(g.f32(-20.0, 20.0));
    let a: Vec<f16> = (0..2 * N).map(|_| h(&mut g)).collect();
    let b: Vec<f16> = (0..4 * N).map(|_| h(&mut g)).collect();
    let (da, db) = (r.up(&a)?, r.up(&b)?);
    let (d2, d4, df) = (
        r.up(&vec![f16::ZERO; 2 * N])?,
        r.up(&vec![f16::ZERO; 4 * N])?,
        r.up(&vec![0f32; 2 * N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&da)
        .push(&db)
        .push(&d2)
        .push(&d4)
        .push(&df)
        .push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (o2, o4, of) = (get(&d2)?, get(&d4)?, get(&df)?);
    let hf = |v: f32| f16::from_f32(v);
    for i in 0..N {
        let x = [a[2 * i], a[2 * i + 1]];
        let y = [b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]];
        for j in 0..2 {
            // The f32 fma is exact here (11-bit operands), then rounded once to f16.
            let fused = x[j].to_f32().mul_add(y[2 + j].to_f32(), y[j].to_f32());
            let unfused = hf(hf(x[j].to_f32() * y[2 + j].to_f32()).to_f32() + y[j].to_f32());
            if !f16_either(o2[2 * i + j], fused, unfused) {
                return Err(format!(
                    "o2[{}] = {}, host {fused} or {unfused}",
                    2 * i + j,
                    o2[2 * i + j]
                ));
            }
        }
        let sub = [x[0], x[1], x[1], x[0]];
        let mut z: [f16; 4] =
            std::array::from_fn(|j| hf(hf(y[j].to_f32() * 0.5).to_f32() - sub[j].to_f32()));
        if z[1].to_f32() <= x[0].to_f32() {
            z[1] = x[0];
        }
        for j in 0..4 {
            if o4[4 * i + j].to_bits() != z[j].to_bits() {
                return Err(format!(
                    "o4[{}] = {}, host {}",
                    4 * i + j,
                    o4[4 * i + j],
                    z[j]
                ));
            }
        }
        let want = [
            x[0].to_f32() * y[3].to_f32() + x[1].to_f32(),
            hf(y[2].to_f32() * 3.0).to_f32() + y[0].to_f32().trunc(),
        ];
        same_f32(&format!("of[{i}]"), &of[2 * i..2 * i + 2], &want)?;
    }
    Ok(())
}

fn f64_math(r: &Run) -> Result<(), String> {
    let mut g = Gen(45);
    let mut a: Vec<f64> = (0..N)
        .map(|_| f64::from(g.f32(-1e3, 1e3)) * 1.000_000_1)
        .collect();
    let k: Vec<i64> = (0..N).map(|_| g.next() as i64 >> (g.u32() % 60)).collect();
    a[..8].copy_from_slice(&[0.5, -0.5, 2.5, -2.5, -0.0, 1e-300, -1e-310, 999.999_999]);
    let (da, dk) = (r.up(&a)?, r.up(&k)?);
    let (d, dl) = (r.up(&vec![0f64; 6 * N])?, r.up(&vec![0i64; 2 * N])?);
    let mut args = KernelArgs::new();
    args.push(&da).push(&dk).push(&d).push(&dl).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let (o, ol) = (get(&d)?, get(&dl)?);
    for i in 0..N {
        let (x, m) = (a[i], k[i]);
        let want = [
            x.floor() + (x * 0.25).ceil(),
            (x * 3.0).trunc() - (x * 0.1).round_ties_even(),
            x.mul_add(x, -2.0) * 1.5f64.copysign(-x),
            x.min(1.0) + x.abs().max(0.5),
            x * 2f64.powi((m & 15) as i32 - 7),
            m as f64 * 0.125 + (m >> 3) as u64 as f64,
        ];
        for (j, w) in want.iter().enumerate() {
            if o[6 * i + j].to_bits() != w.to_bits() {
                return Err(format!(
                    "o[{i}][{j}] = {:e}, host {w:e} (x = {x:e}, m = {m})",
                    o[6 * i + j]
                ));
            }
        }
        let wl = [(x * 1e6) as i64, ((x * 1e9).abs() as u64 as i64) ^ m];
        exact(&format!("ol[{i}]"), &ol[2 * i..2 * i + 2], &wl)?;
    }
    Ok(())
}

fn int64_more(r: &Run) -> Result<(), String> {
    let mut g = Gen(46);
    let mut a: Vec<u64> = (0..N).map(|_| g.next() >> (g.u32() % 64)).collect();
    let mut b: Vec<u64> = (0..N).map(|_| g.next() >> (g.u32() % 64)).collect();
    a[..4].copy_from_slice(&[u64::MAX, 1 << 63, 0, 7]);
    b[..4].copy_from_slice(&[u64::MAX, 3, 63, 64]);
    let signed = |v: &[u64]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let (da, db, d) = (
        r.up(&signed(&a))?,
        r.up(&signed(&b))?,
        r.up(&vec![0i64; 6 * N])?,
    );
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&d).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let got: Vec<u64> = get(&d)?.into_iter().map(|x| x as u64).collect();
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            let (sx, sy) = (x as i64, y as i64);
            [
                ((u128::from(x) * u128::from(y)) >> 64) as u64,
                x.rotate_left((y & 63) as u32),
                ((sx / 7) as u64).wrapping_add((sx % 1_000_003) as u64),
                if sx < sy { x } else { y },
                ((sx >> (y & 63)) as u64).wrapping_add(u64::from(x > y)),
                x.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .wrapping_add(y ^ (y >> 29)),
            ]
        })
        .collect();
    exact("o", &got, &want)
}

fn dynamic_two(r: &Run) -> Result<(), String> {
    let (block, grid) = (128usize, 4usize);
    let n = block * grid;
    let mut g = Gen(47);
    let x: Vec<f32> = (0..n).map(|_| g.f32(-4.0, 4.0)).collect();
    let (dx, dy, ds) = (r.up(&x)?, r.up(&vec![0f32; n])?, r.up(&vec![0f32; grid])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy).push(&ds).push(0u32);
    r.launch_cfg(
        LaunchConfig {
            grid: [grid as u32, 1, 1],
            block: [block as u32, 1, 1],
            shared_bytes: (2 * block * 4) as u32,
        },
        &args,
    )?;
    let (mut want_y, mut want_s) = (Vec::new(), Vec::new());
    for c in x.chunks(block) {
        let mut red = c.to_vec();
        let mut s = block / 2;
        while s > 0 {
            for l in 0..s {
                red[l] += red[l + s];
            }
            s /= 2;
        }
        want_s.push(red[0]);
        want_y.extend((0..block).map(|l| c[(l * 7) % block] - red[0] / block as f32));
    }
    same_f32("y", &get(&dy)?, &want_y)?;
    same_f32("sums", &get(&ds)?, &want_s)
}

fn call_private(r: &Run) -> Result<(), String> {
    let mut g = Gen(48);
    let x: Vec<u32> = (0..N).map(|_| g.u32()).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0u32; N])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy).push(N as i32);
    r.launch(groups(N), BLOCK, &args)?;
    let mix = |p: &[u32], seed: u32| {
        p.iter()
            .fold(seed, |h, &v| (h ^ v).wrapping_mul(16_777_619))
    };
    let want: Vec<u32> = (0..N)
        .map(|i| {
            let buf: Vec<u32> = (0..12)
                .map(|k| x[i].wrapping_add((k as u32).wrapping_mul(x[(i + k) % N])))
                .collect();
            mix(&buf[..12 - (i & 3)], 2_166_136_261).wrapping_add(mix(&buf[2..6], 7))
        })
        .collect();
    exact("y", &get(&dy)?, &want)
}

// ---------------------------------------------------------------------------------------
// generic.cl

fn fnv(p: &[u32], seed: u32) -> u32 {
    p.iter()
        .fold(seed, |h, &v| (h ^ v).wrapping_mul(16_777_619))
}

fn generic_ptrs(r: &Run) -> Result<(), String> {
    // Blocks of 64 (the kernel's tile); 7 blocks.
    let (block, n) = (64usize, 64 * 7usize);
    let mut g = Gen(60);
    let x: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0u32; 2 * n])?);
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy);
    r.launch((n / block) as u32, block as u32, &args)?;
    let mut want = Vec::with_capacity(2 * n);
    for i in 0..n {
        let (l, base) = (i % block, i - i % block);
        let mut private: Vec<u32> = (0..8u32)
            .map(|k| x[i] ^ k.wrapping_mul(0x9e37_79b9))
            .collect();
        for (k, p) in private.iter_mut().enumerate().take(8 - (l & 3)) {
            *p = p.wrapping_mul(3).wrapping_add(k as u32);
        }
        let tile: Vec<u32> = (0..8)
            .map(|k| x[base + (l & !7) + k].wrapping_add(1))
            .collect();
        let a = fnv(&private, 1);
        let b = fnv(&tile, 2);
        let c = fnv(&x[i & !7..(i & !7) + 8], 3);
        let which = (0x2000_0000u32.wrapping_add(x[base + (l ^ 1)].wrapping_add(1)))
            ^ 0x3000_0000u32.wrapping_add(private[l & 7])
            ^ 0x1000_0000u32.wrapping_add(x[i ^ 2]);
        want.push(a ^ b.wrapping_mul(3) ^ c.wrapping_mul(5));
        want.push(which);
    }
    exact("y", &get(&dy)?, &want)
}

fn generic_atomics(r: &Run) -> Result<(), String> {
    let (block, groups) = (128usize, 5usize);
    let n = block * groups;
    let mut g = Gen(61);
    let v: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let dv = r.up(&v)?;
    let (g32, g64, gf) = (r.up(&[0u32])?, r.up(&[0i64])?, r.up(&[0u32])?);
    let (l32, l64, lf) = (
        r.up(&vec![0u32; groups])?,
        r.up(&vec![0i64; groups])?,
        r.up(&vec![0u32; groups])?,
    );
    let mut args = KernelArgs::new();
    args.push(&dv)
        .push(&g32)
        .push(&g64)
        .push(&gf)
        .push(&l32)
        .push(&l64)
        .push(&lf);
    r.launch(groups as u32, block as u32, &args)?;
    let add = |c: &[u32]| c.iter().fold(0u32, |s, &x| s.wrapping_add(x & 0xff));
    // The kernel's unsigned 64-bit maximum, as the bits of the i64 buffer.
    let max = |c: &[u32]| {
        c.iter()
            .map(|&x| u64::from(x) * 0x1_0000_0001)
            .max()
            .unwrap_or(0) as i64
    };
    // The float adds are of small integers (at most 7 * 640 in all): exact in any order.
    let fsum = |c: &[u32]| c.iter().map(|&x| (x & 7) as f32).sum::<f32>().to_bits();
    exact("g32", &get(&g32)?, &[add(&v)])?;
    exact("g64", &get(&g64)?, &[max(&v)])?;
    exact("gf", &get(&gf)?, &[fsum(&v)])?;
    let per = |f: &dyn Fn(&[u32]) -> u32| v.chunks(block).map(f).collect::<Vec<_>>();
    exact("l32", &get(&l32)?, &per(&add))?;
    exact(
        "l64",
        &get(&l64)?,
        &v.chunks(block).map(max).collect::<Vec<_>>(),
    )?;
    exact("lf", &get(&lf)?, &per(&fsum))
}

fn local_args3(r: &Run) -> Result<(), String> {
    let (block, groups) = (128usize, 3usize);
    let n = block * groups;
    let mut g = Gen(62);
    let x: Vec<i32> = (0..n).map(|_| (g.u32() % 2001) as i32 - 1000).collect();
    let (dx, dy) = (r.up(&x)?, r.up(&vec![0i32; n])?);
    let bytes = (block * 4) as u32;
    let (offsets, shared_bytes) = r.local_regions(&[(bytes, 4), (bytes, 4), (bytes, 4)])?;
    let mut args = KernelArgs::new();
    args.push(&dx).push(&dy);
    for o in offsets {
        args.push(o);
    }
    r.launch_cfg(
        LaunchConfig {
            grid: [groups as u32, 1, 1],
            block: [block as u32, 1, 1],
            shared_bytes,
        },
        &args,
    )?;
    let mut want = Vec::with_capacity(n);
    for c in x.chunks(block) {
        let sum: i32 = c.iter().sum();
        let mut b = vec![0i32; block];
        for (l, &v) in c.iter().enumerate() {
            b[(l * 5) % block] = 2 * v;
        }
        want.extend((0..block).map(|l| c[block - 1 - l] + b[l] + sum));
    }
    exact("y", &get(&dy)?, &want)
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
    Case {
        source: "control.cl",
        kernel: "collatz",
        run: collatz,
    },
    Case {
        source: "control.cl",
        kernel: "first_above",
        run: first_above,
    },
    Case {
        source: "control.cl",
        kernel: "call_poly",
        run: call_poly,
    },
    Case {
        source: "control.cl",
        kernel: "private_hist",
        run: private_hist,
    },
    Case {
        source: "local.cl",
        kernel: "reduce_sum",
        run: reduce_sum,
    },
    Case {
        source: "local.cl",
        kernel: "scan_inclusive",
        run: scan_inclusive,
    },
    Case {
        source: "local.cl",
        kernel: "matmul_tiled",
        run: matmul_tiled,
    },
    Case {
        source: "local.cl",
        kernel: "reverse_dynamic",
        run: reverse_dynamic,
    },
    Case {
        source: "local.cl",
        kernel: "atomics",
        run: atomics,
    },
    Case {
        source: "math.cl",
        kernel: "f64_div_sqrt",
        run: f64_div_sqrt,
    },
    Case {
        source: "math.cl",
        kernel: "f32_sqrt",
        run: f32_sqrt,
    },
    Case {
        source: "math.cl",
        kernel: "f16_math",
        run: f16_math,
    },
    Case {
        source: "math.cl",
        kernel: "convert_sat",
        run: convert_sat,
    },
    Case {
        source: "math.cl",
        kernel: "select_clamp",
        run: select_clamp,
    },
    Case {
        source: "math.cl",
        kernel: "vectors",
        run: vectors,
    },
    Case {
        source: "bits.cl",
        kernel: "bit_ops",
        run: bit_ops,
    },
    Case {
        source: "bits.cl",
        kernel: "int64_ops",
        run: int64_ops,
    },
    Case {
        source: "memory.cl",
        kernel: "private_sort",
        run: private_sort,
    },
    Case {
        source: "memory.cl",
        kernel: "atomics_all",
        run: atomics_all,
    },
    Case {
        source: "memory.cl",
        kernel: "struct_arg",
        run: struct_arg,
    },
    Case {
        source: "flow.cl",
        kernel: "nested_loops",
        run: nested_loops,
    },
    Case {
        source: "flow.cl",
        kernel: "calls",
        run: calls,
    },
    Case {
        source: "flow.cl",
        kernel: "geometry",
        run: geometry,
    },
    Case {
        source: "flow.cl",
        kernel: "scan_blelloch",
        run: scan_blelloch,
    },
    Case {
        source: "wave.cl",
        kernel: "row_scan",
        run: row_scan,
    },
    Case {
        source: "wave.cl",
        kernel: "quad_ops",
        run: quad_ops,
    },
    Case {
        source: "wave.cl",
        kernel: "shuffles",
        run: shuffles,
    },
    Case {
        source: "types.cl",
        kernel: "narrow_ints",
        run: narrow_ints,
    },
    Case {
        source: "types.cl",
        kernel: "half_vectors",
        run: half_vectors,
    },
    Case {
        source: "types.cl",
        kernel: "f64_math",
        run: f64_math,
    },
    Case {
        source: "types.cl",
        kernel: "int64_more",
        run: int64_more,
    },
    Case {
        source: "types.cl",
        kernel: "dynamic_two",
        run: dynamic_two,
    },
    Case {
        source: "types.cl",
        kernel: "call_private",
        run: call_private,
    },
    Case {
        source: "generic.cl",
        kernel: "generic_ptrs",
        run: generic_ptrs,
    },
    Case {
        source: "generic.cl",
        kernel: "generic_atomics",
        run: generic_atomics,
    },
    Case {
        source: "generic.cl",
        kernel: "local_args3",
        run: local_args3,
    },
];

/// Cases known not to run yet, as `(kernel, target, why)` (`"*"` for every target); the
/// test fails if one of them starts passing (so the list shrinks) or if any other case
/// fails.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[
    ("generic_ptrs", "gfx90a", SOP2_15),
    ("generic_ptrs", "gfx942", SCRATCH_1E),
    ("generic_ptrs", "gfx1100", SWAPPC),
    ("local_args3", "gfx908", VOP2_29),
    ("local_args3", "gfx90a", VOP2_29),
    ("local_args3", "gfx942", VOP2_29),
    ("local_args3", "gfx1100", VOP3_305),
];

const SOP2_15: &str = "SOP2 opcode 0x15 (gfx9) is not in the ISA model";
const SCRATCH_1E: &str =
    "scratch opcode 0x1e (gfx942 scratch_store_dwordx3) is not in the ISA model";
const SWAPPC: &str = "s_swappc_b64 to a callee address the emulator does not find among the \
     decoded instructions (a gfx11 call sequence not yet followed)";
const VOP2_29: &str = "VOP2 opcode 0x29 (gfx9 v_mul_lo_u16) is not in the ISA model";
const VOP3_305: &str = "VOP3 opcode 0x305 (gfx11) is not in the ISA model";

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
                let static_lds = |kernel: &str| {
                    CodeObject::parse(&elf)
                        .ok()
                        .and_then(|co| {
                            co.kernels
                                .iter()
                                .find(|k| k.metadata.name == kernel)
                                .map(|k| k.descriptor.group_segment_fixed_size)
                        })
                        .unwrap_or(0)
                };
                let module = dev.load_module(&ModuleImage::CodeObject(elf.clone()));
                for case in CASES.iter().filter(|c| c.source == *source) {
                    let result = module.as_ref().map_err(|e| e.to_string()).and_then(|m| {
                        (case.run)(&Run {
                            dev: &dev,
                            module: m,
                            kernel: case.kernel,
                            lanes: t.wave_size() as usize,
                            static_lds: static_lds(case.kernel),
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
