//! Tuning catalogs: which `Params` to use for a problem on a target.
//!
//! A catalog is a data file (`catalogs/<target>.json`, compiled in; or the file named by
//! `ROCM_KERNELS_CATALOG`, which replaces it) listing entries of (generator, key, size,
//! params). Selection is exact match on (generator, key, size), then the entry with the
//! same generator and key whose size is nearest in log scale, then the generator's
//! fallback, which always exists.

use rocm_core::{Error, Result, Target};
use serde::de::DeserializeOwned;
use std::sync::OnceLock;

/// One tuned choice.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
pub struct Entry {
    /// Generator name ([`crate::generator::Generator::NAME`]).
    pub generator: String,
    /// Problem class within the generator (e.g. `axpby/f32/contiguous`).
    pub key: String,
    /// Problem size the entry was tuned at.
    pub size: u64,
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

    /// The catalog in force for `target`: the override file if set, else the built-in
    /// one, else an empty catalog (every lookup then takes the fallback).
    pub fn for_target(target: &Target) -> &'static Catalog {
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
        let candidates = self
            .entries
            .iter()
            .filter(|e| e.generator == generator && e.key == key);
        let distance = |e: &Entry| ((e.size.max(1) as f64).ln() - (size.max(1) as f64).ln()).abs();
        let best = candidates.min_by(|a, b| distance(a).total_cmp(&distance(b)));
        best.and_then(|e| serde_json::from_value(e.params.clone()).ok())
            .unwrap_or(fallback)
    }
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
    fn built_in_catalogs_parse() {
        for (name, text) in BUILT_IN {
            Catalog::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
