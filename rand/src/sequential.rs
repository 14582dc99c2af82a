//! cuRAND's host-API orderings of thread-structured streams, and the CPU fill of the
//! sequential generators (XORWOW, MRG32k3a) in them.
//!
//! **The ordering** (measured against cuRAND's output, `tests/vendor_sequences.rs`): the
//! host API runs `threads` generator states, state `t` being `curand_init(seed, t, 0)`
//! (subsequence `t`). Output position `P` lies in chunk `c = P / chunk`; chunk `c` is
//! written by thread `c mod threads` as its values `(c / threads)·chunk ..`. A thread's
//! values consume its own stream in order, a group of steps per group of values
//! ([`Group`]): one word per u32 or f32, two per f64, a Box–Muller pair from two (f32)
//! or four (f64) words; MRG32k3a spends one step per uniform of either precision.
//!
//! **Offsets** move the positions, not the states: a call from generator offset `o`
//! writes positions `o·chunk ..` (XORWOW and MRG32k3a count the offset in chunks: a
//! normal fill from offset 1001 starts with thread 1001's pair), and a call of `n`
//! values advances the offset by ⌈n / chunk⌉.

use crate::dist::{box_muller_of, uniform, Dist, Kind, PoissonTable};
use crate::host::Ordering;
use crate::math::exp;
use crate::ops::{FloatOps, Host, Real};
use crate::{mrg32k3a, xorwow};
use rayon::prelude::*;
use rocm_core::{DType, Element, Error, Result};

/// Generator states cuRAND's host API runs, by generator and ordering, measured from
/// the capture (cuRAND 10400 on an H200). Not here: `PseudoDynamic` (its layout
/// depends on the GPU: on the H200 it differs from every other ordering past the first
/// few thousand values), `PseudoSeeded` (XORWOW's alone: it seeds each state
/// differently) and MRG32k3a's `PseudoLegacy` (4096 threads, matching cuRAND's first
/// 4096 values of every kind, but not yet its offsets and normals past them).
const THREADS: [(Kind, Ordering, u64); 5] = [
    (Kind::Xorwow, Ordering::PseudoDefault, 4096),
    (Kind::Xorwow, Ordering::PseudoBest, 4096),
    (Kind::Xorwow, Ordering::PseudoLegacy, 4096),
    (Kind::Mrg32k3a, Ordering::PseudoDefault, 81920),
    (Kind::Mrg32k3a, Ordering::PseudoBest, 81920),
];

/// Where one (generator, ordering, distribution) puts its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub threads: u64,
    /// Consecutive output values one thread writes at a time.
    pub chunk: u64,
}

impl Order {
    /// The ordering of `kind` under `ordering` for `dist`, or `Unsupported` naming the
    /// pair when cuRAND has no such ordering or this crate does not reproduce it.
    pub fn of(kind: Kind, ordering: Ordering, dist: Dist) -> Result<Order> {
        let threads = THREADS
            .iter()
            .find(|(k, o, _)| *k == kind && *o == ordering)
            .map(|r| r.2)
            .ok_or_else(|| {
                Error::unsupported(
                    format!("the {ordering:?} ordering of {}", kind.name()),
                    "rocm-rand",
                )
            })?;
        let chunk = match dist {
            Dist::Normal | Dist::LogNormal => 2,
            _ => 1,
        };
        Ok(Order { threads, chunk })
    }

    /// The (thread, value index in that thread) of output position `p`.
    pub fn place(&self, p: u64) -> (u64, u64) {
        let c = p / self.chunk;
        (
            c % self.threads,
            c / self.threads * self.chunk + p % self.chunk,
        )
    }

    /// The output position of value `q` of thread `t`, if it is below 2⁶⁴.
    pub fn position(&self, t: u64, q: u64) -> Option<u64> {
        (q / self.chunk)
            .checked_mul(self.threads)?
            .checked_add(t)?
            .checked_mul(self.chunk)?
            .checked_add(q % self.chunk)
    }
}

