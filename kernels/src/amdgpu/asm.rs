//! The kernel builder: instructions, labels, kernel arguments and launch-state registers
//! in, a checked [`AssembledKernel`] out.
//!
//! What [`Assembler::finish`] does that hardware and `llvm-mc` do not:
//!
//! 1. **Hazard NOPs.** Walks the code in order with a
//!    [`rocm_core::isa::amdgpu::hazard::HazardTracker`], asks `check` before each
//!    instruction and inserts `s_nop` chunks (at most `s_nop 7` = 8 wait states each) for
//!    the missing wait states. At a label the tracker states of every predecessor (the
//!    fall-through and every branch to it) are merged; back edges are iterated until the
//!    inserted NOPs stop changing.
//! 2. **The `s_waitcnt` check.** Runs a [`rocm_core::isa::amdgpu::waitcnt::Scoreboard`]
//!    over the same control flow and fails naming the instruction when a register is
//!    used while a memory instruction may still write it. Waits are never inserted: the
//!    author writes them, this is the check.
//! 3. **Branch offsets** resolved after the NOPs are in place.
//! 4. **Resources**: highest SGPR/VGPR/AGPR named, VCC use, LDS declared, kernarg size,
//!    workgroup-id and work-item-id dimensions → [`KernelResources`] → [`Kernel::build`].
//!
//! Errors while emitting (a misaligned tuple, an instruction the target lacks) are kept
//! and returned by `finish`, so kernels read as straight lists of instructions.
//!
//! Launch state (AMDGPUUsage "Initial Kernel Execution State"): the kernarg pointer in
//! `s[0:1]` (the only user SGPRs), then workgroup id x, y, z in `s2..` for the enabled
//! dimensions; work-item ids packed in `v0` (x bits 9:0, y 19:10, z 29:20) on gfx90a,
//! gfx942 and gfx11, separate `v0`, `v1`, `v2` on gfx908.

use super::regs::{check_operand, Agpr, RegAllocator, RegFile, Sgpr, Vgpr};
use super::report::ResourceReport;
use crate::signature::{ParamType, Signature};
use rocm_core::isa::amdgpu::codeobj::{
    CodeObject, CodeObjectTarget, Kernel, KernelArg, KernelResources, ValueKind,
};
use rocm_core::isa::amdgpu::hazard::HazardTracker;
use rocm_core::isa::amdgpu::waitcnt::Scoreboard;
use rocm_core::isa::amdgpu::{encode, Instr, IsaFamily, IsaTarget, Op, Operand, RegRange, Waitcnt};
use rocm_core::{Error, Result};
use std::fmt::Write as _;

/// A position in the code, bound with [`Assembler::bind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label(usize);

/// One element of the program before layout.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Instr(Instr),
    /// A branch (SOPP with a label operand) to a label.
    Branch(Op, Label),
    Bind(Label),
}

/// Which rules `finish` applies. [`Checks::ALL`] is the normal mode; [`Checks::NONE`]
/// builds the code exactly as written (for kernels that must violate a rule, e.g. the
/// emulator's fault tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    /// Insert hazard NOPs.
    pub hazards: bool,
    /// Reject uses of registers with an outstanding load.
    pub waitcnt: bool,
}

impl Checks {
    pub const ALL: Checks = Checks {
        hazards: true,
        waitcnt: true,
    };
    pub const NONE: Checks = Checks {
        hazards: false,
        waitcnt: false,
    };
}

/// A laid-out instruction: what was emitted or inserted, where it is, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub instr: Instr,
    /// Byte offset from the kernel entry.
    pub pc: u32,
    /// The branch target's label name, for branches.
    pub target: Option<String>,
    /// Labels bound right before this instruction.
    pub labels: Vec<String>,
    /// Why a NOP was inserted (hazard rule), `None` for the author's instructions.
    pub inserted_for: Option<String>,
}

/// A finished kernel: the code object kernel, its resource report and a listing.
#[derive(Debug, Clone)]
pub struct AssembledKernel {
    pub target: CodeObjectTarget,
    pub kernel: Kernel,
    pub resources: KernelResources,
    pub report: ResourceReport,
    /// The laid-out instructions (with inserted NOPs and resolved branches).
    pub code: Vec<Placed>,
    /// One line per instruction: pc, text, and the reason for inserted NOPs.
    pub listing: String,
}

impl AssembledKernel {
    pub fn name(&self) -> &str {
        self.kernel.name()
    }

    /// The instructions as encoded (branch offsets resolved).
    pub fn instructions(&self) -> Vec<Instr> {
        self.code.iter().map(|p| p.instr.clone()).collect()
    }

