//! Matrix Market I/O (NIST format): `coordinate` and `array`; `real`, `integer`,
//! `complex`, `pattern`; `general`, `symmetric`, `skew-symmetric`, `hermitian`.
//!
//! Reading is strict: every malformed input (bad banner, bad size line, wrong entry
//! count, out-of-range index, unparsable number, an entry on the wrong side of the
//! diagonal for a symmetric file) is an error naming the 1-based line, and nothing is
//! returned from a file that was not read completely. Symmetric files are expanded:
//! `(j, i)` gets `v`, `-v` or `conj(v)`. Pattern entries read as 1.
//!
//! Hostile files: storage grows with the entries actually read, never from the declared
//! size (a three-line file declaring 10^12 rows, or an array whose `m × n` wraps, costs
//! nothing before it fails); counts are multiplied with overflow checks; a line longer
//! than [`MAX_LINE_BYTES`] (e.g. `/dev/zero`) is an error. NaN and infinite values are an
//! error naming the line unless [`MmOptions::allow_non_finite`] accepts them: a benchmark
//! or a solver fed a non-finite matrix reports nothing meaningful.

use crate::format::{Coo, Dense, SparseMatrix};
use crate::scalar::{check_fits, Index, Scalar};
use num_complex::Complex64;
use rocm_core::{Error, Result};
use std::io::{BufRead, Write};

/// `coordinate` (sparse) or `array` (dense, column-major).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmFormat {
    Coordinate,
    Array,
}

/// The value field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmField {
    Real,
    Integer,
    Complex,
    Pattern,
}

/// The symmetry: only the lower triangle is stored for the non-general kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmSymmetry {
    General,
    Symmetric,
    SkewSymmetric,
    Hermitian,
}

/// The banner line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmHeader {
    pub format: MmFormat,
    pub field: MmField,
    pub symmetry: MmSymmetry,
}

const FORMATS: [(&str, MmFormat); 2] = [
    ("coordinate", MmFormat::Coordinate),
    ("array", MmFormat::Array),
];
const FIELDS: [(&str, MmField); 4] = [
    ("real", MmField::Real),
    ("integer", MmField::Integer),
    ("complex", MmField::Complex),
    ("pattern", MmField::Pattern),
];
const SYMMETRIES: [(&str, MmSymmetry); 4] = [
    ("general", MmSymmetry::General),
    ("symmetric", MmSymmetry::Symmetric),
    ("skew-symmetric", MmSymmetry::SkewSymmetric),
    ("hermitian", MmSymmetry::Hermitian),
];

