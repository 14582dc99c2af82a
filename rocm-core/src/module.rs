//! Modules, kernels and launch.
//!
//! A [`ModuleImage`] is what a generator produces: PTX text for CUDA devices or an AMDGPU
//! code object for HIP and emulated devices. [`crate::Device::load_module`] loads it;
//! [`Module::kernel`] finds a kernel; [`Kernel::launch`] queues it with a [`LaunchConfig`]
//! and [`KernelArgs`] packed the way the target's ABI lays out a kernel's parameters.

use crate::backend::{BackendKernel, BackendModule};
use crate::memory::{BufferSlice, BufferSliceMut, DeviceBuffer};
use crate::{Device, Element, Error, Result, Stream};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::sync::{Arc, Mutex};

/// Loadable program bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleImage {
    /// PTX assembly text (CUDA devices; JIT-compiled by the driver).
    Ptx(String),
    /// An AMDGPU code object (ELF) for HIP and emulated devices.
    CodeObject(Vec<u8>),
}

impl ModuleImage {
    /// A short name of the image kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ModuleImage::Ptx(_) => "PTX",
            ModuleImage::CodeObject(_) => "AMDGPU code object",
        }
    }
}

/// Launch geometry: workgroups (blocks) per grid, work-items (threads) per workgroup,
/// dynamic LDS/shared memory bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `grid` workgroups of `block` work-items.
    pub fn linear(grid: u32, block: u32) -> Self {
        LaunchConfig {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            shared_bytes: 0,
        }
    }

    /// Work-items per workgroup.
    pub fn block_size(&self) -> u64 {
        self.block.iter().map(|&b| b as u64).product()
    }

    /// Checks the geometry against the limits every backend shares and the device's
    /// LDS/shared memory size.
    pub fn validate(&self, device: &Device) -> Result<()> {
        if self.grid.contains(&0) || self.block.contains(&0) {
            return Err(Error::invalid(
                "launch config",
                format!(
                    "grid {:?} and block {:?} must be non-zero",
                    self.grid, self.block
                ),
            ));
        }
        if self.grid[0] > i32::MAX as u32 || self.grid[1] > 65535 || self.grid[2] > 65535 {
            return Err(Error::invalid(
                "launch config",
                format!(
                    "grid {:?} exceeds the limits (2^31-1, 65535, 65535)",
                    self.grid
                ),
            ));
        }
        if self.block_size() > 1024 {
            return Err(Error::invalid(
                "launch config",
                format!("block {:?} has more than 1024 work-items", self.block),
            ));
        }
        let lds = device.target().caps().lds_bytes_per_workgroup;
        if self.shared_bytes > lds {
            return Err(Error::invalid(
                "launch config",
                format!(
                    "{} bytes of shared memory requested; {} allows {lds}",
                    self.shared_bytes,
                    device.target()
                ),
            ));
        }
        Ok(())
    }
}

/// One packed parameter: its byte offset and size in [`KernelArgs::bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgSlot {
    pub offset: usize,
    pub size: usize,
}

/// Kernel parameters packed as the CUDA and AMDGPU ABIs lay them out: each parameter at
/// the next offset aligned to its natural alignment (a C struct of the parameters), the
/// total padded to the largest alignment. This is the AMDGPU kernarg segment and the
/// layout of CUDA's parameter buffer; CUDA's `kernelParams` array points into it.
#[derive(Debug, Clone, Default)]
pub struct KernelArgs {
    bytes: Vec<u8>,
    slots: Vec<ArgSlot>,
    max_align: usize,
    /// The device of every pointer argument, checked against the launching device.
    pointer_devices: Vec<Device>,
}