    /// A code object holding this kernel alone.
    pub fn code_object(&self) -> CodeObject {
        CodeObject {
            target: self.target,
            kernels: vec![self.kernel.clone()],
        }
    }

    /// The ELF bytes of [`Self::code_object`].
    pub fn to_elf(&self) -> Result<Vec<u8>> {
        self.code_object().to_elf()
    }
}

/// A code object of several kernels of one target.
pub fn code_object(kernels: &[AssembledKernel]) -> Result<CodeObject> {
    let first = kernels
        .first()
        .ok_or_else(|| Error::invalid("kernels", "a code object needs at least one kernel"))?;
    if let Some(k) = kernels.iter().find(|k| k.target != first.target) {
        return Err(Error::invalid(
            "kernels",
            format!(
                "`{}` is for {} but `{}` for {}",
                k.name(),
                k.target.isa,
                first.name(),
                first.target.isa
            ),
        ));
    }
    Ok(CodeObject {
        target: first.target,
        kernels: kernels.iter().map(|k| k.kernel.clone()).collect(),
    })
}

/// Wait states one `s_nop` chunk covers (`s_nop 7`).
const MAX_NOP_WAITS: u8 = 8;
/// Passes over the code before giving up on a fixpoint of the NOP plan.
const MAX_PASSES: usize = 16;

/// The SGPRs holding a kernel's declared arguments, by parameter name.
#[derive(Debug, Clone)]
pub struct ArgRegs {
    regs: Vec<(String, Option<Sgpr>)>,
}

impl ArgRegs {
    /// The register(s) of parameter `name`; a name the signature does not declare (or a
    /// byte array, which is not loaded) is a generator bug, reported as an error.
    pub fn get(&self, name: &str) -> Result<Sgpr> {
        self.opt(name).ok_or_else(|| {
            Error::invalid(
                "kernel argument",
                format!("the signature declares no loaded argument `{name}`"),
            )
        })
    }

    /// The register(s) of `name` where the signature declares it.
    pub fn opt(&self, name: &str) -> Option<Sgpr> {
        self.regs
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, r)| *r)
    }
}

/// The kernel builder. See the module docs.
#[derive(Debug, Clone)]
pub struct Assembler {
    target: CodeObjectTarget,
    name: String,
    items: Vec<Item>,
    label_names: Vec<String>,
    label_bound: Vec<bool>,
    args: Vec<KernelArg>,
    kernarg_bytes: u32,
    /// A hidden argument was declared: explicit ones may no longer follow (the host
    /// packs only the explicit arguments, from offset 0).
    hidden_args: bool,
    lds_bytes: u32,
    workgroup_size: u32,
    dims: u8,
    sgprs: RegAllocator,
    vgprs: RegAllocator,
    agprs: RegAllocator,
    error: Option<Error>,
}

impl Assembler {
    /// A kernel `name` for `target` launched with at most `workgroup_size` work-items in
    /// `dims` dimensions (1..=3: enables workgroup ids and work-item ids x..).
    pub fn new(target: IsaTarget, name: &str, workgroup_size: u32, dims: u8) -> Result<Self> {
        if !(1..=3).contains(&dims) {
            return Err(Error::invalid("dims", format!("{dims} is not 1, 2 or 3")));
        }
        if !(1..=1024).contains(&workgroup_size) {
            return Err(Error::invalid(
                "workgroup_size",
                format!("{workgroup_size} is not in 1..=1024"),
            ));
        }
        let mut sgprs = RegAllocator::new(target, RegFile::Sgpr, 0);
        // s[0:1] kernarg pointer, then one workgroup id per dimension.
        sgprs.reserve_below(2 + u16::from(dims));
        let mut vgprs = RegAllocator::new(target, RegFile::Vgpr, 0);
        vgprs.reserve_below(if packed_workitem_ids(target) {
            1
        } else {
            u16::from(dims)
        });
        Ok(Assembler {
            target: CodeObjectTarget::new(target),
            name: name.to_string(),
            items: Vec::new(),
            label_names: Vec::new(),
            label_bound: Vec::new(),
            args: Vec::new(),
            kernarg_bytes: 0,
            hidden_args: false,
            lds_bytes: 0,
            workgroup_size,
            dims,
            sgprs,
            vgprs,
            agprs: RegAllocator::new(target, RegFile::Agpr, 0),
            error: None,
        })
    }

    pub fn target(&self) -> IsaTarget {
        self.target.isa
    }

    /// Lanes per wave (64 on gfx9, 32 on gfx11).
    pub fn wave_size(&self) -> u32 {
        self.target.isa.wave_size()
    }

    fn gfx11(&self) -> bool {
        self.target.isa.family() == IsaFamily::Gfx11
    }

    // ---- registers ---------------------------------------------------------------

