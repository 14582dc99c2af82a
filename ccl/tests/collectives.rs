//! Every collective x element type x reduction op x size x rank count (1, 2, 3, 4, 8),
//! ranks as threads, against the sequential reference.

mod common;

use common::*;
use proptest::prelude::*;
use rocm_ccl::{Config, ReduceOp};
use rocm_core::{f16, DeviceBuffer};

fn sweep(n: usize, config: &Config, sizes: &[usize]) {
    let bits = on_threads(threads(n, config), |comm| {
        let mut bits = Vec::new();
        for (i, &len) in sizes.iter().enumerate() {
            bits.extend(every_dtype(
                comm,
                1000 * i as u64 + n as u64,
                len,
                &ReduceOp::ALL,
            ));
        }
        bits
    });
    for (r, b) in bits.iter().enumerate() {
        assert!(
            b == &bits[0],
            "all_reduce results of rank {r} differ from rank 0's (n={n})"
        );
    }
}

// Sizes: empty, one element, odd and prime counts, below and above the tree/ring switch
// (32 KiB: 9001 is above it for 4-byte and wider elements; `megabytes` runs u8 above it).
const SIZES: [usize; 6] = [0, 1, 7, 131, 1029, 9001];

#[test]
fn one_rank() {
    sweep(1, &Config::default(), &SIZES);
}

#[test]
fn two_ranks() {
    sweep(2, &Config::default(), &SIZES);
}

#[test]
fn three_ranks() {
    sweep(3, &Config::default(), &SIZES);
}

#[test]
fn four_ranks() {
    sweep(4, &Config::default(), &SIZES);
}

#[test]
fn eight_ranks() {
    sweep(8, &Config::default(), &[0, 1, 13, 2053, 9001]);
}

/// The ring/doubling all_reduce between threads (direct access off), default sizes.
#[test]
fn rings_between_threads() {
    let config = Config {
        direct: false,
        ..Config::default()
    };
    for n in [2, 3] {
        sweep(n, &config, &[0, 1, 7, 9001]);
    }
}

/// Tiny rings and chunks: ring wrap-around, chunk pipelining, split elements, empty segments.
#[test]
fn tiny_rings_and_chunks() {
    for n in [2, 3, 5] {
        sweep(n, &tiny_config(), &[0, 1, 3, 10, 257]);
    }
}

/// A few MiB per rank through the pipelined ring (f32 sum and u8 max, 2 and 4 ranks).
#[test]
fn megabytes() {
    for n in [2, 4] {
        let len = (3 << 20) / 4 + 3;
        on_threads(threads(n, &Config::default()), |comm| {
            all_collectives::<f32>(comm, 7, len, &[ReduceOp::Sum]);
            all_collectives::<u8>(comm, 8, len / 4, &[ReduceOp::Max]);
        });
    }
}

/// Ring all_reduce of at least 4 MiB (the streamed-output path: the last reduce-scatter
/// step reduces into a staging block, the last all-gather step streams) over 2 and 3
/// thread ranks forced onto the rings, out of place and in place, f64 sum (random values,
/// checked within the reference's rounding bound) and i32 max (exact), odd counts so
/// segments and chunks do not divide evenly.
#[test]
fn streamed_ring_all_reduce() {
    let config = Config {
        direct: false,
        ..Config::default()
    };
    for n in [2, 3] {
        on_threads(threads(n, &config), |comm| {
            let (n, r) = (comm.nranks(), comm.rank());
            let dev = comm.device().clone();
            let len = (4 << 20) / 8 + 2 * n + 1;
            let all = inputs::<f64>(40 + n as u64, n, len);
            let x = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
            let mut y = DeviceBuffer::<f64>::zeros(&dev, len).unwrap();
            comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap();
            let got = y.to_vec().unwrap();
            check_reduced("streamed all_reduce f64 sum", &all, 0, &got, ReduceOp::Sum);
            let mut z = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
            comm.all_reduce_in_place(&mut z.as_slice_mut(), ReduceOp::Sum)
                .unwrap();
            assert!(
                z.to_vec().unwrap() == got,
                "in-place streamed all_reduce differs (n = {n})"
            );

            let len = (4 << 20) / 4 + 7;
            let all = inputs::<i32>(50 + n as u64, n, len);
            let x = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
            let mut y = DeviceBuffer::<i32>::zeros(&dev, len).unwrap();
            comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Max)
                .unwrap();
            check_reduced(
                "streamed all_reduce i32 max",
                &all,
                0,
                &y.to_vec().unwrap(),
                ReduceOp::Max,
            );
        });
    }
}

