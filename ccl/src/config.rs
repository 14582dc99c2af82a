//! Settings of a communicator: timeout, ring and chunk sizes, algorithm thresholds.
//!
//! The defaults suit CPU ranks; every field can also be set from the environment with
//! [`Config::from_env`] (`ROCM_CCL_TIMEOUT_MS`, `ROCM_CCL_RING_BYTES`, `ROCM_CCL_CHUNK_BYTES`,
//! `ROCM_CCL_TREE_MAX_BYTES`, `ROCM_CCL_SHM=0` to force TCP between processes of one host,
//! `ROCM_CCL_DIRECT=0` to make threads and registered buffers use the rings,
//! `ROCM_CCL_SPIN_US`).

use rocm_core::{Error, Result};
use std::time::Duration;

/// Communicator settings (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// How long any blocking call (and the bootstrap) may wait; `None` waits forever.
    pub timeout: Option<Duration>,
    /// Bytes of each shared-memory ring (one per ordered pair of ranks).
    pub ring_bytes: usize,
    /// Pipelining unit of the ring and chain algorithms, in bytes.
    pub chunk_bytes: usize,
    /// Buffers up to this many bytes use the latency algorithms (recursive doubling,
    /// binomial trees, direct all-gather); larger ones the bandwidth algorithms (ring, chain).
    pub tree_max_bytes: usize,
    /// Most bytes pushed into one link before the engine turns to the next transfer.
    pub step_bytes: usize,
    /// Whether processes on one host use shared memory (else TCP over loopback).
    pub shared_memory: bool,
    /// Whether ranks that are threads of one process, or processes of one host whose
    /// buffers are registered ([`crate::Comm::alloc_shared`]), reduce straight out of
    /// each other's buffers (all_reduce); else they go through the rings. Processes must
    /// all pass the same value.
    pub direct: bool,
    /// How long a waiting rank spins before it yields the core; `None` chooses: 1 ms when
    /// the communicator has no more ranks than this machine has cores (a peer that is
    /// late is usually descheduled for a moment, and a rank that yields at once loses
    /// its core for a time slice: on the loaded 2-core machine 8-byte all_reduce took
    /// 2-5 µs with 1 ms of spinning, 20-25 µs with 5 µs, up to 140 µs in between), else
    /// 5 µs (oversubscribed ranks must give their core to the peer they wait for).
    pub spin: Option<Duration>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout: Some(Duration::from_secs(600)),
            ring_bytes: 1 << 20,
            chunk_bytes: 128 << 10,
            tree_max_bytes: 32 << 10,
            step_bytes: 64 << 10,
            shared_memory: true,
            direct: true,
            spin: None,
        }
    }
}

fn env_usize(name: &str) -> Result<Option<usize>> {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .map(Some)
            .map_err(|e| Error::invalid(name, format!("`{v}` is not a number: {e}"))),
        _ => Ok(None),
    }
}

impl Config {
    /// The spin time of a communicator of `nranks` ranks (see [`Config::spin`]).
    pub fn spin_for(&self, nranks: usize) -> Duration {
        self.spin.unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            if nranks <= cores {
                Duration::from_millis(1)
            } else {
                Duration::from_micros(5)
            }
        })
    }

    /// The defaults overridden by the `ROCM_CCL_*` environment variables.
    pub fn from_env() -> Result<Config> {
        let mut c = Config::default();
        if let Some(ms) = env_usize("ROCM_CCL_TIMEOUT_MS")? {
            c.timeout = (ms > 0).then(|| Duration::from_millis(ms as u64));
        }
        if let Some(v) = env_usize("ROCM_CCL_RING_BYTES")? {
            c.ring_bytes = v;
        }
        if let Some(v) = env_usize("ROCM_CCL_CHUNK_BYTES")? {
            c.chunk_bytes = v;
        }
        if let Some(v) = env_usize("ROCM_CCL_TREE_MAX_BYTES")? {
            c.tree_max_bytes = v;
        }
        if let Some(v) = env_usize("ROCM_CCL_SHM")? {
            c.shared_memory = v != 0;
        }
        if let Some(v) = env_usize("ROCM_CCL_DIRECT")? {
            c.direct = v != 0;
        }
        if let Some(us) = env_usize("ROCM_CCL_SPIN_US")? {
            c.spin = Some(Duration::from_micros(us as u64));
        }
        c.validate()?;
        Ok(c)
    }

    /// Checks that the sizes are usable.
    pub fn validate(&self) -> Result<()> {
        rocm_core::ensure_arg!(
            self.ring_bytes >= 4096 && self.ring_bytes % 4096 == 0 && self.ring_bytes <= 1 << 30,
            "ring_bytes",
            "must be a multiple of 4096 between 4 KiB and 1 GiB, got {}",
            self.ring_bytes
        );
        rocm_core::ensure_arg!(
            self.chunk_bytes >= 16,
            "chunk_bytes",
            "must be at least 16, got {}",
            self.chunk_bytes
        );
        rocm_core::ensure_arg!(
            self.step_bytes >= 64,
            "step_bytes",
            "must be at least 64, got {}",
            self.step_bytes
        );
        Ok(())
    }
}
