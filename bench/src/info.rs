//! `rocm-bench info`: devices and their capabilities.

use rocm_core::target::MatrixKind;
use rocm_core::{Device, DeviceInfo};

#[derive(clap::Args, Default)]
pub struct InfoArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct Entry<'a> {
    #[serde(flatten)]
    info: &'a DeviceInfo,
    family: String,
    wave_sizes: &'static [u32],
    lds_bytes_per_workgroup: u32,
    sgprs_per_wave: u32,
    vgprs_per_wave: u32,
    agprs_per_wave: u32,
    fp64_matrix: bool,
    matrix_instructions: Vec<String>,
}

fn matrix_summary(info: &DeviceInfo) -> Vec<String> {
    info.target
        .caps()
        .matrix
        .iter()
        .map(|m| {
            let kind = match m.kind {
                MatrixKind::Mfma => "mfma",
                MatrixKind::Wmma => "wmma",
                MatrixKind::MmaSync => "mma.sync",
                MatrixKind::Wgmma => "wgmma",
            };
            format!("{kind} {}x{}x{} {:?}->{:?}", m.m, m.n, m.k, m.input, m.acc)
        })
        .collect()
}

pub fn run(args: &InfoArgs) -> Result<(), Box<dyn std::error::Error>> {
    let devices = Device::enumerate();
    let entries: Vec<Entry> = devices
        .iter()
        .map(|info| {
            let c = info.target.caps();
            Entry {
                info,
                family: format!("{:?}", c.family),
                wave_sizes: c.wave_sizes,
                lds_bytes_per_workgroup: c.lds_bytes_per_workgroup,
                sgprs_per_wave: c.sgprs_per_wave,
                vgprs_per_wave: c.vgprs_per_wave,
                agprs_per_wave: c.agprs_per_wave,
                fp64_matrix: c.fp64_matrix,
                matrix_instructions: matrix_summary(info),
            }
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
        return Ok(());
    }
    for e in &entries {
        let i = e.info;
        println!("{}", i.id);
        println!("  name:            {}", i.name);
        println!("  target:          {} ({})", i.target, e.family);
        println!(
            "  memory:          {:.1} GiB",
            i.total_memory as f64 / (1u64 << 30) as f64
        );
        let unit = if i.target.arch() == rocm_core::Arch::Cpu {
            "threads"
        } else if e.family == "Nvidia" {
            "SMs"
        } else {
            "CUs"
        };
        println!("  compute units:   {} {unit}", i.compute_units);
        if let Some(mhz) = i.clock_mhz {
            println!("  clock:           {mhz} MHz");
        }
        if i.target.arch() != rocm_core::Arch::Cpu {
            println!("  wave sizes:      {:?}", e.wave_sizes);
            println!(
                "  LDS/shared:      {} bytes per workgroup",
                e.lds_bytes_per_workgroup
            );
            println!(
                "  registers:       {} SGPR, {} VGPR, {} AGPR per wave",
                e.sgprs_per_wave, e.vgprs_per_wave, e.agprs_per_wave
            );
            println!("  fp64 matrix:     {}", e.fp64_matrix);
            for m in &e.matrix_instructions {
                println!("  matrix:          {m}");
            }
        }
    }
    let emulated: Vec<String> = rocm_core::isa::amdgpu::IsaTarget::ALL
        .iter()
        .map(|t| format!("emu:{}", t.name()))
        .collect();
    println!(
        "emulated AMD devices (always present, opened by name): {}",
        emulated.join(", ")
    );
    Ok(())
}
