//! Selection returns a plan as data.
//!
//! For a problem and a target, a generator family's `plan` function
//! (e.g. [`crate::level1::plan`]) chooses the variants (catalog, alignment rules,
//! fallbacks, which targets have which kernel) and returns a [`Plan`]: the kernel
//! launches in order, each with its program, launch geometry and every argument bound,
//! plus the workspace the plan needs. The host then hands the plan, its views and the
//! workspace to the one executor ([`crate::exec::execute`]); it never packs arguments or
//! launches a generated kernel itself.
//!
//! A [`Step`] is built against the kernel's [`Signature`]: every parameter gets exactly
//! one binding by name, of a matching type and access ([`Step::bind`]), so a plan that
//! disagrees with its kernel is an error when it is made, not a fault when it runs.
//! Buffer arguments state the byte range the kernel may touch given the geometry
//! (negative increments included), which the executor checks against the views.
//!
//! Multi-step plans (a repack into the workspace, the main kernel, a split finish) are
//! ordered steps on one stream; a step marked `dependent` may start while the previous
//! one drains where the target allows it (its kernel waits with `griddepcontrol.wait`).
//! By-value byte arguments (a 128-byte tensor map), dynamic shared memory
//! (`LaunchConfig::shared_bytes`) and 3-D grids are ordinary step data.

use crate::generator::{self, Generator, Loaded, Program};
use crate::signature::{Access, ParamType, Signature, Value};
use rocm_core::tensor_map::TensorMapDesc;
use rocm_core::{Device, Error, LaunchConfig, Result, Target};
use std::fmt;
use std::ops::Range;

/// Where a program comes from: a generator and its parameters.
trait Source: Send + Sync {
    fn generator(&self) -> &'static str;
    fn describe(&self) -> String;
    fn load(&self, device: &Device) -> Result<Loaded>;
    fn generate(&self, target: &Target) -> Result<Program>;
    fn signatures(&self, target: &Target) -> Result<Vec<Signature>>;
}

struct Of<G: Generator>(G::Params);

impl<G: Generator> Source for Of<G>
where
    G::Params: Send + Sync,
{
    fn generator(&self) -> &'static str {
        G::NAME
    }

    fn describe(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| format!("{:?}", self.0))
    }

    fn load(&self, device: &Device) -> Result<Loaded> {
        generator::load::<G>(device, &self.0)
    }

    fn generate(&self, target: &Target) -> Result<Program> {
        G::generate(&self.0, target)
    }

    fn signatures(&self, target: &Target) -> Result<Vec<Signature>> {
        G::signatures(&self.0, target)
    }
}

/// A program a step runs: generator and params, loaded through [`generator::load`]
/// (generated once per process and device). Prints as `generator {params}`.
pub struct ProgramRef(Box<dyn Source>);

impl ProgramRef {
    pub fn of<G: Generator>(params: G::Params) -> Self
    where
        G::Params: Send + Sync,
    {
        ProgramRef(Box::new(Of::<G>(params)))
    }

    /// The generator's name.
    pub fn generator(&self) -> &'static str {
        self.0.generator()
    }

    /// The params as JSON.
    pub fn params(&self) -> String {
        self.0.describe()
    }

    /// The program on `device` (generated and loaded once).
    pub fn load(&self, device: &Device) -> Result<Loaded> {
        self.0.load(device)
    }

    /// The program for `target`, generated without a device (what the tests run in the
    /// PTX interpreter).
    pub fn generate(&self, target: &Target) -> Result<Program> {
        self.0.generate(target)
    }

    /// The signatures of the program's kernels on `target`.
    pub fn signatures(&self, target: &Target) -> Result<Vec<Signature>> {
        self.0.signatures(target)
    }
}

impl fmt::Debug for ProgramRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.generator(), self.params())
    }
}

/// One argument of a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An address inside the problem's view `slot` (the executor's `buffers[slot]`):
    /// `offset_bytes` from the view's start is passed; the kernel may touch only bytes
    /// `touched` (relative to the view's start), as `access` says.
    Buffer {
        slot: usize,
        offset_bytes: u64,
        touched: Range<u64>,
        access: Access,
    },
    /// `bytes` of the plan's workspace from `offset` (read and written).
    Workspace { offset: u64, bytes: u64 },
    /// A value passed by value.
    Value(Value),
    /// A tensor map passed by value (a 128-byte parameter): `desc` describes the tensor
    /// starting at `base`'s address (a `Buffer` or `Workspace` argument, whose touched
    /// range covers what the map reaches); the executor sets `desc.address` and encodes
    /// the map for the device (`Device::encode_tensor_map`).
    TensorMap { base: Box<Arg>, desc: TensorMapDesc },
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Buffer {
                slot,
                offset_bytes,
                touched,
                access,
            } => write!(
                f,
                "buffer{slot}+{offset_bytes} [{}..{}) {}",
                touched.start,
                touched.end,
                access.name()
            ),
            Arg::Workspace { offset, bytes } => {
                write!(f, "workspace+{offset} [{bytes} bytes]")
            }
            Arg::Value(v) => write!(f, "{v}"),
            Arg::TensorMap { base, desc } => write!(
                f,
                "tensor map of {base} dims {:?} box {:?}",
                desc.dims, desc.box_dims
            ),
        }
    }
}

