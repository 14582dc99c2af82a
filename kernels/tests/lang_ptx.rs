//! The language's PTX lowering (`rocm_kernels::lang::ptx`): every example kernel, the
//! Level 1 port and a kernel using every operation declare exactly their signature's `.param` list and
//! assemble with ptxas for sm_80, sm_90 and sm_90a without warnings, spills or stack;
//! and every example runs in the PTX interpreter
//! (`ptx_sim`) on the same random inputs as the language's CPU interpreter, with the
//! same output bits.
//!
//! Bitwise equality holds because each kernel is a fixed sequence of correctly rounded
//! operations in both, and the wave reductions follow the IR's butterfly order. The
//! one approximation (`ex2.approx.f32` in the softmax) is computed exactly by the PTX
//! interpreter, so it too matches here; on a GPU it is within the IR's documented
//! 2 ulp, which `lang_interp`'s softmax bound covers.

#[allow(dead_code)]
mod ptx_sim;

use rocm_core::{DType, Target};
use rocm_kernels::lang::interp::{run, Arg};
use rocm_kernels::lang::{
    examples, ptx, Access, AtomicOp, Builder, Cache, KernelDef, Reduce, Rounding, Scalar, Scope,
    Shuffle, Type,
};
use rocm_kernels::level1::{L1Op, Level1Params};
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

const ARCHS: [&str; 3] = ["sm_80", "sm_90", "sm_90a"];

/// A kernel that uses every operation of the IR at least once.
fn every_op(target: &Target) -> KernelDef {
    let mut k = Builder::new("every_op", target).unwrap();
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let d = k.ptr("d", Scalar::F64, Access::ReadWrite);
    let h = k.ptr("h", Scalar::F16, Access::ReadWrite);
    let u = k.ptr("u", Scalar::U32, Access::ReadWrite);
    let q = k.ptr("q", Scalar::U64, Access::ReadWrite);
    let n = k.param("n", Scalar::U32);
    let s = k.param("s", Scalar::I64);
    let sh = k.shared("sh", Scalar::U32, 64);
    let t = k.thread_id();
    let i = k.global_id();
    let off = k.at(x, i);
    let v4 = k.load_with(x, off, Type::vec(Scalar::F32, 4), 16, 8, Cache::ReadOnly);
    let lanes = k.unpack(v4);
    let f = lanes[0];
    let ops = [
        k.neg(f),
        k.abs(f),
        k.sqrt(f),
        k.rcp(f),
        k.rsqrt(f),
        k.exp2(f),
        k.log2(f),
        k.div(f, lanes[1]),
        k.min(f, lanes[2]),
        k.max(f, lanes[3]),
        k.fma(f, 2.0, 1.0),
        k.sub(f, 1.5),
    ];
    let mut acc = ops[0];
    for o in &ops[1..] {
        acc = k.add(acc, *o);
    }
    let v2 = k.pack(&[acc, f]);
    let v2b = k.mul(v2, v2);
    let as_u64 = k.bitcast(v2b, Type::U64);
    let back = k.bitcast(as_u64, Type::vec(Scalar::F32, 2));
    let dval = k.convert(lanes[1], Scalar::F64);
    let dval = k.rsqrt(dval);
    let doff = k.at(d, i);
    k.store_with(d, doff, dval, 8, 8, Cache::Streaming);
    let halves: Vec<_> = [
        Rounding::Nearest,
        Rounding::Zero,
        Rounding::Down,
        Rounding::Up,
    ]
    .iter()
    .map(|&r| k.convert_rounded(acc, Scalar::F16, r))
    .collect();
    let hv = k.pack(&halves);
    let hoff = k.at(h, i);
    let hoff = k.mul(hoff, 4u64);
    k.store(h, hoff, hv);
    let hload = k.load_vec(h, hoff, 2);
    let hword = k.bitcast(hload, Type::U32);
    let bf = k.convert_rounded(acc, Scalar::Bf16, Rounding::Zero);
    let bf32 = k.convert(bf, Scalar::F32);
    let ints = [
        k.convert_rounded(bf32, Scalar::I32, Rounding::Down),
        k.convert_rounded(f, Scalar::I32, Rounding::Up),
        k.convert_rounded(f, Scalar::I32, Rounding::Zero),
        k.convert(f, Scalar::I32),
    ];
    let mut iacc = ints[0];
    for v in &ints[1..] {
        iacc = k.add(iacc, *v);
    }
    let three = k.lit(3i32);
    let idiv = k.div(iacc, three);
    let irem = k.rem(iacc, 7i32);
    let ihi = k.mul_hi(idiv, irem);
    let ishr = k.shr(ihi, 3u32);
    let iabs = k.abs(ishr);
    let iw = k.mul_wide(iabs, -5i32);
    let w = k.add(iw, s);
    let w = k.bitcast(w, Type::U64);
    let e = k.extract(back, 1);
    let ebits = k.bitcast(e, Type::U32);
    let uv = k.xor(hword, ebits);
    let uv = k.or(uv, t);
    let uv = k.and(uv, 0xFFFF_FF0Fu32);
    let uv = k.shl(uv, 2u32);
    let uv = k.not(uv);
    let ud = k.div(uv, n);
    let ur = k.rem(uv, 13u32);
    let uv = k.fma(ud, ur, 7u32);
    let p = k.lt(uv, n);
    let pq = k.ne(p, true);
    let ps = k.select(pq, p, false);
    let sel = k.select(ps, uv, t);
    let shoff = k.at(sh, t);
    k.store(sh, shoff, sel);
    k.barrier();
    let lane = k.lane_id();
    let other = k.xor(lane, 1u32);
    let wave_base = k.sub(t, lane);
    let other = k.add(wave_base, other);
    let ooff = k.at(sh, other);
    let got = k.load(sh, ooff);
    let shuffles = [
        k.shuffle(got, Shuffle::Idx(lane)),
        k.shuffle(got, Shuffle::Up(1)),
        k.shuffle(got, Shuffle::Down(2)),
        k.shuffle(got, Shuffle::Xor(4)),
    ];
    let mut sacc = shuffles[0];
    for v in &shuffles[1..] {
        sacc = k.add(sacc, *v);
    }
    let red = k.wave_reduce(Reduce::Max, sacc);
    let dred = k.wave_reduce(Reduce::Add, dval);
    let dsh = k.shuffle(dred, Shuffle::Xor(1));
    let ballot = k.ballot(p);
    let any = k.any(p);
    let all = k.all(p);
    let both = k.and(any, all);
    let uoff = k.at(u, i);
    let old = k.atomic(AtomicOp::Add, u, uoff, red);
    let _ = k.atomic(AtomicOp::Min, u, uoff, old);
    let _ = k.atomic(AtomicOp::Max, u, uoff, old);
    let _ = k.atomic(AtomicOp::Exchange, u, uoff, old);
    let _ = k.compare_swap(u, uoff, old, red);
    let _ = k.atomic(AtomicOp::Add, d, doff, dsh);
    let _ = k.atomic(AtomicOp::Add, sh, shoff, red);
    let qoff = k.at(q, i);
    let qv = k.add(ballot, w);
    let _ = k.compare_swap(q, qoff, qv, ballot);
    let narrow = k.load_with(u, uoff, Type::I32, 1, 1, Cache::Default);
    let nu = k.bitcast(narrow, Type::U32);
    k.store_with(u, uoff, nu, 2, 2, Cache::Default);
    k.fence(Scope::Device);
    k.if_else(
        both,
        |k| k.store(q, qoff, qv),
        |k| {
            let c = k.var(0u32);
            k.loop_(|k| {
                let cv = k.get(c);
                let done = k.ge(cv, lane);
                k.break_if(done);
                let next = k.add(cv, 1u32);
                k.set(c, next);
                let odd = k.eq(cv, 5u32);
                k.continue_if(odd);
                k.fence(Scope::Workgroup);
            });
            let cv = k.get(c);
            k.store(u, uoff, cv);
        },
    );
    k.finish().unwrap()
}

