//! The runtime under the libraries: pinned host memory and asynchronous copies, staged
//! pageable copies, the stream-ordered pool, events and stream waits, and graphs.
//!
//! Every test runs on the CPU and an emulated AMD device (always present) and on
//! `cuda:0` where there is one; GPU-only properties (overlap with a running kernel) skip
//! with a printed reason elsewhere. Graphs are recorded on the emulated device as on
//! CUDA; the CPU's graphs rerun the captured closure. Copies are exact, so every
//! comparison is exact.

use proptest::prelude::*;
use rocm_core::{Device, DeviceBuffer, Error, KernelArgs, LaunchConfig, ModuleImage, PinnedBuffer};
use std::time::Instant;

/// The devices every test runs on.
fn devices() -> Vec<Device> {
    let mut out = vec![Device::cpu(), Device::open("emu:gfx90a").unwrap()];
    match Device::open("cuda:0") {
        Ok(d) => out.push(d),
        Err(_) => eprintln!("no cuda:0: the CUDA cases of this test are skipped"),
    }
    out
}

/// Serialises the tests that use cuda:0: a capture on one stream makes `Device::alloc`
/// an error for the whole device, so captures must not overlap other tests' work.
static CUDA_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cuda_lock() -> std::sync::MutexGuard<'static, ()> {
    CUDA_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn cuda() -> Option<Device> {
    match Device::open("cuda:0") {
        Ok(d) => Some(d),
        Err(_) => {
            eprintln!("skipped: no cuda:0 on this machine");
            None
        }
    }
}

/// Distinct values for element `i` under `seed`.
fn pattern(len: usize, seed: u32) -> Vec<u32> {
    (0..len as u32)
        .map(|i| i.wrapping_mul(2654435761).wrapping_add(seed) ^ 0x5bd1_e995)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Pinned → device → pinned through the asynchronous copies, on a new stream, of
    /// a view at an offset inside a larger buffer; the bytes around it stay zero.
    #[test]
    fn pinned_round_trip(len in prop::sample::select(vec![0usize, 1, 2, 31, 97, 1024, 4099]),
                         offset in 0usize..5, seed in any::<u32>()) {
        let _cuda = cuda_lock();
        for dev in devices() {
            let data = pattern(len, seed);
            let src = PinnedBuffer::from_slice(&dev, &data).unwrap();
            let mut back = PinnedBuffer::<u32>::zeros(&dev, len + 3).unwrap();
            let stream = dev.new_stream().unwrap();
            let mut buf = DeviceBuffer::<u32>::zeros(&dev, len + offset + 2).unwrap();
            let mut view = buf.slice_mut(offset..offset + len).unwrap();
            view.upload_async(&stream, &src).unwrap();
            view.as_slice().download_async(&stream, &mut back).unwrap();
            let got = back.to_vec().unwrap();
            prop_assert_eq!(&got[..len], &data[..], "{}", dev);
            prop_assert!(got[len..].iter().all(|&v| v == 0), "{}", dev);
            let all = buf.to_vec().unwrap();
            prop_assert!(all[..offset].iter().chain(&all[offset + len..]).all(|&v| v == 0));
        }
    }

    /// Stream-ordered buffers are zero, hold what is written, and stay zero when
    /// memory is reused (a buffer of the same size allocated after a dirty one was
    /// dropped).
    #[test]
    fn stream_alloc_is_zeroed_and_reused_clean(len in prop::sample::select(vec![0usize, 1, 7, 1024, 65537]),
                                                seed in any::<u32>()) {
        let _cuda = cuda_lock();
        for dev in devices() {
            let stream = dev.new_stream().unwrap();
            let mut dirty = stream.alloc::<u32>(len).unwrap();
            prop_assert!(dirty.to_vec().unwrap().iter().all(|&v| v == 0));
            let data = pattern(len, seed);
            dirty.as_slice_mut().upload_on(&stream, &data).unwrap();
            prop_assert_eq!(dirty.to_vec().unwrap(), data.clone());
            drop(dirty);
            let fresh = stream.alloc::<u32>(len).unwrap();
            let plain = dev.alloc::<u32>(len).unwrap();
            let mut back = vec![1u32; len];
            fresh.as_slice().download_on(&stream, &mut back).unwrap();
            prop_assert!(back.iter().all(|&v| v == 0), "{}", dev);
            prop_assert!(plain.to_vec().unwrap().iter().all(|&v| v == 0), "{}", dev);
        }
    }
}

