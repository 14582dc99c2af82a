//! rocm-rand's sequences and orderings against cuRAND's, from the data file
//! `tests/data/curand_sequences.txt` that `rocm-bench rand capture --device cuda:0 --out
//! FILE` writes on a CUDA machine (format 2, described in `bench/src/rand/capture.rs`;
//! no GPU needed here). Without the file each test prints why it skips.
//!
//! Checked, for every generator and ordering this crate has ([`kind_of`],
//! [`ordering_of`]):
//! - `seq` records: the values of the record's window of its last call, made by a fresh
//!   CPU generator at the stream position the crate's ordering claims for it (offset +
//!   the earlier calls + the window's start): u32 and uniforms bit-equal, normals and
//!   log-normals within the bound stated at [`normal_within`]; Poisson counts are
//!   reported, not compared (cuRAND's method is not this crate's table search).
//! - `locate` records: each located word is, in our stream, at the position cuRAND's
//!   reference stream has it (or an equal word is there: a repeated word is located at
//!   its first occurrence).
//!
//! Records of a generator, ordering or value kind the crate lacks are counted and
//! printed as not checked; records the crate has but does not match yet are listed in
//! [`KNOWN_MISMATCHES`] with why, and reported rather than failed.

use rocm_core::{Device, DeviceBuffer, Element};
use rocm_rand::{Dist, Generator, Kind, Ordering};
use std::collections::BTreeMap;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/curand_sequences.txt"
);

/// (generator, dist, why): records of these that start past position 0 (an offset or an
/// earlier call) are reported, not failed, in every ordering.
const KNOWN_MISMATCHES: &[(&str, &str, &str)] = &[];

#[derive(Debug, Clone, PartialEq)]
struct Seq {
    generator: String,
    ordering: String,
    seed: Option<u64>,
    offset: u64,
    dims: u32,
    dist: String,
    calls: Vec<u64>,
    start: u64,
    values: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq)]
struct Locate {
    generator: String,
    ordering: String,
    seed: u64,
    offset: u64,
    calls: Vec<u64>,
    /// The reference stream's position of each located word (`None`: absent).
    positions: Vec<Option<u64>>,
}

#[derive(Debug, Default)]
struct Data {
    seqs: Vec<Seq>,
    locates: Vec<Locate>,
}

/// Value kinds whose bits are 64 wide.
fn wide(dist: &str) -> bool {
    matches!(dist, "u64" | "uniform_f64" | "normal_f64")
}

/// At most this many values per line and calls per record: the capture writes 64 and
/// 2; a larger figure is a damaged file, refused before anything is allocated for it.
const MAX_VALUES: usize = 4096;
const MAX_CALLS: usize = 8;

