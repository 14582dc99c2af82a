//! The 64-byte kernel descriptor (`name.kd`) and how it is computed from a kernel's
//! resource usage.
//!
//! Layout (LLVM `AMDHSAKernelDescriptor.h`, AMDGPUUsage "Kernel Descriptor"):
//!
//! | Bytes | Field |
//! |---|---|
//! | 0..4 | `group_segment_fixed_size` (LDS bytes) |
//! | 4..8 | `private_segment_fixed_size` (scratch bytes per work-item) |
//! | 8..12 | `kernarg_size` |
//! | 16..24 | `kernel_code_entry_byte_offset` (entry minus descriptor address, signed) |
//! | 44..48 | `compute_pgm_rsrc3` (gfx90a/gfx942: `ACCUM_OFFSET`; gfx11: shared VGPRs, inst prefetch) |
//! | 48..52 | `compute_pgm_rsrc1` (register granules, float modes) |
//! | 52..56 | `compute_pgm_rsrc2` (user SGPR count, workgroup/workitem id enables) |
//! | 56..58 | `kernel_code_properties` (user SGPR enables, wave32) |
//! | 58..60 | `kernarg_preload` |
//!
//! Register counts are stored as granules, `ceil(max(n, 1) / g) - 1`:
//!
//! - VGPRs: `g = 8` on gfx90a/gfx942 (unified VGPR+AGPR file: the total is
//!   `align(vgprs, 4) + agprs` and `ACCUM_OFFSET = align(vgprs, 4) / 4 - 1`), `g = 4` on
//!   gfx908 (separate AGPR file of the same size: the count is `max(vgprs, agprs)`),
//!   `g = 8` on gfx11 in wave32 and 4 in wave64.
//! - SGPRs (gfx9 only; gfx10+ leaves the field 0): `g = 8` over the SGPRs the kernel
//!   names plus those the hardware claims at the top: VCC (2), the XNACK mask (makes it
//!   4 when XNACK is on or "any") and FLAT_SCRATCH (makes it 6; always on gfx942, whose
//!   flat scratch is architected). These are LLVM's `getNumExtraSGPRs`, and the defaults
//!   of [`KernelResources::new`] are the assembler's (`.amdhsa_reserve_vcc 1`,
//!   `.amdhsa_reserve_flat_scratch 1`).

use super::super::{IsaFamily, IsaTarget};
use super::CodeObjectTarget;
use crate::error::{Error, Result};

/// Size of a kernel descriptor in bytes.
pub const DESCRIPTOR_BYTES: usize = 64;

/// The float-mode fields of `COMPUTE_PGM_RSRC1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FloatMode {
    /// Round mode for f32 (0 nearest even, 1 +inf, 2 -inf, 3 zero).
    pub round_32: u8,
    /// Round mode for f16 and f64.
    pub round_16_64: u8,
    /// Denormal mode for f32 (0 flush in and out, 1 flush out, 2 flush in, 3 keep).
    pub denorm_32: u8,
    /// Denormal mode for f16 and f64.
    pub denorm_16_64: u8,
    /// `DX10_CLAMP`: clamp NaN to 0 in clamped results.
    pub dx10_clamp: bool,
    /// `IEEE_MODE`: quiet signaling NaNs in min/max.
    pub ieee_mode: bool,
    /// `FP16_OVFL` (gfx9): f16 overflow saturates to max finite.
    pub fp16_overflow: bool,
}

impl Default for FloatMode {
    /// What clang sets for HIP kernels: denormals kept for every width, round to nearest
    /// even, `dx10_clamp` and `ieee_mode` on.
    fn default() -> Self {
        FloatMode {
            round_32: 0,
            round_16_64: 0,
            denorm_32: 3,
            denorm_16_64: 3,
            dx10_clamp: true,
            ieee_mode: true,
            fp16_overflow: false,
        }
    }
}

/// The user SGPRs the dispatch preloads, in the order they are packed from `s0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UserSgprs {
    /// Dispatch packet pointer (2 SGPRs).
    pub dispatch_ptr: bool,
    /// Queue pointer (2 SGPRs).
    pub queue_ptr: bool,
    /// Kernel argument segment pointer (2 SGPRs).
    pub kernarg_segment_ptr: bool,
    /// 64-bit dispatch id (2 SGPRs).
    pub dispatch_id: bool,
}

