//! Lowering of the kernel language to AMDGPU code objects (gfx908, gfx90a, gfx942 in
//! wave64; gfx11 in wave32) through the existing [`Assembler`](crate::amdgpu::Assembler),
//! which adds the hazard NOPs, checks the `s_waitcnt`s, resolves branches and builds the
//! kernel descriptor, metadata and [`ResourceReport`](crate::amdgpu::ResourceReport).
//!
//! ```
//! use rocm_kernels::lang::{amdgpu, Access, Builder, Scalar};
//! let target = "gfx90a".parse()?;
//! let mut k = Builder::new("add_one", &target)?;
//! let x = k.ptr("x", Scalar::F32, Access::ReadWrite);
//! let n = k.param("n", Scalar::U32);
//! let i = k.global_id();
//! let inside = k.lt(i, n);
//! k.if_(inside, |k| {
//!     let at = k.at(x, i);
//!     let v = k.load(x, at);
//!     let w = k.add(v, 1.0f32);
//!     k.store(x, at, w);
//! });
//! let built = amdgpu::lower(&k.finish()?)?;
//! println!("{}", built.report);
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! # How values map to registers
//!
//! | Value | Where |
//! |---|---|
//! | constant | nowhere: an inline constant or literal at each use (an SGPR for 64-bit literals) |
//! | parameter, workgroup id, grid and workgroup size | the SGPRs the kernel arguments and launch state arrive in |
//! | uniform or wave-uniform integer result of scalar-unit operations | SGPRs |
//! | anything else (floats, varying values, loads, wave operations) | VGPRs; 64-bit values in aligned pairs |
//! | predicate | a lane mask in SGPRs (`v_cmp_*_e64` or `s_cmp` + `s_cselect`) |
//! | variable | fixed registers for its whole life: SGPRs when uniform and integer, a mask for predicates, else VGPRs |
//!
//! Registers are handed out by a linear scan over the structured program
//! (`live.rs`): each value from its definition to its last use, extended to the end of
//! any loop that uses it without defining it. Registers count their holders
//! (`pool.rs`), so copies cost nothing: a vector's lane, a `Pack` of consecutive lanes,
//! a same-width bitcast and a value equal to an earlier one (`cse.rs`) hold the
//! registers they are in. A lane-wise result (add, mul, fma, …) takes the registers
//! of an input that dies with it. Values nothing depends on are not emitted. 64-bit
//! varying offsets stay split into scalar and 32-bit varying parts (`split.rs`),
//! strided ones as `u + base · scale`.
//!
//! # Control flow
//!
//! - `if` on a uniform condition: `s_cbranch_scc0` over the `then` block (SCC from
//!   `s_and` of the mask and EXEC). On a varying condition: `s_and_saveexec`, the
//!   `else` lanes as `saved ^ exec`, each block skipped by `s_cbranch_execz` when no lane
//!   takes it, EXEC restored at the end.
//! - Loops whose exits are all uniform (and not under a varying `if` inside the loop)
//!   branch on SCC. Otherwise the loop keeps three masks: the lanes that entered, the
//!   lanes still in the loop (`Break` removes lanes), and the lanes still running this
//!   iteration's body (`Continue` removes them until the latch); the loop ends when no
//!   lane is left and EXEC returns to the entry lanes. Whenever EXEC may become zero the
//!   code branches over the rest of the block, so no uniform loop ever runs with no lane
//!   active.
//! - `s_waitcnt`s come from rocm-core's scoreboard (`emit.rs`): the weakest wait that
//!   satisfies it before each instruction; at forward labels the states of all incoming
//!   paths are merged, so loads stay in flight across `if`s; loop tops and back edges
//!   wait for every load, so a loop's state at its top is known.
//!
//! # Wave operations
//!
//! Shuffles by xor below 32 use `ds_swizzle_b32` (bit-mask mode); other shuffles use
//! `ds_bpermute_b32` with the source lane's byte address (lanes out of range keep their
//! own value, as the IR says); a shuffle of a uniform value is the value; `Idx` with a
//! uniform lane is `v_readlane_b32`. Reductions are the IR's butterfly, `m = wave/2 …
//! 1`, so they agree bit for bit with the interpreter. The instruction model has no DPP.
//!
//! `ops.rs` lists the operations and what is not supported yet.

mod cse;
mod emit;
mod live;
mod lower;
mod ops;
mod pool;
mod split;

use super::ir::KernelDef;
use crate::amdgpu::AssembledKernel;
use rocm_core::Result;

/// The kernel's code object kernel for its target, with its resource report and listing.
pub fn lower(def: &KernelDef) -> Result<AssembledKernel> {
    lower::lower(def)
}
