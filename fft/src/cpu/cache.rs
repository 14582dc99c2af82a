//! A process-wide cache of plan tables (twiddles, convolution kernels), shared between
//! plans through `Arc`s, so a second plan of the same length, precision and direction
//! costs a hash lookup instead of its tables.
//!
//! Entries are keyed by the table's kind, its element type and the integers that fix
//! its contents; they stay while the cache holds less than [`BUDGET`] bytes, the least
//! recently used going first beyond that (plans keep their own `Arc`s, so eviction
//! never frees a table in use). Tables are built outside the lock: two threads that
//! miss on the same key at once both build it and the first one stored is kept.

use rocm_core::{host_alloc, Result};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex, OnceLock};

/// Bytes of tables the cache keeps (plans in use may hold more).
pub const BUDGET: usize = 256 << 20;

/// What identifies a table: its kind, element type and parameters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub kind: &'static str,
    pub ty: TypeId,
    pub params: Vec<usize>,
}

impl Key {
    /// The key of a table of kind `kind` with elements of type `T`.
    pub fn new<T: 'static>(kind: &'static str, params: Vec<usize>) -> Self {
        Key {
            kind,
            ty: TypeId::of::<T>(),
            params,
        }
    }
}

struct Entry {
    value: Arc<dyn Any + Send + Sync>,
    bytes: usize,
    used: u64,
}

#[derive(Default)]
struct Cache {
    map: HashMap<Key, Entry>,
    bytes: usize,
    clock: u64,
}

impl Cache {
    /// The table stored under `key`, marked as used now (advances the clock).
    fn touch<V: Any + Send + Sync>(&mut self, key: &Key) -> Option<Arc<V>> {
        self.clock += 1;
        let now = self.clock;
        let e = self.map.get_mut(key)?;
        e.used = now;
        e.value.clone().downcast::<V>().ok()
    }
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The table for `key`: the cached one, or `make()`'s (of `bytes(&value)` bytes),
/// stored for the next caller. An error of `make` (a table that cannot be held) is
/// returned and nothing is stored.
pub fn get_or_make<V: Any + Send + Sync>(
    key: Key,
    bytes: impl FnOnce(&V) -> usize,
    make: impl FnOnce() -> Result<V>,
) -> Result<Arc<V>> {
    if let Some(v) = cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .touch::<V>(&key)
    {
        return Ok(v);
    }
    let value = Arc::new(make()?);
    let size = bytes(&value);
    if size > BUDGET {
        return Ok(value);
    }
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    // Another thread may have stored it meanwhile: share that one.
    if let Some(v) = c.touch::<V>(&key) {
        return Ok(v);
    }
    let now = c.clock;
    while c.bytes + size > BUDGET {
        let Some(oldest) = c
            .map
            .iter()
            .min_by_key(|(_, e)| e.used)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        if let Some(e) = c.map.remove(&oldest) {
            c.bytes -= e.bytes;
        }
    }
    c.bytes += size;
    c.map.insert(
        key,
        Entry {
            value: value.clone(),
            bytes: size,
            used: now,
        },
    );
    Ok(value)
}

/// A table built on first use instead of at plan creation: the convolution kernels of
/// Rader and Bluestein steps are a whole forward transform of the padded length in f64
/// (Bluestein 999983: 2^21 points, ~70 ms on one core), which no plan could build
/// within its creation budget. The first execution that needs it builds it, once per
/// process for every plan sharing it through the cache; concurrent executions wait for
/// the one building it. (rocFFT, for comparison, transforms its chirp on every
/// execution.) Building can fail (a table that cannot be held): executions build it
/// through [`Self::try_get`] before they run, so the error reaches their caller; a
/// failed build leaves nothing behind and the next execution tries again.
pub struct Deferred<V, P> {
    params: P,
    build: fn(&P) -> Result<V>,
    cell: OnceLock<V>,
    /// Held while building, so concurrent executions wait for one build.
    building: Mutex<()>,
}

impl<V, P> Deferred<V, P> {
    pub fn new(params: P, build: fn(&P) -> Result<V>) -> Self {
        Deferred {
            params,
            build,
            cell: OnceLock::new(),
            building: Mutex::new(()),
        }
    }

    /// The table, built now if no execution has built it yet.
    pub fn try_get(&self) -> Result<&V> {
        if let Some(v) = self.cell.get() {
            return Ok(v);
        }
        let _guard = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = self.cell.get() {
            return Ok(v);
        }
        let v = (self.build)(&self.params)?;
        Ok(self.cell.get_or_init(|| v))
    }

