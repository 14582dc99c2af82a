//! Kernels written in the language as a generator's [`Program`]: the one place where a
//! set of [`KernelDef`]s of one target becomes a loadable image, so every library's
//! generators (BLAS, FFT, sparse, DNN, random numbers, collectives) share the lowering
//! choice and the signatures the executor checks.
//!
//! A generator builds its kernels for the target with a [`Builder`](super::Builder) and
//! returns `lang::program(&defs, launch)`; the target's `Caps::kernel_isa` picks the
//! lowering (PTX text with one `.entry` per kernel, or one AMDGPU code object holding
//! every kernel).

use super::ir::KernelDef;
use crate::generator::{LaunchRule, Program};
use crate::ptx::Module;
use rocm_core::{Error, KernelIsa, ModuleImage, Result};

/// The program holding `kernels` (at least one, all for one target), launched by
/// `launch`; each kernel's signature is its definition's.
pub fn program(kernels: &[KernelDef], launch: LaunchRule) -> Result<Program> {
    let first = kernels
        .first()
        .ok_or_else(|| Error::invalid("kernels", "a program needs at least one kernel"))?;
    if let Some(k) = kernels.iter().find(|k| k.target != first.target) {
        return Err(Error::invalid(
            "kernels",
            format!(
                "`{}` is for {} but `{}` for {}",
                k.name, k.target, first.name, first.target
            ),
        ));
    }
    let target = &first.target;
    let image = match target.caps().kernel_isa {
        KernelIsa::Ptx => {
            let what = format_args!("kernel language kernel `{}`", first.name);
            let mut module = Module::for_kernels(target, what)?;
            for k in kernels {
                module.push(&super::ptx::entry(k));
            }
            ModuleImage::Ptx(module.text())
        }
        KernelIsa::Amdgpu => {
            let built = kernels
                .iter()
                .map(super::amdgpu::lower)
                .collect::<Result<Vec<_>>>()?;
            ModuleImage::CodeObject(crate::amdgpu::code_object(&built)?.to_elf()?)
        }
        KernelIsa::Host => {
            let what = format!("kernel language kernel `{}`", first.name);
            return Err(Error::unsupported(what, target));
        }
    };
    let signatures = kernels.iter().map(|k| k.signature.clone()).collect();
    Ok(Program::declared(image, signatures, launch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::examples;
    use rocm_core::isa::amdgpu::codeobj::CodeObject;
    use rocm_core::Target;

    fn rule() -> LaunchRule {
        LaunchRule::Cover {
            block: 64,
            units_per_item: 1,
        }
    }

    /// Two kernels become one module per target, each with its definition's signature.
    #[test]
    fn one_image_holds_every_kernel() {
        for name in ["sm_80", "sm_90a", "gfx908", "gfx942", "gfx1100"] {
            let target: Target = name.parse().unwrap();
            let defs = [
                examples::vector_add(&target).unwrap(),
                examples::softmax_row(&target).unwrap(),
            ];
            let p = program(&defs, rule()).unwrap();
            assert_eq!(p.kernels, [defs[0].name.clone(), defs[1].name.clone()]);
            assert_eq!(p.signatures[1], defs[1].signature);
            match &p.image {
                ModuleImage::Ptx(text) => {
                    assert!(name.starts_with("sm_"), "{name}");
                    for d in &defs {
                        assert!(text.contains(&format!(".entry {}", d.name)), "{name}");
                    }
                }
                ModuleImage::CodeObject(elf) => {
                    assert!(name.starts_with("gfx"), "{name}");
                    let co = CodeObject::parse(elf).unwrap();
                    let names: Vec<&str> = co.kernels.iter().map(|k| k.name()).collect();
                    assert_eq!(names, [defs[0].name.as_str(), defs[1].name.as_str()]);
                }
            }
        }
    }

    #[test]
    fn no_kernels_mixed_targets_and_host_targets_are_errors() {
        assert!(program(&[], rule()).is_err());
        let a = examples::vector_add(&"sm_90".parse().unwrap()).unwrap();
        let b = examples::vector_add(&"gfx90a".parse().unwrap()).unwrap();
        let e = program(&[a, b], rule()).unwrap_err().to_string();
        assert!(e.contains("sm_90") && e.contains("gfx90a"), "{e}");
    }
}
