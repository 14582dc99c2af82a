//! Typed registers and the allocator that hands them out by the target's alignment rules.
//!
//! | Register file | Tuple alignment |
//! |---|---|
//! | SGPR | pairs at even registers, 4+ registers at a multiple of 4 (every target) |
//! | VGPR / AGPR | 2+ registers at an even register on gfx90a/gfx942 (64-bit-aligned tuples); any start on gfx908 and gfx11 |
//!
//! [`Sgpr`], [`Vgpr`] and [`Agpr`] wrap a [`RegRange`] so a kernel cannot pass a VGPR where
//! an SGPR is meant; they convert into [`Operand`] for [`rocm_core::isa::amdgpu::Instr`].

use rocm_core::isa::amdgpu::{IsaTarget, Operand, RegRange};
use rocm_core::{Error, Result};

macro_rules! reg_type {
    ($name:ident, $variant:ident, $prefix:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(pub RegRange);

        impl $name {
            /// Registers `first .. first + count`.
            pub fn range(first: u16, count: u8) -> Self {
                $name(RegRange::new(first, count))
            }

            /// One register.
            pub fn one(n: u16) -> Self {
                $name(RegRange::new(n, 1))
            }

            /// Register `i` of this range (`i` past the end is an error at `finish`, as
            /// the range is checked against its file there; here it saturates).
            pub fn at(self, i: u8) -> Self {
                $name(RegRange::new(self.0.first.saturating_add(u16::from(i)), 1))
            }

            /// Registers `first .. first + count` inside this range.
            pub fn sub(self, first: u8, count: u8) -> Self {
                $name(RegRange::new(
                    self.0.first.saturating_add(u16::from(first)),
                    count,
                ))
            }

            /// The first register number.
            pub fn first(self) -> u16 {
                self.0.first
            }

            /// How many registers.
            pub fn count(self) -> u8 {
                self.0.count
            }

            /// The operand.
            pub fn op(self) -> Operand {
                Operand::$variant(self.0)
            }
        }

        impl From<$name> for Operand {
            fn from(r: $name) -> Operand {
                Operand::$variant(r.0)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", Operand::$variant(self.0))
            }
        }
    };
}

reg_type!(Sgpr, Sgpr, "s", "Scalar registers (one value per wave).");
reg_type!(Vgpr, Vgpr, "v", "Vector registers (one value per lane).");
reg_type!(
    Agpr,
    Agpr,
    "a",
    "Accumulation registers (gfx9 MFMA; gfx908's separate file, gfx90a/gfx942's upper part of the unified file)."
);

/// Which register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegFile {
    Sgpr,
    Vgpr,
    Agpr,
}

impl RegFile {
    fn name(self) -> &'static str {
        match self {
            RegFile::Sgpr => "SGPR",
            RegFile::Vgpr => "VGPR",
            RegFile::Agpr => "AGPR",
        }
    }
}

/// The alignment a tuple of `count` registers must start at on `t`.
pub fn required_alignment(t: IsaTarget, file: RegFile, count: u8) -> u16 {
    match file {
        RegFile::Sgpr if count >= 4 => 4,
        RegFile::Sgpr if count == 2 => 2,
        RegFile::Sgpr => 1,
        RegFile::Vgpr | RegFile::Agpr if count >= 2 && t.aligned_vector_tuples() => 2,
        RegFile::Vgpr | RegFile::Agpr => 1,
    }
}

/// The number of registers of a file a kernel can address on `t`.
pub fn file_size(t: IsaTarget, file: RegFile) -> u16 {
    match file {
        RegFile::Sgpr => t.sgpr_count(),
        RegFile::Vgpr => t.caps().vgprs_per_wave as u16,
        RegFile::Agpr => t.caps().agprs_per_wave as u16,
    }
}