/// Large pageable copies take the staged path on CUDA (chunks, double buffering):
/// sizes around the staging threshold and chunk boundaries, each compared exactly.
#[test]
fn pageable_copies_around_the_staging_sizes() {
    let _cuda = cuda_lock();
    for dev in devices() {
        let sizes: &[usize] = if dev.is_cpu() || dev.id().starts_with("emu") {
            &[(1 << 20) + 3]
        } else {
            &[
                (1 << 20) - 4,
                1 << 20,
                (8 << 20) + 12,
                (33 << 20) + 20,
                100 << 20,
            ]
        };
        for &bytes in sizes {
            let data = pattern(bytes / 4, bytes as u32);
            let buf = DeviceBuffer::from_slice(&dev, &data).unwrap();
            assert!(buf.to_vec().unwrap() == data, "{dev}, {bytes} bytes");
        }
    }
}

/// A staging configuration is checked, and every configuration copies exactly.
#[test]
fn copy_staging_is_checked_and_every_setting_copies_exactly() {
    let _cuda = cuda_lock();
    let Some(dev) = cuda() else { return };
    let bad = rocm_core::CopyStaging {
        chunk_bytes: 16,
        threads: 1,
    };
    assert!(matches!(
        dev.set_copy_staging(bad),
        Err(Error::InvalidArgument { .. })
    ));
    let data = pattern(5 << 20, 9);
    for (chunk_bytes, threads) in [(1 << 20, 1), (4 << 20, 3), (8 << 20, 4)] {
        dev.set_copy_staging(rocm_core::CopyStaging {
            chunk_bytes,
            threads,
        })
        .unwrap();
        let buf = DeviceBuffer::from_slice(&dev, &data).unwrap();
        assert!(buf.to_vec().unwrap() == data, "{chunk_bytes} x {threads}");
    }
}

/// Copying into a pinned buffer shorter than the view, or from one, is an error that
/// names the pinned buffer; so is a pinned buffer of another device.
#[test]
fn too_small_or_foreign_pinned_buffers_are_errors() {
    let _cuda = cuda_lock();
    for dev in devices() {
        let stream = dev.default_stream();
        let mut buf = DeviceBuffer::<f32>::zeros(&dev, 10).unwrap();
        let mut small = PinnedBuffer::<f32>::zeros(&dev, 9).unwrap();
        let err = buf
            .as_slice()
            .download_async(stream, &mut small)
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument { what, .. } if what == "pinned destination"),
            "{dev}: {err}"
        );
        assert!(err.to_string().contains("holds 9 elements"), "{err}");
        let err = buf.as_slice_mut().upload_async(stream, &small).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument { what, .. } if what == "pinned source"),
            "{dev}: {err}"
        );
    }
    let emu = Device::open("emu:gfx90a").unwrap();
    let foreign = PinnedBuffer::<f32>::zeros(&Device::cpu(), 4).unwrap();
    let mut buf = DeviceBuffer::<f32>::zeros(&emu, 4).unwrap();
    let err = buf
        .as_slice_mut()
        .upload_async(emu.default_stream(), &foreign)
        .unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { .. }), "{err}");
    // A stream of another device.
    let err = buf
        .as_slice_mut()
        .upload_async(Device::cpu().default_stream(), &foreign)
        .unwrap_err();
    assert!(matches!(err, Error::DeviceMismatch { .. }), "{err}");
}

