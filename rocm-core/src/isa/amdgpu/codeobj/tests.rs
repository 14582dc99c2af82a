//! Code-object tests: descriptors, metadata and ELF layout against LLVM 19
//! (`llvm-mc-19`, `ld.lld-19`, `llvm-readelf-19`, `llvm-objdump-19`), and round trips.
//! Tests needing LLVM print why they skip when the tools are absent.

use super::super::*;
use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGETS: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];

/// The LLVM 19 tools, or `None` (with the reason printed) when one is missing.
fn llvm() -> Option<()> {
    for tool in [
        "llvm-mc-19",
        "ld.lld-19",
        "llvm-readelf-19",
        "llvm-objdump-19",
    ] {
        let ok = Command::new(tool)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("skipping: `{tool}` not found (apt-get install llvm-19 lld-19)");
            return None;
        }
    }
    Some(())
}

/// A fresh temporary directory for one test.
fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocm-codeobj-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Assembles and links `src` for `t` with llvm-mc-19 and ld.lld-19; returns the object.
fn llvm_build(dir: &Path, name: &str, src: &str, t: CodeObjectTarget) -> Vec<u8> {
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let so = dir.join(format!("{name}.hsaco"));
    std::fs::write(&s, src).unwrap();
    run(Command::new("llvm-mc-19")
        .args(["-triple", "amdgcn-amd-amdhsa", "-filetype=obj"])
        .arg(format!("-mcpu={}", t.isa.name()))
        .arg(format!("-mattr={}", mattr(t)))
        .arg(&s)
        .arg("-o")
        .arg(&o));
    run(Command::new("ld.lld-19")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&so));
    std::fs::read(&so).unwrap()
}

/// The `-mattr` features of a target ID.
fn mattr(t: CodeObjectTarget) -> String {
    let mut f = Vec::new();
    for (name, v) in [("xnack", t.xnack), ("sramecc", t.sramecc)] {
        if let Some(on) = v {
            f.push(format!("{}{name}", if on { '+' } else { '-' }));
        }
    }
    f.join(",")
}

/// The `.amdhsa_*` directives that describe `r` to the assembler.
fn directives(r: &KernelResources, t: CodeObjectTarget) -> String {
    let isa = t.isa;
    let gfx9 = isa.family() == IsaFamily::Gfx9;
    let b = |x: bool| x as u32;
    let m = r.float_mode;
    let u = r.user_sgprs;
    let mut d = vec![
        format!(".amdhsa_group_segment_fixed_size {}", r.group_segment_bytes),
        format!(
            ".amdhsa_private_segment_fixed_size {}",
            r.private_segment_bytes
        ),
        format!(".amdhsa_kernarg_size {}", r.kernarg_bytes),
        format!(".amdhsa_user_sgpr_dispatch_ptr {}", b(u.dispatch_ptr)),
        format!(".amdhsa_user_sgpr_queue_ptr {}", b(u.queue_ptr)),
        format!(
            ".amdhsa_user_sgpr_kernarg_segment_ptr {}",
            b(u.kernarg_segment_ptr)
        ),
        format!(".amdhsa_user_sgpr_dispatch_id {}", b(u.dispatch_id)),
        format!(
            ".amdhsa_system_sgpr_workgroup_id_x {}",
            b(r.workgroup_id[0])
        ),
        format!(
            ".amdhsa_system_sgpr_workgroup_id_y {}",
            b(r.workgroup_id[1])
        ),
        format!(
            ".amdhsa_system_sgpr_workgroup_id_z {}",
            b(r.workgroup_id[2])
        ),
        format!(".amdhsa_system_vgpr_workitem_id {}", r.workitem_id_dims - 1),
        format!(".amdhsa_next_free_vgpr {}", r.total_vgprs(t)),
        format!(".amdhsa_next_free_sgpr {}", r.sgprs),
        format!(".amdhsa_reserve_vcc {}", b(r.reserve_vcc)),
        format!(".amdhsa_float_round_mode_32 {}", m.round_32),
        format!(".amdhsa_float_round_mode_16_64 {}", m.round_16_64),
        format!(".amdhsa_float_denorm_mode_32 {}", m.denorm_32),
        format!(".amdhsa_float_denorm_mode_16_64 {}", m.denorm_16_64),
        format!(".amdhsa_dx10_clamp {}", b(m.dx10_clamp)),
        format!(".amdhsa_ieee_mode {}", b(m.ieee_mode)),
    ];
    if let Some(n) = r.user_sgpr_count {
        d.push(format!(".amdhsa_user_sgpr_count {n}"));
    }
    let private = b(r.private_segment_bytes > 0);
    // Targets with architected flat scratch (gfx942, gfx11) name the bit differently.
    if matches!(isa, IsaTarget::Gfx942) || !gfx9 {
        d.push(format!(".amdhsa_enable_private_segment {private}"));
    } else {
        d.push(format!(
            ".amdhsa_system_sgpr_private_segment_wavefront_offset {private}"
        ));
    }
    if isa.unified_agprs() {
        d.push(format!(".amdhsa_accum_offset {}", r.accum_offset()));
    }
    if matches!(isa, IsaTarget::Gfx908 | IsaTarget::Gfx90a) {
        d.push(format!(
            ".amdhsa_reserve_flat_scratch {}",
            b(r.reserve_flat_scratch)
        ));
    }
    if gfx9 {
        d.push(format!(
            ".amdhsa_reserve_xnack_mask {}",
            b(t.xnack_on_or_any())
        ));
        d.push(format!(".amdhsa_fp16_overflow {}", b(m.fp16_overflow)));
    } else {
        d.push(format!(".amdhsa_wavefront_size32 {}", b(r.wave32)));
    }
    d.iter().map(|l| format!("  {l}\n")).collect()
}

