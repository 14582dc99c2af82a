//! The emulated AMD device `emu:<gfx>`: runs AMDGPU code objects on the CPU, wave by
//! wave, against device buffers with bounds checks, and reports what hardware would leave
//! undefined (out-of-bounds accesses, missing `s_waitcnt`, violated hazards) as
//! [`crate::Error::KernelFault`].
//!
//! ```
//! use rocm_core::Device;
//! let dev = Device::open("emu:gfx90a")?;
//! let buf = dev.upload(&[1.0f32, 2.0])?;
//! assert_eq!(buf.to_vec()?, vec![1.0, 2.0]);
//! assert!(buf.as_host().is_none()); // emulated memory is not host memory
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! # Design
//!
//! | Module | Concept |
//! |---|---|
//! | [`memory`] | one address space per device: regions with guard gaps, per-access bounds |
//! | [`program`] | a kernel decoded once, branch targets resolved to instruction indices |
//! | [`wave`] | the state of one wave: register files per target, EXEC/VCC/SCC/M0 |
//! | [`exec`] | the semantics of one instruction (ALU math delegated to [`alu`], [`matrix`]) |
//! | [`dispatch`] | a launch: kernargs, initial registers, workgroups, barriers, budget |
//!
//! Rules of the device:
//! - One device per target per process (`Device::open("emu:gfx90a")` twice gives the
//!   same device), so buffers and modules opened separately still share an address space.
//! - Streams run work synchronously, like the CPU device; events carry wall-clock time.
//! - A module must be a code object for exactly the device's processor (gfx90a code does
//!   not load on `emu:gfx942`); each kernel is decoded once at load, from its entry to
//!   the end of its section, so the functions it calls (placed after it by the linker)
//!   are there for `s_swappc_b64`/`s_setpc_b64`, which jump by address.
//! - Code compiled by clang-19 runs as is: `tests/corpus` (OpenCL C) is run on every
//!   emulated target at -O2 and -O3 against host computations.
//! - Before each instruction of each wave, the wave's waitcnt [`Scoreboard`] and
//!   [`HazardTracker`] are asked whether it may issue; a refusal is a fault.
//!
//! - Faults ([`crate::Error::KernelFault`]) name the kernel, the byte pc of the
//!   instruction from the kernel's entry, the lane and address where there is one, and
//!   say what happened after the instruction's text: out-of-bounds global/scalar/LDS
//!   accesses, missing `s_waitcnt`, hazards, registers beyond the allocation, branches
//!   into the middle of an instruction, running off the code, an instruction the
//!   emulator cannot execute, and an exhausted instruction budget
//!   ([`dispatch::DEFAULT_BUDGET`], `ROCM_EMU_MAX_INSTRUCTIONS`,
//!   [`dispatch::with_instruction_budget`]).
//!
//! # Performance
//!
//! Kernels are decoded once at module load. Each instruction resolves its operands once
//! per wave (uniform values vs. per-lane register entries) and then loops over the set
//! bits of EXEC. `cargo bench -p rocm-core --bench emu` reports lane-instructions per
//! second ([`executed`] counts them); the per-instruction waitcnt and hazard checks are
//! a large share of the time (the hazard tracker's rule matching dominates on gfx9).
//!
//! [`Scoreboard`]: crate::isa::amdgpu::waitcnt::Scoreboard
//! [`HazardTracker`]: crate::isa::amdgpu::hazard::HazardTracker

pub mod alu;
pub mod atomic;
pub mod dispatch;
pub mod exec;
pub mod ext;
mod graph;
pub mod matrix;
pub mod memory;
pub mod program;
pub mod wave;

#[cfg(test)]
mod tests;

use crate::backend::{
    downcast_stream, Allocation, Backend, BackendEvent, BackendGraph, BackendKernel, BackendModule,
    BackendStream,
};
use crate::isa::amdgpu::codeobj::CodeObject;
use crate::isa::amdgpu::IsaTarget;
use crate::module::{KernelArgs, LaunchConfig, ModuleImage};
use crate::{Device, DeviceInfo, Error, Result, Target};
use dispatch::{EmuKernel, LaunchStats};
use graph::{GraphMemory, HostPtr, Op, Recording};
use memory::AddressSpace;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

/// What went wrong inside one instruction, before the dispatcher adds the kernel name
/// and pc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub lane: Option<u32>,
    pub address: Option<u64>,
    pub what: String,
}

impl Fault {
    pub fn new(what: impl Into<String>) -> Fault {
        Fault {
            lane: None,
            address: None,
            what: what.into(),
        }
    }

    pub fn at(lane: Option<u32>, address: u64, what: impl Into<String>) -> Fault {
        Fault {
            lane,
            address: Some(address),
            what: what.into(),
        }
    }

