//! One-byte global loads and stores of the kernel language on every emulated AMD target
//! and in the interpreter: a byte read as u32 is zero-extended, as i32 sign-extended,
//! and a one-byte store writes only its byte (the neighbouring bytes, written by other
//! work-items, keep their values).

mod common;

use common::host::TARGETS;
use rocm_core::DType;
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::{amdgpu, Access, Builder, Cache, KernelDef, Scalar, Type};

const N: u32 = 203;

/// u[i] = x[i] (zero-extended), s[i] = x[i] (sign-extended), y[i] = x[i] + 1 (a byte),
/// for i < n.
fn bytes_kernel(target: &rocm_core::Target) -> KernelDef {
    let mut k = Builder::new("bytes", target).unwrap();
    let x = k.ptr_dtype("x", DType::U8, Scalar::U32, Access::Read);
    let u = k.ptr("u", Scalar::U32, Access::Write);
    let s = k.ptr("s", Scalar::I32, Access::Write);
    let y = k.ptr_dtype("y", DType::U8, Scalar::U32, Access::Write);
    let n = k.param("n", Scalar::U32);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let b = k.convert(i, Scalar::U64);
        let zx = k.load_with(x, b, Type::U32, 1, 1, Cache::Default);
        let sx = k.load_with(x, b, Type::I32, 1, 1, Cache::ReadOnly);
        let o = k.at(u, i);
        k.store(u, o, zx);
        k.store(s, o, sx);
        let next = k.add(zx, 1u32);
        k.store_with(y, b, next, 1, 1, Cache::Default);
    });
    k.finish().unwrap()
}

#[test]
fn byte_accesses_extend_and_store_one_byte() {
    let x: Vec<u8> = (0..N).map(|i| (i * 37 + 11) as u8).collect();
    let want_u: Vec<u32> = x.iter().map(|&b| u32::from(b)).collect();
    let want_s: Vec<i32> = x.iter().map(|&b| i32::from(b as i8)).collect();
    let want_y: Vec<u8> = x.iter().map(|&b| b.wrapping_add(1)).collect();
    let args = || {
        vec![
            Arg::buffer(&x),
            Arg::buffer(&vec![0u32; N as usize]),
            Arg::buffer(&vec![0i32; N as usize]),
            Arg::buffer(&vec![0u8; N as usize]),
            Arg::u32(N),
        ]
    };
    let check = |what: &str, got: &[Arg]| {
        assert_eq!(got[1].values::<u32>(), want_u, "{what}: zero-extended");
        assert_eq!(got[2].values::<i32>(), want_s, "{what}: sign-extended");
        assert_eq!(got[3].values::<u8>(), want_y, "{what}: byte stores");
    };
    let mut reference = args();
    let def = bytes_kernel(&"gfx90a".parse().unwrap());
    interp::run(&def, [4, 1, 1], [64, 1, 1], &mut reference).unwrap();
    check("interpreter", &reference);
    for t in TARGETS {
        let target = t.name().parse().unwrap();
        let def = bytes_kernel(&target);
        let k = amdgpu::lower(&def).unwrap();
        let mut got = args();
        common::lang::run(&common::emu(t), &def, &k, N.div_ceil(64), 64, &mut got);
        check(&format!("emu:{t}"), &got);
    }
}
