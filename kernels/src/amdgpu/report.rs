//! The resource report of a kernel: registers, LDS, and occupancy (waves per SIMD).
//!
//! Occupancy is the smallest of these limits (every register-file size, granule and wave
//! limit comes from [`rocm_core::target::Caps`]):
//!
//! | Limit | Rule |
//! |---|---|
//! | VGPRs, gfx90a/gfx942 | unified file: `total = align(vgprs, 4) + agprs` (AGPRs start at `accum_offset`), allocated in granules of `vgpr_granule`; waves = `register_file_per_simd / allocated` |
//! | VGPRs, gfx908 | separate VGPR and AGPR files of `register_file_per_simd` each: allocated = `align(max(vgprs, agprs), vgpr_granule)` |
//! | VGPRs, gfx11 | wave32 allocation granule `vgpr_granule` out of `register_file_per_simd` |
//! | SGPRs (gfx9 only) | `floor(sgpr_file_per_simd / sgprs)` (800 on gfx9) counting the reserved VCC/FLAT_SCRATCH/XNACK SGPRs (LLVM's `getOccupancyWithNumSGPRs` table: ≤80 → 10, ≤88 → 9, ≤100 → 8, else 7); gfx10+ has no per-wave SGPR limit |
//! | LDS | workgroups per CU = `lds_bytes_per_workgroup / lds` (the CU's LDS, 64 KiB on every target here), their waves spread over `simds_per_cu` SIMDs (rounded up: the busiest SIMD) |
//! | Hardware | `max_waves_per_simd` |

use rocm_core::isa::amdgpu::codeobj::{CodeObjectTarget, KernelResources};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::Caps;
use rocm_core::{Error, Result};
use std::fmt;

/// What limits occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limiter {
    Vgprs,
    Sgprs,
    Lds,
    Hardware,
}

/// Register, LDS and occupancy figures of one kernel on one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceReport {
    pub target: IsaTarget,
    /// Architectural VGPRs named (highest + 1).
    pub vgprs: u32,
    /// AGPRs named.
    pub agprs: u32,
    /// SGPRs named, and with the hardware's reserved SGPRs (gfx9).
    pub sgprs: u32,
    pub sgprs_with_reserved: u32,
    /// Vector registers per lane the wave allocates (granule-rounded).
    pub vgprs_allocated: u32,
    /// `accum_offset` on gfx90a/gfx942.
    pub accum_offset: Option<u32>,
    pub lds_bytes: u32,
    pub workgroup_size: u32,
    pub waves_per_workgroup: u32,
    pub waves_by_vgprs: u32,
    pub waves_by_sgprs: Option<u32>,
    pub waves_by_lds: Option<u32>,
    pub max_waves: u32,
    /// Waves per SIMD: the minimum of the limits.
    pub occupancy: u32,
    pub limiter: Limiter,
}

/// The capability row of `t` (a `Result` for callers that also look up other targets).
pub(crate) fn caps_of(t: IsaTarget) -> Result<&'static Caps> {
    Ok(t.caps())
}

fn align(n: u32, g: u32) -> u32 {
    n.max(1).div_ceil(g.max(1)) * g.max(1)
}

impl ResourceReport {
    /// The report of resources `r` on `t` for workgroups of `workgroup_size` work-items.
    pub fn new(t: IsaTarget, r: &KernelResources, workgroup_size: u32) -> Result<Self> {
        let caps = caps_of(t)?;
        if workgroup_size == 0 {
            return Err(Error::invalid("workgroup_size", "must be at least 1"));
        }
        let (vgprs, agprs) = (u32::from(r.vgprs), u32::from(r.agprs));
        let (per_wave, accum_offset) = if caps.unified_vgpr_file {
            let acc = align(vgprs, 4);
            let total = if agprs > 0 { acc + agprs } else { vgprs };
            (total, Some(acc))
        } else if caps.agprs_per_wave > 0 {
            (vgprs.max(agprs), None)
        } else {
            (vgprs, None)
        };
        let vgprs_allocated = align(per_wave, caps.vgpr_granule);
        let waves_by_vgprs = caps.register_file_per_simd / vgprs_allocated;
        let sgprs_with_reserved = u32::from(r.total_sgprs(CodeObjectTarget::new(t)));
        let waves_by_sgprs = (caps.sgpr_file_per_simd > 0)
            .then(|| caps.sgpr_file_per_simd / sgprs_with_reserved.max(1));
        let wave = caps.wave_size();
        let waves_per_workgroup = workgroup_size.div_ceil(wave);
        let waves_by_lds = (r.group_segment_bytes > 0).then(|| {
            let groups = caps.lds_bytes_per_workgroup / r.group_segment_bytes;
            (groups * waves_per_workgroup).div_ceil(caps.simds_per_cu)
        });
        let max_waves = caps.max_waves_per_simd;
        let mut occupancy = max_waves;
        let mut limiter = Limiter::Hardware;
        for (w, l) in [
            (Some(waves_by_vgprs), Limiter::Vgprs),
            (waves_by_sgprs, Limiter::Sgprs),
            (waves_by_lds, Limiter::Lds),
        ] {
            if let Some(w) = w {
                if w < occupancy {
                    occupancy = w;
                    limiter = l;
                }
            }
        }
        Ok(ResourceReport {
            target: t,
            vgprs,
            agprs,
            sgprs: u32::from(r.sgprs),
            sgprs_with_reserved,
            vgprs_allocated,
            accum_offset,
            lds_bytes: r.group_segment_bytes,
            workgroup_size,
            waves_per_workgroup,
            waves_by_vgprs,
            waves_by_sgprs,
            waves_by_lds,
            max_waves,
            occupancy,
            limiter,
        })
    }
}

