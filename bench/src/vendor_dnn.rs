//! The cuDNN peer of `rocm-bench dnn ... --vendor`: the same operation on the same
//! device buffers through cuDNN (loaded dynamically by cudarc), timed the same way as
//! ours (back-to-back calls between two context synchronisations).
//! Built with `--features vendor`; otherwise an `Unsupported` error says how to get it.

use rocm_core::{DType, Device, Result};

/// A packed tensor seen as (outer, len, inner) around an axis: cuDNN's
/// `outer × len × inner × 1` NCHW tensor, whose channel mode is the same lines.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "vendor"), allow(dead_code))]
pub struct Shape {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
    pub dtype: DType,
}

/// One softmax problem: device addresses of x, y, dy, dx (each of the shape's size).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "vendor"), allow(dead_code))]
pub struct SoftmaxCall {
    pub shape: Shape,
    pub log: bool,
    pub x: u64,
    pub y: u64,
    pub dy: u64,
    pub dx: u64,
}

/// One dropout problem: probability and device addresses of x, y (forward) and dy, dx
/// (backward); cuDNN keeps its own generator states and reserve space.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "vendor"), allow(dead_code))]
pub struct DropoutCall {
    pub shape: Shape,
    pub p: f32,
    pub x: u64,
    pub y: u64,
    pub dy: u64,
    pub dx: u64,
}

#[cfg(feature = "vendor")]
mod peer {
    use super::Shape;
    use cudarc::cudnn::sys;
    use rocm_core::{DType, Device, Error, Result};

    pub fn check(what: &str, s: sys::cudnnStatus_t) -> Result<()> {
        if s == sys::cudnnStatus_t::CUDNN_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(Error::backend(what, s as i64, format!("{s:?}")))
        }
    }

    /// A cuDNN handle in the device's primary context (bound by the cuBLAS peer, whose
    /// timer it uses) and one tensor descriptor.
    pub struct Cudnn {
        pub timer: crate::vendor::Cublas,
        pub handle: sys::cudnnHandle_t,
        pub desc: sys::cudnnTensorDescriptor_t,
    }

    impl Cudnn {
        pub fn new(dev: &Device, shape: &Shape) -> Result<Cudnn> {
            let timer = crate::vendor::Cublas::for_device(dev)?;
            // SAFETY: probing the library only dlopens it.
            if !unsafe { sys::is_culib_present() } {
                return Err(Error::unsupported(
                    "cuDNN peer",
                    format!("{} (libcudnn not found on the library path)", dev.id()),
                ));
            }
            let dtype = match shape.dtype {
                DType::F32 => sys::cudnnDataType_t::CUDNN_DATA_FLOAT,
                DType::F16 => sys::cudnnDataType_t::CUDNN_DATA_HALF,
                DType::Bf16 => sys::cudnnDataType_t::CUDNN_DATA_BFLOAT16,
                d => return Err(Error::unsupported(format!("cuDNN with {d}"), dev.id())),
            };
            let int = |what, v| crate::vendor::int(what, v);
            let (n, c, h) = (
                int("outer", shape.outer)?,
                int("len", shape.len)?,
                int("inner", shape.inner)?,
            );
            let mut me = Cudnn {
                timer,
                handle: std::ptr::null_mut(),
                desc: std::ptr::null_mut(),
            };
            // SAFETY: each call writes the handle or descriptor passed; the context is
            // bound to this thread; the dims are positive ints.
            unsafe {
                check("cudnnCreate", sys::cudnnCreate(&mut me.handle))?;
                check(
                    "cudnnCreateTensorDescriptor",
                    sys::cudnnCreateTensorDescriptor(&mut me.desc),
                )?;
                check(
                    "cudnnSetTensor4dDescriptor",
                    sys::cudnnSetTensor4dDescriptor(
                        me.desc,
                        sys::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
                        dtype,
                        n,
                        c,
                        h,
                        1,
                    ),
                )?;
            }
            Ok(me)
        }
    }

    impl Drop for Cudnn {
        fn drop(&mut self) {
            // SAFETY: created in `new` (or null, which cuDNN ignores), destroyed once.
            unsafe {
                let _ = sys::cudnnDestroyTensorDescriptor(self.desc);
                let _ = sys::cudnnDestroy(self.handle);
            }
        }
    }
}