fn parse_calls(s: &str) -> Option<Vec<u64>> {
    let calls: Vec<u64> = s
        .split('+')
        .map(|c| c.parse().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()?;
    (calls.len() <= MAX_CALLS).then_some(calls)
}

fn parse(text: &str) -> Result<Data, String> {
    let mut d = Data::default();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}: {line:.80}", i + 1);
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str, what: &str| s.parse::<u64>().map_err(|_| bad(what));
        match f[0] {
            "seq" => {
                if f.len() < 11 {
                    return Err(bad("a seq line has fewer than 11 fields"));
                }
                let seed = match f[3] {
                    "-" => None,
                    s => Some(num(s, "seed")?),
                };
                let calls = parse_calls(f[7]).ok_or_else(|| bad("calls"))?;
                let start = num(f[8], "start")?;
                let count = num(f[9], "count")? as usize;
                if count == 0 || count > MAX_VALUES || f.len() != 10 + count {
                    return Err(bad("value count differs from the count field"));
                }
                let last = *calls.last().expect("parse_calls returns at least one");
                if start.checked_add(count as u64).is_none_or(|e| e > last) {
                    return Err(bad("the window passes the end of the last call"));
                }
                let digits = if wide(f[6]) { 16 } else { 8 };
                let values = f[10..]
                    .iter()
                    .map(|v| {
                        (v.len() == digits)
                            .then(|| u64::from_str_radix(v, 16).ok())
                            .flatten()
                            .ok_or_else(|| bad("a value is not hexadecimal of the kind's width"))
                    })
                    .collect::<Result<Vec<u64>, String>>()?;
                d.seqs.push(Seq {
                    generator: f[1].into(),
                    ordering: f[2].into(),
                    seed,
                    offset: num(f[4], "offset")?,
                    dims: num(f[5], "dims")?.try_into().map_err(|_| bad("dims"))?,
                    dist: f[6].into(),
                    calls,
                    start,
                    values,
                });
            }
            "locate" => {
                if f.len() < 8 {
                    return Err(bad("a locate line has fewer than 8 fields"));
                }
                let count = num(f[6], "count")? as usize;
                if count == 0 || count > MAX_VALUES || f.len() != 7 + count {
                    return Err(bad("position count differs from the count field"));
                }
                let positions = f[7..]
                    .iter()
                    .map(|p| match *p {
                        "-" => Ok(None),
                        p => num(p, "position").map(Some),
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                d.locates.push(Locate {
                    generator: f[1].into(),
                    ordering: f[2].into(),
                    seed: num(f[3], "seed")?,
                    offset: num(f[4], "offset")?,
                    calls: parse_calls(f[5]).ok_or_else(|| bad("calls"))?,
                    positions,
                });
            }
            _ => return Err(bad("neither a seq nor a locate line")),
        }
    }
    Ok(d)
}

fn data() -> Option<(Data, String)> {
    match std::fs::read_to_string(FILE) {
        Ok(t) => Some((parse(&t).unwrap_or_else(|e| panic!("{FILE}: {e}")), t)),
        Err(e) => {
            println!(
                "skipping: {FILE} is absent ({e}); write it on a CUDA machine with \
                 `rocm-bench rand capture --device cuda:0 --out {FILE}`"
            );
            None
        }
    }
}

/// cuRAND's orderings this crate has. Not provided: `pseudo_dynamic` (cuRAND lays it
/// out per GPU; on the capture's H200 it differs from the others past a few thousand
/// values for every generator) and `pseudo_seeded` (XORWOW's per-state seeding).
fn ordering_of(name: &str) -> Option<Ordering> {
    match name {
        "pseudo_default" => Some(Ordering::PseudoDefault),
        "pseudo_best" => Some(Ordering::PseudoBest),
        "pseudo_legacy" => Some(Ordering::PseudoLegacy),
        "quasi_default" => Some(Ordering::QuasiDefault),
        _ => None,
    }
}

/// cuRAND's generators this crate has, in cuRAND's host ordering. Not compared: the
/// scrambled Sobol generators, whose scrambled direction vectors and constants are
/// cuRAND's own tables (`rocm_rand::sobol` scrambles by a rule of its own).
fn kind_of(generator: &str) -> Option<Kind> {
    match generator {
        "philox4_32_10" => Some(Kind::Philox4x32_10),
        "xorwow" => Some(Kind::Xorwow),
        "mrg32k3a" => Some(Kind::Mrg32k3a),
        "sobol32" => Some(Kind::Sobol32),
        "sobol64" => Some(Kind::Sobol64),
        _ => None,
    }
}

fn dist_of(name: &str) -> Option<(Dist, f64)> {
    match name {
        "u32" | "u64" => Some((Dist::Bits, 0.0)),
        "uniform_f32" | "uniform_f64" => Some((Dist::Uniform, 0.0)),
        "normal_f32" | "normal_f64" => Some((Dist::Normal, 0.0)),
        "lognormal_f32" => Some((Dist::LogNormal, 0.0)),
        "poisson4" => Some((Dist::Poisson, 4.0)),
        _ => None,
    }
}

/// Ours on the CPU: `n` values of `dist` at stream position `at`.
fn ours<T: Element>(
    kind: Kind,
    ord: Ordering,
    seed: u64,
    at: u64,
    dist: Dist,
    mean: f64,
    n: usize,
) -> Vec<T> {
    let dev = Device::open("cpu").unwrap();
    let mut g = Generator::new(&dev, kind).unwrap();
    g.set_seed(seed);
    g.set_offset(at);
    g.set_ordering(ord).unwrap();
    let mut buf = DeviceBuffer::<T>::zeros(&dev, n).unwrap();
    g.generate(dist, &mut buf.as_slice_mut(), mean, 1.0)
        .unwrap();
    buf.to_vec().unwrap()
}

/// The f64 normals' bound against cuRAND: ours is within 3 ulps of the exact
/// Box–Muller value (ln 0.75, √ 0.5, sin/cos 1.02, two products 0.5 each:
/// `rocm_rand::math`), cuRAND's within about 4 (CUDA's log 1, sin/cos 2, the
/// products); 8 ulps in all, of the value or, where sin/cos is near zero and its bound
/// is absolute, of 2⁻³ (the radius is at most about 6.8, times the 2⁻⁶ the sin/cos
/// bound is counted in).
fn normal_within(got: f64, want: f64, eps: f64) -> bool {
    (got - want).abs() <= 8.0 * eps * want.abs().max(0.125)
}

/// The f32 normals' absolute bound at `z`: cuRAND's float Box–Muller measurably
/// uses CUDA's fast intrinsics (differences of 15 to 75 ulps near radius 0.4), whose
/// log has an absolute error of 2⁻²¹·⁴¹ on [0.5, 2] (3 ulps elsewhere) and whose sine
/// and cosine 2⁻²¹·⁴¹. The radius r = √(−2 ln u) then errs by d(ln u)/r ≤ 2⁻²¹·⁴¹/r +
/// 3·2⁻²⁴·r, and z = r·sin by that plus r·2⁻²¹·⁴¹; r ≥ |z| (floored at 2⁻¹², below
/// which a pair is rarer than 2⁻²⁴) and r ≤ 6.8; plus 8 ulps of z for both sides'
/// roundings.
fn normal_f32_bound(z: f64) -> f64 {
    let fast = 2f64.powf(-21.41);
    let r_max = 6.8;
    fast / z.abs().max(2f64.powi(-12))
        + r_max * (3.0 * 2f64.powi(-24) + fast)
        + 8.0 * f32::EPSILON as f64 / 2.0 * z.abs().max(0.125)
}

/// Log-normal f32: e^z with z within [`normal_f32_bound`], so a relative error of that
/// absolute error of z, plus the exponential's own (CUDA's fast exp 2 + 1.2·|z| ulps,
/// ours 0.86).
fn lognormal_within(got: f64, want: f64, eps: f64) -> bool {
    let z = want.ln();
    let rel = normal_f32_bound(z) + (3.0 + 1.2 * z.abs()) * 2.0 * eps;
    (got - want).abs() <= rel * want
}

/// Where a fresh generator of ours starts to make `r`'s window: the generator offset
/// (the sequential generators count it in chunks) and the values to drop before the
/// window. The claim checked: a call continues where the previous call's values end,
/// each advancing the offset by its values (in chunks, rounded up).
fn position(kind: Kind, dist: Dist, r: &Seq) -> (u64, usize) {
    let chunk = if kind.counter_based() {
        1
    } else {
        rocm_rand::sequential::Order::of(kind, Ordering::PseudoDefault, dist).map_or(1, |o| o.chunk)
    };
    let before: u64 = r.calls[..r.calls.len() - 1]
        .iter()
        .map(|c| c.div_ceil(chunk))
        .sum();
    let p = (r.offset + before) * chunk + r.start;
    (p / chunk, (p % chunk) as usize)
}

/// One record's window made by ours.
struct Window<'a> {
    kind: Kind,
    ord: Ordering,
    seed: u64,
    dist: Dist,
    mean: f64,
    n: usize,
    r: &'a Seq,
}

