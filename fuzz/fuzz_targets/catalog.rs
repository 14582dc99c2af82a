//! Tuning catalog JSON: parse, then select from it with any generator/key/shape.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rocm_kernels::catalog::fuzz_input(data);
});