impl UserSgprs {
    /// SGPRs the enabled fields take.
    pub fn count(self) -> u8 {
        2 * (self.dispatch_ptr as u8
            + self.queue_ptr as u8
            + self.kernarg_segment_ptr as u8
            + self.dispatch_id as u8)
    }
}

/// What a kernel uses, from which its descriptor is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelResources {
    /// Architectural VGPRs: highest VGPR referenced + 1.
    pub vgprs: u16,
    /// AGPRs: highest AGPR referenced + 1 (gfx9 only).
    pub agprs: u16,
    /// SGPRs: highest SGPR referenced + 1, not counting VCC, FLAT_SCRATCH, XNACK_MASK.
    pub sgprs: u16,
    /// Reserve VCC at the top of the SGPRs (gfx9).
    pub reserve_vcc: bool,
    /// Reserve FLAT_SCRATCH (gfx908, gfx90a; gfx942 always reserves it).
    pub reserve_flat_scratch: bool,
    /// Preloaded user SGPRs.
    pub user_sgprs: UserSgprs,
    /// An explicit `USER_SGPR_COUNT` larger than the enabled fields need (clang pads it
    /// on gfx11 so the workgroup ids land at s13..s15); `None` uses the enabled count.
    pub user_sgpr_count: Option<u8>,
    /// Workgroup id x, y, z in the SGPRs after the user SGPRs.
    pub workgroup_id: [bool; 3],
    /// Work-item id dimensions in the VGPRs (1: x, 2: x and y, 3: x, y and z).
    pub workitem_id_dims: u8,
    /// LDS bytes per workgroup.
    pub group_segment_bytes: u32,
    /// Scratch bytes per work-item (enables the private segment when non-zero).
    pub private_segment_bytes: u32,
    /// Kernel argument bytes.
    pub kernarg_bytes: u32,
    /// Wave32 (gfx11); gfx9 is always wave64.
    pub wave32: bool,
    pub float_mode: FloatMode,
}

impl KernelResources {
    /// One VGPR and SGPR, the kernarg pointer, workgroup id x, work-item id x, the
    /// assembler's register reservations, clang's float modes and the target's wave size
    /// in the model (wave32 on gfx11).
    pub fn new(isa: IsaTarget) -> Self {
        KernelResources {
            vgprs: 1,
            agprs: 0,
            sgprs: 1,
            reserve_vcc: true,
            reserve_flat_scratch: true,
            user_sgprs: UserSgprs {
                kernarg_segment_ptr: true,
                ..UserSgprs::default()
            },
            user_sgpr_count: None,
            workgroup_id: [true, false, false],
            workitem_id_dims: 1,
            group_segment_bytes: 0,
            private_segment_bytes: 0,
            kernarg_bytes: 0,
            wave32: isa.family() == IsaFamily::Gfx11,
            float_mode: FloatMode::default(),
        }
    }

    /// SGPRs the hardware claims above [`Self::sgprs`] (LLVM `getNumExtraSGPRs`).
    pub fn extra_sgprs(&self, t: CodeObjectTarget) -> u16 {
        let mut extra = if self.reserve_vcc { 2 } else { 0 };
        if t.isa.family() != IsaFamily::Gfx9 {
            return extra;
        }
        if t.xnack_on_or_any() {
            extra = 4;
        }
        if self.reserve_flat_scratch || t.isa == IsaTarget::Gfx942 {
            extra = 6;
        }
        extra
    }

    /// The SGPR count of the metadata (`.sgpr_count`): named plus reserved.
    pub fn total_sgprs(&self, t: CodeObjectTarget) -> u16 {
        self.sgprs.saturating_add(self.extra_sgprs(t))
    }

    /// The start of the AGPRs in the unified register file (gfx90a, gfx942).
    pub fn accum_offset(&self) -> u16 {
        align(self.vgprs.max(1), 4)
    }

    /// `.amdhsa_next_free_vgpr`: the vector registers the wave allocates.
    pub fn total_vgprs(&self, t: CodeObjectTarget) -> u16 {
        match t.isa {
            IsaTarget::Gfx908 => self.vgprs.max(self.agprs),
            IsaTarget::Gfx90a | IsaTarget::Gfx942 if self.agprs > 0 => {
                self.accum_offset().saturating_add(self.agprs)
            }
            _ => self.vgprs,
        }
    }

    /// `USER_SGPR_COUNT`.
    pub fn user_sgpr_count(&self) -> u8 {
        self.user_sgpr_count.unwrap_or(self.user_sgprs.count())
    }

