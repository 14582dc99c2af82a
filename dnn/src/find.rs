//! Algorithm selection: find modes and the persistent find-db (MIOpen's FindDb).
//!
//! The db is a text file, one problem per line:
//! `<problem key>@<device target>@<library version>=<algo>:<µs>,<algo>:<µs>,...`
//! (fastest first). Readers skip and warn about lines they cannot parse, so a corrupt
//! entry costs a re-find, never a crash. Writers take a lock file `<db>.lock` (created
//! exclusively; one left by a crashed process of this host is broken at once), re-read
//! the file, merge their entry and replace the file by writing a temporary file in the
//! same directory and renaming it over the old one: a crash leaves either the old or the
//! new file, and concurrent processes never see a torn file or lose each other's
//! entries.

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

/// How long a writer waits for the lock before giving up.
const LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A lock file older than this is taken to be left by a crashed writer whose liveness
/// cannot be checked (another host, or no `/proc`).
const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(10);

/// This host's name (Linux), to tell whether a lock holder's process id is checkable here.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// An exclusive lock: `<db>.lock`, holding "<pid> <host> <nonce>" from the moment it exists
/// (a private file with the token, hard-linked to the lock's name, which fails if it exists).
/// A writer that finds the lock taken breaks it at once when the holder is a process of
/// this host that no longer exists (it crashed or was killed), else after
/// [`STALE_LOCK`]. The lock only prevents lost updates (the db itself is always replaced
/// whole by a rename), so the rare race of two writers breaking one dead lock can at
/// worst lose one entry, which costs a re-find.
struct LockFile {
    path: PathBuf,
    token: String,
}

impl LockFile {
    fn acquire(path: PathBuf) -> std::io::Result<Self> {
        let host = host_name();
        let token = format!(
            "{} {host} {}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        // The lock appears with its holder already in it: the token goes to a private
        // file, which is then hard-linked to the lock's name (the link fails if the lock
        // exists, as O_EXCL would). Creating the lock and writing the token afterwards
        // left an empty lock when the writer was killed in between, which only the
        // STALE_LOCK age could break (seen in CI under load: 10 s).
        let private = path.with_extension(format!(
            "lock.{}.{}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&private, token.as_bytes())?;
        let taken = Self::link_until_taken(&path, &private, &host);
        let _ = std::fs::remove_file(&private);
        taken.map(|()| LockFile { path, token })
    }

    /// Links `private` to `path` once the lock is free (or abandoned).
    fn link_until_taken(path: &Path, private: &Path, host: &str) -> std::io::Result<()> {
        let start = std::time::Instant::now();
        loop {
            match std::fs::hard_link(private, path) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if Self::abandoned(path, host) {
                        let _ = std::fs::remove_file(path);
                        continue;
                    }
                    if start.elapsed() > LOCK_TIMEOUT {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            format!("{} stays locked", path.display()),
                        ));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether the lock at `path` belongs to a dead process of this host, or is stale.
    fn abandoned(path: &Path, host: &str) -> bool {
        let holder = std::fs::read_to_string(path).unwrap_or_default();
        let mut it = holder.split(' ');
        if let (Some(pid), Some(h)) = (it.next(), it.next()) {
            let proc_fs = Path::new("/proc/self").exists();
            if !host.is_empty() && h == host && proc_fs && pid.parse::<u32>().is_ok() {
                return !Path::new("/proc").join(pid).exists();
            }
        }
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_LOCK)
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // Only our own lock (a writer that took ours for stale must keep its own).
        if std::fs::read_to_string(&self.path).is_ok_and(|t| t == self.token) {
            let _ = std::fs::remove_file(&self.path);
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
        let mut map = BTreeMap::new();
        let text = match std::fs::read(&self.path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(_) => return map,
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match parse_line(line) {
                Some((k, v)) => {
                    map.insert(k, v);
                }
                None => eprintln!(
                    "rocm-dnn: warning: ignoring corrupt find-db entry at {}:{}",
                    self.path.display(),
                    i + 1
                ),
            }
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
        let lock = LockFile::acquire(PathBuf::from(lock_path)).map_err(io("lock"))?;
        let mut map = self.load();
        map.insert(key.to_string(), perf.to_vec());
        let name = self
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
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
