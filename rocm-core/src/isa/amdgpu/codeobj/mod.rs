//! AMDGPU code objects (HSA code object v5): the kernel descriptor computed from a
//! kernel's resource usage, the `NT_AMDGPU_METADATA` note, and the ELF shared object
//! that `hipModuleLoadData` loads — written and read back.
//!
//! ```
//! use rocm_core::isa::amdgpu::{codeobj::*, *};
//! let t = CodeObjectTarget::new(IsaTarget::Gfx90a);
//! let mut res = KernelResources::new(t.isa);
//! res.kernarg_bytes = 8;
//! res.sgprs = 2;
//! let code = [Instr::new(Op::SEndpgm, [])];
//! let k = Kernel::build(t, "noop", &code, &res, vec![KernelArg::global_buffer("p", 0)], 64)?;
//! let elf = CodeObject { target: t, kernels: vec![k] }.to_elf()?;
//! let back = CodeObject::parse(&elf)?;
//! assert_eq!(back.kernels[0].instructions(t)?, code);
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! - [`KernelDescriptor`] / [`KernelResources`] (`descriptor.rs`): granulated register
//!   counts per target, user SGPRs, id enables, LDS, float modes; and the reverse.
//! - [`CodeObjectMetadata`] (`metadata.rs`): the MessagePack document.
//! - [`CodeObject`] / [`Kernel`] (`elf.rs`): the ELF writer and reader.
//! - [`CodeObjectTarget`] (`target.rs`): `e_flags` and the target ID with xnack/sramecc.
//!
//! The tests compare everything with LLVM 19 (`llvm-mc-19`, `ld.lld-19`,
//! `llvm-readelf-19`, `llvm-objdump-19`) when installed.

mod descriptor;
mod elf;
mod metadata;
mod target;

pub use descriptor::{FloatMode, KernelDescriptor, KernelResources, UserSgprs, DESCRIPTOR_BYTES};
pub use elf::{CodeObject, Kernel};
pub use metadata::{CodeObjectMetadata, KernelArg, KernelMetadata, ValueKind, METADATA_VERSION_V5};
pub use target::CodeObjectTarget;

/// What the fuzzers (`fuzz/`, and the bounded loops in CI) check on any bytes: reading a
/// code object, decoding and printing every kernel's code, and reading its descriptor
/// return `Ok` or an `Error`, never panic; an object that reads writes back out.
#[doc(hidden)]
pub fn fuzz_input(data: &[u8]) {
    use super::{decode, disassemble};
    let Ok((co, section_code)) = CodeObject::parse_with_section_code(data) else {
        return;
    };
    let t = co.target;
    let _ = co.metadata();
    for (k, code) in co.kernels.iter().zip(&section_code) {
        if let Ok(r) = k.descriptor.resources(t) {
            let _ = r.validate(t);
        }
        let _ = (
            k.descriptor.allocated_vgprs(t.isa),
            k.descriptor.allocated_sgprs(),
        );
        if let Ok(words) = k.words() {
            let _ = disassemble(&words, t.isa);
            // Word by word as `rocm-bench disasm` does: skip one dword past a failure.
            let mut at = 0;
            while at < words.len() {
                at += match decode(&words[at..], t.isa) {
                    Ok((i, n)) => {
                        let _ = i.display(t.isa).to_string();
                        n.max(1)
                    }
                    Err(_) => 1,
                };
            }
        }
        let _ = k.instructions(t);
        let _ = code.len();
    }
    let _ = co.to_elf();
}

#[cfg(test)]
mod tests;
