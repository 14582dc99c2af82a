//! Find-db text: parse every line; what parses must format and parse back to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rocm_dnn::find::fuzz_input(data);
});
