//! netlib's BLAS test programs (Debian's `libblas-test`: xblat1/2/3 for s, d, c, z, and
//! the CBLAS ones, xscblat1..xzcblat3) run against this library, loaded as
//! `libblas.so.3` through `LD_LIBRARY_PATH` so that every symbol they call is ours
//! (a missing one fails to load). They must pass every computational test and every
//! error-exit test, on the CPU and on the emulated gfx90a with the offload threshold 0
//! (every call on the device).
//!
//! Skips with a printed reason when the Debian package is not installed.
//! `ROCM_CAPI_NETLIB_DEVICES` (comma-separated) replaces the device list.
//!
//! Emulation time: the full Level 3 inputs take about 20 minutes on the emulator on 2
//! cores (every call a simulated kernel), so by default the emulated runs use the input
//! files with the sizes N = 0 2 5 (instead of 0 1 2 3 5 9; every other parameter as
//! given) and the CBLAS programs run on the CPU only. `ROCM_CAPI_NETLIB_FULL=1` runs the
//! unmodified inputs and the CBLAS programs on every device.

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

/// A directory holding `libblas.so.3` → our library (made once; the tests run in
/// parallel).
fn lib_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(make_lib_dir).clone()
}

fn make_lib_dir() -> PathBuf {
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

fn full() -> bool {
    std::env::var("ROCM_CAPI_NETLIB_FULL").is_ok_and(|v| v != "0")
}

/// The input file, with the sizes trimmed on emulated devices unless the full run is
/// asked for.
fn input_text(file: &str, device: &str) -> String {
    let text = std::fs::read_to_string(Path::new(BLAS_TESTS).join(file)).unwrap();
    if full() || !device.starts_with("emu:") {
        return text;
    }
    text.lines()
        .map(|l| {
            if l.contains("NUMBER OF VALUES OF N") {
                "3                 NUMBER OF VALUES OF N".to_string()
            } else if l.contains("VALUES OF N") {
                "0 2 5             VALUES OF N".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
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
        Some(f) => {
            let staged = work.join(f);
            std::fs::write(&staged, input_text(f, device)).unwrap();
            Stdio::from(std::fs::File::open(staged).unwrap())
        }
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

fn run_suite(programs: &[(String, Option<String>)], cblas: bool) {
    if !Path::new(BLAS_TESTS).join("xblat1d").exists() {
        eprintln!("skipped: Debian's libblas-test is not installed ({BLAS_TESTS}/xblat1d)");
        return;
    }
    let dir = lib_dir();
    let mut bad = Vec::new();
    for device in devices() {
        if cblas && device != "cpu" && !full() {
            println!("CBLAS programs on {device}: only with ROCM_CAPI_NETLIB_FULL=1");
            continue;
        }
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

/// The CBLAS programs (x?cblat1/2/3 with ?in2/?in3).
fn cblas_programs(level: u32) -> Vec<(String, Option<String>)> {
    "sdcz"
        .chars()
        .map(|p| {
            let input = (level > 1).then(|| format!("{p}in{level}"));
            (format!("x{p}cblat{level}"), input)
        })
        .collect()
}

#[test]
fn xblat1() {
    run_suite(&fortran_programs(1), false);
}

#[test]
fn xblat2() {
    run_suite(&fortran_programs(2), false);
}

#[test]
fn xblat3() {
    run_suite(&fortran_programs(3), false);
}

#[test]
fn cblas() {
    let all: Vec<_> = (1..=3).flat_map(cblas_programs).collect();
    run_suite(&all, true);
}