/// Steps of a thread's stream one group of values takes, and the values of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub steps: u64,
    pub values: u64,
}

impl Group {
    /// The group of `dist` in `dtype` from `kind`, or an error naming the element types
    /// `dist` has.
    pub fn of(kind: Kind, dist: Dist, dtype: DType) -> Result<Group> {
        let per_uniform = match (kind, dtype) {
            (Kind::Mrg32k3a, _) | (_, DType::F32) => 1,
            _ => 2,
        };
        let g = |steps, values| Ok(Group { steps, values });
        match (dist, dtype) {
            (Dist::Bits, DType::U32) => g(1, 1),
            (Dist::Uniform, DType::F32 | DType::F64) => g(per_uniform, 1),
            (Dist::Normal | Dist::LogNormal, DType::F32 | DType::F64) => g(2 * per_uniform, 2),
            (Dist::Poisson, DType::U32) => g(if kind == Kind::Mrg32k3a { 1 } else { 2 }, 1),
            _ => {
                let has = if matches!(dist, Dist::Bits | Dist::Poisson) {
                    "u32"
                } else {
                    "f32 or f64"
                };
                Err(Error::invalid(
                    "dtype",
                    format!("{} values are {has}, not {dtype}", dist.name()),
                ))
            }
        }
    }
}

/// One thread's stream, stepped on the CPU.
enum Stream {
    Xorwow(xorwow::State<u32>),
    Mrg(mrg32k3a::State),
}

impl Stream {
    /// Thread `t`'s stream from its step `step`.
    fn new(kind: Kind, seed: u64, t: u64, step: u64) -> Result<Stream> {
        match kind {
            Kind::Xorwow => Ok(Stream::Xorwow(xorwow::curand_init(seed, t, step))),
            Kind::Mrg32k3a => Ok(Stream::Mrg(mrg32k3a::curand_init(seed, t, step))),
            k => Err(Error::unsupported(
                format!("{} as a sequential stream", k.name()),
                "rocm-rand",
            )),
        }
    }

    /// The next 32-bit word (MRG32k3a: its truncated uniform).
    fn word(&mut self) -> u32 {
        match self {
            Stream::Xorwow(s) => xorwow::next(&mut Host, s),
            Stream::Mrg(s) => mrg32k3a::bits(mrg32k3a::next(s)),
        }
    }

    /// The next uniform of precision `R` in (0, 1].
    fn uniform<R: Real>(&mut self) -> f64
    where
        Host: FloatOps<R>,
        <Host as FloatOps<R>>::F: Into<f64>,
    {
        if let Stream::Mrg(s) = self {
            return R::round(mrg32k3a::uniform_f64(mrg32k3a::next(s)));
        }
        let w = [self.word(), if R::WORDS == 2 { self.word() } else { 0 }];
        uniform::<R, Host>(&mut Host, &w[..R::WORDS]).into()
    }
}

/// What a fill makes of each group of values.
#[derive(Clone, Copy)]
enum Make<'a> {
    Bits,
    Poisson(&'a PoissonTable),
    Real { dist: Dist, mean: f64, stddev: f64 },
}

