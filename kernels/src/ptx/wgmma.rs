//! sm_90a asynchronous instructions, as [`KernelBuilder`] methods: `cp.async` (global →
//! shared copies with zero fill), the async-proxy fence, and warpgroup MMA (`wgmma`).
//!
//! - `cp.async.cg.shared.global [dst], [src], 16, src_bytes` copies `src_bytes` (0..=16)
//!   bytes and zero-fills the rest of the 16-byte destination; copies are grouped by
//!   `cp.async.commit_group` and awaited by `cp.async.wait_group N` (at most N groups
//!   of this thread still pending).
//! - `wgmma.mma_async` reads A and B from shared memory through 64-bit matrix
//!   descriptors (PTX ISA "Matrix Descriptor Format": start address, leading- and
//!   stride-dimension byte offsets, all `>> 4`, and the swizzle mode in bits 62..63) and
//!   accumulates into registers of the four warps of a warpgroup. `wgmma.fence` orders
//!   register/shared accesses before the first `wgmma` of a batch; `commit_group` /
//!   `wait_group N` bound the batches in flight.
//! - `mbarrier` objects (8 bytes of shared memory) count arrivals and transaction bytes
//!   per phase; `try_wait.parity` waits for a phase to complete. The tensor memory
//!   accelerator's `cp.async.bulk.tensor` copies a box of a tensor (described by a
//!   128-byte tensor map the host encodes, `cuTensorMapEncodeTiled`) into shared
//!   memory, swizzled as the map says, and completes its bytes on a barrier.
//! - Shared memory written through the generic proxy (`cp.async`, `st.shared`) is made
//!   visible to the async proxy that `wgmma` reads through by `fence.proxy.async`.

use super::{KernelBuilder, Reg, Ty};

/// The element type of a `wgmma` A/B operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgmmaInput {
    F16,
    Bf16,
    /// f32 data read as tf32 (K-major operands only; no transpose immediates).
    Tf32,
}

impl WgmmaInput {
    fn name(self) -> &'static str {
        match self {
            WgmmaInput::F16 => "f16",
            WgmmaInput::Bf16 => "bf16",
            WgmmaInput::Tf32 => "tf32",
        }
    }

    /// The instruction's k depth: 32 bytes of each operand row.
    pub fn k(self) -> u32 {
        match self {
            WgmmaInput::Tf32 => 8,
            _ => 16,
        }
    }
}

impl KernelBuilder {
    /// A special register by its PTX name (`%ctaid.y`, ...).
    pub fn special_named(&mut self, name: &str) -> Reg {
        let r = self.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {name}"));
        r
    }

    /// Bitwise and of a 32-bit register and a constant (typed u32).
    pub fn and_b32(&mut self, a: Reg, b: u32) -> Reg {
        let r = self.reg(Ty::U32);
        self.emit(format!("and.b32 {r}, {a}, {b}"));
        r
    }

    /// Bitwise exclusive or of two 32-bit registers (typed u32).
    pub fn xor_b32(&mut self, a: Reg, b: Reg) -> Reg {
        let r = self.reg(Ty::U32);
        self.emit(format!("xor.b32 {r}, {a}, {b}"));
        r
    }

    /// The address of a module-scope shared variable (`mov.u32 r, name`).
    pub fn shared_symbol(&mut self, name: &str) -> Reg {
        let r = self.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {name}"));
        r
    }

    /// `cp.async.cg.shared.global`: 16 bytes to shared `dst` from global `src`, of which
    /// the first `src_bytes` (u32, 0..=16) are read and the rest zero-filled.
    pub fn cp_async_16(&mut self, dst: Reg, src: Reg, src_bytes: Reg) {
        self.emit(format!(
            "cp.async.cg.shared.global [{dst}], [{src}], 16, {src_bytes}"
        ));
    }

    /// Closes this thread's current group of `cp.async` copies.
    pub fn cp_async_commit(&mut self) {
        self.emit("cp.async.commit_group");
    }

    /// Waits until at most `pending` of this thread's `cp.async` groups are in flight.
    pub fn cp_async_wait(&mut self, pending: u32) {
        self.emit(format!("cp.async.wait_group {pending}"));
    }

    /// Makes this thread's generic-proxy shared-memory writes visible to the async proxy.
    pub fn fence_proxy_async_shared(&mut self) {
        self.emit("fence.proxy.async.shared::cta");
    }

    /// `mbarrier.init`: the shared 8-byte barrier at `addr` expects `count` arrivals per
    /// phase.
    pub fn mbarrier_init(&mut self, addr: Reg, count: u32) {
        self.emit(format!("mbarrier.init.shared::cta.b64 [{addr}], {count}"));
    }