impl fmt::Display for ResourceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} VGPRs, {} AGPRs ({} allocated per lane",
            self.target, self.vgprs, self.agprs, self.vgprs_allocated
        )?;
        if let Some(a) = self.accum_offset {
            write!(f, ", accum_offset {a}")?;
        }
        write!(
            f,
            "), {} SGPRs ({} with reserved), {} LDS bytes; workgroup {} = {} waves; \
             occupancy {} waves/SIMD (VGPRs {}",
            self.sgprs,
            self.sgprs_with_reserved,
            self.lds_bytes,
            self.workgroup_size,
            self.waves_per_workgroup,
            self.occupancy,
            self.waves_by_vgprs
        )?;
        if let Some(s) = self.waves_by_sgprs {
            write!(f, ", SGPRs {s}")?;
        }
        if let Some(l) = self.waves_by_lds {
            write!(f, ", LDS {l}")?;
        }
        write!(
            f,
            ", max {}; limited by {:?})",
            self.max_waves, self.limiter
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(t: IsaTarget, v: u16, a: u16, s: u16, lds: u32) -> KernelResources {
        let mut r = KernelResources::new(t);
        r.vgprs = v;
        r.agprs = a;
        r.sgprs = s;
        r.group_segment_bytes = lds;
        r
    }

    fn occ(t: IsaTarget, v: u16, a: u16, s: u16, lds: u32, wg: u32) -> (u32, Limiter) {
        let r = ResourceReport::new(t, &res(t, v, a, s, lds), wg).unwrap();
        (r.occupancy, r.limiter)
    }

    // Hand-computed from the rules in the module docs.
    #[test]
    fn occupancy_by_vgprs() {
        use IsaTarget::*;
        // gfx90a: 512-entry unified file, granule 8, max 8 waves.
        assert_eq!(occ(Gfx90a, 24, 0, 10, 0, 64), (8, Limiter::Hardware));
        assert_eq!(occ(Gfx90a, 128, 0, 10, 0, 64), (4, Limiter::Vgprs)); // 512/128
                                                                         // 101 VGPRs -> accum_offset 104, + 64 AGPRs = 168 -> 512/168 = 3.
        assert_eq!(occ(Gfx90a, 101, 64, 10, 0, 64), (3, Limiter::Vgprs));
        // gfx908: separate 256-entry files, granule 4, max 10: max(10, 16) = 16 -> 16 waves.
        assert_eq!(occ(Gfx908, 10, 16, 10, 0, 64), (10, Limiter::Hardware));
        assert_eq!(occ(Gfx908, 10, 129, 10, 0, 64), (1, Limiter::Vgprs)); // 132 -> 1
        assert_eq!(occ(Gfx908, 50, 0, 10, 0, 64), (4, Limiter::Vgprs)); // 52 -> 256/52 = 4
                                                                        // gfx1100: 1536 per lane in wave32, granule 24, max 16: 100 -> 120 -> 12.
        assert_eq!(occ(Gfx1100, 100, 0, 10, 0, 32), (12, Limiter::Vgprs));
        assert_eq!(occ(Gfx1100, 25, 0, 10, 0, 32), (16, Limiter::Hardware));
        // gfx1102: 1024, granule 16: 100 -> 112 -> 9.
        assert_eq!(occ(Gfx1102, 100, 0, 10, 0, 32), (9, Limiter::Vgprs));
    }

    #[test]
    fn occupancy_by_sgprs_and_lds() {
        use IsaTarget::*;
        // gfx908 reserves 6 SGPRs (VCC, XNACK "any", FLAT_SCRATCH): 90 + 6 = 96 -> 800/96 = 8.
        assert_eq!(occ(Gfx908, 8, 0, 90, 0, 64), (8, Limiter::Sgprs));
        // 74 + 6 = 80 -> 10 = the gfx908 maximum, not a limit.
        assert_eq!(occ(Gfx908, 8, 0, 74, 0, 64), (10, Limiter::Hardware));
        // 32 KiB LDS per workgroup of 256 (4 waves): 2 groups per CU = 8 waves on 4 SIMDs = 2.
        assert_eq!(occ(Gfx90a, 8, 0, 10, 32 * 1024, 256), (2, Limiter::Lds));
        // gfx1100, 16 KiB per group of 256 (8 wave32 waves): 4 groups, 32 waves on 2 SIMDs.
        assert_eq!(
            occ(Gfx1100, 8, 0, 10, 16 * 1024, 256),
            (16, Limiter::Hardware)
        );
        // 48 KiB: 1 group of 8 waves on 2 SIMDs = 4.
        assert_eq!(occ(Gfx1100, 8, 0, 10, 48 * 1024, 256), (4, Limiter::Lds));
        let r = ResourceReport::new(Gfx1100, &res(Gfx1100, 8, 0, 10, 0), 256).unwrap();
        assert_eq!(r.waves_by_sgprs, None, "gfx11 has no per-wave SGPR limit");
        let text = r.to_string();
        assert!(text.contains("occupancy 16 waves/SIMD"), "{text}");
    }
}
