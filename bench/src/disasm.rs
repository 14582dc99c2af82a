//! `rocm-bench disasm FILE`: an AMDGPU code object's kernels, descriptors, metadata and
//! disassembly — ours or LLVM's.
//!
//! Per kernel: the name; the descriptor's raw fields and what they decode to (registers
//! as allocated, `accum_offset`, user SGPRs, workgroup-id and work-item-id enables, LDS,
//! scratch, kernarg size, wave32, float modes) and the occupancy those resources allow;
//! the metadata (counts and `.args` with offsets, sizes and kinds); then the code, one
//! instruction per line with its byte offset and encoding. Words the instruction model
//! cannot decode print as `.long 0x…` and the listing continues one dword later.
//!
//! The instruction text is LLVM's: a test compares it line for line with
//! `llvm-objdump-19 -d` on the clang-compiled corpus of `rocm-core/tests/corpus`.

use rocm_core::isa::amdgpu::codeobj::{CodeObject, Kernel};
use rocm_core::isa::amdgpu::{decode, IsaTarget, Operand};
use rocm_core::{Error, Result};
use rocm_kernels::amdgpu::ResourceReport;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// A code object (ELF, e.g. a `.hsaco` from ld.lld or one written by rocm-rs).
    file: PathBuf,
}

pub fn run(a: &DisasmArgs) -> Result<()> {
    let data = std::fs::read(&a.file).map_err(|e| Error::Io {
        context: format!("reading {}", a.file.display()),
        message: e.to_string(),
    })?;
    print!("{}", render(&data)?);
    Ok(())
}

