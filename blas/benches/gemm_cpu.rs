//! CPU sgemm and dgemm at n = 1024 and 2048 (C = A·B, column-major, all threads): ours
//! (`Blas::gemm` on the CPU device, faer's matmul) next to OpenBLAS's `cblas_?gemm`
//! on the same matrices, in one criterion run. Criterion reports flop/s (elements =
//! 2n³ flops per call); a closing table gives GFLOP/s (best of several calls) and the
//! ratio ours / OpenBLAS.
//!
//! `cargo bench -p rocm-blas --features openblas --bench gemm_cpu` (needs Debian's
//! libopenblas-dev; `OPENBLAS_NUM_THREADS` unset uses every core, as rayon does). Without
//! the feature only our rows run.

// The system OpenBLAS provides the cblas symbols cblas-sys declares.
#[cfg(feature = "openblas")]
#[link(name = "openblas")]
extern "C" {}

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_blas::{Blas, Real, Scalar, Transpose};
use rocm_core::{Device, DeviceBuffer};
use std::time::Instant;

const SIZES: [usize; 2] = [1024, 2048];

/// One element type's two engines.
trait Engines: Scalar {
    /// `c = a·b` (n×n, column-major) through OpenBLAS; false when built without it.
    fn openblas(n: usize, a: &[Self], b: &[Self], c: &mut [Self]) -> bool;
}

/// `Engines` for a real type through its `cblas_?gemm`.
macro_rules! engines {
    ($t:ty, $cblas:ident) => {
        impl Engines for $t {
            #[allow(unused_variables)]
            fn openblas(n: usize, a: &[$t], b: &[$t], c: &mut [$t]) -> bool {
                #[cfg(feature = "openblas")]
                {
                    use cblas_sys::{CBLAS_LAYOUT, CBLAS_TRANSPOSE};
                    let n = n as i32;
                    // SAFETY: a, b and c each hold n·n elements, the column-major layout
                    // the call is told (leading dimension n).
                    unsafe {
                        cblas_sys::$cblas(
                            CBLAS_LAYOUT::CblasColMajor,
                            CBLAS_TRANSPOSE::CblasNoTrans,
                            CBLAS_TRANSPOSE::CblasNoTrans,
                            n,
                            n,
                            n,
                            1.0,
                            a.as_ptr(),
                            n,
                            b.as_ptr(),
                            n,
                            0.0,
                            c.as_mut_ptr(),
                            n,
                        )
                    }
                }
                cfg!(feature = "openblas")
            }
        }
    };
}
engines!(f32, cblas_sgemm);
engines!(f64, cblas_dgemm);

fn data<T: Scalar>(n: usize, salt: usize) -> Vec<T> {
    (0..n * n)
        .map(|i| {
            T::from_real(
                num_traits::cast(((i * 7919 + salt) % 1000) as f64 / 1000.0 - 0.5).unwrap(),
            )
        })
        .collect()
}

/// Best-of-`reps` seconds per call of `f`.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn bench_type<T: Engines>(c: &mut Criterion, table: &mut Vec<String>) {
    let name = T::PREFIX;
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let nt = Transpose::N;
    for n in SIZES {
        let (ha, hb) = (data::<T>(n, 1), data::<T>(n, 2));
        let a: DeviceBuffer<T> = dev.upload(&ha).unwrap();
        let b: DeviceBuffer<T> = dev.upload(&hb).unwrap();
        let mut cd: DeviceBuffer<T> = dev.upload(&ha).unwrap();
        let mut ch = ha.clone();
        let flops = 2.0 * (n as f64).powi(3);
        let ours = |cd: &mut DeviceBuffer<T>| {
            blas.gemm(
                nt,
                nt,
                n,
                n,
                n,
                T::one(),
                &a.as_slice(),
                n,
                &b.as_slice(),
                n,
                T::zero(),
                &mut cd.as_slice_mut(),
                n,
            )
            .unwrap()
        };
        let mut g = c.benchmark_group(format!("gemm_cpu/{name}"));
        g.throughput(Throughput::Elements(flops as u64));
        g.sample_size(10);
        g.bench_function(format!("ours/{n}"), |bch| bch.iter(|| ours(&mut cd)));
        let have_peer = T::openblas(n, &ha, &hb, &mut ch);
        if have_peer {
            // Both engines must compute the same product before their times mean
            // anything: each element is a length-n dot product of entries in [-0.5, 0.5),
            // so each engine is within n·ε·n/4 of the exact value; allow twice that.
            ours(&mut cd);
            let eps = <T::Real as num_traits::Float>::epsilon().as_f64();
            let bound = 2.0 * n as f64 * eps * n as f64 * 0.25;
            let diff = cd
                .to_vec()
                .unwrap()
                .iter()
                .zip(&ch)
                .map(|(x, y)| (x.components()[0] - y.components()[0]).abs())
                .fold(0.0, f64::max);
            assert!(
                diff <= bound,
                "{name}gemm {n}: ours and OpenBLAS differ by {diff:e} > {bound:e}"
            );
            g.bench_function(format!("openblas/{n}"), |bch| {
                bch.iter(|| T::openblas(n, &ha, &hb, &mut ch))
            });
        }
        g.finish();
        let t_ours = best(5, || ours(&mut cd));
        let line = if have_peer {
            let t_peer = best(5, || {
                T::openblas(n, &ha, &hb, &mut ch);
            });
            format!(
                "{name}gemm {n:>5}  ours {:>8.1} GFLOP/s  OpenBLAS {:>8.1} GFLOP/s  ratio {:.2}x",
                flops / t_ours / 1e9,
                flops / t_peer / 1e9,
                t_peer / t_ours
            )
        } else {
            format!(
                "{name}gemm {n:>5}  ours {:>8.1} GFLOP/s  (OpenBLAS: build with --features openblas)",
                flops / t_ours / 1e9
            )
        };
        table.push(line);
    }
}

fn gemm_cpu(c: &mut Criterion) {
    let mut table = Vec::new();
    bench_type::<f32>(c, &mut table);
    bench_type::<f64>(c, &mut table);
    println!("\nthreads: {}", rayon::current_num_threads());
    for line in table {
        println!("{line}");
    }
}

criterion_group!(benches, gemm_cpu);
criterion_main!(benches);
