//! A whole assembled kernel as an `llvm-mc-19` source file, so LLVM can build the same
//! code object from text:
//!
//! ```sh
//! llvm-mc-19 -triple amdgcn-amd-amdhsa -mcpu=<gfx> -filetype=obj k.s -o k.o
//! ld.lld-19 -shared k.o -o k.hsaco
//! ```
//!
//! The file has `.amdgcn_target`, `.amdhsa_code_object_version 5`, the code in `.text`
//! (instructions printed by [`rocm_core::isa::amdgpu::Instr::display`], branches with
//! label targets so LLVM resolves the offsets itself), the `.amdhsa_kernel` block written
//! from the same [`KernelResources`] our descriptor is computed from, and the
//! `.amdgpu_metadata` YAML of our metadata.

use super::asm::AssembledKernel;
use rocm_core::isa::amdgpu::codeobj::{KernelArg, KernelResources};
use rocm_core::isa::amdgpu::IsaFamily;
use std::fmt::Write as _;

/// The LLVM source of one or several kernels of one target.
pub fn llvm_source(kernels: &[AssembledKernel]) -> String {
    let mut s = String::new();
    let Some(first) = kernels.first() else {
        return s;
    };
    let _ = writeln!(s, ".amdgcn_target \"{}\"", first.target.target_id());
    let _ = writeln!(s, ".amdhsa_code_object_version 5");
    for k in kernels {
        write_code(&mut s, k);
    }
    for k in kernels {
        write_descriptor(&mut s, k);
    }
    write_metadata(&mut s, kernels);
    s
}

/// The label name the printer uses for the end of a kernel's code (for `.size`); the
/// assembler refuses it as a user label so the printed labels stay distinct.
pub(crate) const END_LABEL: &str = "end";

/// A label name unique to a kernel (LLVM's `.L` prefix keeps it out of the symbols).
fn label(kernel: &str, name: &str) -> String {
    format!(".L{kernel}_{name}")
}

fn write_code(s: &mut String, k: &AssembledKernel) {
    let t = k.target.isa;
    let name = k.name();
    let _ = writeln!(
        s,
        ".text\n.globl {name}\n.p2align 8\n.type {name},@function\n{name}:"
    );
    for p in &k.code {
        for l in &p.labels {
            let _ = writeln!(s, "{}:", label(name, l));
        }
        match &p.target {
            Some(l) => {
                let m = p.instr.mnemonic(t).unwrap_or("s_branch");
                let _ = writeln!(s, "  {m} {}", label(name, l));
            }
            None => {
                let _ = writeln!(s, "  {}", p.instr.display(t));
            }
        }
    }
    let end = label(name, END_LABEL);
    let _ = writeln!(s, "{end}:\n.size {name}, {end}-{name}");
}

fn write_descriptor(s: &mut String, k: &AssembledKernel) {
    let t = k.target;
    let r: &KernelResources = &k.resources;
    let gfx9 = t.isa.family() == IsaFamily::Gfx9;
    let _ = writeln!(s, ".rodata\n.p2align 6\n.amdhsa_kernel {}", k.name());
    let mut d = |key: &str, v: u32| {
        let _ = writeln!(s, "  .amdhsa_{key} {v}");
    };
    d(
        "user_sgpr_kernarg_segment_ptr",
        u32::from(r.user_sgprs.kernarg_segment_ptr),
    );
    d("kernarg_size", r.kernarg_bytes);
    d("group_segment_fixed_size", r.group_segment_bytes);
    d("next_free_vgpr", u32::from(r.total_vgprs(t)));
    d("next_free_sgpr", u32::from(r.sgprs));
    if t.isa.unified_agprs() {
        d("accum_offset", u32::from(r.accum_offset()));
    }
    d("reserve_vcc", u32::from(r.reserve_vcc));
    // llvm-mc's float defaults differ from ours (it flushes f32 denormals): say them all.
    let m = r.float_mode;
    d("float_round_mode_32", u32::from(m.round_32));
    d("float_round_mode_16_64", u32::from(m.round_16_64));
    d("float_denorm_mode_32", u32::from(m.denorm_32));
    d("float_denorm_mode_16_64", u32::from(m.denorm_16_64));
    d("dx10_clamp", u32::from(m.dx10_clamp));
    d("ieee_mode", u32::from(m.ieee_mode));
    if gfx9 {
        d("fp16_overflow", u32::from(m.fp16_overflow));
    }
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        d(
            &format!("system_sgpr_workgroup_id_{axis}"),
            u32::from(r.workgroup_id[i]),
        );
    }
    d(
        "system_vgpr_workitem_id",
        u32::from(r.workitem_id_dims.saturating_sub(1)),
    );
    if !gfx9 {
        d("wavefront_size32", u32::from(r.wave32));
    }
    let _ = writeln!(s, ".end_amdhsa_kernel");
}

fn yaml_arg(a: &KernelArg) -> String {
    let mut f = Vec::new();
    if let Some(n) = &a.name {
        // Tagged: LLVM's YAML reader takes `n`, `y`, `no` as booleans even when quoted.
        f.push(format!(".name: !str \"{n}\""));
    }
    f.push(format!(".offset: {}", a.offset));
    f.push(format!(".size: {}", a.size));
    f.push(format!(".value_kind: {}", a.value_kind.name()));
    if let Some(x) = &a.address_space {
        f.push(format!(".address_space: {x}"));
    }
    if let Some(x) = &a.actual_access {
        f.push(format!(".actual_access: {x}"));
    }
    format!("{{ {} }}", f.join(", "))
}

fn write_metadata(s: &mut String, kernels: &[AssembledKernel]) {
    let Some(first) = kernels.first() else { return };
    let _ = writeln!(
        s,
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: {}\namdhsa.kernels:",
        first.target.target_id()
    );
    for k in kernels {
        let m = &k.kernel.metadata;
        let _ = writeln!(
            s,
            "  - .name: !str \"{}\"\n    .symbol: !str \"{}\"",
            m.name, m.symbol
        );
        for (key, v) in [
            ("kernarg_segment_size", m.kernarg_segment_size),
            ("kernarg_segment_align", m.kernarg_segment_align),
            ("group_segment_fixed_size", m.group_segment_fixed_size),
            ("private_segment_fixed_size", m.private_segment_fixed_size),
            ("wavefront_size", m.wavefront_size),
            ("sgpr_count", m.sgpr_count),
            ("vgpr_count", m.vgpr_count),
            ("agpr_count", m.agpr_count),
            ("max_flat_workgroup_size", m.max_flat_workgroup_size),
        ] {
            let _ = writeln!(s, "    .{key}: {v}");
        }
        if m.args.is_empty() {
            let _ = writeln!(s, "    .args: []");
        } else {
            let _ = writeln!(s, "    .args:");
            for a in &m.args {
                let _ = writeln!(s, "      - {}", yaml_arg(a));
            }
        }
    }
    let _ = writeln!(s, "...\n.end_amdgpu_metadata");
}