#[test]
fn every_kernel_assembles_without_spills() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    for arch in ARCHS {
        let target: Target = arch.parse().unwrap();
        let mut kernels = examples::all(&target).unwrap();
        kernels.push(every_op(&target));
        for (op, dtype, contiguous) in [
            (L1Op::Axpby { read_y: true }, DType::F64, true),
            (L1Op::Axpby { read_y: true }, DType::F32, true),
            (L1Op::Copy, DType::F32, false),
        ] {
            let p = Level1Params::fallback(op, dtype, contiguous);
            kernels.push(rocm_kernels::lang::level1::kernel(&p, &target).unwrap());
        }
        for k in &kernels {
            let text = ptx::lower(k).unwrap();
            k.signature()
                .check_ptx(&text)
                .unwrap_or_else(|e| panic!("{arch}: {e}"));
            let report = ptxas
                .compile(&text, &target)
                .unwrap_or_else(|e| panic!("{arch} {}: {e}\n{text}", k.name));
            assert!(
                report.warnings.is_empty(),
                "{arch} {}: {:?}",
                k.name,
                report.warnings
            );
            let r = report.kernel(&k.name).unwrap();
            assert_eq!(
                (r.spill_loads, r.spill_stores, r.stack_bytes),
                (0, 0, 0),
                "{arch} {}",
                k.name
            );
            assert_eq!(r.shared_bytes, k.shared_bytes(), "{arch} {}", k.name);
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

/// Runs `k` in the language interpreter and, lowered, in the PTX interpreter, on the
/// same arguments; every buffer must come back with the same bytes.
fn same_in_both(k: &KernelDef, grid: u32, block: u32, args: Vec<Arg>) {
    let mut reference = args.clone();
    run(k, [grid, 1, 1], [block, 1, 1], &mut reference).unwrap_or_else(|e| panic!("{e}"));
    let text = ptx::lower(k).unwrap();
    let kernel = ptx_sim::Kernel::parse(&text);
    let mut mem = ptx_sim::Memory::default();
    let params: Vec<u64> = args
        .iter()
        .map(|a| match a {
            Arg::Scalar(v) => *v,
            Arg::Buffer(b) => mem.alloc(b.clone()),
        })
        .collect();
    kernel.run([grid, 1, 1], block, &params, &mut mem);
    for (i, (a, p)) in reference.iter().zip(&params).enumerate() {
        if let Arg::Buffer(want) = a {
            let got = mem.bytes(*p);
            let bad = (0..want.len()).find(|&b| got[b] != want[b]);
            assert!(
                bad.is_none(),
                "{}: argument {i} `{}` differs first at byte {:?}",
                k.name,
                k.signature().params[i].name,
                bad
            );
        }
    }
}

fn floats<T: rocm_kernels::lang::interp::Element>(
    rng: &mut Rng,
    n: usize,
    f: impl Fn(f64) -> T,
) -> Arg {
    Arg::buffer(&(0..n).map(|_| f(rng.next())).collect::<Vec<T>>())
}

#[test]
fn examples_match_the_interpreter_bit_for_bit() {
    let mut rng = Rng(11);
    let t: Target = "sm_90".parse().unwrap();
    let n = 700usize;
    let n32 = Arg::u32(n as u32);

    let k = examples::vector_add(&t).unwrap();
    let args = vec![
        floats(&mut rng, n, |v| v as f32),
        floats(&mut rng, n, |v| v as f32),
        Arg::buffer(&vec![0f32; n]),
        n32.clone(),
    ];
    same_in_both(&k, n.div_ceil(128) as u32, 128, args);

    let k = examples::axpy(&t).unwrap();
    let args = vec![
        n32.clone(),
        Arg::f64(rng.next()),
        floats(&mut rng, n, |v| v),
        floats(&mut rng, n, |v| v),
    ];
    same_in_both(&k, 2, 96, args);

    let k = examples::convert_f16(&t).unwrap();
    let args = vec![
        n32.clone(),
        floats(&mut rng, n, |v| (v * 1e5) as f32),
        Arg::buffer(&vec![0u16; n]),
    ];
    same_in_both(&k, n.div_ceil(64) as u32, 64, args);

    for elem in [Scalar::F32, Scalar::F64] {
        let k = examples::workgroup_sum(&t, elem).unwrap();
        let x = match elem {
            Scalar::F32 => floats(&mut rng, n, |v| v as f32),
            _ => floats(&mut rng, n, |v| v),
        };
        let partials = Arg::Buffer(vec![0; 4 * elem.bytes() as usize]);
        same_in_both(&k, 4, 128, vec![n32.clone(), x, partials]);
    }

    let k = examples::divergent(&t).unwrap();
    let args = vec![
        n32.clone(),
        floats(&mut rng, n, |v| v as f32),
        Arg::buffer(&vec![0f32; n]),
        Arg::buffer(&vec![0u32; n]),
    ];
    same_in_both(&k, n.div_ceil(64) as u32, 64, args);

    let k = examples::varying_loop(&t).unwrap();
    let counts = floats(&mut rng, n, |v| ((v + 1.0) * 20.0) as u32);
    let args = vec![
        n32.clone(),
        counts,
        floats(&mut rng, n, |v| v as f32),
        Arg::buffer(&vec![0f32; n]),
    ];
    same_in_both(&k, n.div_ceil(64) as u32, 64, args);

    let k = examples::wave_ops(&t).unwrap();
    let x = floats(&mut rng, 256, |v| ((v + 1.0) * 2147483648.0) as u32);
    let args = vec![
        x,
        Arg::buffer(&[0u32; 4 * 256]),
        Arg::buffer(&[0u64; 3 * 256]),
    ];
    same_in_both(&k, 2, 128, args);

    let k = examples::softmax_row(&t).unwrap();
    for (rows, cols, block) in [(2, 300, 128), (3, 31, 64)] {
        let args = vec![
            Arg::u32(cols),
            floats(&mut rng, rows * cols as usize, |v| (v * 3.0) as f32),
            Arg::buffer(&vec![0f32; rows * cols as usize]),
        ];
        same_in_both(&k, rows as u32, block, args);
    }
}
