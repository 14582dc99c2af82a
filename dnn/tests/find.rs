//! Algorithm selection: the find-db's round trip, concurrent writes from threads and
//! processes, a writer killed mid-update, corrupt entries (ignored with a warning), and
//! each find mode.
//!
//! The process tests spawn copies of this test binary that run the `child` test with a
//! role in `DNN_TEST_ROLE`.

mod common;
use common::*;
use rocm_core::{DType, Device};
use rocm_dnn::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROLE: &str = "DNN_TEST_ROLE";

fn spawn(role: &str, db: &std::path::Path, tag: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env("DNN_TEST_DB", db)
        .env("DNN_TEST_TAG", tag)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn perf(us: f64) -> [AlgoPerf; 2] {
    [
        AlgoPerf {
            algo: ConvAlgo::WinogradF4x3,
            time_us: us,
        },
        AlgoPerf {
            algo: ConvAlgo::Im2colGemm,
            time_us: us + 1.0,
        },
    ]
}

/// The body of a child process (does nothing when run as a normal test).
#[test]
fn child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let db = FindDb::new(std::env::var("DNN_TEST_DB").unwrap());
    let tag = std::env::var("DNN_TEST_TAG").unwrap();
    match role.as_str() {
        // Records 25 entries of its own.
        "writer" => {
            for i in 0..25 {
                db.record(&format!("{tag}-k{i}"), &perf(i as f64)).unwrap();
            }
        }
        // Records forever (until killed), rewriting the whole file each time.
        "endless" => {
            for i in 0.. {
                db.record(&format!("{tag}-k{}", i % 50), &perf(i as f64))
                    .unwrap();
            }
        }
        // Loads the db (the parent checks the warnings on stderr).
        "reader" => {
            let n = db.load().len();
            eprintln!("loaded {n} entries");
        }
        other => panic!("unknown role {other}"),
    }
    std::process::exit(0);
}

#[test]
fn processes_writing_at_once_lose_nothing() {
    let path = tmp("procs");
    let kids: Vec<_> = (0..4)
        .map(|p| spawn("writer", &path, &format!("p{p}")))
        .collect();
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let m = FindDb::new(&path).load();
    assert_eq!(m.len(), 100);
    for p in 0..4 {
        for i in 0..25 {
            assert_eq!(m[&format!("p{p}-k{i}")], perf(i as f64).to_vec());
        }
    }
}

/// A writer killed at an arbitrary point (SIGKILL, no clean-up) leaves a db that parses
/// without a single corrupt line, and the next writer gets the lock at once.
#[test]
fn a_killed_writer_leaves_a_valid_db_and_no_lock() {
    let path = tmp("killed");
    for (round, wait_ms) in [150u64, 400, 700].into_iter().enumerate() {
        let mut kid = spawn("endless", &path, &format!("r{round}"));
        // Wait until it has written something, then a little more.
        let start = Instant::now();
        while !path.exists() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(wait_ms));
        kid.kill().unwrap();
        let out = kid.wait_with_output().unwrap();
        assert!(!out.status.success());
        // No line of the db is torn: a reader process reports no corrupt entry.
        let reader = spawn("reader", &path, "x").wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&reader.stderr);
        assert!(!err.contains("corrupt"), "{err}");
        assert!(err.contains("loaded"), "{err}");
        // The lock died with the writer.
        let t = Instant::now();
        FindDb::new(&path)
            .record(&format!("after-{round}"), &perf(1.0))
            .unwrap();
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    }
    assert!(FindDb::new(&path).load().len() >= 3);
}

/// A lock file naming a live process of this host (a recycled process id, or the former
/// link-based lock's "<pid> <host> <nonce>" left behind) does not stall a writer: the lock
/// is `flock(2)`, which only a live open file holds, not the file's content.
#[test]
fn a_lock_file_naming_a_live_process_does_not_block() {
    let path = tmp("pidreuse");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let mut lock = path.clone().into_os_string();
    lock.push(".lock");
    // Our own process id: alive for the whole test.
    std::fs::write(&lock, format!("{} {} 0", std::process::id(), host.trim())).unwrap();
    let t = Instant::now();
    FindDb::new(&path).record("k", &perf(1.0)).unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(FindDb::new(&path).lookup("k"), perf(1.0).to_vec());
}