    pub fn on_lane(mut self, lane: u32) -> Fault {
        self.lane = Some(lane);
        self
    }
}

/// The device `emu:<gfx>` for a target (one per target per process).
pub fn open(target: Target) -> Result<Device> {
    let isa = IsaTarget::from_arch(target.arch()).map_err(|_| {
        Error::unsupported(
            "the emulated AMD device",
            format!(
                "emu:{target} (emulated targets: {})",
                IsaTarget::ALL.map(|t| t.name()).join(", ")
            ),
        )
    })?;
    static DEVICES: OnceLock<Mutex<HashMap<IsaTarget, Device>>> = OnceLock::new();
    let mut map = DEVICES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .map_err(|_| Error::backend("emu", 0, "device table poisoned"))?;
    Ok(map
        .entry(isa)
        .or_insert_with(|| Device::from_backend(Arc::new(EmuBackend::new(target, isa))))
        .clone())
}

type Shared = Arc<Mutex<AddressSpace>>;

fn lock(mem: &Shared) -> Result<MutexGuard<'_, AddressSpace>> {
    mem.lock()
        .map_err(|_| Error::backend("emu", 0, "address space lock poisoned"))
}

/// The emulated device.
#[derive(Debug)]
pub struct EmuBackend {
    info: DeviceInfo,
    isa: IsaTarget,
    mem: Shared,
    /// Dispatch ids, one per launch on this device (the `dispatch_id` user SGPRs).
    dispatches: Arc<AtomicU64>,
}

impl EmuBackend {
    pub fn new(target: Target, isa: IsaTarget) -> Self {
        EmuBackend {
            info: DeviceInfo {
                id: format!("emu:{}", isa.name()),
                name: format!("AMDGPU emulator ({})", isa.name()),
                target,
                // Nominal: the emulator allocates host memory on demand.
                total_memory: 16 << 30,
                compute_units: 1,
                clock_mhz: None,
            },
            isa,
            mem: Arc::new(Mutex::new(AddressSpace::new())),
            dispatches: Arc::new(AtomicU64::new(0)),
        }
    }

    fn stream<'a>(&self, s: &'a dyn BackendStream) -> Result<&'a EmuStream> {
        downcast_stream::<EmuStream>(s, &self.info.id)
    }

    /// `bytes` zeroed bytes of the address space; `graph` takes over their unmap while
    /// a graph that uses them lives.
    fn map(&self, bytes: usize, graph: Option<Arc<GraphMemory>>) -> Result<Box<dyn Allocation>> {
        let base = lock(&self.mem)?.map(bytes).ok_or(Error::OutOfMemory {
            device: self.info.id.clone(),
            bytes,
        })?;
        Ok(Box::new(EmuAllocation {
            mem: self.mem.clone(),
            base,
            bytes,
            graph,
        }))
    }

    fn oob(&self, what: &str, addr: u64, bytes: usize) -> Error {
        Error::OutOfBounds {
            what: format!(
                "{what} of {bytes} bytes at {addr:#x} outside every allocation of {}",
                self.info.id
            ),
        }
    }
}

/// Emulated device memory; unmapped on drop.
#[derive(Debug)]
struct EmuAllocation {
    mem: Shared,
    base: u64,
    bytes: usize,
    /// Set for memory allocated on a capturing stream: the graph unmaps it.
    graph: Option<Arc<GraphMemory>>,
}