impl Window<'_> {
    /// The counter-based generators' values depend only on the position (a fresh
    /// generator there); the sequential ones' on where the call started too, so those
    /// are made as a window of the record's last call.
    fn values<T: Element>(&self) -> Vec<T> {
        if self.kind.quasi() {
            // Each call advances every dimension by its values over the dimensions.
            let dims = self.r.dims.max(1);
            let before: u64 = self.r.calls[..self.r.calls.len() - 1]
                .iter()
                .map(|c| c / dims as u64)
                .sum();
            let mut out = vec![T::default(); self.n];
            rocm_rand::quasi::fill_window(
                self.kind,
                dims,
                self.dist,
                self.r.offset + before,
                *self.r.calls.last().unwrap(),
                self.r.start,
                self.mean,
                1.0,
                &mut out,
            )
            .unwrap();
            return out;
        }
        if self.kind.counter_based() {
            let before: u64 = self.r.calls[..self.r.calls.len() - 1].iter().sum();
            if self.dist == Dist::Poisson {
                let (at, skip) = position(self.kind, self.dist, self.r);
                let n = self.n + skip;
                return ours::<T>(self.kind, self.ord, self.seed, at, self.dist, self.mean, n)
                    [skip..]
                    .to_vec();
            }
            let layout = rocm_rand::Layout::new(self.kind, self.dist, T::DTYPE).unwrap();
            let mut out = vec![T::default(); self.n];
            rocm_rand::host::fill_host_window(
                &layout,
                self.seed,
                self.r.offset + before,
                self.r.start,
                self.mean,
                1.0,
                &mut out,
            )
            .unwrap();
            return out;
        }
        let chunk =
            rocm_rand::sequential::Order::of(self.kind, self.ord, self.dist).map_or(1, |o| o.chunk);
        let before: u64 = self.r.calls[..self.r.calls.len() - 1]
            .iter()
            .map(|c| c.div_ceil(chunk))
            .sum();
        let table = rocm_rand::dist::PoissonTable::new(4.0).unwrap();
        let mut out = vec![T::default(); self.n];
        rocm_rand::sequential::fill_window(
            self.kind,
            self.ord,
            self.dist,
            self.seed,
            self.r.offset + before,
            self.r.start,
            self.mean,
            1.0,
            (self.dist == Dist::Poisson).then_some(&table),
            &mut out,
        )
        .unwrap();
        out
    }
}

