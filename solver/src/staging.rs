//! Host access to device data for the host parts of the hybrid algorithms.
//!
//! The unblocked kernels (`kernels.rs`, the Householder panels, the tridiagonal and
//! bidiagonal iterations) run on host slices. On the CPU device a view *is* a host slice
//! and is borrowed in place (the CPU path is unchanged). On any other device the view's
//! range is copied down, worked on, and copied back when the guard drops: MAGMA's hybrid
//! scheme, with every trailing update still a rocm-blas call on the device.
//!
//! Copies use the device's default stream, the stream [`rocm_blas::Blas::new`] queues
//! on, so a download is ordered after the BLAS work that produced the data.

use rocm_core::{BufferSlice, BufferSliceMut, Element, Error, Result};
use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

thread_local! {
    /// The first copy-back that failed in a guard's drop (drop cannot return it).
    static DEFERRED: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// Returns (and clears) the error of a copy-back that failed since the last call.
pub(crate) fn deferred() -> Result<()> {
    match DEFERRED.with(|d| d.borrow_mut().take()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The first `len` elements of `buf` on the host: borrowed on the CPU, copied elsewhere.
pub(crate) fn stage<'a, T: Element>(buf: &BufferSlice<'a, T>, len: usize) -> Result<Cow<'a, [T]>> {
    if let Some(h) = buf.as_host() {
        return Ok(Cow::Borrowed(h));
    }
    deferred()?;
    let len = len.min(buf.len());
    let mut out = vec![T::default(); len];
    buf.slice(..len)?.download(&mut out)?;
    Ok(Cow::Owned(out))
}

/// Mutable host access to the first `len` elements of a view (all of it on the CPU).
pub(crate) struct HostMut<'b, T: Element> {
    inner: Inner<'b, T>,
}

enum Inner<'b, T: Element> {
    Borrowed(&'b mut [T]),
    Copied {
        buf: BufferSliceMut<'b, T>,
        data: Vec<T>,
    },
}

/// Stages the first `len` elements of `buf` for host writes; on a device they are
/// copied back when the guard drops.
pub(crate) fn stage_mut<'b, T: Element>(
    buf: &'b mut BufferSliceMut<'_, T>,
    len: usize,
) -> Result<HostMut<'b, T>> {
    if buf.as_host().is_some() {
        let device = buf.device();
        let h = buf
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("host access in rocm-solver", device))?;
        return Ok(HostMut {
            inner: Inner::Borrowed(h),
        });
    }
    deferred()?;
    let len = len.min(buf.len());
    let part = buf.slice_mut(..len)?;
    let mut data = vec![T::default(); len];
    part.download(&mut data)?;
    Ok(HostMut {
        inner: Inner::Copied { buf: part, data },
    })
}

impl<T: Element> HostMut<'_, T> {
    /// Copies the host data back now, returning any failure.
    pub(crate) fn commit(mut self) -> Result<()> {
        let r = self.write_back();
        self.inner = Inner::Borrowed(&mut []);
        r
    }

    fn write_back(&mut self) -> Result<()> {
        match &mut self.inner {
            Inner::Borrowed(_) => Ok(()),
            Inner::Copied { buf, data } => buf.upload(data),
        }
    }
}

impl<T: Element> Drop for HostMut<'_, T> {
    fn drop(&mut self) {
        if let Err(e) = self.write_back() {
            DEFERRED.with(|d| {
                d.borrow_mut().get_or_insert(e);
            });
        }
    }
}

impl<T: Element> Deref for HostMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.inner {
            Inner::Borrowed(h) => h,
            Inner::Copied { data, .. } => data.as_slice(),
        }
    }
}

impl<T: Element> DerefMut for HostMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.inner {
            Inner::Borrowed(h) => h,
            Inner::Copied { data, .. } => data.as_mut_slice(),
        }
    }
}

/// Stages a whole workspace buffer for host writes, as [`stage_mut`].
pub(crate) fn stage_buffer_mut<T: Element>(
    w: &mut rocm_core::DeviceBuffer<T>,
) -> Result<HostMut<'_, T>> {
    if w.as_host().is_some() {
        let device = w.device().clone();
        let h = w
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("host access in rocm-solver", &device))?;
        return Ok(HostMut {
            inner: Inner::Borrowed(h),
        });
    }
    deferred()?;
    let len = w.len();
    let mut data = vec![T::default(); len];
    w.download(&mut data)?;
    Ok(HostMut {
        inner: Inner::Copied {
            buf: w.as_slice_mut(),
            data,
        },
    })
}