/// What killed writers leave behind (temporary files, the former lock's private
/// `<db>.lock.<pid>.<n>` files) is swept by the next writer.
#[test]
fn leftovers_of_killed_writers_are_swept() {
    let path = tmp("sweep");
    let dir = path.parent().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let left = [
        dir.join(format!("{name}.lock.4242.7")),
        dir.join(format!(".{name}.tmp.4242.8")),
    ];
    for f in &left {
        std::fs::write(f, "4242 host 7").unwrap();
    }
    FindDb::new(&path).record("k", &perf(1.0)).unwrap();
    for f in &left {
        assert!(!f.exists(), "{} was not swept", f.display());
    }
    assert!(path.exists());
}

#[test]
fn corrupt_entries_warn_in_the_reading_process() {
    let path = tmp("warn");
    std::fs::write(&path, "k1=gemm:12.0\nk2=gemm:zz\nnot a line\n").unwrap();
    let out = spawn("reader", &path, "x").wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let want = format!(
        "rocm-dnn: warning: ignoring corrupt find-db entry at {}:2",
        path.display()
    );
    assert!(err.contains(&want), "{err}");
    assert!(
        err.contains(":3") && err.contains("loaded 1 entries"),
        "{err}"
    );
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocm-dnn-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.join("find.fdb.txt")
}

fn problem() -> ConvProblem {
    let conv = ConvDesc::conv2d(1, 1, 1, 1).unwrap();
    let x = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 16, 12, 12]).unwrap();
    let w = TensorDesc::new(DType::F32, Layout::Nchw, &[16, 16, 3, 3]).unwrap();
    let y = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 16, 12, 12]).unwrap();
    ConvProblem::new(ConvDirection::Forward, &conv, &x, &w, &y).unwrap()
}

#[test]
fn round_trip_and_replacement() {
    let db = FindDb::new(tmp("rt"));
    assert!(db.lookup("k").is_empty());
    let p = [
        AlgoPerf {
            algo: ConvAlgo::WinogradF4x3,
            time_us: 10.5,
        },
        AlgoPerf {
            algo: ConvAlgo::Direct,
            time_us: 99.0,
        },
    ];
    db.record("k1", &p).unwrap();
    db.record("k2", &p[1..]).unwrap();
    assert_eq!(db.lookup("k1"), p.to_vec());
    db.record("k1", &p[1..]).unwrap();
    assert_eq!(db.lookup("k1"), p[1..].to_vec());
    assert_eq!(db.load().len(), 2);
    assert!(db.record("bad key", &p).is_err());
    // No temporary files left behind.
    let dir = db.path().parent().unwrap();
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp.")), "{names:?}");
}

#[test]
fn corrupt_entries_are_ignored() {
    let path = tmp("corrupt");
    std::fs::write(&path, "garbage line\nk1=gemm:12.0\nk2=nosuchalgo:1.0\nk3=gemm:-1\nk4=\n=gemm:1\nk5=direct:abc\n\u{0}\u{1}binary\nk6=direct:3.5,gemm:4.0\n").unwrap();
    let db = FindDb::new(&path);
    let m = db.load();
    assert_eq!(
        m.keys().cloned().collect::<Vec<_>>(),
        vec!["k1".to_string(), "k6".to_string()]
    );
    // Recording over a corrupt file keeps the valid entries and drops the rest.
    db.record(
        "k7",
        &[AlgoPerf {
            algo: ConvAlgo::Direct,
            time_us: 1.0,
        }],
    )
    .unwrap();
    assert_eq!(db.load().len(), 3);
    // A corrupt entry for a live problem falls back to the heuristic, no crash.
    let mut dnn = dnn();
    let p = problem();
    let key_prefix = p.key();
    std::fs::write(
        &path,
        format!(
            "{key_prefix}@{}@{}=gemm:xyz\n",
            Device::cpu().target(),
            VERSION
        ),
    )
    .unwrap();
    dnn.set_find_db(Some(FindDb::new(&path)));
    dnn.set_find_mode(FindMode::Fast);
    assert_eq!(dnn.select_convolution_algorithm(&p).unwrap(), p.heuristic());
}

