//! The planner: decomposes a transform into a device-independent tree of explicit steps.
//!
//! A [`PlanTree`] is plain data (lengths, radices, splits; no closures and no tables), so
//! the CPU executor ([`crate::cpu`]) and, later, GPU kernel generators can both walk it.
//! The decomposition follows rocFFT's (`node_factory.cpp`):
//!
//! * a complex 1-D length whose prime factors are all small is a sequence of **Stockham**
//!   radix passes ([`Node::Stockham`]); each pass of radix `r` on a stage of length
//!   `n_s = r·m` with stride `s` computes, for `p < m`, `q < s`,
//!   `y[q + s(rp + j)] = ω_{n_s}^{pj} Σ_k x[q + s(p + km)] ω_r^{jk}` (self-sorting: the
//!   output comes out in natural order);
//! * a large length `N = R·C` is a **four-step** transform ([`Node::FourStep`]): `C`
//!   transforms of length `R` over the columns, a twiddle `ω_N^{n2·k1}`, `R` transforms
//!   of length `C` over the rows, with transposes between them (rocFFT's `L1D_TRTRT`);
//! * a prime length `p` above [`MAX_DIRECT_PRIME`] whose `p − 1` is smooth goes through
//!   **Rader** ([`Node::Rader`]): with `g` a generator of the integers mod `p`,
//!   `X_{g^{−q}} = x_0 + Σ_r x_{g^r} ω_p^{g^{r−q}}`, a cyclic convolution of length
//!   `p − 1` done with two length-`(p − 1)` transforms and a precomputed kernel;
//! * any other length with a prime factor above [`MAX_DIRECT_PRIME`] goes through
//!   **Bluestein** ([`Node::Bluestein`]): `X_k = w_k Σ_j (x_j w_j) conj(w_{k−j})`,
//!   `w_k = e^{∓πik²/N}`, a circular convolution of padded length `M ≥ 2N−1` (a
//!   2·3·5-smooth number) done with two length-`M` transforms and a precomputed kernel;
//! * a real transform of even length `N` is a complex one of length `N/2` plus a
//!   pre/post-processing pass ([`RealNode::Even`]); odd lengths use a full complex one
//!   ([`RealNode::ViaComplex`]);
//! * a multi-dimensional transform is one pass over each axis ([`AxisStep`]), the real
//!   axis (0, the innermost) first for R2C and last for C2R.

use std::fmt::{self, Write};

/// Radices with a dedicated butterfly.
pub const RADICES: [usize; 10] = [2, 3, 4, 5, 7, 8, 9, 11, 13, 16];
/// Largest prime done by a direct (generic, O(r) per point) radix pass; larger prime
/// factors go through Bluestein.
pub const MAX_DIRECT_PRIME: usize = 61;
/// Lengths whose data passes this many bytes use the four-step decomposition when
/// they split into two factors; up to it a Stockham sequence of radix-4 passes, whose
/// streaming passes measured faster on the CPU than the four-step's strided blocks
/// up to 8 MiB (`f32` 2^18: 0.7 ms against 1.25 ms; `f32` 2^20: 11.6 ms against 15
/// ms, best of 5, one thread). Above it every Stockham pass streams the whole array
/// from main memory (ten passes for 2^20), against two round trips for the four-step:
/// `f64` 2^20 (16 MiB) measured 15-25 ms as Stockham against 14.6-14.8 ms as four-step,
/// `f64` 10^6 17-21 against 10.6-15.7 ms (5 alternated processes each, one thread,
/// on the shared 2-vCPU VM at load average 4; session 14).
pub const FOUR_STEP_MIN_BYTES: usize = 8 << 20;
/// The same for odd lengths, whose Stockham passes (radix 9, 5, 7, ...) are fewer
/// and the four-step's blocks of odd sizes less regular. Measured on the 2-vCPU VM
/// (quick bench, best of 4 alternated processes, session 16), four-step -> Stockham,
/// ms: `f64` 531441 = 3^12 (8.5 MB) 5.2 -> 3.8, 823543 = 7^7 (13 MB) 9.8 -> 8.7; on
/// all threads 2.4 -> 1.8 and 4.6 -> 3.5; `f32` 3^13 (12.8 MB) 15.1 -> 8.6, 5^9
/// (15.6 MB) 12.2 -> 11.6. (Even lengths keep the 8 MiB bound: `f64` 10^6 8.6 ->
/// 10.6, 2^20 9.8 -> 11.8 as Stockham.) Larger odd lengths are not measured.
pub const ODD_FOUR_STEP_MIN_BYTES: usize = 16 << 20;

