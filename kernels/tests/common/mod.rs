//! Helpers shared by the AMDGPU integration tests: LLVM 19 as the oracle for our
//! assembler's output.
#![allow(dead_code)]

pub mod host;
pub mod lang;

use rocm_core::isa::amdgpu::codeobj::CodeObject;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_kernels::amdgpu::{llvm_source, AssembledKernel};
use std::path::PathBuf;
use std::process::Command;

/// The emulated device of target `t`. Emulated AMD devices are always present, so
/// failing to open one is a test failure, never a skip.
pub fn emu(t: IsaTarget) -> rocm_core::Device {
    rocm_core::Device::open(&format!("emu:{}", t.name())).unwrap_or_else(|e| panic!("emu:{t}: {e}"))
}

/// Whether llvm-mc-19 and ld.lld-19 are installed (CI installs them).
pub fn tools_present() -> bool {
    ["llvm-mc-19", "ld.lld-19"].iter().all(|t| {
        Command::new(t)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    })
}

/// A fresh scratch path: one directory per call, because tests run in parallel threads
/// of one process and may build sources with the same stem.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "rocm-kernels-amdgpu-llvm-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Assembles and links `src` for `t`; the linked code object bytes.
pub fn llvm_build(src: &str, t: IsaTarget, stem: &str) -> Vec<u8> {
    let s = scratch(&format!("{stem}.s"));
    let o = scratch(&format!("{stem}.o"));
    let so = scratch(&format!("{stem}.hsaco"));
    std::fs::write(&s, src).unwrap();
    let mc = Command::new("llvm-mc-19")
        .args([
            "-triple",
            "amdgcn-amd-amdhsa",
            &format!("-mcpu={}", t.name()),
        ])
        .args(["-filetype=obj", "-o"])
        .arg(&o)
        .arg(&s)
        .output()
        .unwrap();
    assert!(
        mc.status.success(),
        "llvm-mc-19 rejected {stem} for {t}:\n{}\n--- source ---\n{src}",
        String::from_utf8_lossy(&mc.stderr)
    );
    let ld = Command::new("ld.lld-19")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&so)
        .output()
        .unwrap();
    assert!(
        ld.status.success(),
        "ld.lld-19 failed for {stem}: {}",
        String::from_utf8_lossy(&ld.stderr)
    );
    std::fs::read(&so).unwrap()
}

/// LLVM's build of our text equals our build: code bytes, descriptor, metadata.
pub fn agree(kernels: &[AssembledKernel]) {
    let t = kernels[0].target;
    let src = llvm_source(kernels);
    let stem = format!("{}_{}", kernels[0].name(), t.isa);
    let theirs = CodeObject::parse(&llvm_build(&src, t.isa, &stem)).unwrap();
    assert_eq!(theirs.target.isa, t.isa);
    assert_eq!(theirs.kernels.len(), kernels.len());
    for ours in kernels {
        let k = theirs
            .kernels
            .iter()
            .find(|k| k.name() == ours.name())
            .unwrap_or_else(|| panic!("{} missing from LLVM's object", ours.name()));
        assert_eq!(
            k.words().unwrap(),
            ours.kernel.words().unwrap(),
            "{} on {}: code differs\n{}",
            ours.name(),
            t.isa,
            ours.listing
        );
        let mut theirs_d = k.descriptor;
        theirs_d.kernel_code_entry_byte_offset = 0;
        let mut ours_d = ours.kernel.descriptor;
        ours_d.kernel_code_entry_byte_offset = 0;
        assert_eq!(theirs_d, ours_d, "{} on {}: descriptor", ours.name(), t.isa);
        assert_eq!(
            k.metadata,
            ours.kernel.metadata,
            "{} on {}: metadata",
            ours.name(),
            t.isa
        );
    }
    // And our own ELF parses back to the same kernels.
    let back = CodeObject::parse(
        &rocm_kernels::amdgpu::code_object(kernels)
            .unwrap()
            .to_elf()
            .unwrap(),
    )
    .unwrap();
    for (a, b) in back.kernels.iter().zip(kernels) {
        assert_eq!(a.code, b.kernel.code);
        assert_eq!(a.metadata, b.kernel.metadata);
    }
}
