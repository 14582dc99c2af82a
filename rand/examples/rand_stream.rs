//! Streams one generator's 32-bit words to stdout as raw little-endian bytes, for
//! `dieharder -g 200` (stdin raw): `rand_stream <generator> [seed] [max_words]`.
//! The words are the generator's u32 stream on the CPU device in successive calls of
//! 2^20 (the quasi generators: one dimension; Sobol64's words are its u64 points'
//! low then high halves). It stops after `max_words` (default: never) or when the
//! reader closes the pipe, and prints the words written to stderr.

use rocm_core::{Device, DeviceBuffer};
use rocm_rand::{Dist, Generator, Kind};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(name) = args.get(1) else {
        return Err("usage: rand_stream <generator> [seed] [max_words]".into());
    };
    let kind = Kind::parse(name)?;
    let seed: u64 = args.get(2).map_or(Ok(1234), |s| s.parse())?;
    let max: u64 = args.get(3).map_or(Ok(u64::MAX), |s| s.parse())?;
    let dev = Device::open("cpu")?;
    let mut g = Generator::new(&dev, kind)?;
    g.set_seed(seed);
    const CALL: usize = 1 << 20;
    let wide = kind.sobol_bits() == 64;
    let mut words = DeviceBuffer::<u32>::zeros(&dev, CALL)?;
    let mut longs = DeviceBuffer::<i64>::zeros(&dev, CALL / 2)?;
    let mut out = std::io::stdout().lock();
    let mut written = 0u64;
    while written < max {
        let bytes: Vec<u8> = if wide {
            g.generate(Dist::Bits, &mut longs.as_slice_mut(), 0.0, 1.0)?;
            bytemuck::cast_slice(&longs.to_vec()?).to_vec()
        } else {
            g.generate(Dist::Bits, &mut words.as_slice_mut(), 0.0, 1.0)?;
            bytemuck::cast_slice(&words.to_vec()?).to_vec()
        };
        let take = ((max - written).min(CALL as u64) * 4) as usize;
        if out.write_all(&bytes[..take]).is_err() {
            break;
        }
        written += take as u64 / 4;
    }
    eprintln!("rand_stream {}: {written} words written", kind.name());
    Ok(())
}
