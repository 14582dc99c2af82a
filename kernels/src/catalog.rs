//! Tuning catalogs: which `Params` to use for a problem on a target.
//!
//! A catalog is a data file (`catalogs/<target>.json`, compiled in; or the file named by
//! `ROCM_KERNELS_CATALOG`, which replaces it) listing entries of (generator, key, size,
//! params). Selection is exact match on (generator, key, size), then the entry with the
//! same generator and key whose size is nearest in log scale, then the generator's
//! fallback, which always exists. Entries may also record the problem's `shape` (GEMM's
//! m, n, k): [`Catalog::select_shape`] then measures the distance per dimension, so a
//! 64×8192×8192 problem and an 8192×8192×64 one (same size) can take different entries.

use rocm_core::{Error, Result, Target};
use serde::de::DeserializeOwned;
use std::sync::{OnceLock, RwLock};

/// A catalog installed at run time ([`Catalog::install`]), ahead of every other.
static INSTALLED: RwLock<Option<&'static Catalog>> = RwLock::new(None);

/// One tuned choice.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
pub struct Entry {
    /// Generator name ([`crate::generator::Generator::NAME`]).
    pub generator: String,
    /// Problem class within the generator (e.g. `axpby/f32/contiguous`).
    pub key: String,
    /// Problem size the entry was tuned at.
    pub size: u64,
    /// The problem's dimensions, where the generator's selection looks at them (the
    /// product is `size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<u64>>,
    /// The generator's parameters.
    pub params: serde_json::Value,
}

/// A parsed catalog.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
pub struct Catalog {
    /// Where the entries came from (tuning run, device, date) or "static model".
    pub source: String,
    pub entries: Vec<Entry>,
}

/// Catalog files compiled into the library, by target name.
const BUILT_IN: &[(&str, &str)] = &[
    ("sm_90", include_str!("../catalogs/sm_90.json")),
    ("sm_90a", include_str!("../catalogs/sm_90.json")),
    ("gfx908", include_str!("../catalogs/gfx908.json")),
    ("gfx90a", include_str!("../catalogs/gfx90a.json")),
    ("gfx942", include_str!("../catalogs/gfx942.json")),
    ("gfx1100", include_str!("../catalogs/gfx1100.json")),
    ("gfx1101", include_str!("../catalogs/gfx1101.json")),
    ("gfx1102", include_str!("../catalogs/gfx1102.json")),
    ("gfx1151", include_str!("../catalogs/gfx1151.json")),
];

impl Catalog {
    pub fn parse(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::invalid("catalog", e))
    }

    /// Puts `catalog` in force for every target of this process, ahead of the override
    /// file and the built-in catalogs, until the next `install` or [`Catalog::uninstall`].
    /// For tuners, which time one candidate after another in one process: each call
    /// keeps its catalog alive for the rest of the process (selection hands out
    /// `&'static` references), so install a handful of small catalogs, not millions.
    pub fn install(catalog: Catalog) {
        let leaked: &'static Catalog = Box::leak(Box::new(catalog));
        *INSTALLED.write().unwrap_or_else(|p| p.into_inner()) = Some(leaked);
    }

    /// Takes the installed catalog out of force (the override file or built-in catalogs
    /// apply again).
    pub fn uninstall() {
        *INSTALLED.write().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The catalog in force for `target`: an installed one ([`Catalog::install`]), else
    /// the override file if set, else the built-in one, else an empty catalog (every
    /// lookup then takes the fallback).
    pub fn for_target(target: &Target) -> &'static Catalog {
        if let Some(c) = *INSTALLED.read().unwrap_or_else(|p| p.into_inner()) {
            return c;
        }
        static OVERRIDE: OnceLock<Option<Catalog>> = OnceLock::new();
        static BUILT: OnceLock<Vec<(String, Catalog)>> = OnceLock::new();
        static EMPTY: OnceLock<Catalog> = OnceLock::new();
        let over = OVERRIDE.get_or_init(|| {
            let path = std::env::var("ROCM_KERNELS_CATALOG").ok()?;
            match std::fs::read_to_string(&path)
                .map_err(|e| Error::io(path.clone(), e))
                .and_then(|t| Catalog::parse(&t))
            {
                Ok(c) => Some(c),
                Err(e) => {
                    eprintln!("rocm-kernels: ignoring ROCM_KERNELS_CATALOG: {e}");
                    None
                }
            }
        });
        if let Some(c) = over {
            return c;
        }
        let built = BUILT.get_or_init(|| {
            BUILT_IN
                .iter()
                .filter_map(|(name, text)| Catalog::parse(text).ok().map(|c| (name.to_string(), c)))
                .collect()
        });
        let name = target.arch().name();
        built
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
            .unwrap_or_else(|| EMPTY.get_or_init(Catalog::default))
    }

    /// Exact, then nearest (log-scale size), then `fallback`.
    pub fn select<P: DeserializeOwned>(
        &self,
        generator: &str,
        key: &str,
        size: u64,
        fallback: P,
    ) -> P {
        self.select_shape(generator, key, &[size], fallback)
    }

    /// As [`Catalog::select`] for a problem of dimensions `dims` (size = their product):
    /// an entry with a `shape` of as many dimensions is at distance Σ|ln eᵢ − ln dᵢ|, any
    /// other at |ln size_e − ln size| (never more than the former, so shapes only
    /// separate entries that sizes alone would tie or misorder).
    pub fn select_shape<P: DeserializeOwned>(
        &self,
        generator: &str,
        key: &str,
        dims: &[u64],
        fallback: P,
    ) -> P {
        let ln = |v: u64| (v.max(1) as f64).ln();
        let size: f64 = dims.iter().map(|&d| ln(d)).sum();
        let distance = |e: &Entry| match &e.shape {
            Some(shape) if shape.len() == dims.len() && dims.len() > 1 => shape
                .iter()
                .zip(dims)
                .map(|(&a, &b)| (ln(a) - ln(b)).abs())
                .sum(),
            _ => (ln(e.size) - size).abs(),
        };
        let best = self
            .entries
            .iter()
            .filter(|e| e.generator == generator && e.key == key)
            .min_by(|a, b| distance(a).total_cmp(&distance(b)));
        // Deserialised from the entry in place: cloning the JSON value first cost about
        // as much again on every selection (a launch's host path).
        best.and_then(|e| P::deserialize(&e.params).ok())
            .unwrap_or(fallback)
    }
}