impl Allocation for EmuAllocation {
    fn address(&self) -> u64 {
        self.base
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for EmuAllocation {
    fn drop(&mut self) {
        if self.graph.as_ref().is_some_and(|g| g.defer(self.base)) {
            return;
        }
        if let Ok(mut m) = self.mem.lock() {
            m.unmap(self.base);
        }
    }
}

/// Streams run work when it is queued, or record it while they capture a graph.
#[derive(Debug, Default)]
pub struct EmuStream {
    recording: Mutex<Option<Recording>>,
}

impl EmuStream {
    fn recording(&self) -> MutexGuard<'_, Option<Recording>> {
        self.recording.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn is_recording(&self) -> bool {
        self.recording().is_some()
    }

    /// Records `op` if the stream captures, else runs it now.
    fn queue(&self, mem: &Shared, device: &str, op: Op) -> Result<()> {
        if let Some(rec) = self.recording().as_mut() {
            rec.push(op);
            return Ok(());
        }
        graph::run(mem, device, &op)
    }

    /// The error of a synchronous host copy on a capturing stream.
    fn host_copy(&self, what: &str) -> Result<()> {
        if self.is_recording() {
            return Err(Error::not_capturable(
                format!("a {what} with pageable host memory"),
                "copy through a PinnedBuffer (upload_async / download_async)",
            ));
        }
        Ok(())
    }
}

impl BackendStream for EmuStream {
    fn synchronize(&self) -> Result<()> {
        if self.is_recording() {
            return Err(Error::not_capturable(
                "Stream::synchronize",
                "a capturing stream runs nothing until its graph is launched",
            ));
        }
        Ok(())
    }
    fn record_event(&self) -> Result<Box<dyn BackendEvent>> {
        Ok(Box::new(EmuEvent(Instant::now())))
    }
    fn is_capturing(&self) -> bool {
        self.is_recording()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[derive(Debug)]
pub struct EmuEvent(Instant);

impl BackendEvent for EmuEvent {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn elapsed_ms(&self, later: &dyn BackendEvent) -> Result<f32> {
        let later = later
            .as_any()
            .downcast_ref::<EmuEvent>()
            .ok_or_else(|| Error::invalid("event", "events are from different devices"))?;
        Ok(later.0.saturating_duration_since(self.0).as_secs_f32() * 1e3)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Backend for EmuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: usize) -> Result<Box<dyn Allocation>> {
        if graph::capturing_here(&self.mem) {
            return Err(Error::not_capturable(
                "Device::alloc",
                "a stream of this device is capturing a graph; allocate with \
                 Stream::alloc on the capturing stream",
            ));
        }
        self.map(bytes, None)
    }

    fn alloc_on(&self, stream: &dyn BackendStream, bytes: usize) -> Result<Box<dyn Allocation>> {
        let s = self.stream(stream)?;
        let graph = s.recording().as_ref().map(Recording::memory);
        let Some(graph) = graph else {
            return self.map(bytes, None);
        };
        let alloc = self.map(bytes, Some(graph))?;
        // Every replay starts from zeros, as the captured allocation and memset do on
        // CUDA (the memory is zero now, at capture).
        s.queue(
            &self.mem,
            &self.info.id,
            Op::Fill {
                dst: alloc.address(),
                value: 0,
                bytes,
            },
        )?;
        Ok(alloc)
    }

    fn write(&self, stream: &dyn BackendStream, dst: u64, src: &[u8]) -> Result<()> {
        self.stream(stream)?.host_copy("host-to-device copy")?;
        lock(&self.mem)?
            .slice_mut(dst, src.len())
            .ok_or_else(|| self.oob("write", dst, src.len()))?
            .copy_from_slice(src);
        Ok(())
    }

    fn read(&self, stream: &dyn BackendStream, src: u64, dst: &mut [u8]) -> Result<()> {
        self.stream(stream)?.host_copy("device-to-host copy")?;
        dst.copy_from_slice(
            lock(&self.mem)?
                .slice(src, dst.len())
                .ok_or_else(|| self.oob("read", src, dst.len()))?,
        );
        Ok(())
    }

    unsafe fn write_async(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        src: *const u8,
        len: usize,
    ) -> Result<()> {
        let op = Op::Upload {
            dst,
            src: HostPtr(src as *mut u8),
            len,
        };
        self.stream(stream)?.queue(&self.mem, &self.info.id, op)
    }

    unsafe fn read_async(
        &self,
        stream: &dyn BackendStream,
        src: u64,
        dst: *mut u8,
        len: usize,
    ) -> Result<()> {
        let op = Op::Download {
            src,
            dst: HostPtr(dst),
            len,
        };
        self.stream(stream)?.queue(&self.mem, &self.info.id, op)
    }

    fn copy(&self, stream: &dyn BackendStream, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let op = Op::Copy { dst, src, bytes };
        self.stream(stream)?.queue(&self.mem, &self.info.id, op)
    }

    fn fill_bytes(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        value: u8,
        bytes: usize,
    ) -> Result<()> {
        let op = Op::Fill { dst, value, bytes };
        self.stream(stream)?.queue(&self.mem, &self.info.id, op)
    }

    fn new_stream(&self) -> Result<Arc<dyn BackendStream>> {
        Ok(Arc::new(EmuStream::default()))
    }

    fn begin_capture(&self, stream: &dyn BackendStream) -> Result<()> {
        let s = self.stream(stream)?;
        let mut rec = s.recording();
        if rec.is_some() {
            return Err(Error::invalid(
                "capture",
                "this stream is already capturing",
            ));
        }
        if graph::capturing_here(&self.mem) {
            return Err(Error::invalid(
                "capture",
                format!(
                    "another stream of {} is already capturing a graph",
                    self.info.id
                ),
            ));
        }
        *rec = Some(Recording::new(self.mem.clone()));
        graph::set_capturing(&self.mem, true);
        Ok(())
    }

    fn end_capture(&self, stream: &dyn BackendStream) -> Result<Box<dyn BackendGraph>> {
        let s = self.stream(stream)?;
        let rec = s
            .recording()
            .take()
            .ok_or_else(|| Error::invalid("capture", "this stream is not capturing"))?;
        graph::set_capturing(&self.mem, false);
        Ok(Box::new(rec.finish(self.info.id.clone())))
    }

    fn load_module(&self, image: &ModuleImage) -> Result<Arc<dyn BackendModule>> {
        let bytes = match image {
            ModuleImage::CodeObject(b) => b,
            other => {
                return Err(Error::unsupported(
                    format!("loading a {} module", other.kind_name()),
                    &self.info.id,
                ))
            }
        };
        let (co, section_code) = CodeObject::parse_with_section_code(bytes)?;
        if co.target.isa != self.isa {
            return Err(Error::Module(format!(
                "the code object is for {} ({}); {} runs {} code only",
                co.target.isa,
                co.target.target_id(),
                self.info.id,
                self.isa
            )));
        }
        let mut kernels = HashMap::new();
        let mut code = Vec::new();
        for (k, full) in co.kernels.iter().zip(&section_code) {
            // The kernel and what follows it in its section (the functions it calls).
            let full = &full[..full.len() / 4 * 4];
            let words: Vec<u32> = full
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let resources = k.descriptor.resources(co.target)?;
            let region = self.map(full.len().max(4), None)?;
            lock(&self.mem)?
                .slice_mut(region.address(), full.len())
                .ok_or_else(|| self.oob("code upload", region.address(), full.len()))?
                .copy_from_slice(full);
            let kernel = EmuKernel {
                name: k.name().to_string(),
                target: self.isa,
                program: program::Program::decode(&words, self.isa),
                descriptor: k.descriptor,
                resources,
                metadata: k.metadata.clone(),
                code_base: region.address(),
            };
            code.push(region);
            kernels.insert(k.name().to_string(), Arc::new(kernel));
        }
        Ok(Arc::new(EmuModule {
            device: self.info.id.clone(),
            mem: self.mem.clone(),
            kernels,
            dispatches: self.dispatches.clone(),
            _code: Arc::new(code),
        }))
    }
}

/// A loaded code object: its kernels, decoded, and the memory holding their code.
#[derive(Debug)]
struct EmuModule {
    device: String,
    mem: Shared,
    kernels: HashMap<String, Arc<EmuKernel>>,
    dispatches: Arc<AtomicU64>,
    _code: Arc<Vec<Box<dyn Allocation>>>,
}

impl BackendModule for EmuModule {
    fn kernel(&self, name: &str) -> Result<Arc<dyn BackendKernel>> {
        let kernel = self.kernels.get(name).cloned().ok_or_else(|| {
            let mut names: Vec<_> = self.kernels.keys().cloned().collect();
            names.sort();
            Error::Module(format!(
                "no kernel `{name}` in the code object; it has: {}",
                names.join(", ")
            ))
        })?;
        Ok(Arc::new(EmuLaunchable {
            device: self.device.clone(),
            mem: self.mem.clone(),
            kernel,
            dispatches: self.dispatches.clone(),
            _code: self._code.clone(),
        }))
    }
}

#[derive(Debug, Clone)]
struct EmuLaunchable {
    device: String,
    mem: Shared,
    kernel: Arc<EmuKernel>,
    dispatches: Arc<AtomicU64>,
    _code: Arc<Vec<Box<dyn Allocation>>>,
}

impl EmuLaunchable {
    fn run(&self, config: &LaunchConfig, args: &KernelArgs) -> Result<LaunchStats> {
        let id = self.dispatches.fetch_add(1, Ordering::Relaxed);
        let mut mem = lock(&self.mem)?;
        let stats = self.kernel.launch(&mut mem, config, args, id)?;
        EXECUTED.0.fetch_add(stats.instructions, Ordering::Relaxed);
        EXECUTED
            .1
            .fetch_add(stats.lane_instructions, Ordering::Relaxed);
        Ok(stats)
    }
}

impl BackendKernel for EmuLaunchable {
    unsafe fn launch(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        let s = downcast_stream::<EmuStream>(stream, &self.device)?;
        if let Some(rec) = s.recording().as_mut() {
            rec.push(Op::Launch {
                kernel: self.clone(),
                config: *config,
                args: args.clone(),
            });
            return Ok(());
        }
        self.run(config, args).map(|_| ())
    }
}

/// Instructions executed by every emulated launch in this process so far (for
/// benchmarks: read before and after a launch).
pub fn executed() -> LaunchStats {
    LaunchStats {
        instructions: EXECUTED.0.load(Ordering::Relaxed),
        lane_instructions: EXECUTED.1.load(Ordering::Relaxed),
    }
}

static EXECUTED: (AtomicU64, AtomicU64) = (AtomicU64::new(0), AtomicU64::new(0));
