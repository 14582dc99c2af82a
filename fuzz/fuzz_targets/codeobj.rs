//! Code-object reader and disassembler: parse, decode every kernel, read its descriptor.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rocm_core::isa::amdgpu::codeobj::fuzz_input(data);
});