#[test]
fn concurrent_writers_lose_nothing() {
    // Eight threads, each with its own file handle (so the advisory lock and the
    // temp-file + rename protocol are exercised exactly as between processes).
    let path = tmp("concurrent");
    std::thread::scope(|s| {
        for t in 0..8 {
            let path = path.clone();
            s.spawn(move || {
                let db = FindDb::new(path);
                for i in 0..10 {
                    db.record(
                        &format!("t{t}-k{i}"),
                        &[AlgoPerf {
                            algo: ConvAlgo::Im2colGemm,
                            time_us: i as f64,
                        }],
                    )
                    .unwrap();
                }
            });
        }
    });
    let m = FindDb::new(&path).load();
    assert_eq!(m.len(), 80);
}

#[test]
fn find_modes() {
    let path = tmp("modes");
    let mut dnn = dnn();
    dnn.set_find_db(Some(FindDb::new(&path)));
    let p = problem();
    let key = format!("{}@{}@{}", p.key(), Device::cpu().target(), VERSION);
    // Fast without an entry: the heuristic, nothing recorded.
    dnn.set_find_mode(FindMode::Fast);
    assert_eq!(dnn.select_convolution_algorithm(&p).unwrap(), p.heuristic());
    assert!(FindDb::new(&path).lookup(&key).is_empty());
    // Hybrid without an entry: finds and records every applicable algorithm.
    dnn.set_find_mode(FindMode::Hybrid);
    let chosen = dnn.select_convolution_algorithm(&p).unwrap();
    let rec = FindDb::new(&path).lookup(&key);
    assert_eq!(rec.len(), p.applicable().len());
    assert_eq!(rec[0].algo, chosen);
    assert!(rec.windows(2).all(|w| w[0].time_us <= w[1].time_us));
    // Fast with an entry: uses it, whatever the heuristic says.
    FindDb::new(&path)
        .record(
            &key,
            &[AlgoPerf {
                algo: ConvAlgo::Direct,
                time_us: 1.0,
            }],
        )
        .unwrap();
    dnn.set_find_mode(FindMode::Fast);
    assert_eq!(
        dnn.select_convolution_algorithm(&p).unwrap(),
        ConvAlgo::Direct
    );
    dnn.set_find_mode(FindMode::Hybrid);
    assert_eq!(
        dnn.select_convolution_algorithm(&p).unwrap(),
        ConvAlgo::Direct
    );
    // Normal ignores the entry and benchmarks again (re-recording the ranking).
    dnn.set_find_mode(FindMode::Normal);
    dnn.select_convolution_algorithm(&p).unwrap();
    assert_eq!(FindDb::new(&path).lookup(&key).len(), p.applicable().len());
    // Entries of another library version or target are not used.
    std::fs::write(
        &path,
        format!(
            "{}@gfx90a@{}=direct:1.0\n{}@{}@0.0.0-other=direct:1.0\n",
            p.key(),
            VERSION,
            p.key(),
            Device::cpu().target()
        ),
    )
    .unwrap();
    dnn.set_find_mode(FindMode::Fast);
    assert_eq!(dnn.select_convolution_algorithm(&p).unwrap(), p.heuristic());
    // The algorithm chosen by the mode is the one that runs.
    let x = random::<f32>(&[1, 16, 12, 12], Mem::Packed(false), 1);
    let w = random::<f32>(&[16, 16, 3, 3], Mem::Packed(false), 2);
    let mut y = zeros::<f32>(&[1, 16, 12, 12], Mem::Packed(false));
    let ran = dnn
        .convolution_forward(&p.conv, None, 1.0, x.t(), w.t(), 0.0, y.tm())
        .unwrap();
    assert_eq!(ran, p.heuristic());
}

