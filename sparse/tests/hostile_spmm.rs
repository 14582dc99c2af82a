//! SpMM with hostile right-hand-side counts: zero columns is a quick return that leaves
//! C alone, an empty A with a huge column count neither allocates nor fails, and a column
//! count the buffers cannot hold is an error naming the dense operand.

use rocm_core::{Device, DeviceBuffer};
use rocm_sparse::ops::*;
use rocm_sparse::Csr;

fn poisson(n: usize) -> Csr<i32, f64> {
    rocm_sparse::gen::poisson2d::<i32, f64>(n).unwrap()
}

#[test]
fn zero_right_hand_sides_are_a_quick_return() {
    let dev = Device::cpu();
    let a = poisson(4);
    let plan = Spmm::analysis(&dev, Transpose::N, (&a).into()).unwrap();
    let b = DeviceBuffer::<f64>::zeros(&dev, 0).unwrap();
    // C holds a sentinel: zero columns must not touch it.
    let mut c = DeviceBuffer::from_slice(&dev, &[7.0f64; 4]).unwrap();
    for order in [Order::ColMajor, Order::RowMajor] {
        let bd = DnMat::new(16, 0, 16, order, b.as_slice()).unwrap();
        let mut cd = DnMatMut::new(16, 0, 16, order, c.as_slice_mut()).unwrap();
        plan.compute(1.0, (&a).into(), &bd, 0.0, &mut cd).unwrap();
    }
    assert_eq!(c.to_vec().unwrap(), vec![7.0; 4]);
}

#[test]
fn an_empty_matrix_with_huge_column_counts_allocates_nothing() {
    let dev = Device::cpu();
    let a = Csr::<i32, f64>::new(0, 0, vec![0], vec![], vec![]).unwrap();
    let plan = Spmm::analysis(&dev, Transpose::N, (&a).into()).unwrap();
    let b = DeviceBuffer::<f64>::zeros(&dev, 0).unwrap();
    let mut c = DeviceBuffer::<f64>::zeros(&dev, 0).unwrap();
    for n in [1usize << 40, usize::MAX] {
        let bd = DnMat::new(0, n, 1, Order::ColMajor, b.as_slice()).unwrap();
        let mut cd = DnMatMut::new(0, n, 1, Order::ColMajor, c.as_slice_mut()).unwrap();
        plan.compute(1.0, (&a).into(), &bd, 0.0, &mut cd).unwrap();
    }
}

#[test]
fn column_counts_the_buffers_cannot_hold_are_errors() {
    let dev = Device::cpu();
    let b = DeviceBuffer::<f64>::zeros(&dev, 64).unwrap();
    for (n, ld) in [(1usize << 40, 16), (usize::MAX, 16), (8, usize::MAX)] {
        let err = DnMat::new(16, n, ld, Order::ColMajor, b.as_slice()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("ld") || msg.contains("dense"), "{msg}");
    }
    // ld smaller than the rows.
    assert!(DnMat::new(16, 2, 15, Order::ColMajor, b.as_slice()).is_err());
    assert!(DnMat::new(2, 16, 15, Order::RowMajor, b.as_slice()).is_err());
}