fn name_of<V: PartialEq + Copy>(table: &[(&'static str, V)], v: V) -> &'static str {
    table.iter().find(|e| e.1 == v).map_or("?", |e| e.0)
}

fn lookup<V: Copy>(table: &[(&str, V)], word: &str, what: &str) -> Result<V> {
    let w = word.to_ascii_lowercase();
    table.iter().find(|e| e.0 == w).map(|e| e.1).ok_or_else(|| {
        bad(
            1,
            format!(
                "unknown {what} `{word}` (expected one of {})",
                table.iter().map(|e| e.0).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

fn bad(line: usize, why: impl std::fmt::Display) -> Error {
    Error::invalid("matrix market", format!("line {line}: {why}"))
}

impl MmHeader {
    /// Checks the combinations the format allows.
    pub fn validate(&self, line: usize) -> Result<()> {
        use MmField::*;
        use MmSymmetry::*;
        match (self.format, self.field, self.symmetry) {
            (MmFormat::Array, Pattern, _) => {
                Err(bad(line, "`array` files cannot have the `pattern` field"))
            }
            (_, Pattern, SkewSymmetric) => {
                Err(bad(line, "a `pattern` matrix cannot be skew-symmetric"))
            }
            (_, f, Hermitian) if f != Complex => {
                Err(bad(line, "`hermitian` needs the `complex` field"))
            }
            _ => Ok(()),
        }
    }

    fn banner(&self) -> String {
        format!(
            "%%MatrixMarket matrix {} {} {}",
            name_of(&FORMATS, self.format),
            name_of(&FIELDS, self.field),
            name_of(&SYMMETRIES, self.symmetry)
        )
    }
}

/// A matrix read from a file: sparse for `coordinate`, dense for `array`.
#[derive(Debug, Clone, PartialEq)]
pub enum MmMatrix<I, T> {
    Sparse(Coo<I, T>),
    Dense(Dense<T>),
}

/// The longest line accepted, in bytes (the format itself caps lines at 1024 characters;
/// comments in real files run longer).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Choices for reading.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MmOptions {
    /// Accept NaN and infinite values (by default they are an error naming the line).
    pub allow_non_finite: bool,
}

/// Reads lines, numbering them and skipping comments and blank lines.
struct Lines<R> {
    inner: R,
    line: usize,
    buf: String,
    bytes: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    /// The next raw line into `self.buf` (0 bytes at end of input), at most
    /// [`MAX_LINE_BYTES`] long and UTF-8.
    fn next_raw(&mut self) -> Result<usize> {
        let at = self.line + 1;
        self.bytes.clear();
        let n = std::io::Read::take(&mut self.inner, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut self.bytes)
            .map_err(|e| Error::io(format!("reading matrix market line {at}"), e))?;
        if n > MAX_LINE_BYTES {
            return Err(bad(
                at,
                format!("line is longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        self.buf.clear();
        self.buf.push_str(
            std::str::from_utf8(&self.bytes).map_err(|_| bad(at, "line is not UTF-8 text"))?,
        );
        if n > 0 {
            self.line = at;
        }
        Ok(n)
    }

    /// The next data line (trimmed) with its number, or None at end of input.
    fn next_data(&mut self) -> Result<Option<(usize, String)>> {
        loop {
            if self.next_raw()? == 0 {
                return Ok(None);
            }
            let t = self.buf.trim();
            if t.is_empty() || t.starts_with('%') {
                continue;
            }
            return Ok(Some((self.line, t.to_string())));
        }
    }
}

fn parse_num<V: std::str::FromStr>(tok: Option<&str>, line: usize, what: &str) -> Result<V> {
    let t = tok.ok_or_else(|| bad(line, format!("missing {what}")))?;
    t.parse()
        .map_err(|_| bad(line, format!("cannot parse {what} `{t}`")))
}

/// Parses the value tokens of one entry per `field`.
fn parse_value(
    field: MmField,
    toks: &mut std::str::SplitWhitespace<'_>,
    line: usize,
) -> Result<Complex64> {
    Ok(match field {
        MmField::Pattern => Complex64::new(1.0, 0.0),
        MmField::Integer => Complex64::new(
            parse_num::<i64>(toks.next(), line, "integer value")? as f64,
            0.0,
        ),
        MmField::Real => Complex64::new(parse_num::<f64>(toks.next(), line, "real value")?, 0.0),
        MmField::Complex => Complex64::new(
            parse_num::<f64>(toks.next(), line, "real part")?,
            parse_num::<f64>(toks.next(), line, "imaginary part")?,
        ),
    })
}

/// Rejects NaN/Inf unless the options accept them.
fn check_finite(z: Complex64, line: usize, opts: &MmOptions) -> Result<()> {
    let finite = z.re.is_finite() && z.im.is_finite();
    if !finite && !opts.allow_non_finite {
        return Err(bad(
            line,
            format!("value {z} is not finite (MmOptions::allow_non_finite accepts it)"),
        ));
    }
    Ok(())
}

fn to_value<T: Scalar>(z: Complex64, line: usize) -> Result<T> {
    if !T::IS_COMPLEX && z.im != 0.0 {
        return Err(bad(
            line,
            format!(
                "complex value {z} cannot be stored in a real type {}",
                T::DTYPE
            ),
        ));
    }
    Ok(T::from_c64(z))
}

/// Reads a Matrix Market file (default [`MmOptions`]).
pub fn read<I: Index, T: Scalar>(reader: impl BufRead) -> Result<(MmHeader, MmMatrix<I, T>)> {
    read_with(reader, &MmOptions::default())
}

/// Reads a Matrix Market file with `opts`.
pub fn read_with<I: Index, T: Scalar>(
    reader: impl BufRead,
    opts: &MmOptions,
) -> Result<(MmHeader, MmMatrix<I, T>)> {
    let mut lines = Lines {
        inner: reader,
        line: 0,
        buf: String::new(),
        bytes: Vec::new(),
    };
    // Banner: the very first line.
    let n = lines.next_raw()?;
    if n == 0 {
        return Err(bad(1, "empty input (missing the %%MatrixMarket banner)"));
    }
    let words: Vec<&str> = lines.buf.split_whitespace().collect();
    if words.len() != 5
        || !words[0].eq_ignore_ascii_case("%%MatrixMarket")
        || !words[1].eq_ignore_ascii_case("matrix")
    {
        return Err(bad(
            1,
            format!(
                "bad banner `{}` (expected `%%MatrixMarket matrix FORMAT FIELD SYMMETRY`)",
                lines.buf.trim()
            ),
        ));
    }
    let header = MmHeader {
        format: lookup(&FORMATS, words[2], "format")?,
        field: lookup(&FIELDS, words[3], "field")?,
        symmetry: lookup(&SYMMETRIES, words[4], "symmetry")?,
    };
    header.validate(1)?;
    if header.field == MmField::Complex && !T::IS_COMPLEX {
        return Err(bad(
            1,
            format!(
                "a complex matrix cannot be read into the real type {}",
                T::DTYPE
            ),
        ));
    }
    let (sl, size) = lines
        .next_data()?
        .ok_or_else(|| bad(lines.line + 1, "missing the size line"))?;
    let mut toks = size.split_whitespace();
    let m: usize = parse_num(toks.next(), sl, "row count")?;
    let n: usize = parse_num(toks.next(), sl, "column count")?;
    check_fits::<I>("nrows", m).map_err(|e| bad(sl, e))?;
    check_fits::<I>("ncols", n).map_err(|e| bad(sl, e))?;
    let sym = header.symmetry;
    if sym != MmSymmetry::General && m != n {
        return Err(bad(
            sl,
            format!(
                "a {} matrix must be square, size is {m}x{n}",
                name_of(&SYMMETRIES, sym)
            ),
        ));
    }
    let mirror = |z: Complex64| match sym {
        MmSymmetry::SkewSymmetric => -z,
        MmSymmetry::Hermitian => z.conj(),
        _ => z,
    };
    let result = match header.format {
        MmFormat::Coordinate => {
            let nnz: usize = parse_num(toks.next(), sl, "entry count")?;
            if toks.next().is_some() {
                return Err(bad(sl, "size line has more than 3 numbers"));
            }
            let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
            for e in 0..nnz {
                let (ln, text) = lines.next_data()?.ok_or_else(|| {
                    bad(
                        lines.line + 1,
                        format!("expected {nnz} entries, found {e} (unexpected end of file)"),
                    )
                })?;
                let mut t = text.split_whitespace();
                let i: usize = parse_num(t.next(), ln, "row index")?;
                let j: usize = parse_num(t.next(), ln, "column index")?;
                if i == 0 || i > m || j == 0 || j > n {
                    return Err(bad(
                        ln,
                        format!("index ({i}, {j}) outside 1..={m} x 1..={n}"),
                    ));
                }
                let z = parse_value(header.field, &mut t, ln)?;
                if t.next().is_some() {
                    return Err(bad(ln, "too many numbers in entry"));
                }
                check_finite(z, ln, opts)?;
                let (i, j) = (i - 1, j - 1);
                if sym != MmSymmetry::General && j > i {
                    return Err(bad(
                        ln,
                        format!(
                            "entry ({}, {}) is above the diagonal in a {} file",
                            i + 1,
                            j + 1,
                            name_of(&SYMMETRIES, sym)
                        ),
                    ));
                }
                if sym == MmSymmetry::SkewSymmetric && i == j {
                    return Err(bad(
                        ln,
                        format!(
                            "diagonal entry ({}, {}) in a skew-symmetric file",
                            i + 1,
                            j + 1
                        ),
                    ));
                }
                check_hermitian_diagonal(sym, i, j, z, ln)?;
                rows.push(I::from_usize(i));
                cols.push(I::from_usize(j));
                vals.push(to_value::<T>(z, ln)?);
                if sym != MmSymmetry::General && i != j {
                    rows.push(I::from_usize(j));
                    cols.push(I::from_usize(i));
                    vals.push(to_value::<T>(mirror(z), ln)?);
                }
            }
            MmMatrix::Sparse(Coo::new(m, n, rows, cols, vals).map_err(|e| bad(lines.line, e))?)
        }
        MmFormat::Array => {
            if toks.next().is_some() {
                return Err(bad(
                    sl,
                    "size line of an array file has more than 2 numbers",
                ));
            }
            // Values arrive column by column (only the lower triangle for the
            // non-general kinds); they are kept as read, and the matrix is laid out only
            // once all of them are there.
            let lower = |k: usize| {
                k.checked_add(1)
                    .and_then(|k1| k1.checked_mul(k))
                    .map(|p| p / 2)
            };
            let expected = match sym {
                MmSymmetry::General => m.checked_mul(n),
                MmSymmetry::SkewSymmetric => lower(n.saturating_sub(1)),
                _ => lower(n),
            }
            .ok_or_else(|| bad(sl, format!("a {m}x{n} array overflows the address space")))?;
            let mut got: Vec<T> = Vec::new();
            // No values (an m = 0 array of any width): no column to walk.
            let columns = if expected == 0 { 0 } else { n };
            for j in 0..columns {
                let first = match sym {
                    MmSymmetry::General => 0,
                    MmSymmetry::SkewSymmetric => j + 1,
                    _ => j,
                };
                for i in first..m {
                    let count = got.len();
                    let (ln, text) = lines.next_data()?.ok_or_else(|| {
                        bad(lines.line + 1, format!("expected {expected} values, found {count} (unexpected end of file at column {})", j + 1))
                    })?;
                    let mut t = text.split_whitespace();
                    let z = parse_value(header.field, &mut t, ln)?;
                    if t.next().is_some() {
                        return Err(bad(ln, "too many numbers in value line"));
                    }
                    check_finite(z, ln, opts)?;
                    check_hermitian_diagonal(sym, i, j, z, ln)?;
                    got.push(to_value::<T>(z, ln)?);
                }
            }
            let d = if sym == MmSymmetry::General {
                Dense::new(m, n, m.max(1), got)?
            } else {
                // Square, and n(n+1)/2 values were read: n*n fits.
                let mut data =
                    rocm_core::host_alloc::try_vec("matrix market array", n * n, T::zero())?;
                let mut k = 0;
                for j in 0..n {
                    let first = if sym == MmSymmetry::SkewSymmetric {
                        j + 1
                    } else {
                        j
                    };
                    for i in first..n {
                        let v = got[k];
                        k += 1;
                        data[i + j * n] = v;
                        if i != j {
                            data[j + i * n] = to_value::<T>(mirror(v.to_c64()), lines.line)?;
                        }
                    }
                }
                Dense::new(n, n, n.max(1), data)?
            };
            MmMatrix::Dense(d)
        }
    };
    if let Some((ln, text)) = lines.next_data()? {
        return Err(bad(
            ln,
            format!("unexpected data after the last entry: `{text}`"),
        ));
    }
    Ok((header, result))
}

/// A Hermitian matrix's diagonal is real (`a(i, i) = conj(a(i, i))`): an imaginary part
/// there is a malformed file, not something to store silently.
fn check_hermitian_diagonal(
    sym: MmSymmetry,
    i: usize,
    j: usize,
    z: Complex64,
    line: usize,
) -> Result<()> {
    if sym == MmSymmetry::Hermitian && i == j && z.im != 0.0 {
        return Err(bad(
            line,
            format!(
                "diagonal entry ({}, {}) = {z} of a hermitian file is not real",
                i + 1,
                j + 1
            ),
        ));
    }
    Ok(())
}

/// Reads a file from disk.
pub fn read_file<I: Index, T: Scalar>(
    path: impl AsRef<std::path::Path>,
) -> Result<(MmHeader, MmMatrix<I, T>)> {
    read_file_with(path, &MmOptions::default())
}

/// Reads a file from disk with `opts`.
pub fn read_file_with<I: Index, T: Scalar>(
    path: impl AsRef<std::path::Path>,
    opts: &MmOptions,
) -> Result<(MmHeader, MmMatrix<I, T>)> {
    let p = path.as_ref();
    let f = std::fs::File::open(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?;
    read_with(std::io::BufReader::new(f), opts)
}

/// What the fuzzers (`fuzz/`, and the bounded loops in CI) check on any bytes: reading as
/// every index and value type returns `Ok` or an `Error`, never panics or allocates more
/// than the input justifies; a small matrix that reads converts to CSR, writes, and
/// reads back to the same entries.
#[doc(hidden)]
pub fn fuzz_input(data: &[u8]) {
    fn one<I: Index, T: Scalar>(data: &[u8]) {
        let opts = MmOptions {
            allow_non_finite: true,
        };
        let Ok((_, m)) = read_with::<I, T>(data, &opts) else {
            return;
        };
        let MmMatrix::Sparse(coo) = m else {
            return;
        };
        // CSR needs a row pointer per row: only for sizes the input could have spelt out.
        if coo.nrows() > (1 << 16) {
            return;
        }
        let csr = coo.to_csr().expect("a read matrix converts to CSR");
        let mut out = Vec::new();
        write_coo(&mut out, &coo, MmField::Complex, MmSymmetry::General)
            .expect("a read matrix writes");
        if T::IS_COMPLEX {
            let (_, back) = read_with::<I, T>(&out[..], &opts).expect("a written matrix reads");
            let MmMatrix::Sparse(back) = back else {
                panic!("a coordinate file read back as an array");
            };
            assert_eq!(back.nnz(), csr.nnz());
        }
    }
    one::<i32, f64>(data);
    one::<i64, f32>(data);
    one::<i32, Complex64>(data);
}

fn fmt_value(field: MmField, z: Complex64, what: &str) -> Result<String> {
    Ok(match field {
        MmField::Pattern => String::new(),
        MmField::Real => {
            rocm_core::ensure_arg!(
                z.im == 0.0,
                what,
                "value {z} is complex; use the complex field"
            );
            format!(" {}", z.re)
        }
        MmField::Integer => {
            rocm_core::ensure_arg!(
                z.im == 0.0 && z.re.fract() == 0.0 && z.re.abs() < 9.0e15,
                what,
                "value {z} is not an integer"
            );
            format!(" {}", z.re as i64)
        }
        MmField::Complex => format!(" {} {}", z.re, z.im),
    })
}

/// Whether `a(i, j)` and `a(j, i)` satisfy `symmetry` (`a` dense widened).
fn check_symmetry(
    get: impl Fn(usize, usize) -> Complex64,
    n: usize,
    sym: MmSymmetry,
) -> Result<()> {
    for i in 0..n {
        for j in 0..=i {
            let (a, b) = (get(i, j), get(j, i));
            let ok = match sym {
                MmSymmetry::General => true,
                MmSymmetry::Symmetric => a == b,
                MmSymmetry::SkewSymmetric => a == -b,
                MmSymmetry::Hermitian => a == b.conj(),
            };
            if !ok {
                return Err(Error::invalid(
                    "symmetry",
                    format!(
                        "entries ({i}, {j}) = {a} and ({j}, {i}) = {b} are not {}",
                        name_of(&SYMMETRIES, sym)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Writes a sparse matrix in coordinate format (duplicates summed first). For the
/// non-general symmetries the matrix must have that symmetry (checked exactly) and only
/// its lower triangle is written; `pattern` writes positions only.
pub fn write_coo<I: Index, T: Scalar>(
    mut w: impl Write,
    a: &Coo<I, T>,
    field: MmField,
    symmetry: MmSymmetry,
) -> Result<()> {
    let header = MmHeader {
        format: MmFormat::Coordinate,
        field,
        symmetry,
    };
    header.validate(0).map_err(|_| {
        Error::invalid(
            "field/symmetry",
            format!("`{}` is not a valid combination", header.banner()),
        )
    })?;
    let csr = a.to_csr()?;
    if symmetry != MmSymmetry::General {
        rocm_core::ensure_arg!(
            a.nrows() == a.ncols(),
            "A",
            "must be square for {symmetry:?}"
        );
        let t = csr.transpose();
        let get = |m: &crate::Csr<I, T>, i: usize, j: usize| -> Complex64 {
            m.row_range(i)
                .find(|&k| m.col_idx()[k].to_usize() == j)
                .map_or(Complex64::new(0.0, 0.0), |k| m.values()[k].to_c64())
        };
        // (i, j) vs (j, i) for every stored entry, via the transpose's row i.
        for i in 0..csr.nrows() {
            for k in csr.row_range(i) {
                let j = csr.col_idx()[k].to_usize();
                let (a, b) = (csr.values()[k].to_c64(), get(&t, i, j));
                let ok = match symmetry {
                    MmSymmetry::Symmetric => a == b,
                    MmSymmetry::SkewSymmetric => a == -b,
                    _ => a == b.conj(),
                };
                rocm_core::ensure_arg!(
                    ok,
                    "symmetry",
                    "entries ({i}, {j}) = {a} and ({j}, {i}) = {b} are not {}",
                    name_of(&SYMMETRIES, symmetry)
                );
            }
        }
    }
    let keep = |i: usize, j: usize| match symmetry {
        MmSymmetry::General => true,
        MmSymmetry::SkewSymmetric => j < i,
        _ => j <= i,
    };
    let mut lines = Vec::new();
    for i in 0..csr.nrows() {
        for k in csr.row_range(i) {
            let j = csr.col_idx()[k].to_usize();
            if keep(i, j) {
                lines.push(format!(
                    "{} {}{}",
                    i + 1,
                    j + 1,
                    fmt_value(field, csr.values()[k].to_c64(), "A")?
                ));
            }
        }
    }
    let io = |e: std::io::Error| Error::io("writing matrix market", e);
    writeln!(w, "{}", header.banner()).map_err(io)?;
    writeln!(w, "{} {} {}", csr.nrows(), csr.ncols(), lines.len()).map_err(io)?;
    for l in lines {
        writeln!(w, "{l}").map_err(io)?;
    }
    Ok(())
}

/// Writes a dense matrix in array format (column-major; lower triangle only for the
/// non-general symmetries, strictly lower for skew-symmetric).
pub fn write_dense<T: Scalar>(
    mut w: impl Write,
    a: &Dense<T>,
    field: MmField,
    symmetry: MmSymmetry,
) -> Result<()> {
    let header = MmHeader {
        format: MmFormat::Array,
        field,
        symmetry,
    };
    header.validate(0).map_err(|_| {
        Error::invalid(
            "field/symmetry",
            format!("`{}` is not a valid combination", header.banner()),
        )
    })?;
    if symmetry != MmSymmetry::General {
        rocm_core::ensure_arg!(
            a.nrows() == a.ncols(),
            "A",
            "must be square for {symmetry:?}"
        );
        check_symmetry(|i, j| a.at(i, j).to_c64(), a.nrows(), symmetry)?;
    }
    let io = |e: std::io::Error| Error::io("writing matrix market", e);
    writeln!(w, "{}", header.banner()).map_err(io)?;
    writeln!(w, "{} {}", a.nrows(), a.ncols()).map_err(io)?;
    for j in 0..a.ncols() {
        let first = match symmetry {
            MmSymmetry::General => 0,
            MmSymmetry::SkewSymmetric => j + 1,
            _ => j,
        };
        for i in first..a.nrows() {
            let v = fmt_value(field, a.at(i, j).to_c64(), "A")?;
            writeln!(w, "{}", v.trim_start()).map_err(io)?;
        }
    }
    Ok(())
}

/// Writes any sparse matrix to a file in coordinate format.
pub fn write_file<I: Index, T: Scalar, M: SparseMatrix<I, T>>(
    path: impl AsRef<std::path::Path>,
    a: &M,
    field: MmField,
    symmetry: MmSymmetry,
) -> Result<()> {
    let p = path.as_ref();
    let f =
        std::fs::File::create(p).map_err(|e| Error::io(format!("creating {}", p.display()), e))?;
    write_coo(std::io::BufWriter::new(f), &a.to_coo()?, field, symmetry)
}
