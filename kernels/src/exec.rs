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
//!
//! [`Prepared`] is the same executor split in two for calls repeated with other buffers
//! (a cached small Level 1 plan): [`Prepared::new`] does, once, everything that does not
//! depend on the views (loading, the signature check, finding the kernel, packing every
//! value), and [`Prepared::run`] checks the views exactly as [`execute`] does and writes
//! their addresses into the packed block before launching.

use crate::plan::{Arg, Plan};
use crate::signature::{Packed, ParamType, Value};
use rocm_core::{
    BufferSlice, BufferSliceMut, Device, DeviceBuffer, Element, Error, Kernel, KernelArgs,
    LaunchConfig, Result, Stream,
};
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Mutex;

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
        let loaded = load_checked(step, i, device)?;
        if step.args.len() != sig.params.len() {
            return Err(Error::invalid(
                "plan",
                format!("step {}: {} arguments for {sig}", i + 1, step.args.len()),
            ));
        }
        let bad = |name: &str, why: String| {
            Error::invalid(
                "plan",
                format!("step {} ({}), `{name}`: {why}", i + 1, sig.kernel),
            )
        };
        // The device address of a buffer or workspace argument, its range checked.
        let address = |name: &str, arg: &Arg| -> Result<u64> {
            match arg {
                Arg::Buffer {
                    slot,
                    offset_bytes,
                    touched,
                    access,
                } => {
                    let Some(v) = buffers.get(*slot) else {
                        return Err(bad(
                            name,
                            format!("no view {slot} ({} given)", buffers.len()),
                        ));
                    };
                    view_device(name, v)?;
                    if touched.start > touched.end || touched.end > v.bytes {
                        return Err(bad(
                            name,
                            format!(
                                "bytes {}..{} lie outside the view's {}",
                                touched.start, touched.end, v.bytes
                            ),
                        ));
                    }
                    if *offset_bytes > v.bytes {
                        return Err(bad(
                            name,
                            format!(
                                "offset {offset_bytes} lies outside the view's {} bytes",
                                v.bytes
                            ),
                        ));
                    }
                    if access.writes() && !v.writable {
                        return Err(bad(name, "the kernel writes a read-only view".into()));
                    }
                    Ok(v.address + offset_bytes)
                }
                Arg::Workspace { offset, bytes } => {
                    let Some(ws) = workspace else {
                        return Err(bad(name, "no workspace given".into()));
                    };
                    view_device("workspace", ws)?;
                    if offset.checked_add(*bytes).is_none_or(|end| end > ws.bytes) {
                        return Err(bad(
                            name,
                            format!("workspace bytes {offset}..+{bytes} exceed its {}", ws.bytes),
                        ));
                    }
                    Ok(ws.address + offset)
                }
                other => Err(bad(name, format!("{other} is not device memory"))),
            }
        };
        // The bytes a buffer or workspace argument may touch, from its address.
        let reach = |arg: &Arg| -> u64 {
            match arg {
                Arg::Buffer {
                    offset_bytes,
                    touched,
                    ..
                } => touched.end.saturating_sub(*offset_bytes),
                Arg::Workspace { bytes, .. } => *bytes,
                _ => 0,
            }
        };
        for copy in &step.copies {
            let dst = address("copy destination", &copy.dst)?;
            let src = address("copy source", &copy.src)?;
            let writable = match &copy.dst {
                Arg::Buffer { access, .. } => access.writes(),
                _ => true,
            };
            let starts_inside = |arg: &Arg| match arg {
                Arg::Buffer {
                    offset_bytes,
                    touched,
                    ..
                } => touched.start <= *offset_bytes,
                _ => true,
            };
            if !writable
                || !starts_inside(&copy.dst)
                || !starts_inside(&copy.src)
                || copy.extent(copy.dst_pitch) > reach(&copy.dst)
                || copy.extent(copy.src_pitch) > reach(&copy.src)
            {
                return Err(bad(
                    "copy",
                    format!("{copy} reaches outside its arguments' ranges"),
                ));
            }
            // SAFETY: both rows' ranges lie inside checked views or the workspace
            // (checked above), the destination is writable, and the views outlive the
            // queued copy as any other queued work on them.
            unsafe {
                stream.copy_2d_raw(
                    dst,
                    copy.dst_pitch as usize,
                    src,
                    copy.src_pitch as usize,
                    copy.width as usize,
                    copy.height as usize,
                )?
            };
        }
        let mut values = Vec::with_capacity(step.args.len());
        for (p, arg) in sig.params.iter().zip(&step.args) {
            crate::plan::check_arg(sig, &p.name, p.ty, arg)?;
            values.push(match arg {
                Arg::Value(v) => {
                    debug_assert!(!matches!(p.ty, ParamType::Pointer { .. }));
                    Packed::Value(v.clone())
                }
                Arg::TensorMap { base, desc } => {
                    // The tensor copy engine reads only inside the map's dimensions.
                    let inner = desc.dims.first().copied().unwrap_or(0) * desc.dtype.size() as u64;
                    let extent = desc
                        .dims
                        .iter()
                        .skip(1)
                        .zip(&desc.strides)
                        .fold(inner, |e, (d, s)| e + d.saturating_sub(1) * s);
                    if extent > reach(base) {
                        return Err(bad(
                            &p.name,
                            format!("the tensor map reaches {extent} bytes past {base}"),
                        ));
                    }
                    let mut desc = desc.clone();
                    desc.address = address(&p.name, base)?;
                    let map = device.encode_tensor_map(&desc)?;
                    Packed::Value(Value::Bytes(map.0.to_vec()))
                }
                buffer => Packed::Pointer(address(&p.name, buffer)?),
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

/// Step `i`'s program loaded on `device`, checked to declare the step's signature.
fn load_checked(
    step: &crate::plan::Step,
    i: usize,
    device: &Device,
) -> Result<crate::generator::Loaded> {
    let loaded = step.program.load(device)?;
    if !loaded.program.signatures.contains(&step.signature) {
        return Err(Error::invalid(
            "plan",
            format!(
                "step {}: {} has no kernel {}",
                i + 1,
                step.program.generator(),
                step.signature
            ),
        ));
    }
    Ok(loaded)
}

/// A plan bound to one device: see the module documentation.
#[derive(Debug)]
pub struct Prepared {
    device: Device,
    steps: Vec<PreparedStep>,
}

#[derive(Debug)]
struct PreparedStep {
    kernel: Kernel,
    config: LaunchConfig,
    dependent: bool,
    /// The packed arguments, view addresses written by each run (under the lock, so
    /// concurrent runs of one prepared plan do not mix their addresses).
    args: Mutex<KernelArgs>,
    patches: Vec<Patch>,
}

/// A view address a run writes into parameter `index`.
#[derive(Debug)]
struct Patch {
    index: usize,
    name: String,
    slot: usize,
    offset_bytes: u64,
    touched: Range<u64>,
    writes: bool,
}

impl Prepared {
    /// `plan` bound to `device`, or `None` for plans that need more than view
    /// addresses per call (a workspace, device copies, tensor maps): [`execute`] runs
    /// those. Errors are the ones [`execute`] would give for a step, found now.
    pub fn new(plan: &Plan, device: &Device) -> Result<Option<Prepared>> {
        if plan.workspace_bytes > 0 {
            return Ok(None);
        }
        let mut steps = Vec::with_capacity(plan.steps.len());
        for (i, step) in plan.steps.iter().enumerate() {
            let sig = &step.signature;
            if !step.copies.is_empty() || step.args.len() != sig.params.len() {
                return Ok(None);
            }
            let loaded = load_checked(step, i, device)?;
            let mut values = Vec::with_capacity(step.args.len());
            let mut patches = Vec::new();
            for (index, (p, arg)) in sig.params.iter().zip(&step.args).enumerate() {
                crate::plan::check_arg(sig, &p.name, p.ty, arg)?;
                values.push(match arg {
                    Arg::Value(v) => Packed::Value(v.clone()),
                    Arg::Buffer {
                        slot,
                        offset_bytes,
                        touched,
                        access,
                    } => {
                        if touched.start > touched.end {
                            return Err(Error::invalid(
                                "plan",
                                format!("step {} (`{}`): an empty touched range", i + 1, p.name),
                            ));
                        }
                        patches.push(Patch {
                            index,
                            name: p.name.clone(),
                            slot: *slot,
                            offset_bytes: *offset_bytes,
                            touched: touched.clone(),
                            writes: access.writes(),
                        });
                        Packed::Pointer(0)
                    }
                    Arg::Workspace { .. } | Arg::TensorMap { .. } => return Ok(None),
                });
            }
            steps.push(PreparedStep {
                kernel: loaded.module.kernel(&sig.kernel)?,
                config: step.config,
                dependent: step.dependent,
                args: Mutex::new(sig.pack(&values, device)?),
                patches,
            });
        }
        Ok(Some(Prepared {
            device: device.clone(),
            steps,
        }))
    }

    /// Runs the plan on `stream` with `buffers` (the problem's views in slot order), as
    /// [`execute`] does.
    pub fn run(&self, stream: &Stream, buffers: &[DeviceView<'_>]) -> Result<()> {
        let device = stream.device();
        if device != &self.device {
            return Err(Error::DeviceMismatch {
                what: "stream of a prepared plan".into(),
                expected: self.device.id().into(),
                found: device.id().into(),
            });
        }
        for (i, step) in self.steps.iter().enumerate() {
            let mut args = step.args.lock().unwrap_or_else(|p| p.into_inner());
            for patch in &step.patches {
                let bad = |why: String| {
                    Error::invalid("plan", format!("step {}, `{}`: {why}", i + 1, patch.name))
                };
                let Some(v) = buffers.get(patch.slot) else {
                    return Err(bad(format!(
                        "no view {} ({} given)",
                        patch.slot,
                        buffers.len()
                    )));
                };
                if v.device != device {
                    return Err(Error::DeviceMismatch {
                        what: patch.name.clone(),
                        expected: device.id().into(),
                        found: v.device.id().into(),
                    });
                }
                if patch.touched.end > v.bytes || patch.offset_bytes > v.bytes {
                    return Err(bad(format!(
                        "bytes {}..{} (from offset {}) lie outside the view's {}",
                        patch.touched.start, patch.touched.end, patch.offset_bytes, v.bytes
                    )));
                }
                if patch.writes && !v.writable {
                    return Err(bad("the kernel writes a read-only view".into()));
                }
                if !args.set_pointer(patch.index, v.address + patch.offset_bytes) {
                    return Err(bad("not a pointer parameter".into()));
                }
            }
            // SAFETY: as in `execute`: the arguments were packed from the kernel's own
            // signature (checked against the program when prepared); every pointer now
            // addresses a view borrowed for this call on this device, whose touched
            // bytes lie inside it and are writable where the kernel writes (checked
            // above), and the generator keeps its kernel inside the ranges its plan
            // states. The views outlive the queued launch as any queued work does.
            unsafe {
                if step.dependent {
                    step.kernel.launch_dependent(stream, &step.config, &args)?;
                } else {
                    step.kernel.launch(stream, &step.config, &args)?;
                }
            }
        }
        Ok(())
    }
}
