//! Prints the resource report and the main-loop issue model of one AMDGPU GEMM kernel
//! (the default tile, or the one given), and with `loop` its main loop:
//! `cargo run --release -p rocm-kernels --example gemm_amd_model -- gfx1100 f32 [tm tn tk wm wn thm thn] [loop]`.
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::DType;
use rocm_kernels::gemm::amdgpu::emit::{LOOP_END_LABEL, LOOP_LABEL};
use rocm_kernels::gemm::amdgpu::model::{default_params, issue_cycles, issue_model};
use rocm_kernels::gemm::amdgpu::{generate, kernel_name};
use rocm_kernels::gemm::GemmInstruction;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let t = IsaTarget::ALL
        .into_iter()
        .find(|t| t.name() == args[0])
        .expect("target");
    let ab = match args[1].as_str() {
        "f64" => DType::F64,
        "f16" => DType::F16,
        "bf16" => DType::Bf16,
        _ => DType::F32,
    };
    let mut p = default_params(t, ab).unwrap();
    let nums: Vec<u32> = args[2..].iter().filter_map(|a| a.parse().ok()).collect();
    if nums.len() == 7 {
        p.tile_m = nums[0];
        p.tile_n = nums[1];
        p.tile_k = nums[2];
        p.warps_m = nums[3];
        p.warps_n = nums[4];
        p.instruction = GemmInstruction::Simt {
            thread_m: nums[5],
            thread_n: nums[6],
        };
    }
    let k = generate(&p, t).unwrap();
    println!("{}: {}", kernel_name(&p), k.report);
    println!("main loop: {}", issue_model(&k).unwrap());
    if args.iter().any(|a| a == "loop") {
        let mut on = false;
        for pl in &k.code {
            if pl.labels.iter().any(|l| l == LOOP_LABEL) {
                on = true;
            }
            if pl.labels.iter().any(|l| l == LOOP_END_LABEL) {
                on = false;
            }
            if on {
                for l in &pl.labels {
                    println!("{l}:");
                }
                let (_, c) = issue_cycles(t, pl.instr.op, &pl.instr.operands);
                println!("  {:>3} {}", c, pl.instr.display(t));
            }
        }
    }
}
