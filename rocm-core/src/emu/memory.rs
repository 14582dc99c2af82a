//! The emulated device's global address space.
//!
//! Rules:
//! - Every allocation is a region `[base, base + bytes)` of one address space per device.
//!   Bases are 4 KiB aligned, start at [`FIRST_BASE`] (never 0, so a null pointer never
//!   hits memory) and leave a guard gap of at least [`GUARD`] bytes between regions, so a
//!   kernel running off the end of one buffer faults instead of landing in the next.
//! - Bases are never reused while the device lives: a kernel holding a stale pointer
//!   faults rather than touching a newer buffer.
//! - An access (by the host or by one lane of a kernel, for its whole width) must lie
//!   inside one live region; anything else is `None` here and a fault upstream.
//! - Memory is plain bytes owned by the map, never host memory a caller can alias
//!   (`Allocation::host_ptr` stays `None`).

use std::collections::BTreeMap;

/// Where the first allocation starts.
pub const FIRST_BASE: u64 = 0x1_0000_0000;
/// High dword of generic addresses in LDS (`src_shared_base`), as the Linux driver sets
/// it on gfx9 and gfx11 (`0x1 << 48`).
pub const SHARED_APERTURE_HI: u32 = 0x1_0000;
/// High dword of generic addresses in the lane's scratch (`src_private_base`, `0x2 << 48`).
pub const PRIVATE_APERTURE_HI: u32 = 0x2_0000;
/// Allocations end below the lowest aperture, so a global address is never generic LDS
/// or scratch.
const LIMIT: u64 = (SHARED_APERTURE_HI as u64) << 32;
/// Minimum unmapped bytes between two regions.
pub const GUARD: u64 = 0x1_0000;
const PAGE: u64 = 0x1000;

/// One device address space.
#[derive(Debug, Default)]
pub struct AddressSpace {
    regions: BTreeMap<u64, Vec<u8>>,
    next_base: u64,
}

impl AddressSpace {
    pub fn new() -> Self {
        AddressSpace {
            regions: BTreeMap::new(),
            next_base: FIRST_BASE,
        }
    }

    /// Maps `bytes` zeroed bytes; returns the base, `None` when the address space is
    /// exhausted.
    pub fn map(&mut self, bytes: usize) -> Option<u64> {
        let base = self.next_base;
        let span = (bytes as u64).max(1).checked_add(PAGE - 1)? & !(PAGE - 1);
        let next = base.checked_add(span)?.checked_add(GUARD)?;
        if next > LIMIT {
            return None;
        }
        self.next_base = next;
        self.regions.insert(base, vec![0; bytes]);
        Some(base)
    }

    /// Unmaps the region starting at `base` (no-op if none).
    pub fn unmap(&mut self, base: u64) {
        self.regions.remove(&base);
    }

    /// The region holding `[addr, addr + len)`: its base and bytes.
    fn region(&self, addr: u64, len: usize) -> Option<(u64, &Vec<u8>)> {
        let (&base, data) = self.regions.range(..=addr).next_back()?;
        let end = addr.checked_add(len as u64)?;
        (end <= base + data.len() as u64).then_some((base, data))
    }

    /// The bytes `[addr, addr + len)`, if they lie in one live region.
    pub fn slice(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let (base, data) = self.region(addr, len)?;
        let off = (addr - base) as usize;
        data.get(off..off + len)
    }

    /// Mutable bytes `[addr, addr + len)`, if they lie in one live region.
    pub fn slice_mut(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let (&base, data) = self.regions.range_mut(..=addr).next_back()?;
        let end = addr.checked_add(len as u64)?;
        if end > base + data.len() as u64 {
            return None;
        }
        let off = (addr - base) as usize;
        data.get_mut(off..off + len)
    }

    /// Reads a little-endian dword.
    pub fn read_u32(&self, addr: u64) -> Option<u32> {
        let b = self.slice(addr, 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Writes a little-endian dword.
    pub fn write_u32(&mut self, addr: u64, value: u32) -> Option<()> {
        self.slice_mut(addr, 4)?
            .copy_from_slice(&value.to_le_bytes());
        Some(())
    }

    /// Live regions (for tests and messages).
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_separated_and_bounds_checked() {
        let mut m = AddressSpace::new();
        let a = m.map(10).unwrap();
        let b = m.map(4096).unwrap();
        let z = m.map(0).unwrap();
        assert!(a >= FIRST_BASE && b >= a + 10 + GUARD && z >= b + 4096 + GUARD);
        assert!(m.slice(a, 10).is_some());
        assert!(m.slice(a + 7, 4).is_none(), "straddles the end");
        assert!(m.slice(a - 1, 1).is_none());
        assert!(m.slice(0, 1).is_none());
        assert!(m.slice(z, 1).is_none(), "an empty region holds no byte");
        m.write_u32(b + 4092, 0xdead_beef).unwrap();
        assert_eq!(m.read_u32(b + 4092), Some(0xdead_beef));
        assert!(m.write_u32(b + 4093, 1).is_none());
        m.unmap(a);
        assert!(m.slice(a, 1).is_none());
        let c = m.map(10).unwrap();
        assert!(c > z, "bases are not reused");
        assert_eq!(m.region_count(), 3);
        assert!(m.slice(u64::MAX - 1, 4).is_none());
    }
}
