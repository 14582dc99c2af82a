//! `rocm-bench graph`: a sequence of small Level 1/2 calls issued one by one against
//! the same sequence captured once and replayed as a graph.
//!
//! The sequence repeats axpy, scal and copy on vectors of `--n` f32 and a gemv of
//! `--m`² f32, `--calls` calls in all. Both sides are timed on the host over `--reps`
//! sequences with the stream synchronised at the end; the replay's results are
//! checked bit for bit against the one-by-one run from the same start.

use rocm_blas::Blas;
use rocm_core::{BufferSlice, BufferSliceMut, Device, DeviceBuffer, Result, Transpose};
use std::time::Instant;

#[derive(clap::Args)]
pub struct GraphArgs {
    /// Device to measure (default: ROCM_DEVICE, else the best present).
    #[arg(long)]
    device: Option<String>,
    /// Elements per Level 1 vector.
    #[arg(long, default_value_t = 4096)]
    n: usize,
    /// Rows and columns of the gemv matrix.
    #[arg(long, default_value_t = 256)]
    m: usize,
    /// Calls per sequence.
    #[arg(long, default_value_t = 100)]
    calls: usize,
    /// Timed sequences per side.
    #[arg(long, default_value_t = 200)]
    reps: u32,
}

struct Operands {
    x: DeviceBuffer<f32>,
    y: DeviceBuffer<f32>,
    z: DeviceBuffer<f32>,
    a: DeviceBuffer<f32>,
    v: DeviceBuffer<f32>,
    w: DeviceBuffer<f32>,
}

/// The call sequence on the handle's stream.
#[allow(clippy::too_many_arguments)]
fn sequence(
    blas: &Blas,
    calls: usize,
    n: usize,
    m: usize,
    x: &BufferSlice<'_, f32>,
    y: &mut BufferSliceMut<'_, f32>,
    z: &mut BufferSliceMut<'_, f32>,
    a: &BufferSlice<'_, f32>,
    v: &BufferSlice<'_, f32>,
    w: &mut BufferSliceMut<'_, f32>,
) -> Result<()> {
    for i in 0..calls {
        match i % 4 {
            0 => blas.axpy(n, 0.5, x, 1, y, 1)?,
            1 => blas.scal(n, 0.75, y, 1)?,
            2 => blas.copy(n, &y.as_slice(), 1, z, 1)?,
            _ => blas.gemv(Transpose::N, m, m, 1.0, a, m, v, 1, 0.25, w, 1)?,
        }
    }
    Ok(())
}

impl Operands {
    fn new(dev: &Device, n: usize, m: usize) -> Result<Self> {
        let vec = |len: usize, k: usize| -> Vec<f32> {
            (0..len)
                .map(|i| ((i * k) % 97) as f32 * 1e-2 - 0.4)
                .collect()
        };
        Ok(Operands {
            x: DeviceBuffer::from_slice(dev, &vec(n, 3))?,
            y: DeviceBuffer::from_slice(dev, &vec(n, 5))?,
            z: dev.alloc(n)?,
            a: DeviceBuffer::from_slice(dev, &vec(m * m, 7))?,
            v: DeviceBuffer::from_slice(dev, &vec(m, 11))?,
            w: DeviceBuffer::from_slice(dev, &vec(m, 13))?,
        })
    }

    fn run(&mut self, blas: &Blas, calls: usize, n: usize, m: usize) -> Result<()> {
        sequence(
            blas,
            calls,
            n,
            m,
            &self.x.as_slice(),
            &mut self.y.as_slice_mut(),
            &mut self.z.as_slice_mut(),
            &self.a.as_slice(),
            &self.v.as_slice(),
            &mut self.w.as_slice_mut(),
        )
    }

    fn results(&self) -> Result<Vec<Vec<f32>>> {
        Ok(vec![self.y.to_vec()?, self.z.to_vec()?, self.w.to_vec()?])
    }
}

pub fn run(args: &GraphArgs) -> Result<(), Box<dyn std::error::Error>> {
    let dev = match &args.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let (n, m, calls, reps) = (args.n, args.m, args.calls, args.reps.max(1));
    let stream = dev.new_stream()?;
    let mut blas = Blas::new(&dev);
    blas.set_stream(&stream)?;

    // One by one, from a fresh start: the reference results, then the timing.
    let mut ops = Operands::new(&dev, n, m)?;
    ops.run(&blas, calls, n, m)?;
    stream.synchronize()?;
    let want = ops.results()?;
    let t = Instant::now();
    for _ in 0..reps {
        ops.run(&blas, calls, n, m)?;
    }
    stream.synchronize()?;
    let direct = t.elapsed().as_secs_f64() / reps as f64;

    // Captured, from the same fresh start: one replay checked, then the timing.
    let mut fresh = Operands::new(&dev, n, m)?;
    let graph = stream.capture(|_| fresh.run(&blas, calls, n, m))?;
    let nodes = graph.nodes();
    graph.launch(&stream)?;
    drop(graph);
    if fresh.results()? != want {
        return Err("the graph's replay differs from the calls issued one by one".into());
    }
    let graph = stream.capture(|_| fresh.run(&blas, calls, n, m))?;
    graph.launch(&stream)?;
    stream.synchronize()?;
    let t = Instant::now();
    for _ in 0..reps {
        graph.launch(&stream)?;
    }
    stream.synchronize()?;
    let replay = t.elapsed().as_secs_f64() / reps as f64;
    drop(graph);

    println!(
        "device {} ({}), {calls} calls (axpy, scal, copy n={n}; gemv {m}x{m}; f32), \
         {reps} sequences",
        dev.id(),
        dev.info().name
    );
    println!("{:<12} {:>14} {:>14}", "issue", "us/sequence", "us/call");
    for (name, secs) in [("one by one", direct), ("graph", replay)] {
        println!(
            "{:<12} {:>14.2} {:>14.3}",
            name,
            secs * 1e6,
            secs * 1e6 / calls as f64
        );
    }
    println!(
        "graph of {nodes} nodes replays {:.2}x faster; results identical",
        direct / replay
    );
    Ok(())
}
