//! The generator framework.
//!
//! A generator is a pure function `(Params, Target) -> Program`: `Params` is a typed,
//! serialisable description of one kernel variant (Tensile's "solution" idea: dtype,
//! vector width, work per thread, workgroup size...), and the [`Program`] is PTX text or
//! an AMDGPU code object plus the rule that turns a problem size into launch geometry.
//! [`load`] generates and loads a program once per process, keyed by (generator name,
//! generator version, params, target, device).

use crate::signature::Signature;
use rocm_core::{Device, LaunchConfig, Module, ModuleImage, Result, Target};
use serde::{de::DeserializeOwned, Serialize};
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::LocalKey;

/// How a problem of `n` work units maps to a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LaunchRule {
    /// `block` work-items per workgroup, each covering `units_per_item` units; as many
    /// workgroups as needed.
    Cover { block: u32, units_per_item: u32 },
    /// A fixed grid (e.g. a reduction's first pass), capped by the units available.
    Fixed { grid: u32, block: u32 },
}

impl LaunchRule {
    /// The launch for `n` units (at least one workgroup).
    pub fn config(&self, n: u64) -> LaunchConfig {
        match *self {
            LaunchRule::Cover {
                block,
                units_per_item,
            } => {
                let per_block = block as u64 * units_per_item as u64;
                let grid = n.div_ceil(per_block).clamp(1, i32::MAX as u64) as u32;
                LaunchConfig::linear(grid, block)
            }
            LaunchRule::Fixed { grid, block } => LaunchConfig::linear(grid.max(1), block),
        }
    }
}

/// A generated program.
#[derive(Debug, Clone)]
pub struct Program {
    pub image: ModuleImage,
    /// Kernel names in the module, in the order the generator documents.
    pub kernels: Vec<String>,
    /// The declared signature of each kernel ([`crate::signature`]), where the generator
    /// declares them (every generator whose host runs through [`crate::exec`]); the
    /// executor launches only declared kernels.
    pub signatures: Vec<Signature>,
    pub launch: LaunchRule,
}

impl Program {
    /// A program of kernels named `kernels` whose signatures are not declared yet.
    pub fn undeclared(image: ModuleImage, kernels: Vec<String>, launch: LaunchRule) -> Self {
        Program {
            image,
            kernels,
            signatures: Vec::new(),
            launch,
        }
    }

    /// A program of the declared kernels `signatures`.
    pub fn declared(image: ModuleImage, signatures: Vec<Signature>, launch: LaunchRule) -> Self {
        Program {
            image,
            kernels: signatures.iter().map(|s| s.kernel.clone()).collect(),
            signatures,
            launch,
        }
    }
}

/// A kernel generator.
pub trait Generator: 'static {
    /// What varies between variants.
    type Params: Serialize + DeserializeOwned + Clone + Debug + PartialEq + 'static;
    /// Stable name (catalogs and caches refer to it).
    const NAME: &'static str;
    /// Bump when the generated code changes, so caches do not serve stale programs.
    const VERSION: u32;
    /// Generates the program for `target`.
    fn generate(params: &Self::Params, target: &Target) -> Result<Program>;

    /// The signatures of the kernels `generate` emits for `params` on `target` (an error
    /// where it emits none). Generators answer without generating; the default generates.
    fn signatures(params: &Self::Params, target: &Target) -> Result<Vec<Signature>> {
        generated_signatures::<Self>(params, target)
    }
}

/// One answer a thread computed for `G`'s params on a device or target, found again by
/// comparing params (no key to build: the process-wide cache's key is a JSON rendering of
/// the params, which cost about as much as the rest of a small BLAS call's host path).
struct Recent<K, V> {
    generator: TypeId,
    at: K,
    params: Box<dyn Any>,
    value: V,
}

/// How many answers each per-thread list keeps (a BLAS call uses one to three programs).
const RECENT_LEN: usize = 16;

type RecentList<K, V> = LocalKey<RefCell<Vec<Recent<K, V>>>>;

/// `list`'s answer for `G`'s `params` at `at`, or `make`'s, kept as the newest of the
/// [`RECENT_LEN`] answers this thread holds.
fn recent_or<G, K, V>(
    list: &'static RecentList<K, V>,
    at: &K,
    params: &G::Params,
    make: impl FnOnce() -> Result<V>,
) -> Result<V>
where
    G: Generator + ?Sized,
    K: PartialEq + Clone + 'static,
    V: Clone + 'static,
{
    let hit = list.with_borrow(|recent| {
        recent
            .iter()
            .find(|r| {
                r.generator == TypeId::of::<G>()
                    && r.at == *at
                    && r.params.downcast_ref::<G::Params>() == Some(params)
            })
            .map(|r| r.value.clone())
    });
    if let Some(v) = hit {
        return Ok(v);
    }
    let value = make()?;
    list.with_borrow_mut(|recent| {
        recent.insert(
            0,
            Recent {
                generator: TypeId::of::<G>(),
                at: at.clone(),
                params: Box::new(params.clone()),
                value: value.clone(),
            },
        );
        recent.truncate(RECENT_LEN);
    });
    Ok(value)
}

