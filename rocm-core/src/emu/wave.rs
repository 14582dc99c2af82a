//! The state of one wave: scalar and vector register files, EXEC, VCC, SCC, M0, the
//! program counter, and the wave's waitcnt scoreboard and hazard tracker.
//!
//! Rules:
//! - SGPRs: `s0 .. s{n-1}` where `n` is what the descriptor allocates (gfx9:
//!   granule-rounded, capped at s101; gfx11: s0..s105, the descriptor has no SGPR
//!   count). VCC, EXEC, M0 and SCC are separate fields, not aliased into the SGPR file.
//! - Vector registers live in one file, register-major (`file[reg * lanes + lane]`), so
//!   a tuple of registers is a contiguous slice in the layout `emu::matrix` expects.
//!   VGPR `n` is entry `n`; AGPR `n` is entry `agpr_base + n`: on gfx90a/gfx942 the
//!   unified file puts AGPRs at `ACCUM_OFFSET`; gfx908 has a separate AGPR file of the
//!   same size, placed after the VGPRs.
//! - A register outside what the kernel allocated is a fault, never a silent read.
//! - Lane masks are `lanes` bits wide (64 on gfx9, 32 on gfx11); writes to EXEC and VCC
//!   are truncated to that width.

use super::Fault;
use crate::isa::amdgpu::hazard::HazardTracker;
use crate::isa::amdgpu::waitcnt::Scoreboard;
use crate::isa::amdgpu::{Aperture, Operand, RegRange, Ty};

/// Why a wave is not running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveStatus {
    Running,
    /// Waiting at `s_barrier` for the rest of the workgroup.
    Barrier,
    /// Executed `s_endpgm`.
    Done,
}

/// Register file sizes of every wave of one launch.
#[derive(Debug, Clone, Copy)]
pub struct RegisterLimits {
    pub sgprs: u32,
    pub vgprs: u32,
    /// Entry of AGPR 0 in the vector file.
    pub agpr_base: u32,
    pub agprs: u32,
}

impl RegisterLimits {
    /// Entries of the vector file.
    pub fn vector_entries(&self) -> u32 {
        self.vgprs.max(self.agpr_base + self.agprs)
    }
}

/// One wave.
#[derive(Debug, Clone)]
pub struct Wave {
    /// Lanes (32 or 64).
    pub lanes: u32,
    /// Index of the next instruction.
    pub pc: usize,
    pub status: WaveStatus,
    pub sgpr: Vec<u32>,
    pub vgpr: Vec<u32>,
    pub limits: RegisterLimits,
    pub exec: u64,
    pub vcc: u64,
    pub scc: bool,
    pub m0: u32,
    /// FLAT_SCRATCH: the wave's private segment base (its scratch slice).
    pub flat_scratch: u64,
    /// Bytes of private memory per lane (what generic private addresses may reach).
    pub private_bytes: u32,
    pub scoreboard: Scoreboard,
    pub hazards: HazardTracker,
}

/// An aperture register read as a source: the base's high dword (32-bit read) or full
/// address (64-bit read); a limit is its base's last byte.
pub fn aperture_value(a: Aperture, wide: bool) -> u64 {
    let hi = match a {
        Aperture::SharedBase | Aperture::SharedLimit => super::memory::SHARED_APERTURE_HI,
        Aperture::PrivateBase | Aperture::PrivateLimit => super::memory::PRIVATE_APERTURE_HI,
    };
    let low = match a {
        Aperture::SharedLimit | Aperture::PrivateLimit => 0xffff_ffff,
        Aperture::SharedBase | Aperture::PrivateBase => 0,
    };
    if wide {
        u64::from(hi) << 32 | low
    } else {
        u64::from(hi)
    }
}

/// A vector source resolved once per instruction.
#[derive(Debug, Clone, Copy)]
pub enum VSource {
    /// The same bits on every lane (SGPRs, constants, literals).
    Uniform(u64),
    /// A register (two consecutive for 64-bit sources) per lane: the file entry.
    Lane { entry: usize, wide: bool },
}

impl Wave {
    /// A wave with zeroed registers.
    pub fn new(
        lanes: u32,
        limits: RegisterLimits,
        scoreboard: Scoreboard,
        hazards: HazardTracker,
    ) -> Wave {
        Wave {
            lanes,
            pc: 0,
            status: WaveStatus::Running,
            sgpr: vec![0; limits.sgprs as usize],
            vgpr: vec![0; (limits.vector_entries() * lanes) as usize],
            limits,
            exec: 0,
            vcc: 0,
            scc: false,
            m0: 0,
            flat_scratch: 0,
            private_bytes: 0,
            scoreboard,
            hazards,
        }
    }

    /// The mask of all lanes.
    pub fn full_mask(&self) -> u64 {
        if self.lanes >= 64 {
            u64::MAX
        } else {
            (1u64 << self.lanes) - 1
        }
    }

    fn sgpr_range(&self, r: RegRange, width: u8) -> Result<usize, Fault> {
        let end = u32::from(r.first) + u32::from(width.max(r.count));
        if end > self.limits.sgprs {
            return Err(Fault::new(format!(
                "s{} is beyond the {} SGPRs the kernel allocates",
                end - 1,
                self.limits.sgprs
            )));
        }
        Ok(usize::from(r.first))
    }