/// Values of one group from `s`, as f64 (floats of precision `R`, exact) or u32 counts.
fn group_values<R: Real>(s: &mut Stream, make: Make<'_>, out: &mut [f64; 2]) -> usize
where
    Host: FloatOps<R>,
    <Host as FloatOps<R>>::F: Into<f64>,
{
    match make {
        Make::Bits => {
            out[0] = s.word() as f64;
            1
        }
        Make::Poisson(t) => {
            out[0] = t.sample(s.uniform::<f64>()) as f64;
            1
        }
        Make::Real { dist, mean, stddev } => {
            let u = s.uniform::<R>();
            if dist == Dist::Uniform {
                out[0] = u;
                return 1;
            }
            let v = s.uniform::<R>();
            let h = &mut Host;
            let (fu, fv) = (FloatOps::<R>::fc(h, u), FloatOps::<R>::fc(h, v));
            let (z0, z1) = box_muller_of::<R, Host>(h, fu, fv);
            let (m, sd) = (FloatOps::<R>::fc(h, mean), FloatOps::<R>::fc(h, stddev));
            for (slot, z) in out.iter_mut().zip([z0, z1]) {
                let x = FloatOps::<R>::fma(h, z, sd, m);
                *slot = if dist == Dist::LogNormal {
                    exp::<R, Host>(h, x).into()
                } else {
                    x.into()
                };
            }
            2
        }
    }
}

/// The step of a thread's stream its group at pass `pass` starts at, in a call where
/// the thread owns `skipped` chunks before the call's offset. MRG32k3a's groups sit at
/// fixed steps; cuRAND skips each XORWOW state by one step per chunk it owns before the
/// offset (as if they were u32), then its groups follow one another, so XORWOW's
/// values depend on where the call started.
pub fn start_step(kind: Kind, group: Group, skipped: u64, pass: u64) -> u64 {
    match kind {
        Kind::Xorwow => skipped + group.steps * (pass - skipped),
        _ => group.steps * pass,
    }
}

/// One fill: positions `[offset, offset + n)` of a call of `kind` seeded `seed` that
/// started at position `call`.
#[derive(Clone, Copy)]
struct Job<'a> {
    kind: Kind,
    order: Order,
    group: Group,
    seed: u64,
    call: u64,
    offset: u64,
    n: u64,
    make: Make<'a>,
}

