//! The one executor: runs a [`Plan`] on a stream.
//!
//! [`execute`] is the only place in the workspace that launches generated kernels. Per
//! step it loads the program, checks that the kernel's signature is the one the plan
//! was built against, resolves every argument against the problem's views (each
//! buffer argument's touched bytes inside its view, written only through writable
//! views, every view on the stream's device) and the workspace, packs the arguments as
//! the signature lays them out, and launches (dependent steps through
//! `launch_dependent`). It is a safe function: the views borrow live device memory for
//! the call, and the plan's ranges are checked against them before any launch.

use crate::plan::{Arg, Plan};
use crate::signature::{Packed, ParamType};
use rocm_core::{
    BufferSlice, BufferSliceMut, Device, DeviceBuffer, Element, Error, Result, Stream,
};
use std::marker::PhantomData;

/// A device view a plan may address: start address, length in bytes, device, and
/// whether kernels may write it. Made from borrowed buffers, so it cannot outlive them.
#[derive(Debug, Clone, Copy)]
pub struct DeviceView<'a> {
    address: u64,
    bytes: u64,
    device: &'a Device,
    writable: bool,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> DeviceView<'a> {
    /// A read-only view of `s`.
    pub fn read<T: Element>(s: &'a BufferSlice<'a, T>) -> Self {
        DeviceView {
            address: s.address(),
            bytes: (s.len() * std::mem::size_of::<T>()) as u64,
            device: s.device(),
            writable: false,
            _borrow: PhantomData,
        }
    }

    /// A writable view of `s`.
    pub fn write<T: Element>(s: &'a mut BufferSliceMut<'_, T>) -> Self {
        DeviceView {
            address: s.address(),
            bytes: (s.len() * std::mem::size_of::<T>()) as u64,
            device: s.device(),
            writable: true,
            _borrow: PhantomData,
        }
    }

    /// A writable view of a whole buffer (a workspace).
    pub fn buffer<T: Element>(b: &'a mut DeviceBuffer<T>) -> Self {
        DeviceView {
            address: b.address(),
            bytes: (b.len() * std::mem::size_of::<T>()) as u64,
            device: b.device(),
            writable: true,
            _borrow: PhantomData,
        }
    }

    /// A read-only view of a shared mutable slice (a vector a routine only reads).
    pub fn read_mut<T: Element>(s: &'a BufferSliceMut<'_, T>) -> Self {
        DeviceView {
            address: s.address(),
            bytes: (s.len() * std::mem::size_of::<T>()) as u64,
            device: s.device(),
            writable: false,
            _borrow: PhantomData,
        }
    }

    /// A view of `bytes` bytes of `device` memory at `address`, for callers that hold
    /// an address rather than a buffer (a piece of a workspace they hold).
    ///
    /// # Safety
    /// `address..address + bytes` must be memory of `device` that stays allocated until
    /// the work queued through this view has run, and if `writable`, that nothing else
    /// reads or writes it meanwhile except through work ordered on the same stream.
    pub unsafe fn from_raw(address: u64, bytes: u64, device: &'a Device, writable: bool) -> Self {
        DeviceView {
            address,
            bytes,
            device,
            writable,
            _borrow: PhantomData,
        }
    }

    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Runs `plan` on `stream`: `buffers` are the problem's views in slot order,
