//! Cache hints of global loads and stores: what a generator may ask of the memory system
//! beyond the plain access, so variants can be swept on a device.
//!
//! Rules (PTX ISA 8.0, every form valid on sm_80..sm_90a):
//! - A load is `ld.global{.cop}{.nc}{.eviction}{.L2::cache_hint}{.L2::256B}`; whether it
//!   takes the read-only path (`.nc`) is the kernel's decision (only data the kernel
//!   never writes), the hint is the variant's. A cache operator (`.cs`) and an L1
//!   eviction priority are exclusive, so each hint is one of them, never both.
//! - A store is `st.global{.cop}{.eviction}{.L2::cache_hint}`.
//! - `L2EvictFirst` hints carry a 64-bit cache policy made once per kernel by
//!   `createpolicy.fractional.L2::evict_first` (fraction 1: every access of the
//!   instruction); [`KernelBuilder::l2_evict_first_policy`] makes it.

use super::{mem_ty, offset_text, reg_list, vec_suffix, KernelBuilder, Op, Reg, Ty};

/// Cache behaviour of a kernel's global loads.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum LoadHint {
    /// `ld.global` (`.nc` on read-only data).
    #[default]
    Default,
    /// `.cs`: streaming, likely accessed once (evict first at every level).
    Streaming,
    /// `.L1::no_allocate`: do not allocate the line in L1.
    L1NoAllocate,
    /// `.L1::evict_first`.
    L1EvictFirst,
    /// `.L2::cache_hint` with an L2 evict-first policy.
    L2EvictFirst,
    /// `.L2::256B`: prefetch the surrounding 256 bytes into L2.
    L2Prefetch256,
}

/// Cache behaviour of a kernel's global stores.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum StoreCache {
    /// `st.global` (write back).
    #[default]
    Default,
    /// `st.global.cs`: streaming, likely accessed once.
    Streaming,
    /// `.L1::no_allocate`.
    L1NoAllocate,
    /// `.L2::cache_hint` with an L2 evict-first policy.
    L2EvictFirst,
}

impl LoadHint {
    pub const ALL: [LoadHint; 6] = [
        LoadHint::Default,
        LoadHint::Streaming,
        LoadHint::L1NoAllocate,
        LoadHint::L1EvictFirst,
        LoadHint::L2EvictFirst,
        LoadHint::L2Prefetch256,
    ];

    /// Whether the access takes an L2 cache policy operand.
    pub fn needs_policy(self) -> bool {
        self == LoadHint::L2EvictFirst
    }
}

impl StoreCache {
    pub const ALL: [StoreCache; 4] = [
        StoreCache::Default,
        StoreCache::Streaming,
        StoreCache::L1NoAllocate,
        StoreCache::L2EvictFirst,
    ];

    /// Whether the access takes an L2 cache policy operand.
    pub fn needs_policy(self) -> bool {
        self == StoreCache::L2EvictFirst
    }
}

impl KernelBuilder {
    /// A cache policy asking L2 to evict the lines of accesses that use it first.
    pub fn l2_evict_first_policy(&mut self) -> Reg {
        let r = self.reg(Ty::B64);
        self.emit(format!(
            "createpolicy.fractional.L2::evict_first.b64 {r}, {}",
            Op::F32(1.0)
        ));
        r
    }

    /// Loads into existing registers (1, 2 or 4 of one type) from global `addr + offset`,
    /// through the read-only path when `read_only`, with `hint`; `policy` is the operand
    /// of an `L2EvictFirst` hint (without one the hint is dropped). Combined with
    /// [`KernelBuilder::when`], registers keep their value where the predicate is false.
    #[allow(clippy::too_many_arguments)]
    pub fn ld_global_hinted(
        &mut self,
        regs: &[Reg],
        addr: Reg,
        offset: i64,
        read_only: bool,
        hint: LoadHint,
        policy: Option<Reg>,
    ) {
        let ty = mem_ty(regs[0].ty());
        self.ld_global_hinted_as(ty, regs, addr, offset, read_only, hint, policy);
    }

