//! A launch: the kernarg segment and dispatch packet, the initial register state of every
//! wave from the kernel descriptor, and the order waves and workgroups run in.
//!
//! Rules:
//! - Workgroups run one after another, x fastest, then y, then z (deterministic).
//!   Inside a workgroup, each wave runs until it reaches `s_barrier` or `s_endpgm`; when
//!   every wave has stopped, the ones at the barrier are released together (a barrier
//!   waits for every wave that has not terminated).
//! - Initial state (AMDGPUUsage "Initial Kernel Execution State"): user SGPRs from s0 in
//!   the order the descriptor enables them: private segment buffer (a buffer resource
//!   over the launch's scratch, 4 SGPRs), dispatch ptr, queue ptr (a zeroed
//!   `hsa_queue_t`), kernarg ptr, dispatch id, flat scratch init (the scratch base, 2
//!   SGPRs), private segment size (bytes per work-item); then from `s[USER_SGPR_COUNT]`
//!   workgroup ids X, Y, Z (as enabled) and the private segment wave offset (when the
//!   descriptor enables scratch); work-item ids in v0 packed `x | y << 10 | z << 20`
//!   (gfx90a, gfx942, gfx11) or in v0, v1, v2 as enabled (gfx908). EXEC holds the lanes
//!   inside the workgroup.
//! - Scratch (the private segment): `private_segment_fixed_size` bytes per work-item,
//!   one region per launch holding every wave of a workgroup (reused by the next
//!   workgroup, zeroed), laid out as the hardware swizzles it: wave `w`'s slice starts at
//!   `w * size * lanes` (its wave offset), and within it dword `d` of lane `l` lies at
//!   `(d * lanes + l) * 4`.
//! - Register files are what the descriptor allocates ([`super::wave`]); wave64 on gfx9,
//!   wave32 on gfx11, and the descriptor's wave32 bit must agree.
//! - LDS per workgroup: `group_segment_fixed_size + LaunchConfig::shared_bytes`, zeroed;
//!   with dynamic LDS the fixed part is first rounded up to 16 bytes, where the dynamic
//!   part starts. A `dynamic_shared_pointer` argument (an OpenCL `__local` pointer) is
//!   set to that start, whatever the caller packed in its place.
//! - Kernargs: the packed arguments, then the v5 hidden arguments the metadata lists
//!   (block counts, group sizes, remainders, grid dims, global offsets, dynamic LDS
//!   size), filled as the HIP runtime does; other hidden kinds are rejected by name.
//!   The segment is padded to a multiple of 64 bytes (HIP's kernarg pool hands out no
//!   less), so a kernel reading a little past its arguments does not fault.
//! - An instruction budget per launch ([`DEFAULT_BUDGET`], `ROCM_EMU_MAX_INSTRUCTIONS`)
//!   turns a runaway kernel into an error.

use super::exec::{step, Ctx, Flow};
use super::memory::AddressSpace;
use super::program::Program;
use super::wave::{RegisterLimits, Wave, WaveStatus};
use super::Fault;
use crate::isa::amdgpu::codeobj::{KernelDescriptor, KernelMetadata, KernelResources, ValueKind};
use crate::isa::amdgpu::hazard::HazardTracker;
use crate::isa::amdgpu::waitcnt::Scoreboard;
use crate::isa::amdgpu::{IsaFamily, IsaTarget};
use crate::module::{KernelArgs, LaunchConfig};
use crate::{Error, Result};

/// Wave instructions one launch may execute by default.
pub const DEFAULT_BUDGET: u64 = 1 << 32;
/// Environment variable overriding [`DEFAULT_BUDGET`].
pub const BUDGET_ENV: &str = "ROCM_EMU_MAX_INSTRUCTIONS";

// kernel_code_properties bits: the user SGPRs, in the order they are preloaded.
const PROP_PRIVATE_SEGMENT_BUFFER: u16 = 1;
const PROP_DISPATCH_PTR: u16 = 1 << 1;
const PROP_QUEUE_PTR: u16 = 1 << 2;
const PROP_KERNARG_SEGMENT_PTR: u16 = 1 << 3;
const PROP_DISPATCH_ID: u16 = 1 << 4;
const PROP_FLAT_SCRATCH_INIT: u16 = 1 << 5;
const PROP_PRIVATE_SEGMENT_SIZE: u16 = 1 << 6;
/// Bytes of the `hsa_queue_t` a queue pointer points at.
const QUEUE_BYTES: usize = 128;
// COMPUTE_PGM_RSRC2 bits.
const RSRC2_SCRATCH_EN: u32 = 1;
const RSRC2_TG_SIZE_EN: u32 = 1 << 10;

