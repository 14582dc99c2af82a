//! Graphs across libraries: a mixed sequence of BLAS, FFT and random-number calls,
//! captured once on a stream and replayed, against the same calls issued one by one
//! from the same start. Every device: the CPU (whose graph reruns the captured
//! closure), the emulated AMD targets (recorded launches and copies) and `cuda:0`
//! where there is one.
//!
//! The replay runs the same kernels on the same data in the same order, so the
//! comparison is exact: any difference is a recording that dropped, reordered or
//! re-targeted work.

use rocm_blas::{Blas, PointerMode};
use rocm_core::{Device, DeviceBuffer, Error, Result, Stream};
use rocm_fft::{Placement, PlanBuilder, Precision, TransformType};
use rocm_rand::{Generator, Kind};

/// The devices graphs are checked on.
fn devices() -> Vec<Device> {
    let mut out = vec![Device::cpu()];
    for t in ["emu:gfx90a", "emu:gfx1100"] {
        out.push(Device::open(t).expect("emulated targets are always present"));
    }
    match Device::open("cuda:0") {
        Ok(d) => out.push(d),
        Err(e) => eprintln!("skipping cuda:0 ({e})"),
    }
    out
}

/// Transform length and batch of the FFT step (f32 complex, interleaved in f32
/// buffers), and the f32 length of every vector.
const LEN: usize = 256;
const BATCH: usize = 3;
const N: usize = 2 * LEN * BATCH;

struct State {
    x: DeviceBuffer<f32>,
    spectrum: DeviceBuffer<f32>,
    acc: DeviceBuffer<f32>,
    noise: DeviceBuffer<f32>,
}

impl State {
    fn new(dev: &Device) -> Result<State> {
        let x: Vec<f32> = (0..N)
            .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
            .collect();
        Ok(State {
            x: DeviceBuffer::from_slice(dev, &x)?,
            spectrum: dev.alloc(N)?,
            acc: DeviceBuffer::from_slice(dev, &vec![0.25f32; N])?,
            noise: dev.alloc(N)?,
        })
    }

    fn results(&self) -> Result<[Vec<f32>; 4]> {
        Ok([
            self.x.to_vec()?,
            self.spectrum.to_vec()?,
            self.acc.to_vec()?,
            self.noise.to_vec()?,
        ])
    }
}

struct Libraries {
    blas: Blas,
    fft: rocm_fft::Plan,
    rand: Generator,
}

impl Libraries {
    fn new(dev: &Device, stream: &Stream) -> Result<Libraries> {
        let mut blas = Blas::new(dev);
        blas.set_stream(stream)?;
        let fft = PlanBuilder::new(TransformType::ComplexForward, &[LEN])
            .batch(BATCH)
            .precision(Precision::F32)
            .placement(Placement::NotInPlace)
            .build(dev)?;
        let mut rand = Generator::new(dev, Kind::Philox4x32_10)?;
        rand.set_seed(7);
        rand.set_stream(stream)?;
        Ok(Libraries { blas, fft, rand })
    }

    /// The sequence: scale, transform, accumulate, fill with noise, accumulate the
    /// noise, rescale.
    fn run(&mut self, s: &Stream, st: &mut State) -> Result<()> {
        self.blas.scal(N, 0.5f32, &mut st.x.as_slice_mut(), 1)?;
        self.fft
            .execute(s, &st.x.as_slice(), &mut st.spectrum.as_slice_mut(), None)?;
        self.blas.axpy(
            N,
            0.125f32,
            &st.spectrum.as_slice(),
            1,
            &mut st.acc.as_slice_mut(),
            1,
        )?;
        self.rand.generate_uniform(&mut st.noise.as_slice_mut())?;
        self.blas.axpy(
            N,
            -1.0f32,
            &st.noise.as_slice(),
            1,
            &mut st.acc.as_slice_mut(),
            1,
        )?;
        self.blas.scal(N, 0.75f32, &mut st.acc.as_slice_mut(), 1)
    }
}

#[test]
fn a_mixed_blas_fft_rand_sequence_replays_exactly() {
    for dev in devices() {
        let stream = dev.new_stream().unwrap();
        // One by one, twice from a fresh start: the reference.
        let mut libs = Libraries::new(&dev, &stream).unwrap();
        let mut direct = State::new(&dev).unwrap();
        libs.run(&stream, &mut direct).unwrap();
        libs.run(&stream, &mut direct).unwrap();
        stream.synchronize().unwrap();
        let want = direct.results().unwrap();

        // Captured once from the same fresh start, replayed twice (the second replay
        // on another stream of the device). On a GPU the generator's offset advances
        // once, at capture, so both replays draw the same values, as a captured cuRAND
        // call does: the reference for that is rebuilt below with the offset reset
        // before the second run. The CPU's graph reissues the calls, so its replays
        // equal the one-by-one run.
        let mut libs = Libraries::new(&dev, &stream).unwrap();
        let mut captured = State::new(&dev).unwrap();
        {
            let graph = stream
                .capture(|s| libs.run(s, &mut captured))
                .unwrap_or_else(|e| panic!("{dev}: {e}"));
            graph.launch(&stream).unwrap();
            let other = dev.new_stream().unwrap();
            stream.synchronize().unwrap();
            graph.launch(&other).unwrap();
            other.synchronize().unwrap();
        }
        let got = captured.results().unwrap();

        let mut libs = Libraries::new(&dev, &stream).unwrap();
        let mut repeated = State::new(&dev).unwrap();
        libs.run(&stream, &mut repeated).unwrap();
        libs.rand.set_offset(0);
        libs.run(&stream, &mut repeated).unwrap();
        stream.synchronize().unwrap();
        let same_noise = repeated.results().unwrap();
        let expected = if dev.is_cpu() { &want } else { &same_noise };
        for (i, name) in ["x", "spectrum", "acc", "noise"].iter().enumerate() {
            assert!(
                got[i] == expected[i],
                "{dev}: {name} differs after two replays"
            );
        }
        // The two references differ (through the noise), so the check above tells them
        // apart.
        assert!(
            want[3] != same_noise[3],
            "{dev}: the second draw repeated the first"
        );
    }
}

/// A call that must read back to the host mid-sequence cannot be captured: the capture
/// fails with `NotCapturable` and the stream captures again afterwards. (The CPU records
/// no queue, so it has nothing to refuse.)
#[test]
fn a_host_result_inside_a_capture_is_a_clear_error() {
    for dev in devices().into_iter().filter(|d| !d.is_cpu()) {
        let stream = dev.new_stream().unwrap();
        let mut blas = Blas::new(&dev);
        blas.set_stream(&stream).unwrap();
        let x = DeviceBuffer::from_slice(&dev, &[1.0f32; 64]).unwrap();
        let err = stream
            .capture(|_| blas.dot(64, &x.as_slice(), 1, &x.as_slice(), 1).map(|_| ()))
            .unwrap_err();
        assert!(matches!(err, Error::NotCapturable { .. }), "{dev}: {err}");
        assert!(!stream.is_capturing(), "{dev}");
        // With the result left on the device, the same reduction captures and replays.
        blas.set_pointer_mode(PointerMode::Device);
        let mut r = dev.alloc::<f32>(1).unwrap();
        let graph = stream
            .capture(|_| {
                blas.dot_into(
                    64,
                    &x.as_slice(),
                    1,
                    &x.as_slice(),
                    1,
                    &mut r.as_slice_mut(),
                )
            })
            .unwrap_or_else(|e| panic!("{dev}: {e}"));
        graph.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        drop(graph);
        assert_eq!(r.to_vec().unwrap(), vec![64.0], "{dev}");
    }
}