/// Thread `t`'s (position − offset, value) pairs of `job`, in position order.
fn thread_values<R: Real>(job: &Job<'_>, t: u64) -> Result<Vec<(u64, f64)>>
where
    Host: FloatOps<R>,
    <Host as FloatOps<R>>::F: Into<f64>,
{
    let (order, group, offset) = (job.order, job.group, job.offset);
    let end = offset + job.n;
    // The thread's first chunk at or after chunk `c0`.
    let owned_from =
        |c0: u64| c0.checked_add((t + order.threads - c0 % order.threads) % order.threads);
    let Some(c) = owned_from(offset / order.chunk) else {
        return Ok(Vec::new());
    };
    let Some(skipped) = owned_from(job.call / order.chunk).map(|c| c / order.threads) else {
        return Ok(Vec::new());
    };
    let Some(first) = c.checked_mul(order.chunk) else {
        return Ok(Vec::new());
    };
    if first >= end {
        return Ok(Vec::new());
    }
    let pass = c / order.threads;
    let q0 = pass * order.chunk;
    let g0 = q0 / group.values;
    let step = start_step(job.kind, group, skipped, g0);
    let mut s = Stream::new(job.kind, job.seed, t, step)?;
    let mut out = Vec::new();
    let mut q = g0 * group.values;
    let mut vals = [0.0f64; 2];
    loop {
        let k = group_values::<R>(&mut s, job.make, &mut vals);
        for &v in &vals[..k] {
            match order.position(t, q) {
                Some(p) if p < end => {
                    if p >= offset {
                        out.push((p - offset, v));
                    }
                }
                _ => return Ok(out),
            }
            q += 1;
        }
    }
}

/// Fills `out` with `kind`'s values of `dist` (cuRAND's host ordering `ordering`) from
/// generator offset `offset` (in chunks) on the CPU; Poisson's λ is `mean`. Returns
/// the offset's advance.
#[allow(clippy::too_many_arguments)]
pub fn fill<T: Element>(
    kind: Kind,
    ordering: Ordering,
    dist: Dist,
    seed: u64,
    offset: u64,
    mean: f64,
    stddev: f64,
    table: Option<&PoissonTable>,
    out: &mut [T],
) -> Result<u64> {
    fill_window(
        kind, ordering, dist, seed, offset, 0, mean, stddev, table, out,
    )
}

/// [`fill`]'s values from position `skip` of a call from generator offset `offset` on:
/// a window of a long call, made without the values before it.
#[allow(clippy::too_many_arguments)]
pub fn fill_window<T: Element>(
    kind: Kind,
    ordering: Ordering,
    dist: Dist,
    seed: u64,
    offset: u64,
    skip: u64,
    mean: f64,
    stddev: f64,
    table: Option<&PoissonTable>,
    out: &mut [T],
) -> Result<u64> {
    let group = Group::of(kind, dist, T::DTYPE)?;
    let order = Order::of(kind, ordering, dist)?;
    let n = out.len() as u64;
    let call = offset.checked_mul(order.chunk);
    let offset = call
        .and_then(|p| p.checked_add(skip))
        .and_then(|p| p.checked_add(n).map(|_| p))
        .ok_or_else(|| {
            Error::invalid(
                "offset",
                format!(
                    "offset {offset} (in chunks of {}) + {n} values passes the end of the \
                     2^64-position stream",
                    order.chunk
                ),
            )
        })?;
    let make = match (dist, table) {
        (Dist::Bits, _) => Make::Bits,
        (Dist::Poisson, Some(t)) => Make::Poisson(t),
        (Dist::Poisson, None) => {
            return Err(Error::invalid("table", "a Poisson fill needs its table"))
        }
        _ => Make::Real { dist, mean, stddev },
    };
    // The chunks a fill touches, hence the threads that write it.
    let threads = order.threads.min(n.div_ceil(order.chunk) + 2);
    let job = Job {
        kind,
        order,
        group,
        seed,
        call: call.unwrap_or(0),
        offset,
        n,
        make,
    };
    let per = |t: u64| match T::DTYPE {
        DType::F64 => thread_values::<f64>(&job, t),
        _ => thread_values::<f32>(&job, t),
    };
    // Threads past the first `threads` chunks hold no position of a short fill.
    let first_chunk = offset / order.chunk;
    let parts: Vec<Vec<(u64, f64)>> = (0..threads)
        .into_par_iter()
        .map(|i| per((first_chunk + i) % order.threads))
        .collect::<Result<_>>()?;
    match T::DTYPE {
        DType::U32 => scatter(bytemuck::cast_slice_mut(out), &parts, |v| v as u32),
        DType::F32 => scatter(bytemuck::cast_slice_mut(out), &parts, |v| v as f32),
        _ => scatter(bytemuck::cast_slice_mut(out), &parts, |v| v),
    }
    Ok((skip + n).div_ceil(order.chunk))
}

/// Writes each thread's (position, value) pairs into `out`.
fn scatter<U: Copy>(out: &mut [U], parts: &[Vec<(u64, f64)>], conv: impl Fn(f64) -> U) {
    for &(i, v) in parts.iter().flatten() {
        out[i as usize] = conv(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn filled<T: Element>(kind: Kind, dist: Dist, offset: u64, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); n];
        let table = PoissonTable::new(4.0).unwrap();
        fill(
            kind,
            Ordering::PseudoDefault,
            dist,
            77,
            offset,
            0.5,
            2.0,
            (dist == Dist::Poisson).then_some(&table),
            &mut out,
        )
        .unwrap();
        out
    }

    proptest! {
        #[test]
        fn place_and_position_are_inverse(
            threads in 1u64..10_000, chunk in 1u64..5, p in 0u64..(1 << 40)
        ) {
            let o = Order { threads, chunk };
            let (t, q) = o.place(p);
            prop_assert!(t < threads);
            prop_assert_eq!(o.position(t, q), Some(p));
        }

        /// A fill cut in two equals the fill in one piece, from any offset.
        #[test]
        fn any_cut_gives_the_same_stream(
            k in 0usize..2, d in 0usize..4, offset in 0u64..5000, n in 0usize..300,
            cut in 0usize..300,
        ) {
            let kind = [Kind::Xorwow, Kind::Mrg32k3a][k];
            let dist = [Dist::Bits, Dist::Uniform, Dist::Normal, Dist::Poisson][d];
            let chunk = Order::of(kind, Ordering::PseudoDefault, dist).unwrap().chunk as usize;
            // A cut inside a chunk is not a place a call can end (the offset counts
            // whole chunks).
            let cut = (cut.min(n) / chunk) * chunk;
            let check = |whole: Vec<u64>, a: Vec<u64>, b: Vec<u64>| {
                prop_assert_eq!(&whole[..cut], &a[..]);
                prop_assert_eq!(&whole[cut..], &b[..]);
                Ok(())
            };
            let at = offset + (cut / chunk) as u64;
            match dist {
                Dist::Uniform | Dist::Normal => {
                    let f = |o, m| filled::<f64>(kind, dist, o, m).iter().map(|x| x.to_bits()).collect();
                    check(f(offset, n), f(offset, cut), f(at, n - cut))?;
                }
                _ => {
                    let f = |o, m| filled::<u32>(kind, dist, o, m).iter().map(|&x| x as u64).collect();
                    check(f(offset, n), f(offset, cut), f(at, n - cut))?;
                }
            }
        }
    }

    /// Position `p` of a fill is value `q` of thread `t` as the ordering says, computed
    /// from that thread's own `curand_init` state by stepping.
    #[test]
    fn positions_come_from_their_threads() {
        let order = Order::of(Kind::Xorwow, Ordering::PseudoDefault, Dist::Bits).unwrap();
        let n = (2 * order.threads + 10) as usize;
        let got = filled::<u32>(Kind::Xorwow, Dist::Bits, 0, n);
        for p in [
            0u64,
            1,
            63,
            order.threads - 1,
            order.threads,
            2 * order.threads + 9,
        ] {
            let (t, q) = order.place(p);
            let mut s = xorwow::curand_init(77, t, 0);
            let w = (0..=q)
                .map(|_| xorwow::next(&mut Host, &mut s))
                .last()
                .unwrap();
            assert_eq!(got[p as usize], w, "position {p}");
        }
        let got = filled::<f64>(Kind::Mrg32k3a, Dist::Uniform, 3, 5);
        let mut s = mrg32k3a::curand_init(77, 3, 0);
        assert_eq!(got[0], mrg32k3a::uniform_f64(mrg32k3a::next(&mut s)));
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut out = [0f32; 4];
        let f = |o: Ordering, d: Dist, offset: u64, out: &mut [f32]| {
            fill(Kind::Xorwow, o, d, 1, offset, 0.0, 1.0, None, out)
        };
        assert!(f(Ordering::PseudoSeeded, Dist::Uniform, 0, &mut out).is_err());
        assert!(f(Ordering::PseudoDefault, Dist::Bits, 0, &mut out).is_err());
        assert!(f(
            Ordering::PseudoDefault,
            Dist::Normal,
            u64::MAX / 2,
            &mut out
        )
        .is_err());
        let r = f(
            Ordering::PseudoDefault,
            Dist::Uniform,
            u64::MAX - 4,
            &mut out,
        );
        assert!(r.is_ok(), "{r:?}");
        assert!(f(
            Ordering::PseudoDefault,
            Dist::Uniform,
            u64::MAX - 2,
            &mut out
        )
        .is_err());
        let mut counts = [0u32; 4];
        assert!(fill(
            Kind::Xorwow,
            Ordering::PseudoDefault,
            Dist::Poisson,
            1,
            0,
            4.0,
            0.0,
            None,
            &mut counts
        )
        .is_err());
        assert!(Order::of(Kind::Philox4x32_10, Ordering::PseudoDefault, Dist::Bits).is_err());
    }
}