#[test]
fn mode_names() {
    assert_eq!(FindMode::parse("normal").unwrap(), FindMode::Normal);
    assert_eq!(FindMode::parse("2").unwrap(), FindMode::Fast);
    assert_eq!(FindMode::parse("Immediate").unwrap(), FindMode::Fast);
    assert_eq!(FindMode::parse("hybrid").unwrap(), FindMode::Hybrid);
    assert!(FindMode::parse("fastest")
        .unwrap_err()
        .to_string()
        .contains("ROCM_DNN_FIND_MODE"));
}

fn fwd_problem(
    n: usize,
    c: usize,
    k: usize,
    hw: usize,
    f: usize,
    pad: usize,
    g: usize,
) -> ConvProblem {
    let conv = ConvDesc::conv2d(pad, 1, 1, g).unwrap();
    let x = TensorDesc::new(DType::F32, Layout::Nchw, &[n, c, hw, hw]).unwrap();
    let w = TensorDesc::new(DType::F32, Layout::Nchw, &[k, c / g, f, f]).unwrap();
    let y = TensorDesc::new(DType::F32, Layout::Nchw, &conv.output_dims(&x, &w).unwrap()).unwrap();
    ConvProblem::new(ConvDirection::Forward, &conv, &x, &w, &y).unwrap()
}

/// The immediate-mode choices on the ResNet-50 shapes and around the Winograd
/// thresholds (see `ConvProblem::heuristic` for the measurements behind them).
#[test]
fn heuristic_choices() {
    use ConvAlgo::*;
    for (p, want) in [
        (fwd_problem(32, 64, 64, 56, 3, 1, 1), WinogradF4x3),
        (fwd_problem(32, 256, 256, 14, 3, 1, 1), WinogradF4x3),
        (fwd_problem(32, 64, 256, 56, 1, 0, 1), Im2colGemm),
        // 7×7 with C = K = 512: 37.7 MB of F(4,3) filters; 16·4 = 64 F(4,3) tiles.
        (fwd_problem(16, 512, 512, 7, 3, 1, 1), WinogradF2x3),
        (fwd_problem(32, 512, 512, 7, 3, 1, 1), WinogradF2x3),
        // 4 images of 14×14, C = K = 256: 64 tiles, 9.4 MB of filters.
        (fwd_problem(4, 256, 256, 14, 3, 1, 1), WinogradF4x3),
        // One image: 16 F(4,3) tiles, 49 F(2,3) tiles.
        (fwd_problem(1, 256, 256, 14, 3, 1, 1), Im2colGemm),
        // Depthwise, and too few channels per group for Winograd.
        (fwd_problem(8, 32, 32, 28, 3, 1, 32), Direct),
        (fwd_problem(8, 4, 16, 28, 3, 1, 1), Im2colGemm),
    ] {
        assert_eq!(p.heuristic(), want, "{}", p.key());
        assert!(p.applicable().contains(&want));
    }
    // Backward passes never pick Winograd (forward only).
    let conv = ConvDesc::conv2d(1, 1, 1, 1).unwrap();
    let x = TensorDesc::new(DType::F32, Layout::Nchw, &[32, 64, 56, 56]).unwrap();
    let w = TensorDesc::new(DType::F32, Layout::Nchw, &[64, 64, 3, 3]).unwrap();
    for dir in [ConvDirection::BackwardData, ConvDirection::BackwardWeights] {
        let p = ConvProblem::new(dir, &conv, &x, &w, &x).unwrap();
        assert_eq!(p.heuristic(), Im2colGemm);
    }
}

/// While one writer holds the lock, another waits for it (no lost update): threads of
/// one process each open the lock file, and `flock` excludes between open files.
#[test]
fn writers_exclude_each_other() {
    let path = tmp("exclude");
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..100 {
                    FindDb::new(&path)
                        .record(&format!("w{w}-k{i}"), &perf(i as f64))
                        .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(FindDb::new(&path).load().len(), 300);
}
