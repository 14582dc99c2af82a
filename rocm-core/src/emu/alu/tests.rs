//! Hand-computed cases for the tricky ops and randomized identities against independent
//! references (`half`, u128/i128 arithmetic, f64).

use super::float::{bf16_from_f32, f16_from_f32, f16_round, Round};
use super::*;
use crate::isa::amdgpu::{Form, Mods, Op, Operand, Ty};
use proptest::prelude::*;

fn mods_for(op: Op) -> Mods {
    match op.info().form {
        Form::Vop3p => Mods::vop3p(),
        _ => Mods::default(),
    }
}

fn vm(op: Op, mods: Mods, src: [u64; 3]) -> AluOut {
    valu(op, &mods, src, false).unwrap_or_else(|e| panic!("{op:?}: {e}"))
}

fn v(op: Op, src: [u64; 3]) -> u64 {
    vm(op, mods_for(op), src).value
}

fn vf(op: Op, src: [u64; 3]) -> Option<bool> {
    vm(op, mods_for(op), src).flag
}

fn sc(op: Op, a: u64, b: u64, scc: bool) -> AluOut {
    salu(op, [a, b], scc).unwrap_or_else(|e| panic!("{op:?}: {e}"))
}

fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

fn is_alu_form(op: Op) -> bool {
    matches!(
        op.info().form,
        Form::Sop1
            | Form::Sop2
            | Form::Sopk
            | Form::Sopc
            | Form::Vop1
            | Form::Vop2
            | Form::Vopc
            | Form::Vop3
            | Form::Vop3p
    )
}

fn is_scalar(op: Op) -> bool {
    matches!(
        op.info().form,
        Form::Sop1 | Form::Sop2 | Form::Sopk | Form::Sopc
    )
}

#[test]
fn every_alu_op_is_implemented_or_left_to_the_interpreter() {
    let src = [0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321, 0x3f80_0000];
    let mut implemented = 0;
    for op in Op::all().filter(|&op| is_alu_form(op)) {
        let listed = INTERPRETER_OPS.contains(&op);
        let res = if is_scalar(op) {
            salu(op, [src[0], src[1]], true)
        } else {
            valu(op, &mods_for(op), src, true)
        };
        match (listed, res) {
            (false, Ok(_)) => implemented += 1,
            (true, Err(_)) => {}
            (false, Err(e)) => panic!("{op:?} is neither implemented nor listed: {e}"),
            (true, Ok(_)) => panic!("{op:?} is implemented and also in INTERPRETER_OPS"),
        }
    }
    for op in INTERPRETER_OPS {
        assert!(is_alu_form(*op), "{op:?} listed but not an ALU form");
    }
    assert!(implemented > 150, "only {implemented} ops implemented");
}

#[test]
fn non_alu_forms_are_errors() {
    for op in Op::all().filter(|&op| !is_alu_form(op)) {
        assert!(valu(op, &Mods::default(), [0; 3], false).is_err(), "{op:?}");
        assert!(salu(op, [0; 2], false).is_err(), "{op:?}");
    }
}

#[test]
fn perm_selectors() {
    let (s0, s1) = (0x8899_aabb_u64, 0x1122_3344_u64);
    // Bytes of {s0, s1}: 44 33 22 11 bb aa 99 88 (index 0..7).
    assert_eq!(v(Op::VPermB32, [s0, s1, 0x0c07_0004]), 0x0088_44bb);
    // 8/10/11: sign of bytes 1 (0x33), 5 (0xaa), 7 (0x88); 13 → 0xff.
    assert_eq!(v(Op::VPermB32, [s0, s1, 0x0d0b_0a08]), 0xffff_ff00);
    // 9: sign of byte 3 (0x11) → 0; 255 → 0xff.
    assert_eq!(v(Op::VPermB32, [s0, s1, 0xff09_0506]), 0xff00_aa99);
    // LLVM's pack of two low halves: {s0.lo16, s1.lo16}.
    assert_eq!(v(Op::VPermB32, [s0, s1, 0x0504_0100]), 0xaabb_3344);
}

#[test]
fn alignbit_and_bfe() {
    let (hi, lo) = (0x1234_5678, 0x9abc_def0);
    assert_eq!(v(Op::VAlignbitB32, [hi, lo, 8]), 0x789a_bcde);
    assert_eq!(v(Op::VAlignbitB32, [hi, lo, 0]), 0x9abc_def0);
    assert_eq!(v(Op::VAlignbitB32, [hi, lo, 40]), 0x789a_bcde); // amount mod 32
    assert_eq!(v(Op::VAlignbitB32, [hi, lo, 31]), 0x2468_acf1);
    assert_eq!(v(Op::VBfeU32, [0xdead_beef, 8, 12]), 0xdbe);
    assert_eq!(v(Op::VBfeU32, [0xdead_beef, 8, 0]), 0);
    assert_eq!(v(Op::VBfeU32, [0xdead_beef, 28, 8]), 0xd);
    assert_eq!(v(Op::VBfeU32, [0xdead_beef, 0, 31]), 0x5ead_beef);
    assert_eq!(
        sc(Op::SBfeU32, 0xdead_beef, 12 << 16 | 8, false),
        AluOut::with_flag(0xdbe, true)
    );
    assert_eq!(
        sc(Op::SBfeU32, 0xdead_beef, 40 << 16 | 4, false).value,
        0x0dea_dbee
    );
    assert_eq!(
        sc(Op::SBfeU32, 0xdead_beef, 4, true),
        AluOut::with_flag(0, false)
    );
}

#[test]
fn vector_carries() {
    let out = |op, a, b, cin| valu(op, &Mods::default(), [a, b, 0], cin).unwrap();
    assert_eq!(
        out(Op::VAddCoU32, 0xffff_ffff, 2, false),
        AluOut::with_flag(1, true)
    );
    assert_eq!(out(Op::VAddCoU32, 5, 2, false), AluOut::with_flag(7, false));
    assert_eq!(
        out(Op::VSubCoU32, 1, 2, false),
        AluOut::with_flag(0xffff_ffff, true)
    );
    assert_eq!(
        out(Op::VSubrevCoU32, 1, 2, false),
        AluOut::with_flag(1, false)
    );
    assert_eq!(
        out(Op::VAddcCoU32, 0xffff_ffff, 0, true),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        out(Op::VAddcCoU32, 0xffff_fffe, 0, true),
        AluOut::with_flag(0xffff_ffff, false)
    );
    assert_eq!(
        out(Op::VAddCoU32Vop3, 0x8000_0000, 0x8000_0000, false),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        out(Op::VSubCoU32Vop3, 0, 1, false),
        AluOut::with_flag(0xffff_ffff, true)
    );
    // Clamp saturates the value; the flag still reports the wrap.
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    assert_eq!(
        vm(Op::VAddCoU32, clamp, [0xffff_ffff, 2, 0]),
        AluOut::with_flag(0xffff_ffff, true)
    );
    assert_eq!(
        vm(Op::VSubCoU32, clamp, [1, 2, 0]),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        vm(Op::VAddU32, clamp, [0xffff_fff0, 0x20, 0]).value,
        0xffff_ffff
    );
    assert_eq!(vm(Op::VSubU32, clamp, [3, 5, 0]).value, 0);
    assert_eq!(vm(Op::VSubrevU32, clamp, [5, 3, 0]).value, 0);
    assert_eq!(vm(Op::VSubrevU32, clamp, [3, 5, 0]).value, 2);
    for op in [
        Op::VMulLoU32,
        Op::VMinI32,
        Op::VAndB32,
        Op::VAdd3U32,
        Op::VCvtPkrtzF16F32,
    ] {
        assert!(valu(op, &clamp, [1, 2, 0], false).is_err(), "{op:?}");
    }
}

#[test]
fn mad_u64_u32_carry() {
    let m = u64::from(u32::MAX);
    let out = vm(Op::VMadU64U32, Mods::default(), [m, m, u64::MAX]);
    // (2^32-1)^2 + 2^64-1 = 2^65 - 2^33.
    assert_eq!(out, AluOut::with_flag(0xffff_fffe_0000_0000, true));
    let out = vm(Op::VMadU64U32, Mods::default(), [m, m, 0x1_ffff_fffe]);
    // (2^32-1)^2 + 2^33 - 2 = 2^64 - 1, no carry.
    assert_eq!(out, AluOut::with_flag(u64::MAX, false));
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    assert_eq!(vm(Op::VMadU64U32, clamp, [m, m, u64::MAX]).value, u64::MAX);
}

#[test]
fn scalar_flags() {
    assert_eq!(
        sc(Op::SAddU32, 0xffff_ffff, 1, false),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        sc(Op::SAddcU32, 0xffff_fffe, 1, true),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        sc(Op::SAddcU32, 0xffff_fffe, 0, true),
        AluOut::with_flag(0xffff_ffff, false)
    );
    assert_eq!(
        sc(Op::SSubU32, 1, 2, false),
        AluOut::with_flag(0xffff_ffff, true)
    );
    assert_eq!(
        sc(Op::SSubbU32, 0, 0, true),
        AluOut::with_flag(0xffff_ffff, true)
    );
    assert_eq!(sc(Op::SSubbU32, 5, 4, true), AluOut::with_flag(0, false));
    assert_eq!(
        sc(Op::SAddI32, 0x7fff_ffff, 1, false),
        AluOut::with_flag(0x8000_0000, true)
    );
    assert_eq!(
        sc(Op::SAddI32, 0xffff_ffff, 1, false),
        AluOut::with_flag(0, false)
    );
    assert_eq!(
        sc(Op::SSubI32, 0x8000_0000, 1, false),
        AluOut::with_flag(0x7fff_ffff, true)
    );
    assert_eq!(
        sc(Op::SMinI32, 0xffff_ffff, 1, false),
        AluOut::with_flag(0xffff_ffff, true)
    );
    assert_eq!(
        sc(Op::SMaxU32, 1, 0xffff_ffff, true),
        AluOut::with_flag(0xffff_ffff, false)
    );
    assert_eq!(sc(Op::SFf1I32B32, 0, 0, true), AluOut::plain(0xffff_ffff));
    assert_eq!(sc(Op::SFf1I32B32, 0x80, 0, true), AluOut::plain(7));
    assert_eq!(
        sc(Op::SBcnt1I32B32, 0xf0f0, 0, false),
        AluOut::with_flag(8, true)
    );
    assert_eq!(sc(Op::SBrevB32, 1, 0, false), AluOut::plain(0x8000_0000));
    assert_eq!(
        sc(Op::SNotB32, 0xffff_ffff, 0, true),
        AluOut::with_flag(0, false)
    );
    assert_eq!(
        sc(Op::SCselectB64, 1 << 40, 2, true),
        AluOut::plain(1 << 40)
    );
    assert_eq!(sc(Op::SCselectB32, 1, 2, false), AluOut::plain(2));
    assert_eq!(
        sc(Op::SAndn2B64, u64::MAX, 1 << 63, false),
        AluOut::with_flag(u64::MAX >> 1, true)
    );
    assert_eq!(
        sc(Op::SAshrI64, 1 << 63, 63, false),
        AluOut::with_flag(u64::MAX, true)
    );
    assert_eq!(
        sc(Op::SLshrB64, 1 << 63, 64 + 63, false),
        AluOut::with_flag(1, true)
    );
    assert_eq!(
        sc(Op::SMulHiU32, 0xffff_ffff, 0xffff_ffff, false),
        AluOut::plain(0xffff_fffe)
    );
    assert_eq!(
        sc(Op::SCmpLtI32, 0xffff_ffff, 0, false),
        AluOut::with_flag(0, true)
    );
    assert_eq!(
        sc(Op::SCmpLtU32, 0xffff_ffff, 0, true),
        AluOut::with_flag(0, false)
    );
    assert_eq!(
        sc(Op::SCmpLgU64, 1 << 32, 0, false),
        AluOut::with_flag(0, true)
    );
}

