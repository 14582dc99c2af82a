//! `ptxas`, NVIDIA's PTX assembler, as the offline oracle for generated PTX: every
//! program must assemble without warnings and without spills, and its register and
//! shared-memory report is recorded.
//!
//! `ptxas` is found through `$PTXAS`, then `PATH`, then the PyPI wheel
//! `nvidia-cuda-nvcc-cu12` in the user's Python (`scripts/test` installs it).

use rocm_core::{Error, Result, Target};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// How to install ptxas, for skip messages.
pub const HOW_TO_GET: &str =
    "set PTXAS, put ptxas on PATH, or `python3 -m pip install nvidia-cuda-nvcc-cu12`";

/// A located ptxas binary.
#[derive(Debug, Clone)]
pub struct Ptxas {
    path: PathBuf,
}

/// What ptxas reported for one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelReport {
    pub name: String,
    pub registers: u32,
    pub shared_bytes: u32,
    pub stack_bytes: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// ptxas's report for a module.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub kernels: Vec<KernelReport>,
    pub warnings: Vec<String>,
}

impl Report {
    pub fn kernel(&self, name: &str) -> Result<&KernelReport> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| Error::Module(format!("ptxas reported no kernel `{name}`")))
    }
}

impl Ptxas {
    /// Finds ptxas, or `None`.
    pub fn find() -> Option<Self> {
        let works = |p: PathBuf| -> Option<Self> {
            let ok = Command::new(&p)
                .arg("--version")
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false);
            ok.then_some(Ptxas { path: p })
        };
        if let Some(p) = std::env::var_os("PTXAS") {
            return works(PathBuf::from(p));
        }
        if let Some(p) = works(PathBuf::from("ptxas")) {
            return Some(p);
        }
        let out = Command::new("python3")
            .args([
                "-c",
                "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
            ])
            .output()
            .ok()?;
        let dir = String::from_utf8(out.stdout).ok()?;
        works(PathBuf::from(dir.trim()).join("bin").join("ptxas"))
    }

    /// Assembles `ptx` for `target` and parses the verbose report.
    pub fn compile(&self, ptx: &str, target: &Target) -> Result<Report> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let file = std::env::temp_dir().join(format!(
            "rocm-kernels-{}-{}.ptx",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&file, ptx).map_err(|e| Error::io("writing PTX for ptxas", e))?;
        let out = Command::new(&self.path)
            .arg(format!("-arch={target}"))
            .args(["-v", "--warn-on-spills", "-o", "/dev/null"])
            .arg(&file)
            .output()
            .map_err(|e| Error::io("running ptxas", e));
        let _ = std::fs::remove_file(&file);
        let out = out?;
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(Error::Module(format!("ptxas rejected the PTX:\n{text}")));
        }
        Ok(parse_report(&text))
    }
}

fn number_before(line: &str, unit: &str) -> Option<u32> {
    let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    words
        .windows(2)
        .find(|w| w[1].starts_with(unit))
        .and_then(|w| w[0].parse().ok())
}

/// Parses `ptxas -v` output.
pub fn parse_report(text: &str) -> Report {
    let mut report = Report::default();
    let mut current: Option<KernelReport> = None;
    for line in text.lines() {
        if line.contains("warning") {
            report.warnings.push(line.trim().to_string());
        }
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            if let Some(k) = current.take() {
                report.kernels.push(k);
            }
            current = Some(KernelReport {
                name: rest.split('\'').next().unwrap_or_default().to_string(),
                ..Default::default()
            });
        }
        let Some(k) = current.as_mut() else { continue };
        if line.contains("stack frame") {
            k.stack_bytes = number_before(line, "bytes").unwrap_or(0);
            k.spill_stores = number_before(line, "bytes spill stores")
                .or_else(|| spill(line, "spill stores"))
                .unwrap_or(0);
            k.spill_loads = spill(line, "spill loads").unwrap_or(0);
        }
        if line.contains("Used") && line.contains("registers") {
            k.registers = number_before(line, "registers").unwrap_or(0);
            k.shared_bytes = line
                .split(',')
                .find(|p| p.contains("smem"))
                .and_then(|p| number_before(p, "bytes"))
                .unwrap_or(0);
        }
    }
    if let Some(k) = current {
        report.kernels.push(k);
    }
    report
}

fn spill(line: &str, what: &str) -> Option<u32> {
    line.split(',')
        .find(|p| p.contains(what))
        .and_then(|p| p.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The generator tests' shared check: every variant's program, for sm_80 and sm_90a,
/// assembles without warnings, spills or stack frames. Returns each (variant, program,
/// report) for checks of a generator's own (none when ptxas is missing: the skip is
/// printed).
#[cfg(test)]
pub(crate) fn assert_clean<G: crate::generator::Generator>(
    variants: &[G::Params],
) -> Vec<(G::Params, crate::generator::Program, Report)> {
    use rocm_core::ModuleImage;
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
        return Vec::new();
    };
    let mut out = Vec::new();
    for target in ["sm_80", "sm_90a"] {
        let target: Target = target.parse().expect("a known target");
        for p in variants {
            let prog = G::generate(p, &target).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            let report = ptxas
                .compile(text, &target)
                .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}\n{text}"));
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
            for name in &prog.kernels {
                let kr = report.kernel(name).unwrap();
                assert_eq!(kr.spill_stores + kr.spill_loads, 0, "{p:?} {name}: {kr:?}");
                assert_eq!(kr.stack_bytes, 0, "{p:?} {name}: {kr:?}");
            }
            out.push((p.clone(), prog, report));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_verbose_report() {
        let text = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'k1' for 'sm_90a'\n\
ptxas info    : Function properties for k1\n\
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 40 registers, 4096 bytes smem, 376 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'k2' for 'sm_90a'\n\
ptxas info    : Function properties for k2\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 10 registers, 368 bytes cmem[0]\n";
        let r = parse_report(text);
        assert!(r.warnings.is_empty());
        assert_eq!(
            r.kernel("k1").unwrap(),
            &KernelReport {
                name: "k1".into(),
                registers: 40,
                shared_bytes: 4096,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 12,
            }
        );
        assert_eq!(r.kernel("k2").unwrap().registers, 10);
        assert_eq!(r.kernel("k2").unwrap().shared_bytes, 0);
        assert!(r.kernel("k3").is_err());
        let w =
            parse_report("ptxas warning : Registers are spilled to local memory in function 'k'");
        assert_eq!(w.warnings.len(), 1);
    }
}