/// A pitched device copy queued before a step's kernel (an operand repacked into the
/// workspace): `height` rows of `width` bytes, row `r` from `src + r·src_pitch` to
/// `dst + r·dst_pitch`. `src` and `dst` are `Buffer` or `Workspace` arguments whose
/// ranges cover the rows (the executor checks it).
#[derive(Debug, Clone, PartialEq)]
pub struct PitchedCopy {
    pub dst: Arg,
    pub dst_pitch: u64,
    pub src: Arg,
    pub src_pitch: u64,
    pub width: u64,
    pub height: u64,
}

impl PitchedCopy {
    /// Bytes from the first row's start to the last row's end, with `pitch` between
    /// rows (0 when the copy is empty).
    pub fn extent(&self, pitch: u64) -> u64 {
        if self.width == 0 || self.height == 0 {
            0
        } else {
            (self.height - 1) * pitch + self.width
        }
    }
}

impl fmt::Display for PitchedCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "copy {} rows of {} bytes: {} (pitch {}) -> {} (pitch {})",
            self.height, self.width, self.src, self.src_pitch, self.dst, self.dst_pitch
        )
    }
}

/// One kernel launch of a plan.
#[derive(Debug)]
pub struct Step {
    pub program: ProgramRef,
    /// The kernel's signature (its name and parameters); `args` follow it in order.
    pub signature: Signature,
    pub config: LaunchConfig,
    pub args: Vec<Arg>,
    /// May be scheduled while the previous step runs (its kernel waits for it).
    pub dependent: bool,
    /// Device copies queued before the kernel, in order.
    pub copies: Vec<PitchedCopy>,
}

impl Step {
    /// The step running `signature`'s kernel of `program` with `bindings` (one per
    /// parameter, by name, in any order), checked against the signature: every parameter
    /// bound once, pointers to buffers of the declared access or to the workspace,
    /// values of the declared type.
    pub fn bind(
        program: ProgramRef,
        signature: Signature,
        config: LaunchConfig,
        bindings: Vec<(&str, Arg)>,
    ) -> Result<Step> {
        let mut args = Vec::with_capacity(signature.params.len());
        for p in &signature.params {
            let mut found = bindings.iter().filter(|(n, _)| *n == p.name);
            let (Some((_, arg)), None) = (found.next(), found.next()) else {
                return Err(Error::invalid(
                    "plan",
                    format!(
                        "{}: parameter `{}` must be bound exactly once",
                        signature.kernel, p.name
                    ),
                ));
            };
            check_arg(&signature, &p.name, p.ty, arg)?;
            args.push(arg.clone());
        }
        if let Some((extra, _)) = bindings
            .iter()
            .find(|(n, _)| !signature.params.iter().any(|p| p.name == *n))
        {
            return Err(Error::invalid(
                "plan",
                format!("{} declares no parameter `{extra}`", signature.kernel),
            ));
        }
        Ok(Step {
            program,
            signature,
            config,
            args,
            dependent: false,
            copies: Vec::new(),
        })
    }

    /// This step with `copies` queued before its kernel.
    pub fn after_copies(mut self, copies: Vec<PitchedCopy>) -> Step {
        self.copies = copies;
        self
    }

    /// This step with its buffer arguments moved into other views: `to(slot)` gives the
    /// view that holds slot `slot`'s view and the byte offset at which it starts there
    /// (a plan built for sub-views, run inside a larger problem's views).
    pub fn rebased(mut self, to: impl Fn(usize) -> (usize, u64)) -> Step {
        fn move_arg(a: &mut Arg, to: &dyn Fn(usize) -> (usize, u64)) {
            match a {
                Arg::Buffer {
                    slot,
                    offset_bytes,
                    touched,
                    ..
                } => {
                    let (new_slot, at) = to(*slot);
                    *slot = new_slot;
                    *offset_bytes += at;
                    *touched = touched.start + at..touched.end + at;
                }
                Arg::TensorMap { base, .. } => move_arg(base, to),
                Arg::Workspace { .. } | Arg::Value(_) => {}
            }
        }
        for a in &mut self.args {
            move_arg(a, &to);
        }
        for c in &mut self.copies {
            move_arg(&mut c.dst, &to);
            move_arg(&mut c.src, &to);
        }
        self
    }

