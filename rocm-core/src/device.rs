//! Devices: opening, enumeration and properties.
//!
//! Device names: `cpu`, `cuda:N`, `hip:N`, `emu:<gfx>`. [`Device::default`] honours the
//! `ROCM_DEVICE` environment variable, else picks the best present device (hip, then
//! cuda, then cpu).

use crate::backend::{self, Backend, BackendStream};
use crate::memory::DeviceBuffer;
use crate::module::{Module, ModuleImage};
use crate::{Element, Error, Result, Stream, Target};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// What a device is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// The name that opens it: `cpu`, `cuda:0`, `hip:1`, `emu:gfx90a`.
    pub id: String,
    /// Marketing name (`NVIDIA H100 80GB HBM3`) or CPU model.
    pub name: String,
    /// The code-generation target.
    #[serde(serialize_with = "serialize_display")]
    pub target: Target,
    /// Device memory in bytes (host memory for the CPU).
    pub total_memory: u64,
    /// Compute units (AMD), SMs (NVIDIA) or hardware threads (CPU).
    pub compute_units: u32,
    /// Peak shader clock, where the backend reports it.
    pub clock_mhz: Option<u32>,
}

fn serialize_display<S: serde::Serializer>(
    t: &Target,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(t)
}

/// The kind of backend a device name selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    Cpu,
    Cuda,
    Hip,
    Emu,
}

#[derive(Debug)]
struct DeviceInner {
    backend: Arc<dyn Backend>,
    /// From the id's prefix, once (libraries ask on every call).
    kind: BackendKind,
    default_stream: OnceLock<Stream>,
}

/// A handle to one device; cheap to clone.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.id())
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        // Handles of one opened device share their state; comparing ids covers devices
        // opened twice (each call of the per-call checks compares devices several times).
        Arc::ptr_eq(&self.inner, &other.inner) || self.id() == other.id()
    }
}
impl Eq for Device {}

impl Device {
    /// Wraps a backend. Backends plug in here (the emulator does so from its own module).
    pub fn from_backend(backend: Arc<dyn Backend>) -> Self {
        Device {
            inner: Arc::new(DeviceInner {
                kind: match backend.info().id.split(':').next() {
                    Some("cuda") => BackendKind::Cuda,
                    Some("hip") => BackendKind::Hip,
                    Some("emu") => BackendKind::Emu,
                    _ => BackendKind::Cpu,
                },
                backend,
                default_stream: OnceLock::new(),
            }),
        }
    }

    /// The CPU device (always present).
    pub fn cpu() -> Self {
        static CPU: OnceLock<Device> = OnceLock::new();
        CPU.get_or_init(|| Device::from_backend(Arc::new(backend::cpu::CpuBackend::new())))
            .clone()
    }

    /// Opens a device by name: `cpu`, `cuda:N`, `hip:N` or `emu:<gfx>`.
    ///
    /// An unknown or absent device is [`Error::DeviceNotFound`] listing the ones present.
    pub fn open(name: &str) -> Result<Self> {
        let not_found = || Error::DeviceNotFound {
            requested: name.to_string(),
            available: available_names(),
        };
        let (kind, rest) = match name.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (name, None),
        };
        match (kind, rest) {
            ("cpu", None) => Ok(Device::cpu()),
            ("cuda", Some(n)) => {
                let ordinal: usize = n.parse().map_err(|_| not_found())?;
                if ordinal >= backend::cuda::device_count() {
                    return Err(not_found());
                }
                backend::cuda::open(ordinal)
            }
            ("hip", Some(n)) => {
                let ordinal: usize = n.parse().map_err(|_| not_found())?;
                if ordinal >= backend::hip::device_count() {
                    return Err(not_found());
                }
                backend::hip::open(ordinal)
            }
            ("emu", Some(gfx)) => crate::emu::open(gfx.parse()?),
            _ => Err(not_found()),
        }
    }

    /// `ROCM_DEVICE` if set, else the best device present: hip, then cuda, then cpu.
    #[allow(clippy::should_implement_trait)]
    pub fn default() -> Result<Self> {
        if let Ok(name) = std::env::var("ROCM_DEVICE") {
            if !name.is_empty() {
                return Device::open(&name);
            }
        }
        if backend::hip::device_count() > 0 {
            return Device::open("hip:0");
        }
        if backend::cuda::device_count() > 0 {
            return Device::open("cuda:0");
        }
        Ok(Device::cpu())
    }

    /// Every device present, with its properties.
    pub fn enumerate() -> Vec<DeviceInfo> {
        let mut out = vec![Device::cpu().info().clone()];
        out.extend(backend::cuda::enumerate());
        out.extend(backend::hip::enumerate());
        out
    }

    pub fn info(&self) -> &DeviceInfo {
        self.inner.backend.info()
    }

    /// The name that opens this device.
    pub fn id(&self) -> &str {
        &self.info().id
    }

    pub fn target(&self) -> &Target {
        &self.info().target
    }

    /// Which backend runs this device.
    pub fn kind(&self) -> BackendKind {
        self.inner.kind
    }

    pub fn is_cpu(&self) -> bool {
        self.kind() == BackendKind::Cpu
    }

    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.inner.backend
    }

    /// The stream operations use when none is given.
    pub fn default_stream(&self) -> &Stream {
        self.inner.default_stream.get_or_init(|| {
            // A backend that cannot create even one stream cannot do anything; fall back
            // to a stream that reports the failure on use.
            let raw = self
                .inner
                .backend
                .new_stream()
                .unwrap_or_else(|e| Arc::new(FailedStream(e)));
            Stream::from_raw(self.clone(), raw)
        })
    }

    /// A new stream.
    pub fn new_stream(&self) -> Result<Stream> {
        Ok(Stream::from_raw(
            self.clone(),
            self.inner.backend.new_stream()?,
        ))
    }

    /// Blocks until the default stream's work is done.
    pub fn synchronize(&self) -> Result<()> {
        self.default_stream().synchronize()
    }

    /// A zeroed buffer of `len` elements.
    pub fn alloc<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::zeros(self, len)
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::from_slice(self, data)
    }

    /// What the device's stream-ordered memory pool holds (`None` without a pool).
    pub fn pool_stats(&self) -> Option<crate::PoolStats> {
        self.backend().pool_stats()
    }

    /// Sets how large copies from and to pageable host memory are staged through
    /// page-locked chunks (devices that copy directly ignore it).
    pub fn set_copy_staging(&self, staging: crate::CopyStaging) -> Result<()> {
        self.backend().set_copy_staging(staging)
    }

    /// Encodes a tensor map (NVIDIA sm_90+ tensor copies) for a tensor in this device's
    /// memory; the description is checked first ([`TensorMapDesc::validate`]). Other
    /// devices answer `Unsupported`.
    ///
    /// [`TensorMapDesc::validate`]: crate::tensor_map::TensorMapDesc::validate
    pub fn encode_tensor_map(
        &self,
        desc: &crate::tensor_map::TensorMapDesc,
    ) -> Result<crate::tensor_map::TensorMap> {
        desc.validate()?;
        self.backend().encode_tensor_map(desc)
    }

    /// Loads a module (PTX on CUDA devices, code objects on HIP and emulated devices).
    pub fn load_module(&self, image: &ModuleImage) -> Result<Module> {
        Ok(Module::new(
            self.clone(),
            self.inner.backend.load_module(image)?,
        ))
    }

    pub(crate) fn check_stream(&self, stream: &Stream) -> Result<()> {
        if stream.device() != self {
            return Err(Error::DeviceMismatch {
                what: "stream".into(),
                expected: self.id().into(),
                found: stream.device().id().into(),
            });
        }
        Ok(())
    }
}