/// The whole report of a code object.
pub fn render(data: &[u8]) -> Result<String> {
    let co = CodeObject::parse(data)?;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "code object: {} (e_flags {:#x}), {} kernel(s)",
        co.target.target_id(),
        co.target.e_flags(),
        co.kernels.len()
    );
    for k in &co.kernels {
        s.push('\n');
        kernel(&mut s, &co, k)?;
    }
    Ok(s)
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn kernel(s: &mut String, co: &CodeObject, k: &Kernel) -> Result<()> {
    let t = co.target;
    let d = &k.descriptor;
    let _ = writeln!(s, "kernel {}", k.name());
    let _ = writeln!(
        s,
        "  descriptor: rsrc1 {:#010x} rsrc2 {:#010x} rsrc3 {:#010x} properties {:#06x} entry offset {}",
        d.compute_pgm_rsrc1,
        d.compute_pgm_rsrc2,
        d.compute_pgm_rsrc3,
        d.kernel_code_properties,
        d.kernel_code_entry_byte_offset
    );
    match d.resources(t) {
        Ok(r) => {
            let _ = writeln!(
                s,
                "    vector registers allocated {} ({} granules){}",
                d.allocated_vgprs(t.isa),
                d.vgpr_granules() + 1,
                if t.isa.unified_agprs() {
                    format!(", accum_offset {}", d.accum_offset())
                } else {
                    String::new()
                }
            );
            if t.isa.family() == rocm_core::isa::amdgpu::IsaFamily::Gfx9 {
                let _ = writeln!(
                    s,
                    "    SGPRs allocated {} (reserved VCC {}, flat scratch / XNACK included)",
                    d.allocated_sgprs(),
                    yes(r.reserve_vcc)
                );
            }
            let u = r.user_sgprs;
            let _ = writeln!(
                s,
                "    user SGPRs {} (kernarg ptr {}, dispatch ptr {}, queue ptr {}, dispatch id {})",
                d.user_sgpr_count(),
                yes(u.kernarg_segment_ptr),
                yes(u.dispatch_ptr),
                yes(u.queue_ptr),
                yes(u.dispatch_id)
            );
            let ids: Vec<&str> = ["x", "y", "z"]
                .iter()
                .zip(r.workgroup_id)
                .filter(|(_, on)| *on)
                .map(|(a, _)| *a)
                .collect();
            let _ = writeln!(
                s,
                "    workgroup ids [{}], work-item id dims {}, wave{}",
                ids.join(","),
                r.workitem_id_dims,
                if d.wave32() { 32 } else { 64 }
            );
            let _ = writeln!(
                s,
                "    LDS {} bytes, scratch {} bytes/work-item, kernarg {} bytes",
                d.group_segment_fixed_size, d.private_segment_fixed_size, d.kernarg_size
            );
            let m = r.float_mode;
            let _ = writeln!(
                s,
                "    float: round32 {} round16/64 {} denorm32 {} denorm16/64 {} dx10_clamp {} ieee {}",
                m.round_32,
                m.round_16_64,
                m.denorm_32,
                m.denorm_16_64,
                yes(m.dx10_clamp),
                yes(m.ieee_mode)
            );
            let wg = k.metadata.max_flat_workgroup_size.max(1);
            if let Ok(rep) = ResourceReport::new(t.isa, &r, wg) {
                let _ = writeln!(
                    s,
                    "    occupancy {} waves/SIMD at workgroup {wg} (limited by {:?})",
                    rep.occupancy, rep.limiter
                );
            }
        }
        Err(e) => {
            let _ = writeln!(s, "    (fields do not decode: {e})");
        }
    }
    let m = &k.metadata;
    let _ = writeln!(
        s,
        "  metadata: symbol {}, kernarg {} (align {}), LDS {}, scratch {}, wave {}, sgpr_count {}, vgpr_count {}, agpr_count {}, max workgroup {}",
        m.symbol,
        m.kernarg_segment_size,
        m.kernarg_segment_align,
        m.group_segment_fixed_size,
        m.private_segment_fixed_size,
        m.wavefront_size,
        m.sgpr_count,
        m.vgpr_count,
        m.agpr_count,
        m.max_flat_workgroup_size
    );
    for a in &m.args {
        let _ = writeln!(
            s,
            "    arg {:<12} offset {:>4} size {:>3} {}{}",
            a.name.as_deref().unwrap_or("-"),
            a.offset,
            a.size,
            a.value_kind.name(),
            a.address_space
                .as_ref()
                .map(|x| format!(" ({x})"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(s, "  code ({} bytes):", k.code.len());
    let words = k.words()?;
    listing(s, &words, t.isa);
    Ok(())
}

/// One line per instruction; undecodable words as `.long`.
fn listing(s: &mut String, words: &[u32], t: IsaTarget) {
    let mut at = 0usize;
    while at < words.len() {
        let rest = &words[at..];
        let (text, n) = match decode(rest, t) {
            Ok((i, n)) => {
                let mut text = i.display(t).to_string();
                if let (true, Some(Operand::Imm(off))) = (i.op.is_branch(), i.operands.first()) {
                    let target = (at as i64 + 1 + i64::from(*off)) * 4;
                    let _ = write!(text, "  // -> {target:#06x}");
                }
                (text, n)
            }
            Err(_) => (format!(".long {:#010x}", rest[0]), 1),
        };
        let enc: Vec<String> = rest[..n].iter().map(|w| format!("{w:08x}")).collect();
        let _ = writeln!(s, "    {:06x}: {:<56} ; {}", at * 4, text, enc.join(" "));
        at += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocm_kernels::amdgpu::samples;

    #[test]
    fn our_code_objects_render_with_descriptors_args_and_code() {
        let k = samples::vector_add(IsaTarget::Gfx90a).unwrap();
        let out = render(&k.to_elf().unwrap()).unwrap();
        for want in [
            "kernel vector_add",
            "accum_offset",
            "arg n",
            "offset   24 size   4 by_value",
            "global_load_dword",
            "s_endpgm",
            "// ->",
            "workgroup ids [x]",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
        let w = samples::matrix_tile(IsaTarget::Gfx1100, samples::TileKind::WmmaF16F32).unwrap();
        let out = render(&w.to_elf().unwrap()).unwrap();
        assert!(
            out.contains("wave32") && out.contains("v_wmma_f32_16x16x16_f16"),
            "{out}"
        );
    }

    #[test]
    fn unknown_words_print_as_long() {
        let mut s = String::new();
        // 0xffffffff is no encoding; the s_endpgm after it still decodes.
        listing(&mut s, &[0xffff_ffff, 0xbf81_0000], IsaTarget::Gfx90a);
        assert!(s.contains(".long 0xffffffff"), "{s}");
        assert!(s.contains("s_endpgm"), "{s}");
    }

    #[test]
    fn llvm_built_objects_render() {
        let k = samples::reduce_sum(IsaTarget::Gfx942).unwrap();
        let src = rocm_kernels::amdgpu::llvm_source(std::slice::from_ref(&k));
        let dir = std::env::temp_dir().join(format!("rocm-bench-disasm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (s, o, so) = (dir.join("k.s"), dir.join("k.o"), dir.join("k.hsaco"));
        std::fs::write(&s, src).unwrap();
        let mc = std::process::Command::new("llvm-mc-19")
            .args([
                "-triple",
                "amdgcn-amd-amdhsa",
                "-mcpu=gfx942",
                "-filetype=obj",
                "-o",
            ])
            .arg(&o)
            .arg(&s)
            .status();
        let Ok(st) = mc else {
            println!("skipped: llvm-mc-19 not installed");
            return;
        };
        assert!(st.success());
        let ld = std::process::Command::new("ld.lld-19")
            .arg("-shared")
            .arg(&o)
            .arg("-o")
            .arg(&so)
            .status();
        let Ok(st) = ld else {
            println!("skipped: ld.lld-19 not installed");
            return;
        };
        assert!(st.success());
        let out = render(&std::fs::read(&so).unwrap()).unwrap();
        let ours = render(&k.to_elf().unwrap()).unwrap();
        // Same kernel: everything but the entry offset (section placement) agrees.
        let strip = |x: &str| {
            x.lines()
                .filter(|l| !l.contains("entry offset"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&out), strip(&ours));
        assert!(
            out.contains("LDS 1024 bytes") && out.contains("s_barrier"),
            "{out}"
        );
    }

    /// The instruction text of our listing lines (`    0000a8: text ; words`), without
    /// the branch-target note.
    fn our_instructions(listing: &str) -> Vec<String> {
        listing
            .lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let (addr, rest) = l.split_once(": ")?;
                if addr.len() != 6 || !addr.chars().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                let text = rest.rsplit_once(" ; ").map_or(rest, |(t, _)| t);
                let text = text.split("  // ->").next().unwrap_or(text);
                Some(text.trim().to_string())
            })
            .collect()
    }

    /// `llvm-objdump -d` per function: its name and instruction texts (the address and
    /// encoding comment and the `<sym+off>` target dropped).
    fn objdump_functions(text: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for l in text.lines() {
            if let Some(name) = l.strip_suffix(">:").and_then(|h| h.split_once(" <")) {
                out.push((name.1.to_string(), Vec::new()));
            } else if let (Some(ins), Some(f)) = (l.strip_prefix('\t'), out.last_mut()) {
                let ins = ins.split("//").next().unwrap_or(ins).trim();
                f.1.push(ins.to_string());
            }
        }
        out
    }

    /// Corpus kernels (name, target) holding an instruction the ISA model does not
    /// decode yet; the same pairs are the emulator corpus's known failures
    /// (rocm-core/tests/corpus.rs). A pair that starts to match fails the test.
    const UNDECODED: &[(&str, &str)] = &[
        ("generic_ptrs", "gfx942"),
        ("generic_ptrs", "gfx1100"),
        ("local_args3", "gfx908"),
        ("local_args3", "gfx90a"),
        ("local_args3", "gfx942"),
        ("local_args3", "gfx1100"),
    ];

    #[test]
    fn corpus_disassembly_matches_llvm_objdump() {
        let corpus =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocm-core/tests/corpus");
        let have = |tool: &str| {
            std::process::Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !have("clang-19") || !have("llvm-objdump-19") {
            println!("skipped: clang-19 or llvm-objdump-19 not installed");
            return;
        }
        let dir = std::env::temp_dir().join(format!("rocm-bench-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sources: Vec<_> = std::fs::read_dir(&corpus)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cl"))
            .collect();
        sources.sort();
        assert!(
            !sources.is_empty(),
            "no corpus sources in {}",
            corpus.display()
        );
        let mut wrong = Vec::new();
        let mut compared = 0;
        for t in [
            IsaTarget::Gfx908,
            IsaTarget::Gfx90a,
            IsaTarget::Gfx942,
            IsaTarget::Gfx1100,
        ] {
            for level in ["-O2", "-O3"] {
                for src in &sources {
                    let stem = src.file_stem().unwrap().to_string_lossy();
                    let tag = format!("{stem}_{}", t.name());
                    let co = dir.join(format!("{tag}{level}.co"));
                    let st = std::process::Command::new("clang-19")
                        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
                        .arg(format!("-mcpu={}", t.name()))
                        .args(["-nogpulib", level])
                        .arg(src)
                        .arg("-o")
                        .arg(&co)
                        .status()
                        .unwrap();
                    assert!(st.success(), "clang-19 failed on {tag} {level}");
                    let data = std::fs::read(&co).unwrap();
                    let dump = std::process::Command::new("llvm-objdump-19")
                        .arg("-d")
                        .arg(&co)
                        .output()
                        .unwrap();
                    let llvm = objdump_functions(&String::from_utf8_lossy(&dump.stdout));
                    let co_parsed = CodeObject::parse(&data).unwrap();
                    for k in &co_parsed.kernels {
                        let mut s = String::new();
                        listing(&mut s, &k.words().unwrap(), t);
                        let ours = our_instructions(&s);
                        let theirs = &llvm
                            .iter()
                            .find(|(n, _)| n == k.name())
                            .unwrap_or_else(|| panic!("{tag}: no `{}` in objdump", k.name()))
                            .1;
                        compared += ours.len();
                        // llvm-objdump also lists the padding after the last instruction.
                        let padding = |l: &str| l == "s_nop 0" || l == "s_code_end";
                        let theirs_len = theirs.len()
                            - theirs[ours.len().min(theirs.len())..]
                                .iter()
                                .rev()
                                .take_while(|l| padding(l.as_str()))
                                .count();
                        let first_difference = (0..ours.len().max(theirs_len))
                            .find(|&i| theirs[..theirs_len].get(i) != ours.get(i));
                        let known = UNDECODED
                            .iter()
                            .find(|(kn, tn)| *kn == k.name() && *tn == t.name());
                        match (first_difference, known) {
                            (Some(_), Some(_)) => {}
                            (None, Some(_)) => wrong.push(format!(
                                "{tag} {level} `{}` now matches: remove it from UNDECODED",
                                k.name()
                            )),
                            (None, None) => {}
                            (Some(i), None) => wrong.push(format!(
                                "{tag} {level} `{}` line {i}: ours `{}`, llvm-objdump `{}`",
                                k.name(),
                                ours.get(i).map_or("(nothing)", |s| s.as_str()),
                                theirs.get(i).map_or("(nothing)", |s| s.as_str())
                            )),
                        }
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(compared > 1000, "only {compared} instructions compared");
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
