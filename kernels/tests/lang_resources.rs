//! Code quality of the kernel language's lowerings against the hand-written emitters
//! they replaced: Level 1 copy and axpby (f32/f64, contiguous and strided, grid-stride
//! on and off) written in the language (`lang::level1`) under ptxas for sm_80 and
//! sm_90 and by the AMDGPU resource report on gfx908, gfx90a, gfx942 and gfx1100, and
//! the reductions dot, asum, nrm2 and iamax (sm_90 registers, AMDGPU VGPRs and
//! occupancy),
//! beside the figures the deleted hand-written kernels had
//! (`data/level1_hand_written_resources.txt`). Every row is printed (`--nocapture`);
//! the test fails where the language's kernel spills, needs more registers than the
//! hand-written one, or loses occupancy, except for the gaps listed in
//! `data/lang_resource_gaps.txt`, each of which must still be a gap (a closed gap is
//! removed from the list). The rank-update kernel (`lang::level2::rank`, every dtype,
//! op and storage at the fallback shape) is compared the same way with the deleted
//! hand-written PTX and AMDGPU emitters (`data/rank_hand_written_resources.txt`).

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Target};
use rocm_kernels::lang::{amdgpu, ptx, KernelDef};
use rocm_kernels::level1::{L1Op, Level1Params};
use rocm_kernels::level2::rank::{RankOp, RankParams};
use rocm_kernels::level2::Storage;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

const AMD: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];

/// The rows where the language's kernel is still worse, one `name | target | measure`
/// a line (`measure`: `regs` for PTX registers, `vgprs`, `sgprs` or `occupancy`).
const KNOWN_GAPS: &str = include_str!("data/lang_resource_gaps.txt");

/// The deleted hand-written kernels' figures, `name | target | measure | value` a line.
const HAND_WRITTEN: &str = include_str!("data/level1_hand_written_resources.txt");

/// The deleted hand-written rank-update kernels' figures, in the same form.
const RANK_HAND_WRITTEN: &str = include_str!("data/rank_hand_written_resources.txt");

/// The figure of a row in `data` (`name | target | measure | value` lines), where one
/// was recorded (the reductions' sm_80 registers and SGPRs never were: those rows are
/// not compared).
fn figure(data: &str, name: &str, target: &str, measure: &str) -> Option<u32> {
    data.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .find_map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "hand-written line `{l}`");
            (f[0] == name && f[1] == target && f[2] == measure)
                .then(|| f[3].parse().unwrap_or_else(|e| panic!("`{l}`: {e}")))
        })
}

/// The reductions measured: the fallback variant of dot, asum, nrm2 and iamax (f32,
/// f64, contiguous and strided); their hand-written figures cover sm_90 registers and
/// the AMDGPU VGPRs and occupancy only.
fn reductions() -> Vec<(String, Level1Params)> {
    let mut out = Vec::new();
    for (op, op_name) in [
        (L1Op::Dot { conj: false }, "dot"),
        (L1Op::Asum, "asum"),
        (L1Op::Nrm2, "nrm2"),
        (L1Op::Iamax { max: true }, "iamax"),
    ] {
        for dtype in [DType::F32, DType::F64] {
            for contiguous in [true, false] {
                let name = format!(
                    "{op_name} {dtype} {}",
                    if contiguous { "contiguous" } else { "strided" }
                );
                out.push((name, Level1Params::fallback(op, dtype, contiguous)));
            }
        }
    }
    out
}

fn known_gaps() -> Vec<(String, String, String)> {
    KNOWN_GAPS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 3, "gap line `{l}`");
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

/// The variants measured: the catalog's default shape of each (256 work-items, 4
/// units each, 16-byte vectors when contiguous).
fn variants() -> Vec<(String, Level1Params)> {
    let mut out = Vec::new();
    for (op, op_name) in [
        (L1Op::Copy, "copy"),
        (L1Op::Axpby { read_y: true }, "axpby"),
    ] {
        for dtype in [DType::F32, DType::F64] {
            for contiguous in [true, false] {
                for grid_stride in [false, true] {
                    let p = Level1Params {
                        grid_stride,
                        ..Level1Params::fallback(op, dtype, contiguous)
                    };
                    let name = format!(
                        "{op_name} {dtype} {}{}",
                        if contiguous { "contiguous" } else { "strided" },
                        if grid_stride { " grid-stride" } else { "" }
                    );
                    out.push((name, p));
                }
            }
        }
    }
    out
}