/// What a plan computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformType {
    /// Complex to complex, `X_k = Σ_j x_j e^{−2πijk/N}`.
    ComplexForward,
    /// Complex to complex, `x_j = Σ_k X_k e^{+2πijk/N}` (unnormalised).
    ComplexInverse,
    /// Real to complex (Hermitian half: `⌊N0/2⌋+1` outputs along axis 0), forward sign.
    RealForward,
    /// Complex (Hermitian half) to real, backward sign, unnormalised.
    RealInverse,
}

impl TransformType {
    /// Whether the exponent's sign is negative.
    pub fn is_forward(self) -> bool {
        matches!(
            self,
            TransformType::ComplexForward | TransformType::RealForward
        )
    }

    /// Whether one side of the transform is real.
    pub fn is_real(self) -> bool {
        matches!(
            self,
            TransformType::RealForward | TransformType::RealInverse
        )
    }

    /// Short name (`c2c-forward`, `r2c`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TransformType::ComplexForward => "c2c forward",
            TransformType::ComplexInverse => "c2c backward",
            TransformType::RealForward => "r2c forward",
            TransformType::RealInverse => "c2r backward",
        }
    }
}

/// A kernel that runs whole contiguous transforms of a [`Node::Stockham`] one at a
/// time (see [`whole_kernel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// A radix-`.0` and a radix-`.1` pass with the output as the only scratch
    /// between them (`cpu::stockham::through_output`).
    TwoPass(usize, usize),
    /// The transforms of one vector's lanes together (lane `b` holds transform `b`),
    /// all `r1·r2` values in registers or the stack: radix-`.0` butterflies, constant
    /// twiddles, radix-`.1` butterflies (`cpu::stockham::lanes_codelet`).
    Lanes(usize, usize),
    /// One transform at a time in registers, vectors across it
    /// (`cpu::stockham::in_registers`): radix-`.0` butterflies across registers
    /// (lanes are consecutive inputs), twiddles, lane-by-register transposes,
    /// radix-`.1` butterflies across registers. `.1` is a multiple of the lane count.
    Registers(usize, usize),
}

/// One complex 1-D transform of length `n` on contiguous data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Stockham radix passes; the product of `radices` is `n` (empty for `n <= 1`).
    /// With `whole`, contiguous transforms (alone or in batches) run one at a time
    /// by that kernel instead ([`Whole`]); other layouts keep the passes.
    Stockham {
        n: usize,
        radices: Vec<usize>,
        whole: Option<Whole>,
    },
    /// `n = rows·cols`: `cols` transforms of length `rows` (`first`), twiddles, then
    /// `rows` transforms of length `cols` (`second`).
    FourStep {
        n: usize,
        rows: usize,
        cols: usize,
        first: Box<Node>,
        second: Box<Node>,
    },
    /// Chirp-z: convolution of padded length `m` through `conv` (length `m`, forward).
    Bluestein { n: usize, m: usize, conv: Box<Node> },
    /// Prime `n`: inputs permuted by the powers of the generator `g`, a cyclic
    /// convolution of length `n − 1` through `conv` (forward), outputs permuted back.
    Rader { n: usize, g: usize, conv: Box<Node> },
}

impl Node {
    /// The transform length.
    pub fn len(&self) -> usize {
        match self {
            Node::Stockham { n, .. }
            | Node::FourStep { n, .. }
            | Node::Bluestein { n, .. }
            | Node::Rader { n, .. } => *n,
        }
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the tree contains a Bluestein step.
    pub fn uses_bluestein(&self) -> bool {
        match self {
            Node::Stockham { .. } => false,
            Node::FourStep { first, second, .. } => {
                first.uses_bluestein() || second.uses_bluestein()
            }
            Node::Bluestein { .. } => true,
            Node::Rader { conv, .. } => conv.uses_bluestein(),
        }
    }

    /// Whether the tree contains a convolution step (Bluestein or Rader): the lengths
    /// with a prime factor above [`MAX_DIRECT_PRIME`], whose error bound is wider.
    pub fn uses_convolution(&self) -> bool {
        match self {
            Node::Stockham { .. } => false,
            Node::FourStep { first, second, .. } => {
                first.uses_convolution() || second.uses_convolution()
            }
            Node::Bluestein { .. } | Node::Rader { .. } => true,
        }
    }

    /// Passes over the data, roughly (for reports).
    pub fn passes(&self) -> usize {
        match self {
            Node::Stockham { radices, .. } => radices.len(),
            Node::FourStep { first, second, .. } => first.passes() + second.passes() + 3,
            Node::Bluestein { conv, .. } | Node::Rader { conv, .. } => 2 * conv.passes() + 2,
        }
    }
}

/// A real 1-D transform of length `n` (the Hermitian side holds `n/2 + 1` values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RealNode {
    /// Even `n`: a complex transform of length `n/2` on the packed pairs plus a pass.
    Even { n: usize, half: Node },
    /// Odd `n`: the complex transform of length `n` of the real data.
    ViaComplex { n: usize, full: Node },
}