/// Whether our values of `r`'s window equal cuRAND's (within the bound for the
/// normals); `None` for a kind only reported (Poisson).
fn window_matches(r: &Seq, kind: Kind, ord: Ordering) -> Option<bool> {
    let (dist, mean) = dist_of(&r.dist)?;
    if kind.quasi() && dist == Dist::Poisson {
        // rocm-rand's quasi generators give no Poisson counts.
        return None;
    }
    let seed = r.seed.unwrap_or(0);
    let n = r.values.len();
    let w = Window {
        kind,
        ord,
        seed,
        dist,
        mean,
        n,
        r,
    };
    let f32s = || w.values::<f32>();
    let f64s = || w.values::<f64>();
    let eps32 = f32::EPSILON as f64 / 2.0;
    let eps64 = f64::EPSILON / 2.0;
    let want = &r.values;
    Some(match r.dist.as_str() {
        "u32" => {
            let got = w.values::<u32>();
            got.iter().zip(&r.values).all(|(&g, &w)| g as u64 == w)
        }
        "u64" => {
            let got = w.values::<i64>();
            got.iter().zip(&r.values).all(|(&g, &w)| g as u64 == w)
        }
        "uniform_f32" => f32s()
            .iter()
            .zip(want)
            .all(|(g, &w)| g.to_bits() as u64 == w),
        "uniform_f64" => f64s().iter().zip(want).all(|(g, &w)| g.to_bits() == w),
        "normal_f32" => f32s().iter().zip(want).all(|(&g, &w)| {
            let w = f32::from_bits(w as u32) as f64;
            (g as f64 - w).abs() <= normal_f32_bound(w)
        }),
        "normal_f64" => f64s()
            .iter()
            .zip(want)
            .all(|(&g, &w)| normal_within(g, f64::from_bits(w), eps64)),
        "lognormal_f32" => f32s()
            .iter()
            .zip(want)
            .all(|(&g, &w)| lognormal_within(g as f64, f32::from_bits(w as u32) as f64, eps32)),
        "poisson4" => {
            let got = w.values::<u32>();
            let same = got
                .iter()
                .zip(&r.values)
                .filter(|(&g, &w)| g as u64 == w)
                .count();
            println!(
                "{} {} poisson4: {same} of {n} counts equal cuRAND's (not required)",
                r.generator, r.ordering
            );
            return None;
        }
        _ => return None,
    })
}

