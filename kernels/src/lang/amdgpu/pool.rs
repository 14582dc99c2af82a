//! Register pools for the lowering: first-fit allocation of aligned tuples out of one
//! register file, with frees (the lowering's linear scan returns a value's registers
//! after its last use).

use crate::amdgpu::regs::{file_size, required_alignment, RegFile};
use rocm_core::isa::amdgpu::{IsaTarget, RegRange};
use rocm_core::{Error, Result};

/// One register file: which registers are taken, and the highest ever handed out.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    file: RegFile,
    target: IsaTarget,
    used: Vec<bool>,
}

impl Pool {
    /// The pool of `file` on `t` with registers below `reserved` taken for good (launch
    /// state the hardware writes).
    pub(crate) fn new(t: IsaTarget, file: RegFile, reserved: u16) -> Self {
        let size = usize::from(file_size(t, file));
        let mut used = vec![false; size];
        for u in used.iter_mut().take(usize::from(reserved)) {
            *u = true;
        }
        Pool {
            file,
            target: t,
            used,
        }
    }

    /// `count` free registers at the alignment the target requires for such a tuple:
    /// the lowest that fit.
    pub(crate) fn alloc(&mut self, count: u8) -> Result<RegRange> {
        let align = usize::from(required_alignment(self.target, self.file, count));
        let n = usize::from(count);
        let mut first = 0;
        while first + n <= self.used.len() {
            if self.used[first..first + n].iter().all(|u| !u) {
                for u in &mut self.used[first..first + n] {
                    *u = true;
                }
                return Ok(RegRange::new(first as u16, count));
            }
            first += align;
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

    /// Returns `r` to the pool.
    pub(crate) fn free(&mut self, r: RegRange) {
        for i in r.first..r.first + u16::from(r.count) {
            if let Some(u) = self.used.get_mut(usize::from(i)) {
                *u = false;
            }
        }
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
        let mut s = Pool::new(IsaTarget::Gfx1100, RegFile::Sgpr, 3);
        assert_eq!(s.alloc(4).unwrap(), RegRange::new(4, 4));
        assert!(s.alloc(200).is_err());
    }
}
