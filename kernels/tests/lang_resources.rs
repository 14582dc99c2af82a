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
//! removed from the list).

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Target};
use rocm_kernels::lang::{amdgpu, ptx};
use rocm_kernels::level1::{L1Op, Level1Params, KERNEL};
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

/// The hand-written kernel's figure for a row, where one was recorded.
fn recorded(name: &str, target: &str, measure: &str) -> Option<u32> {
    HAND_WRITTEN
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .find_map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "hand-written line `{l}`");
            (f[0] == name && f[1] == target && f[2] == measure)
                .then(|| f[3].parse().unwrap_or_else(|e| panic!("`{l}`: {e}")))
        })
}

/// The hand-written kernel's figure for a row of copy or axpby (every one recorded).
fn hand_written(name: &str, target: &str, measure: &str) -> u32 {
    recorded(name, target, measure)
        .unwrap_or_else(|| panic!("no hand-written figure for {name} | {target} | {measure}"))
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

#[test]
fn ptx_registers_are_no_worse_than_the_hand_written_kernels() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    let mut rows = Vec::new();
    for sm in ["sm_80", "sm_90"] {
        let t: Target = sm.parse().unwrap();
        for (name, p) in variants() {
            let def = rocm_kernels::lang::level1::kernel(&p, &t).unwrap();
            let lang = ptx::lower(&def).unwrap();
            show_listing(&name, sm, &lang);
            let report = |text: &str| {
                let r = ptxas
                    .compile(text, &t)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let k = r.kernel(KERNEL).unwrap().clone();
                assert!(r.warnings.is_empty(), "{name} on {sm}: {:?}", r.warnings);
                k
            };
            let l = report(&lang);
            assert_eq!(
                (l.spill_stores, l.spill_loads, l.stack_bytes),
                (0, 0, 0),
                "{name} on {sm}: the language kernel spills"
            );
            rows.push(Row {
                hand: hand_written(&name, sm, "regs"),
                name,
                target: sm.into(),
                measure: "regs",
                language: l.registers,
                higher_is_better: false,
            });
        }
    }
    let sm90: Target = "sm_90".parse().unwrap();
    for (name, p) in reductions() {
        let def = rocm_kernels::lang::level1::kernel(&p, &sm90).unwrap();
        let lang = ptx::lower(&def).unwrap();
        show_listing(&name, "sm_90", &lang);
        let r = ptxas
            .compile(&lang, &sm90)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let l = r.kernel(KERNEL).unwrap();
        assert!(r.warnings.is_empty(), "{name} on sm_90: {:?}", r.warnings);
        assert_eq!(
            (l.spill_stores, l.spill_loads, l.stack_bytes),
            (0, 0, 0),
            "{name} on sm_90: the language kernel spills"
        );
        rows.push(Row {
            hand: hand_written(&name, "sm_90", "regs"),
            name,
            target: "sm_90".into(),
            measure: "regs",
            language: l.registers,
            higher_is_better: false,
        });
    }
    check(&rows);
}

#[test]
fn amdgpu_resources_are_no_worse_than_the_hand_written_kernels() {
    let mut rows = Vec::new();
    for t in AMD {
        let target: Target = t.name().parse().unwrap();
        for (name, p) in variants().into_iter().chain(reductions()) {
            let def = rocm_kernels::lang::level1::kernel(&p, &target).unwrap();
            let built = amdgpu::lower(&def).unwrap_or_else(|e| panic!("{name} on {t}: {e}"));
            show_listing(&name, t.name(), &built.listing);
            let lang = built.report;
            for (measure, l, higher_is_better) in [
                ("vgprs", lang.vgprs, false),
                ("sgprs", lang.sgprs, false),
                ("occupancy", lang.occupancy, true),
            ] {
                // The reductions have no recorded SGPR figures.
                let hand = if name.starts_with("copy") || name.starts_with("axpby") {
                    hand_written(&name, t.name(), measure)
                } else {
                    match recorded(&name, t.name(), measure) {
                        Some(h) => h,
                        None => continue,
                    }
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
    check(&rows);
}