/// Assembly text for kernels (name, instructions, resources): our printer's syntax plus
/// the directives, no metadata (LLVM does not check it; descriptors and code only).
fn assembly(t: CodeObjectTarget, kernels: &[(&str, &[Instr], KernelResources)]) -> String {
    let mut s = format!(
        ".amdgcn_target \"{}\"\n.amdhsa_code_object_version 5\n",
        t.target_id()
    );
    for (name, code, r) in kernels {
        s += &format!(".text\n.globl {name}\n.p2align 8\n.type {name},@function\n{name}:\n");
        for i in code.iter() {
            s += &format!("  {}\n", i.display(t.isa));
        }
        s += &format!(".rodata\n.p2align 6\n.amdhsa_kernel {name}\n");
        s += &directives(r, t);
        s += ".end_amdhsa_kernel\n";
    }
    s
}

/// Descriptors of the `.kd` symbols of an LLVM-linked object, by kernel name, read
/// directly from the symbol table (independently of our reader).
fn llvm_descriptors(elf: &[u8]) -> Vec<(String, KernelDescriptor)> {
    use object::{Object, ObjectSection, ObjectSymbol};
    let f = object::File::parse(elf).unwrap();
    let ro = f.section_by_name(".rodata").unwrap();
    let data = ro.data().unwrap();
    let mut out: Vec<_> = f
        .dynamic_symbols()
        .filter_map(|s| {
            let n = s.name().ok()?.strip_suffix(".kd")?.to_string();
            let off = (s.address() - ro.address()) as usize;
            Some((
                n,
                KernelDescriptor::from_bytes(&data[off..off + 64]).unwrap(),
            ))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Random resources valid on `t`.
fn random_resources(rng: &mut StdRng, t: CodeObjectTarget) -> KernelResources {
    let gfx9 = t.isa.family() == IsaFamily::Gfx9;
    let mut r = KernelResources::new(t.isa);
    r.vgprs = rng.random_range(0..=256);
    r.agprs = if gfx9 && rng.random_bool(0.5) {
        rng.random_range(0..=256)
    } else {
        0
    };
    if t.isa.unified_agprs() && r.accum_offset() + r.agprs > 512 {
        r.agprs = 512 - r.accum_offset();
    }
    r.sgprs = rng.random_range(0..=t.isa.sgpr_count());
    r.reserve_vcc = rng.random_bool(0.5);
    r.reserve_flat_scratch = rng.random_bool(0.5);
    r.user_sgprs = UserSgprs {
        dispatch_ptr: rng.random_bool(0.3),
        queue_ptr: rng.random_bool(0.3),
        kernarg_segment_ptr: rng.random_bool(0.8),
        dispatch_id: rng.random_bool(0.3),
    };
    if rng.random_bool(0.3) {
        r.user_sgpr_count = Some(rng.random_range(r.user_sgprs.count()..=16));
    }
    r.workgroup_id = [
        rng.random_bool(0.7),
        rng.random_bool(0.5),
        rng.random_bool(0.5),
    ];
    r.workitem_id_dims = rng.random_range(1..=3);
    r.group_segment_bytes = rng.random_range(0..=65536);
    r.private_segment_bytes = if rng.random_bool(0.3) {
        rng.random_range(1..=4096)
    } else {
        0
    };
    r.kernarg_bytes = rng.random_range(0..=4096);
    r.wave32 = !gfx9 && rng.random_bool(0.8);
    r.float_mode = FloatMode {
        round_32: rng.random_range(0..4),
        round_16_64: rng.random_range(0..4),
        denorm_32: rng.random_range(0..4),
        denorm_16_64: rng.random_range(0..4),
        dx10_clamp: rng.random_bool(0.5),
        ieee_mode: rng.random_bool(0.5),
        fp16_overflow: gfx9 && rng.random_bool(0.5),
    };
    r
}

/// Targets with each xnack/sramecc setting the gfx9 ones take.
fn code_targets() -> Vec<CodeObjectTarget> {
    let mut v = Vec::new();
    for isa in TARGETS {
        if isa.family() == IsaFamily::Gfx9 {
            for (xnack, sramecc) in [(None, None), (Some(false), Some(true)), (Some(true), None)] {
                v.push(CodeObjectTarget {
                    isa,
                    xnack,
                    sramecc,
                });
            }
        } else {
            v.push(CodeObjectTarget::new(isa));
        }
    }
    v
}

/// Random descriptors computed by us equal what llvm-mc-19 computes from the same
/// `.amdhsa_*` directives (granules, reservations, accum_offset, all fields), and the
/// ELF flags equal llvm-mc's for each target ID.
#[test]
fn descriptors_match_llvm_mc() {
    if llvm().is_none() {
        return;
    }
    let dir = tmp("desc");
    let mut rng = StdRng::seed_from_u64(0x5eed_c0de);
    let endpgm = [Instr::new(Op::SEndpgm, [])];
    for t in code_targets() {
        let cases: Vec<(String, KernelResources)> = (0..16)
            .map(|i| (format!("k{i:02}"), random_resources(&mut rng, t)))
            .collect();
        let kernels: Vec<(&str, &[Instr], KernelResources)> = cases
            .iter()
            .map(|(n, r)| (n.as_str(), &endpgm[..], *r))
            .collect();
        let elf = llvm_build(&dir, &format!("d-{}", t.isa), &assembly(t, &kernels), t);
        let theirs = llvm_descriptors(&elf);
        assert_eq!(theirs.len(), cases.len());
        for ((name, r), (their_name, their)) in cases.iter().zip(&theirs) {
            assert_eq!(name, their_name);
            let mut ours = KernelDescriptor::from_resources(r, t).unwrap();
            ours.kernel_code_entry_byte_offset = their.kernel_code_entry_byte_offset;
            assert_eq!(&ours, their, "{t:?} {name} {r:?}");
            // Decoding gives resources that compute the same descriptor.
            let back = ours.resources(t).unwrap();
            let mut again = KernelDescriptor::from_resources(&back, t).unwrap();
            again.kernel_code_entry_byte_offset = ours.kernel_code_entry_byte_offset;
            assert_eq!(again, ours, "{t:?} {name} decoded {back:?}");
        }
        let file = object::read::elf::ElfFile64::<object::Endianness>::parse(&elf[..]).unwrap();
        use object::read::elf::FileHeader as _;
        let flags = file.elf_header().e_flags(file.endian());
        assert_eq!(flags, t.e_flags(), "{t:?}");
        assert_eq!(CodeObjectTarget::from_e_flags(flags).unwrap(), t);
    }
}

/// The reference kernels of `amdgpu-examples/` (the descriptor fields their directives
/// set) and their targets.
const EXAMPLES: [(&str, IsaTarget); 4] = [
    ("mfma_gfx908", IsaTarget::Gfx908),
    ("mfma_gfx90a", IsaTarget::Gfx90a),
    ("mfma_gfx942", IsaTarget::Gfx942),
    ("wmma_gfx1100", IsaTarget::Gfx1100),
];

fn examples_dir() -> Option<PathBuf> {
    let d = PathBuf::from(
        std::env::var("AMDGPU_EXAMPLES")
            .unwrap_or_else(|_| "/work/shared/reference/amdgpu-examples".into()),
    );
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("skipping: {} not found (set AMDGPU_EXAMPLES)", d.display());
        None
    }
}

/// The instruction text of `llvm-objdump -d` for a symbol (canonical LLVM syntax).
fn objdump_text(path: &Path, t: IsaTarget, sym: &str) -> Vec<String> {
    let out = run(Command::new("llvm-objdump-19")
        .args(["-d", &format!("--mcpu={}", t.name())])
        .arg(format!("--disassemble-symbols={sym}"))
        .arg(path));
    out.lines()
        .filter(|l| l.starts_with('\t') || l.starts_with("  "))
        .filter_map(|l| {
            let text = l.split("//").next()?.trim();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            // llvm-objdump prints a zero gfx11 SMEM offset as the `null` soffset.
            let text = match text.strip_suffix(", null") {
                Some(head) if text.starts_with("s_load") => format!("{head}, 0x0"),
                _ => text,
            };
            (!text.is_empty()).then_some(text)
        })
        .collect()
}

/// Our reader parses the LLVM-built reference examples into the kernels their sources
/// describe: names, metadata, descriptors (checked against the directives) and
/// instructions (checked against llvm-objdump's disassembly); then our writer, given
/// the same instructions and resources, produces the same code and descriptor bytes.
#[test]
fn reads_llvm_examples_and_writes_the_same() {
    let (Some(()), Some(src)) = (llvm(), examples_dir()) else {
        return;
    };
    let dir = tmp("examples");
    for (name, isa) in EXAMPLES {
        let text = std::fs::read_to_string(src.join(format!("{name}.s"))).unwrap();
        let elf = llvm_build(&dir, name, &text, CodeObjectTarget::new(isa));
        let obj = CodeObject::parse(&elf).unwrap();
        let t = obj.target;
        assert_eq!(t, CodeObjectTarget::new(isa));
        assert_eq!(obj.kernels.len(), 1);
        let k = &obj.kernels[0];
        let md = &k.metadata;
        assert_eq!(md.symbol, format!("{}.kd", md.name));
        assert_eq!(md.kernarg_segment_size, 24);
        assert_eq!(md.args.len(), 3);
        for (i, a) in md.args.iter().enumerate() {
            assert_eq!((a.offset, a.size), (8 * i as u32, 8));
            assert_eq!(a.value_kind, ValueKind::GlobalBuffer);
            assert_eq!(a.address_space.as_deref(), Some("global"));
        }
        // The directives of the sources: kernarg pointer, 24 kernarg bytes,
        // next_free_sgpr 10, next_free_vgpr 16 (gfx908), 24 (gfx90a/gfx942, accum_offset
        // 24), 25 (gfx1100, wave32).
        let mut r = KernelResources::new(isa);
        r.kernarg_bytes = 24;
        r.sgprs = 10;
        r.float_mode.denorm_32 = 0; // the assembler's default, which the sources keep
        match isa {
            IsaTarget::Gfx908 => (r.vgprs, r.agprs) = (10, 16),
            IsaTarget::Gfx1100 => r.vgprs = 25,
            _ => r.vgprs = 24,
        }
        let d = KernelDescriptor::from_resources(&r, t).unwrap();
        let mut theirs = k.descriptor;
        theirs.kernel_code_entry_byte_offset = 0;
        assert_eq!(theirs, d, "{name}");

        let instrs = k.instructions(t).unwrap();
        let path = dir.join(format!("{name}.hsaco"));
        let printed: Vec<String> = instrs.iter().map(|i| i.display(isa).to_string()).collect();
        assert_eq!(printed, objdump_text(&path, isa, &md.name), "{name}");

        // Our writer with the same instructions and resources.
        let ours = Kernel::build(t, &md.name, &instrs, &r, md.args.clone(), 64).unwrap();
        assert_eq!(ours.code, k.code, "{name}");
        assert_eq!(ours.descriptor, theirs, "{name}");
        let back = CodeObject::parse(
            &CodeObject {
                target: t,
                kernels: vec![ours.clone()],
            }
            .to_elf()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(back.kernels[0].code, k.code);
    }
}

/// For one kernel per target, our object equals what llvm-mc-19 + ld.lld-19 make of the
/// text our printer writes plus the `.amdhsa_*` directives: same instruction bytes, same
/// descriptor (entry offsets included, since the layout is lld's), same symbols.
#[test]
fn our_object_matches_llvm_from_printed_text() {
    if llvm().is_none() {
        return;
    }
    let dir = tmp("printed");
    for isa in TARGETS {
        let t = CodeObjectTarget::new(isa);
        let code = example_kernel(isa);
        let mut r = KernelResources::new(isa);
        r.kernarg_bytes = 16;
        r.sgprs = 8;
        r.vgprs = 4;
        r.workgroup_id = [true, true, false];
        r.workitem_id_dims = 2;
        r.group_segment_bytes = 1024;
        if isa.unified_agprs() {
            r.agprs = 6;
        }
        let args = vec![
            KernelArg::global_buffer("x", 0),
            KernelArg::by_value("n", 8, 4),
        ];
        let ours = Kernel::build(t, "axpy", &code, &r, args, 256).unwrap();
        let our_elf = CodeObject {
            target: t,
            kernels: vec![ours],
        }
        .to_elf()
        .unwrap();
        let their_elf = llvm_build(
            &dir,
            &format!("p-{isa}"),
            &assembly(t, &[("axpy", &code, r)]),
            t,
        );
        let mine = CodeObject::parse(&our_elf).unwrap();
        let (_, mut their_d) = llvm_descriptors(&their_elf)[0];
        let (_, mut my_d) = llvm_descriptors(&our_elf)[0];
        // Entry offsets depend on the note's size (LLVM's object has no metadata here);
        // the round trip checks ours points at the code.
        their_d.kernel_code_entry_byte_offset = 0;
        my_d.kernel_code_entry_byte_offset = 0;
        assert_eq!(my_d, their_d, "{isa}");
        // The code bytes at the entry point.
        use object::{Object, ObjectSection};
        let f = object::File::parse(&their_elf[..]).unwrap();
        let text = f.section_by_name(".text").unwrap().data().unwrap().to_vec();
        assert_eq!(
            &text[..mine.kernels[0].code.len()],
            &mine.kernels[0].code[..]
        );
    }
}

/// A small kernel per target: load a pointer and a value, add, store, end.
fn example_kernel(isa: IsaTarget) -> Vec<Instr> {
    let max = Waitcnt::max(isa.family());
    let wait = |w: Waitcnt| Instr::new(Op::SWaitcnt, [Operand::Waitcnt(w)]);
    vec![
        Instr::new(Op::SLoadDwordx2, [sr(4, 2), sr(0, 2)]),
        Instr::new(Op::SLoadDword, [s(6), sr(0, 2)]).offset(8),
        Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(0)]),
        wait(Waitcnt { lgkm: 0, ..max }),
        Instr::new(Op::GlobalLoadDword, [v(2), v(1), sr(4, 2)]),
        wait(Waitcnt { vm: 0, ..max }),
        Instr::new(Op::VAddU32, [v(2), s(6), v(2)]),
        Instr::new(Op::GlobalStoreDword, [v(1), v(2), sr(4, 2)]),
        Instr::new(Op::SEndpgm, []),
    ]
}
