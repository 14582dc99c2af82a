//! A catalog meant for another family (here: the H100's, put in force for every target,
//! as `ROCM_KERNELS_CATALOG` does) must not break GEMM on an emulated AMD target: entries
//! whose instruction the target's generator does not build are skipped for the family's
//! default. One test in its own binary, since installing a catalog is process-wide.
//!
//! Tolerance: inputs are multiples of 1/64 in [-1, 1] and k = 24, so every product and
//! partial sum is exact in f32 and the result must equal the f64 reference exactly.

use rocm_blas::{Blas, Transpose};
use rocm_core::{Device, DeviceBuffer};
use rocm_kernels::catalog::{Catalog, Entry};
use rocm_kernels::gemm::{ptx, GemmParams};

#[test]
fn an_nvidia_catalog_entry_does_not_reach_an_amd_target() {
    let (m, n, k) = (37usize, 29usize, 24usize);
    let simt = ptx::simt(rocm_core::DType::F32, 64, 4, false, false);
    let entry = |key: String| Entry {
        generator: "gemm".into(),
        key,
        size: (m * n * k) as u64,
        shape: Some(vec![m as u64, n as u64, k as u64]),
        params: serde_json::to_value(&simt).unwrap(),
    };
    let key = GemmParams::key(
        rocm_core::DType::F32,
        rocm_core::DType::F32,
        rocm_core::DType::F32,
        false,
        false,
    );
    Catalog::install(Catalog {
        source: "an NVIDIA entry for every target".into(),
        entries: vec![entry(key)],
    });
    let value = |i: usize| ((i * 37 + 11) % 129) as f32 / 64.0 - 1.0;
    let a: Vec<f32> = (0..m * k).map(value).collect();
    let b: Vec<f32> = (0..k * n).map(|i| value(i + 5)).collect();
    for id in ["emu:gfx90a", "emu:gfx942", "emu:gfx1100", "cpu"] {
        let dev = Device::open(id).unwrap();
        let blas = Blas::new(&dev);
        let da = DeviceBuffer::from_slice(&dev, &a).unwrap();
        let db = DeviceBuffer::from_slice(&dev, &b).unwrap();
        let mut dc = DeviceBuffer::from_slice(&dev, &vec![f32::NAN; m * n]).unwrap();
        blas.gemm(
            Transpose::N,
            Transpose::N,
            m,
            n,
            k,
            1.0f32,
            &da.as_slice(),
            m,
            &db.as_slice(),
            k,
            0.0,
            &mut dc.as_slice_mut(),
            m,
        )
        .unwrap_or_else(|e| panic!("{id}: {e}"));
        let c = dc.to_vec().unwrap();
        for j in 0..n {
            for i in 0..m {
                let want: f64 = (0..k)
                    .map(|l| a[i + l * m] as f64 * b[l + j * k] as f64)
                    .sum();
                assert_eq!(c[i + j * m] as f64, want, "{id} ({i}, {j})");
            }
        }
    }
    Catalog::uninstall();
}