    /// `count` fresh SGPRs (pairs even-aligned, 4+ aligned to 4).
    pub fn sgprs(&mut self, count: u8) -> Result<Sgpr> {
        self.sgprs.alloc(self.target.isa, count).map(Sgpr)
    }

    /// `count` fresh VGPRs (tuples even-aligned on gfx90a/gfx942).
    pub fn vgprs(&mut self, count: u8) -> Result<Vgpr> {
        self.vgprs.alloc(self.target.isa, count).map(Vgpr)
    }

    /// `count` fresh AGPRs (gfx9 only).
    pub fn agprs(&mut self, count: u8) -> Result<Agpr> {
        self.agprs.alloc(self.target.isa, count).map(Agpr)
    }

    /// The kernarg segment pointer, `s[0:1]`.
    pub fn kernarg_ptr(&self) -> Sgpr {
        Sgpr::range(0, 2)
    }

    /// The workgroup id of dimension `dim` (0 = x) in its system SGPR.
    pub fn workgroup_id(&self, dim: u8) -> Result<Sgpr> {
        if dim >= self.dims {
            return Err(Error::invalid(
                "dim",
                format!("workgroup id {dim} of a {}-dimensional kernel", self.dims),
            ));
        }
        Ok(Sgpr::one(2 + u16::from(dim)))
    }

    /// The work-item id of dimension `dim` (0 = x) in a VGPR: `v{dim}` on gfx908; on the
    /// packed targets its 10-bit field of `v0` is extracted into a fresh VGPR.
    pub fn workitem_id(&mut self, dim: u8) -> Result<Vgpr> {
        if dim >= self.dims {
            return Err(Error::invalid(
                "dim",
                format!("work-item id {dim} of a {}-dimensional kernel", self.dims),
            ));
        }
        if !packed_workitem_ids(self.target.isa) {
            return Ok(Vgpr::one(u16::from(dim)));
        }
        let d = self.vgprs(1)?;
        if dim == 0 {
            self.emit(Instr::new(
                Op::VAndB32,
                [d.op(), Operand::Literal(0x3ff), Vgpr::one(0).op()],
            ));
        } else {
            self.emit(Instr::new(
                Op::VBfeU32,
                [
                    d.op(),
                    Vgpr::one(0).op(),
                    Operand::Int(10 * dim as i8),
                    Operand::Int(10),
                ],
            ));
        }
        Ok(d)
    }

    /// The wave's lane mask register: `vcc` (wave64) or `vcc_lo` (wave32).
    pub fn vcc(&self) -> Operand {
        if self.gfx11() {
            Operand::VccLo
        } else {
            Operand::Vcc
        }
    }

    /// The exec mask: `exec` (wave64) or `exec_lo` (wave32).
    pub fn exec(&self) -> Operand {
        if self.gfx11() {
            Operand::ExecLo
        } else {
            Operand::Exec
        }
    }

    /// SGPRs for a saved lane mask (2 in wave64, 1 in wave32).
    pub fn mask_sgprs(&mut self) -> Result<Sgpr> {
        self.sgprs(self.target.isa.mask_sgprs())
    }

    // ---- arguments and LDS --------------------------------------------------------

    fn push_arg(&mut self, arg: KernelArg, dst: Sgpr, load: Op) -> Sgpr {
        let hidden = matches!(arg.value_kind, ValueKind::Other(_));
        if self.hidden_args && !hidden {
            self.fail(Error::invalid(
                "kernel argument",
                format!(
                    "`{}` follows a hidden argument: explicit arguments come first",
                    arg.name.as_deref().unwrap_or("?")
                ),
            ));
        }
        self.hidden_args |= hidden;
        self.kernarg_bytes = arg.offset + arg.size;
        self.emit(Instr::new(load, [dst.op(), self.kernarg_ptr().op()]).offset(arg.offset as i32));
        self.args.push(arg);
        dst
    }

    /// A global pointer argument, loaded into an SGPR pair with `s_load_dwordx2`.
    pub fn arg_pointer(&mut self, name: &str) -> Result<Sgpr> {
        let offset = self.kernarg_bytes.div_ceil(8) * 8;
        let dst = self.sgprs(2)?;
        Ok(self.push_arg(
            KernelArg::global_buffer(name, offset),
            dst,
            Op::SLoadDwordx2,
        ))
    }

    /// A 32-bit by-value argument, loaded into an SGPR with `s_load_dword`.
    pub fn arg_u32(&mut self, name: &str) -> Result<Sgpr> {
        let offset = self.kernarg_bytes.div_ceil(4) * 4;
        let dst = self.sgprs(1)?;
        Ok(self.push_arg(KernelArg::by_value(name, offset, 4), dst, Op::SLoadDword))
    }