impl RealNode {
    /// The real length.
    pub fn len(&self) -> usize {
        match self {
            RealNode::Even { n, .. } | RealNode::ViaComplex { n, .. } => *n,
        }
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The complex node inside.
    pub fn inner(&self) -> &Node {
        match self {
            RealNode::Even { half, .. } => half,
            RealNode::ViaComplex { full, .. } => full,
        }
    }

    /// Complex elements of the line buffer the step works in.
    pub fn buffer_len(&self) -> usize {
        match self {
            RealNode::Even { n, .. } => n / 2 + 1,
            RealNode::ViaComplex { n, .. } => *n,
        }
    }
}

/// What a pass over one axis does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisOp {
    /// Complex transform of each line.
    Complex(Node),
    /// Real-to-complex transform of each line (axis 0, first).
    RealForward(RealNode),
    /// Complex-to-real transform of each line (axis 0, last).
    RealInverse(RealNode),
}

/// One pass over the lines along `axis`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisStep {
    /// The axis (0 is the innermost, as in rocFFT's `lengths[0]`).
    pub axis: usize,
    /// The transform applied to every line.
    pub op: AxisOp,
}

/// A whole plan: what is computed and the passes that compute it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanTree {
    pub kind: TransformType,
    /// Logical lengths, innermost first.
    pub lengths: Vec<usize>,
    pub batch: usize,
    /// Passes in execution order.
    pub steps: Vec<AxisStep>,
}

impl PlanTree {
    /// Plans a transform computed in complex values of `complex_bytes` bytes (8 for
    /// `f32`, 16 for `f64`; the decomposition of large lengths depends on their size
    /// in bytes). `lengths` must be non-empty with every length non-zero (checked by
    /// the API).
    pub fn new(
        kind: TransformType,
        lengths: &[usize],
        batch: usize,
        complex_bytes: usize,
    ) -> PlanTree {
        let mut steps: Vec<AxisStep> = Vec::with_capacity(lengths.len());
        for (axis, &len) in lengths.iter().enumerate() {
            let op = match (kind, axis) {
                (TransformType::RealForward, 0) => {
                    AxisOp::RealForward(plan_real(len, complex_bytes))
                }
                (TransformType::RealInverse, 0) => {
                    AxisOp::RealInverse(plan_real(len, complex_bytes))
                }
                _ => AxisOp::Complex(plan_complex(len, complex_bytes)),
            };
            steps.push(AxisStep { axis, op });
        }
        if kind == TransformType::RealInverse {
            // C2R: the complex axes first, the real axis last.
            steps.rotate_left(1);
        }
        PlanTree {
            kind,
            lengths: lengths.to_vec(),
            batch,
            steps,
        }
    }

    /// Whether any step uses Bluestein.
    pub fn uses_bluestein(&self) -> bool {
        self.steps.iter().any(|s| match &s.op {
            AxisOp::Complex(n) => n.uses_bluestein(),
            AxisOp::RealForward(r) | AxisOp::RealInverse(r) => r.inner().uses_bluestein(),
        })
    }

    /// Whether any step uses a convolution (Bluestein or Rader; see
    /// [`Node::uses_convolution`]).
    pub fn uses_convolution(&self) -> bool {
        self.steps.iter().any(|s| match &s.op {
            AxisOp::Complex(n) => n.uses_convolution(),
            AxisOp::RealForward(r) | AxisOp::RealInverse(r) => r.inner().uses_convolution(),
        })
    }

    /// The tree as indented text (what `rocm-bench fft --explain` prints).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} lengths {:?} batch {}",
            self.kind.name(),
            self.lengths,
            self.batch
        );
        for step in &self.steps {
            let _ = match &step.op {
                AxisOp::Complex(n) => {
                    let _ = writeln!(s, "  axis {}: complex lines of {}", step.axis, n.len());
                    write_node(&mut s, n, 2)
                }
                AxisOp::RealForward(r) | AxisOp::RealInverse(r) => {
                    let dir = if matches!(step.op, AxisOp::RealForward(_)) {
                        "real-to-complex"
                    } else {
                        "complex-to-real"
                    };
                    match r {
                        RealNode::Even { n, half } => {
                            let _ = writeln!(
                                s,
                                "  axis {}: {dir} lines of {n}: even, half-length complex {} + twiddle pass",
                                step.axis,
                                half.len()
                            );
                            write_node(&mut s, half, 2)
                        }
                        RealNode::ViaComplex { n, full } => {
                            let _ = writeln!(
                                s,
                                "  axis {}: {dir} lines of {n}: odd, full-length complex",
                                step.axis
                            );
                            write_node(&mut s, full, 2)
                        }
                    }
                }
            };
        }
        s
    }
}