    /// Makes this thread's `mbarrier.init`s visible to the other threads and to the
    /// async proxy (the tensor copies complete transactions on them).
    pub fn fence_mbarrier_init(&mut self) {
        self.emit("fence.mbarrier_init.release.cluster");
    }

    /// One arrival on the barrier at `addr`, announcing `bytes` of transactions (the
    /// tensor copies that will complete on it) in the current phase.
    pub fn mbarrier_arrive_expect_tx(&mut self, addr: Reg, bytes: u32) {
        self.emit(format!(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{addr}], {bytes}"
        ));
    }

    /// One arrival on the barrier at `addr`.
    pub fn mbarrier_arrive(&mut self, addr: Reg) {
        self.emit(format!("mbarrier.arrive.shared::cta.b64 _, [{addr}]"));
    }

    /// Waits until the phase of parity `parity` (u32, 0 or 1) of the barrier at `addr`
    /// has completed. A fresh barrier is in phase 0, so waiting for parity 1 returns at
    /// once (the "previous" phase counts as complete): a producer's first pass over a
    /// ring of empty-slot barriers does not block.
    pub fn mbarrier_wait_parity(&mut self, addr: Reg, parity: Reg) {
        let again = self.label();
        let done = self.reg(Ty::Pred);
        self.place(again);
        self.emit(format!(
            "mbarrier.try_wait.parity.shared::cta.b64 {done}, [{addr}], {parity}"
        ));
        self.bra_if(done, true, again);
    }

    /// The generic address of an opaque kernel parameter (a tensor map passed by value,
    /// which the tensor copies read in place).
    pub fn param_address(&mut self, p: &super::Param) -> Reg {
        let at = self.reg(Ty::U64);
        self.emit(format!("mov.u64 {at}, {}", p.name()));
        let generic = self.reg(Ty::U64);
        self.emit(format!("cvta.param.u64 {generic}, {at}"));
        generic
    }

    /// `cp.async.bulk.tensor.<r>d`: the box of the tensor map at generic address `map`
    /// whose first element has coordinates `coords` (s32, innermost first; outside the
    /// tensor reads as zeros) into shared `dst`, completing its bytes as transactions on
    /// the barrier at `bar`.
    pub fn tensor_copy(&mut self, dst: Reg, map: Reg, coords: &[Reg], bar: Reg) {
        let c: Vec<String> = coords.iter().map(|r| r.to_string()).collect();
        self.emit(format!(
            "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{dst}], [{map}, {{{}}}], [{bar}]",
            coords.len(),
            c.join(", ")
        ));
    }

    /// `bar.sync id, threads`: a named barrier among `threads` threads (a multiple of
    /// 32), e.g. the consumer warps of a warp-specialised block.
    pub fn bar_sync_named(&mut self, id: u32, threads: u32) {
        self.emit(format!("bar.sync {id}, {threads}"));
    }

    /// `wgmma.fence.sync.aligned`: before a batch of `wgmma` (all warps of the warpgroup).
    pub fn wgmma_fence(&mut self) {
        self.emit("wgmma.fence.sync.aligned");
    }

    /// `wgmma.commit_group.sync.aligned`: closes the batch issued since the last commit.
    pub fn wgmma_commit(&mut self) {
        self.emit("wgmma.commit_group.sync.aligned");
    }

    /// `wgmma.wait_group.sync.aligned N`: at most `pending` batches still in flight.
    pub fn wgmma_wait(&mut self, pending: u32) {
        self.emit(format!("wgmma.wait_group.sync.aligned {pending}"));
    }

    /// `wgmma.mma_async.sync.aligned.m64n{N}k{K}.f32.<in>.<in>`: the warpgroup's 64×N f32
    /// accumulator `d` (N/2 registers per thread) += A·B, A and B from shared memory by
    /// descriptor (`desc_a`, `desc_b`: b64), `scale_d` a predicate (false: d = A·B).
    /// `trans` = (A is M-major, B is N-major); 16-bit inputs only (tf32 must pass
    /// `(false, false)`).
    pub fn wgmma_async(
        &mut self,
        input: WgmmaInput,
        d: &[Reg],
        desc_a: Reg,
        desc_b: Reg,
        scale_d: Reg,
        trans: (bool, bool),
    ) {
        let n = d.len() * 2;
        let t = input.name();
        let regs: Vec<String> = d.iter().map(|r| r.to_string()).collect();
        let tail = match input {
            WgmmaInput::Tf32 => {
                debug_assert_eq!(trans, (false, false));
                String::new()
            }
            _ => format!(", {}, {}", trans.0 as u32, trans.1 as u32),
        };
        self.emit(format!(
            "wgmma.mma_async.sync.aligned.m64n{n}k{}.f32.{t}.{t} {{{}}}, {desc_a}, {desc_b}, {scale_d}, 1, 1{tail}",
            input.k(),
            regs.join(", ")
        ));
    }
}