thread_local! {
    static BUDGET_OVERRIDE: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with the instruction budget of launches made on this thread set to `budget`
/// (launches run synchronously on the launching thread), e.g. to let a test catch a
/// runaway kernel quickly.
pub fn with_instruction_budget<T>(budget: u64, f: impl FnOnce() -> T) -> T {
    let old = BUDGET_OVERRIDE.with(|b| b.replace(Some(budget)));
    let out = f();
    BUDGET_OVERRIDE.with(|b| b.set(old));
    out
}

/// A kernel ready to run: decoded once at module load.
#[derive(Debug)]
pub struct EmuKernel {
    pub name: String,
    pub target: IsaTarget,
    pub program: Program,
    pub descriptor: KernelDescriptor,
    pub resources: KernelResources,
    pub metadata: KernelMetadata,
    /// Address of the kernel's entry in the device's address space.
    pub code_base: u64,
}

/// Counts of one launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchStats {
    /// Wave instructions issued.
    pub instructions: u64,
    /// Sum over issued instructions of the lanes active in EXEC when they issued.
    pub lane_instructions: u64,
}

impl EmuKernel {
    fn fault(&self, index: usize, f: Fault) -> Error {
        let text = self
            .program
            .instrs
            .get(index)
            .map(|i| format!("{}: ", i.display(self.target)))
            .unwrap_or_default();
        Error::KernelFault {
            kernel: self.name.clone(),
            pc: self.program.pc(index),
            lane: f.lane,
            address: f.address,
            what: format!("{text}{}", f.what),
        }
    }

    fn register_limits(&self) -> RegisterLimits {
        let t = self.target;
        let allocated = self.descriptor.allocated_vgprs(t);
        match t.family() {
            IsaFamily::Gfx11 => RegisterLimits {
                sgprs: u32::from(t.sgpr_count()),
                vgprs: allocated,
                agpr_base: allocated,
                agprs: 0,
            },
            IsaFamily::Gfx9 => {
                let sgprs = self
                    .descriptor
                    .allocated_sgprs()
                    .min(u32::from(t.sgpr_count()));
                if t.unified_agprs() {
                    let acc = self.descriptor.accum_offset().min(allocated);
                    RegisterLimits {
                        sgprs,
                        vgprs: acc,
                        agpr_base: acc,
                        agprs: allocated - acc,
                    }
                } else {
                    RegisterLimits {
                        sgprs,
                        vgprs: allocated,
                        agpr_base: allocated,
                        agprs: allocated,
                    }
                }
            }
        }
    }

    /// Checks what the launch needs that the emulator or the kernel does not provide.
    fn check_launch(&self, config: &LaunchConfig) -> Result<()> {
        let unsupported = |what: &str| {
            Error::unsupported(
                format!("kernel `{}` needs {what}", self.name),
                format!("emu:{}", self.target),
            )
        };
        let r2 = self.descriptor.compute_pgm_rsrc2;
        if r2 & RSRC2_TG_SIZE_EN != 0 {
            return Err(unsupported("the workgroup info SGPR"));
        }
        let wave32 = self.target.wave_size() == 32;
        if self.descriptor.wave32() != wave32 {
            return Err(unsupported(if wave32 {
                "wave64 (the emulator runs gfx11 in wave32)"
            } else {
                "wave32 on a wave64-only target"
            }));
        }
        let block = config.block_size();
        let max = u64::from(self.metadata.max_flat_workgroup_size.clamp(1, 1024));
        if config.grid.contains(&0) || config.block.contains(&0) || block > max {
            return Err(Error::invalid(
                "launch config",
                format!(
                    "grid {:?} x block {:?}: kernel `{}` takes non-empty grids and at most {max} \
                     work-items per workgroup",
                    config.grid, config.block, self.name
                ),
            ));
        }
        if config.block[0] > 1024 || config.block[1] > 1024 || config.block[2] > 1024 {
            return Err(Error::invalid(
                "launch config",
                format!("block {:?}: ids are 10-bit fields", config.block),
            ));
        }
        let limits = self.register_limits();
        let user = u32::from(self.descriptor.user_sgpr_count());
        let sys = self.resources.workgroup_id.iter().filter(|&&b| b).count() as u32
            + u32::from(r2 & RSRC2_SCRATCH_EN != 0);
        if user + sys > limits.sgprs {
            return Err(Error::invalid(
                "kernel descriptor",
                format!(
                    "`{}` preloads {} SGPRs but allocates {}",
                    self.name,
                    user + sys,
                    limits.sgprs
                ),
            ));
        }
        let ids = if self.target == IsaTarget::Gfx908 {
            u32::from(self.resources.workitem_id_dims)
        } else {
            1
        };
        if ids > limits.vgprs {
            return Err(Error::invalid(
                "kernel descriptor",
                format!(
                    "`{}` receives {ids} work-item id VGPRs but allocates {}",
                    self.name, limits.vgprs
                ),
            ));
        }
        Ok(())
    }