impl fmt::Display for PlanTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

fn write_node(s: &mut String, node: &Node, depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    match node {
        Node::Stockham { n, radices, whole } => {
            let r: Vec<String> = radices.iter().map(|r| r.to_string()).collect();
            writeln!(
                s,
                "{pad}stockham {n} = {} ({} passes)",
                if r.is_empty() {
                    "1".to_string()
                } else {
                    r.join("x")
                },
                radices.len()
            )?;
            match whole {
                None => Ok(()),
                Some(Whole::TwoPass(r1, r2)) => writeln!(
                    s,
                    "{pad}  contiguous transforms whole: {r1}x{r2} through the output"
                ),
                Some(Whole::Lanes(r1, r2)) => writeln!(
                    s,
                    "{pad}  contiguous transforms whole: {r1}x{r2} codelet, one transform a lane"
                ),
                Some(Whole::Registers(r1, r2)) => writeln!(
                    s,
                    "{pad}  contiguous transforms whole: {r1}x{r2} in registers, vectors across a transform"
                ),
            }
        }
        Node::FourStep {
            n,
            rows,
            cols,
            first,
            second,
        } => {
            writeln!(
                s,
                "{pad}four-step {n} = {rows} x {cols}: transpose, {cols} columns of {rows}, twiddle, transpose, {rows} rows of {cols}, transpose"
            )?;
            write_node(s, first, depth + 1)?;
            write_node(s, second, depth + 1)
        }
        Node::Bluestein { n, m, conv } => {
            writeln!(
                s,
                "{pad}bluestein {n}: chirp, pad to {m}, forward {m}, kernel multiply, forward {m} (conjugated), chirp"
            )?;
            write_node(s, conv, depth + 1)
        }
        Node::Rader { n, g, conv } => {
            let l = n - 1;
            writeln!(
                s,
                "{pad}rader {n} (generator {g}): permute, forward {l}, kernel multiply, forward {l} (conjugated), permute, add x0"
            )?;
            write_node(s, conv, depth + 1)
        }
    }
}

/// The prime factors of `n` in increasing order (with multiplicity).
pub fn prime_factors(mut n: usize) -> Vec<usize> {
    let mut f = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            f.push(p);
            n /= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        f.push(n);
    }
    f
}

/// Whether every prime factor of `n` is at most `limit`.
pub fn is_smooth(n: usize, limit: usize) -> bool {
    prime_factors(n).last().is_none_or(|&p| p <= limit)
}

