//! netlib's BLAS test programs (Debian's `libblas-test`: xblat1/2/3 for s, d, c, z, and
//! the CBLAS ones, xscblat1..xzcblat3) run against this library, loaded as
//! `libblas.so.3` through `LD_LIBRARY_PATH` so that every symbol they call is ours
//! (a missing one fails to load). They must pass every computational test and every
//! error-exit test, on the CPU and on the emulated gfx90a with the offload threshold 0
//! (every call on the device).
//!
//! Skips with a printed reason when the Debian package is not installed.
//! `ROCM_CAPI_NETLIB_DEVICES` (comma-separated) replaces the device list.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BLAS_TESTS: &str = "/usr/lib/x86_64-linux-gnu/blas";

/// The cdylib next to this test binary (`target/<profile>/deps/`).
fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir");
    for dir in [deps, deps.parent().unwrap_or(deps)] {
        let p = dir.join("librocm_capi.so");
        if p.exists() {
            return p;
        }
    }
    panic!("librocm_capi.so not found next to {}", exe.display());
}

/// A directory holding `libblas.so.3` → our library.
fn lib_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocm-capi-netlib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("libblas.so.3");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(library(), &link).unwrap();
    dir
}

struct Outcome {
    program: String,
    device: String,
    output: String,
    ok: bool,
}

fn run_program(dir: &Path, program: &str, input: Option<&str>, device: &str) -> Outcome {
    let work = dir.join(format!("{program}-{}", device.replace(':', "_")));
    std::fs::create_dir_all(&work).unwrap();
    let mut cmd = Command::new(Path::new(BLAS_TESTS).join(program));
    cmd.current_dir(&work)
        .env("LD_LIBRARY_PATH", dir)
        .env("ROCM_DEVICE", device)
        .env("ROCM_CAPI_THRESHOLD", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.stdin(match input {
        Some(f) => Stdio::from(std::fs::File::open(Path::new(BLAS_TESTS).join(f)).unwrap()),
        None => Stdio::null(),
    });
    let out = cmd.output().unwrap();
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    // The CBLAS programs write their summary to a file rather than stdout.
    for entry in std::fs::read_dir(&work).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "out") {
            output.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    let failed = ["FAIL", "****", "rocm-capi:", "NOT CALLED", "INSTEAD OF"]
        .iter()
        .any(|bad| output.contains(bad));
    let finished = input.is_none() || output.contains("END OF TESTS");
    Outcome {
        program: program.into(),
        device: device.into(),
        ok: out.status.success() && !failed && finished,
        output,
    }
}

/// Level 1 programs print one "PASS"/"FAIL" line per routine; Level 2/3 print one
/// "PASSED THE COMPUTATIONAL TESTS" per routine tested and "END OF TESTS".
fn summary(o: &Outcome) -> String {
    let passed = o.output.matches("PASS").count();
    format!(
        "{:<10} {:<12} {} ({passed} PASS lines)",
        o.program,
        o.device,
        if o.ok { "ok" } else { "FAILED" }
    )
}

fn devices() -> Vec<String> {
    match std::env::var("ROCM_CAPI_NETLIB_DEVICES") {
        Ok(v) => v.split(',').map(str::to_string).collect(),
        Err(_) => vec!["cpu".into(), "emu:gfx90a".into()],
    }
}

fn run_suite(programs: &[(String, Option<String>)]) {
    if !Path::new(BLAS_TESTS).join("xblat1d").exists() {
        eprintln!("skipped: Debian's libblas-test is not installed ({BLAS_TESTS}/xblat1d)");
        return;
    }
    let dir = lib_dir();
    let mut bad = Vec::new();
    for device in devices() {
        for (program, input) in programs {
            let o = run_program(&dir, program, input.as_deref(), &device);
            println!("{}", summary(&o));
            if !o.ok {
                bad.push(o);
            }
        }
    }
    for o in &bad {
        eprintln!("---- {} on {} ----\n{}", o.program, o.device, o.output);
    }
    assert!(bad.is_empty(), "{} netlib runs failed", bad.len());
}

fn fortran_programs(level: u32) -> Vec<(String, Option<String>)> {
    "sdcz"
        .chars()
        .map(|p| {
            let input = (level > 1).then(|| format!("{p}blat{level}.in"));
            (format!("xblat{level}{p}"), input)
        })
        .collect()
}

#[test]
fn xblat1() {
    run_suite(&fortran_programs(1));
}

#[test]
fn xblat2() {
    run_suite(&fortran_programs(2));
}

#[test]
fn xblat3() {
    run_suite(&fortran_programs(3));
}
