use rocm_kernels::generator::Generator;
use rocm_kernels::level1::*;
fn main() {
    let p = Level1Params::fallback(L1Op::Asum, rocm_core::DType::F32, true);
    let prog = Level1::generate(&p, &"sm_90".parse().unwrap()).unwrap();
    if let rocm_core::ModuleImage::Ptx(t) = prog.image {
        println!("{t}");
    }
}