/// Radix passes for a smooth `n`: powers of two as 4s (one 8 for an odd exponent:
/// last for a power of two, first with other factors), then the other primes,
/// largest first; a few lengths as measured (`MEASURED_PASSES`).
///
/// Why 4s: a Stockham pass of radix `r` streams `r` inputs and `r` outputs (plus
/// `r − 1` twiddle rows in the first pass) at power-of-two distances, which fall in
/// one cache set; radix 8 and 16 (and 9) passes overflow an 8-way L1 set from
/// `N ≈ 4096` on and measured up to 1.7x slower than radix 4 there, while radix 4
/// fits. For the same reason 3s stay 3s (radix 9 has 18 streams), except in `f64`
/// (`complex_bytes ≥ 16`) for lengths with at least [`NINES_FROM`] of them: there
/// they pair up into 9s, an odd one out just before the last 9 (`3^7 = 9·9·3·9`).
/// Measured on the 2-vCPU VM (batches of 2^16 elements, best of 300 calls, three
/// processes, session 14): `f64` 2187 219 -> 177 us (`9·9·9·3` 197, `3·9·9·9` 197),
/// 729 184 -> 163 us, 6561 250 -> 177 us, 19683 895 -> 285-300 us; the two-vector
/// `f64` butterflies spill less than 3 passes' worth of loads and stores cost. Not
/// for fewer 3s (243: 145 us as 3s, 146-150 as 9s; 81: 3s faster) nor in `f32`
/// (2187: 108 us as 3s, 135-187 us with 9s, whose four-lane vectors spill more),
/// except past [`F32_NINES_ABOVE`] with at most one 2.
///
/// Why the 8 first when there are other factors (a power of two keeps it last: its
/// last pass has no twiddles): measured on the 2-vCPU VM (quick bench, batches of
/// 2^16 elements, best of 3 alternated runs, session 15; `4·8·…` -> `8·4·…`), us:
/// `f32` 1440 83.0 -> 73.4, 2400 85.1 -> 76.7, 4000 85.5 -> 77.3, 288 61.7 -> 56.9,
/// 800 68.1 -> 64.4, 100000 189.5 -> 176.3, 163840 474 -> 419, 497664 1751 -> 1518;
/// `f64` 4000 208.6 -> 143.3, 640 126.3 -> 120.1, 1440 145.5 -> 137.1, 497664 3406
/// -> 2756; 96, 160, 384, 480 and 320000 within 3 % (none slower).
pub fn radix_passes(n: usize, complex_bytes: usize) -> Vec<usize> {
    let factors = prime_factors(n);
    let twos = factors.iter().filter(|&&p| p == 2).count();
    let mut out = Vec::new();
    if let Some((.., r)) = MEASURED_PASSES
        .iter()
        .find(|&&(len, bytes, _)| len == n && (bytes == 0 || bytes == complex_bytes))
    {
        return r.to_vec();
    }
    match twos {
        0 => {}
        1 => out.push(2),
        t => {
            let fours = std::iter::repeat_n(4, (t - t % 2 * 3) / 2);
            if t % 2 == 0 {
                out.extend(fours);
            } else if n >> t > 1 {
                // With other factors the 8 goes first (see above).
                out.push(8);
                out.extend(fours);
            } else {
                out.extend(fours);
                out.push(8);
            }
        }
    }
    let threes = factors.iter().filter(|&&p| p == 3).count();
    let mut odd: Vec<usize> = factors.into_iter().filter(|&p| p > 3).collect();
    odd.reverse();
    out.extend(odd);
    // f32 pairs them too when the length is past the batch tiles and has at most one
    // 2, so that the first passes are odd radices or 2 (see [`F32_NINES_ABOVE`]).
    let nines = threes >= NINES_FROM && (complex_bytes >= 16 || (n > F32_NINES_ABOVE && twos <= 1));
    if nines {
        out.extend(std::iter::repeat_n(9, threes / 2));
        if threes % 2 == 1 {
            let last = out.len() - 1;
            out.insert(last, 3);
        }
    } else {
        out.extend(std::iter::repeat_n(3, threes));
    }
    out
}

/// Lengths whose passes were measured better than [`radix_passes`]' rule:
/// `(n, complex bytes or 0 for both, radices)`.
///
/// * 64 as `8 × 8`: one in-register kernel on the CPU.
/// * `f32` 2048 with its 8 first: 70.2-71.4 -> 66.9-67.7 us (2-vCPU VM, quick bench,
///   batches of 2^16 elements, 3 alternated runs, AVX-512 registers, session 17).
///   Not the other odd powers of two: `f32` 8192 77 -> 96 us, `f64` 512 101 -> 105,
///   8192 144 -> 161; 512, 32768, 2^17, 2^19 level.
const MEASURED_PASSES: &[(usize, usize, &[usize])] =
    &[(64, 0, &[8, 8]), (2048, 8, &[8, 4, 4, 4, 4])];

/// Powers of 3 from which `f64` plans pair their 3s into 9s (see [`radix_passes`]).
pub const NINES_FROM: usize = 6;

/// Lengths above which `f32` plans with at least [`NINES_FROM`] 3s and at most one 2
/// pair their 3s into 9s as `f64` does. Up to here the CPU path runs such lengths as
/// batch tiles (interleaved transforms, `f32` 2187 faster as 3s: see
/// [`radix_passes`]); past it they run transform by transform, and a first pass of
/// radix 3 scatters its outputs lane by lane. Measured on the 2-vCPU VM (session 15,
/// quick bench, batches of 2^16 elements, best of 3 alternated runs, us):
/// 19683 254 -> 151, 59049 281 -> 163, 177147 961 -> 530, 531441 3110 -> 1723,
/// 13122 = 2·3^8 266 -> 117, 18225 = 3^6·5^2 173 -> 142; with two or more 2s the 3s
/// come late, in the columns shape, and 9s do not help (46656 = 4^3·3^6 82 -> 83,
/// 746496 = 4^5·3^6 1983 -> 2719).
pub const F32_NINES_ABOVE: usize = 8192;

