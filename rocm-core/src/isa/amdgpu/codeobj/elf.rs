//! The ELF container: writing a loadable shared object laid out like ld.lld's, and
//! reading kernels back out of ours or LLVM's.
//!
//! Layout written (the same sections, order, alignments and address rules as ld.lld-19
//! gives `llvm-mc` output; what `hipModuleLoadData` consumes):
//!
//! | Section | Type | Flags | Align | Contents |
//! |---|---|---|---|---|
//! | `.note` | NOTE | A | 4 | `NT_AMDGPU_METADATA` (owner `AMDGPU`), MessagePack |
//! | `.dynsym` | DYNSYM | A | 8 | per kernel `name` (FUNC, GLOBAL, PROTECTED) and `name.kd` (OBJECT, GLOBAL) |
//! | `.gnu.hash`, `.hash` | | A | 8, 4 | symbol hash tables |
//! | `.dynstr` | STRTAB | A | 1 | |
//! | `.rodata` | PROGBITS | A | 64 | the 64-byte descriptors |
//! | `.text` | PROGBITS | AX | 256 | each kernel's code at a 256-byte-aligned address |
//! | `.dynamic` | DYNAMIC | WA | 8 | SYMTAB, SYMENT, STRTAB, STRSZ, GNU_HASH, HASH |
//! | `.symtab`, `.strtab`, `.shstrtab` | | | | the same symbols, non-allocated |
//!
//! Program headers: PHDR, a read-only LOAD from offset 0 (headers, note, symbols,
//! descriptors), an executable LOAD for `.text` and a read-write LOAD for `.dynamic`,
//! each starting a new 4 KiB page in the address space as lld places them (file offset
//! and address congruent modulo the page size), then DYNAMIC and NOTE. The header has
//! `EM_AMDGPU`, `ELFOSABI_AMDGPU_HSA`, ABI version 3 (code object v5), `ET_DYN` and the
//! target's `e_flags`.

use super::super::{decode_all, Instr};
use super::descriptor::{KernelDescriptor, KernelResources, DESCRIPTOR_BYTES};
use super::metadata::{CodeObjectMetadata, KernelArg, KernelMetadata, METADATA_VERSION_V5};
use super::CodeObjectTarget;
use crate::error::{Error, Result};
use object::elf;
use object::read::elf::{ElfFile64, FileHeader as _, SectionHeader as _};
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::{Endianness, Object, ObjectSection, ObjectSymbol};

/// `ELFOSABI_AMDGPU_HSA`.
const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `ELFABIVERSION_AMDGPU_HSA_V5`.
const ABI_VERSION_V5: u8 = 3;
/// `NT_AMDGPU_METADATA`.
const NT_AMDGPU_METADATA: u32 = 32;
const NOTE_OWNER: &[u8] = b"AMDGPU\0";
const PAGE: u64 = 0x1000;
/// Kernel entries must be 256-byte aligned (`KERNEL_CODE_ENTRY_BYTE_OFFSET`).
const CODE_ALIGN: u64 = 256;

/// One kernel of a code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Code bytes from the entry point (`s_endpgm` included).
    pub code: Vec<u8>,
    /// The descriptor; the writer recomputes `kernel_code_entry_byte_offset`.
    pub descriptor: KernelDescriptor,
    pub metadata: KernelMetadata,
}