    /// A 64-bit by-value argument (`u64`, `f64`), 8-byte aligned, loaded into an SGPR pair
    /// with `s_load_dwordx2`.
    pub fn arg_u64(&mut self, name: &str) -> Result<Sgpr> {
        let offset = self.kernarg_bytes.div_ceil(8) * 8;
        let dst = self.sgprs(2)?;
        Ok(self.push_arg(KernelArg::by_value(name, offset, 8), dst, Op::SLoadDwordx2))
    }

    /// A kernel `name`d and argued as `sig` (see [`Assembler::new`] and
    /// [`Assembler::declare`]).
    pub fn from_signature(
        target: IsaTarget,
        sig: &Signature,
        workgroup_size: u32,
        dims: u8,
    ) -> Result<(Self, ArgRegs)> {
        let mut k = Assembler::new(target, &sig.kernel, workgroup_size, dims)?;
        let regs = k.declare(sig)?;
        Ok((k, regs))
    }

    /// Declares `sig`'s parameters in order at their natural alignment (the layout the
    /// host packs, [`Signature::layout`]) and loads each into SGPRs: pointers and 8-byte
    /// scalars into a pair, 4-byte scalars into one. By-value byte arrays are declared
    /// but not loaded (the kernel reads the words it needs from the kernarg segment).
    pub fn declare(&mut self, sig: &Signature) -> Result<ArgRegs> {
        let mut regs = Vec::with_capacity(sig.params.len());
        for p in &sig.params {
            let reg = match p.ty {
                ParamType::Pointer { .. } => Some(self.arg_pointer(&p.name)?),
                ParamType::Scalar(s) if s.size() == 4 => Some(self.arg_u32(&p.name)?),
                ParamType::Scalar(_) => Some(self.arg_u64(&p.name)?),
                ParamType::Bytes { size, align } => {
                    let offset = self.kernarg_bytes.next_multiple_of(align);
                    if self.hidden_args {
                        self.fail(Error::invalid(
                            "kernel argument",
                            format!("`{}` follows a hidden argument", p.name),
                        ));
                    }
                    self.kernarg_bytes = offset + size;
                    self.args.push(KernelArg::by_value(&p.name, offset, size));
                    None
                }
            };
            regs.push((p.name.clone(), reg));
        }
        Ok(ArgRegs { regs })
    }

    /// A 32-bit hidden argument the runtime fills from the dispatch (code object v5
    /// `value_kind`, e.g. `hidden_block_count_y`: the grid's workgroups along y), placed
    /// after the explicit arguments (declaring an explicit one after it is an error at
    /// `finish`); the host passes only the explicit ones.
    pub fn arg_hidden_u32(&mut self, kind: &str) -> Result<Sgpr> {
        let offset = self.kernarg_bytes.div_ceil(8) * 8;
        let dst = self.sgprs(1)?;
        let arg = KernelArg {
            name: None,
            offset,
            size: 4,
            value_kind: ValueKind::Other(kind.to_string()),
            address_space: None,
            actual_access: None,
        };
        Ok(self.push_arg(arg, dst, Op::SLoadDword))
    }

    /// Declares `bytes` of LDS aligned to `align` (a power of two); returns the offset.
    pub fn lds(&mut self, bytes: u32, align: u32) -> Result<u32> {
        if !align.is_power_of_two() {
            return Err(Error::invalid(
                "align",
                format!("{align} is not a power of two"),
            ));
        }
        let limit = super::report::caps_of(self.target.isa)?.lds_bytes_per_workgroup;
        let off = self.lds_bytes.div_ceil(align) * align;
        let end = off
            .checked_add(bytes)
            .filter(|&e| e <= limit)
            .ok_or_else(|| {
                Error::invalid(
                    "lds",
                    format!("{bytes} bytes at {off} pass the {limit} bytes of a workgroup"),
                )
            })?;
        self.lds_bytes = end;
        Ok(off)
    }

    // ---- labels and branches -------------------------------------------------------

    /// A new, unbound label; `name` shows in listings and the LLVM text.
    ///
    /// A name used twice in one kernel, or the name the text printer gives the kernel's
    /// end (`end`), fails `finish`: the printed `.L<kernel>_<name>` labels must be
    /// distinct for llvm-mc to assemble our text to our bytes.
    pub fn label(&mut self, name: &str) -> Label {
        if name == super::text::END_LABEL {
            self.fail(Error::invalid(
                "label",
                format!("label `{name}` is reserved for the end of the kernel's text"),
            ));
        } else if self.label_names.iter().any(|n| n == name) {
            self.fail(Error::invalid(
                "label",
                format!("label `{name}` is defined twice in this kernel"),
            ));
        }
        self.label_names.push(name.to_string());
        self.label_bound.push(false);
        Label(self.label_names.len() - 1)
    }