    /// Checks the counts against the target's register files and field widths.
    pub fn validate(&self, t: CodeObjectTarget) -> Result<()> {
        let gfx9 = t.isa.family() == IsaFamily::Gfx9;
        let check = |ok: bool, what: &str, why: String| {
            if ok {
                Ok(())
            } else {
                Err(Error::invalid(what, why))
            }
        };
        check(
            self.vgprs <= 256,
            "vgprs",
            format!("{} exceeds the 256 addressable VGPRs", self.vgprs),
        )?;
        check(
            self.agprs <= 256 && (gfx9 || self.agprs == 0),
            "agprs",
            format!(
                "{} AGPRs on {} (gfx9 has 256, gfx11 none)",
                self.agprs, t.isa
            ),
        )?;
        check(
            self.sgprs <= t.isa.sgpr_count(),
            "sgprs",
            format!(
                "{} exceeds the {} addressable SGPRs of {}",
                self.sgprs,
                t.isa.sgpr_count(),
                t.isa
            ),
        )?;
        check(
            !self.wave32 || !gfx9,
            "wave32",
            format!("{} runs wave64 only", t.isa),
        )?;
        check(
            (1..=3).contains(&self.workitem_id_dims),
            "workitem_id_dims",
            format!("{} is not 1, 2 or 3", self.workitem_id_dims),
        )?;
        let enabled = self.user_sgprs.count();
        check(
            self.user_sgpr_count() >= enabled && self.user_sgpr_count() <= 16,
            "user_sgpr_count",
            format!(
                "{} must cover the {enabled} enabled user SGPRs and be at most 16",
                self.user_sgpr_count()
            ),
        )?;
        let m = self.float_mode;
        check(
            m.round_32 < 4 && m.round_16_64 < 4 && m.denorm_32 < 4 && m.denorm_16_64 < 4,
            "float_mode",
            "round and denorm modes are 2-bit fields".to_string(),
        )?;
        check(
            !m.fp16_overflow || gfx9,
            "float_mode.fp16_overflow",
            format!("FP16_OVFL is a gfx9 field, not {}", t.isa),
        )
    }
}

/// `n` rounded up to a multiple of `g` (saturating: counts past the register files are
/// rejected by [`KernelResources::validate`], never wrapped).
fn align(n: u16, g: u16) -> u16 {
    n.div_ceil(g).saturating_mul(g)
}

/// Granules of `g` registers, minus one, as the descriptor stores them.
fn granules(n: u16, g: u16) -> u32 {
    u32::from(n.max(1).div_ceil(g) - 1)
}

/// VGPR encoding granule (LLVM `getVGPREncodingGranule`).
fn vgpr_granule(t: IsaTarget, wave32: bool) -> u16 {
    match t {
        IsaTarget::Gfx90a | IsaTarget::Gfx942 => 8,
        _ if wave32 => 8,
        _ => 4,
    }
}

const SGPR_GRANULE: u16 = 8;

// COMPUTE_PGM_RSRC1 fields.
const RSRC1_SGPR_SHIFT: u32 = 6;
const RSRC1_ROUND_32: u32 = 12;
const RSRC1_ROUND_16_64: u32 = 14;
const RSRC1_DENORM_32: u32 = 16;
const RSRC1_DENORM_16_64: u32 = 18;
const RSRC1_DX10_CLAMP: u32 = 21;
const RSRC1_IEEE_MODE: u32 = 23;
const RSRC1_FP16_OVFL: u32 = 26;
const RSRC1_WGP_MODE: u32 = 29;
const RSRC1_MEM_ORDERED: u32 = 30;
// COMPUTE_PGM_RSRC2 fields.
const RSRC2_USER_SGPR_SHIFT: u32 = 1;
const RSRC2_TGID_X: u32 = 7;
const RSRC2_WORKITEM_SHIFT: u32 = 11;
// kernel_code_properties bits.
const PROP_DISPATCH_PTR: u16 = 1 << 1;
const PROP_QUEUE_PTR: u16 = 1 << 2;
const PROP_KERNARG_PTR: u16 = 1 << 3;
const PROP_DISPATCH_ID: u16 = 1 << 4;
const PROP_WAVE32: u16 = 1 << 10;

/// A kernel descriptor, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    /// Kernel entry address minus the descriptor's address.
    pub kernel_code_entry_byte_offset: i64,
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
}