impl Kernel {
    /// A kernel from its instructions, resources and arguments: encodes the code,
    /// computes the descriptor and fills the metadata the way clang does (`.sgpr_count`
    /// includes the reserved SGPRs, `.vgpr_count`/`.agpr_count` are the architectural
    /// VGPRs and the AGPRs).
    pub fn build(
        target: CodeObjectTarget,
        name: &str,
        instrs: &[Instr],
        resources: &KernelResources,
        args: Vec<KernelArg>,
        max_flat_workgroup_size: u32,
    ) -> Result<Kernel> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::invalid(
                "name",
                "kernel names are non-empty, without NUL",
            ));
        }
        for a in &args {
            let end = u64::from(a.offset) + u64::from(a.size);
            if end > u64::from(resources.kernarg_bytes) {
                return Err(Error::invalid(
                    "args",
                    format!(
                        "argument at offset {} of {} bytes ends past kernarg_bytes = {}",
                        a.offset, a.size, resources.kernarg_bytes
                    ),
                ));
            }
        }
        if !(1..=1024).contains(&max_flat_workgroup_size) {
            return Err(Error::invalid(
                "max_flat_workgroup_size",
                format!("{max_flat_workgroup_size} is not in 1..=1024"),
            ));
        }
        let words = super::super::encode_all(instrs, target.isa)?;
        let code = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let descriptor = KernelDescriptor::from_resources(resources, target)?;
        let metadata = KernelMetadata {
            name: name.to_string(),
            symbol: format!("{name}.kd"),
            args,
            kernarg_segment_size: resources.kernarg_bytes,
            kernarg_segment_align: 8,
            group_segment_fixed_size: resources.group_segment_bytes,
            private_segment_fixed_size: resources.private_segment_bytes,
            wavefront_size: if resources.wave32 { 32 } else { 64 },
            sgpr_count: u32::from(resources.total_sgprs(target)),
            vgpr_count: u32::from(resources.vgprs),
            agpr_count: u32::from(resources.agprs),
            max_flat_workgroup_size,
        };
        Ok(Kernel {
            code,
            descriptor,
            metadata,
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The code as little-endian dwords.
    pub fn words(&self) -> Result<Vec<u32>> {
        if self.code.len() % 4 != 0 {
            return Err(Error::invalid(
                "kernel code",
                format!("{} bytes is not a whole number of dwords", self.code.len()),
            ));
        }
        Ok(self
            .code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The code decoded into instructions.
    pub fn instructions(&self, target: CodeObjectTarget) -> Result<Vec<Instr>> {
        decode_all(&self.words()?, target.isa)
    }
}

/// A code object: a target and its kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObject {
    pub target: CodeObjectTarget,
    pub kernels: Vec<Kernel>,
}

/// Section placement computed in the reserve phase.
struct Layout {
    note: u64,
    dynsym: u64,
    gnu_hash: u64,
    hash: u64,
    dynstr: u64,
    rodata: u64,
    text: u64,
    text_len: u64,
    dynamic: u64,
    /// Start of each kernel's code relative to `.text`.
    code_offsets: Vec<u64>,
}

/// Virtual address of a file offset in the executable (text) and writable segments: one
/// page above / two pages above the file offset, as lld places them.
fn text_addr(off: u64) -> u64 {
    off + PAGE
}
fn rw_addr(off: u64) -> u64 {
    off + 2 * PAGE
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

impl CodeObject {
    /// The metadata document of this object.
    pub fn metadata(&self) -> CodeObjectMetadata {
        CodeObjectMetadata {
            version: METADATA_VERSION_V5,
            target: self.target.target_id(),
            kernels: self.kernels.iter().map(|k| k.metadata.clone()).collect(),
        }
    }

    /// Writes the ELF shared object (at least one kernel, unique names).
    pub fn to_elf(&self) -> Result<Vec<u8>> {
        self.target.validate()?;
        if self.kernels.is_empty() {
            return Err(Error::invalid(
                "kernels",
                "a code object needs at least one kernel",
            ));
        }
        let mut names = std::collections::HashSet::new();
        for k in &self.kernels {
            let name = &k.metadata.name;
            if name.is_empty() || name.contains('\0') || !names.insert(name.as_str()) {
                return Err(Error::invalid(
                    "kernels",
                    format!("kernel name `{name}` is empty, has a NUL or is repeated"),
                ));
            }
            if k.metadata.symbol != format!("{name}.kd") {
                return Err(Error::invalid(
                    "kernels",
                    format!("`{name}` has descriptor symbol `{}`", k.metadata.symbol),
                ));
            }
            if k.code.is_empty() || k.code.len() % 4 != 0 {
                return Err(Error::invalid(
                    "kernels",
                    format!("`{name}` has {} code bytes", k.code.len()),
                ));
            }
        }
        let msgpack = self.metadata().to_msgpack()?;
        let desc_len = u32::try_from(msgpack.len())
            .map_err(|_| Error::invalid("kernels", "metadata exceeds 4 GiB"))?;
        let mut note = Vec::with_capacity(msgpack.len() + 24);
        note.extend_from_slice(&(NOTE_OWNER.len() as u32).to_le_bytes());
        note.extend_from_slice(&desc_len.to_le_bytes());
        note.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
        note.extend_from_slice(NOTE_OWNER);
        note.resize(align_up(note.len() as u64, 4) as usize, 0);
        note.extend_from_slice(&msgpack);
        note.resize(align_up(note.len() as u64, 4) as usize, 0);

        let names: Vec<(Vec<u8>, Vec<u8>)> = self
            .kernels
            .iter()
            .map(|k| {
                let n = k.metadata.name.as_bytes().to_vec();
                let mut kd = n.clone();
                kd.extend_from_slice(b".kd");
                (n, kd)
            })
            .collect();

        let mut buf = Vec::new();
        let mut w = Writer::new(Endianness::Little, true, &mut buf);
        const PHDRS: u32 = 6;
        w.reserve_file_header();
        w.reserve_program_headers(PHDRS);
        // Section indices, in lld's order.
        w.reserve_null_section_index();
        let note_name = w.add_section_name(b".note");
        w.reserve_section_index();
        w.reserve_dynsym_section_index();
        w.reserve_gnu_hash_section_index();
        w.reserve_hash_section_index();
        w.reserve_dynstr_section_index();
        let rodata_name = w.add_section_name(b".rodata");
        let rodata_index = w.reserve_section_index();
        let text_name = w.add_section_name(b".text");
        let text_index = w.reserve_section_index();
        w.reserve_dynamic_section_index();
        w.reserve_symtab_section_index();
        w.reserve_shstrtab_section_index();
        w.reserve_strtab_section_index();

        // Symbols: per kernel the function, then its descriptor.
        let mut dyn_names = Vec::new();
        let mut sym_names = Vec::new();
        w.reserve_null_dynamic_symbol_index();
        w.reserve_null_symbol_index();
        for (n, kd) in &names {
            dyn_names.push((w.add_dynamic_string(n), w.add_dynamic_string(kd)));
            sym_names.push((w.add_string(n), w.add_string(kd)));
            w.reserve_dynamic_symbol_index();
            w.reserve_dynamic_symbol_index();
            w.reserve_symbol_index(Some(text_index));
            w.reserve_symbol_index(Some(rodata_index));
        }
        let nsyms = 2 * self.kernels.len() as u32;

        let note_off = w.reserve(note.len(), 4) as u64;
        let dynsym = w.reserve_dynsym() as u64;
        let gnu_hash = w.reserve_gnu_hash(1, 1, nsyms) as u64;
        let hash = w.reserve_hash(1, nsyms + 1) as u64;
        let dynstr = w.reserve_dynstr() as u64;
        let rodata = w.reserve(self.kernels.len() * DESCRIPTOR_BYTES, 64) as u64;
        let mut code_offsets = Vec::new();
        let mut text_len = 0u64;
        for k in &self.kernels {
            let at = align_up(text_len, CODE_ALIGN);
            code_offsets.push(at);
            text_len = at + k.code.len() as u64;
        }
        let text = w.reserve(text_len as usize, CODE_ALIGN as usize) as u64;
        const DYN_ENTRIES: usize = 7;
        let dynamic = w.reserve_dynamic(DYN_ENTRIES) as u64;
        w.reserve_symtab();
        w.reserve_shstrtab();
        w.reserve_strtab();
        w.reserve_section_headers();
        let l = Layout {
            note: note_off,
            dynsym,
            gnu_hash,
            hash,
            dynstr,
            rodata,
            text,
            text_len,
            dynamic,
            code_offsets,
        };
        let dynamic_len = (DYN_ENTRIES * 16) as u64;

        // Write phase.
        w.write_file_header(&FileHeader {
            os_abi: ELFOSABI_AMDGPU_HSA,
            abi_version: ABI_VERSION_V5,
            e_type: elf::ET_DYN,
            e_machine: elf::EM_AMDGPU,
            e_entry: 0,
            e_flags: self.target.e_flags(),
        })
        .map_err(|e| Error::io("writing the ELF header", e))?;
        w.write_align_program_headers();
        let phdr_len = u64::from(PHDRS) * 56;
        let ph = |p_type, p_flags, off: u64, addr: u64, filesz: u64, align: u64| ProgramHeader {
            p_type,
            p_flags,
            p_offset: off,
            p_vaddr: addr,
            p_paddr: addr,
            p_filesz: filesz,
            p_memsz: filesz,
            p_align: align,
        };
        let ro_end = l.rodata + (self.kernels.len() * DESCRIPTOR_BYTES) as u64;
        for h in [
            ph(elf::PT_PHDR, elf::PF_R, 64, 64, phdr_len, 8),
            ph(elf::PT_LOAD, elf::PF_R, 0, 0, ro_end, PAGE),
            ph(
                elf::PT_LOAD,
                elf::PF_R | elf::PF_X,
                l.text,
                text_addr(l.text),
                l.text_len,
                PAGE,
            ),
            ph(
                elf::PT_LOAD,
                elf::PF_R | elf::PF_W,
                l.dynamic,
                rw_addr(l.dynamic),
                dynamic_len,
                PAGE,
            ),
            ph(
                elf::PT_DYNAMIC,
                elf::PF_R | elf::PF_W,
                l.dynamic,
                rw_addr(l.dynamic),
                dynamic_len,
                8,
            ),
            ph(
                elf::PT_NOTE,
                elf::PF_R,
                l.note,
                l.note,
                note.len() as u64,
                4,
            ),
        ] {
            w.write_program_header(&h);
        }

        w.write_align(4);
        w.write(&note);

        let kd_addr = |i: usize| l.rodata + (i * DESCRIPTOR_BYTES) as u64;
        let code_addr = |i: usize| text_addr(l.text) + l.code_offsets[i];
        let func = (elf::STB_GLOBAL << 4) | elf::STT_FUNC;
        let obj = (elf::STB_GLOBAL << 4) | elf::STT_OBJECT;
        let syms = |i: usize, names: (object::write::StringId, object::write::StringId)| {
            [
                Sym {
                    name: Some(names.0),
                    section: Some(text_index),
                    st_info: func,
                    st_other: elf::STV_PROTECTED,
                    st_shndx: 0,
                    st_value: code_addr(i),
                    st_size: self.kernels[i].code.len() as u64,
                },
                Sym {
                    name: Some(names.1),
                    section: Some(rodata_index),
                    st_info: obj,
                    st_other: elf::STV_DEFAULT,
                    st_shndx: 0,
                    st_value: kd_addr(i),
                    st_size: DESCRIPTOR_BYTES as u64,
                },
            ]
        };
        w.write_null_dynamic_symbol();
        for (i, n) in dyn_names.iter().enumerate() {
            for s in syms(i, *n) {
                w.write_dynamic_symbol(&s);
            }
        }
        let all_names: Vec<&[u8]> = names
            .iter()
            .flat_map(|(n, kd)| [n.as_slice(), kd.as_slice()])
            .collect();
        // One bucket, so "sorted by bucket" holds for any order; lld's bloom shift.
        w.write_gnu_hash(1, 26, 1, 1, nsyms, |i| elf::gnu_hash(all_names[i as usize]));
        w.write_hash(1, nsyms + 1, |i| {
            i.checked_sub(1).map(|j| elf::hash(all_names[j as usize]))
        });
        w.write_dynstr();

        w.write_align(64);
        for (i, k) in self.kernels.iter().enumerate() {
            let mut d = k.descriptor;
            d.kernel_code_entry_byte_offset = code_addr(i) as i64 - kd_addr(i) as i64;
            w.write(&d.to_bytes());
        }
        w.pad_until(l.text as usize);
        for (i, k) in self.kernels.iter().enumerate() {
            // Zero bytes between kernels up to the next 256-byte entry.
            w.pad_until((l.text + l.code_offsets[i]) as usize);
            w.write(&k.code);
        }

        w.write_align_dynamic();
        let dyn_entries = [
            (elf::DT_SYMTAB, l.dynsym),
            (elf::DT_SYMENT, 24),
            (elf::DT_STRTAB, l.dynstr),
            (elf::DT_STRSZ, w.dynstr_len() as u64),
            (elf::DT_GNU_HASH, l.gnu_hash),
            (elf::DT_HASH, l.hash),
            (elf::DT_NULL, 0),
        ];
        for (tag, val) in dyn_entries {
            w.write_dynamic(tag, val)
                .map_err(|e| Error::io("writing .dynamic", e))?;
        }

        w.write_null_symbol();
        for (i, n) in sym_names.iter().enumerate() {
            for s in syms(i, *n) {
                w.write_symbol(&s);
            }
        }
        w.write_shstrtab();
        w.write_strtab();

        w.write_null_section_header();
        w.write_section_header(&SectionHeader {
            name: Some(note_name),
            sh_type: elf::SHT_NOTE,
            sh_flags: elf::SHF_ALLOC.into(),
            sh_addr: l.note,
            sh_offset: l.note,
            sh_size: note.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 4,
            sh_entsize: 0,
        });
        w.write_dynsym_section_header(l.dynsym, 1);
        w.write_gnu_hash_section_header(l.gnu_hash);
        w.write_hash_section_header(l.hash);
        w.write_dynstr_section_header(l.dynstr);
        w.write_section_header(&SectionHeader {
            name: Some(rodata_name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: elf::SHF_ALLOC.into(),
            sh_addr: l.rodata,
            sh_offset: l.rodata,
            sh_size: (self.kernels.len() * DESCRIPTOR_BYTES) as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 64,
            sh_entsize: 0,
        });
        w.write_section_header(&SectionHeader {
            name: Some(text_name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: (elf::SHF_ALLOC | elf::SHF_EXECINSTR).into(),
            sh_addr: text_addr(l.text),
            sh_offset: l.text,
            sh_size: l.text_len,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: CODE_ALIGN,
            sh_entsize: 0,
        });
        w.write_dynamic_section_header(rw_addr(l.dynamic));
        w.write_symtab_section_header(1);
        w.write_shstrtab_section_header();
        w.write_strtab_section_header();
        Ok(buf)
    }

    /// Reads a linked code object (ours or ld.lld's): the target from `e_flags`, and per
    /// metadata kernel its descriptor (symbol `.symbol`) and code (from the descriptor's
    /// entry offset, as long as the function symbol `name` says, else to the end of its
    /// section).
    pub fn parse(data: &[u8]) -> Result<CodeObject> {
        Ok(Self::parse_with_section_code(data)?.0)
    }

    /// [`CodeObject::parse`], and per kernel the bytes from its entry to the end of the
    /// section holding it: the functions it calls are usually placed after it, outside
    /// its symbol's size.
    pub fn parse_with_section_code(data: &[u8]) -> Result<(CodeObject, Vec<Vec<u8>>)> {
        let bad = |why: String| Error::invalid("code object", why);
        let file = ElfFile64::<Endianness>::parse(data).map_err(|e| bad(e.to_string()))?;
        let endian = file.endian();
        let header = file.elf_header();
        if header.e_machine(endian) != elf::EM_AMDGPU {
            return Err(bad(format!(
                "e_machine {} is not EM_AMDGPU",
                header.e_machine(endian)
            )));
        }
        let target = CodeObjectTarget::from_e_flags(header.e_flags(endian))?;

        let mut metadata = None;
        for section in file.elf_section_table().iter() {
            if section.sh_type(endian) != elf::SHT_NOTE {
                continue;
            }
            let notes = section
                .notes(endian, data)
                .map_err(|e| bad(e.to_string()))?;
            let Some(mut notes) = notes else { continue };
            while let Some(note) = notes.next().map_err(|e| bad(e.to_string()))? {
                if note.name() == b"AMDGPU" && note.n_type(endian) == NT_AMDGPU_METADATA {
                    metadata = Some(CodeObjectMetadata::from_msgpack(note.desc())?);
                }
            }
        }
        let metadata = metadata.ok_or_else(|| bad("no NT_AMDGPU_METADATA note".into()))?;

        // Symbols: the dynamic table, else the static one.
        let mut symbols: Vec<(String, u64, u64)> = file
            .dynamic_symbols()
            .filter_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
            .collect();
        if symbols.is_empty() {
            symbols = file
                .symbols()
                .filter_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
                .collect();
        }
        let find = |name: &str| symbols.iter().find(|(n, _, _)| n == name);
        // The bytes at an address up to the end of the section holding it.
        let bytes_at = |addr: u64| -> Result<&[u8]> {
            for s in file.sections() {
                let (start, size) = (s.address(), s.size());
                if addr >= start && addr < start.saturating_add(size) {
                    let d = s.data().map_err(|e| bad(e.to_string()))?;
                    let off = usize::try_from(addr - start).map_err(|e| bad(e.to_string()))?;
                    return d
                        .get(off..)
                        .ok_or_else(|| bad(format!("address {addr:#x} past data")));
                }
            }
            Err(bad(format!("address {addr:#x} is in no section")))
        };

        let mut kernels = Vec::new();
        let mut to_section_end = Vec::new();
        for m in metadata.kernels {
            let (_, kd_addr, _) = find(&m.symbol)
                .ok_or_else(|| bad(format!("no symbol `{}` for kernel `{}`", m.symbol, m.name)))?;
            let descriptor = KernelDescriptor::from_bytes(bytes_at(*kd_addr)?)?;
            let entry = kd_addr
                .checked_add_signed(descriptor.kernel_code_entry_byte_offset)
                .ok_or_else(|| bad(format!("`{}` has an entry offset out of range", m.name)))?;
            let code = bytes_at(entry)?;
            to_section_end.push(code.to_vec());
            let len = match find(&m.name) {
                Some((_, addr, size)) if *addr == entry && *size > 0 => {
                    usize::try_from(*size).map_err(|e| bad(e.to_string()))?
                }
                Some((_, addr, _)) if *addr != entry => {
                    return Err(bad(format!(
                        "`{}` is at {addr:#x} but its descriptor points to {entry:#x}",
                        m.name
                    )))
                }
                _ => code.len(),
            };
            let code = code
                .get(..len)
                .ok_or_else(|| bad(format!("`{}` code runs past its section", m.name)))?
                .to_vec();
            kernels.push(Kernel {
                code,
                descriptor,
                metadata: m,
            });
        }
        Ok((CodeObject { target, kernels }, to_section_end))
    }
}