#[test]
fn sopk_immediates() {
    // Raw and sign-extended immediates read the same.
    assert_eq!(
        sc(Op::SMovkI32, 0xfffe, 0, false),
        AluOut::plain(0xffff_fffe)
    );
    assert_eq!(
        sc(Op::SMovkI32, -2i32 as u64, 0, false),
        AluOut::plain(0xffff_fffe)
    );
    assert_eq!(
        sc(Op::SAddkI32, 0xffff, 10, false),
        AluOut::with_flag(9, false)
    );
    assert_eq!(
        sc(Op::SAddkI32, 1, 0x7fff_ffff, false),
        AluOut::with_flag(0x8000_0000, true)
    );
    assert_eq!(
        sc(Op::SMulkI32, 0xfffd, 7, true),
        AluOut::plain((-21i32) as u32 as u64)
    );
    assert_eq!(
        sc(Op::SCmovkI32, 0x8000, 5, true),
        AluOut::plain(0xffff_8000)
    );
    assert_eq!(sc(Op::SCmovkI32, 0x8000, 5, false), AluOut::plain(5));
}

#[test]
fn med3_min3_max3() {
    let nan = f(f32::NAN);
    assert_eq!(v(Op::VMed3F32, [f(1.0), f(3.0), f(2.0)]), f(2.0));
    assert_eq!(v(Op::VMed3F32, [f(3.0), f(1.0), f(2.0)]), f(2.0));
    assert_eq!(v(Op::VMed3F32, [f(2.0), f(2.0), f(1.0)]), f(2.0));
    assert_eq!(v(Op::VMed3F32, [f(-1.0), f(5.0), f(9.0)]), f(5.0));
    // A NaN operand: min3 of the operands (the NaN is ignored by the IEEE min).
    assert_eq!(v(Op::VMed3F32, [nan, f(1.0), f(2.0)]), f(1.0));
    assert_eq!(v(Op::VMin3F32, [f(3.0), nan, f(2.0)]), f(2.0));
    assert_eq!(v(Op::VMax3F32, [f(3.0), f(7.0), nan]), f(7.0));
}

#[test]
fn packed_f16_selects() {
    // src0 = {hi 2.0, lo 1.0}, src1 = {hi 4.0, lo 0.5}.
    let (a, b) = (0x4000_3c00, 0x4400_3800);
    let pk = |m: Mods| vm(Op::VPkAddF16, m, [a, b, 0]).value;
    let base = Mods::vop3p();
    assert_eq!(pk(base), 0x4600_3e00); // {6, 1.5}
    assert_eq!(pk(Mods { op_sel: 1, ..base }), 0x4600_4100); // lo: 2 + 0.5
    assert_eq!(pk(Mods { op_sel: 2, ..base }), 0x4600_4500); // lo: 1 + 4
    assert_eq!(
        pk(Mods {
            op_sel_hi: 2,
            ..base
        }),
        0x4500_3e00
    ); // hi: 1 + 4
    assert_eq!(
        pk(Mods {
            op_sel_hi: 0,
            ..base
        }),
        0x3e00_3e00
    ); // hi: 1 + 0.5
    assert_eq!(pk(Mods { neg_hi: 2, ..base }), 0xc000_3e00); // hi: 2 - 4
    assert_eq!(pk(Mods { neg: 1, ..base }), 0x4600_b800); // lo: -1 + 0.5
    assert_eq!(
        pk(Mods {
            op_sel: 3,
            op_sel_hi: 0,
            neg: 2,
            ..base
        }),
        0x3e00_c000
    ); // lo: 2 - 4
       // Inline 1.0 in a packed operand: 0x00003c00, so the high half adds +0.
    let one = inline_constant(&Operand::Float(InlineFloat::One), Ty::F16).unwrap();
    assert_eq!(vm(Op::VPkAddF16, base, [one, b, 0]).value, 0x4400_3e00);
    assert_eq!(vm(Op::VPkMulF16, base, [a, b, 0]).value, 0x4800_3800); // {8, 0.5}
                                                                       // fma: lo 1*0.5 + 2 = 2.5, hi 2*4 + 2 = 10 (src2 = {2, 2}).
    assert_eq!(
        vm(Op::VPkFmaF16, base, [a, b, 0x4000_4000]).value,
        0x4900_4100
    );
    assert_eq!(
        vm(Op::VPkMaxF16, base, [a, 0x7e00_3800, 0]).value,
        0x4000_3c00
    );
    // Integer halves: wrap, or saturate under clamp.
    assert_eq!(
        vm(Op::VPkAddU16, base, [0xffff_0001, 0x0002_0002, 0]).value,
        0x0001_0003
    );
    let clamp = Mods {
        clamp: true,
        ..base
    };
    assert_eq!(
        vm(Op::VPkAddU16, clamp, [0xffff_0001, 0x0002_0002, 0]).value,
        0xffff_0003
    );
    assert_eq!(
        vm(Op::VPkMulLoU16, base, [0x0100_0003, 0x0100_0005, 0]).value,
        0x0000_000f
    );
    assert!(valu(Op::VPkAddU16, &Mods { neg: 1, ..base }, [0; 3], false).is_err());
}

#[test]
fn packed_f32_selects() {
    let pair = |lo: f32, hi: f32| f(lo) | f(hi) << 32;
    let (a, b, c) = (pair(2.0, 3.0), pair(4.0, 5.0), pair(1.0, 10.0));
    let base = Mods::vop3p();
    let fma = |m: Mods| vm(Op::VPkFmaF32, m, [a, b, c]).value;
    assert_eq!(fma(base), pair(9.0, 25.0));
    assert_eq!(fma(Mods { op_sel: 4, ..base }), pair(18.0, 25.0));
    assert_eq!(fma(Mods { neg_hi: 1, ..base }), pair(9.0, -5.0));
    assert_eq!(
        fma(Mods {
            op_sel_hi: 6,
            ..base
        }),
        pair(9.0, 20.0)
    ); // hi: 2*5 + 10
    assert_eq!(vm(Op::VPkAddF32, base, [a, b, 0]).value, pair(6.0, 8.0));
    assert_eq!(
        vm(Op::VPkMulF32, Mods { neg: 2, ..base }, [a, b, 0]).value,
        pair(-8.0, 15.0)
    );
}

#[test]
fn dot2_hand_values() {
    let base = Mods::vop3p();
    // {hi 2.0, lo 1.0} . {hi 4.0, lo 0.5} + 0.25 = 0.5 + 8 + 0.25.
    let r = vm(Op::VDot2F32F16, base, [0x4000_3c00, 0x4400_3800, f(0.25)]).value;
    assert_eq!(r, f(8.75));
    let r = vm(
        Op::VDot2F32F16,
        Mods { neg: 4, ..base },
        [0x4000_3c00, 0x4400_3800, f(0.25)],
    );
    assert_eq!(r.value, f(8.25));
    // bf16: 1.0 = 0x3f80, 2.0 = 0x4000, 3.0 = 0x4040.
    let r = vm(Op::VDot2F32Bf16, base, [0x4000_3f80, 0x4040_4000, f(1.0)]).value;
    assert_eq!(r, f(9.0));
}

#[test]
fn omod_and_clamp() {
    let m = |omod: u8, clamp: bool| Mods {
        omod,
        clamp,
        ..Mods::default()
    };
    let add = |mods: Mods, a: f32, b: f32| vm(Op::VAddF32, mods, [f(a), f(b), 0]).value;
    assert_eq!(add(m(1, false), 1.5, 0.25), f(3.5));
    assert_eq!(add(m(2, false), 1.5, 0.25), f(7.0));
    assert_eq!(add(m(3, false), 1.5, 0.25), f(0.875));
    assert_eq!(add(m(0, true), 1.5, 0.25), f(1.0));
    assert_eq!(add(m(3, true), 1.5, 0.25), f(0.875));
    assert_eq!(add(m(0, true), -3.0, 1.0), f(0.0));
    assert_eq!(add(m(0, true), f32::INFINITY, f32::NEG_INFINITY), f(0.0)); // NaN → 0
    let r = vm(Op::VFmaF64, m(1, false), [d(1.5), d(2.0), d(1.0)]).value;
    assert_eq!(r, d(8.0));
    let r = vm(Op::VFmaF16, m(0, true), [0x4000, 0x4000, 0x3c00]).value; // 2*2+1 → 1
    assert_eq!(r, 0x3c00);
    let r = vm(Op::VMulF16, m(3, false), [0x4000, 0x4400, 0]).value; // 2*4/2
    assert_eq!(r, 0x4400);
    // neg/abs: abs first, then neg.
    let nm = Mods {
        neg: 1,
        abs: 1,
        ..Mods::default()
    };
    assert_eq!(vm(Op::VAddF32, nm, [f(3.0), f(1.0), 0]).value, f(-2.0));
    assert_eq!(vm(Op::VAddF32, nm, [f(-3.0), f(1.0), 0]).value, f(-2.0));
    let nm = Mods {
        neg: 2,
        ..Mods::default()
    };
    assert_eq!(vm(Op::VAddF64, nm, [d(3.0), d(1.0), 0]).value, d(2.0));
    assert!(valu(
        Op::VAddU32,
        &Mods {
            neg: 1,
            ..Mods::default()
        },
        [0; 3],
        false
    )
    .is_err());
    assert!(valu(Op::VAndB32, &m(1, false), [0; 3], false).is_err());
    assert!(valu(Op::VCmpLtF32, &m(0, true), [0; 3], false).is_err());
}

