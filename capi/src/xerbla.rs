//! XERBLA: how an invalid argument is reported, as reference BLAS and LAPACK do it.
//!
//! A routine that finds its argument number `info` invalid calls `XERBLA(SRNAME, INFO)`
//! and returns. The call resolves `xerbla_` through the process's global scope
//! (`dlsym(RTLD_DEFAULT)`), so a program's own XERBLA wins over the default below, as
//! netlib's test programs require (theirs checks the routine name and the position).

use std::cell::Cell;
use std::ffi::c_char;

type XerblaFn = unsafe extern "C" fn(*const c_char, *const i32, usize);

thread_local! {
    /// The last (routine, argument position) the default XERBLA saw on this thread.
    static LAST: Cell<Option<([u8; 16], i32)>> = const { Cell::new(None) };
}

/// The last error the default `xerbla_` recorded on this thread, as (routine, position),
/// taken (a second call returns `None`). For tests of the C ABI from Rust.
pub fn take_last_error() -> Option<(String, i32)> {
    LAST.with(|l| l.take()).map(|(name, info)| {
        let s = String::from_utf8_lossy(&name);
        (s.trim_end_matches(['\0', ' ']).to_string(), info)
    })
}

/// Reports argument `info` of routine `name` (upper case, e.g. "DGEMM") to XERBLA.
/// The name travels blank-padded to six characters, as reference BLAS passes it
/// ('DGEMV '): callers declaring `CHARACTER*6 SRNAME` read six bytes whatever the
/// hidden length says.
pub(crate) fn report(name: &str, info: i32) {
    let name = format!("{name:<6}");
    // SAFETY: dlsym with a NUL-terminated name; a non-null result is a function with
    // XERBLA's Fortran signature (the only meaning of that symbol).
    let f: XerblaFn = unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"xerbla_".as_ptr());
        if sym.is_null() {
            xerbla_
        } else {
            std::mem::transmute::<*mut libc::c_void, XerblaFn>(sym)
        }
    };
    // SAFETY: `name` outlives the call; its length travels as gfortran's hidden length.
    unsafe { f(name.as_ptr().cast(), &info, name.len()) }
}

/// [`report`] for routine `base` of precision `T` ("GEMV" → "DGEMV").
pub(crate) fn report_for<T: rocm_blas::Scalar>(base: &str, info: i32) {
    let mut name = String::with_capacity(base.len() + 1);
    name.push(T::PREFIX.to_ascii_uppercase());
    name.push_str(base);
    report(&name, info)
}

/// Argument checks in the order the reference routine makes them: reports the first
/// `(position, invalid)` pair that is invalid and returns false, or returns true.
pub(crate) fn check<T: rocm_blas::Scalar>(base: &str, table: &[(i32, bool)]) -> bool {
    match table.iter().find(|(_, bad)| *bad) {
        Some(&(pos, _)) => {
            report_for::<T>(base, pos);
            false
        }
        None => true,
    }
}

/// The default XERBLA, for programs that bring none: prints reference BLAS's message and
/// records the error for [`take_last_error`]. It returns instead of stopping the
/// program (reference XERBLA executes STOP), so a caller such as numpy is not killed by
/// one bad call.
///
/// # Safety
/// `srname` points at `len` bytes (a Fortran CHARACTER) or is null; `info` points at an
/// integer or is null.
#[no_mangle]
pub unsafe extern "C" fn xerbla_(srname: *const c_char, info: *const i32, len: usize) {
    let name: &[u8] = if srname.is_null() {
        b""
    } else {
        // SAFETY: the caller passes a CHARACTER of `len` bytes.
        unsafe { std::slice::from_raw_parts(srname.cast(), len.min(64)) }
    };
    // SAFETY: as above.
    let info = if info.is_null() { 0 } else { unsafe { *info } };
    let shown = String::from_utf8_lossy(name);
    eprintln!(
        " ** On entry to {} parameter number {info} had an illegal value",
        shown.trim_end()
    );
    let mut rec = [0u8; 16];
    let n = name.len().min(16);
    rec[..n].copy_from_slice(&name[..n]);
    LAST.with(|l| l.set(Some((rec, info))));
}

/// A routine's name for messages: precision letter and base ("D" + "GEMM").
pub(crate) struct Name(pub char, pub &'static str);

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.0.to_ascii_uppercase(), self.1)
    }
}

/// [`Name`] of routine `base` of precision `T`.
pub(crate) fn name<T: rocm_blas::Scalar>(base: &'static str) -> Name {
    Name(T::PREFIX, base)
}
