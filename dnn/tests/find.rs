//! Algorithm selection: the find-db's round trip, crash-safe concurrent writes, corrupt
//! entries, and each find mode.

mod common;
use common::*;
use rocm_core::{DType, Device};
use rocm_dnn::*;
use std::path::PathBuf;

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

#[test]
fn gpu_devices_are_unsupported() {
    // Any non-CPU device: the emulator if present, else nothing to check.
    if let Ok(dev) = Device::open("emu:gfx90a") {
        let dnn = Dnn::new(&dev).unwrap();
        let e = dnn.find_convolution_algorithm(&problem()).unwrap_err();
        assert!(matches!(e, rocm_core::Error::Unsupported { .. }), "{e}");
    }
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
        // 16 images of 7×7: 64 F(4,3) tiles, 256 F(2,3) tiles.
        (fwd_problem(16, 512, 512, 7, 3, 1, 1), WinogradF2x3),
        (fwd_problem(4, 512, 512, 7, 3, 1, 1), Im2colGemm),
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
