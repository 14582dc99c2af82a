//! Prints the PTX of one Level 1 variant and the catalog choice for it:
//! `cargo run -p rocm-kernels --example dump_l1`.
use rocm_kernels::catalog::Catalog;
use rocm_kernels::generator::Generator;
use rocm_kernels::level1::*;
fn main() {
    let target = "sm_90".parse().unwrap();
    let (op, dtype) = (L1Op::Nrm2, rocm_core::DType::F32);
    let fallback = Level1Params::fallback(op, dtype, true);
    let p = Catalog::for_target(&target).select(
        Level1::NAME,
        &Level1Params::key(op, dtype, true),
        1 << 27,
        fallback,
    );
    eprintln!("{p:?}");
    let prog = Level1::generate(&p, &target).unwrap();
    if let rocm_core::ModuleImage::Ptx(t) = prog.image {
        println!("{t}");
    }
}