/// Whether every located word of `l` is where our ordering puts it.
fn locate_matches(l: &Locate, kind: Kind, ord: Ordering, reference: u64) -> bool {
    let before: u64 = l.calls[..l.calls.len() - 1].iter().sum();
    let word = |p: u64| ours::<u32>(kind, ord, l.seed, p, Dist::Bits, 0.0, 1)[0];
    l.positions.iter().enumerate().all(|(i, &p)| {
        let claim = l.offset + before + i as u64;
        match p {
            Some(p) => p == claim || word(p) == word(claim),
            None => claim >= reference,
        }
    })
}

/// The reference stream's length, from the file's header.
fn reference_len(text: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .find_map(|l| {
            let i = l.find("offset-0 stream of ")?;
            l[i + 19..].split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(1 << 22)
}

/// Per (generator, ordering, dist): records matched, records checked; plus the
/// failures (outside the known mismatches) and the counts not checked.
#[derive(Default)]
struct Tally {
    matched: BTreeMap<String, (usize, usize)>,
    failures: Vec<String>,
    known: Vec<String>,
    unchecked: BTreeMap<String, usize>,
}

impl Tally {
    /// One record's result; `later` when it starts past position 0.
    fn add(&mut self, gen: &str, ord: &str, dist: &str, ok: bool, later: bool, what: String) {
        let key = format!("{gen} {ord} {dist}");
        let e = self.matched.entry(key).or_default();
        e.0 += ok as usize;
        e.1 += 1;
        if !ok {
            match KNOWN_MISMATCHES
                .iter()
                .find(|k| later && k.0 == gen && k.1 == dist)
            {
                Some(k) => self.known.push(format!("{what} (known: {})", k.2)),
                None => self.failures.push(what),
            }
        }
    }
}

/// The (generator, ordering) of a record if this crate provides the pair.
fn provided(generator: &str, ordering: &str) -> Option<(Kind, Ordering)> {
    let (kind, ord) = (kind_of(generator)?, ordering_of(ordering)?);
    let dev = Device::open("cpu").ok()?;
    let mut g = Generator::new(&dev, kind).ok()?;
    g.set_ordering(ord).ok()?;
    Some((kind, ord))
}

fn compare(d: &Data, reference: u64) -> Tally {
    let mut t = Tally::default();
    for r in &d.seqs {
        let Some((kind, ord)) = provided(&r.generator, &r.ordering) else {
            *t.unchecked
                .entry(format!("{} {}", r.generator, r.ordering))
                .or_default() += 1;
            continue;
        };
        let Some(ok) = window_matches(r, kind, ord) else {
            continue;
        };
        let what = format!(
            "seq {} {} seed {:?} offset {} {} calls {:?} start {}",
            r.generator, r.ordering, r.seed, r.offset, r.dist, r.calls, r.start
        );
        let later = r.offset > 0 || r.calls.len() > 1;
        t.add(&r.generator, &r.ordering, &r.dist, ok, later, what);
    }
    for l in &d.locates {
        let Some((kind, ord)) = provided(&l.generator, &l.ordering) else {
            continue;
        };
        let ok = locate_matches(l, kind, ord, reference);
        let what = format!(
            "locate {} {} seed {} offset {} calls {:?}: cuRAND's positions {:?}",
            l.generator, l.ordering, l.seed, l.offset, l.calls, l.positions
        );
        t.add(&l.generator, &l.ordering, "locate", ok, false, what);
    }
    t
}

#[test]
fn file_is_complete() {
    let Some((d, text)) = data() else { return };
    // Every (generator, ordering, seed, offset, dims) has every value kind, or cuRAND's
    // refusal of it is recorded.
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &d.seqs {
        let seed = r.seed.map_or("-".into(), |s| s.to_string());
        let head = format!(
            "{} {} {seed} {} {}",
            r.generator, r.ordering, r.offset, r.dims
        );
        seen.entry(head).or_default().push(r.dist.clone());
    }
    assert!(
        seen.keys().any(|h| h.starts_with("xorwow pseudo_default")),
        "no XORWOW default-ordering record"
    );
    let kinds = [
        "uniform_f32",
        "uniform_f64",
        "normal_f32",
        "normal_f64",
        "lognormal_f32",
        "poisson4",
        "u32|u64",
    ];
    for (head, dists) in &seen {
        for k in kinds {
            let present = k.split('|').any(|d| dists.iter().any(|x| x == d));
            let refused = k
                .split('|')
                .any(|d| text.contains(&format!("# refused: seq {head} {d} ")));
            assert!(
                present || refused,
                "{head}: no {k} record and no refusal recorded"
            );
        }
    }
    println!(
        "{} seq and {} locate records over {} combinations",
        d.seqs.len(),
        d.locates.len(),
        seen.len()
    );
}

#[test]
fn sequences_equal_curand() {
    let Some((d, text)) = data() else { return };
    let t = compare(&d, reference_len(&text));
    for (k, (m, n)) in &t.matched {
        println!("{k}: {m} of {n} records match cuRAND");
    }
    for (g, n) in &t.unchecked {
        println!("not checked (no such generator or ordering in rocm-rand): {g} ({n} records)");
    }
    for k in &t.known {
        println!("known mismatch: {k}");
    }
    println!("{} known mismatches", t.known.len());
    assert!(
        !t.matched.is_empty(),
        "no record of a generator this crate has"
    );
    assert!(
        t.failures.is_empty(),
        "{} records differ from cuRAND:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}

/// The parser refuses what the capture tool never writes, so a damaged file fails
/// loudly instead of checking nothing.
#[test]
fn parser_refuses_malformed_records() {
    let good = "seq xorwow pseudo_default 1234 0 1 u32 1000+64 2 2 0000000a ffffffff\n\
                locate xorwow pseudo_default 1234 1001 65536 2 4096 -";
    let d = parse(good).unwrap();
    assert_eq!(d.seqs[0].values, vec![10, 0xffff_ffff]);
    assert_eq!(d.seqs[0].calls, vec![1000, 64]);
    assert_eq!(d.locates[0].positions, vec![Some(4096), None]);
    for bad in [
        "seq xorwow pseudo_default 1234 0 1 u32 64 0 3 0000000a ffffffff",
        "seq xorwow pseudo_default 1234 0 1 u32 64 0 2 0000000a fffffff",
        "seq xorwow pseudo_default 1234 0 1 uniform_f64 64 0 1 0000000a",
        "seq xorwow pseudo_default x 0 1 u32 64 0 1 0000000a",
        "seq xorwow pseudo_default 1234 0 1 u32 64 0 0",
        "seq xorwow pseudo_default 1234 0 1 u32 64 63 2 0000000a 0000000b",
        "seq xorwow pseudo_default 1234 0 1 u32 0+64 0 1 0000000a",
        "seq xorwow pseudo_default 1234 0 1 u32 64 0 99999999999 0000000a",
        "seq xorwow pseudo_default 1234",
        "locate xorwow pseudo_default 1234 0 64 2 5",
        "locate xorwow pseudo_default 1234 0 64 1 x",
        "xorwow pseudo_default 1234 0 1 u32 64 0000000a",
    ] {
        assert!(parse(bad).is_err(), "accepted: {bad}");
    }
    assert!(parse("# only a comment\n").unwrap().seqs.is_empty());
}

/// The last of consecutive calls of sizes `calls` of one fresh CPU generator.
fn consecutive<T: Element>(
    kind: Kind,
    seed: u64,
    offset: u64,
    dist: Dist,
    mean: f64,
    calls: &[u64],
) -> Vec<T> {
    let dev = Device::open("cpu").unwrap();
    let mut g = Generator::new(&dev, kind).unwrap();
    g.set_seed(seed);
    g.set_offset(offset);
    let mut last = Vec::new();
    for &n in calls {
        let mut buf = DeviceBuffer::<T>::zeros(&dev, n as usize).unwrap();
        g.generate(dist, &mut buf.as_slice_mut(), mean, 1.0)
            .unwrap();
        last = buf.to_vec().unwrap();
    }
    last
}

/// The comparison passes on records made from our own values and fails on each kind
/// when one value is off by more than the bound (one bit for the exact kinds), so the
/// check above can fail; a locate record fails when a position is moved.
#[test]
fn compare_accepts_ours_and_refuses_a_changed_value() {
    let mut recs = Vec::new();
    for kind_name in ["xorwow", "mrg32k3a"] {
        let kind = kind_of(kind_name).unwrap();
        for (seed, offset, calls) in [(1234u64, 0u64, vec![16u64]), (99, 1001, vec![5, 16])] {
            for dist in [
                "u32",
                "uniform_f32",
                "uniform_f64",
                "normal_f32",
                "normal_f64",
            ] {
                let (dd, mean) = dist_of(dist).unwrap();
                let values: Vec<u64> = match dist {
                    "u32" => consecutive::<u32>(kind, seed, offset, dd, mean, &calls)
                        .iter()
                        .map(|&v| v as u64)
                        .collect(),
                    d if wide(d) => consecutive::<f64>(kind, seed, offset, dd, mean, &calls)
                        .iter()
                        .map(|v| v.to_bits())
                        .collect(),
                    _ => consecutive::<f32>(kind, seed, offset, dd, mean, &calls)
                        .iter()
                        .map(|v| v.to_bits() as u64)
                        .collect(),
                };
                recs.push(Seq {
                    generator: kind_name.into(),
                    ordering: "pseudo_default".into(),
                    seed: Some(seed),
                    offset,
                    dims: 1,
                    dist: dist.into(),
                    calls: calls.clone(),
                    start: 0,
                    values,
                });
            }
        }
    }
    let d = Data {
        seqs: recs.clone(),
        locates: vec![Locate {
            generator: "xorwow".into(),
            ordering: "pseudo_default".into(),
            seed: 5,
            offset: 7,
            calls: vec![3, 8],
            positions: vec![Some(10), Some(11), None],
        }],
    };
    let t = compare(&d, 12);
    assert!(t.failures.is_empty(), "{:?}", t.failures);
    assert_eq!(
        t.matched.values().map(|m| m.1).sum::<usize>(),
        recs.len() + 1
    );
    for (i, r) in recs.iter().enumerate() {
        let mut bad = r.clone();
        bad.values[3] = match r.dist.as_str() {
            "u32" | "uniform_f32" | "uniform_f64" => r.values[3] ^ 1,
            // Twice the bound away.
            "normal_f32" => {
                let v = f32::from_bits(r.values[3] as u32) as f64;
                ((v + 2.0 * normal_f32_bound(v)) as f32).to_bits() as u64
            }
            // 64 ulps away: beyond the bound for any magnitude.
            _ => {
                let v = f64::from_bits(r.values[3]);
                (v + v.abs().max(0.125) * 64.0 * f64::EPSILON).to_bits()
            }
        };
        let t = compare(
            &Data {
                seqs: vec![bad],
                locates: vec![],
            },
            12,
        );
        assert_eq!(
            t.failures.len(),
            1,
            "record {i} ({}) changed yet accepted",
            r.dist
        );
    }
    let mut moved = d.locates[0].clone();
    moved.positions[1] = Some(4096);
    let t = compare(
        &Data {
            seqs: vec![],
            locates: vec![moved],
        },
        12,
    );
    assert_eq!(t.failures.len(), 1, "a moved position was accepted");
}