/// Checks one operand's register range against the target's alignment and file size.
pub fn check_operand(t: IsaTarget, o: &Operand) -> Result<()> {
    let (file, r) = match *o {
        Operand::Sgpr(r) => (RegFile::Sgpr, r),
        Operand::Vgpr(r) => (RegFile::Vgpr, r),
        Operand::Agpr(r) => (RegFile::Agpr, r),
        _ => return Ok(()),
    };
    let align = required_alignment(t, file, r.count);
    if r.first % align != 0 {
        return Err(Error::invalid(
            "register",
            format!(
                "{o} on {t}: a tuple of {} {}s must start at a multiple of {align}",
                r.count,
                file.name()
            ),
        ));
    }
    if r.count == 0 || r.end() > u32::from(file_size(t, file)) {
        return Err(Error::invalid(
            "register",
            format!(
                "{o} on {t}: outside the {} addressable {}s",
                file_size(t, file),
                file.name()
            ),
        ));
    }
    Ok(())
}

/// A bump allocator over one register file: registers are never freed (kernels are
/// short; the resource report shows what they cost).
#[derive(Debug, Clone)]
pub struct RegAllocator {
    file: RegFile,
    next: u16,
    size: u16,
}

impl RegAllocator {
    /// An allocator of `file` on `t` whose first free register is `first`.
    pub fn new(t: IsaTarget, file: RegFile, first: u16) -> Self {
        RegAllocator {
            file,
            next: first,
            size: file_size(t, file),
        }
    }

    /// The first register not handed out.
    pub fn next_free(&self) -> u16 {
        self.next
    }

    /// Reserves registers below `n` (launch state placed by hardware).
    pub fn reserve_below(&mut self, n: u16) {
        self.next = self.next.max(n);
    }

    /// `count` registers aligned as the target requires.
    pub fn alloc(&mut self, t: IsaTarget, count: u8) -> Result<RegRange> {
        let align = required_alignment(t, self.file, count);
        let first = self.next.div_ceil(align) * align;
        let end = u32::from(first) + u32::from(count);
        if count == 0 || end > u32::from(self.size) {
            return Err(Error::invalid(
                "register allocation",
                format!(
                    "{count} {}s from {first}: the file of {t} has {}",
                    self.file.name(),
                    self.size
                ),
            ));
        }
        self.next = end as u16;
        Ok(RegRange::new(first, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_rules_per_target() {
        let mut a = RegAllocator::new(IsaTarget::Gfx90a, RegFile::Vgpr, 1);
        assert_eq!(a.alloc(IsaTarget::Gfx90a, 2).unwrap(), RegRange::new(2, 2));
        assert_eq!(a.alloc(IsaTarget::Gfx90a, 1).unwrap(), RegRange::new(4, 1));
        assert_eq!(a.alloc(IsaTarget::Gfx90a, 4).unwrap(), RegRange::new(6, 4));
        let mut b = RegAllocator::new(IsaTarget::Gfx908, RegFile::Vgpr, 1);
        assert_eq!(b.alloc(IsaTarget::Gfx908, 2).unwrap(), RegRange::new(1, 2));
        let mut s = RegAllocator::new(IsaTarget::Gfx1100, RegFile::Sgpr, 3);
        assert_eq!(s.alloc(IsaTarget::Gfx1100, 2).unwrap(), RegRange::new(4, 2));
        assert_eq!(s.alloc(IsaTarget::Gfx1100, 4).unwrap(), RegRange::new(8, 4));
        assert!(s.alloc(IsaTarget::Gfx1100, 100).is_err());
        let mut g = RegAllocator::new(IsaTarget::Gfx1100, RegFile::Agpr, 0);
        assert!(
            g.alloc(IsaTarget::Gfx1100, 1).is_err(),
            "gfx11 has no AGPRs"
        );
    }

    #[test]
    fn misaligned_operands_are_rejected() {
        let t = IsaTarget::Gfx942;
        assert!(check_operand(t, &Vgpr::range(1, 2).op()).is_err());
        assert!(check_operand(IsaTarget::Gfx908, &Vgpr::range(1, 2).op()).is_ok());
        assert!(check_operand(t, &Sgpr::range(2, 4).op()).is_err());
        assert!(check_operand(t, &Sgpr::range(4, 4).op()).is_ok());
        assert!(check_operand(t, &Vgpr::range(255, 2).op()).is_err());
    }
}