#[test]
fn nan_inf_denormal() {
    let nan = f(f32::NAN);
    assert_eq!(v(Op::VAddF32, [1, 1, 0]), 2); // denormals preserved
    assert_eq!(v(Op::VMulF32, [0x0080_0000, f(0.5), 0]), 0x0040_0000);
    assert_eq!(v(Op::VFmaF32, [1, f(0.5), 0]), 0); // 2^-150 ties to even (0)
    assert_eq!(v(Op::VFmaF32, [3, f(0.5), 0]), 2); // 1.5 ulp ties to 2
    assert_eq!(v(Op::VMaxF32, [nan, f(1.0), 0]), f(1.0));
    assert_eq!(v(Op::VMinF32, [f(1.0), nan, 0]), f(1.0));
    assert_eq!(v(Op::VMaxF32, [f(-0.0), f(0.0), 0]), f(0.0));
    assert_eq!(v(Op::VMaxF32, [f(0.0), f(-0.0), 0]), f(0.0));
    assert_eq!(v(Op::VMinF32, [f(0.0), f(-0.0), 0]), f(-0.0));
    assert_eq!(v(Op::VMaxF32, [nan, nan, 0]), 0x7fc0_0000);
    assert_eq!(v(Op::VMaxF64, [d(f64::NAN), d(-1.0), 0]), d(-1.0));
    assert_eq!(
        v(Op::VAddF32, [f(f32::INFINITY), f(f32::NEG_INFINITY), 0]),
        0x7fc0_0000
    );
    assert_eq!(
        v(Op::VMulF64, [d(0.0), d(f64::INFINITY), 0]),
        0x7ff8_0000_0000_0000
    );
    assert_eq!(v(Op::VRcpF32, [f(0.0), 0, 0]), f(f32::INFINITY));
    assert_eq!(v(Op::VRcpF32, [f(-0.0), 0, 0]), f(f32::NEG_INFINITY));
    assert_eq!(v(Op::VRsqF32, [f(4.0), 0, 0]), f(0.5));
    assert_eq!(v(Op::VSqrtF32, [f(-1.0), 0, 0]), 0x7fc0_0000);
    assert_eq!(v(Op::VExpF32, [f(-3.0), 0, 0]), f(0.125));
    assert_eq!(v(Op::VExpF32, [f(f32::NEG_INFINITY), 0, 0]), f(0.0));
    assert_eq!(v(Op::VLogF32, [f(0.0), 0, 0]), f(f32::NEG_INFINITY));
    assert_eq!(v(Op::VLogF32, [f(1024.0), 0, 0]), f(10.0));
    assert_eq!(v(Op::VRcpF64, [d(4.0), 0, 0]), d(0.25));
    // Compares: neq is unordered, the rest ordered.
    assert_eq!(vf(Op::VCmpNeqF32, [nan, nan, 0]), Some(true));
    assert_eq!(vf(Op::VCmpEqF32, [nan, nan, 0]), Some(false));
    assert_eq!(vf(Op::VCmpLtF32, [nan, f(1.0), 0]), Some(false));
    assert_eq!(vf(Op::VCmpGeF32, [f(1.0), nan, 0]), Some(false));
    assert_eq!(vf(Op::VCmpLeF32, [f(-0.0), f(0.0), 0]), Some(true));
    assert_eq!(vf(Op::VCmpEqF32, [f(-0.0), f(0.0), 0]), Some(true));
    assert_eq!(vf(Op::VCmpLtI32, [0xffff_ffff, 0, 0]), Some(true));
    assert_eq!(vf(Op::VCmpLtU32, [0xffff_ffff, 0, 0]), Some(false));
}