    /// Binds `l` to the next instruction.
    pub fn bind(&mut self, l: Label) -> &mut Self {
        match self.label_bound.get_mut(l.0) {
            Some(b) if !*b => {
                *b = true;
                self.items.push(Item::Bind(l));
            }
            _ => self.fail(Error::invalid(
                "label",
                format!("label {} bound twice or unknown", l.0),
            )),
        }
        self
    }

    /// `s_branch l`.
    pub fn branch(&mut self, l: Label) -> &mut Self {
        self.cbranch(Op::SBranch, l)
    }

    /// A conditional branch (`s_cbranch_scc0/scc1/vccz/vccnz/execz/execnz`) to `l`.
    pub fn cbranch(&mut self, op: Op, l: Label) -> &mut Self {
        if l.0 >= self.label_names.len() {
            self.fail(Error::invalid(
                "branch",
                format!("label {} does not belong to this kernel", l.0),
            ));
        } else if op.is_branch() {
            self.items.push(Item::Branch(op, l));
        } else {
            self.fail(Error::invalid("branch", format!("{op:?} is not a branch")));
        }
        self
    }

    // ---- instructions -------------------------------------------------------------

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Appends an instruction (checked for the target when `finish` encodes it; register
    /// alignment is checked here).
    pub fn emit(&mut self, i: Instr) -> &mut Self {
        let t = self.target.isa;
        for o in &i.operands {
            if let Err(e) = check_operand(t, o) {
                let at = self.instr_count();
                self.fail(Error::invalid(
                    "instruction",
                    format!("#{at} `{}`: {e}", i.display(t)),
                ));
            }
        }
        self.items.push(Item::Instr(i));
        self
    }

    fn instr_count(&self) -> usize {
        self.items
            .iter()
            .filter(|i| !matches!(i, Item::Bind(_)))
            .count()
    }

    /// `op dst, srcs...` with default modifiers.
    pub fn op(&mut self, op: Op, operands: impl Into<Vec<Operand>>) -> &mut Self {
        self.emit(Instr::new(op, operands))
    }

    /// `s_waitcnt` with the given counters (`None` = do not wait on it).
    pub fn waitcnt(&mut self, vm: Option<u8>, lgkm: Option<u8>) -> &mut Self {
        let max = Waitcnt::max(self.target.isa.family());
        let w = Waitcnt {
            vm: vm.unwrap_or(max.vm),
            exp: max.exp,
            lgkm: lgkm.unwrap_or(max.lgkm),
        };
        self.op(Op::SWaitcnt, [Operand::Waitcnt(w)])
    }

    /// `s_waitcnt vmcnt(n)`; on gfx11 stores count in vscnt, waited for with
    /// [`Self::wait_stores`].
    pub fn wait_vm(&mut self, n: u8) -> &mut Self {
        self.waitcnt(Some(n), None)
    }

    /// `s_waitcnt lgkmcnt(n)`.
    pub fn wait_lgkm(&mut self, n: u8) -> &mut Self {
        self.waitcnt(None, Some(n))
    }

    /// Waits for outstanding global stores: `s_waitcnt vmcnt(0)` (gfx9) or
    /// `s_waitcnt_vscnt null, 0` (gfx11).
    pub fn wait_stores(&mut self) -> &mut Self {
        if self.gfx11() {
            self.op(Op::SWaitcntVscnt, [Operand::Null, Operand::Imm(0)])
        } else {
            self.wait_vm(0)
        }
    }

    pub fn s_nop(&mut self, n: u8) -> &mut Self {
        self.op(Op::SNop, [Operand::Imm(i32::from(n))])
    }

    pub fn s_barrier(&mut self) -> &mut Self {
        self.op(Op::SBarrier, [])
    }

    pub fn s_endpgm(&mut self) -> &mut Self {
        self.op(Op::SEndpgm, [])
    }

    /// `s_and_saveexec` of the wave size: `saved = exec; exec &= mask`.
    pub fn and_saveexec(&mut self, saved: Sgpr, mask: Operand) -> &mut Self {
        let op = if self.gfx11() {
            Op::SAndSaveexecB32
        } else {
            Op::SAndSaveexecB64
        };
        self.op(op, [saved.op(), mask])
    }

    /// `exec = saved` (`s_mov_b64 exec, s[..]` / `s_mov_b32 exec_lo, s..`).
    pub fn restore_exec(&mut self, saved: Sgpr) -> &mut Self {
        let op = if self.gfx11() {
            Op::SMovB32
        } else {
            Op::SMovB64
        };
        let exec = self.exec();
        self.op(op, [exec, saved.op()])
    }

    /// A global load `op dst, offset, base offset:imm` (32-bit VGPR offset, SGPR-pair base).
    pub fn global_load(
        &mut self,
        op: Op,
        dst: Vgpr,
        offset: Vgpr,
        base: Sgpr,
        imm: i32,
    ) -> &mut Self {
        self.emit(Instr::new(op, [dst.op(), offset.op(), base.op()]).offset(imm))
    }

    /// A global store `op offset, data, base offset:imm`.
    pub fn global_store(
        &mut self,
        op: Op,
        offset: Vgpr,
        data: Vgpr,
        base: Sgpr,
        imm: i32,
    ) -> &mut Self {
        self.emit(Instr::new(op, [offset.op(), data.op(), base.op()]).offset(imm))
    }

    /// An LDS read `op dst, addr offset:imm`.
    pub fn ds_read(&mut self, op: Op, dst: Vgpr, addr: Vgpr, imm: u16) -> &mut Self {
        self.emit(Instr::new(op, [dst.op(), addr.op()]).offset(i32::from(imm)))
    }

    /// An LDS write `op addr, data offset:imm`.
    pub fn ds_write(&mut self, op: Op, addr: Vgpr, data: Vgpr, imm: u16) -> &mut Self {
        self.emit(Instr::new(op, [addr.op(), data.op()]).offset(i32::from(imm)))
    }

    // ---- finishing ----------------------------------------------------------------

    /// Lays out, checks and builds the kernel with every rule applied.
    pub fn finish(self) -> Result<AssembledKernel> {
        self.finish_with(Checks::ALL)
    }

    /// Builds the code exactly as written: no hazard NOPs, no `s_waitcnt` check.
    pub fn finish_unchecked(self) -> Result<AssembledKernel> {
        self.finish_with(Checks::NONE)
    }

    /// Lays out and builds the kernel with the chosen rules.
    pub fn finish_with(self, checks: Checks) -> Result<AssembledKernel> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let t = self.target.isa;
        if let Some(i) = self.label_bound.iter().position(|b| !b) {
            return Err(Error::invalid(
                "label",
                format!("label `{}` is used but never bound", self.label_names[i]),
            ));
        }
        let nops = if checks.hazards {
            plan_nops(t, &self.items, self.label_names.len())?
        } else {
            vec![Vec::new(); self.items.len()]
        };
        if checks.waitcnt {
            check_waits(t, &self.items, self.label_names.len())?;
        }
        let code = layout(t, &self.items, &nops, &self.label_names)?;
        let instrs: Vec<Instr> = code.iter().map(|p| p.instr.clone()).collect();
        let resources = self.resources(&instrs);
        let kernel = Kernel::build(
            self.target,
            &self.name,
            &instrs,
            &resources,
            self.args.clone(),
            self.workgroup_size,
        )?;
        let report = ResourceReport::new(t, &resources, self.workgroup_size)?;
        let listing = listing(t, &code);
        Ok(AssembledKernel {
            target: self.target,
            kernel,
            resources,
            report,
            code,
            listing,
        })
    }