thread_local! {
    /// Signatures the default [`Generator::signatures`] generated (plans ask on every call).
    static RECENT_SIGNATURES: RefCell<Vec<Recent<Target, Vec<Signature>>>> =
        const { RefCell::new(Vec::new()) };
    /// Programs [`load`] loaded.
    static RECENT_LOADED: RefCell<Vec<Recent<Device, Loaded>>> = const { RefCell::new(Vec::new()) };
}

/// `G`'s signatures for `params` on `target` from the program it generates, generated
/// once per thread for the [`RECENT_LEN`] most recent params.
fn generated_signatures<G: Generator + ?Sized>(
    params: &G::Params,
    target: &Target,
) -> Result<Vec<Signature>> {
    recent_or::<G, _, _>(&RECENT_SIGNATURES, target, params, || {
        Ok(G::generate(params, target)?.signatures)
    })
}

/// The `.param` declarations of the PTX that `G` generates for `p` on sm_90, in order,
/// as `"<type> <name>"` (every kernel of the module; the parameter-order tests compare
/// them with the documented kernel signatures).
#[cfg(test)]
pub(crate) fn declared_params<G: Generator>(p: &G::Params) -> Vec<String> {
    let target: Target = "sm_90".parse().expect("a known target");
    let rocm_core::ModuleImage::Ptx(text) = G::generate(p, &target).expect("generates").image
    else {
        panic!("{} on sm_90 is not PTX", G::NAME)
    };
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(".param ."))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// A program loaded on a device.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub program: Arc<Program>,
    pub module: Module,
}

/// Generates (if needed) and loads `G`'s program for `params` on `device`, once per
/// process.
pub fn load<G: Generator>(device: &Device, params: &G::Params) -> Result<Loaded> {
    recent_or::<G, _, _>(&RECENT_LOADED, device, params, || {
        load_shared::<G>(device, params)
    })
}

/// [`load`] through the process-wide cache.
fn load_shared<G: Generator>(device: &Device, params: &G::Params) -> Result<Loaded> {
    static CACHE: OnceLock<Mutex<HashMap<String, Loaded>>> = OnceLock::new();
    let key = format!(
        "{}@{}|{}|{}|{}",
        G::NAME,
        G::VERSION,
        serde_json::to_string(params).unwrap_or_default(),
        device.target(),
        device.id()
    );
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(l) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(l.clone());
    }
    let program = Arc::new(G::generate(params, device.target())?);
    let module = device.load_module(&program.image)?;
    let loaded = Loaded { program, module };
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, loaded.clone());
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-thread cache answers only for the same generator, params and device:
    /// equal params give the very program loaded first, different params or devices
    /// their own, also after the per-thread list has overflowed.
    #[test]
    fn thread_cache_keys_on_params_and_device() {
        use crate::level1::{L1Op, Level1, Level1Params};
        use rocm_core::DType;
        let a = Device::open("emu:gfx90a").unwrap();
        let b = Device::open("emu:gfx1100").unwrap();
        let p = Level1Params::fallback(L1Op::Copy, DType::F32, true);
        let mut q = p.clone();
        q.block = 128;
        let first = load::<Level1>(&a, &p).unwrap();
        let again = load::<Level1>(&a, &p).unwrap();
        assert!(Arc::ptr_eq(&first.program, &again.program));
        let other_params = load::<Level1>(&a, &q).unwrap();
        assert!(!Arc::ptr_eq(&first.program, &other_params.program));
        let other_device = load::<Level1>(&b, &p).unwrap();
        assert!(!Arc::ptr_eq(&first.program, &other_device.program));
        assert_eq!(other_device.module.device().id(), "emu:gfx1100");
        // Push p out of the per-thread list; the process-wide cache still has it.
        for grid in 1..=RECENT_LEN as u32 + 1 {
            let mut r = p.clone();
            r.grid = grid + 1000;
            load::<Level1>(&a, &r).unwrap();
        }
        let back = load::<Level1>(&a, &p).unwrap();
        assert!(Arc::ptr_eq(&first.program, &back.program));
    }

    #[test]
    fn cover_rounds_up_and_never_launches_zero_blocks() {
        let r = LaunchRule::Cover {
            block: 256,
            units_per_item: 4,
        };
        assert_eq!(r.config(0).grid, [1, 1, 1]);
        assert_eq!(r.config(1024).grid[0], 1);
        assert_eq!(r.config(1025).grid[0], 2);
        assert_eq!(
            LaunchRule::Fixed { grid: 0, block: 64 }.config(9).grid[0],
            1
        );
    }
}