/// A buffer from `Device::alloc` is usable at once on any stream (the pool's fence),
/// and events order one stream after another.
#[test]
fn streams_wait_for_allocations_and_events() {
    let _cuda = cuda_lock();
    for dev in devices() {
        let (a, b) = (dev.new_stream().unwrap(), dev.new_stream().unwrap());
        let data = pattern(1 << 16, 3);
        let mut x = dev.alloc::<u32>(data.len()).unwrap();
        x.as_slice_mut().upload_on(&a, &data).unwrap();
        let mut y = b.alloc::<u32>(data.len()).unwrap();
        let written = a.record().unwrap();
        b.wait(&written).unwrap();
        y.as_slice_mut().copy_from_on(&b, &x.as_slice()).unwrap();
        let done = b.record().unwrap();
        done.synchronize().unwrap();
        assert!(done.is_done().unwrap());
        let mut back = vec![0u32; data.len()];
        y.as_slice().download_on(&b, &mut back).unwrap();
        assert!(back == data, "{dev}");
    }
}

/// The CPU device queues nothing, so its graph keeps the captured closure: capture runs
/// none of it, and every launch runs all of it.
#[test]
fn cpu_graphs_run_the_captured_calls_at_each_launch() {
    let dev = Device::cpu();
    let s = dev.new_stream().unwrap();
    let data = pattern(1000, 3);
    let x = DeviceBuffer::from_slice(&dev, &data).unwrap();
    let mut y = dev.alloc::<u32>(data.len()).unwrap();
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let graph = s
        .capture(|s| {
            runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            y.as_slice_mut().copy_from_on(s, &x.as_slice())
        })
        .unwrap();
    assert_eq!(runs.load(std::sync::atomic::Ordering::Relaxed), 0);
    assert_eq!(graph.nodes(), 1);
    graph.launch(&s).unwrap();
    graph.launch(&dev.new_stream().unwrap()).unwrap();
    // A stream of another device is refused.
    let emu = Device::open("emu:gfx90a").unwrap();
    assert!(graph.launch(&emu.new_stream().unwrap()).is_err());
    drop(graph);
    assert_eq!(runs.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert!(y.to_vec().unwrap() == data);
}

/// A buffer keeps its device (and the device's pool) alive: dropping every other
/// handle first leaves the buffer usable, and its memory is returned when it goes.
#[test]
fn buffers_outlive_their_device_handles_and_streams() {
    let _cuda = cuda_lock();
    for dev in devices() {
        let name = dev.to_string();
        let s = dev.new_stream().unwrap();
        let data = pattern(4097, 11);
        let mut y = s.alloc::<u32>(data.len()).unwrap();
        y.as_slice_mut().upload_on(&s, &data).unwrap();
        drop(s);
        drop(dev);
        assert!(y.to_vec().unwrap() == data, "{name}");
    }
}

/// A kernel that spins for `cycles` clock ticks and touches no memory.
const SPIN_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 cycles)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [cycles];
    mov.u64 %rd2, %clock64;
LOOP:
    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    setp.lt.u64 %p1, %rd4, %rd1;
    @%p1 bra LOOP;
    ret;
}
"#;

/// Allocations and frees neither wait for the device nor synchronise it: while a
/// kernel spins on another stream for about half a second, 1000 allocate/free pairs
/// of each kind (`Device::alloc`, `Stream::alloc`) finish and the kernel is still
/// running (its event not done). With `ROCM_CUDA_POOL=0` (the synchronous path) the
/// first allocation would wait for the kernel.
#[test]
fn allocations_do_not_wait_for_a_kernel_on_another_stream() {
    let _cuda = cuda_lock();
    let Some(dev) = cuda() else { return };
    let module = dev.load_module(&ModuleImage::Ptx(SPIN_PTX.into())).unwrap();
    let spin = module.kernel("spin").unwrap();
    let (busy, alloc) = (dev.new_stream().unwrap(), dev.new_stream().unwrap());
    let clock_hz = dev.info().clock_mhz.unwrap_or(2000) as u64 * 1_000_000;
    let mut args = KernelArgs::new();
    args.push(clock_hz / 2);
    // Warm the pool and the module so that first-use costs do not count.
    drop(alloc.alloc::<u8>(1 << 20).unwrap());
    drop(dev.alloc::<u8>(1 << 20).unwrap());
    dev.synchronize().unwrap();
    let start = busy.record().unwrap();
    // SAFETY: the kernel takes one u64 and touches no memory.
    unsafe {
        spin.launch(&busy, &LaunchConfig::linear(1, 1), &args)
            .unwrap()
    };
    let spun = busy.record().unwrap();
    let t = Instant::now();
    for i in 0..1000usize {
        let bytes = 4096 << (i % 9);
        drop(dev.alloc::<u8>(bytes).unwrap());
        drop(alloc.alloc::<u8>(bytes).unwrap());
    }
    let host_ms = t.elapsed().as_secs_f64() * 1e3;
    let still_running = !spun.is_done().unwrap();
    let kernel_ms = start.elapsed_ms(&spun).unwrap();
    eprintln!(
        "2000 allocate/free pairs took {host_ms:.2} ms on the host while the kernel ran \
         {kernel_ms:.1} ms; kernel still running afterwards: {still_running}"
    );
    assert!(
        still_running,
        "the allocations waited for the spinning kernel"
    );
    assert!(host_ms < kernel_ms as f64, "{host_ms} ms >= {kernel_ms} ms");
}