    /// What the laid-out code uses.
    fn resources(&self, code: &[Instr]) -> KernelResources {
        let t = self.target.isa;
        let mut r = KernelResources::new(t);
        let (mut s, mut v, mut a) = (0u32, 0u32, 0u32);
        let mut vcc = false;
        for i in code {
            vcc |= matches!(i.op, Op::SCbranchVccz | Op::SCbranchVccnz);
            for o in &i.operands {
                match *o {
                    Operand::Sgpr(x) => s = s.max(x.end()),
                    Operand::Vgpr(x) => v = v.max(x.end()),
                    Operand::Agpr(x) => a = a.max(x.end()),
                    Operand::Vcc | Operand::VccLo | Operand::VccHi => vcc = true,
                    _ => {}
                }
            }
        }
        // Hardware writes the launch state whether or not the code names it.
        let launch_sgprs = 2 + u32::from(self.dims);
        let launch_vgprs = if packed_workitem_ids(t) {
            1
        } else {
            u32::from(self.dims)
        };
        r.sgprs = s.max(launch_sgprs) as u16;
        r.vgprs = v.max(launch_vgprs) as u16;
        r.agprs = a as u16;
        r.reserve_vcc = vcc;
        r.workgroup_id = [true, self.dims >= 2, self.dims >= 3];
        r.workitem_id_dims = self.dims;
        r.group_segment_bytes = self.lds_bytes;
        r.kernarg_bytes = self.kernarg_bytes;
        r
    }
}

/// gfx90a, gfx942 and gfx11 pack the work-item ids into `v0`.
pub fn packed_workitem_ids(t: IsaTarget) -> bool {
    t != IsaTarget::Gfx908
}