    /// The kernarg segment: the packed arguments followed by the hidden arguments.
    fn kernargs(&self, config: &LaunchConfig, args: &KernelArgs) -> Result<Vec<u8>> {
        let packed = args.bytes();
        let explicit_end = self
            .metadata
            .args
            .iter()
            .filter(|a| !a.value_kind.name().starts_with("hidden_"))
            .map(|a| a.offset as usize + a.size as usize)
            .max()
            .unwrap_or(0);
        if packed.len() < explicit_end {
            return Err(Error::invalid(
                "kernel arguments",
                format!(
                    "kernel `{}` takes {explicit_end} bytes of arguments, got {}",
                    self.name,
                    packed.len()
                ),
            ));
        }
        let size = (self.metadata.kernarg_segment_size as usize)
            .max(self.descriptor.kernarg_size as usize)
            .max(packed.len())
            .max(1)
            .next_multiple_of(64);
        let mut seg = vec![0u8; size];
        seg[..packed.len()].copy_from_slice(&packed);
        let dims = if config.grid[2] > 1 || config.block[2] > 1 {
            3
        } else if config.grid[1] > 1 || config.block[1] > 1 {
            2
        } else {
            1
        };
        for a in &self.metadata.args {
            let kind = match &a.value_kind {
                ValueKind::Other(k) => k.as_str(),
                _ => continue,
            };
            let axis = |k: &str| match k.chars().last() {
                Some('x') => 0,
                Some('y') => 1,
                _ => 2,
            };
            let value: u64 = match kind {
                k if k.starts_with("hidden_block_count_") => u64::from(config.grid[axis(k)]),
                k if k.starts_with("hidden_group_size_") => u64::from(config.block[axis(k)]),
                // Grids are whole workgroups: no partial last group.
                k if k.starts_with("hidden_remainder_") => 0,
                k if k.starts_with("hidden_global_offset_") => 0,
                "hidden_grid_dims" => dims,
                "hidden_dynamic_lds_size" => u64::from(config.shared_bytes),
                "hidden_none" => 0,
                "dynamic_shared_pointer" => u64::from(self.dynamic_lds_base(config)),
                other => {
                    return Err(Error::unsupported(
                        format!("kernel `{}` argument kind `{other}`", self.name),
                        format!("emu:{}", self.target),
                    ))
                }
            };
            let (off, n) = (a.offset as usize, (a.size as usize).min(8));
            let slot = seg.get_mut(off..off + n).ok_or_else(|| {
                Error::invalid(
                    "kernel metadata",
                    format!("`{kind}` at {off} lies past the kernarg segment"),
                )
            })?;
            slot.copy_from_slice(&value.to_le_bytes()[..n]);
        }
        Ok(seg)
    }

