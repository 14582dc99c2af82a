//! netlib's LAPACK linear-equation tests (Debian's `liblapack-test`: xlintst{s,d,c,z})
//! with this library preloaded over reference LAPACK, for the families it implements:
//! LU (GE), Cholesky (PO), triangular (TR), QR (QR) and the least-squares drivers (LS,
//! reference xGELS on our QR and BLAS). Every ratio test must pass the input file's
//! threshold and every error-exit test must pass; sizes as `?test.in` gives them.
//!
//! Every matrix type runs for every precision, the complex types scaled near underflow
//! and overflow included: complex division in rocm-solver and rocm-blas is the scaled
//! (Baudin–Smith) division LAPACK's xLADIV uses (`rocm_core::complex_div`).
//!
//! Runs on the CPU (rocm-solver's device path, host panels with device BLAS, would make
//! every xlintst call an emulated launch: hours on `emu:`). Skips with a printed reason
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

/// The families we implement, every matrix type of each.
fn paths(p: char) -> Vec<String> {
    let up = p.to_ascii_uppercase();
    [("GE", 11), ("PO", 9), ("TR", 18), ("QR", 8), ("LS", 6)]
        .iter()
        .map(|(name, ntypes)| format!("{up}{name} {ntypes}"))
        .collect()
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