    /// The table, which [`Self::try_get`] has built (every execution path of
    /// [`super::CpuPlan`] calls it first). A direct caller of the executor that skipped
    /// it gets the table built here, and an unholdable one aborts as a failed `Vec`
    /// allocation does.
    pub fn get(&self) -> &V {
        match self.try_get() {
            Ok(v) => v,
            Err(e) => {
                eprintln!("rocm-fft: deferred plan table: {e}");
                std::process::abort()
            }
        }
    }

    /// Whether the table has been built.
    pub fn is_built(&self) -> bool {
        self.cell.get().is_some()
    }
}

impl<V, P: std::fmt::Debug> std::fmt::Debug for Deferred<V, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deferred")
            .field("params", &self.params)
            .field("built", &self.is_built())
            .finish()
    }
}

/// Tables of at least this many bytes are aligned to, and ask for, transparent huge
/// pages.
const HUGE_TABLE_MIN: usize = 1 << 20;
/// The huge page size on x86-64 and most aarch64 kernels.
const HUGE: usize = 2 << 20;

/// A plan table: `len` values, for large ones in memory that starts and ends on a
/// 2 MiB boundary and that the kernel is asked (on Linux) to back with transparent
/// huge pages (`madvise(MADV_HUGEPAGE)`, honoured where THP is `always` or
/// `madvise`). Filling a fresh table costs a page fault per 4 KiB otherwise, which
/// on a virtual machine is most of building it (the 2-vCPU EPYC: writing 8 MiB of
/// fresh memory takes 8.5 ms in 4 KiB pages, 0.25 ms in huge pages). The padding
/// around the values is never written, so it costs address space only. Setting
/// `ROCM_FFT_NO_THP` (any value) skips the advice (for comparisons).
pub struct Table<T> {
    buf: Vec<MaybeUninit<T>>,
    start: usize,
    len: usize,
}

impl<T: Copy> Table<T> {
    /// `len` copies of `value`, or an error naming `what` when the table cannot be
    /// held (its size overflows, or the allocator refuses).
    pub fn try_filled(what: &str, len: usize, value: T) -> Result<Self> {
        let size = std::mem::size_of::<T>().max(1);
        let bytes = host_alloc::elements(what, &[len, size])?;
        let big = bytes >= HUGE_TABLE_MIN && HUGE % size == 0;
        let pad = if big { HUGE / size } else { 0 };
        let total = len.checked_add(2 * pad).ok_or_else(|| {
            rocm_core::Error::invalid(what, format!("{len} values overflow the address space"))
        })?;
        let mut buf: Vec<MaybeUninit<T>> = host_alloc::try_with_capacity(what, total)?;
        // SAFETY: `MaybeUninit` values need no initialisation, and the capacity is
        // at least this length.
        unsafe { buf.set_len(total) };
        let mut start = 0;
        if big {
            let at = buf.as_ptr() as usize;
            let gap = at.next_multiple_of(HUGE) - at;
            if gap % size == 0 {
                start = gap / size;
            }
            #[cfg(target_os = "linux")]
            {
                let lo = (at + start * size).next_multiple_of(HUGE);
                let hi = (at + (start + len) * size).next_multiple_of(HUGE);
                let end = at + buf.len() * size;
                let hi = if hi <= end { hi } else { end & !(HUGE - 1) };
                if hi > lo && std::env::var_os("ROCM_FFT_NO_THP").is_none() {
                    // SAFETY: [lo, hi) is a page-aligned range inside `buf`'s
                    // allocation; MADV_HUGEPAGE only changes how the kernel backs those
                    // pages, never their contents or validity. Failure is harmless (the
                    // advice is ignored), so the result is not checked.
                    unsafe {
                        libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
                    }
                }
            }
        }
        for v in &mut buf[start..start + len] {
            v.write(value);
        }
        Ok(Table { buf, start, len })
    }
}

impl<T> std::ops::Deref for Table<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        let vals = &self.buf[self.start..self.start + self.len];
        // SAFETY: `filled` initialised exactly these values, and `MaybeUninit<T>` has
        // `T`'s layout.
        unsafe { &*(vals as *const [MaybeUninit<T>] as *const [T]) }
    }
}

impl<T> std::ops::DerefMut for Table<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        let vals = &mut self.buf[self.start..self.start + self.len];
        // SAFETY: as in `deref`.
        unsafe { &mut *(vals as *mut [MaybeUninit<T>] as *mut [T]) }
    }
}

impl<T: Copy> Clone for Table<T> {
    fn clone(&self) -> Self {
        // A copy that cannot be held aborts, as cloning a `Vec` does.
        let mut t = match self.first() {
            Some(&v) => Table::try_filled("table copy", self.len, v)
                .unwrap_or_else(|_| std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>())),
            None => Table::default(),
        };
        t.copy_from_slice(self);
        t
    }
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            buf: Vec::new(),
            start: 0,
            len: 0,
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} values)", self.len)
    }
}

