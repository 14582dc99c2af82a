//! Unit tests without LLVM: known encodings (from the reference kernels assembled by
//! llvm-mc-19), table consistency, and error reporting.

use super::*;

fn w(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn wc(vm: u8, exp: u8, lgkm: u8) -> Operand {
    Operand::Waitcnt(Waitcnt { vm, exp, lgkm })
}

/// (target, instruction, llvm text, llvm-mc-19 bytes)
fn known() -> Vec<(IsaTarget, Instr, &'static str, Vec<u32>)> {
    use IsaTarget::*;
    let max9 = Waitcnt::max(IsaFamily::Gfx9);
    let max11 = Waitcnt::max(IsaFamily::Gfx11);
    vec![
        // Shared-memory min/max (llvm-mc-19 -show-encoding).
        (
            Gfx90a,
            Instr::new(Op::DsMinU32, [v(1), v(2)]),
            "ds_min_u32 v1, v2",
            w(&[0x00, 0x00, 0x0e, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        ),
        (
            Gfx908,
            Instr::new(Op::DsMaxI32, [v(1), v(2)]),
            "ds_max_i32 v1, v2",
            w(&[0x00, 0x00, 0x0c, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        ),
        (
            Gfx942,
            Instr::new(Op::DsMinRtnI32, [v(3), v(1), v(2)]),
            "ds_min_rtn_i32 v3, v1, v2",
            w(&[0x00, 0x00, 0x4a, 0xd8, 0x01, 0x02, 0x00, 0x03]),
        ),
        (
            Gfx90a,
            Instr::new(Op::DsMaxRtnU32, [v(3), v(1), v(2)]),
            "ds_max_rtn_u32 v3, v1, v2",
            w(&[0x00, 0x00, 0x50, 0xd8, 0x01, 0x02, 0x00, 0x03]),
        ),
        (
            Gfx1100,
            Instr::new(Op::DsMinRtnU32, [v(3), v(1), v(2)]),
            "ds_min_rtn_u32 v3, v1, v2",
            w(&[0x00, 0x00, 0x9c, 0xd8, 0x01, 0x02, 0x00, 0x03]),
        ),
        (
            Gfx1100,
            Instr::new(Op::DsMaxRtnI32, [v(3), v(1), v(2)]),
            "ds_max_rtn_i32 v3, v1, v2",
            w(&[0x00, 0x00, 0x98, 0xd8, 0x01, 0x02, 0x00, 0x03]),
        ),
        (
            Gfx1100,
            Instr::new(Op::DsMaxI32, [v(1), v(2)]),
            "ds_max_i32 v1, v2",
            w(&[0x00, 0x00, 0x18, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        ),
        (
            Gfx90a,
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            "s_load_dwordx4 s[4:7], s[0:1], 0x0",
            w(&[0x00, 0x01, 0x0a, 0xc0, 0, 0, 0, 0]),
        ),
        (
            Gfx90a,
            Instr::new(Op::SLoadDwordx2, [sr(8, 2), sr(0, 2)]).offset(0x10),
            "s_load_dwordx2 s[8:9], s[0:1], 0x10",
            w(&[0x00, 0x02, 0x06, 0xc0, 0x10, 0, 0, 0]),
        ),
        (
            Gfx90a,
            Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(3), v(0)]),
            "v_lshlrev_b32_e32 v1, 3, v0",
            w(&[0x83, 0x00, 0x02, 0x24]),
        ),
        (
            Gfx90a,
            Instr::new(Op::SWaitcnt, [wc(max9.vm, max9.exp, 0)]),
            "s_waitcnt lgkmcnt(0)",
            w(&[0x7f, 0xc0, 0x8c, 0xbf]),
        ),
        (
            Gfx90a,
            Instr::new(Op::GlobalLoadDwordx2, [vr(2, 2), v(1), sr(4, 2)]),
            "global_load_dwordx2 v[2:3], v1, s[4:5]",
            w(&[0x00, 0x80, 0x54, 0xdc, 0x01, 0x00, 0x04, 0x02]),
        ),
        (
            Gfx90a,
            Instr::new(
                Op::VMfmaF32_32x32x8F16,
                [vr(8, 16), vr(2, 2), vr(4, 2), Operand::Int(0)],
            ),
            "v_mfma_f32_32x32x8f16 v[8:23], v[2:3], v[4:5], 0",
            w(&[0x08, 0x00, 0xcc, 0xd3, 0x02, 0x09, 0x02, 0x02]),
        ),
        (
            Gfx90a,
            Instr::new(
                Op::VMfmaF32_32x32x8F16,
                [ar(0, 16), vr(2, 2), vr(4, 2), ar(0, 16)],
            )
            .with_mods(Mods {
                cbsz: 1,
                abid: 2,
                blgp: 3,
                ..Mods::default()
            }),
            "v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[4:5], a[0:15] cbsz:1 abid:2 blgp:3",
            w(&[0x00, 0x91, 0xcc, 0xd3, 0x02, 0x09, 0x02, 0x64]),
        ),
        (
            Gfx908,
            Instr::new(
                Op::VMfmaF32_32x32x8F16,
                [ar(0, 16), vr(2, 2), vr(4, 2), ar(0, 16)],
            )
            .with_mods(Mods {
                cbsz: 1,
                abid: 2,
                blgp: 3,
                ..Mods::default()
            }),
            "v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[4:5], a[0:15] cbsz:1 abid:2 blgp:3",
            w(&[0x00, 0x11, 0xcc, 0xd3, 0x02, 0x09, 0x02, 0x64]),
        ),
        (
            Gfx942,
            Instr::new(
                Op::VMfmaF64_16x16x4F64,
                [vr(0, 8), vr(2, 2), vr(4, 2), vr(0, 8)],
            ),
            "v_mfma_f64_16x16x4_f64 v[0:7], v[2:3], v[4:5], v[0:7]",
            w(&[0x00, 0x00, 0xee, 0xd3, 0x02, 0x09, 0x02, 0x04]),
        ),
        (
            Gfx90a,
            Instr::new(Op::SNop, [Operand::Imm(7)]),
            "s_nop 7",
            w(&[0x07, 0x00, 0x80, 0xbf]),
        ),
        (
            Gfx90a,
            Instr::new(Op::GlobalStoreDwordx4, [v(6), vr(12, 4), sr(8, 2)]).offset(16),
            "global_store_dwordx4 v6, v[12:15], s[8:9] offset:16",
            w(&[0x10, 0x80, 0x7c, 0xdc, 0x06, 0x0c, 0x08, 0x00]),
        ),
        (
            Gfx90a,
            Instr::new(Op::SEndpgm, []),
            "s_endpgm",
            w(&[0x00, 0x00, 0x81, 0xbf]),
        ),
        (
            Gfx90a,
            Instr::new(Op::VAddF32, [v(1), v(2), v(3)])
                .e64()
                .with_mods(Mods {
                    neg: 1,
                    abs: 2,
                    clamp: true,
                    omod: 1,
                    ..Mods::default()
                }),
            "v_add_f32_e64 v1, -v2, |v3| clamp mul:2",
            w(&[0x01, 0x82, 0x01, 0xd1, 0x02, 0x07, 0x02, 0x28]),
        ),
        (
            Gfx1100,
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            "s_load_b128 s[4:7], s[0:1], null",
            w(&[0x00, 0x01, 0x08, 0xf4, 0x00, 0x00, 0x00, 0xf8]),
        ),
        (
            Gfx1100,
            Instr::new(Op::VLshlrevB32, [v(24), Operand::Int(5), v(0)]),
            "v_lshlrev_b32_e32 v24, 5, v0",
            w(&[0x85, 0x00, 0x30, 0x30]),
        ),
        (
            Gfx1100,
            Instr::new(Op::SWaitcnt, [wc(max11.vm, max11.exp, 0)]),
            "s_waitcnt lgkmcnt(0)",
            w(&[0x07, 0xfc, 0x89, 0xbf]),
        ),
        (
            Gfx1100,
            Instr::new(Op::GlobalLoadDwordx4, [vr(4, 4), v(24), sr(4, 2)]).offset(16),
            "global_load_b128 v[4:7], v24, s[4:5] offset:16",
            w(&[0x10, 0x00, 0x5e, 0xdc, 0x18, 0x00, 0x04, 0x04]),
        ),
        (
            Gfx1100,
            Instr::new(
                Op::VWmmaF32_16x16x16F16,
                [vr(16, 8), vr(0, 8), vr(8, 8), vr(16, 8)],
            ),
            "v_wmma_f32_16x16x16_f16 v[16:23], v[0:7], v[8:15], v[16:23]",
            w(&[0x10, 0x40, 0x40, 0xcc, 0x00, 0x11, 0x42, 0x1c]),
        ),
        (
            Gfx1100,
            Instr::new(Op::GlobalStoreDwordx4, [v(24), vr(20, 4), sr(8, 2)]).offset(16),
            "global_store_b128 v24, v[20:23], s[8:9] offset:16",
            w(&[0x10, 0x00, 0x76, 0xdc, 0x18, 0x14, 0x08, 0x00]),
        ),
        (
            Gfx1100,
            Instr::new(Op::SEndpgm, []),
            "s_endpgm",
            w(&[0x00, 0x00, 0xb0, 0xbf]),
        ),
        (
            Gfx1100,
            Instr::new(
                Op::VFmaF32,
                [v(1), Operand::Literal(0x1234_5678), v(3), s(4)],
            ),
            "v_fma_f32 v1, 0x12345678, v3, s4",
            w(&[
                0x01, 0x00, 0x13, 0xd6, 0xff, 0x06, 0x12, 0x00, 0x78, 0x56, 0x34, 0x12,
            ]),
        ),
        (
            Gfx1100,
            Instr::new(
                Op::GlobalAtomicAddF32Rtn,
                [v(0), vr(2, 2), v(1), Operand::Off],
            )
            .cache(Cache::GLC),
            "global_atomic_add_f32 v0, v[2:3], v1, off glc",
            w(&[0x00, 0x40, 0x5a, 0xdd, 0x02, 0x01, 0x7c, 0x00]),
        ),
    ]
}

#[test]
fn known_encodings_round_trip() {
    for (t, instr, text, words) in known() {
        let got = encode(&instr, t).unwrap_or_else(|e| panic!("{text} on {t}: {e}"));
        assert_eq!(got, words, "{text} on {t}");
        assert_eq!(instr.display(t).to_string(), text, "{t}");
        let (back, n) = decode(&words, t).unwrap_or_else(|e| panic!("{text} on {t}: {e}"));
        assert_eq!(n, words.len(), "{text}");
        assert_eq!(back, instr, "{text} on {t}");
    }
}

#[test]
fn table_is_in_enum_order_and_consistent() {
    for (i, info) in OPS.iter().enumerate() {
        assert_eq!(info.op as usize, i, "{:?}", info.op);
        let any = info.opcode.iter().any(|&o| o != NA);
        assert!(any, "{:?} has no target", info.op);
    }
}

#[test]
fn target_rules_are_enforced() {
    use IsaTarget::*;
    // Unaligned VGPR tuples: legal on gfx908, rejected on gfx90a and gfx942.
    let i = Instr::new(Op::GlobalLoadDwordx2, [vr(1, 2), v(1), sr(4, 2)]);
    assert!(encode(&i, Gfx908).is_ok());
    for t in [Gfx90a, Gfx942] {
        let e = encode(&i, t).unwrap_err().to_string();
        assert!(e.contains("multiple of 2"), "{e}");
    }
    // gfx908 MFMA needs AGPR C/D.
    let m = Instr::new(
        Op::VMfmaF32_32x32x8F16,
        [vr(0, 16), vr(2, 2), vr(4, 2), vr(0, 16)],
    );
    assert!(encode(&m, Gfx908).is_err());
    assert!(encode(&m, Gfx90a).is_ok());
    // Missing instructions name the target.
    let x = Instr::new(
        Op::VMfmaF32_32x32x4Xf32,
        [ar(0, 16), vr(2, 2), vr(4, 2), ar(0, 16)],
    );
    let e = encode(&x, Gfx90a).unwrap_err().to_string();
    assert!(e.contains("gfx90a"), "{e}");
    assert!(encode(&x, Gfx942).is_ok());
    // gfx9 VOP3 takes no literal and one scalar value.
    let lit = Instr::new(
        Op::VFmaF32,
        [v(1), Operand::Literal(0x1234_5678), v(3), v(4)],
    );
    assert!(encode(&lit, Gfx90a).is_err());
    assert!(encode(&lit, Gfx1100).is_ok());
    let two = Instr::new(Op::VFmaF32, [v(1), s(2), s(3), v(4)]);
    assert!(encode(&two, Gfx90a).is_err());
    assert!(encode(&two, Gfx1100).is_ok());
    // Wrong operand counts and widths are errors, not panics.
    assert!(encode(&Instr::new(Op::VAddF32, [v(1)]), Gfx90a).is_err());
    assert!(encode(&Instr::new(Op::SMovB64, [s(1), sr(2, 2)]), Gfx90a).is_err());
    // Modifiers a form lacks are rejected.
    let bad = Instr::new(Op::SMovB32, [s(1), s(2)]).offset(4);
    assert!(encode(&bad, Gfx90a).is_err());
    // Bits outside the model are reported, not dropped: gfx11 VOP3 op_sel
    // (`v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]`) and a DPP source (code 250).
    let e = decode(&[0xd648_0801, 0x0412_0702], Gfx1100)
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside the model"), "{e}");
    assert!(decode(&[0x7e02_02fa, 0x00ff_0000], Gfx90a).is_err());
    // Truncated and unknown words are errors.
    assert!(decode(&[0xd3cc_9100], Gfx90a).is_err());
    assert!(decode(&[], Gfx90a).is_err());
    assert!(decode(&[0xffff_ffff], Gfx1100).is_err());
}

#[test]
fn waitcnt_fields_round_trip() {
    for fam in [IsaFamily::Gfx9, IsaFamily::Gfx11] {
        let m = Waitcnt::max(fam);
        for vm in 0..=m.vm {
            for exp in 0..=m.exp {
                for lgkm in [0, 1, m.lgkm / 2, m.lgkm] {
                    let w = Waitcnt { vm, exp, lgkm };
                    let raw = w.encode(fam).unwrap();
                    assert_eq!(Waitcnt::decode(raw, fam), Some(w));
                }
            }
        }
    }
}

#[test]
fn targets_from_arch() {
    use crate::target::Arch;
    assert_eq!(
        IsaTarget::from_arch(Arch::Gfx942).unwrap(),
        IsaTarget::Gfx942
    );
    assert!(IsaTarget::from_arch(Arch::Sm90).is_err());
    for t in IsaTarget::ALL {
        assert_eq!(
            t.wave_size(),
            if t.family() == IsaFamily::Gfx9 {
                64
            } else {
                32
            }
        );
    }
}

#[test]
fn matrix_instructions_of_the_target_table_are_modelled() {
    use crate::target::{Arch, MatrixKind};
    for t in IsaTarget::ALL {
        let arch = match t {
            IsaTarget::Gfx908 => Arch::Gfx908,
            IsaTarget::Gfx90a => Arch::Gfx90a,
            IsaTarget::Gfx942 => Arch::Gfx942,
            IsaTarget::Gfx1100 => Arch::Gfx1100,
            IsaTarget::Gfx1101 => Arch::Gfx1101,
            IsaTarget::Gfx1102 => Arch::Gfx1102,
            IsaTarget::Gfx1151 => Arch::Gfx1151,
        };
        let caps = arch.caps();
        for m in caps.matrix {
            assert!(matches!(m.kind, MatrixKind::Mfma | MatrixKind::Wmma));
            let op = Op::from_mnemonic(m.mnemonic, t)
                .unwrap_or_else(|| panic!("{} on {t} is not in the ISA table", m.mnemonic));
            let form = op.info().form;
            assert!(matches!(form, Form::Mai | Form::Wmma), "{:?}", op);
        }
    }
}

#[test]
fn defs_and_uses_follow_the_slots() {
    let i = Instr::new(
        Op::VAddcCoU32,
        [v(1), Operand::Vcc, v(2), v(3), Operand::Vcc],
    );
    let defs: Vec<_> = i.defs().copied().collect();
    let uses: Vec<_> = i.uses().copied().collect();
    assert_eq!(defs, [v(1), Operand::Vcc]);
    assert_eq!(uses, [v(2), v(3), Operand::Vcc]);
    let st = Instr::new(Op::GlobalStoreDword, [vr(2, 2), v(1), Operand::Off]);
    assert_eq!(st.defs().count(), 0);
    assert_eq!(st.uses().count(), 3);
    // A stream encodes as the concatenation of its instructions.
    let t = IsaTarget::Gfx90a;
    let prog = [
        Instr::new(Op::SNop, [Operand::Imm(0)]),
        Instr::new(Op::VMovB32, [v(0), Operand::Literal(0x1234_5678)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let words = encode_all(&prog, t).unwrap();
    assert_eq!(words.len(), 4);
    assert_eq!(decode_all(&words, t).unwrap(), prog);
    let listing = disassemble(&words, t).unwrap();
    assert!(
        listing.contains("v_mov_b32_e32 v0, 0x12345678"),
        "{listing}"
    );
    assert!(listing.contains("// 00000C: BF810000"), "{listing}");
    let target: crate::target::Target = "gfx90a:xnack-".parse().unwrap();
    assert_eq!(IsaTarget::try_from(&target).unwrap(), IsaTarget::Gfx90a);
    assert_eq!(
        Op::from_mnemonic("v_add_nc_u32_e64", IsaTarget::Gfx1100),
        Some(Op::VAddU32)
    );
    assert_eq!(Op::from_mnemonic("v_add_nc_u32", IsaTarget::Gfx90a), None);
}

/// Arbitrary words and arbitrary operand lists never panic: the decoder returns an
/// instruction that re-encodes to the same words or an error, and the encoder and
/// printer accept or reject anything.
#[test]
fn garbage_never_panics() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(7);
    let ops: Vec<Op> = Op::all().collect();
    let mut decoded = 0;
    for k in 0..20_000 {
        let t = IsaTarget::ALL[k % IsaTarget::ALL.len()];
        // Random words, biased towards valid prefixes by taking the prefix of a real op.
        let mut words: Vec<u32> = (0..3).map(|_| rng.random()).collect();
        if k % 2 == 0 {
            let op = ops[rng.random_range(0..ops.len())];
            if let Ok(w) = encode(&Instr::new(op, Vec::new()), t) {
                words[0] = (w[0] & 0xffff_0000) | (words[0] & 0xffff);
            }
        }
        if let Ok((i, n)) = decode(&words, t) {
            decoded += 1;
            assert_eq!(encode(&i, t).unwrap(), words[..n].to_vec());
            let _ = i.display(t).to_string();
        }
        // Random operands of random kinds.
        let op = ops[rng.random_range(0..ops.len())];
        let n = rng.random_range(0..6);
        let operands: Vec<Operand> = (0..n)
            .map(|_| {
                let r = RegRange::new(rng.random_range(0..300), rng.random_range(0..20));
                match rng.random_range(0..10) {
                    0 => Operand::Sgpr(r),
                    1 => Operand::Vgpr(r),
                    2 => Operand::Agpr(r),
                    3 => Operand::Int(rng.random()),
                    4 => Operand::Literal(rng.random()),
                    5 => Operand::Imm(rng.random()),
                    6 => Operand::Waitcnt(Waitcnt {
                        vm: rng.random(),
                        exp: rng.random(),
                        lgkm: rng.random(),
                    }),
                    7 => Operand::Off,
                    8 => Operand::Vcc,
                    _ => Operand::Float(InlineFloat::One),
                }
            })
            .collect();
        let mut i = Instr::new(op, operands);
        i.vop3 = rng.random_bool(0.3);
        i.mods.offset = rng.random_range(-70_000..70_000);
        i.mods.cbsz = rng.random_range(0..10);
        let _ = encode(&i, t);
        let _ = i.display(t).to_string();
    }
    assert!(decoded > 100, "only {decoded} random words decoded");
}

#[test]
fn memory_instructions_name_their_wait_counter() {
    use IsaTarget::*;
    let load = Instr::new(Op::GlobalLoadDword, [v(1), vr(2, 2), Operand::Off]);
    let store = Instr::new(Op::GlobalStoreDword, [vr(2, 2), v(1), Operand::Off]);
    let smem = Instr::new(Op::SLoadDword, [s(1), sr(2, 2)]);
    let lds = Instr::new(Op::DsReadB32, [v(1), v(2)]);
    let alu = Instr::new(Op::VAddF32, [v(1), v(2), v(3)]);
    assert_eq!(load.counter(Gfx90a), Some(Counter::Vm));
    assert_eq!(store.counter(Gfx90a), Some(Counter::Vm));
    assert_eq!(load.counter(Gfx1100), Some(Counter::Vm));
    assert_eq!(store.counter(Gfx1100), Some(Counter::Vs));
    assert_eq!(smem.counter(Gfx1100), Some(Counter::Lgkm));
    assert_eq!(lds.counter(Gfx942), Some(Counter::Lgkm));
    assert_eq!(alu.counter(Gfx942), None);
}

mod hostile {
    //! Random and truncated words into the decoder, random and damaged code objects
    //! into the loader: an error or a result, never a panic.
    use super::super::codeobj::CodeObject;
    use super::*;
    use proptest::prelude::*;

    /// Words that look like instructions of every form (prefix bits drawn from the
    /// forms' prefixes) more often than uniform random words would.
    fn word() -> impl Strategy<Value = u32> {
        prop_oneof![
            any::<u32>(),
            (0u32..64, any::<u32>()).prop_map(|(p, r)| p << 26 | r >> 6),
            (0u32..512, any::<u32>()).prop_map(|(p, r)| p << 23 | r >> 9),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn decoding_random_words_never_panics(words in proptest::collection::vec(word(), 0..6)) {
            for t in IsaTarget::ALL {
                for n in 0..=words.len() {
                    if let Ok((i, used)) = decode(&words[..n], t) {
                        prop_assert!(used >= 1 && used <= n);
                        // Whatever decodes prints and encodes back to its words.
                        let _ = i.display(t).to_string();
                        prop_assert_eq!(encode(&i, t).map(|e| e.len()).ok(), Some(used));
                    }
                }
                let _ = decode_all(&words, t);
                let _ = disassemble(&words, t);
            }
        }

        #[test]
        fn parsing_random_bytes_as_a_code_object_never_panics(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let _ = CodeObject::parse(&bytes);
        }

        #[test]
        fn parsing_a_damaged_code_object_never_panics(
            cut in 0usize..4096,
            flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        ) {
            let mut elf = sample_elf().to_vec();
            for (at, x) in flips {
                let n = elf.len();
                elf[at % n] ^= x;
            }
            elf.truncate(cut.min(elf.len()));
            let _ = CodeObject::parse(&elf);
        }
    }

    /// A small valid code object.
    fn sample_elf() -> &'static [u8] {
        use super::super::codeobj::{CodeObjectTarget, Kernel, KernelResources};
        static ELF: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        ELF.get_or_init(|| {
            let t = IsaTarget::Gfx90a;
            let ct = CodeObjectTarget::new(t);
            let code = [
                Instr::new(Op::VMovB32, [v(1), Operand::Int(3)]),
                Instr::new(Op::SEndpgm, []),
            ];
            let k = Kernel::build(ct, "k", &code, &KernelResources::new(t), vec![], 256).unwrap();
            CodeObject {
                target: ct,
                kernels: vec![k],
            }
            .to_elf()
            .unwrap()
        })
    }

    #[test]
    fn decode_errors_say_what_was_wrong() {
        let t = IsaTarget::Gfx90a;
        // A VOP3 whose second dword is missing.
        let e = decode(&[0xd1cb_0000], t).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = decode(&[], t).unwrap_err().to_string();
        assert!(e.contains("no words"), "{e}");
        // The listing names the byte offset of the bad instruction.
        let e = disassemble(&[0xbf81_0000, 0xd1cb_0000], t)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at byte 0x4"), "{e}");
    }
}