    /// [`KernelBuilder::ld_global_hinted`] with instruction type `ty`, which may be
    /// narrower than the registers (integer types: the value is zero- or sign-extended).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ld_global_hinted_as(
        &mut self,
        ty: Ty,
        regs: &[Reg],
        addr: Reg,
        offset: i64,
        read_only: bool,
        hint: LoadHint,
        policy: Option<Reg>,
    ) {
        let nc = if read_only { ".nc" } else { "" };
        let (qualifiers, operand) = match (hint, policy) {
            (LoadHint::Default, _) => (nc.to_string(), String::new()),
            (LoadHint::Streaming, _) => (format!(".cs{nc}"), String::new()),
            (LoadHint::L1NoAllocate, _) => (format!("{nc}.L1::no_allocate"), String::new()),
            (LoadHint::L1EvictFirst, _) => (format!("{nc}.L1::evict_first"), String::new()),
            (LoadHint::L2EvictFirst, Some(p)) => (format!("{nc}.L2::cache_hint"), format!(", {p}")),
            (LoadHint::L2EvictFirst, None) => (nc.to_string(), String::new()),
            (LoadHint::L2Prefetch256, _) => (format!("{nc}.L2::256B"), String::new()),
        };
        self.emit(format!(
            "ld.global{qualifiers}{}.{} {}, [{addr}{}]{operand}",
            vec_suffix(regs.len() as u32),
            ty.name(),
            reg_list(regs),
            offset_text(offset)
        ));
    }

    /// Stores `values` (1, 2 or 4 registers of one type) at global `addr + offset` with
    /// `hint`; `policy` as for [`KernelBuilder::ld_global_hinted`].
    pub fn st_global_hinted(
        &mut self,
        addr: Reg,
        offset: i64,
        values: &[Reg],
        hint: StoreCache,
        policy: Option<Reg>,
    ) {
        let ty = mem_ty(values[0].ty());
        self.st_global_hinted_as(ty, addr, offset, values, hint, policy);
    }

    /// [`KernelBuilder::st_global_hinted`] with instruction type `ty`, which may be
    /// narrower than the registers (the value is truncated).
    pub(crate) fn st_global_hinted_as(
        &mut self,
        ty: Ty,
        addr: Reg,
        offset: i64,
        values: &[Reg],
        hint: StoreCache,
        policy: Option<Reg>,
    ) {
        let (qualifiers, operand) = match (hint, policy) {
            (StoreCache::Default, _) | (StoreCache::L2EvictFirst, None) => ("", String::new()),
            (StoreCache::Streaming, _) => (".cs", String::new()),
            (StoreCache::L1NoAllocate, _) => (".L1::no_allocate", String::new()),
            (StoreCache::L2EvictFirst, Some(p)) => (".L2::cache_hint", format!(", {p}")),
        };
        self.emit(format!(
            "st.global{qualifiers}{}.{} [{addr}{}], {}{operand}",
            vec_suffix(values.len() as u32),
            ty.name(),
            offset_text(offset),
            reg_list(values)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_spell_as_ptx() {
        let mut k = KernelBuilder::new("t");
        let a = k.reg(Ty::U64);
        let pol = k.l2_evict_first_policy();
        let v: Vec<Reg> = (0..4).map(|_| k.reg(Ty::F32)).collect();
        k.ld_global_hinted(&v, a, 16, true, LoadHint::Streaming, None);
        k.ld_global_hinted(&v[..1], a, 0, false, LoadHint::L2EvictFirst, Some(pol));
        k.ld_global_hinted(&v[..2], a, 0, true, LoadHint::Default, None);
        k.st_global_hinted(a, 0, &v, StoreCache::Streaming, None);
        k.st_global_hinted(a, -8, &v[..1], StoreCache::L2EvictFirst, Some(pol));
        let text = k.finish();
        assert!(
            text.contains("createpolicy.fractional.L2::evict_first.b64 %rd2, 0f3F800000;"),
            "{text}"
        );
        assert!(
            text.contains("ld.global.cs.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];"),
            "{text}"
        );
        assert!(
            text.contains("ld.global.L2::cache_hint.f32 %f1, [%rd1], %rd2;"),
            "{text}"
        );
        assert!(
            text.contains("ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];"),
            "{text}"
        );
        assert!(
            text.contains("st.global.cs.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};"),
            "{text}"
        );
        assert!(
            text.contains("st.global.L2::cache_hint.f32 [%rd1-8], %f1, %rd2;"),
            "{text}"
        );
    }
}