    /// This step, marked dependent on the previous one.
    pub fn dependent(mut self) -> Step {
        self.dependent = true;
        self
    }
}

/// Checks one binding against its parameter's declared type.
pub(crate) fn check_arg(sig: &Signature, name: &str, ty: ParamType, arg: &Arg) -> Result<()> {
    let ok = match (ty, arg) {
        (ParamType::Pointer { access, .. }, Arg::Buffer { access: a, .. }) => access == *a,
        (ParamType::Pointer { .. }, Arg::Workspace { .. }) => true,
        (ParamType::Scalar(_) | ParamType::Bytes { .. }, Arg::Value(v)) => v.fits(ty),
        (ParamType::Bytes { size: 128, .. }, Arg::TensorMap { base, .. }) => {
            matches!(**base, Arg::Buffer { .. } | Arg::Workspace { .. })
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            "plan",
            format!("{}: parameter `{name}` is {ty}, bound to {arg}", sig.kernel),
        ))
    }
}

/// What a problem runs: kernel launches in order, and the workspace bytes they use.
#[derive(Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub workspace_bytes: u64,
}

impl Plan {
    /// Checks each step's signature against its program's on `target` (what the
    /// executor checks at launch; the tests and `--explain` call it without a device).
    pub fn check(&self, target: &Target) -> Result<()> {
        for (i, s) in self.steps.iter().enumerate() {
            let sigs = s.program.signatures(target)?;
            if !sigs.contains(&s.signature) {
                return Err(Error::invalid(
                    "plan",
                    format!(
                        "step {}: {} has no kernel {} (it has {})",
                        i + 1,
                        s.program.generator(),
                        s.signature,
                        sigs.iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Plan {
    /// The `--explain` text: one line per step.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "plan: {} step{}, workspace {} bytes",
            self.steps.len(),
            if self.steps.len() == 1 { "" } else { "s" },
            self.workspace_bytes
        )?;
        for (i, s) in self.steps.iter().enumerate() {
            for copy in &s.copies {
                writeln!(f, "  {}. {copy}", i + 1)?;
            }
            let c = &s.config;
            write!(
                f,
                "  {}. {} {} :: {} grid {}x{}x{} block {}x{}x{} shared {}{}:",
                i + 1,
                s.program.generator(),
                s.program.params(),
                s.signature.kernel,
                c.grid[0],
                c.grid[1],
                c.grid[2],
                c.block[0],
                c.block[1],
                c.block[2],
                c.shared_bytes,
                if s.dependent { " dependent" } else { "" }
            )?;
            for (p, a) in s.signature.params.iter().zip(&s.args) {
                write!(f, " {}={a};", p.name)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level1::{L1Op, Level1, Level1Params};
    use rocm_core::DType;

    fn sig() -> Signature {
        Signature::new("k")
            .scalar("n", crate::signature::ScalarType::U64)
            .pointer("x", DType::F32, Access::ReadWrite)
    }

    fn program() -> ProgramRef {
        ProgramRef::of::<Level1>(Level1Params::fallback(L1Op::Scal, DType::F32, true))
    }

    fn x(access: Access) -> Arg {
        Arg::Buffer {
            slot: 0,
            offset_bytes: 0,
            touched: 0..16,
            access,
        }
    }

    #[test]
    fn bind_orders_by_signature_and_checks_types() {
        let cfg = LaunchConfig::linear(1, 32);
        let s = Step::bind(
            program(),
            sig(),
            cfg,
            vec![
                ("x", x(Access::ReadWrite)),
                ("n", Arg::Value(Value::U64(4))),
            ],
        )
        .unwrap();
        assert_eq!(s.args[0], Arg::Value(Value::U64(4)));
        let wrong_access = Step::bind(
            program(),
            sig(),
            cfg,
            vec![("x", x(Access::Read)), ("n", Arg::Value(Value::U64(4)))],
        );
        assert!(wrong_access.is_err());
        let wrong_type = Step::bind(
            program(),
            sig(),
            cfg,
            vec![
                ("x", x(Access::ReadWrite)),
                ("n", Arg::Value(Value::U32(4))),
            ],
        );
        assert!(wrong_type.is_err());
        let missing = Step::bind(program(), sig(), cfg, vec![("x", x(Access::ReadWrite))]);
        assert!(missing.is_err());
        let extra = Step::bind(
            program(),
            sig(),
            cfg,
            vec![
                ("x", x(Access::ReadWrite)),
                ("n", Arg::Value(Value::U64(4))),
                ("y", Arg::Value(Value::U64(4))),
            ],
        );
        assert!(extra.is_err());
    }
}
