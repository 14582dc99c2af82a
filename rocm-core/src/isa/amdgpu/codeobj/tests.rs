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

/// The metadata as a YAML flow document for `.amdgpu_metadata` (names here are plain
/// identifiers, so no quoting is needed).
fn metadata_yaml(md: &CodeObjectMetadata) -> String {
    fn flow(v: &rmpv::Value) -> String {
        match v {
            rmpv::Value::Map(m) => {
                let items: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.as_str().unwrap(), flow(v)))
                    .collect();
                format!("{{ {} }}", items.join(", "))
            }
            rmpv::Value::Array(a) => {
                format!("[ {} ]", a.iter().map(flow).collect::<Vec<_>>().join(", "))
            }
            rmpv::Value::String(s) => s.as_str().unwrap().to_string(),
            other => other.to_string(),
        }
    }
    let bytes = md.to_msgpack().unwrap();
    let doc = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
    let rmpv::Value::Map(top) = doc else {
        unreachable!()
    };
    let mut s = String::from(".amdgpu_metadata\n---\n");
    for (k, v) in &top {
        s += &format!("{}: {}\n", k.as_str().unwrap(), flow(v));
    }
    s + "...\n.end_amdgpu_metadata\n"
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
    // gfx1201 is outside the ISA model: a clear error, not a misread.
    let text = std::fs::read_to_string(src.join("wmma_gfx1201.s")).unwrap();
    let s = dir.join("wmma_gfx1201.s");
    std::fs::write(&s, text).unwrap();
    let o = dir.join("wmma_gfx1201.o");
    let so = dir.join("wmma_gfx1201.hsaco");
    run(Command::new("llvm-mc-19")
        .args([
            "-triple",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx1201",
            "-filetype=obj",
        ])
        .arg(&s)
        .arg("-o")
        .arg(&o));
    run(Command::new("ld.lld-19")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&so));
    let err = CodeObject::parse(&std::fs::read(&so).unwrap()).unwrap_err();
    assert!(matches!(err, crate::Error::Unsupported { .. }), "{err}");
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

/// A random code object: 1..4 kernels built from the example code with random
/// resources and arguments.
fn random_object(rng: &mut StdRng, t: CodeObjectTarget) -> CodeObject {
    let n = rng.random_range(1..=3);
    let kernels = (0..n)
        .map(|i| {
            let mut r = random_resources(rng, t);
            r.kernarg_bytes = r.kernarg_bytes.max(32);
            let mut args = vec![KernelArg::global_buffer(&format!("p{i}"), 0)];
            args[0].actual_access = Some("read_only".into());
            args.push(KernelArg::by_value("n", 8, 4));
            let mut hidden = KernelArg::by_value("h", 16, 8);
            hidden.name = None;
            hidden.value_kind = ValueKind::Other("hidden_block_count_x".into());
            args.push(hidden);
            let mut code = example_kernel(t.isa);
            // Different code lengths, so entries land on different 256-byte slots.
            for _ in 0..rng.random_range(0..80) {
                code.insert(0, Instr::new(Op::SNop, [Operand::Imm(0)]));
            }
            let wg = [64, 128, 256, 1024][rng.random_range(0..4)];
            Kernel::build(t, &format!("kern_{i}"), &code, &r, args, wg).unwrap()
        })
        .collect();
    CodeObject { target: t, kernels }
}

/// Writer -> reader gives back the same object; entries are 256-byte aligned and the
/// descriptors point at them.
#[test]
fn round_trip() {
    let mut rng = StdRng::seed_from_u64(7);
    for t in code_targets() {
        for _ in 0..4 {
            let obj = random_object(&mut rng, t);
            let elf = obj.to_elf().unwrap();
            let back = CodeObject::parse(&elf).unwrap();
            assert_eq!(back.target, t);
            assert_eq!(back.kernels.len(), obj.kernels.len());
            for (a, b) in obj.kernels.iter().zip(&back.kernels) {
                assert_eq!(a.code, b.code);
                assert_eq!(a.metadata, b.metadata);
                let mut d = b.descriptor;
                assert_ne!(d.kernel_code_entry_byte_offset, 0);
                d.kernel_code_entry_byte_offset = 0;
                assert_eq!(a.descriptor, d);
                assert_eq!(
                    b.instructions(t).unwrap(),
                    decode_all(&a.words().unwrap(), t.isa).unwrap()
                );
            }
            // Entry addresses: the function symbols, 256-byte aligned.
            use object::{Object, ObjectSymbol};
            let f = object::File::parse(&elf[..]).unwrap();
            let funcs: Vec<u64> = f
                .dynamic_symbols()
                .filter(|s| s.kind() == object::SymbolKind::Text)
                .map(|s| s.address())
                .collect();
            assert_eq!(funcs.len(), obj.kernels.len());
            assert!(funcs.iter().all(|a| a % 256 == 0), "{funcs:x?}");
        }
    }
}

