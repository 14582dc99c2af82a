//! The handle's cache of elementwise Level 1 plans, so that a repeated small call
//! (copy, axpy at a fixed n) skips planning: variant choice, signature generation and
//! argument binding cost more host time than the launch itself.
//!
//! A plan depends on the problem's op, dtype, n, increments, scalars, which vectors
//! are present, the views' alignment (the only use of their addresses) and the catalog
//! in force; the key holds exactly these. Plans bind views by slot, never by address,
//! so one plan serves every buffer of the same alignment.

use rocm_core::DType;
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::Prepared;
use rocm_kernels::level1::plan::{Problem, ScalarArg, Vector};
use rocm_kernels::level1::L1Op;
use rocm_kernels::plan::Plan;
use std::sync::{Arc, Mutex};

/// Plans kept per handle; a workload alternating more shapes than this replans.
const ENTRIES: usize = 16;

/// Reals a Level 1 call passes at most (rotm's h11, h21, h12, h22).
const MAX_SCALARS: usize = 4;

/// Alignment classes up to this many bits of an address are told apart; every
/// alignment rule of the Level 1 plans (vector widths) is a power of two below it.
const ALIGN_BITS: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct VectorKey {
    inc: i64,
    dtype: DType,
    align_bits: u32,
}

impl VectorKey {
    fn of(v: &Vector) -> Self {
        VectorKey {
            inc: v.inc,
            dtype: v.dtype,
            align_bits: v.address.trailing_zeros().min(ALIGN_BITS),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    op: L1Op,
    dtype: DType,
    n: u64,
    x: VectorKey,
    y: Option<VectorKey>,
    /// The scalars' bits (f32 widened bit-exactly into the low half), with the count.
    scalars: [u64; MAX_SCALARS],
    scalar_count: usize,
    /// The catalog in force (catalogs are `'static` and never freed, so an address
    /// names one for the process's life).
    catalog: usize,
}

impl Key {
    /// The key of `p`, or `None` for a problem the cache does not hold (more scalars
    /// than any op takes: planning reports that error).
    fn of(p: &Problem<'_>, catalog: &'static Catalog) -> Option<Self> {
        if p.scalars.len() > MAX_SCALARS {
            return None;
        }
        let mut scalars = [0u64; MAX_SCALARS];
        for (k, s) in scalars.iter_mut().zip(p.scalars) {
            *k = match s {
                ScalarArg::F32(v) => u64::from(v.to_bits()) | 1 << 63,
                ScalarArg::F64(v) => v.to_bits(),
            };
        }
        Some(Key {
            op: p.op,
            dtype: p.dtype,
            n: p.n,
            x: VectorKey::of(&p.x),
            y: p.y.as_ref().map(VectorKey::of),
            scalars,
            scalar_count: p.scalars.len(),
            catalog: catalog as *const Catalog as usize,
        })
    }
}

/// A plan and, where the executor can bind it once, the plan prepared for the handle's
/// device (a repeated call then only checks and writes its views' addresses).
#[derive(Debug, Default)]
pub(crate) struct CachedPlan {
    pub plan: Plan,
    pub prepared: Option<Prepared>,
}

/// A cached plan under its key.
type Entry = (Key, Arc<CachedPlan>);

/// The most recently used plans first.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanCache(Arc<Mutex<Vec<Entry>>>);

impl PlanCache {
    /// The plan of `p`: the cached one, or `make`'s (cached when it succeeds).
    pub(crate) fn get_or_plan<E>(
        &self,
        p: &Problem<'_>,
        catalog: &'static Catalog,
        make: impl FnOnce() -> Result<CachedPlan, E>,
    ) -> Result<Arc<CachedPlan>, E> {
        let Some(key) = Key::of(p, catalog) else {
            return make().map(Arc::new);
        };
        {
            let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
                // Move to the front so the next lookup of a hot shape is one compare.
                entries[..=i].rotate_right(1);
                return Ok(entries[0].1.clone());
            }
        }
        let plan = Arc::new(make()?);
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() == ENTRIES {
            entries.pop();
        }
        entries.insert(0, (key, plan.clone()));
        Ok(plan)
    }

    /// Plans held (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn problem<'a>(n: u64, x_address: u64, scalars: &'a [ScalarArg]) -> Problem<'a> {
        let vector = |name, slot, address| Vector {
            name,
            slot,
            address,
            inc: 1,
            dtype: DType::F32,
        };
        Problem {
            op: L1Op::Copy,
            dtype: DType::F32,
            n,
            x: vector("x", 0, x_address),
            y: Some(vector("y", 1, 4096)),
            scalars,
        }
    }

    /// Plans made for each lookup: a hit must not plan, a miss must.
    #[test]
    fn a_plan_is_reused_only_for_an_identical_key() {
        let cache = PlanCache::default();
        let catalog: &'static Catalog = Box::leak(Box::new(Catalog::default()));
        let made = Cell::new(0);
        let look = |p: &Problem<'_>| {
            cache
                .get_or_plan(p, catalog, || {
                    made.set(made.get() + 1);
                    Ok::<_, ()>(CachedPlan::default())
                })
                .unwrap();
            made.get()
        };
        assert_eq!(look(&problem(4096, 1 << 12, &[])), 1);
        // Another buffer of the same alignment class: the same plan.
        assert_eq!(look(&problem(4096, 3 << 12, &[])), 1);
        // A different alignment (4 bytes): another plan.
        assert_eq!(look(&problem(4096, (1 << 12) + 4, &[])), 2);
        // Another n, another scalar: other plans.
        assert_eq!(look(&problem(4097, 1 << 12, &[])), 3);
        assert_eq!(look(&problem(4096, 1 << 12, &[ScalarArg::F32(0.5)])), 4);
        assert_eq!(look(&problem(4096, 1 << 12, &[ScalarArg::F32(0.25)])), 5);
        // An f32 and an f64 of related bits stay apart.
        assert_eq!(look(&problem(4096, 1 << 12, &[ScalarArg::F64(0.5)])), 6);
        assert_eq!(look(&problem(4096, 1 << 12, &[ScalarArg::F32(0.5)])), 6);
        assert_eq!(cache.len(), 6);
        // Failed planning caches nothing.
        let err = cache.get_or_plan(&problem(7, 0, &[]), catalog, || Err::<CachedPlan, _>("no"));
        assert_eq!(err.unwrap_err(), "no");
        assert_eq!(cache.len(), 6);
        // The cache is bounded.
        for n in 0..(2 * ENTRIES as u64) {
            look(&problem(10_000 + n, 1 << 12, &[]));
        }
        assert_eq!(cache.len(), ENTRIES);
    }
}
