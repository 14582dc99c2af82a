//! The cargo-fuzz targets' properties (`fuzz/`), run in CI for a bounded time: every
//! seed of `fuzz/corpus/<target>/seed-*`, then proptest mutations of them (bytes flipped,
//! inserted, deleted, cut; 256 cases per target, a few seconds each) through the same
//! `fuzz_input` function the fuzz target calls. Longer runs: `cargo +nightly fuzz run`.

use proptest::prelude::*;
use std::path::PathBuf;

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("seed-"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

/// One mutation of a seed: (position, kind, byte) applied `edits` times.
fn mutate(mut data: Vec<u8>, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(at, kind, byte) in edits {
        let at = if data.is_empty() {
            0
        } else {
            at % (data.len() + 1)
        };
        match kind % 5 {
            0 if at < data.len() => data[at] = byte,
            1 => data.insert(at, byte),
            2 if at < data.len() => {
                data.remove(at);
            }
            3 => data.truncate(at),
            // A digit: sizes and indices grow or wrap.
            _ => data.insert(at, b'0' + byte % 10),
        }
    }
    data
}

fn check(target: &str, f: fn(&[u8])) {
    check_with(target, Vec::new(), f)
}

fn check_with(target: &str, extra: Vec<Vec<u8>>, f: fn(&[u8])) {
    let mut seeds = seeds(target);
    seeds.extend(extra);
    for s in &seeds {
        f(s);
    }
    let n = seeds.len();
    proptest!(ProptestConfig::with_cases(256), |(
        pick in 0..n,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..8),
    )| {
        f(&mutate(seeds[pick].clone(), &edits));
    });
}

#[test]
fn matrix_market_inputs() {
    check("mm", rocm_sparse::mm::fuzz_input);
}

#[test]
fn code_object_inputs() {
    use rocm_core::isa::amdgpu::{codeobj::*, *};
    // Valid objects written by rocm-core (one per ISA family) beside the checked-in
    // malformed seeds.
    let objects = [IsaTarget::Gfx90a, IsaTarget::Gfx1100]
        .into_iter()
        .map(|isa| {
            let t = CodeObjectTarget::new(isa);
            let mut res = KernelResources::new(t.isa);
            res.kernarg_bytes = 8;
            res.sgprs = 2;
            let code = [Instr::new(Op::SEndpgm, [])];
            let k = Kernel::build(
                t,
                "noop",
                &code,
                &res,
                vec![KernelArg::global_buffer("p", 0)],
                64,
            )
            .unwrap();
            CodeObject {
                target: t,
                kernels: vec![k],
            }
            .to_elf()
            .unwrap()
        })
        .collect();
    check_with("codeobj", objects, fuzz_input);
}

#[test]
fn catalog_inputs() {
    check("catalog", rocm_kernels::catalog::fuzz_input);
}

#[test]
fn find_db_inputs() {
    check("find_db", rocm_dnn::find::fuzz_input);
}