/// Whether control never falls through `item` (an unconditional branch or the end).
fn ends_block(item: &Item) -> bool {
    match item {
        Item::Branch(op, _) => *op == Op::SBranch,
        Item::Instr(i) => i.op == Op::SEndpgm,
        Item::Bind(_) => false,
    }
}

/// The instruction an item issues (branches with a placeholder offset: the rules do not
/// look at it).
fn item_instr(item: &Item) -> Option<Instr> {
    match item {
        Item::Instr(i) => Some(i.clone()),
        Item::Branch(op, _) => Some(Instr::new(*op, [Operand::Imm(0)])),
        Item::Bind(_) => None,
    }
}

fn nop(waits: u8) -> Instr {
    Instr::new(Op::SNop, [Operand::Imm(i32::from(waits.saturating_sub(1)))])
}

/// A forward dataflow pass over the items: `step` sees each instruction with the state
/// reaching it; states meet at labels with `merge`. Returns after a pass in which
/// `step` reports no change (the caller's own fixpoint signal), at most `MAX_PASSES`.
fn dataflow<S: Clone>(
    items: &[Item],
    labels: usize,
    entry: S,
    merge: impl Fn(&mut S, &S),
    mut step: impl FnMut(usize, &Instr, &mut S, usize) -> Result<bool>,
) -> Result<()> {
    let mut at_label: Vec<Option<S>> = vec![None; labels];
    let mut prev_changed = true;
    for pass in 0..MAX_PASSES {
        let mut changed = false;
        let mut state: Option<S> = Some(entry.clone());
        for (idx, item) in items.iter().enumerate() {
            match item {
                Item::Bind(l) => {
                    let incoming = at_label.get(l.0).cloned().flatten();
                    state = match (state, incoming) {
                        (Some(mut s), Some(o)) => {
                            merge(&mut s, &o);
                            Some(s)
                        }
                        (s, o) => s.or(o),
                    };
                }
                _ => {
                    let Some(s) = state.as_mut() else {
                        // Unreachable code: nothing reaches it on this pass.
                        continue;
                    };
                    if let Some(i) = item_instr(item) {
                        changed |= step(idx, &i, s, pass)?;
                    }
                    if let Item::Branch(_, l) = item {
                        if let Some(slot) = at_label.get_mut(l.0) {
                            match slot {
                                Some(old) => merge(old, s),
                                None => *slot = Some(s.clone()),
                            }
                        }
                    }
                    if ends_block(item) {
                        state = None;
                    }
                }
            }
        }
        // Two quiet passes in a row: the label states have stopped growing the result.
        if pass >= 2 && !changed && !prev_changed {
            return Ok(());
        }
        prev_changed = changed;
    }
    Err(Error::invalid(
        "kernel",
        format!("hazard analysis did not settle in {MAX_PASSES} passes"),
    ))
}

/// The `s_nop`s to insert before each item.
fn plan_nops(t: IsaTarget, items: &[Item], labels: usize) -> Result<Vec<Vec<(Instr, String)>>> {
    let mut plan: Vec<Vec<(Instr, String)>> = vec![Vec::new(); items.len()];
    dataflow(
        items,
        labels,
        HazardTracker::new(t),
        |a, b| a.merge(b),
        |idx, instr, tracker, _pass| {
            let mut inserted = Vec::new();
            // The tracker may report a further hazard once the first is covered.
            for _ in 0..64 {
                let Some(h) = tracker.check(instr) else { break };
                if h.missing == 0 {
                    break;
                }
                let mut left = h.missing;
                while left > 0 {
                    let n = left.min(MAX_NOP_WAITS);
                    let i = nop(n);
                    tracker.issue(&i);
                    inserted.push((i, h.reason.clone()));
                    left -= n;
                }
            }
            tracker.issue(instr);
            let slot = &mut plan[idx];
            // Take the largest requirement seen over all paths and passes.
            let more = inserted.len() > slot.len()
                || (inserted.len() == slot.len() && waits(&inserted) > waits(slot));
            if more {
                *slot = inserted;
            }
            Ok(more)
        },
    )?;
    Ok(plan)
}

fn waits(nops: &[(Instr, String)]) -> u32 {
    nops.iter()
        .map(|(i, _)| match i.operands.first() {
            Some(Operand::Imm(n)) => *n as u32 + 1,
            _ => 0,
        })
        .sum()
}

