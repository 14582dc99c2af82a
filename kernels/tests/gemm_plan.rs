//! GEMM selection and plans on the kernel side.
//!
//! `data/gemm_choices.tsv` holds, for 308 problems on each of sm_80, sm_90, sm_90a,
//! gfx908, gfx90a, gfx942 and gfx1100, what the selection in `rocm-blas` chose before
//! it moved here (recorded from that code through a device of each target): the
//! variant, which operands it transposed or repacked, and the split-K slices. The plan
//! must choose the same for every row.

use rocm_core::{DType, Target};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::gemm::{self, GemmClass, GemmOperand, GemmParams, GemmProblem};
use rocm_kernels::plan::{Arg, Plan};
use rocm_kernels::signature::Value;

const TABLE: &str = include_str!("data/gemm_choices.tsv");

/// One row's problem: (target, compute units) and the case columns.
fn problem(case: &str, compute_units: u32) -> GemmProblem {
    let f: Vec<&str> = case.split(' ').collect();
    let dtype = |s: &str| -> DType { serde_json::from_str(&format!("\"{s}\"")).unwrap() };
    let num = |i: usize| -> usize { f[i].parse().unwrap() };
    let (ab, c) = (dtype(f[1]), dtype(f[2]));
    let class = match f[0] {
        "gemm" => GemmClass::Real {
            dtype: ab,
            reduced_f32: false,
        },
        "tf32" => GemmClass::Real {
            dtype: ab,
            reduced_f32: true,
        },
        "ex" => GemmClass::Mixed { ab, c },
        other => panic!("unknown class {other}"),
    };
    let address = |i: usize| -> u64 { f[i].parse().unwrap() };
    GemmProblem {
        class,
        trans_a: f[3] == "true",
        trans_b: f[4] == "true",
        m: num(5),
        n: num(6),
        k: num(7),
        lda: num(8),
        ldb: num(9),
        ldc: num(10),
        a: GemmOperand::at(address(15), num(11)),
        b: GemmOperand::at(address(16), num(12)),
        c: GemmOperand::at(0x3000_0000, num(13)),
        batch: num(14),
        alpha: 1.0,
        beta: 0.0,
        compute_units,
    }
}

fn compute_units(target: &str) -> u32 {
    match target {
        "sm_80" => 108,
        "sm_90" | "sm_90a" => 132,
        "gfx908" => 120,
        "gfx90a" => 104,
        "gfx942" => 304,
        "gfx1100" => 48,
        other => panic!("unknown target {other}"),
    }
}

/// What a plan does besides the kernel: (transposed A, B), (repacked A, B), and the
/// split (k_slice, full slices, rest) read from its steps.
type Staging = ((bool, bool), (bool, bool), Option<(usize, usize, usize)>);

fn staging(plan: &Plan) -> Staging {
    let from_slot =
        |arg: &Arg, slot: usize| matches!(arg, Arg::Buffer { slot: s, .. } if *s == slot);
    let transposed = |slot: usize| {
        plan.steps.iter().any(|s| {
            s.program.generator() == "transpose"
                && s.signature
                    .params
                    .iter()
                    .zip(&s.args)
                    .any(|(p, a)| p.name == "src" && from_slot(a, slot))
        })
    };
    let repacked = |slot: usize| {
        plan.steps
            .iter()
            .flat_map(|s| &s.copies)
            .any(|c| from_slot(&c.src, slot))
    };
    let value = |s: &rocm_kernels::plan::Step, name: &str| -> usize {
        let i = s.signature.index(name).unwrap();
        match &s.args[i] {
            Arg::Value(Value::U32(v)) => *v as usize,
            other => panic!("{name} = {other}"),
        }
    };
    let gemms: Vec<_> = plan
        .steps
        .iter()
        .filter(|s| s.program.generator() == "gemm")
        .collect();
    let split = plan
        .steps
        .iter()
        .any(|s| s.program.generator() == "gemm_splitk_finish")
        .then(|| {
            let rest = gemms.get(1).map_or(0, |s| value(s, "k"));
            (value(gemms[0], "k"), gemms[0].config.grid[2] as usize, rest)
        });
    (
        (transposed(0), transposed(1)),
        (repacked(0), repacked(1)),
        split,
    )
}