/// Names of every device that can be opened now.
pub fn available_names() -> Vec<String> {
    Device::enumerate().into_iter().map(|d| d.id).collect()
}

/// A stream whose creation failed: every use reports the original error.
#[derive(Debug)]
struct FailedStream(Error);

impl BackendStream for FailedStream {
    fn synchronize(&self) -> Result<()> {
        Err(self.0.clone())
    }
    fn record_event(&self) -> Result<Box<dyn crate::backend::BackendEvent>> {
        Err(self.0.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_always_present() {
        let all = Device::enumerate();
        assert_eq!(all[0].id, "cpu");
        assert_eq!(all[0].target, Target::cpu());
        assert!(all[0].compute_units >= 1);
        assert_eq!(Device::open("cpu").unwrap().id(), "cpu");
    }

    #[test]
    fn unknown_devices_list_the_available_ones() {
        for bad in ["gpu", "cuda:x", "cuda:999", "hip:999", "cpu:0", "", "emu"] {
            match Device::open(bad) {
                Err(Error::DeviceNotFound {
                    requested,
                    available,
                }) => {
                    assert_eq!(requested, bad);
                    assert!(available.contains(&"cpu".to_string()));
                    let msg = Device::open(bad).unwrap_err().to_string();
                    assert!(msg.contains("cpu"), "{msg}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn emulator_names_are_checked() {
        assert!(matches!(
            Device::open("emu:gfx999"),
            Err(Error::UnknownTarget { .. })
        ));
        // A known target the emulator does not run.
        assert!(matches!(
            Device::open("emu:sm_90"),
            Err(Error::Unsupported { .. }) | Err(Error::UnknownTarget { .. })
        ));
        for gfx in [
            "gfx908", "gfx90a", "gfx942", "gfx1100", "gfx1101", "gfx1102", "gfx1151",
        ] {
            let dev = Device::open(&format!("emu:{gfx}")).unwrap();
            assert_eq!(dev.id(), format!("emu:{gfx}"));
            assert_eq!(dev.kind(), BackendKind::Emu);
            assert_eq!(Device::open(&format!("emu:{gfx}")).unwrap(), dev);
        }
        assert!(Device::enumerate().iter().all(|d| !d.id.starts_with("emu")));
    }

    #[test]
    fn streams_and_events() {
        let dev = Device::cpu();
        let s = dev.new_stream().unwrap();
        let a = s.record().unwrap();
        let b = s.record().unwrap();
        assert!(a.elapsed_ms(&b).unwrap() >= 0.0);
        s.synchronize().unwrap();
        assert!(!s.same_as(dev.default_stream()));
        assert!(dev.default_stream().same_as(dev.default_stream()));
    }

    #[test]
    fn cpu_cannot_load_modules() {
        let err = Device::cpu()
            .load_module(&ModuleImage::Ptx(String::new()))
            .unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    }
}