/// Mean seconds per cuDNN softmax forward and backward (accurate, or log) over `iters`
/// after two warm-ups.
#[cfg(feature = "vendor")]
pub fn softmax_times(dev: &Device, call: &SoftmaxCall, iters: u32) -> Result<(f64, f64)> {
    use cudarc::cudnn::sys;
    use peer::check;
    use std::ffi::c_void;
    let c = peer::Cudnn::new(dev, &call.shape)?;
    let algo = if call.log {
        sys::cudnnSoftmaxAlgorithm_t::CUDNN_SOFTMAX_LOG
    } else {
        sys::cudnnSoftmaxAlgorithm_t::CUDNN_SOFTMAX_ACCURATE
    };
    let mode = sys::cudnnSoftmaxMode_t::CUDNN_SOFTMAX_MODE_CHANNEL;
    let (one, zero) = (1f32, 0f32);
    let alpha = &one as *const f32 as *const c_void;
    let beta = &zero as *const f32 as *const c_void;
    let ptr = |a: u64| a as *mut c_void;
    let fwd = c.timer.time(iters, |_| {
        // SAFETY: x and y are live device buffers of the descriptor's size and type,
        // kept alive by the caller across this call.
        check("cudnnSoftmaxForward", unsafe {
            sys::cudnnSoftmaxForward(
                c.handle,
                algo,
                mode,
                alpha,
                c.desc,
                ptr(call.x),
                beta,
                c.desc,
                ptr(call.y),
            )
        })
    })?;
    let bwd = c.timer.time(iters, |_| {
        // SAFETY: as above, for y, dy and dx.
        check("cudnnSoftmaxBackward", unsafe {
            sys::cudnnSoftmaxBackward(
                c.handle,
                algo,
                mode,
                alpha,
                c.desc,
                ptr(call.y),
                c.desc,
                ptr(call.dy),
                beta,
                c.desc,
                ptr(call.dx),
            )
        })
    })?;
    Ok((fwd, bwd))
}

/// Mean seconds per cuDNN dropout forward and backward over `iters` after two
/// warm-ups (generator states and reserve space allocated on `dev` first, untimed).
#[cfg(feature = "vendor")]
pub fn dropout_times(dev: &Device, call: &DropoutCall, iters: u32) -> Result<(f64, f64)> {
    use cudarc::cudnn::sys;
    use peer::check;
    use std::ffi::c_void;
    let c = peer::Cudnn::new(dev, &call.shape)?;
    let (mut states_len, mut reserve_len) = (0usize, 0usize);
    let mut drop_desc: sys::cudnnDropoutDescriptor_t = std::ptr::null_mut();
    // SAFETY: the calls write the sizes and the descriptor passed.
    unsafe {
        check(
            "cudnnDropoutGetStatesSize",
            sys::cudnnDropoutGetStatesSize(c.handle, &mut states_len),
        )?;
        check(
            "cudnnDropoutGetReserveSpaceSize",
            sys::cudnnDropoutGetReserveSpaceSize(c.desc, &mut reserve_len),
        )?;
        check(
            "cudnnCreateDropoutDescriptor",
            sys::cudnnCreateDropoutDescriptor(&mut drop_desc),
        )?;
    }
    let states = dev.alloc::<u8>(states_len.max(1))?;
    let reserve = dev.alloc::<u8>(reserve_len.max(1))?;
    let ptr = |a: u64| a as *mut c_void;
    let times = (|| {
        // SAFETY: `states` is a live device buffer of `states_len` bytes, kept until
        // the descriptor is destroyed below.
        check("cudnnSetDropoutDescriptor", unsafe {
            sys::cudnnSetDropoutDescriptor(
                drop_desc,
                c.handle,
                call.p,
                ptr(states.address()),
                states_len,
                1234,
            )
        })?;
        let fwd = c.timer.time(iters, |_| {
            // SAFETY: x, y and the reserve space are live device buffers of the
            // descriptor's size (the reserve of `reserve_len` bytes).
            check("cudnnDropoutForward", unsafe {
                sys::cudnnDropoutForward(
                    c.handle,
                    drop_desc,
                    c.desc,
                    ptr(call.x),
                    c.desc,
                    ptr(call.y),
                    ptr(reserve.address()),
                    reserve_len,
                )
            })
        })?;
        let bwd = c.timer.time(iters, |_| {
            // SAFETY: as above, for dy and dx.
            check("cudnnDropoutBackward", unsafe {
                sys::cudnnDropoutBackward(
                    c.handle,
                    drop_desc,
                    c.desc,
                    ptr(call.dy),
                    c.desc,
                    ptr(call.dx),
                    ptr(reserve.address()),
                    reserve_len,
                )
            })
        })?;
        Ok((fwd, bwd))
    })();
    c.timer.synchronize()?;
    // SAFETY: created above, destroyed once after its last use.
    let _ = unsafe { sys::cudnnDestroyDropoutDescriptor(drop_desc) };
    times
}

#[cfg(not(feature = "vendor"))]
fn no_peer(dev: &Device) -> rocm_core::Error {
    rocm_core::Error::unsupported(
        "the cuDNN peer (build rocm-bench with --features vendor)",
        dev.id(),
    )
}

#[cfg(not(feature = "vendor"))]
pub fn softmax_times(dev: &Device, _call: &SoftmaxCall, _iters: u32) -> Result<(f64, f64)> {
    Err(no_peer(dev))
}

#[cfg(not(feature = "vendor"))]
pub fn dropout_times(dev: &Device, _call: &DropoutCall, _iters: u32) -> Result<(f64, f64)> {
    Err(no_peer(dev))
}
