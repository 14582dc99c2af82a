//! The device-to-device copy (`rocm_kernels::copy`, written in the kernel language) on
//! every emulated AMD target through the executor, and its PTX in the PTX interpreter
//! through the same plans: lengths 0, 1, 15, 16, 17, odd and several tiles, buffers at
//! every byte offset modulo 16 (so each unit kernel runs), random lengths, offsets and
//! data by proptest. A copy is exact: every destination byte equals its source byte,
//! and no byte outside the destination view changes.

mod common;
#[allow(dead_code)]
mod ptx_sim;

use common::host::TARGETS;
use proptest::prelude::*;
use ptx_sim::plan::View;
use rocm_core::{Device, Target};
use rocm_kernels::copy::{self, Problem};

/// Lengths in bytes: the edges of a vector and of a tile, odd, several tiles.
const LENGTHS: [usize; 9] = [0, 1, 15, 16, 17, 255, 4099, 16 * 1024, 3 * 16 * 1024 + 13];
/// Byte offsets of the views in their buffers: aligned, and each unit kernel's case.
const OFFSETS: [(usize, usize); 6] = [(0, 0), (8, 8), (4, 12), (2, 6), (1, 1), (0, 3)];
/// Bytes before and after each view, which must stay untouched.
const GUARD: usize = 32;
const SENTINEL: u8 = 0xEE;

fn source(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// The destination buffer expected after copying `src[so..so+len]` to `dst[do_..]`.
fn expected(src: &[u8], so: usize, do_: usize, len: usize) -> Vec<u8> {
    let mut want = vec![SENTINEL; do_ + len + GUARD];
    want[do_..do_ + len].copy_from_slice(&src[so..so + len]);
    want
}

/// Copies `len` bytes at source offset `so` to destination offset `do_` on `dev`.
fn on_device(dev: &Device, len: usize, so: usize, do_: usize, seed: u64) {
    let src_host = source(so + len + GUARD, seed);
    let src = dev.upload(&src_host).unwrap();
    let mut dst = dev.upload(&vec![SENTINEL; do_ + len + GUARD]).unwrap();
    copy::copy(
        dev.default_stream(),
        &mut dst.slice_mut(do_..do_ + len).unwrap(),
        &src.slice(so..so + len).unwrap(),
    )
    .unwrap_or_else(|e| panic!("{}: {len} bytes at {so}->{do_}: {e}", dev.id()));
    let got = dst.to_vec().unwrap();
    assert!(
        got == expected(&src_host, so, do_, len),
        "{}: {len} bytes at {so}->{do_}: first wrong byte at {:?}",
        dev.id(),
        got.iter()
            .zip(&expected(&src_host, so, do_, len))
            .position(|(a, b)| a != b)
    );
}

/// The same copy planned for `target` and run in the PTX interpreter.
fn in_ptx_sim(target: &Target, len: usize, so: usize, do_: usize, seed: u64) {
    let src_host = source(so + len + GUARD, seed);
    let mut mem = ptx_sim::Memory::default();
    let src = mem.alloc(src_host.clone());
    let dst = mem.alloc(vec![SENTINEL; do_ + len + GUARD]);
    let views = [
        View {
            address: dst + do_ as u64,
            bytes: len as u64,
        },
        View {
            address: src + so as u64,
            bytes: len as u64,
        },
    ];
    let problem = Problem {
        bytes: len as u64,
        dst_address: views[0].address,
        src_address: views[1].address,
    };
    let plan = copy::plan(&problem, target).unwrap();
    ptx_sim::plan::run(&plan, target, &views, &mut mem);
    assert!(
        mem.bytes(dst) == expected(&src_host, so, do_, len).as_slice(),
        "{target}: {len} bytes at {so}->{do_}"
    );
}

#[test]
fn copies_every_length_and_offset_on_every_emulated_target() {
    for t in TARGETS {
        let dev = common::emu(t);
        for len in LENGTHS {
            for (so, do_) in OFFSETS {
                on_device(&dev, len, so, do_, len as u64 + 7);
            }
        }
    }
}

#[test]
fn copies_every_length_and_offset_in_the_ptx_interpreter() {
    for t in ["sm_80", "sm_90"] {
        let target: Target = t.parse().unwrap();
        for len in LENGTHS {
            for (so, do_) in OFFSETS {
                in_ptx_sim(&target, len, so, do_, len as u64 + 7);
            }
        }
    }
}

/// Elements wider than a byte: f32 and f64 views at element offsets.
#[test]
fn copies_typed_views() {
    let dev = common::emu(rocm_core::isa::amdgpu::IsaTarget::Gfx942);
    for n in [1usize, 3, 4, 1025] {
        for off in [0usize, 1, 2] {
            let x: Vec<f64> = (0..n + off).map(|i| i as f64 * 0.5 - 3.0).collect();
            let src = dev.upload(&x).unwrap();
            let mut dst = dev.alloc::<f64>(n + off).unwrap();
            copy::copy(
                dev.default_stream(),
                &mut dst.slice_mut(off..).unwrap(),
                &src.slice(..n).unwrap(),
            )
            .unwrap();
            let got = dst.to_vec().unwrap();
            assert_eq!(&got[off..], &x[..n], "f64 n {n} offset {off}");
            assert!(got[..off].iter().all(|&v| v == 0.0));
            let y: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let src = dev.upload(&y).unwrap();
            let mut dst = dev.alloc::<f32>(n).unwrap();
            copy::copy(
                dev.default_stream(),
                &mut dst.as_slice_mut(),
                &src.slice(off..off + n).unwrap(),
            )
            .unwrap();
            assert_eq!(
                dst.to_vec().unwrap(),
                &y[off..off + n],
                "f32 n {n} offset {off}"
            );
        }
    }
}

/// Views on another device, and of different lengths, are errors before any launch.
#[test]
fn foreign_and_mismatched_views_are_errors() {
    let a = common::emu(rocm_core::isa::amdgpu::IsaTarget::Gfx90a);
    let b = common::emu(rocm_core::isa::amdgpu::IsaTarget::Gfx1100);
    let src = b.upload(&[1u8; 64]).unwrap();
    let mut dst = a.alloc::<u8>(64).unwrap();
    let e = copy::copy(a.default_stream(), &mut dst.as_slice_mut(), &src.as_slice()).unwrap_err();
    assert!(matches!(e, rocm_core::Error::DeviceMismatch { .. }), "{e}");
    let src = a.upload(&[1u8; 63]).unwrap();
    let e = copy::copy(a.default_stream(), &mut dst.as_slice_mut(), &src.as_slice()).unwrap_err();
    assert!(matches!(e, rocm_core::Error::InvalidArgument { .. }), "{e}");
    assert_eq!(dst.to_vec().unwrap(), vec![0u8; 64]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_copies_agree_on_emu_and_the_ptx_interpreter(
        len in 0usize..6000,
        so in 0usize..48,
        do_ in 0usize..48,
        seed in any::<u64>(),
        target in 0usize..4,
    ) {
        on_device(&common::emu(TARGETS[target]), len, so, do_, seed);
        in_ptx_sim(&"sm_90".parse().unwrap(), len, so, do_, seed);
    }
}