    /// Runs one launch to completion on `mem`.
    pub fn launch(
        &self,
        mem: &mut AddressSpace,
        config: &LaunchConfig,
        args: &KernelArgs,
        dispatch_id: u64,
    ) -> Result<LaunchStats> {
        self.check_launch(config)?;
        let seg = self.kernargs(config, args)?;
        let oom = |bytes| Error::OutOfMemory {
            device: format!("emu:{}", self.target),
            bytes,
        };
        let lanes = self.target.wave_size() as usize;
        let waves = (config.block_size() as usize).div_ceil(lanes);
        let scratch_lane_bytes = self.scratch_lane_bytes();
        let scratch_bytes = scratch_lane_bytes as usize * lanes * waves;
        let kernarg = mem.map(seg.len()).ok_or_else(|| oom(seg.len()))?;
        let packet = mem.map(64);
        let queue = mem.map(QUEUE_BYTES);
        let scratch = mem.map(scratch_bytes.max(1));
        let result = match (packet, queue, scratch) {
            (Some(packet), Some(queue), Some(scratch)) => self.fill_and_run(
                mem,
                config,
                &seg,
                &Segments {
                    kernarg,
                    packet,
                    queue,
                    scratch,
                    scratch_bytes,
                    scratch_lane_bytes,
                    dispatch_id,
                },
            ),
            _ => Err(oom(64 + QUEUE_BYTES + scratch_bytes)),
        };
        for base in [Some(kernarg), packet, queue, scratch]
            .into_iter()
            .flatten()
        {
            mem.unmap(base);
        }
        result
    }

    /// Scratch bytes per work-item: the descriptor's fixed private segment, rounded to
    /// whole dwords (the swizzled layout interleaves lanes per dword).
    fn scratch_lane_bytes(&self) -> u32 {
        self.descriptor
            .private_segment_fixed_size
            .next_multiple_of(4)
    }