/// Runs the scoreboard; the first uncovered use is the error.
fn check_waits(t: IsaTarget, items: &[Item], labels: usize) -> Result<()> {
    // Instruction numbers as the author counts them (labels are not instructions).
    let numbers: Vec<usize> = items
        .iter()
        .scan(0usize, |n, it| {
            let here = *n;
            if !matches!(it, Item::Bind(_)) {
                *n += 1;
            }
            Some(here)
        })
        .collect();
    let mut seen = vec![false; items.len()];
    dataflow(
        items,
        labels,
        Scoreboard::new(t),
        |a, b| a.merge(b),
        |idx, instr, board, _pass| {
            if let Err(p) = board.check(instr) {
                return Err(Error::invalid(
                    "s_waitcnt",
                    format!(
                        "instruction #{} `{}` uses {} while {:?} may still write it: \
                         missing s_waitcnt on {:?}",
                        numbers.get(idx).copied().unwrap_or(idx),
                        instr.display(t),
                        p.register,
                        p.by,
                        p.counter
                    ),
                ));
            }
            board.issue(instr);
            // A new path reaching an instruction is a change; revisits are not.
            let first = !seen[idx];
            seen[idx] = true;
            Ok(first)
        },
    )
}

/// Places the instructions and NOPs, then resolves branch offsets.
fn layout(
    t: IsaTarget,
    items: &[Item],
    nops: &[Vec<(Instr, String)>],
    label_names: &[String],
) -> Result<Vec<Placed>> {
    let mut code: Vec<Placed> = Vec::new();
    let mut label_pc: Vec<Option<u32>> = vec![None; label_names.len()];
    let mut pending_labels: Vec<String> = Vec::new();
    let mut branches: Vec<(usize, Label)> = Vec::new();
    let mut pc = 0u32;
    let place = |code: &mut Vec<Placed>,
                 instr: Instr,
                 target: Option<String>,
                 labels: Vec<String>,
                 why: Option<String>,
                 pc: &mut u32|
     -> Result<()> {
        let words = encode(&instr, t).map_err(|e| {
            Error::invalid(
                "instruction",
                format!("#{} `{}` on {t}: {e}", code.len(), instr.display(t)),
            )
        })?;
        code.push(Placed {
            instr,
            pc: *pc,
            target,
            labels,
            inserted_for: why,
        });
        *pc += 4 * words.len() as u32;
        Ok(())
    };
    for (idx, item) in items.iter().enumerate() {
        if let Item::Bind(l) = item {
            if let Some(slot) = label_pc.get_mut(l.0) {
                *slot = Some(pc);
            }
            pending_labels.push(label_names[l.0].clone());
            continue;
        }
        for (n, why) in &nops[idx] {
            let labels = std::mem::take(&mut pending_labels);
            place(
                &mut code,
                n.clone(),
                None,
                labels,
                Some(why.clone()),
                &mut pc,
            )?;
        }
        let labels = std::mem::take(&mut pending_labels);
        match item {
            Item::Instr(i) => place(&mut code, i.clone(), None, labels, None, &mut pc)?,
            Item::Branch(op, l) => {
                branches.push((code.len(), *l));
                let name = label_names[l.0].clone();
                place(
                    &mut code,
                    Instr::new(*op, [Operand::Imm(0)]),
                    Some(name),
                    labels,
                    None,
                    &mut pc,
                )?;
            }
            Item::Bind(_) => {}
        }
    }
    if !pending_labels.is_empty() {
        return Err(Error::invalid(
            "label",
            format!(
                "label `{}` is bound after the last instruction",
                pending_labels.join("`, `")
            ),
        ));
    }
    for (at, l) in branches {
        let target = label_pc[l.0].unwrap_or(0);
        let from = code[at].pc + 4;
        let delta = (i64::from(target) - i64::from(from)) / 4;
        let off = i16::try_from(delta).map_err(|_| {
            Error::invalid(
                "branch",
                format!("to `{}` is {delta} dwords away", label_names[l.0]),
            )
        })?;
        code[at].instr.operands[0] = Operand::Imm(i32::from(off));
    }
    Ok(code)
}

fn listing(t: IsaTarget, code: &[Placed]) -> String {
    let mut s = String::new();
    for p in code {
        for l in &p.labels {
            let _ = writeln!(s, "{l}:");
        }
        let text = match &p.target {
            Some(l) => format!("{} {l}", p.instr.mnemonic(t).unwrap_or("?")),
            None => p.instr.display(t).to_string(),
        };
        match &p.inserted_for {
            Some(why) => {
                let _ = writeln!(s, "  {:#06x}  {text:<48} // hazard: {why}", p.pc);
            }
            None => {
                let _ = writeln!(s, "  {:#06x}  {text}", p.pc);
            }
        }
    }
    s
}

/// A register range of `n` starting at `first` (for callers building operands).
pub fn range(first: u16, n: u8) -> RegRange {
    RegRange::new(first, n)
}