impl KernelDescriptor {
    /// The descriptor of a kernel using `r` on `t`, with entry offset 0 (the writer
    /// fills it in once the code and descriptor addresses are known).
    pub fn from_resources(r: &KernelResources, t: CodeObjectTarget) -> Result<Self> {
        r.validate(t)?;
        let isa = t.isa;
        let gfx9 = isa.family() == IsaFamily::Gfx9;
        let m = r.float_mode;
        let vgpr_g = granules(r.total_vgprs(t), vgpr_granule(isa, r.wave32));
        let sgpr_g = if gfx9 {
            granules(r.total_sgprs(t), SGPR_GRANULE)
        } else {
            0
        };
        let mut rsrc1 = vgpr_g
            | sgpr_g << RSRC1_SGPR_SHIFT
            | u32::from(m.round_32) << RSRC1_ROUND_32
            | u32::from(m.round_16_64) << RSRC1_ROUND_16_64
            | u32::from(m.denorm_32) << RSRC1_DENORM_32
            | u32::from(m.denorm_16_64) << RSRC1_DENORM_16_64
            | u32::from(m.dx10_clamp) << RSRC1_DX10_CLAMP
            | u32::from(m.ieee_mode) << RSRC1_IEEE_MODE;
        if gfx9 {
            rsrc1 |= u32::from(m.fp16_overflow) << RSRC1_FP16_OVFL;
        } else {
            // Workgroup-processor mode and in-order memory returns: the assembler's
            // and clang's defaults on gfx10+.
            rsrc1 |= 1 << RSRC1_WGP_MODE | 1 << RSRC1_MEM_ORDERED;
        }
        let mut rsrc2 = u32::from(r.private_segment_bytes > 0)
            | u32::from(r.user_sgpr_count()) << RSRC2_USER_SGPR_SHIFT
            | u32::from(r.workitem_id_dims - 1) << RSRC2_WORKITEM_SHIFT;
        for (i, on) in r.workgroup_id.iter().enumerate() {
            rsrc2 |= u32::from(*on) << (RSRC2_TGID_X + i as u32);
        }
        let rsrc3 = if isa.unified_agprs() {
            u32::from(r.accum_offset() / 4 - 1)
        } else {
            0
        };
        let u = r.user_sgprs;
        let props = [
            (u.dispatch_ptr, PROP_DISPATCH_PTR),
            (u.queue_ptr, PROP_QUEUE_PTR),
            (u.kernarg_segment_ptr, PROP_KERNARG_PTR),
            (u.dispatch_id, PROP_DISPATCH_ID),
            (r.wave32, PROP_WAVE32),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        Ok(KernelDescriptor {
            group_segment_fixed_size: r.group_segment_bytes,
            private_segment_fixed_size: r.private_segment_bytes,
            kernarg_size: r.kernarg_bytes,
            kernel_code_entry_byte_offset: 0,
            compute_pgm_rsrc3: rsrc3,
            compute_pgm_rsrc1: rsrc1,
            compute_pgm_rsrc2: rsrc2,
            kernel_code_properties: props,
            kernarg_preload: 0,
        })
    }

    /// The 64 bytes, little-endian, reserved bytes zero.
    pub fn to_bytes(&self) -> [u8; DESCRIPTOR_BYTES] {
        let mut b = [0u8; DESCRIPTOR_BYTES];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// Parses 64 descriptor bytes (reserved bytes are ignored).
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        if b.len() < DESCRIPTOR_BYTES {
            return Err(Error::invalid(
                "kernel descriptor",
                format!("{} bytes, need {DESCRIPTOR_BYTES}", b.len()),
            ));
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&b[16..24]);
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(entry),
            compute_pgm_rsrc3: u32_at(44),
            compute_pgm_rsrc1: u32_at(48),
            compute_pgm_rsrc2: u32_at(52),
            kernel_code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
        })
    }

    /// `GRANULATED_WORKITEM_VGPR_COUNT`.
    pub fn vgpr_granules(&self) -> u32 {
        self.compute_pgm_rsrc1 & 0x3f
    }

    /// `GRANULATED_WAVEFRONT_SGPR_COUNT` (gfx9).
    pub fn sgpr_granules(&self) -> u32 {
        self.compute_pgm_rsrc1 >> RSRC1_SGPR_SHIFT & 0xf
    }

    /// Wave32 (`ENABLE_WAVEFRONT_SIZE32`).
    pub fn wave32(&self) -> bool {
        self.kernel_code_properties & PROP_WAVE32 != 0
    }

    /// Vector registers allocated per work-item (granule-rounded; what
    /// `llvm-objdump` prints as `.amdhsa_next_free_vgpr`).
    pub fn allocated_vgprs(&self, t: IsaTarget) -> u32 {
        (self.vgpr_granules() + 1) * u32::from(vgpr_granule(t, self.wave32()))
    }

    /// SGPRs allocated per wave on gfx9 (granule-rounded, reserved ones included).
    pub fn allocated_sgprs(&self) -> u32 {
        (self.sgpr_granules() + 1) * u32::from(SGPR_GRANULE)
    }

    /// `ACCUM_OFFSET` in registers (gfx90a, gfx942).
    pub fn accum_offset(&self) -> u32 {
        ((self.compute_pgm_rsrc3 & 0x3f) + 1) * 4
    }

    /// `USER_SGPR_COUNT`.
    pub fn user_sgpr_count(&self) -> u8 {
        (self.compute_pgm_rsrc2 >> RSRC2_USER_SGPR_SHIFT & 0x1f) as u8
    }

    /// Reads the resources back. Register counts come back granule-rounded (the
    /// descriptor keeps nothing finer): VGPRs as allocated (on gfx90a/gfx942 split at
    /// `ACCUM_OFFSET` into VGPRs and AGPRs; on gfx908 all as VGPRs), SGPRs as allocated
    /// minus the default reservations. [`KernelDescriptor::from_resources`] of the result
    /// gives back this descriptor, entry offset aside.
    pub fn resources(&self, t: CodeObjectTarget) -> Result<KernelResources> {
        let isa = t.isa;
        let gfx9 = isa.family() == IsaFamily::Gfx9;
        let mut r = KernelResources::new(isa);
        r.wave32 = self.wave32();
        let vgprs = self.allocated_vgprs(isa);
        if isa.unified_agprs() {
            let acc = self.accum_offset();
            r.vgprs = acc.min(vgprs) as u16;
            // The allocation may round past the last AGPR; 256 is the file's size.
            r.agprs = vgprs.saturating_sub(acc).min(256) as u16;
        } else {
            r.vgprs = vgprs as u16;
        }
        r.sgprs = if gfx9 {
            let extra = u32::from(r.extra_sgprs(t));
            (self.allocated_sgprs().saturating_sub(extra) as u16).min(isa.sgpr_count())
        } else {
            1
        };
        let f = |shift: u32| (self.compute_pgm_rsrc1 >> shift & 3) as u8;
        let bit = |shift: u32| self.compute_pgm_rsrc1 >> shift & 1 != 0;
        r.float_mode = FloatMode {
            round_32: f(RSRC1_ROUND_32),
            round_16_64: f(RSRC1_ROUND_16_64),
            denorm_32: f(RSRC1_DENORM_32),
            denorm_16_64: f(RSRC1_DENORM_16_64),
            dx10_clamp: bit(RSRC1_DX10_CLAMP),
            ieee_mode: bit(RSRC1_IEEE_MODE),
            fp16_overflow: gfx9 && bit(RSRC1_FP16_OVFL),
        };
        let p = self.kernel_code_properties;
        r.user_sgprs = UserSgprs {
            dispatch_ptr: p & PROP_DISPATCH_PTR != 0,
            queue_ptr: p & PROP_QUEUE_PTR != 0,
            kernarg_segment_ptr: p & PROP_KERNARG_PTR != 0,
            dispatch_id: p & PROP_DISPATCH_ID != 0,
        };
        let count = self.user_sgpr_count();
        r.user_sgpr_count = (count != r.user_sgprs.count()).then_some(count);
        for (i, on) in r.workgroup_id.iter_mut().enumerate() {
            *on = self.compute_pgm_rsrc2 >> (RSRC2_TGID_X + i as u32) & 1 != 0;
        }
        r.workitem_id_dims = (self.compute_pgm_rsrc2 >> RSRC2_WORKITEM_SHIFT & 3) as u8 + 1;
        r.group_segment_bytes = self.group_segment_fixed_size;
        r.private_segment_bytes = self.private_segment_fixed_size;
        r.kernarg_bytes = self.kernarg_size;
        r.validate(t)?;
        Ok(r)
    }
}