    fn fill_and_run(
        &self,
        mem: &mut AddressSpace,
        config: &LaunchConfig,
        seg: &[u8],
        at: &Segments,
    ) -> Result<LaunchStats> {
        let internal = |what: &str| Error::backend("emu", 0, what.to_string());
        let kernarg = at.kernarg;
        mem.slice_mut(kernarg, seg.len())
            .ok_or_else(|| internal("kernarg segment unmapped"))?
            .copy_from_slice(seg);
        let lds_bytes = u64::from(self.dynamic_lds_base(config)) + u64::from(config.shared_bytes);
        write_packet(
            mem,
            at.packet,
            config,
            lds_bytes,
            kernarg,
            at.scratch_lane_bytes,
        )
        .ok_or_else(|| internal("dispatch packet unmapped"))?;
        let budget = BUDGET_OVERRIDE.with(|b| b.get()).unwrap_or_else(|| {
            std::env::var(BUDGET_ENV)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(DEFAULT_BUDGET)
        });
        let mut stats = LaunchStats::default();
        let lds_limit = self.target_lds_bytes();
        if lds_bytes > lds_limit {
            return Err(Error::invalid(
                "launch config",
                format!(
                    "kernel `{}` needs {lds_bytes} bytes of LDS ({} fixed + {} dynamic); \
                     {} has {lds_limit}",
                    self.name,
                    self.descriptor.group_segment_fixed_size,
                    config.shared_bytes,
                    self.target
                ),
            ));
        }
        let mut lds = vec![0u8; lds_bytes as usize];
        let [gx, gy, gz] = config.grid;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    lds.fill(0);
                    if at.scratch_bytes > 0 {
                        mem.slice_mut(at.scratch, at.scratch_bytes)
                            .ok_or_else(|| internal("scratch unmapped"))?
                            .fill(0);
                    }
                    let mut waves = self.initial_waves(config, [x, y, z], at);
                    let mut ctx = Ctx {
                        mem: &mut *mem,
                        lds: &mut lds,
                        target: self.target,
                        program: &self.program,
                        code_base: self.code_base,
                    };
                    self.run_workgroup(&mut waves, &mut ctx, budget, &mut stats)?;
                }
            }
        }
        Ok(stats)
    }

    /// Where dynamic LDS starts: after the fixed group segment, 16-byte aligned when
    /// there is any.
    fn dynamic_lds_base(&self, config: &LaunchConfig) -> u32 {
        let fixed = self.descriptor.group_segment_fixed_size;
        if config.shared_bytes > 0 {
            fixed.next_multiple_of(16)
        } else {
            fixed
        }
    }

    fn target_lds_bytes(&self) -> u64 {
        u64::from(self.target.caps().lds_bytes_per_workgroup)
    }

    fn initial_waves(&self, config: &LaunchConfig, group: [u32; 3], at: &Segments) -> Vec<Wave> {
        let lanes = self.target.wave_size();
        let limits = self.register_limits();
        let block = config.block_size() as u32;
        let [bx, by, _] = config.block;
        let count = block.div_ceil(lanes);
        let r = &self.resources;
        let packed_ids = self.target != IsaTarget::Gfx908;
        (0..count)
            .map(|wi| {
                let mut w = Wave::new(
                    lanes,
                    limits,
                    Scoreboard::new(self.target),
                    HazardTracker::new(self.target),
                );
                let first = wi * lanes;
                let active = (block - first).min(lanes);
                w.exec = if active >= 64 {
                    u64::MAX
                } else {
                    (1u64 << active) - 1
                };
                let mut s = 0usize;
                let put = |w: &mut Wave, s: &mut usize, v: u32| {
                    if let Some(slot) = w.sgpr.get_mut(*s) {
                        *slot = v;
                    }
                    *s += 1;
                };
                let p = self.descriptor.kernel_code_properties;
                let wave_offset = wi * at.scratch_lane_bytes * lanes;
                let lo_hi = |x: u64| [x as u32, (x >> 32) as u32];
                let buffer = scratch_buffer_resource(at.scratch, at.scratch_bytes, lanes);
                let user: [(u16, &[u32]); 7] = [
                    (PROP_PRIVATE_SEGMENT_BUFFER, &buffer),
                    (PROP_DISPATCH_PTR, &lo_hi(at.packet)),
                    (PROP_QUEUE_PTR, &lo_hi(at.queue)),
                    (PROP_KERNARG_SEGMENT_PTR, &lo_hi(at.kernarg)),
                    (PROP_DISPATCH_ID, &lo_hi(at.dispatch_id)),
                    (PROP_FLAT_SCRATCH_INIT, &lo_hi(at.scratch)),
                    (PROP_PRIVATE_SEGMENT_SIZE, &[at.scratch_lane_bytes]),
                ];
                for (bit, values) in user {
                    if p & bit != 0 {
                        for &v in values {
                            put(&mut w, &mut s, v);
                        }
                    }
                }
                let mut s = usize::from(self.descriptor.user_sgpr_count());
                for (on, id) in r.workgroup_id.iter().zip(group) {
                    if *on {
                        put(&mut w, &mut s, id);
                    }
                }
                if self.descriptor.compute_pgm_rsrc2 & RSRC2_SCRATCH_EN != 0 {
                    put(&mut w, &mut s, wave_offset);
                }
                w.flat_scratch = at.scratch + u64::from(wave_offset);
                w.private_bytes = at.scratch_lane_bytes;
                let dims = r.workitem_id_dims;
                for lane in 0..active {
                    let t = first + lane;
                    let (x, y, z) = (t % bx, (t / bx) % by, t / (bx * by));
                    let y = if dims >= 2 { y } else { 0 };
                    let z = if dims >= 3 { z } else { 0 };
                    if packed_ids {
                        w.set(0, 0, lane, x | y << 10 | z << 20);
                    } else {
                        w.set(0, 0, lane, x);
                        if dims >= 2 {
                            w.set(1, 0, lane, y);
                        }
                        if dims >= 3 {
                            w.set(2, 0, lane, z);
                        }
                    }
                }
                w
            })
            .collect()
    }

    fn run_workgroup(
        &self,
        waves: &mut [Wave],
        ctx: &mut Ctx<'_>,
        budget: u64,
        stats: &mut LaunchStats,
    ) -> Result<()> {
        loop {
            for w in waves.iter_mut() {
                if w.status == WaveStatus::Running {
                    self.run_wave(w, ctx, budget, stats)?;
                }
            }
            let mut waiting = false;
            for w in waves.iter_mut() {
                if w.status == WaveStatus::Barrier {
                    w.status = WaveStatus::Running;
                    waiting = true;
                }
            }
            if !waiting {
                return Ok(());
            }
        }
    }

    /// Runs `w` until it stops at a barrier or ends.
    fn run_wave(
        &self,
        w: &mut Wave,
        ctx: &mut Ctx<'_>,
        budget: u64,
        stats: &mut LaunchStats,
    ) -> Result<()> {
        let program = &self.program;
        loop {
            let index = w.pc;
            let Some(ins) = program.instrs.get(index) else {
                let what = match &program.undecodable {
                    Some((_, why)) => format!("reached code the emulator cannot decode: {why}"),
                    None => "ran past the end of the code without s_endpgm".to_string(),
                };
                return Err(self.fault(index, Fault::new(what)));
            };
            if stats.instructions >= budget {
                return Err(self.fault(
                    index,
                    Fault::new(format!(
                        "instruction budget of {budget} wave instructions exhausted (a runaway \
                         loop?); {BUDGET_ENV} raises it"
                    )),
                ));
            }
            stats.instructions += 1;
            stats.lane_instructions += u64::from(w.exec.count_ones());
            // A VOPD's Y half reads registers too.
            let checked = w.scoreboard.check(ins).and_then(|()| {
                ins.dual
                    .as_deref()
                    .map_or(Ok(()), |y| w.scoreboard.check(y))
            });
            if let Err(p) = checked {
                return Err(self.fault(
                    index,
                    Fault::new(format!(
                        "missing s_waitcnt: {} read while {} still writes it ({:?} counter)",
                        p.register,
                        p.by.info().names[0],
                        p.counter
                    )),
                ));
            }
            if let Some(h) = w.hazards.check(ins) {
                return Err(self.fault(
                    index,
                    Fault::new(format!(
                        "hazard: {} ({} wait states missing)",
                        h.reason, h.missing
                    )),
                ));
            }
            w.scoreboard.issue(ins);
            w.hazards.issue(ins);
            match step(w, index, ctx).map_err(|f| self.fault(index, f))? {
                Flow::Next => w.pc = index + 1,
                Flow::Jump(i) => w.pc = i,
                Flow::Barrier => {
                    w.pc = index + 1;
                    w.status = WaveStatus::Barrier;
                    return Ok(());
                }
                Flow::End => {
                    w.status = WaveStatus::Done;
                    return Ok(());
                }
            }
        }
    }
}