/// Bad input is an error, not a panic: truncated and corrupted objects, duplicate names.
#[test]
fn rejects_bad_input() {
    let t = CodeObjectTarget::new(IsaTarget::Gfx90a);
    let mut rng = StdRng::seed_from_u64(11);
    let obj = random_object(&mut rng, t);
    let elf = obj.to_elf().unwrap();
    for len in [0, 10, 64, 200, elf.len() / 2] {
        assert!(CodeObject::parse(&elf[..len]).is_err(), "{len}");
    }
    // Flipping bytes never panics (it may or may not still parse).
    for _ in 0..1000 {
        let mut e = elf.clone();
        let i = rng.random_range(0..e.len());
        e[i] ^= 1 << rng.random_range(0..8);
        let _ = CodeObject::parse(&e);
    }
    let empty = CodeObject {
        target: t,
        kernels: vec![],
    };
    assert!(empty.to_elf().is_err());
    let mut dup = obj.clone();
    dup.kernels.push(dup.kernels[0].clone());
    assert!(dup.to_elf().is_err());
    assert!(KernelDescriptor::from_bytes(&[0; 63]).is_err());
    let mut r = KernelResources::new(IsaTarget::Gfx908);
    r.wave32 = true;
    assert!(
        KernelDescriptor::from_resources(&r, CodeObjectTarget::new(IsaTarget::Gfx908)).is_err()
    );
    // Counts past the register files are errors, whatever their size.
    let t908 = CodeObjectTarget::new(IsaTarget::Gfx90a);
    for (v, a, sg) in [
        (u16::MAX, 0, 1),
        (1, u16::MAX, 1),
        (1, 0, u16::MAX),
        (257, 0, 1),
    ] {
        let mut r = KernelResources::new(t908.isa);
        (r.vgprs, r.agprs, r.sgprs) = (v, a, sg);
        let _ = (r.total_vgprs(t908), r.total_sgprs(t908));
        assert!(KernelDescriptor::from_resources(&r, t908).is_err());
    }
    let bad_target = CodeObjectTarget {
        isa: IsaTarget::Gfx1100,
        xnack: Some(true),
        sramecc: None,
    };
    assert!(bad_target.validate().is_err());
}

/// LLVM's YAML rendering of a MessagePack value, as whitespace-separated tokens: maps
/// with keys sorted, `key:` then the value; arrays as `-` then each element.
fn yaml_tokens(v: &rmpv::Value, out: &mut Vec<String>) {
    match v {
        rmpv::Value::Map(m) => {
            let mut m: Vec<_> = m.iter().collect();
            m.sort_by(|a, b| a.0.as_str().cmp(&b.0.as_str()));
            for (k, v) in m {
                out.push(format!("{}:", k.as_str().unwrap()));
                yaml_tokens(v, out);
            }
        }
        rmpv::Value::Array(a) => {
            for v in a {
                out.push("-".into());
                yaml_tokens(v, out);
            }
        }
        rmpv::Value::String(s) => out.push(s.as_str().unwrap().to_string()),
        other => out.push(other.to_string()),
    }
}