    /// Reads a scalar operand `width` dwords wide (1 or 2) as bits; `ty` decides how
    /// inline float constants and 64-bit literals read.
    pub fn read_scalar(&self, op: &Operand, width: u8, ty: Ty) -> Result<u64, Fault> {
        let wide = width >= 2;
        Ok(match *op {
            Operand::Sgpr(r) => {
                let i = self.sgpr_range(r, width)?;
                let lo = u64::from(self.sgpr[i]);
                if wide {
                    lo | u64::from(self.sgpr[i + 1]) << 32
                } else {
                    lo
                }
            }
            Operand::Vcc if wide => self.vcc,
            Operand::Vcc | Operand::VccLo => self.vcc & 0xffff_ffff,
            Operand::VccHi => self.vcc >> 32,
            Operand::Exec if wide => self.exec,
            Operand::Exec | Operand::ExecLo => self.exec & 0xffff_ffff,
            Operand::ExecHi => self.exec >> 32,
            Operand::M0 => u64::from(self.m0),
            Operand::FlatScratch => self.flat_scratch,
            Operand::FlatScratchLo => self.flat_scratch & 0xffff_ffff,
            Operand::FlatScratchHi => self.flat_scratch >> 32,
            Operand::Scc => u64::from(self.scc),
            Operand::Null => 0,
            Operand::Int(i) if wide => i as i64 as u64,
            Operand::Int(i) => u64::from(i as i32 as u32),
            Operand::Float(_) => super::alu::inline_constant(op, ty).ok_or_else(|| {
                Fault::new(format!("inline constant {op} as {ty:?} is not supported"))
            })?,
            // A 32-bit literal is the high half of a 64-bit float operand and the
            // zero-extended value of other 64-bit operands.
            Operand::Literal(x) if wide && ty == Ty::F64 => u64::from(x) << 32,
            Operand::Literal(x) => u64::from(x),
            Operand::Imm(i) => u64::from(i as u32 & 0xffff),
            Operand::Aperture(a) => aperture_value(a, wide),
            other => return Err(Fault::new(format!("{other} is not a scalar source"))),
        })
    }

    /// Writes a scalar destination `width` dwords wide.
    pub fn write_scalar(&mut self, op: &Operand, width: u8, value: u64) -> Result<(), Fault> {
        let full = self.full_mask();
        let lo = value & 0xffff_ffff;
        match *op {
            Operand::Sgpr(r) => {
                let i = self.sgpr_range(r, width)?;
                self.sgpr[i] = lo as u32;
                if width >= 2 {
                    self.sgpr[i + 1] = (value >> 32) as u32;
                }
            }
            Operand::Vcc => self.vcc = value & full,
            Operand::VccLo => self.vcc = (self.vcc & !0xffff_ffff | lo) & full,
            Operand::VccHi => self.vcc = (self.vcc & 0xffff_ffff | lo << 32) & full,
            Operand::Exec => self.exec = value & full,
            Operand::ExecLo => self.exec = (self.exec & !0xffff_ffff | lo) & full,
            Operand::ExecHi => self.exec = (self.exec & 0xffff_ffff | lo << 32) & full,
            Operand::M0 => self.m0 = lo as u32,
            Operand::FlatScratch => self.flat_scratch = value,
            Operand::FlatScratchLo => self.flat_scratch = self.flat_scratch & !0xffff_ffff | lo,
            Operand::FlatScratchHi => {
                self.flat_scratch = self.flat_scratch & 0xffff_ffff | lo << 32
            }
            Operand::Null => {}
            other => {
                return Err(Fault::new(format!(
                    "{other} is not a writable scalar destination"
                )))
            }
        }
        Ok(())
    }

    /// The vector-file entry of a VGPR or AGPR range, checked against the allocation.
    pub fn vector_entry(&self, op: &Operand, width: u8) -> Result<usize, Fault> {
        let (r, base, limit, kind) = match *op {
            Operand::Vgpr(r) => (r, 0, self.limits.vgprs, ('v', "VGPRs")),
            Operand::Agpr(r) => (r, self.limits.agpr_base, self.limits.agprs, ('a', "AGPRs")),
            other => return Err(Fault::new(format!("{other} is not a vector register"))),
        };
        let end = u32::from(r.first) + u32::from(width.max(r.count));
        if end > limit {
            return Err(Fault::new(format!(
                "{}{} is beyond the {limit} {} the kernel allocates",
                kind.0,
                end - 1,
                kind.1
            )));
        }
        Ok((base + u32::from(r.first)) as usize)
    }

    /// Resolves a vector-instruction source once for all lanes.
    pub fn vector_source(&self, op: &Operand, width: u8, ty: Ty) -> Result<VSource, Fault> {
        match op {
            Operand::Vgpr(_) | Operand::Agpr(_) => Ok(VSource::Lane {
                entry: self.vector_entry(op, width)?,
                wide: width >= 2,
            }),
            other => Ok(VSource::Uniform(self.read_scalar(other, width, ty)?)),
        }
    }

    /// A source's bits on `lane`.
    #[inline]
    pub fn lane_value(&self, src: VSource, lane: u32) -> u64 {
        match src {
            VSource::Uniform(v) => v,
            VSource::Lane { entry, wide } => {
                let n = self.lanes as usize;
                let i = entry * n + lane as usize;
                let lo = u64::from(self.vgpr[i]);
                if wide {
                    lo | u64::from(self.vgpr[i + n]) << 32
                } else {
                    lo
                }
            }
        }
    }

    /// Register `entry + reg` on `lane`.
    #[inline]
    pub fn get(&self, entry: usize, reg: usize, lane: u32) -> u32 {
        self.vgpr[(entry + reg) * self.lanes as usize + lane as usize]
    }

    /// Sets register `entry + reg` on `lane`.
    #[inline]
    pub fn set(&mut self, entry: usize, reg: usize, lane: u32, value: u32) {
        let n = self.lanes as usize;
        self.vgpr[(entry + reg) * n + lane as usize] = value;
    }
}

/// The set bits of a lane mask, lowest first.
#[inline]
pub fn lanes_of(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let l = mask.trailing_zeros();
        mask &= mask - 1;
        Some(l)
    })
}
