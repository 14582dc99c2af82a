//! Algorithm selection: find modes and the persistent find-db (MIOpen's FindDb).
//!
//! The db is a text file, one problem per line:
//! `<problem key>@<device target>@<library version>=<algo>:<µs>,<algo>:<µs>,...`
//! (fastest first). Readers skip and warn about lines they cannot parse, so a corrupt
//! entry costs a re-find, never a crash. Writers take `flock(2)` on `<db>.lock` (the
//! kernel drops it when the holder dies, so neither a crash nor a recycled process id
//! leaves the db locked), sweep what killed writers left, re-read the file, merge their
//! entry and replace the file by writing a temporary file in the same directory and
//! renaming it over the old one: a crash leaves either the old or the new file, and
//! concurrent processes never see a torn file or lose each other's entries.

use crate::conv::ConvAlgo;
use rocm_core::{Error, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How convolution algorithms are chosen when the caller does not name one
/// (`ROCM_DNN_FIND_MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindMode {
    /// Always benchmark every applicable algorithm (and record the result). `normal`, 1.
    Normal,
    /// Immediate mode: the find-db's best, else the heuristic; never benchmarks.
    /// `fast`, `immediate`, 2 (the default).
    Fast,
    /// The find-db's best, else benchmark and record. `hybrid`, 3.
    Hybrid,
}

impl FindMode {
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normal" | "1" => Ok(FindMode::Normal),
            "fast" | "immediate" | "2" => Ok(FindMode::Fast),
            "hybrid" | "3" => Ok(FindMode::Hybrid),
            other => Err(Error::invalid(
                "ROCM_DNN_FIND_MODE",
                format!("`{other}` is not normal (1), fast/immediate (2) or hybrid (3)"),
            )),
        }
    }

    /// The mode `ROCM_DNN_FIND_MODE` names, else `Fast`.
    pub fn from_env() -> Result<Self> {
        match std::env::var("ROCM_DNN_FIND_MODE") {
            Ok(s) if !s.is_empty() => Self::parse(&s),
            _ => Ok(FindMode::Fast),
        }
    }
}

/// One algorithm's measured time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlgoPerf {
    pub algo: ConvAlgo,
    pub time_us: f64,
}

/// A persistent find-db file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindDb {
    path: PathBuf,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// How long a writer waits for the lock before giving up (a live writer holds it for
/// one read-merge-rename, milliseconds).
const LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// An exclusive advisory lock (`flock(2)`) on `<db>.lock`, held until drop. The kernel
/// releases it when its holder exits however it dies, so a crashed or killed writer never
/// blocks the next one, and a recycled process id cannot make a dead writer's lock look
/// held (the lock names no process). The lock file itself stays; it carries nothing.
struct DbLock {
    _file: std::fs::File,
}