/// `llvm-readelf-19 --notes` decodes our metadata note to exactly what we wrote.
#[test]
fn readelf_parses_our_metadata() {
    if llvm().is_none() {
        return;
    }
    let dir = tmp("notes");
    let mut rng = StdRng::seed_from_u64(3);
    for t in code_targets() {
        let obj = random_object(&mut rng, t);
        let path = dir.join(format!("{}.hsaco", t.isa));
        std::fs::write(&path, obj.to_elf().unwrap()).unwrap();
        let out = run(Command::new("llvm-readelf-19").arg("--notes").arg(&path));
        assert!(out.contains("NT_AMDGPU_METADATA"), "{out}");
        let yaml = out
            .split("AMDGPU Metadata:")
            .nth(1)
            .unwrap()
            .split("---")
            .nth(1)
            .unwrap()
            .split("\n...")
            .next()
            .unwrap();
        // `!str` tags a string YAML would otherwise read as a bool (`n`): still a string.
        // YAML single-quotes strings with `:` (target IDs with features).
        let got: Vec<&str> = yaml
            .split_whitespace()
            .filter(|w| *w != "!str")
            .map(|w| {
                w.strip_prefix('\'')
                    .and_then(|w| w.strip_suffix('\''))
                    .unwrap_or(w)
            })
            .collect();
        let bytes = obj.metadata().to_msgpack().unwrap();
        let doc = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
        let mut want = Vec::new();
        yaml_tokens(&doc, &mut want);
        assert_eq!(got, want, "{t:?}");
    }
}

/// The `.amdhsa_*` lines `llvm-objdump -D --disassemble-symbols=name.kd` should print
/// for a descriptor computed from `r` (the fields it decodes, granule-rounded).
fn expected_kd_lines(r: &KernelResources, t: CodeObjectTarget) -> Vec<String> {
    let d = KernelDescriptor::from_resources(r, t).unwrap();
    let gfx9 = t.isa.family() == IsaFamily::Gfx9;
    let b = |x: bool| x as u32;
    let m = r.float_mode;
    let u = r.user_sgprs;
    let mut l = vec![
        format!(".amdhsa_group_segment_fixed_size {}", r.group_segment_bytes),
        format!(
            ".amdhsa_private_segment_fixed_size {}",
            r.private_segment_bytes
        ),
        format!(".amdhsa_kernarg_size {}", r.kernarg_bytes),
        format!(".amdhsa_next_free_vgpr {}", d.allocated_vgprs(t.isa)),
        format!(
            ".amdhsa_next_free_sgpr {}",
            if gfx9 { d.allocated_sgprs() } else { 8 }
        ),
        format!(".amdhsa_float_round_mode_32 {}", m.round_32),
        format!(".amdhsa_float_round_mode_16_64 {}", m.round_16_64),
        format!(".amdhsa_float_denorm_mode_32 {}", m.denorm_32),
        format!(".amdhsa_float_denorm_mode_16_64 {}", m.denorm_16_64),
        format!(".amdhsa_dx10_clamp {}", b(m.dx10_clamp)),
        format!(".amdhsa_ieee_mode {}", b(m.ieee_mode)),
        format!(".amdhsa_fp16_overflow {}", b(m.fp16_overflow)),
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
        format!(".amdhsa_user_sgpr_dispatch_ptr {}", b(u.dispatch_ptr)),
        format!(".amdhsa_user_sgpr_queue_ptr {}", b(u.queue_ptr)),
        format!(
            ".amdhsa_user_sgpr_kernarg_segment_ptr {}",
            b(u.kernarg_segment_ptr)
        ),
        format!(".amdhsa_user_sgpr_dispatch_id {}", b(u.dispatch_id)),
    ];
    if t.isa.unified_agprs() {
        l.push(format!(".amdhsa_accum_offset {}", r.accum_offset()));
    }
    if !gfx9 {
        l.push(format!(".amdhsa_wavefront_size32 {}", b(r.wave32)));
        l.push(".amdhsa_workgroup_processor_mode 1".into());
        l.push(".amdhsa_memory_ordered 1".into());
    }
    l
}