#[test]
fn plans_choose_what_the_blas_selection_chose() {
    let mut rows = 0;
    for line in TABLE.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let (target_name, case, choice) = (cols[0], cols[1], cols[2]);
        let target: Target = target_name.parse().unwrap();
        let catalog = Catalog::for_target(&target);
        let prob = problem(case, compute_units(target_name));
        let what = format!("{target_name} {case}");
        let selected = gemm::select(&prob, &target, catalog);
        if choice == "none" {
            assert_eq!(selected.unwrap(), None, "{what}");
            assert!(gemm::plan(&prob, &target, catalog).is_err(), "{what}");
            rows += 1;
            continue;
        }
        let want: GemmParams = serde_json::from_str(choice).unwrap();
        assert_eq!(selected.unwrap(), Some(want.clone()), "{what}");
        let plan = gemm::plan(&prob, &target, catalog).unwrap();
        plan.check(&target)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let rest = cols[3];
        let flag = |s: &str| s == "true";
        let w: Vec<&str> = rest.split(' ').collect();
        let want_flips = (flag(w[1]), flag(w[2]));
        let want_repacks = (flag(w[4]), flag(w[5]));
        let want_split = w[7..].join(" ");
        let (flips, repacks, split) = staging(&plan);
        // k = 0 only scales C: nothing is staged or split.
        if prob.k == 0 {
            assert_eq!(
                (flips, repacks, split),
                ((false, false), (false, false), None),
                "{what}"
            );
        } else {
            assert_eq!(flips, want_flips, "{what}");
            assert_eq!(repacks, want_repacks, "{what}");
            let got = match split {
                None => "None".to_string(),
                Some(s) => format!("Some({s:?})"),
            };
            assert_eq!(got, want_split, "{what}");
        }
        rows += 1;
    }
    assert_eq!(rows, 7 * 308);
}

#[test]
fn explain_prints_steps_programs_geometry_and_workspace() {
    // bf16 4097³ on sm_90a: both operands repacked, the tensor-copy wgmma kernel.
    let target: Target = "sm_90a".parse().unwrap();
    let prob = GemmProblem {
        class: GemmClass::Mixed {
            ab: DType::Bf16,
            c: DType::Bf16,
        },
        trans_a: false,
        trans_b: false,
        m: 4097,
        n: 4097,
        k: 4097,
        lda: 4097,
        ldb: 4097,
        ldc: 4097,
        a: GemmOperand::at(0x1000_0000, 0),
        b: GemmOperand::at(0x2000_0000, 0),
        c: GemmOperand::at(0x3000_0000, 0),
        batch: 1,
        alpha: 1.0,
        beta: 0.0,
        compute_units: 132,
    };
    let plan = gemm::plan(&prob, &target, Catalog::for_target(&target)).unwrap();
    let text = plan.to_string();
    assert_eq!(plan.steps.len(), 1, "{text}");
    assert_eq!(plan.steps[0].copies.len(), 2, "{text}");
    // Both copies: 4097 columns of 4097 bf16 rows to a leading dimension of 4104.
    assert_eq!(plan.workspace_bytes, 2 * 4104 * 4097 * 2, "{text}");
    for want in [
        "plan: 1 step, workspace",
        "copy 4097 rows of 8194 bytes",
        "gemm {",
        "\"Wgmma\"",
        // The catalog's 192×192 tile: 12 consumer warps and the tensor-copy producer.
        ":: rocm_gemm grid 22x22x1 block 416x1x1 shared 197696:",
        "tmap_a=tensor map of workspace+0",
    ] {
        assert!(text.contains(want), "{want:?} not in\n{text}");
    }
}