/// What the fuzzers (`fuzz/`, and the bounded loops in CI) check on any bytes: parsing
/// returns `Ok` or an `Error`; selecting from what parsed, at every entry's own size and
/// shape and at the extremes, as raw JSON and as the GEMM and GEMV parameter types, never
/// panics; a parsed catalog writes and reads back to the same entries.
#[doc(hidden)]
pub fn fuzz_input(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(c) = Catalog::parse(text) else {
        return;
    };
    for e in &c.entries {
        let shape = e.shape.clone().unwrap_or_else(|| vec![e.size]);
        for dims in [&shape[..], &[0], &[u64::MAX, u64::MAX, u64::MAX]] {
            let _ = c.select_shape(&e.generator, &e.key, dims, serde_json::Value::Null);
            let _: Option<crate::gemm::GemmParams> =
                c.select_shape(&e.generator, &e.key, dims, None);
            let _: Option<crate::level2::gemv::GemvParams> =
                c.select_shape(&e.generator, &e.key, dims, None);
        }
    }
    let back = serde_json::to_string(&c).expect("a parsed catalog serialises");
    let again = Catalog::parse(&back).expect("a written catalog parses");
    assert_eq!(again.entries.len(), c.entries.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_then_nearest_then_fallback() {
        let c = Catalog::parse(
            r#"{"source": "test", "entries": [
                {"generator": "g", "key": "k", "size": 1000, "params": 1},
                {"generator": "g", "key": "k", "size": 1000000, "params": 2},
                {"generator": "g", "key": "other", "size": 10, "params": 3}
            ]}"#,
        )
        .unwrap();
        assert_eq!(c.select("g", "k", 1000, 0u32), 1);
        assert_eq!(c.select("g", "k", 2000, 0u32), 1);
        assert_eq!(c.select("g", "k", 500000, 0u32), 2);
        assert_eq!(c.select("g", "missing", 10, 7u32), 7);
        assert_eq!(c.select("h", "k", 10, 9u32), 9);
        assert!(Catalog::parse("{").is_err());
    }

    #[test]
    fn shapes_separate_problems_of_one_size() {
        let c = Catalog::parse(
            r#"{"source": "test", "entries": [
                {"generator": "g", "key": "k", "size": 549755813888, "params": 1},
                {"generator": "g", "key": "k", "size": 4294967296, "shape": [8192, 8192, 64], "params": 2},
                {"generator": "g", "key": "k", "size": 4294967296, "shape": [64, 8192, 8192], "params": 3}
            ]}"#,
        )
        .unwrap();
        assert_eq!(c.select_shape("g", "k", &[8192, 8192, 64], 0u32), 2);
        assert_eq!(c.select_shape("g", "k", &[64, 8192, 8192], 0u32), 3);
        assert_eq!(c.select_shape("g", "k", &[8192, 8192, 8192], 0u32), 1);
        assert_eq!(c.select_shape("g", "k", &[8192, 8192, 96], 0u32), 2);
        // 4097³ is nearer the 8192³ entry (by size) than either shaped one.
        assert_eq!(c.select_shape("g", "k", &[4097, 4097, 4097], 0u32), 1);
        // Plain size selection ignores shapes.
        assert_eq!(c.select("g", "k", 4294967296, 0u32), 2);
    }

    #[test]
    fn built_in_catalogs_parse() {
        for (name, text) in BUILT_IN {
            Catalog::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