impl DbLock {
    fn acquire(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let start = std::time::Instant::now();
        loop {
            if try_flock(&file)? {
                return Ok(DbLock { _file: file });
            }
            if start.elapsed() > LOCK_TIMEOUT {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "{} stays locked by a live writer for more than {LOCK_TIMEOUT:?}",
                        path.display()
                    ),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Takes `flock(LOCK_EX)` on `file` without blocking: `Ok(false)` while another open file
/// description holds it.
#[cfg(unix)]
fn try_flock(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this function borrows open; it touches no memory.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EWOULDBLOCK) | Some(libc::EINTR) => Ok(false),
        _ => Err(e),
    }
}

/// Without `flock`, the db is single-writer (the lock file only marks it).
#[cfg(not(unix))]
fn try_flock(_file: &std::fs::File) -> std::io::Result<bool> {
    Ok(true)
}

/// Removes what killed writers left in `dir` for the db `name`: temporary files
/// (`.<name>.tmp.*`) and the private files of the former link-based lock
/// (`<name>.lock.*`). Called with the lock held, when no live writer has either.
fn sweep_leftovers(dir: &Path, name: &str) {
    let (tmp, private) = (format!(".{name}.tmp."), format!("{name}.lock."));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let f = e.file_name();
        let f = f.to_string_lossy();
        if f.starts_with(&tmp) || f.starts_with(&private) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn parse_line(line: &str) -> Option<(String, Vec<AlgoPerf>)> {
    let (key, val) = line.split_once('=')?;
    if key.is_empty() || key.contains(char::is_whitespace) {
        return None;
    }
    let mut v = Vec::new();
    for item in val.split(',') {
        let (a, t) = item.split_once(':')?;
        let time_us: f64 = t.parse().ok()?;
        if !time_us.is_finite() || time_us < 0.0 {
            return None;
        }
        v.push(AlgoPerf {
            algo: ConvAlgo::parse(a).ok()?,
            time_us,
        });
    }
    (!v.is_empty()).then(|| (key.to_string(), v))
}

/// Every valid entry of a db's text (a later line for the same key wins) and the 1-based
/// numbers of the lines that do not parse.
fn parse_text(text: &str) -> (BTreeMap<String, Vec<AlgoPerf>>, Vec<usize>) {
    let (mut map, mut corrupt) = (BTreeMap::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Some((k, v)) => {
                map.insert(k, v);
            }
            None => corrupt.push(i + 1),
        }
    }
    (map, corrupt)
}

/// What the fuzzers (`fuzz/`, and the bounded loops in CI) check on any bytes: parsing a
/// db never panics, and every entry it keeps writes as a line that parses back to the same
/// key and algorithms.
#[doc(hidden)]
pub fn fuzz_input(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (map, _) = parse_text(&text);
    for (k, v) in &map {
        let line = format_line(k, v);
        let (k2, v2) = parse_line(&line).expect("a written find-db line parses");
        assert_eq!(&k2, k);
        assert!(v.iter().zip(&v2).all(|(a, b)| a.algo == b.algo) && v.len() == v2.len());
    }
}

fn format_line(key: &str, perf: &[AlgoPerf]) -> String {
    let items: Vec<String> = perf
        .iter()
        .map(|p| format!("{}:{:.3}", p.algo.name(), p.time_us))
        .collect();
    format!("{key}={}", items.join(","))
}

impl FindDb {
    /// A db stored at `path` (created on first record).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FindDb { path: path.into() }
    }

    /// `ROCM_DNN_FIND_DB`, else `$HOME/.cache/rocm-rs/dnn/find.fdb.txt`; `none` (or no
    /// home directory) disables it.
    pub fn from_env() -> Option<Self> {
        match std::env::var("ROCM_DNN_FIND_DB") {
            Ok(s) if s.eq_ignore_ascii_case("none") => None,
            Ok(s) if !s.is_empty() => Some(FindDb::new(s)),
            _ => {
                let home = std::env::var_os("HOME")?;
                Some(FindDb::new(
                    Path::new(&home).join(".cache/rocm-rs/dnn/find.fdb.txt"),
                ))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every valid entry; invalid lines are reported on stderr and skipped.
    pub fn load(&self) -> BTreeMap<String, Vec<AlgoPerf>> {
        let text = match std::fs::read(&self.path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(_) => return BTreeMap::new(),
        };
        let (map, corrupt) = parse_text(&text);
        for line in corrupt {
            eprintln!(
                "rocm-dnn: warning: ignoring corrupt find-db entry at {}:{line}",
                self.path.display()
            );
        }
        map
    }

    /// The recorded ranking for `key`, fastest first (empty if none).
    pub fn lookup(&self, key: &str) -> Vec<AlgoPerf> {
        self.load().remove(key).unwrap_or_default()
    }

    /// Records `perf` for `key`, replacing any previous entry, crash-safely.
    pub fn record(&self, key: &str, perf: &[AlgoPerf]) -> Result<()> {
        if key.is_empty() || key.contains(['=', '\n']) || key.contains(char::is_whitespace) {
            return Err(Error::invalid(
                "key",
                format!("`{key}` cannot be a find-db key"),
            ));
        }
        let io = |what: &'static str| {
            let p = self.path.display().to_string();
            move |e: std::io::Error| Error::io(format!("find-db {what} {p}"), e)
        };
        let dir = self
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io("create directory for"))?;
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let lock = DbLock::acquire(Path::new(&lock_path)).map_err(io("lock"))?;
        let name = self
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        sweep_leftovers(dir, &name);
        let mut map = self.load();
        map.insert(key.to_string(), perf.to_vec());
        let tmp = dir.join(format!(
            ".{name}.tmp.{}.{}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            for (k, v) in &map {
                writeln!(f, "{}", format_line(k, v))?;
            }
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        };
        let r = write().map_err(io("write"));
        if r.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        drop(lock);
        r
    }
}
