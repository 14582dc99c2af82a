//! The code-object target: an [`IsaTarget`] plus the target-ID features (`xnack`,
//! `sramecc`) that go into the ELF header flags and the `amdhsa.target` string.

use super::super::IsaTarget;
use crate::error::{Error, Result};
use crate::target::{Feature, Target};

/// `e_flags` machine numbers (`EF_AMDGPU_MACH_AMDGCN_*`, LLVM `ELF.h`), checked against
/// what llvm-mc-19 writes.
const MACH: [(IsaTarget, u32); 7] = [
    (IsaTarget::Gfx908, 0x30),
    (IsaTarget::Gfx90a, 0x3f),
    (IsaTarget::Gfx942, 0x4c),
    (IsaTarget::Gfx1100, 0x41),
    (IsaTarget::Gfx1101, 0x46),
    (IsaTarget::Gfx1102, 0x47),
    (IsaTarget::Gfx1151, 0x4a),
];
const EF_MACH_MASK: u32 = 0xff;
/// Code object v4+ feature fields: 0 unsupported, 1 any, 2 off, 3 on.
const EF_XNACK_SHIFT: u32 = 8;
const EF_SRAMECC_SHIFT: u32 = 10;

/// The target a code object is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeObjectTarget {
    pub isa: IsaTarget,
    /// `Some(true)` `xnack+`, `Some(false)` `xnack-`, `None` "any" (gfx9 only; gfx11 has
    /// no XNACK setting and must leave it `None`).
    pub xnack: Option<bool>,
    /// Same for `sramecc` (gfx908, gfx90a, gfx942).
    pub sramecc: Option<bool>,
}

impl CodeObjectTarget {
    /// A target with both features left "any" (what llvm-mc writes without `-mattr`).
    pub fn new(isa: IsaTarget) -> Self {
        CodeObjectTarget {
            isa,
            xnack: None,
            sramecc: None,
        }
    }

    /// Whether the target has the XNACK and SRAMECC settings at all.
    fn has_xnack(self) -> bool {
        self.isa.family() == super::super::IsaFamily::Gfx9
    }
    fn has_sramecc(self) -> bool {
        self.has_xnack()
    }

    /// XNACK replay may be on: the kernel reserves the XNACK mask SGPRs (gfx9).
    pub fn xnack_on_or_any(self) -> bool {
        self.has_xnack() && self.xnack != Some(false)
    }

    /// The ELF header `e_flags`.
    pub fn e_flags(self) -> u32 {
        let mach = MACH
            .iter()
            .find(|(t, _)| *t == self.isa)
            .map_or(0, |(_, m)| *m);
        let field = |has: bool, v: Option<bool>| match (has, v) {
            (false, _) => 0,
            (true, None) => 1,
            (true, Some(false)) => 2,
            (true, Some(true)) => 3,
        };
        mach | field(self.has_xnack(), self.xnack) << EF_XNACK_SHIFT
            | field(self.has_sramecc(), self.sramecc) << EF_SRAMECC_SHIFT
    }

    /// The target from an ELF header's `e_flags`.
    pub fn from_e_flags(flags: u32) -> Result<Self> {
        let mach = flags & EF_MACH_MASK;
        let isa = MACH
            .iter()
            .find(|(_, m)| *m == mach)
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                Error::unsupported(
                    "AMDGPU code object",
                    format!("e_flags machine {mach:#x} (not a target of the ISA model)"),
                )
            })?;
        let field = |shift: u32| match (flags >> shift) & 3 {
            2 => Some(false),
            3 => Some(true),
            _ => None,
        };
        Ok(CodeObjectTarget {
            isa,
            xnack: field(EF_XNACK_SHIFT),
            sramecc: field(EF_SRAMECC_SHIFT),
        })
    }

    /// The target ID of `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`
    /// (features in alphabetical order, "any" ones omitted).
    pub fn target_id(self) -> String {
        let mut s = format!("amdgcn-amd-amdhsa--{}", self.isa.name());
        for (name, v) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(on) = v {
                s.push_str(&format!(":{name}{}", if on { '+' } else { '-' }));
            }
        }
        s
    }

    /// Whether a code object built for `self` may run on a device of target `device`, as
    /// the loaders decide it: the same processor, and every feature the object pins
    /// (`xnack+`/`-`, `sramecc+`/`-`) either "any" on the device or set the same way.
    /// A feature the object leaves "any" runs in either mode.
    pub fn runs_on(self, device: CodeObjectTarget) -> Result<()> {
        let mismatch = |why: String| {
            Err(Error::invalid(
                "code object target",
                format!(
                    "built for {}, the device is {}: {why}",
                    self.target_id(),
                    device.target_id()
                ),
            ))
        };
        if self.isa != device.isa {
            return mismatch(format!("{} code does not run on {}", self.isa, device.isa));
        }
        for (name, object, dev) in [
            ("xnack", self.xnack, device.xnack),
            ("sramecc", self.sramecc, device.sramecc),
        ] {
            if let (Some(o), Some(d)) = (object, dev) {
                if o != d {
                    return mismatch(format!("{name} is {o} in the object and {d} on the device"));
                }
            }
        }
        Ok(())
    }

    /// Rejects feature settings the target does not have.
    pub fn validate(self) -> Result<()> {
        if !self.has_xnack() && (self.xnack.is_some() || self.sramecc.is_some()) {
            return Err(Error::invalid(
                "target",
                format!("{} has no xnack/sramecc setting", self.isa),
            ));
        }
        Ok(())
    }
}

impl TryFrom<&Target> for CodeObjectTarget {
    type Error = Error;
    fn try_from(t: &Target) -> Result<Self> {
        let c = CodeObjectTarget {
            isa: IsaTarget::try_from(t)?,
            xnack: t.feature(Feature::Xnack),
            sramecc: t.feature(Feature::Sramecc),
        };
        c.validate()?;
        Ok(c)
    }
}
