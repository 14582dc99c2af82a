//! Register pools for the lowering: first-fit allocation of aligned tuples out of one
//! register file, with frees (the lowering's linear scan returns a value's registers
//! after its last use). A register counts the values holding it: a value that is part
//! of another's registers (a vector's lane, a vector of consecutive lanes) holds them
//! too, and a register is free again when the last holder lets go.

use crate::amdgpu::regs::{file_size, required_alignment, RegFile};
use rocm_core::isa::amdgpu::{IsaTarget, RegRange};
use rocm_core::{Error, Result};

/// One register file: how many holders each register has.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    file: RegFile,
    target: IsaTarget,
    used: Vec<u16>,
}

impl Pool {
    /// The pool of `file` on `t` with registers below `reserved` taken for good (launch
    /// state the hardware writes).
    pub(crate) fn new(t: IsaTarget, file: RegFile, reserved: u16) -> Self {
        let size = usize::from(file_size(t, file));
        let mut used = vec![0; size];
        for u in used.iter_mut().take(usize::from(reserved)) {
            *u = 1;
        }
        Pool {
            file,
            target: t,
            used,
        }
    }

    /// `count` free registers at the alignment the target requires for such a tuple:
    /// the lowest that fit (for SGPRs, see below).
    ///
    /// SGPRs: among the places that fit, the lowest one whose other half of the aligned block
    /// of twice the size is taken comes first: a single register fills the hole beside
    /// a taken one before it splits a free aligned pair, so the pairs (and quads) that
    /// 64-bit values need stay whole and the file's high-water mark stays low.
    pub(crate) fn alloc(&mut self, count: u8) -> Result<RegRange> {
        let align = usize::from(required_alignment(self.target, self.file, count));
        let n = usize::from(count);
        let free = |used: &[u16], at: usize| used[at..at + n].iter().all(|&u| u == 0);
        let mut lowest = None;
        let mut hole = None;
        let mut first = 0;
        while first + n <= self.used.len() {
            if free(&self.used, first) {
                lowest.get_or_insert(first);
                let buddy = first ^ n;
                let buddy_taken = self.file == RegFile::Sgpr
                    && n.is_power_of_two()
                    && buddy + n <= self.used.len()
                    && !free(&self.used, buddy);
                if buddy_taken {
                    hole = Some(first);
                    break;
                }
            }
            first += align;
        }
        // A hole above the registers taken now would raise the high-water mark.
        let top = self.used.iter().rposition(|&u| u > 0).map_or(0, |t| t + 1);
        let pick = match hole {
            Some(h) if h + n <= top => Some(h),
            _ => lowest,
        };
        if let Some(first) = pick {
            for u in &mut self.used[first..first + n] {
                *u = 1;
            }
            return Ok(RegRange::new(first as u16, count));
        }
        let name = match self.file {
            RegFile::Sgpr => "SGPR",
            RegFile::Vgpr => "VGPR",
            RegFile::Agpr => "AGPR",
        };
        Err(Error::invalid(
            "register allocation",
            format!(
                "{count} {name}s: the {} {name}s of {} are all live (the kernel keeps too many values at once)",
                self.used.len(),
                self.target
            ),
        ))
    }

    /// One holder lets go of `r` (the registers return to the pool with the last).
    pub(crate) fn free(&mut self, r: RegRange) {
        for i in r.first..r.first + u16::from(r.count) {
            if let Some(u) = self.used.get_mut(usize::from(i)) {
                *u = u.saturating_sub(1);
            }
        }
    }

    /// One more holder of the (taken) registers `r`.
    pub(crate) fn hold(&mut self, r: RegRange) {
        for i in r.first..r.first + u16::from(r.count) {
            if let Some(u) = self.used.get_mut(usize::from(i)) {
                *u += 1;
            }
        }
    }

    /// How many registers are free.
    pub(crate) fn free_count(&self) -> usize {
        self.used.iter().filter(|&&u| u == 0).count()
    }

    /// Whether every register of `r` has exactly one holder.
    pub(crate) fn sole(&self, r: RegRange) -> bool {
        (r.first..r.first + u16::from(r.count)).all(|i| self.used.get(usize::from(i)) == Some(&1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_with_alignment_and_reuse() {
        let mut p = Pool::new(IsaTarget::Gfx90a, RegFile::Vgpr, 1);
        let a = p.alloc(1).unwrap();
        assert_eq!(a, RegRange::new(1, 1));
        // gfx90a pairs start at even registers.
        let b = p.alloc(2).unwrap();
        assert_eq!(b, RegRange::new(2, 2));
        p.free(a);
        assert_eq!(p.alloc(1).unwrap(), RegRange::new(1, 1));
        p.free(b);
        assert_eq!(p.alloc(4).unwrap(), RegRange::new(2, 4));
        // A second holder keeps a register taken until both let go.
        let c = RegRange::new(3, 1);
        p.hold(c);
        assert!(!p.sole(RegRange::new(2, 4)) && p.sole(RegRange::new(2, 1)));
        p.free(RegRange::new(2, 4));
        assert_eq!(p.alloc(1).unwrap(), RegRange::new(2, 1));
        assert_eq!(p.alloc(1).unwrap(), RegRange::new(4, 1));
        p.free(c);
        assert_eq!(p.alloc(1).unwrap(), RegRange::new(3, 1));
        let mut s = Pool::new(IsaTarget::Gfx1100, RegFile::Sgpr, 3);
        assert_eq!(s.alloc(4).unwrap(), RegRange::new(4, 4));
        assert!(s.alloc(200).is_err());
    }
}