/// `workspace` the scratch the plan's workspace arguments address (at least
/// `plan.workspace_bytes`). The launches are queued; the views must stay alive until
/// the stream has run them, which their borrows for this call and the stream order of
/// the caller's later work ensure as for every other queued operation.
pub fn execute(
    plan: &Plan,
    stream: &Stream,
    buffers: &[DeviceView<'_>],
    workspace: Option<&DeviceView<'_>>,
) -> Result<()> {
    let device = stream.device();
    if plan.workspace_bytes > 0 {
        let ws = workspace.ok_or_else(|| {
            Error::invalid(
                "workspace",
                format!("the plan needs {} bytes, none given", plan.workspace_bytes),
            )
        })?;
        if ws.bytes < plan.workspace_bytes || !ws.writable {
            return Err(Error::invalid(
                "workspace",
                format!(
                    "the plan needs {} writable bytes, the workspace has {}{}",
                    plan.workspace_bytes,
                    ws.bytes,
                    if ws.writable { "" } else { " read-only" }
                ),
            ));
        }
    }
    let view_device = |what: &str, v: &DeviceView<'_>| -> Result<()> {
        if v.device != device {
            return Err(Error::DeviceMismatch {
                what: what.to_string(),
                expected: device.id().into(),
                found: v.device.id().into(),
            });
        }
        Ok(())
    };
    for (i, step) in plan.steps.iter().enumerate() {
        let sig = &step.signature;
        let loaded = step.program.load(device)?;
        if !loaded.program.signatures.contains(sig) {
            return Err(Error::invalid(
                "plan",
                format!(
                    "step {}: {} has no kernel {sig}",
                    i + 1,
                    step.program.generator()
                ),
            ));
        }
        if step.args.len() != sig.params.len() {
            return Err(Error::invalid(
                "plan",
                format!("step {}: {} arguments for {sig}", i + 1, step.args.len()),
            ));
        }
        let mut values = Vec::with_capacity(step.args.len());
        for (p, arg) in sig.params.iter().zip(&step.args) {
            crate::plan::check_arg(sig, &p.name, p.ty, arg)?;
            let bad = |why: String| {
                Err(Error::invalid(
                    "plan",
                    format!("step {} ({}), `{}`: {why}", i + 1, sig.kernel, p.name),
                ))
            };
            values.push(match arg {
                Arg::Buffer {
                    slot,
                    offset_bytes,
                    touched,
                    access,
                } => {
                    let Some(v) = buffers.get(*slot) else {
                        return bad(format!("no view {slot} ({} given)", buffers.len()));
                    };
                    view_device(&p.name, v)?;
                    if touched.start > touched.end || touched.end > v.bytes {
                        return bad(format!(
                            "bytes {}..{} lie outside the view's {}",
                            touched.start, touched.end, v.bytes
                        ));
                    }
                    if *offset_bytes > v.bytes {
                        return bad(format!(
                            "offset {offset_bytes} lies outside the view's {} bytes",
                            v.bytes
                        ));
                    }
                    if access.writes() && !v.writable {
                        return bad("the kernel writes a read-only view".into());
                    }
                    Packed::Pointer(v.address + offset_bytes)
                }
                Arg::Workspace { offset, bytes } => {
                    let Some(ws) = workspace else {
                        return bad("no workspace given".into());
                    };
                    view_device("workspace", ws)?;
                    if offset.checked_add(*bytes).is_none_or(|end| end > ws.bytes) {
                        return bad(format!(
                            "workspace bytes {offset}..+{bytes} exceed its {}",
                            ws.bytes
                        ));
                    }
                    Packed::Pointer(ws.address + offset)
                }
                Arg::Value(v) => {
                    debug_assert!(!matches!(p.ty, ParamType::Pointer { .. }));
                    Packed::Value(v.clone())
                }
            });
        }
        let args = sig.pack(&values, device)?;
        let kernel = loaded.module.kernel(&sig.kernel)?;
        // SAFETY: the arguments are packed from the kernel's own signature (the program
        // declares exactly these parameters, checked above). Every pointer addresses a
        // view borrowed for this call on this device, or the workspace; the bytes each
        // may touch, given this geometry, lie inside it and writable where the kernel
        // writes (checked above), and the generator guarantees its kernel stays inside
        // the ranges its plan states. The views outlive the queued launch as any other
        // queued operation on them (the caller's later work is ordered on the stream).
        unsafe {
            if step.dependent {
                kernel.launch_dependent(stream, &step.config, &args)?;
            } else {
                kernel.launch(stream, &step.config, &args)?;
            }
        }
    }
    Ok(())
}