/// `llvm-objdump-19 --disassemble-symbols=<k>.kd` decodes our descriptors to the
/// resources we computed them from.
#[test]
fn objdump_decodes_our_descriptors() {
    if llvm().is_none() {
        return;
    }
    let dir = tmp("kd");
    let mut rng = StdRng::seed_from_u64(5);
    for t in code_targets() {
        let obj = random_object(&mut rng, t);
        let path = dir.join(format!("{}.hsaco", t.isa));
        std::fs::write(&path, obj.to_elf().unwrap()).unwrap();
        for k in &obj.kernels {
            let out = run(Command::new("llvm-objdump-19")
                .arg("-D")
                .arg(format!("--disassemble-symbols={}.kd", k.name()))
                .arg(&path));
            let got: Vec<String> = out
                .lines()
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|l| l.starts_with(".amdhsa_"))
                .collect();
            let r = k.descriptor.resources(t).unwrap();
            for want in expected_kd_lines(&r, t) {
                assert!(
                    got.contains(&want),
                    "{t:?} {}: `{want}` not in\n{out}",
                    k.name()
                );
            }
        }
    }
}

/// Our object has ld.lld-19's header fields, section list (name, type, flags,
/// alignment), program header kinds and dynamic symbols, for the same kernel.
#[test]
fn layout_matches_lld() {
    if llvm().is_none() {
        return;
    }
    let dir = tmp("layout");
    let sections = |p: &Path| -> Vec<String> {
        let out = run(Command::new("llvm-readelf-19").arg("-S").arg(p));
        out.lines()
            .filter(|l| l.trim_start().starts_with('['))
            .filter_map(|l| {
                let f: Vec<&str> = l.split(']').nth(1)?.split_whitespace().collect();
                // Name Type Address Off Size ES [Flg] Lk Inf Al
                let name = *f.first()?;
                let flags = if f.len() == 10 { f[6] } else { "" };
                let align = f.last()?;
                (![".comment", ".relro_padding", "Name"].contains(&name))
                    .then(|| format!("{name} {} {flags} {align}", f[1]))
            })
            .collect()
    };
    let header = |p: &Path| -> Vec<String> {
        let out = run(Command::new("llvm-readelf-19").arg("-h").arg(p));
        out.lines()
            .filter(|l| {
                ["Class", "OS/ABI", "ABI Version", "Type", "Machine", "Flags"]
                    .iter()
                    .any(|k| l.trim_start().starts_with(k))
            })
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let dynsyms = |p: &Path| -> Vec<String> {
        let out = run(Command::new("llvm-readelf-19").arg("--dyn-syms").arg(p));
        out.lines()
            .filter(|l| l.contains("GLOBAL"))
            .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let phdrs = |p: &Path| -> Vec<String> {
        let out = run(Command::new("llvm-readelf-19").arg("-l").arg(p));
        out.lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| ["PHDR", "LOAD", "DYNAMIC", "NOTE"].contains(w))
            .map(String::from)
            .collect()
    };
    for isa in TARGETS {
        let t = CodeObjectTarget::new(isa);
        let code = example_kernel(isa);
        let r = KernelResources::new(isa);
        let mut r = r;
        r.kernarg_bytes = 16;
        r.sgprs = 8;
        r.vgprs = 4;
        let args = vec![KernelArg::global_buffer("x", 0)];
        let k = Kernel::build(t, "axpy", &code, &r, args, 256).unwrap();
        let obj = CodeObject {
            target: t,
            kernels: vec![k],
        };
        let ours = dir.join(format!("ours-{isa}.hsaco"));
        std::fs::write(&ours, obj.to_elf().unwrap()).unwrap();
        let src = assembly(t, &[("axpy", &code, r)]) + &metadata_yaml(&obj.metadata());
        let lld = llvm_build(&dir, &format!("lld-{isa}"), &src, t);
        // LLVM's object carries the same metadata, and our reader agrees on it.
        assert_eq!(CodeObject::parse(&lld).unwrap().metadata(), obj.metadata());
        let theirs = dir.join(format!("lld-{isa}.hsaco"));
        assert_eq!(header(&ours), header(&theirs), "{isa}");
        assert_eq!(sections(&ours), sections(&theirs), "{isa}");
        assert_eq!(phdrs(&ours), phdrs(&theirs), "{isa}");
        // Value, size, type, bind, visibility, section index and name, except the
        // addresses (the notes' sizes may differ with MessagePack encodings).
        let strip = |v: Vec<String>| -> Vec<String> {
            v.iter()
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
                .collect()
        };
        assert_eq!(strip(dynsyms(&ours)), strip(dynsyms(&theirs)), "{isa}");
    }
}
