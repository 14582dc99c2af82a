//! Where a C-ABI call runs: the device named by `ROCM_DEVICE` (default `cpu`) and the
//! offload threshold `ROCM_CAPI_THRESHOLD`, plus the staging of the caller's host arrays.
//!
//! On the CPU device the caller's arrays are wrapped in place (no copy). On a GPU or an
//! emulated device each operand is copied host→device, the routine runs there, and the
//! outputs are copied back. Level 1 and 2 calls move as much data as they compute on, so
//! they stay on the CPU unless the threshold is 0; Level 3 and LAPACK calls go to the
//! device when their multiply-add count reaches the threshold, as NVBLAS does. A device
//! that has no kernel for a call (`Error::Unsupported`) hands it to the CPU;
//! `ROCM_CAPI_VERBOSE=1` prints each such hand-over.

use rocm_blas::Blas;
use rocm_core::backend::Allocation;
use rocm_core::{BufferSlice, BufferSliceMut, Device, DeviceBuffer, Element, Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

/// Default offload threshold: multiply-adds of a 256³ GEMM.
const DEFAULT_THRESHOLD: f64 = 256.0 * 256.0 * 256.0;

/// What a call costs, for the offload decision.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Work {
    /// Level 1 and 2: on the device only when the threshold is 0.
    Stream,
    /// Level 3 and LAPACK: this many multiply-adds.
    Madds(f64),
}

struct Runtime {
    cpu: Blas,
    /// The `ROCM_DEVICE` handle when it is not the CPU.
    device: Option<Blas>,
    threshold: f64,
    /// Calls on the device share its default stream; one at a time keeps each call's
    /// copies and kernels together.
    device_lock: Mutex<()>,
    verbose: bool,
}

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let verbose = std::env::var("ROCM_CAPI_VERBOSE").is_ok_and(|v| v != "0");
        let name = std::env::var("ROCM_DEVICE").unwrap_or_else(|_| "cpu".into());
        let device = match Device::open(&name) {
            Ok(d) if d.is_cpu() => None,
            Ok(d) => Some(Blas::new(&d)),
            Err(e) => {
                eprintln!("rocm-capi: ROCM_DEVICE={name}: {e}; running on the CPU");
                None
            }
        };
        let threshold = match std::env::var("ROCM_CAPI_THRESHOLD") {
            Ok(v) => v.trim().parse::<f64>().unwrap_or_else(|_| {
                eprintln!(
                    "rocm-capi: ROCM_CAPI_THRESHOLD={v} is not a number; using {DEFAULT_THRESHOLD}"
                );
                DEFAULT_THRESHOLD
            }),
            Err(_) => DEFAULT_THRESHOLD,
        };
        Runtime {
            cpu: Blas::new(&Device::cpu()),
            device,
            threshold,
            device_lock: Mutex::new(()),
            verbose,
        }
    })
}

/// The device calls of `work` go to, if any.
fn offload_target(work: Work) -> Option<&'static Blas> {
    let rt = runtime();
    let dev = rt.device.as_ref()?;
    let go = match work {
        Work::Stream => rt.threshold <= 0.0,
        Work::Madds(m) => m >= rt.threshold,
    };
    go.then_some(dev)
}

/// Runs `f` (which stages its operands through the [`Stage`] it is given) on the device
/// chosen for `work`, or on the CPU. Errors cannot reach a Fortran caller: after the
/// arguments passed XERBLA's checks any error is a defect, printed to stderr.
pub(crate) fn run<R>(
    routine: &dyn std::fmt::Display,
    work: Work,
    f: impl Fn(&Stage) -> Result<R>,
) -> Option<R> {
    let rt = runtime();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if let Some(dev) = offload_target(work) {
            let _one = rt.device_lock.lock().unwrap_or_else(|p| p.into_inner());
            match f(&Stage { blas: dev }) {
                Err(e @ Error::Unsupported { .. }) => {
                    if rt.verbose {
                        eprintln!("rocm-capi: {routine}: {e}; ran on the CPU");
                    }
                }
                other => return other,
            }
        }
        f(&Stage { blas: &rt.cpu })
    }));
    match outcome {
        Ok(Ok(r)) => Some(r),
        Ok(Err(e)) => {
            eprintln!("rocm-capi: {routine}: {e}");
            None
        }
        Err(_) => {
            eprintln!("rocm-capi: {routine}: internal panic (a defect); outputs undefined");
            None
        }
    }
}