/// 64 MiB per rank with an odd count (16 Mi + 1 f32): all_reduce, all_gather and
/// reduce_scatter over 2 thread ranks, directly and through the rings, always; 3 and 8
/// ranks opt-in (`ROCM_FULL_TESTS=1`). Inputs are small integers (exact in f32), so
/// results are compared exactly against closed forms instead of materialising every
/// rank's input.
#[test]
fn sixty_four_mib() {
    let len = (64 << 20) / 4 + 1;
    let val = |r: usize, i: usize| ((r * 7 + i) % 13) as f32;
    let full = std::env::var("ROCM_FULL_TESTS").as_deref() == Ok("1");
    for (n, direct) in [(2, true), (2, false), (3, true), (8, true), (8, false)] {
        if n > 2 && !full {
            continue;
        }
        let config = Config {
            direct,
            ..Config::default()
        };
        on_threads(threads(n, &config), |comm| {
            let (n, r) = (comm.nranks(), comm.rank());
            let dev = comm.device().clone();
            let x: Vec<f32> = (0..len).map(|i| val(r, i)).collect();
            let xb = DeviceBuffer::from_slice(&dev, &x).unwrap();
            let mut y = DeviceBuffer::<f32>::zeros(&dev, len).unwrap();
            comm.all_reduce(&xb.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap();
            let got = y.to_vec().unwrap();
            for (i, g) in got.iter().enumerate() {
                let want: f32 = (0..n).map(|j| val(j, i)).sum();
                assert_eq!(*g, want, "all_reduce n={n} element {i}");
            }
            let c = len / n;
            let mut g = DeviceBuffer::<f32>::zeros(&dev, c * n).unwrap();
            comm.all_gather(&xb.slice(..c).unwrap(), &mut g.as_slice_mut())
                .unwrap();
            for (i, v) in g.to_vec().unwrap().iter().enumerate() {
                assert_eq!(*v, val(i / c, i % c), "all_gather n={n} element {i}");
            }
            let mut rs = DeviceBuffer::<f32>::zeros(&dev, c).unwrap();
            comm.reduce_scatter(
                &xb.slice(..c * n).unwrap(),
                &mut rs.as_slice_mut(),
                ReduceOp::Max,
            )
            .unwrap();
            for (i, v) in rs.to_vec().unwrap().iter().enumerate() {
                let want = (0..n).map(|j| val(j, r * c + i)).fold(f32::MIN, f32::max);
                assert_eq!(*v, want, "reduce_scatter n={n} element {i}");
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random rank counts, sizes, algorithm thresholds and chunking.
    #[test]
    fn random_shapes(n in 1usize..6, len in 0usize..600, chunk in 16usize..400, tree in 0usize..4096, ring_pages in 1usize..4, seed in 0u64..1000, direct: bool) {
        let config = Config {
            ring_bytes: ring_pages * 4096,
            chunk_bytes: chunk,
            tree_max_bytes: tree,
            step_bytes: 64 + chunk,
            direct,
            ..Config::default()
        };
        on_threads(threads(n, &config), |comm| {
            all_collectives::<f32>(comm, seed, len, &ReduceOp::ALL);
            all_collectives::<i64>(comm, seed, len, &[ReduceOp::Sum, ReduceOp::Max]);
            all_collectives::<f16>(comm, seed, len, &[ReduceOp::Avg]);
        });
    }
}