/// Bytes the cache holds now (for tests and reports).
pub fn held_bytes() -> usize {
    cache().lock().unwrap_or_else(|e| e.into_inner()).bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_builds_once_on_first_use() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        let d = Deferred::new(21usize, |&p| {
            BUILDS.fetch_add(1, Ordering::SeqCst);
            Ok(vec![p; 3])
        });
        assert!(!d.is_built());
        assert_eq!(BUILDS.load(Ordering::SeqCst), 0);
        // Four threads ask at once: one builds, every one sees its table.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(d.get(), &vec![21; 3]));
            }
        });
        assert!(d.is_built());
        assert_eq!(BUILDS.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn same_key_shares_and_other_keys_do_not() {
        let mut made = 0;
        let a = get_or_make(
            Key::new::<f32>("test-table", vec![1, 2]),
            |v: &Vec<u8>| v.len(),
            || {
                made += 1;
                Ok(vec![7u8; 10])
            },
        )
        .unwrap();
        let b = get_or_make(
            Key::new::<f32>("test-table", vec![1, 2]),
            |v: &Vec<u8>| v.len(),
            || {
                made += 1;
                Ok(vec![8u8; 10])
            },
        )
        .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(made, 1);
        // Another element type or other parameters: another table.
        let c = get_or_make(
            Key::new::<f64>("test-table", vec![1, 2]),
            |v: &Vec<u8>| v.len(),
            || Ok(vec![9u8; 10]),
        )
        .unwrap();
        let d = get_or_make(
            Key::new::<f32>("test-table", vec![1, 3]),
            |v: &Vec<u8>| v.len(),
            || Ok(vec![10u8; 10]),
        )
        .unwrap();
        assert_eq!((a[0], c[0], d[0]), (7, 9, 10));
        assert!(held_bytes() >= 30);
    }

    #[test]
    fn tables_of_every_size() {
        for len in [0usize, 1, 1000, HUGE_TABLE_MIN / 8 + 3, 5 * HUGE / 8 + 1] {
            let mut t = Table::try_filled("test", len, 1u64).unwrap();
            assert_eq!(t.len(), len);
            assert!(t.iter().all(|&x| x == 1));
            for (i, x) in t.iter_mut().enumerate() {
                *x = i as u64;
            }
            let c = t.clone();
            assert!(c.iter().enumerate().all(|(i, &x)| x == i as u64));
            if len * 8 >= HUGE_TABLE_MIN {
                // Large tables start on a huge page boundary.
                assert_eq!(t.as_ptr() as usize % HUGE, 0);
            }
        }
    }

    #[test]
    fn oversized_tables_are_not_kept() {
        let key = Key::new::<u8>("test-oversized", vec![]);
        let a = get_or_make(key.clone(), |_: &u8| BUDGET + 1, || Ok(1u8)).unwrap();
        let b = get_or_make(key, |_: &u8| BUDGET + 1, || Ok(2u8)).unwrap();
        assert_eq!((*a, *b), (1, 2));
    }

    /// A table whose size overflows, or that no allocator grants, is an error; a
    /// failed make stores nothing (the next call makes it again), and a failed
    /// deferred build is retried by the next execution.
    #[test]
    fn unholdable_tables_are_errors() {
        let e = Table::try_filled("twiddles", usize::MAX / 4, 0u64).unwrap_err();
        assert!(e.to_string().contains("twiddles"), "{e}");
        // 2^57 u64 = 2^60 bytes fits a usize but no allocator grants it.
        let e = Table::try_filled("twiddles", 1usize << 57, 0u64).unwrap_err();
        assert!(matches!(e, rocm_core::Error::OutOfMemory { .. }), "{e}");
        let key = Key::new::<u16>("test-failing", vec![]);
        let failed = get_or_make(
            key.clone(),
            |_: &u8| 1,
            || Err(rocm_core::Error::invalid("what", "why")),
        );
        assert!(failed.is_err());
        let later = get_or_make(key, |_: &u8| 1, || Ok(5u8)).unwrap();
        assert_eq!(*later, 5);
        use std::sync::atomic::{AtomicUsize, Ordering};
        static TRIES: AtomicUsize = AtomicUsize::new(0);
        let d = Deferred::new((), |_| {
            if TRIES.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(rocm_core::Error::invalid("kernel", "first build refused"))
            } else {
                Ok(3u8)
            }
        });
        assert!(d.try_get().is_err());
        assert!(!d.is_built());
        assert_eq!(*d.try_get().unwrap(), 3);
        assert_eq!(TRIES.load(Ordering::SeqCst), 2);
    }
}