/// One comparison: the language's figure against the hand-written one, where a larger
/// figure is worse unless `higher_is_better`.
struct Row {
    name: String,
    target: String,
    measure: &'static str,
    language: u32,
    hand: u32,
    higher_is_better: bool,
}

impl Row {
    fn worse(&self) -> bool {
        if self.higher_is_better {
            self.language < self.hand
        } else {
            self.language > self.hand
        }
    }
}

/// Checks every row against [`KNOWN_GAPS`]: a gap not listed fails, and so does a
/// listed gap that closed.
fn check(rows: &[Row]) {
    let gaps = known_gaps();
    let mut failures = Vec::new();
    for r in rows {
        let listed = gaps
            .iter()
            .any(|(n, t, m)| *n == r.name && *t == r.target && m == r.measure);
        let mark = if r.worse() { "WORSE" } else { "ok" };
        println!(
            "{:<36} {:<8} {:<10} language {:>3}  hand-written {:>3}  {mark}",
            r.name, r.target, r.measure, r.language, r.hand
        );
        match (r.worse(), listed) {
            (true, false) => failures.push(format!(
                "{} | {} | {}: language {}, hand-written {} (a regression)",
                r.name, r.target, r.measure, r.language, r.hand
            )),
            (false, true) => failures.push(format!(
                "{} | {} | {}: closed ({} vs {}); remove it from data/lang_resource_gaps.txt",
                r.name, r.target, r.measure, r.language, r.hand
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Prints the language kernel's code when `LANG_LISTING` is `<row name>@<target>`
/// (for looking at what a row's registers go to).
fn show_listing(name: &str, target: &str, text: &str) {
    if std::env::var("LANG_LISTING").is_ok_and(|v| v == format!("{name}@{target}")) {
        println!("{text}");
    }
}

/// Each named kernel `defs(target)` builds, under ptxas for sm_80 and sm_90 (no
/// spills, no warnings), beside its figure in `data`.
fn ptx_rows(
    ptxas: &Ptxas,
    data: &str,
    defs: &dyn Fn(&Target) -> Vec<(String, KernelDef)>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for sm in ["sm_80", "sm_90"] {
        let t: Target = sm.parse().unwrap();
        for (name, def) in defs(&t) {
            let lang = ptx::lower(&def).unwrap();
            show_listing(&name, sm, &lang);
            let r = ptxas
                .compile(&lang, &t)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(r.warnings.is_empty(), "{name} on {sm}: {:?}", r.warnings);
            let l = r.kernel(&def.name).unwrap();
            assert_eq!(
                (l.spill_stores, l.spill_loads, l.stack_bytes),
                (0, 0, 0),
                "{name} on {sm}: the language kernel spills"
            );
            let Some(hand) = figure(data, &name, sm, "regs") else {
                continue;
            };
            rows.push(Row {
                hand,
                name,
                target: sm.into(),
                measure: "regs",
                language: l.registers,
                higher_is_better: false,
            });
        }
    }
    rows
}

/// Each named kernel `defs(target)` builds, lowered for every AMD target, beside its
/// figures in `data`.
fn amdgpu_rows(data: &str, defs: &dyn Fn(&Target) -> Vec<(String, KernelDef)>) -> Vec<Row> {
    let mut rows = Vec::new();
    for t in AMD {
        let target: Target = t.name().parse().unwrap();
        for (name, def) in defs(&target) {
            let built = amdgpu::lower(&def).unwrap_or_else(|e| panic!("{name} on {t}: {e}"));
            show_listing(&name, t.name(), &built.listing);
            let lang = built.report;
            for (measure, l, higher_is_better) in [
                ("vgprs", lang.vgprs, false),
                ("sgprs", lang.sgprs, false),
                ("occupancy", lang.occupancy, true),
            ] {
                let Some(hand) = figure(data, &name, t.name(), measure) else {
                    continue;
                };
                rows.push(Row {
                    name: name.clone(),
                    target: t.name().into(),
                    measure,
                    language: l,
                    hand,
                    higher_is_better,
                });
            }
        }
    }
    rows
}

/// The Level 1 kernels measured (copy, axpby and the reductions), built for `t`.
fn level1_defs(t: &Target) -> Vec<(String, KernelDef)> {
    variants()
        .into_iter()
        .chain(reductions())
        .map(|(name, p)| (name, rocm_kernels::lang::level1::kernel(&p, t).unwrap()))
        .collect()
}

#[test]
fn ptx_registers_are_no_worse_than_the_hand_written_kernels() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    check(&ptx_rows(&ptxas, HAND_WRITTEN, &level1_defs));
}

#[test]
fn amdgpu_resources_are_no_worse_than_the_hand_written_kernels() {
    check(&amdgpu_rows(HAND_WRITTEN, &level1_defs));
}

/// The rank-update variants measured (the names of the hand-written figures): every op
/// of each dtype (gerc and her only complex), dense and, for the triangle ops, packed.
fn rank_variants() -> Vec<(String, RankParams)> {
    let mut out = Vec::new();
    for dtype in [DType::F32, DType::F64, DType::C32, DType::C64] {
        for (op, op_name) in [
            (RankOp::Ger, "ger"),
            (RankOp::Gerc, "gerc"),
            (RankOp::Syr, "syr"),
            (RankOp::Her, "her"),
            (RankOp::Syr2, "syr2"),
            (RankOp::Her2, "her2"),
        ] {
            let conj = matches!(op, RankOp::Gerc | RankOp::Her | RankOp::Her2);
            if conj && !dtype.is_complex() {
                continue;
            }
            for (storage, s) in [(Storage::Dense, "dense"), (Storage::Packed, "packed")] {
                if storage == Storage::Packed && matches!(op, RankOp::Ger | RankOp::Gerc) {
                    continue;
                }
                let name = format!("{op_name} {dtype} {s}");
                out.push((name, RankParams::fallback(dtype, op, storage)));
            }
        }
    }
    out
}

/// The rank-update kernels measured, built for `t`.
fn rank_defs(t: &Target) -> Vec<(String, KernelDef)> {
    rank_variants()
        .into_iter()
        .map(|(name, p)| {
            (
                name,
                rocm_kernels::lang::level2::rank::kernel(&p, t).unwrap(),
            )
        })
        .collect()
}

#[test]
fn rank_ptx_registers_are_no_worse_than_the_hand_written_kernels() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    check(&ptx_rows(&ptxas, RANK_HAND_WRITTEN, &rank_defs));
}

#[test]
fn rank_amdgpu_resources_are_no_worse_than_the_hand_written_kernels() {
    check(&amdgpu_rows(RANK_HAND_WRITTEN, &rank_defs));
}

/// The largest unroll the catalog allows: strided kernels lower for every AMD target
/// (their offsets fall back from SGPRs to VGPR pairs when SGPRs run short); contiguous
/// ones with 16 units still run out of SGPRs (each unit keeps its bound mask and scalar
/// offsets from the load phase to the store phase), printed here.
#[test]
fn the_largest_unrolls_of_strided_kernels_lower_on_every_amd_target() {
    for t in AMD {
        let target: Target = t.name().parse().unwrap();
        for (name, p) in variants() {
            let p = Level1Params { unroll: 16, ..p };
            let def = rocm_kernels::lang::level1::kernel(&p, &target).unwrap();
            match amdgpu::lower(&def) {
                Ok(built) => println!(
                    "unroll 16 {name:<36} {t:<8} vgprs {:>3} sgprs {:>3} occupancy {:>2}",
                    built.report.vgprs, built.report.sgprs, built.report.occupancy
                ),
                Err(e) if p.contiguous => {
                    println!("unroll 16 {name:<36} {t:<8} does not lower: {e}")
                }
                Err(e) => panic!("unroll 16 {name} on {t}: {e}"),
            }
        }
    }
}