/// The kernel with which the CPU path runs whole contiguous transforms of `n` (alone
/// or in batches) instead of the [`radix_passes`], where that measured faster; every
/// other layout keeps the passes (the interleaved columns of a batch tile or of an
/// N-D axis, where radix-16 passes run slower than radix 4: `f32` 256 as 16·16
/// passes 67 us against 52 as 4·4·4·4).
///
/// * [`Whole::TwoPass`], one transform at a time with the output as the scratch.
///   Measured on the 2-vCPU VM (quick bench, batches of 2^16 elements, best of 3
///   alternated runs, session 15), us: `f32` 256 as 16 × 16 51.2 -> 45.6, `f32` 128
///   as 8 × 16 44.0 -> 38.5, `f64` 128 as 8 × 16 87.1 -> 75.6; not `f64` 256 as
///   16 × 16 (96.0 -> 96.7).
/// * [`Whole::Lanes`], a vector's lanes of transforms at a time. Measured the same
///   way (session 16, 3 rounds), us, passes -> codelet: `f32` 24 45.0 -> 33.1 (29
///   with its stages unrolled, see `cpu::stockham::UNROLL_MAX`), 27 58.0 -> 47.4
///   (44); `f64` 24 74.2 -> 54.2 (48), 27 84.9 -> 70.0 (67), 72 87.7 -> 78.3. Not
///   `f32` 48 (16 × 3 44.0, 3 × 16 45.1 against 37.0), `f32` 72 (8 × 9 46.6, 9 × 8
///   46.4 against 47.0), `f64` 48 (77.0 / 75.1 against 74.8), `f64` 144 (16 × 9
///   117.9 / 9 × 16 122.2 against 98.3): two stages of 16 or 72 values spill more
///   than the passes cost. (Also measured: 3 × 8 for 24 and 9 × 3 for 27, 1-5 %
///   slower than 8 × 3 and 3 × 9.)
/// * [`Whole::Registers`], vectors across one transform, for `f32` 48 as 12 × 4 and
///   72 as 18 × 4 (radix-12 and radix-18 butterflies by the prime-factor map). The
///   same way (session 17, 3 rounds, AVX-512 registers), us, passes -> kernel: 48
///   36.7 -> 26.3 (6 × 8: 31.8), 72 47.3 -> 34.2 (9 × 8: 42.1); with AVX2's 16
///   registers 72 ran 40.7.
/// * `f64` 144 as [`Whole::TwoPass`] 12 × 12: 97.0 -> 63.4 us (session 17).
pub fn whole_kernel(n: usize, complex_bytes: usize) -> Option<Whole> {
    match (n, complex_bytes) {
        (128, 8) | (128, 16) => Some(Whole::TwoPass(8, 16)),
        (256, 8) => Some(Whole::TwoPass(16, 16)),
        (24, _) => Some(Whole::Lanes(8, 3)),
        (27, _) => Some(Whole::Lanes(3, 9)),
        (72, 16) => Some(Whole::Lanes(8, 9)),
        (48, 8) => Some(Whole::Registers(12, 4)),
        (72, 8) => Some(Whole::Registers(18, 4)),
        (144, 16) => Some(Whole::TwoPass(12, 12)),
        _ => None,
    }
}

/// The planner for one complex length computed in values of `complex_bytes` bytes.
pub fn plan_complex(n: usize, complex_bytes: usize) -> Node {
    if n <= 1 {
        return Node::Stockham {
            n,
            radices: Vec::new(),
            whole: None,
        };
    }
    if !is_smooth(n, MAX_DIRECT_PRIME) {
        if let Some(g) = rader_generator(n) {
            return Node::Rader {
                n,
                g,
                conv: Box::new(plan_complex(n - 1, complex_bytes)),
            };
        }
        let m = bluestein_length(n);
        return Node::Bluestein {
            n,
            m,
            conv: Box::new(plan_complex(m, complex_bytes)),
        };
    }
    let four_step_min = if n % 2 == 1 {
        ODD_FOUR_STEP_MIN_BYTES
    } else {
        FOUR_STEP_MIN_BYTES
    };
    if n.saturating_mul(complex_bytes) > four_step_min {
        if let Some(rows) = four_step_split(n) {
            let cols = n / rows;
            return Node::FourStep {
                n,
                rows,
                cols,
                first: Box::new(plan_complex(rows, complex_bytes)),
                second: Box::new(plan_complex(cols, complex_bytes)),
            };
        }
    }
    Node::Stockham {
        n,
        radices: radix_passes(n, complex_bytes),
        whole: whole_kernel(n, complex_bytes),
    }
}

/// The planner for one real length (complex values of `complex_bytes` bytes).
pub fn plan_real(n: usize, complex_bytes: usize) -> RealNode {
    if n % 2 == 0 {
        RealNode::Even {
            n,
            half: plan_complex(n / 2, complex_bytes),
        }
    } else {
        RealNode::ViaComplex {
            n,
            full: plan_complex(n, complex_bytes),
        }
    }
}

