//! On a GPU device every rocm-dnn operation without GPU kernels yet (all but softmax and
//! dropout, tested in `gpu_softmax.rs` and `gpu_dropout.rs`) returns `Error::Unsupported` naming the device. The emulated gfx90a stands in for a GPU: it has
//! device memory but no DNN kernels, exactly like a real GPU today.

use rocm_core::{DType, Device, DeviceBuffer, Error, Result};
use rocm_dnn::norm::{ParamGrads, RowKind, SavedStats};
use rocm_dnn::pooling::{PoolDesc, PoolMode};
use rocm_dnn::*;

fn t<'a>(d: &'a TensorDesc, b: &'a DeviceBuffer<f32>) -> Tensor<'a, f32> {
    Tensor::new(d, b.as_slice())
}

fn expect_unsupported(what: &str, dev: &Device, r: Result<impl std::fmt::Debug>) {
    match r {
        Err(Error::Unsupported { op, device }) => {
            assert_eq!(device, dev.to_string(), "{what}: names the device");
            assert!(op.contains("dnn"), "{what}: {op}");
        }
        other => panic!("{what}: expected Unsupported, got {other:?}"),
    }
}

#[test]
fn every_operation_is_unsupported_on_a_gpu_device() {
    let dev = Device::open("emu:gfx90a").expect("the emulated gfx90a is always present");
    let dnn = Dnn::new(&dev).unwrap();
    let d = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 4, 4]).unwrap();
    let buf = |n: usize| DeviceBuffer::<f32>::zeros(&dev, n).unwrap();
    let (x, dy, w) = (buf(32), buf(32), buf(2 * 2 * 9));
    let (mut y, mut dx, mut dw) = (buf(32), buf(32), buf(2 * 2 * 9));
    let wd = TensorDesc::new(DType::F32, Layout::Nchw, &[2, 2, 3, 3]).unwrap();
    let conv = ConvDesc::conv2d(1, 1, 1, 1).unwrap();
    let p = ConvProblem::new(ConvDirection::Forward, &conv, &d, &wd, &d).unwrap();
    expect_unsupported("find", &dev, dnn.find_convolution_algorithm(&p));
    expect_unsupported(
        "conv fwd",
        &dev,
        dnn.convolution_forward(
            &conv,
            Some(ConvAlgo::Direct),
            1.0,
            t(&d, &x),
            Tensor::new(&wd, w.as_slice()),
            0.0,
            TensorMut::new(&d, y.as_slice_mut()),
        ),
    );
    expect_unsupported(
        "conv bwd-data",
        &dev,
        dnn.convolution_backward_data(
            &conv,
            None,
            1.0,
            t(&d, &dy),
            Tensor::new(&wd, w.as_slice()),
            0.0,
            TensorMut::new(&d, dx.as_slice_mut()),
        ),
    );
    expect_unsupported(
        "conv bwd-weights",
        &dev,
        dnn.convolution_backward_weights(
            &conv,
            None,
            1.0,
            t(&d, &x),
            t(&d, &dy),
            0.0,
            TensorMut::new(&wd, dw.as_slice_mut()),
        ),
    );
    expect_unsupported(
        "activation fwd",
        &dev,
        dnn.activation_forward(
            Activation::Relu,
            1.0,
            t(&d, &x),
            0.0,
            TensorMut::new(&d, y.as_slice_mut()),
        ),
    );
    expect_unsupported(
        "activation bwd",
        &dev,
        dnn.activation_backward(
            Activation::Relu,
            1.0,
            t(&d, &x),
            t(&d, &dy),
            0.0,
            TensorMut::new(&d, dx.as_slice_mut()),
        ),
    );
    let pool = PoolDesc::new(PoolMode::Max, &[1, 1], &[0, 0], &[1, 1]).unwrap();
    expect_unsupported(
        "pool fwd",
        &dev,
        dnn.pooling_forward(&pool, t(&d, &x), TensorMut::new(&d, y.as_slice_mut()), None),
    );
    expect_unsupported(
        "pool bwd",
        &dev,
        dnn.pooling_backward(
            &pool,
            t(&d, &x),
            t(&d, &dy),
            None,
            TensorMut::new(&d, dx.as_slice_mut()),
        ),
    );
    let (g, b) = (buf(2), buf(2));
    let (mut s1, mut s2, mut s3, mut s4) = (buf(2), buf(2), buf(2), buf(2));
    expect_unsupported(
        "batch norm fwd training",
        &dev,
        dnn.batch_norm_forward_training(
            t(&d, &x),
            TensorMut::new(&d, y.as_slice_mut()),
            &g.as_slice(),
            &b.as_slice(),
            1e-5,
            0.1,
            &mut s1.as_slice_mut(),
            &mut s2.as_slice_mut(),
            SavedStats {
                mean: &mut s3.as_slice_mut(),
                inv_std: &mut s4.as_slice_mut(),
            },
        ),
    );
    expect_unsupported(
        "batch norm fwd inference",
        &dev,
        dnn.batch_norm_forward_inference(
            t(&d, &x),
            TensorMut::new(&d, y.as_slice_mut()),
            &g.as_slice(),
            &b.as_slice(),
            &s1.as_slice(),
            &s2.as_slice(),
            1e-5,
        ),
    );
    expect_unsupported(
        "batch norm bwd",
        &dev,
        dnn.batch_norm_backward(
            t(&d, &x),
            t(&d, &dy),
            TensorMut::new(&d, dx.as_slice_mut()),
            &g.as_slice(),
            &s1.as_slice(),
            &s2.as_slice(),
            ParamGrads {
                dgamma: &mut s3.as_slice_mut(),
                dbeta: &mut s4.as_slice_mut(),
            },
        ),
    );
    expect_unsupported(
        "layer norm fwd",
        &dev,
        dnn.layer_norm_forward(
            1,
            t(&d, &x),
            TensorMut::new(&d, y.as_slice_mut()),
            None,
            None,
            1e-5,
            SavedStats {
                mean: &mut s3.as_slice_mut(),
                inv_std: &mut s4.as_slice_mut(),
            },
        ),
    );
    expect_unsupported(
        "rms norm fwd",
        &dev,
        dnn.rms_norm_forward(
            1,
            t(&d, &x),
            TensorMut::new(&d, y.as_slice_mut()),
            None,
            1e-5,
            &mut s4.as_slice_mut(),
        ),
    );
    expect_unsupported(
        "group norm fwd",
        &dev,
        dnn.group_norm_forward(
            1,
            t(&d, &x),
            TensorMut::new(&d, y.as_slice_mut()),
            None,
            None,
            1e-5,
            SavedStats {
                mean: &mut s3.as_slice_mut(),
                inv_std: &mut s4.as_slice_mut(),
            },
        ),
    );
    expect_unsupported(
        "norm bwd",
        &dev,
        dnn.norm_backward(
            RowKind::Layer(1),
            t(&d, &x),
            t(&d, &dy),
            TensorMut::new(&d, dx.as_slice_mut()),
            None,
            &s1.as_slice(),
            &s2.as_slice(),
            None,
        ),
    );
    let attn = AttentionDesc {
        scale: 0.5,
        causal: true,
    };
    let mut lse = buf(8);
    expect_unsupported(
        "attention fwd",
        &dev,
        dnn.attention_forward(
            &attn,
            t(&d, &x),
            t(&d, &x),
            t(&d, &x),
            None,
            TensorMut::new(&d, y.as_slice_mut()),
            &mut lse.as_slice_mut(),
        ),
    );
    let (mut dq, mut dk) = (buf(32), buf(32));
    expect_unsupported(
        "attention bwd",
        &dev,
        dnn.attention_backward(
            &attn,
            t(&d, &x),
            t(&d, &x),
            t(&d, &x),
            t(&d, &y),
            t(&d, &dy),
            &lse.as_slice(),
            None,
            TensorMut::new(&d, dq.as_slice_mut()),
            TensorMut::new(&d, dk.as_slice_mut()),
            TensorMut::new(&d, dx.as_slice_mut()),
        ),
    );
}
