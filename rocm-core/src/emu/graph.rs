//! Graphs on the emulated devices: while a stream captures, the work queued on it
//! (launches, device copies and fills, copies from and to page-locked host memory,
//! stream-ordered allocations) is recorded as [`Op`]s instead of run; a replay runs
//! them in order. The capture rules are those of CUDA's stream capture, so a library
//! call that would break a capture on a GPU breaks it here too, where CI can see it:
//! synchronous host copies, host waits and `Device::alloc` on the capturing thread are
//! [`Error::NotCapturable`].

use super::{lock, EmuLaunchable, Shared};
use crate::backend::BackendGraph;
use crate::module::{KernelArgs, LaunchConfig};
use crate::{Error, Result};
use std::cell::Cell;
use std::sync::{Arc, Mutex};

/// One recorded operation.
#[derive(Debug)]
pub(super) enum Op {
    Launch {
        kernel: EmuLaunchable,
        config: LaunchConfig,
        args: KernelArgs,
    },
    Copy {
        dst: u64,
        src: u64,
        bytes: usize,
    },
    Fill {
        dst: u64,
        value: u8,
        bytes: usize,
    },
    Upload {
        dst: u64,
        src: HostPtr,
        len: usize,
    },
    Download {
        src: u64,
        dst: HostPtr,
        len: usize,
    },
}

/// Page-locked host memory a recorded copy reads or writes at every replay.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostPtr(pub *mut u8);

// SAFETY: the pointer names pinned host memory that the `Graph` borrows for its whole
// life (`Graph<'a>`), so it stays allocated; it is only dereferenced while a replay
// runs, on the thread that launches the graph, as a copy the user queued.
unsafe impl Send for HostPtr {}
// SAFETY: as above; the graph never hands the pointer out.
unsafe impl Sync for HostPtr {}

/// Allocations made on a capturing stream belong to the graph: dropping their buffer
/// inside the captured closure (a workspace) must not unmap memory the replays use.
#[derive(Debug)]
pub(super) struct GraphMemory {
    mem: Shared,
    state: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    released: bool,
    pending: Vec<u64>,
}

impl GraphMemory {
    /// Takes over the unmap of `base` while the recording or its graph lives; `false`
    /// when both are gone (the caller unmaps).
    pub(super) fn defer(&self, base: u64) -> bool {
        let mut held = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if held.released {
            return false;
        }
        held.pending.push(base);
        true
    }

    fn release(&self) {
        let pending = {
            let mut held = self.state.lock().unwrap_or_else(|p| p.into_inner());
            held.released = true;
            std::mem::take(&mut held.pending)
        };
        if let Ok(mut m) = lock(&self.mem) {
            for base in pending {
                m.unmap(base);
            }
        }
    }
}

/// The owner of a recording's memory: the recording while it runs, then its graph;
/// the memory is unmapped when the owner goes (a discarded capture included).
#[derive(Debug)]
struct Hold(Arc<GraphMemory>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// What a capturing stream has recorded so far.
#[derive(Debug)]
pub(super) struct Recording {
    ops: Vec<Op>,
    hold: Hold,
}

impl Recording {
    pub(super) fn new(mem: Shared) -> Recording {
        Recording {
            ops: Vec::new(),
            hold: Hold(Arc::new(GraphMemory {
                mem,
                state: Mutex::default(),
            })),
        }
    }

    pub(super) fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    pub(super) fn memory(&self) -> Arc<GraphMemory> {
        self.hold.0.clone()
    }

    pub(super) fn finish(self, device: String) -> EmuGraph {
        EmuGraph {
            device,
            mem: self.hold.0.mem.clone(),
            ops: self.ops,
            _hold: self.hold,
        }
    }
}

/// A finished recording, replayable on any stream of its device.
#[derive(Debug)]
pub(super) struct EmuGraph {
    device: String,
    mem: Shared,
    ops: Vec<Op>,
    _hold: Hold,
}

impl BackendGraph for EmuGraph {
    fn launch(&self, stream: &dyn crate::backend::BackendStream) -> Result<()> {
        let s = super::downcast_stream::<super::EmuStream>(stream, &self.device)?;
        if s.is_recording() {
            return Err(Error::not_capturable(
                "Graph::launch",
                "an emulated device does not nest graphs; launch the graph outside the capture",
            ));
        }
        for op in &self.ops {
            run(&self.mem, &self.device, op)?;
        }
        Ok(())
    }

    fn nodes(&self) -> usize {
        self.ops.len()
    }
}

/// Runs one operation now, against the device memory `mem` of `device`.
pub(super) fn run(mem: &Shared, device: &str, op: &Op) -> Result<()> {
    let oob = |what: &str, addr: u64, bytes: usize| Error::OutOfBounds {
        what: format!("{what} of {bytes} bytes at {addr:#x} outside every allocation of {device}"),
    };
    match *op {
        Op::Launch {
            ref kernel,
            ref config,
            ref args,
        } => kernel.run(config, args).map(|_| ()),
        Op::Copy { dst, src, bytes } => {
            let mut m = lock(mem)?;
            let tmp = m
                .slice(src, bytes)
                .ok_or_else(|| oob("copy source", src, bytes))?
                .to_vec();
            m.slice_mut(dst, bytes)
                .ok_or_else(|| oob("copy destination", dst, bytes))?
                .copy_from_slice(&tmp);
            Ok(())
        }
        Op::Fill { dst, value, bytes } => {
            lock(mem)?
                .slice_mut(dst, bytes)
                .ok_or_else(|| oob("fill", dst, bytes))?
                .fill(value);
            Ok(())
        }
        Op::Upload { dst, src, len } => {
            // SAFETY: `src` holds `len` readable bytes of pinned memory that outlives
            // the work (the contract of `Backend::write_async`, and the graph's borrow).
            let src = unsafe { std::slice::from_raw_parts(src.0 as *const u8, len) };
            lock(mem)?
                .slice_mut(dst, len)
                .ok_or_else(|| oob("write", dst, len))?
                .copy_from_slice(src);
            Ok(())
        }
        Op::Download { src, dst, len } => {
            let m = lock(mem)?;
            let from = m.slice(src, len).ok_or_else(|| oob("read", src, len))?;
            // SAFETY: `dst` holds `len` writable bytes of pinned memory nothing else
            // touches until the copy has run (the contract of `Backend::read_async`).
            unsafe { std::slice::from_raw_parts_mut(dst.0, len) }.copy_from_slice(from);
            Ok(())
        }
    }
}

thread_local! {
    /// The emulated device (its address space) whose stream this thread is capturing
    /// on: a `Device::alloc` inside the captured closure is refused as on CUDA, while
    /// other threads (other tests) keep allocating on the shared device.
    static CAPTURING: Cell<usize> = const { Cell::new(0) };
}

fn space_key(mem: &Shared) -> usize {
    Arc::as_ptr(mem) as usize
}

pub(super) fn set_capturing(mem: &Shared, on: bool) {
    CAPTURING.with(|c| c.set(if on { space_key(mem) } else { 0 }));
}

pub(super) fn capturing_here(mem: &Shared) -> bool {
    CAPTURING.with(|c| c.get() == space_key(mem))
}