/// The rows of a four-step split: the divisor of `n` nearest `√n` from below, among
/// those within a factor 8 of `√n`, preferring one where both factors are multiples
/// of 4 (whole vectors in every first pass). `None` when no divisor is that close.
fn four_step_split(n: usize) -> Option<usize> {
    let root = (n as f64).sqrt() as usize;
    let candidates = || (2..=root).rev().filter(|&d| n % d == 0 && d * d * 64 >= n);
    candidates()
        .find(|&d| d % 4 == 0 && (n / d) % 4 == 0)
        .or_else(|| candidates().next())
}

/// For a prime `n` with `n − 1` smooth: the smallest generator of the multiplicative
/// group mod `n` (Rader's permutation). `None` for anything else.
pub fn rader_generator(n: usize) -> Option<usize> {
    let f = prime_factors(n);
    // Rader's index tables are u32.
    if f.len() != 1 || n < 3 || n as u64 >= 1 << 32 || !is_smooth(n - 1, MAX_DIRECT_PRIME) {
        return None;
    }
    let mut qs = prime_factors(n - 1);
    qs.dedup();
    (2..n).find(|&g| qs.iter().all(|&q| pow_mod(g, (n - 1) / q, n) != 1))
}

/// `b^e mod m` in exact integer arithmetic.
pub fn pow_mod(b: usize, mut e: usize, m: usize) -> usize {
    let m128 = m as u128;
    let (mut r, mut b) = (1u128 % m128, b as u128 % m128);
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % m128;
        }
        b = b * b % m128;
        e >>= 1;
    }
    r as usize
}