#[test]
fn conversions() {
    let nan = f(f32::NAN);
    assert_eq!(v(Op::VCvtI32F32, [f(-2.7), 0, 0]), (-2i32) as u32 as u64);
    assert_eq!(v(Op::VCvtI32F32, [f(3e9), 0, 0]), 0x7fff_ffff);
    assert_eq!(v(Op::VCvtI32F32, [f(-3e9), 0, 0]), 0x8000_0000);
    assert_eq!(v(Op::VCvtI32F32, [nan, 0, 0]), 0);
    assert_eq!(v(Op::VCvtU32F32, [f(-1.0), 0, 0]), 0);
    assert_eq!(v(Op::VCvtU32F32, [f(5e9), 0, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VCvtU32F32, [f(f32::INFINITY), 0, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VCvtU32F32, [f(7.99), 0, 0]), 7);
    assert_eq!(v(Op::VCvtI32F64, [d(-1e12), 0, 0]), 0x8000_0000);
    assert_eq!(v(Op::VCvtI32F64, [d(-5.5), 0, 0]), (-5i32) as u32 as u64);
    assert_eq!(v(Op::VCvtF32U32, [0xffff_ffff, 0, 0]), f(4294967296.0));
    assert_eq!(v(Op::VCvtF32I32, [16_777_217, 0, 0]), f(16_777_216.0)); // tie to even
    assert_eq!(v(Op::VCvtF32I32, [16_777_219, 0, 0]), f(16_777_220.0));
    assert_eq!(v(Op::VCvtF64I32, [0x8000_0000, 0, 0]), d(-2147483648.0));
    assert_eq!(v(Op::VCvtF32F64, [d(1.0 + 2f64.powi(-24)), 0, 0]), f(1.0)); // tie to even
    assert_eq!(v(Op::VCvtF64F32, [f(0.1), 0, 0]), d(f64::from(0.1f32)));
    // f32 → f16 at ties (ulp of 1.0 is 2^-10).
    let h = |x: f32| v(Op::VCvtF16F32, [f(x), 0, 0]);
    assert_eq!(h(1.0 + 2f32.powi(-11)), 0x3c00);
    assert_eq!(h(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    assert_eq!(h(65519.0), 0x7bff);
    assert_eq!(h(65520.0), 0x7c00);
    assert_eq!(h(2f32.powi(-25)), 0x0000); // half the smallest subnormal: ties to 0
    assert_eq!(h(3.0 * 2f32.powi(-25)), 0x0002);
    assert_eq!(h(-2f32.powi(-24)), 0x8001);
    assert_eq!(v(Op::VCvtF32F16, [0x0001, 0, 0]), f(2f32.powi(-24)));
    assert_eq!(v(Op::VCvtF32F16, [0xfc00, 0, 0]), f(f32::NEG_INFINITY));
    // Round toward zero, src0 low, src1 high.
    let rtz = |a: f32, b: f32| v(Op::VCvtPkrtzF16F32, [f(a), f(b), 0]);
    assert_eq!(
        rtz(1.0 + 3.0 * 2f32.powi(-11), -(1.0 + 3.0 * 2f32.powi(-11))),
        0xbc01_3c01
    );
    assert_eq!(rtz(65520.0, f32::INFINITY), 0x7c00_7bff);
    assert_eq!(rtz(1e-10, -1e10), 0xfbff_0000);
    assert_eq!(v(Op::VCvtPkRtzF16F32, [f(2.0), f(0.5), 0]), 0x3800_4000);
    // v_pack_b32_f16 (with VOP3 op_sel picking high halves).
    assert_eq!(
        v(Op::VPackB32F16, [0xaaaa_3c00, 0xbbbb_4000, 0]),
        0x4000_3c00
    );
    let sel = Mods {
        op_sel: 1,
        ..Mods::default()
    };
    assert_eq!(
        vm(Op::VPackB32F16, sel, [0xaaaa_3c00, 0xbbbb_4000, 0]).value,
        0x4000_aaaa
    );
    // Saturation needs no clamp; clamp is accepted as a no-op; omod is not.
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    assert_eq!(vm(Op::VCvtI32F32, clamp, [f(3e9), 0, 0]).value, 0x7fff_ffff);
}

#[test]
fn integer_hand_values() {
    // 24-bit products ignore the high byte: (2^24-1)^2 = 2^48 - 2^25 + 1.
    assert_eq!(
        v(Op::VMulU32U24, [0xabff_ffff, 0x00ff_ffff, 0]),
        0xfe00_0001
    );
    assert_eq!(v(Op::VMulHiU32U24, [0xabff_ffff, 0x00ff_ffff, 0]), 0xffff);
    assert_eq!(v(Op::VMadU32U24, [0x0100_0003, 5, 7]), 22);
    assert_eq!(v(Op::VMulHiI32, [0xffff_ffff, 0xffff_ffff, 0]), 0);
    assert_eq!(v(Op::VMulHiI32, [0x8000_0000, 2, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VMulHiU32, [0x8000_0000, 4, 0]), 2);
    assert_eq!(
        v(Op::VLshlrevB64, [4, 0x0fff_0000_0000_000f, 0]),
        0xfff0_0000_0000_00f0
    );
    assert_eq!(
        v(Op::VLshrrevB64, [68, 0x0fff_0000_0000_000f, 0]),
        0x00ff_f000_0000_0000
    );
    assert_eq!(v(Op::VAshrrevI32, [4, 0x8000_0000, 0]), 0xf800_0000);
    assert_eq!(v(Op::VLshlrevB32, [33, 1, 0]), 2);
    assert_eq!(v(Op::VBfrevB32, [0x8000_0001, 0, 0]), 0x8000_0001);
    assert_eq!(v(Op::VMinI32, [0xffff_ffff, 1, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VMaxU32, [0xffff_ffff, 1, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VAndOrB32, [0xff00, 0x0ff0, 1]), 0x0f01);
    assert_eq!(v(Op::VLshlOrB32, [1, 4, 1]), 0x11);
    let cnd = |sel| valu(Op::VCndmaskB32, &Mods::default(), [1, 2, 0], sel).unwrap();
    assert_eq!((cnd(false).value, cnd(true).value), (1, 2));
    assert_eq!(vf(Op::VFmacF32, [f(2.0), f(3.0), f(1.0)]), None);
    assert_eq!(v(Op::VFmacF32, [f(2.0), f(3.0), f(1.0)]), f(7.0));
}

#[test]
fn inline_constants_per_type() {
    let c = |o: Operand, t: Ty| inline_constant(&o, t).unwrap();
    assert_eq!(c(Operand::Int(-1), Ty::B32), 0xffff_ffff);
    assert_eq!(c(Operand::Int(-16), Ty::B64), (-16i64) as u64);
    assert_eq!(c(Operand::Int(-1), Ty::F64), u64::MAX);
    assert_eq!(c(Operand::Int(64), Ty::F16), 64);
    assert_eq!(inline_constant(&Operand::Literal(5), Ty::B32), None);
    // 1/(2π) as f64 is LLVM's/hardware's 0x3fc45f306dc9c882 (the correctly rounded
    // double ends in ...883); llvm-mc-19 folds exactly that literal to the constant.
    let inv = Operand::Float(InlineFloat::InvTwoPi);
    assert_eq!(c(inv, Ty::F64), 0x3fc4_5f30_6dc9_c882);
    assert_eq!(c(inv, Ty::B64), 0x3fc4_5f30_6dc9_c882);
    assert_eq!(c(inv, Ty::F16), 0x3118);
    assert_eq!(c(inv, Ty::F32), 0x3e22_f983);
    for x in InlineFloat::ALL {
        let o = Operand::Float(x);
        assert_eq!(
            c(o, Ty::F16),
            u64::from(half::f16::from_f64(x.value()).to_bits()),
            "{x:?}"
        );
        assert_eq!(
            c(o, Ty::F32),
            u64::from((x.value() as f32).to_bits()),
            "{x:?}"
        );
        assert_eq!(c(o, Ty::B32), c(o, Ty::F32), "{x:?}");
        assert_eq!(c(o, Ty::B16), c(o, Ty::F32), "{x:?}");
        if x != InlineFloat::InvTwoPi {
            assert_eq!(c(o, Ty::F64), x.value().to_bits(), "{x:?}");
        }
        assert_eq!(c(o, Ty::B64), c(o, Ty::F64), "{x:?}");
        // bf16 operands of v_dot2_f32_bf16: llvm-mc-19 folds 0x3f80 to 1.0, 0x3e22 to
        // 1/(2π) (the truncated f32 pattern).
        let bf = source_constant(Op::VDot2F32Bf16, 0, &o).unwrap();
        assert_eq!(bf, c(o, Ty::F32) >> 16, "{x:?}");
    }
}

#[test]
fn source_constants_know_operand_types() {
    let one = Operand::Float(InlineFloat::One);
    let m1 = Operand::Int(-1);
    assert_eq!(source_constant(Op::VDot2F32F16, 0, &one), Some(0x3c00));
    assert_eq!(source_constant(Op::VDot2F32F16, 2, &one), Some(0x3f80_0000));
    assert_eq!(source_constant(Op::VDot2F32Bf16, 1, &one), Some(0x3f80));
    assert_eq!(source_constant(Op::VPackB32F16, 1, &one), Some(0x3c00));
    assert_eq!(source_constant(Op::VLshlrevB64, 0, &m1), Some(0xffff_ffff));
    assert_eq!(source_constant(Op::VLshlrevB64, 1, &m1), Some(u64::MAX));
    assert_eq!(
        source_constant(Op::VLshlrevB64, 1, &one),
        Some(0x3ff0_0000_0000_0000)
    );
    assert_eq!(source_constant(Op::VMadU64U32, 2, &m1), Some(u64::MAX));
    assert_eq!(source_constant(Op::VMadU64U32, 0, &m1), Some(0xffff_ffff));
    assert_eq!(source_constant(Op::VPkAddF32, 0, &one), Some(0x3f80_0000));
    assert_eq!(source_constant(Op::VPkAddU16, 0, &one), Some(0x3f80_0000));
    assert_eq!(
        source_constant(Op::VFmaF64, 2, &one),
        Some(0x3ff0_0000_0000_0000)
    );
    assert_eq!(
        source_constant(Op::SMovB64, 0, &one),
        Some(0x3ff0_0000_0000_0000)
    );
    assert_eq!(source_constant(Op::SLshlB64, 1, &m1), Some(0xffff_ffff));
    assert_eq!(source_constant(Op::SAddU32, 0, &one), Some(0x3f80_0000));
    assert_eq!(source_constant(Op::VAddF16, 0, &one), Some(0x3c00));
    // v_cndmask's mask source is not counted: src index 1 is the VGPR.
    assert_eq!(source_constant(Op::VCndmaskB32, 0, &one), Some(0x3f80_0000));
}

/// The f16 nearest to `num / 2^48` (ties to even), found by comparing exact i128
/// distances to the candidates around `guess`: an independent reference for the f16
/// rounding of sums and fused products of f16 values (all multiples of 2^-48).
fn f16_nearest_scaled(num: i128, guess: u16) -> u16 {
    // Value of a finite f16 times 2^48, exactly.
    let scaled = |h: u16| -> i128 {
        let e = i32::from((h >> 10) & 0x1f);
        let m = i128::from(h & 0x3ff);
        let mag = if e == 0 {
            m << 24
        } else {
            (m | 0x400) << (e - 1 + 24)
        };
        if h & 0x8000 != 0 {
            -mag
        } else {
            mag
        }
    };
    let max = scaled(0x7bff);
    // Beyond max + half an ulp (2^4 at the top binade), round to infinity.
    let limit = max + (16i128 << 48);
    if num >= limit {
        return 0x7c00;
    }
    if num <= -limit {
        return 0xfc00;
    }
    // Ordinal of an f16: monotonic in value.
    let ord = |h: u16| -> i32 {
        if h & 0x8000 != 0 {
            -i32::from(h & 0x7fff)
        } else {
            i32::from(h)
        }
    };
    let from_ord = |o: i32| -> u16 {
        if o < 0 {
            0x8000 | (-o) as u16
        } else {
            o as u16
        }
    };
    let g = if guess & 0x7c00 == 0x7c00 {
        guess & 0x8000 | 0x7bff
    } else {
        guess
    };
    let mut best: Option<(i128, u16)> = None;
    for o in ord(g) - 3..=ord(g) + 3 {
        if !(-0x7bff..=0x7bff).contains(&o) {
            continue;
        }
        let h = from_ord(o);
        let dist = (num - scaled(h)).abs();
        best = match best {
            None => Some((dist, h)),
            Some((bd, bh)) if dist < bd || (dist == bd && h & 1 == 0 && bh & 1 == 1) => {
                Some((dist, h))
            }
            keep => keep,
        };
    }
    let h = best.map_or(0, |(_, h)| h);
    // A zero result takes the sign of the exact value (positive for an exact 0).
    if h & 0x7fff == 0 {
        if num < 0 {
            0x8000
        } else {
            0
        }
    } else {
        h
    }
}

/// f16 bits as an exact multiple of 2^-24.
fn f16_scaled24(h: u16) -> i128 {
    let e = i32::from((h >> 10) & 0x1f);
    let m = i128::from(h & 0x3ff);
    let mag = if e == 0 { m } else { (m | 0x400) << (e - 1) };
    if h & 0x8000 != 0 {
        -mag
    } else {
        mag
    }
}

fn finite_f16() -> impl Strategy<Value = u16> {
    any::<u16>().prop_filter("finite", |h| h & 0x7c00 != 0x7c00)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sub_undoes_add(a: u32, b: u32) {
        let (a, b) = (u64::from(a), u64::from(b));
        let s = v(Op::VAddU32, [a, b, 0]);
        prop_assert_eq!(s, (a + b) & 0xffff_ffff);
        prop_assert_eq!(v(Op::VSubU32, [s, b, 0]), a);
        prop_assert_eq!(v(Op::VSubrevU32, [b, a, 0]), v(Op::VSubU32, [a, b, 0]));
        prop_assert_eq!(v(Op::VSubrevCoU32, [b, a, 0]), v(Op::VSubCoU32, [a, b, 0]));
        prop_assert_eq!(vf(Op::VSubrevCoU32, [b, a, 0]), Some(a < b));
        prop_assert_eq!(vf(Op::VAddCoU32, [a, b, 0]), Some(a + b > 0xffff_ffff));
        prop_assert_eq!(sc(Op::SSubU32, s, b, false).value, a);
        prop_assert_eq!(v(Op::VAdd3U32, [a, b, s]), (a + b + s) & 0xffff_ffff);
    }

    #[test]
    fn fused_integer_ops_compose(a: u32, b: u32, c: u32) {
        let (a, b, c) = (u64::from(a), u64::from(b), u64::from(c));
        let shl = v(Op::VLshlrevB32, [b, a, 0]);
        prop_assert_eq!(v(Op::VLshlAddU32, [a, b, c]), v(Op::VAddU32, [shl, c, 0]));
        prop_assert_eq!(v(Op::VLshlOrB32, [a, b, c]), v(Op::VOrB32, [shl, c, 0]));
        let sum = v(Op::VAddU32, [a, b, 0]);
        prop_assert_eq!(v(Op::VAddLshlU32, [a, b, c]), v(Op::VLshlrevB32, [c, sum, 0]));
        prop_assert_eq!(v(Op::VOr3B32, [a, b, c]), a | b | c);
        // 64-bit mad against u128.
        let wide = u128::from(a) * u128::from(b) + u128::from(c << 32 | a);
        let out = vm(Op::VMadU64U32, Mods::default(), [a, b, c << 32 | a]);
        prop_assert_eq!(out, AluOut::with_flag(wide as u64, wide >> 64 != 0));
        let hi = (i128::from(a as u32 as i32) * i128::from(b as u32 as i32)) >> 32;
        prop_assert_eq!(v(Op::VMulHiI32, [a, b, 0]), u64::from(hi as u32));
        prop_assert_eq!(v(Op::VMulLoU32, [a, b, 0]), (u128::from(a) * u128::from(b)) as u64 & 0xffff_ffff);
        // alignbit against the 64-bit shift.
        prop_assert_eq!(v(Op::VAlignbitB32, [a, b, c]), (a << 32 | b) >> (c & 31) & 0xffff_ffff);
    }

    #[test]
    fn shifts_64_match_u128(x: u64, s in 0u64..200) {
        let k = s & 63;
        let l = ((u128::from(x) << k) & u128::from(u64::MAX)) as u64;
        let r = (u128::from(x) >> k) as u64;
        prop_assert_eq!(v(Op::VLshlrevB64, [s, x, 0]), l);
        prop_assert_eq!(v(Op::VLshrrevB64, [s, x, 0]), r);
        prop_assert_eq!(sc(Op::SLshlB64, x, s, false), AluOut::with_flag(l, l != 0));
        prop_assert_eq!(sc(Op::SLshrB64, x, s, false), AluOut::with_flag(r, r != 0));
        let ar = (i128::from(x as i64) >> k) as u64;
        prop_assert_eq!(sc(Op::SAshrI64, x, s, false).value, ar);
    }

    #[test]
    fn scalar_carry_chain_is_64_bit_add(x: u64, y: u64) {
        let lo = sc(Op::SAddU32, x & 0xffff_ffff, y & 0xffff_ffff, false);
        let hi = sc(Op::SAddcU32, x >> 32, y >> 32, lo.flag == Some(true));
        prop_assert_eq!(hi.value << 32 | lo.value, x.wrapping_add(y));
        prop_assert_eq!(hi.flag, Some(x.checked_add(y).is_none()));
        let lo = sc(Op::SSubU32, x & 0xffff_ffff, y & 0xffff_ffff, false);
        let hi = sc(Op::SSubbU32, x >> 32, y >> 32, lo.flag == Some(true));
        prop_assert_eq!(hi.value << 32 | lo.value, x.wrapping_sub(y));
        prop_assert_eq!(hi.flag, Some(x < y));
        // Vector carry chain.
        let lo = valu(Op::VAddCoU32, &Mods::default(), [x & 0xffff_ffff, y & 0xffff_ffff, 0], false).unwrap();
        let hi = valu(Op::VAddcCoU32, &Mods::default(), [x >> 32, y >> 32, 0], lo.flag == Some(true)).unwrap();
        prop_assert_eq!(hi.value << 32 | lo.value, x.wrapping_add(y));
    }

    #[test]
    fn f16_arithmetic_matches_half(a: u16, b: u16) {
        let (ha, hb) = (half::f16::from_bits(a), half::f16::from_bits(b));
        // half computes in f32 and rounds once to f16: exact for +/× of f16 values
        // (f32 has 24 ≥ 2·11 + 2 bits, so the double rounding is innocuous).
        for (op, want) in [(Op::VAddF16, ha + hb), (Op::VMulF16, ha * hb)] {
            let got = v(op, [u64::from(a), u64::from(b), 0]) as u16;
            if want.is_nan() {
                prop_assert_eq!(got, 0x7e00);
            } else {
                prop_assert_eq!(got, want.to_bits(), "{:?} {:#x} {:#x}", op, a, b);
            }
        }
        let want = half::f16::max(ha, hb);
        let got = vm(Op::VPkMaxF16, Mods::vop3p(), [u64::from(a), u64::from(b), 0]).value as u16;
        if ha.is_nan() && hb.is_nan() {
            prop_assert_eq!(got, 0x7e00);
        } else if !(ha == hb && ha.to_f32() == 0.0) {
            // (half's max of ±0 is either zero; ours orders -0 < +0.)
            prop_assert_eq!(got, want.to_bits());
        }
    }

    #[test]
    fn f16_fma_is_correctly_rounded(a in finite_f16(), b in finite_f16(), c in finite_f16()) {
        // Exact a·b + c in units of 2^-48 (each f16 is a multiple of 2^-24).
        let num = f16_scaled24(a) * f16_scaled24(b) + (f16_scaled24(c) << 24);
        let approx = f16_to_f64_ref(a) * f16_to_f64_ref(b) + f16_to_f64_ref(c);
        let want = f16_nearest_scaled(num, half::f16::from_f64(approx).to_bits());
        let got = v(Op::VFmaF16, [u64::from(a), u64::from(b), u64::from(c)]) as u16;
        if num == 0 {
            prop_assert_eq!(got & 0x7fff, 0);
        } else {
            prop_assert_eq!(got, want, "{:#x} {:#x} {:#x}", a, b, c);
        }
    }

    #[test]
    fn f32_to_f16_and_bf16_match_half(bits: u32) {
        let x = f32::from_bits(bits);
        if x.is_nan() {
            prop_assert_eq!(f16_from_f32(x), 0x7e00);
            prop_assert_eq!(bf16_from_f32(x), 0x7fc0);
        } else {
            prop_assert_eq!(f16_from_f32(x), half::f16::from_f32(x).to_bits());
            prop_assert_eq!(bf16_from_f32(x), half::bf16::from_f32(x).to_bits());
        }
    }

    #[test]
    fn rtz_never_exceeds_magnitude(bits: u32) {
        let x = f32::from_bits(bits);
        let h = f16_round(f64::from(x), 0.0, Round::TowardZero);
        let back = half::f16::from_bits(h).to_f32();
        if x.is_nan() {
            prop_assert!(back.is_nan());
        } else if x.is_infinite() {
            prop_assert_eq!(back, x);
        } else {
            prop_assert!(back.abs() <= x.abs());
            // The next f16 away from zero is beyond |x| (or x is past the largest f16).
            let next = half::f16::from_bits((h & 0x7fff) + 1).to_f32();
            prop_assert!(next > x.abs() || h & 0x7fff == 0x7bff);
        }
    }

    #[test]
    fn dot2_f16_within_an_ulp_of_f64(a: u32, b: u32, c in -1.0e4f32..1.0e4) {
        let (a, b) = (u64::from(a & 0x7bff_7bff), u64::from(b & 0xfbff_7bff));
        let half = |x: u64, hi: bool| f16_to_f64_ref((if hi { x >> 16 } else { x }) as u16);
        // Reference: exact products, summed in another order in f64.
        let want = ((f64::from(c) + half(a, true) * half(b, true)) + half(a, false) * half(b, false)) as f32;
        let got = f32::from_bits(vm(Op::VDot2F32F16, Mods::vop3p(), [a, b, f(c)]).value as u32);
        // Both are f64 sums of at most 3 terms rounded to f32: within 1 f32 ulp
        // (plus the f64 rounding, far below it), or equal when infinite.
        if want.is_finite() {
            let ulp = f32::from_bits(want.abs().to_bits() + 1) - want.abs();
            prop_assert!((got - want).abs() <= ulp, "{} vs {}", got, want);
        } else {
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn f32_ops_match_rust(a: u32, b: u32, c: u32) {
        let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        let canon = |r: f32| if r.is_nan() { 0x7fc0_0000 } else { u64::from(r.to_bits()) };
        let s = [u64::from(a), u64::from(b), u64::from(c)];
        prop_assert_eq!(v(Op::VAddF32, s), canon(x + y));
        prop_assert_eq!(v(Op::VSubrevF32, s), canon(y - x));
        prop_assert_eq!(v(Op::VMulF32, s), canon(x * y));
        prop_assert_eq!(v(Op::VFmaF32, s), canon(x.mul_add(y, z)));
        // omod ×2 is an exact doubling (or overflow).
        let m = Mods { omod: 1, ..Mods::default() };
        prop_assert_eq!(vm(Op::VMulF32, m, s).value, canon((x * y) * 2.0));
        // Compares: the float ordering.
        prop_assert_eq!(vf(Op::VCmpLtF32, s), Some(x < y));
        prop_assert_eq!(vf(Op::VCmpNeqF32, s), Some(!(x == y)));
    }

    #[test]
    fn scalar_and_vector_agree(a: u32, b: u32) {
        let (a, b) = (u64::from(a), u64::from(b));
        let pairs = [
            (Op::SAndB32, Op::VAndB32, false),
            (Op::SOrB32, Op::VOrB32, false),
            (Op::SXorB32, Op::VXorB32, false),
            (Op::SMinI32, Op::VMinI32, false),
            (Op::SMaxU32, Op::VMaxU32, false),
            (Op::SMulI32, Op::VMulLoU32, false),
            (Op::SMulHiU32, Op::VMulHiU32, false),
            (Op::SAddU32, Op::VAddCoU32, false),
            (Op::SSubU32, Op::VSubCoU32, false),
            // The vector shifts take the amount first.
            (Op::SLshlB32, Op::VLshlrevB32, true),
            (Op::SLshrB32, Op::VLshrrevB32, true),
            (Op::SAshrI32, Op::VAshrrevI32, true),
        ];
        for (sop, vop, rev) in pairs {
            let vsrc = if rev { [b, a, 0] } else { [a, b, 0] };
            prop_assert_eq!(sc(sop, a, b, false).value, v(vop, vsrc), "{:?}", sop);
        }
        prop_assert_eq!(sc(Op::SNotB32, a, 0, false).value, v(Op::VNotB32, [a, 0, 0]));
        prop_assert_eq!(sc(Op::SBrevB32, a, 0, false).value, v(Op::VBfrevB32, [a, 0, 0]));
        prop_assert_eq!(sc(Op::SBcnt1I32B32, a, 0, false).value, u64::from(a.count_ones()));
        // s_bfe packs offset and width into one operand; v_bfe takes them apart.
        let (off, width) = (b & 31, (b >> 16) & 31);
        prop_assert_eq!(sc(Op::SBfeU32, a, width << 16 | off, false).value, v(Op::VBfeU32, [a, off, width]));
        prop_assert_eq!(v(Op::VBfeU32, [a, off, width]), (a >> off) & ((1u64 << width) - 1));
        prop_assert_eq!(vf(Op::VCmpLtI32, [a, b, 0]), sc(Op::SCmpLtI32, a, b, true).flag);
        prop_assert_eq!(vf(Op::VCmpGeU32, [a, b, 0]), sc(Op::SCmpGeU32, a, b, true).flag);
    }

    #[test]
    fn source_modifiers_are_sign_operations(a: u32, b: u32) {
        let s = [u64::from(a), u64::from(b), 0];
        let neg1 = Mods { neg: 2, ..Mods::default() };
        prop_assert_eq!(vm(Op::VAddF32, neg1, s).value, v(Op::VSubF32, s));
        prop_assert_eq!(v(Op::VSubrevF32, [s[1], s[0], 0]), v(Op::VSubF32, s));
        let abs0 = Mods { abs: 1, ..Mods::default() };
        let cleared = [s[0] & 0x7fff_ffff, s[1], 0];
        prop_assert_eq!(vm(Op::VMulF32, abs0, s).value, v(Op::VMulF32, cleared));
        let nabs0 = Mods { abs: 1, neg: 1, ..Mods::default() };
        let set = [s[0] | 0x8000_0000, s[1], 0];
        prop_assert_eq!(vm(Op::VMaxF32, nabs0, s).value, v(Op::VMaxF32, set));
    }

    #[test]
    fn perm_of_identity_selectors_moves_bytes(a: u32, b: u32, sel in proptest::array::uniform4(0u8..8)) {
        let data = u64::from(a) << 32 | u64::from(b);
        let selector = u32::from_le_bytes(sel);
        let want = sel.iter().enumerate().fold(0u64, |acc, (i, &s)| {
            acc | ((data >> (8 * u32::from(s))) & 0xff) << (8 * i)
        });
        prop_assert_eq!(v(Op::VPermB32, [u64::from(a), u64::from(b), u64::from(selector)]), want);
    }
}

/// f16 → f64 through `half` (exact), the reference side of the f16 tests.
fn f16_to_f64_ref(h: u16) -> f64 {
    half::f16::from_bits(h).to_f64()
}

#[test]
fn f16_fma_rounds_once() {
    // a = 2^-11·(1 + 2^-7), b = 1 - 2^-7, c = 1 + 2^-10: a·b + c = 1 + 3·2^-11 - 2^-25,
    // just below the tie between 0x3c01 and 0x3c02, so the answer is 0x3c01. Rounding
    // first to f32 would land on the tie and then go to even (0x3c02).
    assert_eq!(v(Op::VFmaF16, [0x1008, 0x3bf0, 0x3c01]), 0x3c01);
    let neg = Mods {
        neg: 4,
        ..Mods::default()
    };
    // -c: 2^-11 - 2^-25 - 1 - 2^-10 = -(1 + 2^-11 + 2^-25): just above the tie
    // between 0xbc00 and 0xbc01 in magnitude.
    assert_eq!(vm(Op::VFmaF16, neg, [0x1008, 0x3bf0, 0x3c01]).value, 0xbc01);
    // The same through v_pk_fma_f16 in both halves.
    let r = vm(
        Op::VPkFmaF16,
        Mods::vop3p(),
        [0x1008_1008, 0x3bf0_3bf0, 0x3c01_3c01],
    )
    .value;
    assert_eq!(r, 0x3c01_3c01);
}

// ---------------------------------------------------------------------------------------
// Ops clang-19 emits (the corpus of tests/corpus.rs): edges.

fn fv(op: Op, x: f32) -> f32 {
    f32::from_bits(v(op, [f(x), 0, 0]) as u32)
}

#[test]
fn bit_counts_give_minus_one_on_zero() {
    assert_eq!(v(Op::VFfbhU32, [0, 0, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VFfbhU32, [1, 0, 0]), 31);
    assert_eq!(v(Op::VFfbhU32, [0x8000_0000, 0, 0]), 0);
    assert_eq!(v(Op::VFfblB32, [0, 0, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VFfblB32, [0x8000_0000, 0, 0]), 31);
    // popcount plus the addend, wrapping.
    assert_eq!(v(Op::VBcntU32B32, [0xffff_ffff, 0xffff_fff0, 0]), 0x10);
    assert_eq!(sc(Op::SFf1I32B64, 0, 0, false).value, 0xffff_ffff);
    assert_eq!(sc(Op::SFf1I32B64, 1 << 40, 0, false).value, 40);
    let b = sc(Op::SBcnt1I32B64, u64::MAX, 0, false);
    assert_eq!((b.value, b.flag), (64, Some(true)));
    assert_eq!(sc(Op::SBcnt1I32B64, 0, 0, true).flag, Some(false));
    assert_eq!(sc(Op::SAndn2B32, 0xff, 0x0f, false).value, 0xf0);
}

#[test]
fn f32_rounding_ops_at_the_edges() {
    for (x, floor, trunc, ceil, rndne) in [
        (-0.5f32, -1.0f32, -0.0f32, -0.0f32, -0.0f32),
        (2.5, 2.0, 2.0, 3.0, 2.0),
        (3.5, 3.0, 3.0, 4.0, 4.0),
        (-2.5, -3.0, -2.0, -2.0, -2.0),
        (
            f32::INFINITY,
            f32::INFINITY,
            f32::INFINITY,
            f32::INFINITY,
            f32::INFINITY,
        ),
        (1e-45, 0.0, 0.0, 1.0, 0.0),
    ] {
        assert_eq!(fv(Op::VFloorF32, x).to_bits(), floor.to_bits(), "floor {x}");
        assert_eq!(fv(Op::VTruncF32, x).to_bits(), trunc.to_bits(), "trunc {x}");
        assert_eq!(fv(Op::VCeilF32, x).to_bits(), ceil.to_bits(), "ceil {x}");
        assert_eq!(fv(Op::VRndneF32, x).to_bits(), rndne.to_bits(), "rndne {x}");
    }
    assert!(fv(Op::VFloorF32, f32::NAN).is_nan());
    // fract stays below 1 where x - floor(x) would round up to it.
    assert_eq!(fv(Op::VFractF32, -1e-30), f32::from_bits(0x3f7f_ffff));
    assert_eq!(fv(Op::VFractF32, 2.75), 0.75);
    assert!(fv(Op::VFractF32, f32::INFINITY).is_nan());
}

#[test]
fn frexp_and_ldexp_at_the_edges() {
    let exp = |x: f32| v(Op::VFrexpExpI32F32, [f(x), 0, 0]) as u32 as i32;
    // Denormals normalise: 2^-149 = 0.5 * 2^-148.
    assert_eq!(fv(Op::VFrexpMantF32, f32::from_bits(1)), 0.5);
    assert_eq!(exp(f32::from_bits(1)), -148);
    assert_eq!((fv(Op::VFrexpMantF32, -6.0), exp(-6.0)), (-0.75, 3));
    assert_eq!(exp(f32::INFINITY), 0);
    assert_eq!(fv(Op::VFrexpMantF32, f32::INFINITY), f32::INFINITY);
    assert!(fv(Op::VFrexpMantF32, f32::NAN).is_nan());
    assert_eq!(fv(Op::VFrexpMantF32, -0.0).to_bits(), (-0.0f32).to_bits());
    let ldexp =
        |x: f32, k: i32| f32::from_bits(v(Op::VLdexpF32, [f(x), k as u32 as u64, 0]) as u32);
    assert_eq!(ldexp(1.5, 3), 12.0);
    assert_eq!(ldexp(1.0, 128), f32::INFINITY);
    assert_eq!(ldexp(1.0, i32::MAX), f32::INFINITY);
    assert_eq!(ldexp(1.0, -149), f32::from_bits(1));
    assert_eq!(ldexp(1.0, -150), 0.0); // half the smallest denormal: ties to even (0)
    assert_eq!(ldexp(3.0, -150), f32::from_bits(2)); // 1.5 ulp rounds to even (2)
    assert_eq!(ldexp(1.0, i32::MIN), 0.0);
}

#[test]
fn unordered_class_and_u64_compares() {
    let nan = f(f32::NAN);
    assert_eq!(vf(Op::VCmpNltF32, [nan, f(1.0), 0]), Some(true));
    assert_eq!(vf(Op::VCmpNltF32, [f(0.0), f(1.0), 0]), Some(false));
    assert_eq!(vf(Op::VCmpNgtF32, [f(2.0), nan, 0]), Some(true));
    assert_eq!(vf(Op::VCmpUF32, [f(2.0), nan, 0]), Some(true));
    assert_eq!(vf(Op::VCmpOF32, [f(2.0), nan, 0]), Some(false));
    // Class bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
    // 8 +normal, 9 +inf.
    for (x, bit) in [
        (0x7fa0_0000u32, 0),
        (0x7fc0_0000, 1),
        (0xff80_0000, 2),
        (f(-1.0) as u32, 3),
        (0x8000_0001, 4),
        (0x8000_0000, 5),
        (0, 6),
        (1, 7),
        (f(1.0) as u32, 8),
        (0x7f80_0000, 9),
    ] {
        assert_eq!(
            vf(Op::VCmpClassF32, [u64::from(x), 1 << bit, 0]),
            Some(true),
            "{x:#x}"
        );
        let others = 0x3ff & !(1u64 << bit);
        assert_eq!(
            vf(Op::VCmpClassF32, [u64::from(x), others, 0]),
            Some(false),
            "{x:#x}"
        );
    }
    assert_eq!(vf(Op::VCmpLtU64, [1 << 32, u64::MAX, 0]), Some(true));
    assert_eq!(vf(Op::VCmpGtU64, [1 << 32, 0xffff_ffff, 0]), Some(true));
    assert_eq!(vf(Op::VCmpNeU64, [1 << 32, 0, 0]), Some(true));
    assert_eq!(vf(Op::VCmpEqU64, [u64::MAX, u64::MAX, 0]), Some(true));
    // gfx11 v_cmpx computes the same compare.
    assert_eq!(vf(Op::VCmpxNltF32, [nan, f(1.0), 0]), Some(true));
}

#[test]
fn borrow_chains_and_64_bit_shift_add() {
    let sub = |op: Op, a: u64, b: u64, borrow: bool| {
        let o = valu(op, &Mods::default(), [a, b, 0], borrow).unwrap();
        (o.value, o.flag)
    };
    assert_eq!(sub(Op::VSubbCoU32, 0, 0, true), (0xffff_ffff, Some(true)));
    assert_eq!(sub(Op::VSubbCoU32, 5, 5, false), (0, Some(false)));
    assert_eq!(sub(Op::VSubbCoU32, 0, 0xffff_ffff, true), (0, Some(true)));
    assert_eq!(
        sub(Op::VSubbrevCoU32, 0xffff_ffff, 0, true),
        (0, Some(true))
    );
    assert_eq!(sub(Op::VSubbrevCoU32, 1, 3, true), (1, Some(false)));
    // (s0 << s1[2:0]) + s2 wraps modulo 2^64.
    assert_eq!(v(Op::VLshlAddU64, [u64::MAX, 1, 3]), 1);
    assert_eq!(v(Op::VLshlAddU64, [1 << 62, 2, 0]), 0);
    assert_eq!(v(Op::VLshlAddU64, [5, 4, 1 << 40]), (1 << 40) + 80);
}

#[test]
fn conversions_and_fused_vs_unfused_k_forms() {
    assert_eq!(fv(Op::VCvtF32Ubyte0, f32::from_bits(0x1234_56ff)), 255.0);
    assert_eq!(
        f64::from_bits(v(Op::VCvtF64U32, [0xffff_ffff, 0, 0])),
        4_294_967_295.0
    );
    // Saturating, NaN to 0.
    assert_eq!(v(Op::VCvtU32F64, [d(-1.0), 0, 0]), 0);
    assert_eq!(v(Op::VCvtU32F64, [d(1e20), 0, 0]), 0xffff_ffff);
    assert_eq!(v(Op::VCvtU32F64, [d(f64::NAN), 0, 0]), 0);
    assert_eq!(v(Op::VCvtU32F64, [d(7.9), 0, 0]), 7);
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: the fused form keeps the 2^-24 term, the
    // legacy mad rounds the product to 24 bits first and loses it.
    let x = 1.0f32 + 1.0 / 4096.0;
    let (src, k) = (f(x), f(x));
    let fused = f32::from_bits(v(Op::VFmamkF32, [src, k, f(-1.0)]) as u32);
    let unfused = f32::from_bits(v(Op::VMadmkF32, [src, k, f(-1.0)]) as u32);
    assert_eq!(fused, x.mul_add(x, -1.0));
    assert_eq!(unfused, x * x - 1.0);
    assert_ne!(fused, unfused);
    let fmac64 = v(
        Op::VFmacF64,
        [d(1.0 + f64::EPSILON), d(1.0 - f64::EPSILON), d(-1.0)],
    );
    assert_eq!(f64::from_bits(fmac64), -f64::EPSILON * f64::EPSILON);
    // f16 fmac: 65504 + 32 overflows to +inf (round to nearest even at the top binade).
    let h = |x: f32| u64::from(half::f16::from_f32(x).to_bits());
    let r = v(Op::VFmacF16, [h(1.0), h(32.0), h(65504.0)]);
    assert_eq!(r as u16, half::f16::INFINITY.to_bits());
}

#[test]
fn sopk_compares_extend_the_immediate_by_type() {
    // src = [imm16, register]: i32 compares sign-extend the immediate, u32 zero-extend.
    assert_eq!(
        sc(Op::SCmpkLtI32, 0xffff, 0xffff_fffe, false).flag,
        Some(true)
    ); // -2 < -1
    assert_eq!(
        sc(Op::SCmpkLtU32, 0xffff, 0xffff_fffe, false).flag,
        Some(false)
    );
    assert_eq!(sc(Op::SCmpkGtU32, 0x10, 0x11, false).flag, Some(true));
    assert_eq!(sc(Op::SCmpkEqU32, 0xffff, 0xffff, false).flag, Some(true));
    assert_eq!(sc(Op::SCmpkEqI32, 0xffff, 0xffff, false).flag, Some(false));
    assert_eq!(
        sc(Op::SCmpkLgI32, 0x8000, 0xffff_8000, false).flag,
        Some(false)
    );
}

// ---------------------------------------------------------------------------------------
// The f64 division and square-root steps, and the ops clang emits besides them.

/// LLVM's f64 division (`SITargetLowering::LowerFDIV64`): scale, reciprocal, two
/// Newton steps, the scaled quotient and its correction, fix-up.
fn llvm_fdiv64(x: f64, y: f64) -> f64 {
    let nm = Mods {
        neg: 1,
        ..Mods::default()
    };
    let one = d(1.0);
    let s0 = vm(Op::VDivScaleF64, Mods::default(), [d(y), d(y), d(x)]).value;
    let rcp = v(Op::VRcpF64, [s0, 0, 0]);
    let fma0 = vm(Op::VFmaF64, nm, [s0, rcp, one]).value;
    let fma1 = v(Op::VFmaF64, [rcp, fma0, rcp]);
    let fma2 = vm(Op::VFmaF64, nm, [s0, fma1, one]).value;
    let scaled = vm(Op::VDivScaleF64, Mods::default(), [d(x), d(y), d(x)]);
    let s1 = scaled.value;
    let fma3 = v(Op::VFmaF64, [fma1, fma2, fma1]);
    let mul = v(Op::VMulF64, [s1, fma3, 0]);
    let fma4 = vm(Op::VFmaF64, nm, [s0, mul, s1]).value;
    let vcc = scaled.flag.unwrap_or(false);
    let fmas = valu(Op::VDivFmasF64, &Mods::default(), [fma4, fma3, mul], vcc)
        .unwrap()
        .value;
    f64::from_bits(v(Op::VDivFixupF64, [fmas, d(y), d(x)]))
}

#[test]
fn f64_division_sequence_is_correctly_rounded_at_the_edges() {
    let cases = [
        (1.0, 3.0),
        (-7.0, 2.0),
        (f64::MAX, 0.5),
        (f64::MAX, f64::MIN_POSITIVE),
        (f64::MIN_POSITIVE, 3.0),
        (5e-324, 1.0),
        (1.0, f64::MAX),
        (3.0, 7e-310),
        (1e300, 1e-300),
        (1e-300, 1e300),
    ];
    for (x, y) in cases {
        let (got, want) = (llvm_fdiv64(x, y), x / y);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{x:e} / {y:e}: {got:e}, want {want:e}"
        );
    }
    // Special operands: fix-up gives IEEE results.
    assert!(llvm_fdiv64(0.0, 0.0).is_nan());
    assert!(llvm_fdiv64(f64::INFINITY, f64::NEG_INFINITY).is_nan());
    assert!(llvm_fdiv64(f64::NAN, 1.0).is_nan());
    assert_eq!(llvm_fdiv64(1.0, 0.0), f64::INFINITY);
    assert_eq!(llvm_fdiv64(-1.0, 0.0), f64::NEG_INFINITY);
    assert_eq!(
        llvm_fdiv64(1.0, f64::NEG_INFINITY).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(llvm_fdiv64(0.0, -5.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(llvm_fdiv64(f64::INFINITY, 2.0), f64::INFINITY);
}

proptest! {
    #[test]
    fn f64_division_sequence_matches_ieee(
        mx in 1.0f64..2.0, my in 1.0f64..2.0, ex in -1000i32..1000, ey in -1000i32..1000,
        sx in any::<bool>(), sy in any::<bool>(),
    ) {
        let x = if sx { -mx } else { mx } * 2f64.powi(ex);
        let y = if sy { -my } else { my } * 2f64.powi(ey);
        let want = x / y;
        let got = llvm_fdiv64(x, y);
        // Correctly rounded, except where the quotient is denormal: the rescale after
        // the last fma rounds a second time (at most one ulp of the denormal).
        if want.abs() >= f64::MIN_POSITIVE || want == 0.0 || want.is_infinite() {
            prop_assert_eq!(got.to_bits(), want.to_bits(), "{:e} / {:e}", x, y);
        } else {
            prop_assert!((got.to_bits() as i64 - want.to_bits() as i64).abs() <= 1);
        }
    }
}

#[test]
fn ldexp_and_class_f64_at_the_edges() {
    let l = |x: f64, k: i32| f64::from_bits(v(Op::VLdexpF64, [d(x), k as u32 as u64, 0]));
    assert_eq!(l(1.0, 1023), 2f64.powi(1023));
    assert_eq!(l(1.0, 1024), f64::INFINITY, "overflow");
    assert_eq!(l(1.0, -1074), 5e-324, "smallest denormal");
    assert_eq!(l(1.0, -1076), 0.0, "underflow");
    assert_eq!(l(1.5, -1074), 1e-323, "rounds to even once");
    assert_eq!(l(5e-324, 1074), 1.0, "from the denormal range");
    assert_eq!(l(f64::NEG_INFINITY, -5), f64::NEG_INFINITY);
    assert!(l(f64::NAN, 3).is_nan());
    let class = |x: f64, bit: u32| vf(Op::VCmpClassF64, [d(x), 1 << bit, 0]);
    assert_eq!(class(f64::NAN, 1), Some(true), "quiet NaN");
    assert_eq!(
        class(f64::from_bits(0x7ff0_0000_0000_0001), 0),
        Some(true),
        "signaling"
    );
    assert_eq!(class(f64::NEG_INFINITY, 2), Some(true));
    assert_eq!(class(-1.0, 3), Some(true));
    assert_eq!(class(-5e-324, 4), Some(true));
    assert_eq!(class(-0.0, 5), Some(true));
    assert_eq!(class(0.0, 6), Some(true));
    assert_eq!(class(5e-324, 7), Some(true));
    assert_eq!(class(1.0, 8), Some(true));
    assert_eq!(class(f64::INFINITY, 9), Some(true));
    assert_eq!(class(1.0, 9), Some(false));
    let r = f64::from_bits(v(Op::VRsqF64, [d(4.0), 0, 0]));
    assert_eq!(r, 0.5);
    assert_eq!(
        f64::from_bits(v(Op::VRsqF64, [d(0.0), 0, 0])),
        f64::INFINITY
    );
    assert!(f64::from_bits(v(Op::VRsqF64, [d(-1.0), 0, 0])).is_nan());
}

#[test]
fn integer_ops_clang_emits_at_the_edges() {
    // Signed bitfield extract: sign of the field's top bit; width 0 gives 0.
    assert_eq!(v(Op::VBfeI32, [0x0000_0080, 0, 8]), 0xffff_ff80);
    assert_eq!(v(Op::VBfeI32, [0x0000_0080, 0, 9]), 0x80);
    assert_eq!(v(Op::VBfeI32, [0xf000_0000, 28, 4]), 0xffff_ffff);
    assert_eq!(v(Op::VBfeI32, [0xffff_ffff, 3, 0]), 0);
    assert_eq!(
        v(Op::VBfiB32, [0xff00_ff00, 0x1234_5678, 0xabcd_ef01]),
        0x12cd_5601
    );
    assert_eq!(v(Op::VMed3I32, [(-5i32) as u32 as u64, 7, 0]), 0);
    assert_eq!(v(Op::VMed3I32, [9, (-1i32) as u32 as u64, 3]), 3);
    assert_eq!(v(Op::VMed3U32, [u64::from(u32::MAX), 7, 0]), 7);
    assert_eq!(v(Op::VAshrrevI64, [63, u64::MAX << 62, 0]), u64::MAX);
    assert_eq!(
        v(Op::VAshrrevI64, [64 + 4, 0x8000_0000_0000_0000, 0]),
        0xf800_0000_0000_0000
    );
    // v_mad_i64_i32: signed 32x32 product plus a 64-bit addend; the flag is overflow.
    let m = |a: i32, b: i32, c: i64| {
        vm(
            Op::VMadI64I32,
            Mods::default(),
            [a as u32 as u64, b as u32 as u64, c as u64],
        )
    };
    assert_eq!(m(-3, 5, 20).value, 5);
    assert_eq!(m(-3, 5, 20).flag, Some(false));
    assert_eq!(m(i32::MIN, i32::MIN, i64::MAX).flag, Some(true), "overflow");
    assert_eq!(
        m(i32::MIN, i32::MIN, i64::MAX).value,
        (i64::MAX as u64).wrapping_add(1 << 62)
    );
    let clamped = Mods {
        clamp: true,
        ..Mods::default()
    };
    let c = vm(
        Op::VMadI64I32,
        clamped,
        [
            i32::MIN as u32 as u64,
            i32::MIN as u32 as u64,
            i64::MAX as u64,
        ],
    );
    assert_eq!(c.value, i64::MAX as u64, "clamp saturates");
    // 64-bit compares.
    assert_eq!(vf(Op::VCmpLtI64, [u64::MAX, 0, 0]), Some(true));
    assert_eq!(vf(Op::VCmpGeU64, [u64::MAX, 0, 0]), Some(true));
    assert_eq!(vf(Op::VCmpGtI64, [1 << 63, 0, 0]), Some(false));
    // Negated f32 compares are true on NaN.
    assert_eq!(vf(Op::VCmpNgeF32, [f(f32::NAN), f(1.0), 0]), Some(true));
    assert_eq!(vf(Op::VCmpNleF32, [f(2.0), f(1.0), 0]), Some(true));
    assert_eq!(vf(Op::VCmpNleF32, [f(1.0), f(1.0), 0]), Some(false));
    assert_eq!(
        vf(Op::VCmpGtF16, [0x3c00, 0xfc00, 0]),
        Some(true),
        "1 > -inf"
    );
    assert_eq!(
        vf(Op::VCmpGtF16, [0x7e00, 0x0000, 0]),
        Some(false),
        "NaN is unordered"
    );
    // s_abs_i32: i32::MIN stays (its absolute value wraps); SCC = result != 0.
    assert_eq!(
        sc(Op::SAbsI32, i32::MIN as u32 as u64, 0, false).value,
        0x8000_0000
    );
    assert_eq!(sc(Op::SAbsI32, (-7i32) as u32 as u64, 0, false).value, 7);
    assert_eq!(sc(Op::SAbsI32, 0, 0, true).flag, Some(false));
    // DX9 multiply: zero times anything is +0.
    assert_eq!(v(Op::VMulDx9ZeroF32, [f(0.0), f(f32::INFINITY), 0]), f(0.0));
    assert_eq!(v(Op::VMulDx9ZeroF32, [f(f32::NAN), f(-0.0), 0]), f(0.0));
    assert_eq!(v(Op::VMulDx9ZeroF32, [f(-2.0), f(3.0), 0]), f(-6.0));
    // v_fmaak: S0 * S1 + K, one rounding; f16 form too.
    assert_eq!(v(Op::VFmaakF32, [f(3.0), f(4.0), f(0.5)]), f(12.5));
    assert_eq!(
        v(Op::VFmaakF16, [0x4200, 0x4400, 0x3800]),
        0x4a40,
        "3 * 4 + 0.5"
    );
    // dot2acc: two f16 products plus the f32 accumulator (src2 = the destination).
    assert_eq!(
        v(Op::VDot2accF32F16, [0x4000_3c00, 0x4400_3800, f(0.25)]),
        f(8.75)
    );
    assert_eq!(
        v(Op::VDot2accF32F16, [0x7c00, 0x3c00, f(1.0)]),
        f(f32::INFINITY)
    );
}

#[test]
fn f64_rounding_and_min_at_the_edges() {
    use Op::*;
    let nan = f64::NAN;
    for (op, x, want) in [
        (VFloorF64, -0.5, -1.0),
        (VCeilF64, -0.5, -0.0),
        (VTruncF64, -2.75, -2.0),
        (VRndneF64, 2.5, 2.0),
        (VRndneF64, -3.5, -4.0),
        (VFloorF64, f64::INFINITY, f64::INFINITY),
        (VCeilF64, 5e-324, 1.0),
        (VFloorF64, -5e-324, -1.0),
        (VTruncF64, 1e300, 1e300),
    ] {
        assert_eq!(v(op, [d(x), 0, 0]), d(want), "{op:?}({x:e})");
    }
    // NaN in: the canonical quiet NaN out.
    assert_eq!(v(VRndneF64, [d(nan), 0, 0]), 0x7ff8_0000_0000_0000);
    // min: one NaN gives the other operand; -0 < +0.
    assert_eq!(v(VMinF64, [d(nan), d(3.0), 0]), d(3.0));
    assert_eq!(v(VMinF64, [d(0.0), d(-0.0), 0]), d(-0.0));
    assert_eq!(
        v(VMinF64, [d(f64::NEG_INFINITY), d(-1e308), 0]),
        d(f64::NEG_INFINITY)
    );
}

#[test]
fn sixteen_bit_integer_ops_wrap_or_saturate() {
    use Op::*;
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    // The high halves of the sources are ignored; results are 16 bits.
    assert_eq!(v(VAddU16, [0x1_ffff, 0x2_0002, 0]), 0x0001);
    assert_eq!(vm(VAddU16, clamp, [0xffff, 2, 0]).value, 0xffff);
    assert_eq!(v(VSubU16, [1, 2, 0]), 0xffff);
    assert_eq!(vm(VSubNcU16, clamp, [1, 2, 0]).value, 0);
    assert_eq!(v(VAddI16, [0x7fff, 1, 0]), 0x8000);
    assert_eq!(vm(VAddI16, clamp, [0x7fff, 1, 0]).value, 0x7fff);
    assert_eq!(vm(VAddI16, clamp, [0x8000, 0xffff, 0]).value, 0x8000);
    // Shift amounts use 4 bits; the shifted value is src1.
    assert_eq!(v(VLshlrevB16, [17, 0x8001, 0]), 0x0002);
    assert_eq!(v(VLshrrevB16Vop3, [15, 0x8000, 0]), 1);
    assert_eq!(v(VMinI16, [0x8000, 0x7fff, 0]), 0x8000);
    assert_eq!(v(VMadU16, [0xffff, 0xffff, 3]), 4);
    assert_eq!(vm(VMadLegacyU16, clamp, [0x100, 0x100, 0]).value, 0xffff);
}

#[test]
fn i24_multiplies_sign_extend_bit_23() {
    use Op::*;
    assert_eq!(v(VMulI32I24, [0x80_0000, 2, 0]), 0xff00_0000);
    assert_eq!(v(VMulI32I24, [0xff_ffff, 0xff_ffff, 0]), 1);
    // Bits above 23 are ignored.
    assert_eq!(v(VMulI32I24, [0xff00_0003, 0x0100_0005, 0]), 15);
    assert_eq!(v(VMadI32I24, [0xff_ffff, 5, 0x8000_0000]), 0x7fff_fffb);
}

#[test]
fn mac_rounds_the_product_and_packed_i16_ops_saturate() {
    use Op::*;
    // (1 + 3e)^2 = 1 + 6e + 9e^2 (e = 2^-23): v_mac rounds the product to 1 + 6e
    // before adding -1; the fused v_fmac keeps 9e^2.
    let x = f(1.0 + 3.0 * f32::EPSILON);
    assert_eq!(v(VMacF32, [x, x, f(-1.0)]), f(6.0 * f32::EPSILON));
    assert_ne!(v(VFmacF32, [x, x, f(-1.0)]), v(VMacF32, [x, x, f(-1.0)]));
    let p = Mods::vop3p();
    assert_eq!(
        vm(VPkSubI16, p, [0x8000_0001, 0x0001_0002, 0]).value,
        0x7fff_ffff
    );
    let pc = Mods { clamp: true, ..p };
    assert_eq!(
        vm(VPkSubI16, pc, [0x8000_0001, 0x0001_0002, 0]).value,
        0x8000_ffff
    );
    assert_eq!(
        vm(VPkAshrrevI16, p, [0x0011_0004, 0x8000_8000, 0]).value,
        0xc000_f800
    );
    assert_eq!(
        vm(VPkMadU16, pc, [0x0100_0002, 0x0100_0003, 0x0000_0001]).value,
        0xffff_0007
    );
}

#[test]
fn fma_mix_reads_f16_halves_and_f32() {
    use Op::*;
    let h = |x: f32| u64::from(f16_from_f32(x));
    // src0 f16 from the high half, src1 f32, src2 f16 low half with abs and neg.
    let m = Mods {
        op_sel: 0b001,
        op_sel_hi: 0b101,
        neg: 0b100,
        neg_hi: 0b100,
        ..Mods::default()
    };
    let s0 = h(1.5) << 16 | h(7.0);
    assert_eq!(vm(VFmaMixF32, m, [s0, f(2.0), h(-0.25)]).value, f(2.75));
    // All f32: an ordinary single-rounding fma.
    let x = f(1.0 + f32::EPSILON);
    assert_eq!(
        vm(VFmaMixF32, Mods::default(), [x, x, f(-1.0)]).value,
        f((1.0 + f32::EPSILON).mul_add(1.0 + f32::EPSILON, -1.0))
    );
    // Infinity times zero is NaN; clamp sends NaN to +0.
    let c = Mods {
        clamp: true,
        ..Mods::default()
    };
    assert_eq!(vm(VFmaMixF32, c, [f(f32::INFINITY), 0, 0]).value, 0);
}