/// Capture and replay of device copies and a stream-ordered allocation inside the
/// capture; the graph replays exactly, on another stream too.
#[test]
fn captured_copies_replay_exactly() {
    let _cuda = cuda_lock();
    for dev in devices() {
        captured_copies_replay_exactly_on(dev);
    }
}

fn captured_copies_replay_exactly_on(dev: Device) {
    let s = dev.new_stream().unwrap();
    let n = 100_003;
    let data = pattern(n, 5);
    let x = DeviceBuffer::from_slice(&dev, &data).unwrap();
    let mut y = dev.alloc::<u32>(n).unwrap();
    let mut z = dev.alloc::<u32>(n).unwrap();
    let graph = s
        .capture(|s| {
            let mut t = s.alloc::<u32>(n)?;
            t.as_slice_mut().copy_from_on(s, &x.as_slice())?;
            y.as_slice_mut().copy_from_on(s, &t.as_slice())?;
            z.as_slice_mut().copy_from_on(s, &y.as_slice())
        })
        .unwrap();
    if !dev.is_cpu() {
        assert!(graph.nodes() >= 3, "{dev}: {} nodes", graph.nodes());
    }
    assert!(!s.is_capturing());
    graph.launch(&s).unwrap();
    let other = dev.new_stream().unwrap();
    graph.launch(&other).unwrap();
    drop(graph);
    assert!(y.to_vec().unwrap() == data);
    assert!(z.to_vec().unwrap() == data);
}

/// Operations that cannot be captured fail with `NotCapturable` naming them, the
/// capture is discarded, and the stream captures normally afterwards.
#[test]
fn uncapturable_calls_are_clear_errors() {
    let _cuda = cuda_lock();
    for dev in devices().into_iter().filter(|d| !d.is_cpu()) {
        uncapturable_calls_are_clear_errors_on(dev);
    }
}

fn uncapturable_calls_are_clear_errors_on(dev: Device) {
    let s = dev.new_stream().unwrap();
    let mut y = dev.alloc::<f32>(64).unwrap();
    let host = vec![1.0f32; 64];
    let errors = [
        (
            "pageable",
            s.capture(|s| y.as_slice_mut().upload_on(s, &host)),
        ),
        (
            "Device::alloc",
            s.capture(|s| s.device().alloc::<f32>(8).map(|_| ())),
        ),
        ("Stream::synchronize", s.capture(|s| s.synchronize())),
    ];
    for (name, result) in errors {
        let err = result.unwrap_err();
        assert!(matches!(err, Error::NotCapturable { .. }), "{name}: {err}");
        assert!(err.to_string().contains(name), "{name}: {err}");
        assert!(!s.is_capturing());
    }
    // A nested capture on another stream of the device is refused while one runs.
    let other = dev.new_stream().unwrap();
    let err = s
        .capture(|_| other.capture(|_| Ok(())).map(|_| ()))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    // The stream still works and captures.
    let data = vec![2.0f32; 64];
    let src = PinnedBuffer::from_slice(&dev, &data).unwrap();
    let g = s
        .capture(|s| y.as_slice_mut().upload_async(s, &src))
        .unwrap();
    g.launch(&s).unwrap();
    drop(g);
    assert_eq!(y.to_vec().unwrap(), data);
    if let Some(stats) = dev.pool_stats() {
        assert!(stats.reserved >= stats.used, "{stats:?}");
    }
}