/// A caller's host array seen as memory of the CPU device, without copying.
#[derive(Debug)]
struct Borrowed {
    ptr: *mut u8,
    bytes: usize,
}

// SAFETY: the pointer is the caller's array, valid for the duration of the call that
// wraps it; the wrapper never outlives that call and frees nothing.
unsafe impl Send for Borrowed {}
// SAFETY: as above; concurrent access is the caller's concern, as with any BLAS.
unsafe impl Sync for Borrowed {}

impl Allocation for Borrowed {
    fn address(&self) -> u64 {
        self.ptr as u64
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        Some(self.ptr)
    }
}

/// The handle a call runs on, and the staging of its operands there.
pub(crate) struct Stage<'a> {
    pub blas: &'a Blas,
}

/// An operand on the call's device: the caller's array itself (CPU) or a device copy.
pub(crate) struct Operand<T: Element> {
    buf: DeviceBuffer<T>,
    /// Where a device copy goes back to, for outputs off the CPU.
    back: Option<(NonNull<T>, usize)>,
}

impl<T: Element> Operand<T> {
    pub fn view(&self) -> BufferSlice<'_, T> {
        self.buf.as_slice()
    }
    pub fn view_mut(&mut self) -> BufferSliceMut<'_, T> {
        self.buf.as_slice_mut()
    }
    /// Copies an output back into the caller's array (nothing to do on the CPU).
    pub fn finish(self) -> Result<()> {
        if let Some((p, len)) = self.back {
            // SAFETY: `p` is the caller's array of `len` elements, checked non-null
            // (len > 0) by the wrapper and exclusively ours for the call.
            let host = unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), len) };
            self.buf.download(host)?;
        }
        Ok(())
    }
}

impl Stage<'_> {
    fn device(&self) -> &Device {
        self.blas.device()
    }

    /// # Safety
    /// `p` points at `len` readable elements (or `len` is 0).
    unsafe fn wrap<T: Element>(&self, p: *const T, len: usize) -> Result<DeviceBuffer<T>> {
        let ptr = if len == 0 || p.is_null() {
            NonNull::<T>::dangling().as_ptr()
        } else {
            p.cast_mut()
        };
        let alloc = Borrowed {
            ptr: ptr.cast(),
            bytes: if len == 0 {
                0
            } else {
                len * std::mem::size_of::<T>()
            },
        };
        let len = if p.is_null() { 0 } else { len };
        // SAFETY: the caller's array stays valid and unaliased (for outputs) for the
        // call, which is the lifetime of the returned buffer.
        unsafe { DeviceBuffer::from_allocation(self.device(), Box::new(alloc), len) }
    }

    /// An input array of `len` elements.
    ///
    /// # Safety
    /// `p` points at `len` readable elements (or `len` is 0).
    pub unsafe fn input<T: Element>(&self, p: *const T, len: usize) -> Result<Operand<T>> {
        let buf = if self.device().is_cpu() {
            // SAFETY: forwarded from the caller.
            unsafe { self.wrap(p, len)? }
        } else if len == 0 || p.is_null() {
            DeviceBuffer::zeros(self.device(), 0)?
        } else {
            // SAFETY: forwarded from the caller.
            let host = unsafe { std::slice::from_raw_parts(p, len) };
            DeviceBuffer::from_slice(self.device(), host)?
        };
        Ok(Operand { buf, back: None })
    }

    /// An input/output array of `len` elements (copied back by [`Operand::finish`]).
    ///
    /// # Safety
    /// `p` points at `len` readable and writable elements (or `len` is 0), not aliased
    /// by another operand of the call.
    pub unsafe fn output<T: Element>(&self, p: *mut T, len: usize) -> Result<Operand<T>> {
        let mut op = unsafe { self.input(p, len)? };
        if !self.device().is_cpu() && len > 0 {
            op.back = NonNull::new(p).map(|p| (p, len));
        }
        Ok(op)
    }
}