impl KernelArgs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Empty, with room for `params` parameters of up to 8 bytes without reallocating.
    pub fn with_capacity(params: usize) -> Self {
        KernelArgs {
            bytes: Vec::with_capacity(params * 8),
            slots: Vec::with_capacity(params),
            max_align: 0,
            pointer_devices: Vec::with_capacity(params),
        }
    }

    /// Appends raw parameter bytes with the given alignment (a power of two).
    pub fn push_bytes(&mut self, data: &[u8], align: usize) -> &mut Self {
        debug_assert!(align.is_power_of_two());
        let offset = self.bytes.len().next_multiple_of(align);
        self.bytes.resize(offset, 0);
        self.bytes.extend_from_slice(data);
        self.slots.push(ArgSlot {
            offset,
            size: data.len(),
        });
        self.max_align = self.max_align.max(align);
        self
    }

    /// Appends one argument.
    pub fn push(&mut self, arg: impl KernelArg) -> &mut Self {
        arg.pack(self);
        self
    }

    /// Appends a device address (a global pointer parameter) of `device`.
    pub fn push_pointer(&mut self, address: u64, device: &Device) -> &mut Self {
        self.pointer_devices.push(device.clone());
        self.push_bytes(&address.to_le_bytes(), 8)
    }

    /// Overwrites pointer parameter `index` (pushed with [`KernelArgs::push_pointer`])
    /// with `address` of the same device, so a prepared argument block serves every
    /// call; `false` (nothing written) when that parameter is not 8 bytes.
    pub fn set_pointer(&mut self, index: usize, address: u64) -> bool {
        match self.slots.get(index) {
            Some(slot) if slot.size == 8 => {
                self.bytes[slot.offset..slot.offset + 8].copy_from_slice(&address.to_le_bytes());
                true
            }
            _ => false,
        }
    }

    /// The packed parameter block, padded to its alignment.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = self.bytes.clone();
        b.resize(self.size(), 0);
        b
    }

    /// The packed parameters without the final padding (every slot lies inside).
    pub fn packed(&self) -> &[u8] {
        &self.bytes
    }

    /// Size of the packed block (the kernarg segment size).
    pub fn size(&self) -> usize {
        self.bytes.len().next_multiple_of(self.max_align.max(1))
    }

    /// Each parameter's offset and size.
    pub fn slots(&self) -> &[ArgSlot] {
        &self.slots
    }

    /// Checks that every pointer argument belongs to `device`.
    pub fn check_device(&self, device: &Device) -> Result<()> {
        match self.pointer_devices.iter().find(|d| *d != device) {
            Some(other) => Err(Error::DeviceMismatch {
                what: "kernel pointer argument".into(),
                expected: device.id().into(),
                found: other.id().into(),
            }),
            None => Ok(()),
        }
    }
}

/// A value that can be passed to a kernel.
pub trait KernelArg {
    fn pack(&self, args: &mut KernelArgs);
}

macro_rules! scalar_arg {
    ($($t:ty),*) => {$(
        impl KernelArg for $t {
            fn pack(&self, args: &mut KernelArgs) {
                args.push_bytes(bytemuck::bytes_of(self), std::mem::align_of::<$t>());
            }
        }
    )*};
}
scalar_arg!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, f16, bf16);

// float2/double2 in CUDA and HIP are aligned to their full size.
impl KernelArg for Complex32 {
    fn pack(&self, args: &mut KernelArgs) {
        args.push_bytes(bytemuck::bytes_of(self), 8);
    }
}
impl KernelArg for Complex64 {
    fn pack(&self, args: &mut KernelArgs) {
        args.push_bytes(bytemuck::bytes_of(self), 16);
    }
}

impl<T: Element> KernelArg for &BufferSlice<'_, T> {
    fn pack(&self, args: &mut KernelArgs) {
        args.push_pointer(self.address(), self.device());
    }
}
impl<T: Element> KernelArg for &BufferSliceMut<'_, T> {
    fn pack(&self, args: &mut KernelArgs) {
        args.push_pointer(self.address(), self.device());
    }
}
impl<T: Element> KernelArg for &DeviceBuffer<T> {
    fn pack(&self, args: &mut KernelArgs) {
        args.push_pointer(self.address(), self.device());
    }
}

/// A module loaded on a device.
#[derive(Debug, Clone)]
pub struct Module {
    pub(crate) device: Device,
    pub(crate) inner: Arc<dyn BackendModule>,
    /// Kernels already looked up, shared by every clone of this module: a lookup is a
    /// driver call (cuModuleGetFunction) that would otherwise sit on every launch's
    /// host path.
    pub(crate) kernels: Arc<Mutex<Vec<Kernel>>>,
}

impl Module {
    pub(crate) fn new(device: Device, inner: Arc<dyn BackendModule>) -> Self {
        Module {
            device,
            inner,
            kernels: Arc::default(),
        }
    }

    /// The kernel named `name` (the PTX `.entry` or the AMDGPU kernel symbol).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let mut known = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = known.iter().find(|k| &*k.name == name) {
            return Ok(k.clone());
        }
        let k = Kernel {
            device: self.device.clone(),
            name: name.into(),
            inner: self.inner.kernel(name)?,
        };
        known.push(k.clone());
        Ok(k)
    }

    pub fn device(&self) -> &Device {
        &self.device
    }
}

