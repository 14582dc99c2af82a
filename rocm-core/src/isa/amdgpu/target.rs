//! The AMD targets the instruction model encodes for, and the rules that differ between them.
//!
//! Encodings are shared inside a family (gfx9: gfx908/gfx90a/gfx942; gfx11: gfx1100,
//! gfx1101, gfx1102, gfx1151), but opcode availability, mnemonics and register rules differ
//! per target; [`IsaTarget::column`] picks the target's column of the opcode table.

use crate::error::{Error, Result};
use crate::target::Arch;
use std::fmt;

/// An AMD GPU target of the instruction model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IsaTarget {
    Gfx908,
    Gfx90a,
    Gfx942,
    Gfx1100,
    Gfx1101,
    Gfx1102,
    Gfx1151,
}

/// The encoding family of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IsaFamily {
    /// GCN5/CDNA: wave64, VOP3 without literals, MFMA.
    Gfx9,
    /// RDNA3/3.5: wave32 (the model's mode), VOP3 literals, WMMA.
    Gfx11,
}

impl IsaTarget {
    /// Every target of the model.
    pub const ALL: [IsaTarget; 7] = [
        IsaTarget::Gfx908,
        IsaTarget::Gfx90a,
        IsaTarget::Gfx942,
        IsaTarget::Gfx1100,
        IsaTarget::Gfx1101,
        IsaTarget::Gfx1102,
        IsaTarget::Gfx1151,
    ];

    /// The LLVM processor name (`-mcpu=`).
    pub fn name(self) -> &'static str {
        match self {
            IsaTarget::Gfx908 => "gfx908",
            IsaTarget::Gfx90a => "gfx90a",
            IsaTarget::Gfx942 => "gfx942",
            IsaTarget::Gfx1100 => "gfx1100",
            IsaTarget::Gfx1101 => "gfx1101",
            IsaTarget::Gfx1102 => "gfx1102",
            IsaTarget::Gfx1151 => "gfx1151",
        }
    }

    pub fn family(self) -> IsaFamily {
        match self {
            IsaTarget::Gfx908 | IsaTarget::Gfx90a | IsaTarget::Gfx942 => IsaFamily::Gfx9,
            _ => IsaFamily::Gfx11,
        }
    }

    /// The column of [`super::OpInfo::opcode`] and [`super::OpInfo::names`]:
    /// 0 gfx908, 1 gfx90a, 2 gfx942, 3 gfx11 (opcodes of names); names use 0 for gfx908
    /// and gfx90a.
    pub fn column(self) -> usize {
        match self {
            IsaTarget::Gfx908 => 0,
            IsaTarget::Gfx90a => 1,
            IsaTarget::Gfx942 => 2,
            _ => 3,
        }
    }

    /// Lanes per wave in the model's mode (wave64 on gfx9, wave32 on gfx11).
    pub fn wave_size(self) -> u32 {
        match self.family() {
            IsaFamily::Gfx9 => 64,
            IsaFamily::Gfx11 => 32,
        }
    }

    /// SGPRs of a lane mask (VCC, a compare result): 2 in wave64, 1 in wave32.
    pub fn mask_sgprs(self) -> u8 {
        if self.wave_size() == 64 {
            2
        } else {
            1
        }
    }

    /// Addressable SGPRs (`s0..s{n-1}`).
    pub fn sgpr_count(self) -> u16 {
        match self.family() {
            IsaFamily::Gfx9 => 102,
            IsaFamily::Gfx11 => 106,
        }
    }

    /// gfx90a and gfx942 require VGPR and AGPR tuples to start at an even register.
    pub fn aligned_vector_tuples(self) -> bool {
        matches!(self, IsaTarget::Gfx90a | IsaTarget::Gfx942)
    }

    /// gfx90a+ let MFMA C/D live in VGPRs (the ACC_CD bit selects AGPRs) and memory
    /// instructions load and store AGPRs; gfx908 has AGPR-only C/D.
    pub fn unified_agprs(self) -> bool {
        self.aligned_vector_tuples()
    }

    /// How many distinct scalar values (SGPRs, literals) one VALU instruction may read.
    pub fn constant_bus_limit(self) -> usize {
        match self.family() {
            IsaFamily::Gfx9 => 1,
            IsaFamily::Gfx11 => 2,
        }
    }

    /// gfx942 names cache policy bits `sc0 sc1 nt` instead of `glc slc`.
    pub fn sc_cache_bits(self) -> bool {
        self == IsaTarget::Gfx942
    }

    /// Whether scratch instructions have an SVE bit (a VGPR offset beside an SGPR one,
    /// or neither); gfx908/gfx90a take exactly one of the two.
    pub fn scratch_sve_bit(self) -> bool {
        !matches!(self, IsaTarget::Gfx908 | IsaTarget::Gfx90a)
    }

    /// The rocm-core architecture of this target.
    pub fn arch(self) -> Arch {
        match self {
            IsaTarget::Gfx908 => Arch::Gfx908,
            IsaTarget::Gfx90a => Arch::Gfx90a,
            IsaTarget::Gfx942 => Arch::Gfx942,
            IsaTarget::Gfx1100 => Arch::Gfx1100,
            IsaTarget::Gfx1101 => Arch::Gfx1101,
            IsaTarget::Gfx1102 => Arch::Gfx1102,
            IsaTarget::Gfx1151 => Arch::Gfx1151,
        }
    }

    /// The target's row of the capability table ([`crate::target::TABLE`]).
    pub fn caps(self) -> &'static crate::target::Caps {
        self.arch().caps()
    }

    /// The model's target for a rocm-core architecture, if it has one.
    pub fn from_arch(arch: Arch) -> Result<Self> {
        Ok(match arch {
            Arch::Gfx908 => IsaTarget::Gfx908,
            Arch::Gfx90a => IsaTarget::Gfx90a,
            Arch::Gfx942 => IsaTarget::Gfx942,
            Arch::Gfx1100 => IsaTarget::Gfx1100,
            Arch::Gfx1101 => IsaTarget::Gfx1101,
            Arch::Gfx1102 => IsaTarget::Gfx1102,
            Arch::Gfx1151 => IsaTarget::Gfx1151,
            other => {
                return Err(Error::unsupported(
                    "AMDGPU instruction encoding",
                    other.name(),
                ))
            }
        })
    }
}

impl TryFrom<Arch> for IsaTarget {
    type Error = Error;
    fn try_from(a: Arch) -> Result<Self> {
        IsaTarget::from_arch(a)
    }
}

impl TryFrom<&crate::target::Target> for IsaTarget {
    type Error = Error;
    /// The model's target for a code-generation target (its features do not change
    /// encodings).
    fn try_from(t: &crate::target::Target) -> Result<Self> {
        IsaTarget::from_arch(t.arch())
    }
}

impl fmt::Display for IsaTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
