//! Matrix Market reader: any bytes read as every index/value type; what reads must
//! convert to CSR and write back (small matrices only, so a legitimately declared huge
//! but sparse file does not trip the fuzzer's malloc limit in the conversion).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rocm_sparse::mm::fuzz_input(data);
});