/// A kernel of a loaded module.
#[derive(Debug, Clone)]
pub struct Kernel {
    device: Device,
    name: Arc<str>,
    inner: Arc<dyn BackendKernel>,
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Queues the kernel on `stream`.
    ///
    /// The geometry is validated, and every pointer argument must belong to this kernel's
    /// device; both are errors otherwise.
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list, and the kernel, given this geometry,
    /// must read and write only inside the buffers passed to it, which must outlive the
    /// launch's completion (synchronise the stream before dropping them). On real GPUs
    /// nothing can check this; the emulated device does and reports violations.
    pub unsafe fn launch(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        self.check_launch(stream, config, args)?;
        // SAFETY: forwarded from this function's contract.
        unsafe { self.inner.launch(stream.raw(), config, args) }
    }

    /// As [`Kernel::launch`], but where the target has dependent launches
    /// ([`crate::target::Caps::dependent_launch`]: CUDA programmatic dependent launch)
    /// the kernel may be scheduled while the previous kernel on `stream` still runs.
    /// Everywhere else this is [`Kernel::launch`].
    ///
    /// # Safety
    /// As [`Kernel::launch`], and the kernel must execute `griddepcontrol.wait` before
    /// its first access to memory the previous kernel writes (that instruction returns
    /// once the previous kernel has completed and its writes are visible).
    pub unsafe fn launch_dependent(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        self.check_launch(stream, config, args)?;
        if !self.device.target().caps().dependent_launch {
            // SAFETY: forwarded from this function's contract.
            return unsafe { self.inner.launch(stream.raw(), config, args) };
        }
        // SAFETY: forwarded from this function's contract.
        unsafe { self.inner.launch_dependent(stream.raw(), config, args) }
    }

    fn check_launch(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        if stream.device() != &self.device {
            return Err(Error::DeviceMismatch {
                what: "stream".into(),
                expected: self.device.id().into(),
                found: stream.device().id().into(),
            });
        }
        config.validate(&self.device)?;
        args.check_device(&self.device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_follows_natural_alignment() {
        let dev = Device::cpu();
        let mut a = KernelArgs::new();
        a.push(1u8)
            .push(2.0f64)
            .push(3u32)
            .push_pointer(0xdead_beef, &dev)
            .push(f16::ONE)
            .push(Complex64::new(1.0, 2.0))
            .push(7i32);
        let offs: Vec<_> = a.slots().iter().map(|s| (s.offset, s.size)).collect();
        assert_eq!(
            offs,
            vec![(0, 1), (8, 8), (16, 4), (24, 8), (32, 2), (48, 16), (64, 4)]
        );
        // Padded to the 16-byte alignment of the complex double.
        assert_eq!(a.size(), 80);
        let b = a.bytes();
        assert_eq!(b.len(), 80);
        assert_eq!(&b[8..16], &2.0f64.to_le_bytes());
        assert_eq!(&b[24..32], &0xdead_beefu64.to_le_bytes());
    }

    #[test]
    fn packing_matches_c_struct_layout() {
        #[repr(C)]
        struct Params {
            a: u16,
            b: f32,
            c: u8,
            d: u64,
            e: Complex32,
        }
        let mut a = KernelArgs::new();
        a.push(1u16)
            .push(1.0f32)
            .push(1u8)
            .push(1u64)
            .push(Complex32::new(0.0, 0.0));
        assert_eq!(a.size(), std::mem::size_of::<Params>());
        let offs: Vec<_> = a.slots().iter().map(|s| s.offset).collect();
        assert_eq!(
            offs,
            vec![
                std::mem::offset_of!(Params, a),
                std::mem::offset_of!(Params, b),
                std::mem::offset_of!(Params, c),
                std::mem::offset_of!(Params, d),
                std::mem::offset_of!(Params, e),
            ]
        );
    }

    #[test]
    fn empty_args_have_zero_size() {
        assert_eq!(KernelArgs::new().size(), 0);
    }

    #[test]
    fn launch_config_limits() {
        let dev = Device::cpu();
        assert!(LaunchConfig::linear(0, 64).validate(&dev).is_err());
        assert!(LaunchConfig::linear(1, 2048).validate(&dev).is_err());
        let mut c = LaunchConfig::linear(1, 256);
        c.grid[1] = 70000;
        assert!(c.validate(&dev).is_err());
    }

    #[test]
    fn pointers_of_another_device_are_rejected() {
        let cpu = Device::cpu();
        let mut a = KernelArgs::new();
        a.push_pointer(16, &cpu).push(3u32);
        assert!(a.check_device(&cpu).is_ok());
        a.push_pointer(32, &Device::open("emu:gfx90a").unwrap());
        match a.check_device(&cpu) {
            Err(Error::DeviceMismatch { found, .. }) => assert_eq!(found, "emu:gfx90a"),
            other => panic!("{other:?}"),
        }
    }
}