/// The smallest 2·3·5-smooth multiple of 16 `>= 2n − 1` (the convolution length; the
/// factor 16 makes the first passes whole radix-4/8/16 vectors), or of 1 for tiny `n`.
pub fn bluestein_length(n: usize) -> usize {
    let target = 2 * n - 1;
    let unit = if target > 64 { 16 } else { 1 };
    let mut best = target.next_power_of_two().max(unit);
    let mut p3 = 1usize;
    while p3 < best {
        let mut p35 = p3;
        while p35 < best {
            // Smallest power of two taking p35·unit to at least target.
            let mut m = p35 * unit;
            while m < target {
                m *= 2;
            }
            best = best.min(m);
            p35 *= 5;
        }
        p3 *= 3;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_passes_multiply_to_n() {
        for n in 1..20000usize {
            if is_smooth(n, MAX_DIRECT_PRIME) {
                for bytes in [8, 16] {
                    let p: usize = super::radix_passes(n, bytes).iter().product();
                    assert_eq!(p, n);
                }
            }
        }
        let radix_passes = |n| super::radix_passes(n, 8);
        assert_eq!(radix_passes(1024), vec![4, 4, 4, 4, 4]);
        assert_eq!(radix_passes(2048), vec![8, 4, 4, 4, 4]);
        assert_eq!(super::radix_passes(2048, 16), vec![4, 4, 4, 4, 8]);
        assert_eq!(radix_passes(8192), vec![4, 4, 4, 4, 4, 8]);
        assert_eq!(radix_passes(32), vec![4, 8]);
        assert_eq!(radix_passes(16), vec![4, 4]);
        assert_eq!(radix_passes(64), vec![8, 8]);
        assert_eq!(radix_passes(8), vec![8]);
        assert_eq!(radix_passes(2), vec![2]);
        assert_eq!(radix_passes(60), vec![4, 5, 3]);
        assert_eq!(radix_passes(2187), vec![3; 7]);
        assert_eq!(radix_passes(360), vec![8, 5, 3, 3]);
        // An odd power of two with other factors: the 8 first.
        assert_eq!(radix_passes(1440), vec![8, 4, 5, 3, 3]);
        assert_eq!(super::radix_passes(100_000, 16), vec![8, 4, 5, 5, 5, 5, 5]);
        // f32 past the batch tiles with at most one 2: 9s as in f64.
        assert_eq!(radix_passes(19683), vec![9, 9, 9, 3, 9]);
        assert_eq!(radix_passes(2 * 6561), vec![2, 9, 9, 9, 9]);
        assert_eq!(radix_passes(6561), vec![3; 8]);
        assert_eq!(radix_passes(64 * 729), vec![4, 4, 4, 3, 3, 3, 3, 3, 3]);
        // f64: 3s paired into 9s from 3^6 on, an odd one before the last 9.
        assert_eq!(super::radix_passes(2187, 16), vec![9, 9, 3, 9]);
        assert_eq!(super::radix_passes(729, 16), vec![9, 9, 9]);
        assert_eq!(super::radix_passes(243, 16), vec![3; 5]);
        assert_eq!(super::radix_passes(360, 16), vec![8, 5, 3, 3]);
        assert_eq!(
            super::radix_passes(4 * 5 * 2187, 16),
            vec![4, 5, 9, 9, 3, 9]
        );
    }

    #[test]
    fn decomposition_choices() {
        // Complex f32 (8 bytes) unless stated.
        let plan_complex = |n| super::plan_complex(n, 8);
        let plan_real = |n| super::plan_real(n, 8);
        assert!(matches!(
            plan_complex(1 << 22),
            Node::FourStep {
                rows: 2048,
                cols: 2048,
                ..
            }
        ));
        assert!(matches!(plan_complex(1 << 20), Node::Stockham { .. }));
        // The same length in f64 is 16 MiB: four-step.
        assert!(matches!(
            super::plan_complex(1 << 20, 16),
            Node::FourStep {
                rows: 1024,
                cols: 1024,
                ..
            }
        ));
        assert!(matches!(
            super::plan_complex(1 << 19, 16),
            Node::Stockham { .. }
        ));
        // 2^5·5^7: both factors multiples of 4 rather than the nearest divisor.
        assert!(matches!(
            plan_complex(2_500_000),
            Node::FourStep { rows: 1000, .. }
        ));
        assert!(matches!(plan_complex(4096), Node::Stockham { .. }));
        // Odd lengths up to 16 MiB: Stockham.
        assert!(matches!(
            super::plan_complex(531441, 16),
            Node::Stockham { .. }
        ));
        assert!(matches!(
            super::plan_complex(823543, 16),
            Node::Stockham { .. }
        ));
        assert!(matches!(plan_complex(1594323), Node::Stockham { .. }));
        assert!(matches!(
            super::plan_complex(1594323, 16),
            Node::FourStep { .. }
        ));
        assert!(matches!(
            super::plan_complex(1_000_000, 16),
            Node::FourStep { .. }
        ));
        // Whole-transform kernels, named in the tree.
        let whole = |n, bytes| match super::plan_complex(n, bytes) {
            Node::Stockham { whole, .. } => whole,
            _ => None,
        };
        assert_eq!(whole(24, 8), Some(Whole::Lanes(8, 3)));
        assert_eq!(whole(27, 16), Some(Whole::Lanes(3, 9)));
        assert_eq!(whole(72, 16), Some(Whole::Lanes(8, 9)));
        assert_eq!(whole(72, 8), Some(Whole::Registers(18, 4)));
        assert_eq!(whole(48, 8), Some(Whole::Registers(12, 4)));
        assert_eq!(whole(48, 16), None);
        assert_eq!(whole(144, 16), Some(Whole::TwoPass(12, 12)));
        assert_eq!(whole(144, 8), None);
        assert_eq!(whole(128, 16), Some(Whole::TwoPass(8, 16)));
        assert_eq!(whole(256, 8), Some(Whole::TwoPass(16, 16)));
        assert_eq!(whole(256, 16), None);
        let tree = PlanTree::new(TransformType::ComplexForward, &[24], 5, 8);
        assert!(
            tree.describe().contains("8x3 codelet"),
            "{}",
            tree.describe()
        );
        let tree = PlanTree::new(TransformType::ComplexForward, &[48], 5, 8);
        assert!(
            tree.describe().contains("12x4 in registers"),
            "{}",
            tree.describe()
        );
        // 1009 − 1 = 2^4·3^2·7: Rader; 1019 − 1 = 2·509: Bluestein.
        let r = plan_complex(1009);
        assert!(matches!(r, Node::Rader { n: 1009, g: 11, .. }));
        assert!(r.uses_convolution() && !r.uses_bluestein());
        let b = plan_complex(1019);
        assert!(matches!(b, Node::Bluestein { n: 1019, m, .. } if (2037..=2048).contains(&m)));
        assert!(b.uses_bluestein() && b.uses_convolution());
        assert_eq!(bluestein_length(1009), 2048);
        assert_eq!(bluestein_length(10007), 20480);
        assert_eq!(rader_generator(7), Some(3));
        assert_eq!(rader_generator(65537), Some(3));
        assert_eq!(rader_generator(9), None);
        assert_eq!(bluestein_length(2), 3);
        assert!(matches!(plan_real(10), RealNode::Even { n: 10, .. }));
        assert!(matches!(plan_real(9), RealNode::ViaComplex { n: 9, .. }));
        let t = PlanTree::new(TransformType::RealInverse, &[8, 4, 2], 3, 8);
        assert_eq!(
            t.steps.iter().map(|s| s.axis).collect::<Vec<_>>(),
            vec![1, 2, 0]
        );
        let text = t.describe();
        assert!(text.contains("complex-to-real lines of 8"), "{text}");
    }
}