/// Where a launch's segments live in the device's address space.
struct Segments {
    kernarg: u64,
    packet: u64,
    queue: u64,
    scratch: u64,
    scratch_bytes: usize,
    scratch_lane_bytes: u32,
    dispatch_id: u64,
}

/// The private segment buffer resource (V#) over a launch's scratch: base, no stride,
/// `num_records` = the region's bytes, swizzled by lane (ADD_TID_ENABLE, index stride
/// = the wave size, element size 4), as the HSA runtime sets it up.
fn scratch_buffer_resource(base: u64, bytes: usize, lanes: u32) -> [u32; 4] {
    let index_stride: u32 = if lanes == 64 { 3 } else { 2 };
    let word1 = (base >> 32) as u32 & 0xffff | 1 << 31; // SWIZZLE_ENABLE
                                                        // DST_SEL_XYZW, ADD_TID_ENABLE (bit 23), INDEX_STRIDE (bits 22:21), ELEMENT_SIZE 4.
    let word3 = 0x0000_0fac | 1 << 23 | index_stride << 21 | 1 << 19;
    [base as u32, word1, bytes as u32, word3]
}

/// Writes the 64-byte `hsa_kernel_dispatch_packet_t`.
fn write_packet(
    mem: &mut AddressSpace,
    at: u64,
    config: &LaunchConfig,
    lds_bytes: u64,
    kernarg: u64,
    private_bytes: u32,
) -> Option<()> {
    let p = mem.slice_mut(at, 64)?;
    let dims: u16 = if config.grid[2] > 1 || config.block[2] > 1 {
        3
    } else if config.grid[1] > 1 || config.block[1] > 1 {
        2
    } else {
        1
    };
    // header: packet type KERNEL_DISPATCH (2), system-scope acquire/release fences.
    let header: u16 = 2 | 2 << 9 | 2 << 11;
    p[0..2].copy_from_slice(&header.to_le_bytes());
    p[2..4].copy_from_slice(&dims.to_le_bytes());
    for d in 0..3 {
        let wg = config.block[d] as u16;
        p[4 + 2 * d..6 + 2 * d].copy_from_slice(&wg.to_le_bytes());
        let grid = config.grid[d].wrapping_mul(config.block[d]);
        p[12 + 4 * d..16 + 4 * d].copy_from_slice(&grid.to_le_bytes());
    }
    p[24..28].copy_from_slice(&private_bytes.to_le_bytes());
    p[28..32].copy_from_slice(&(lds_bytes as u32).to_le_bytes());
    p[40..48].copy_from_slice(&kernarg.to_le_bytes());
    Some(())
}
