//! The instruction value: an [`Op`], its operands in assembler order, the encoding
//! variant and the modifiers.

use super::operand::Operand;
use super::ops::{Form, Op, Slot};
use super::target::{IsaFamily, IsaTarget};

/// The wait counters of `s_waitcnt` (and gfx11's `s_waitcnt_vscnt`): which one an
/// outstanding memory instruction holds until its data arrives or leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Vector memory loads (and on gfx9 also stores and atomics).
    Vm,
    /// gfx11 vector memory stores and atomics without return.
    Vs,
    /// LDS, scalar memory (and GDS/messages).
    Lgkm,
}

/// Cache-policy bits of memory instructions. On gfx9 (gfx908/gfx90a) and gfx11 they print
/// as `glc slc dlc`; gfx942 calls the same bits `sc0 nt` plus its own `sc1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cache(pub u8);

impl Cache {
    /// `glc` (gfx9, gfx11) / `sc0` (gfx942). Atomics set it to return the old value.
    pub const GLC: Cache = Cache(1);
    /// `slc` (gfx9, gfx11) / `nt` (gfx942).
    pub const SLC: Cache = Cache(2);
    /// `dlc` (gfx11 only).
    pub const DLC: Cache = Cache(4);
    /// `sc1` (gfx942 only).
    pub const SC1: Cache = Cache(8);

    pub fn has(self, bit: Cache) -> bool {
        self.0 & bit.0 != 0
    }
}

impl std::ops::BitOr for Cache {
    type Output = Cache;
    fn bitor(self, o: Cache) -> Cache {
        Cache(self.0 | o.0)
    }
}

/// Modifiers and offsets. Fields that do not apply to an instruction's form must stay at
/// their defaults (the encoder rejects them otherwise). Bit `i` of a per-source mask
/// belongs to source `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mods {
    /// VOP3: negate source i. VOP3P/WMMA: `neg_lo`.
    pub neg: u8,
    /// VOP3: absolute value of source i.
    pub abs: u8,
    /// VOP3P/WMMA: `neg_hi`.
    pub neg_hi: u8,
    pub clamp: bool,
    /// VOP3 output modifier: 1 `mul:2`, 2 `mul:4`, 3 `div:2`.
    pub omod: u8,
    /// VOP3P `op_sel` (bit i: source i); WMMA bit 2 selects the high halves of C/D.
    pub op_sel: u8,
    /// VOP3P `op_sel_hi`; the assembler's default is all ones ([`Mods::vop3p`]).
    pub op_sel_hi: u8,
    /// SMEM, DS (`offset` / `offset0`) and global byte offset.
    pub offset: i32,
    /// DS `offset1` of the two-address forms.
    pub offset1: u8,
    pub cache: Cache,
    /// MFMA broadcast controls.
    pub cbsz: u8,
    pub abid: u8,
    pub blgp: u8,
}

impl Mods {
    /// The defaults of packed-math instructions (`op_sel_hi` all ones).
    pub fn vop3p() -> Mods {
        Mods {
            op_sel_hi: 7,
            ..Mods::default()
        }
    }
}

/// One machine instruction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instr {
    pub op: Op,
    /// Operands in assembler order, one per [`super::Slot`] of the op's table row.
    pub operands: Vec<Operand>,
    /// VOP1/VOP2/VOPC instructions promoted to the 64-bit VOP3 encoding (`_e64`).
    pub vop3: bool,
    pub mods: Mods,
    /// gfx11 dual issue (VOPD): the Y half issued with this instruction, which is then
    /// the X half. Both are VOP1/VOP2 instructions in their `_e32` shape from the VOPD
    /// op lists (`v_dual_*`); see `vopd.rs`.
    pub dual: Option<Box<Instr>>,
}

impl Instr {
    /// An instruction in its native encoding with default modifiers.
    pub fn new(op: Op, operands: impl Into<Vec<Operand>>) -> Instr {
        let mods = match op.info().form {
            Form::Vop3p | Form::Wmma => Mods::vop3p(),
            _ => Mods::default(),
        };
        Instr {
            op,
            operands: operands.into(),
            vop3: false,
            mods,
            dual: None,
        }
    }

    /// This instruction (the X half) issued together with `y` as one gfx11 VOPD.
    pub fn with_dual(mut self, y: Instr) -> Instr {
        self.dual = Some(Box::new(y));
        self
    }

    /// The same instruction in the VOP3 (`_e64`) encoding.
    pub fn e64(mut self) -> Instr {
        self.vop3 = true;
        self
    }

    /// Replaces the modifiers.
    pub fn with_mods(mut self, mods: Mods) -> Instr {
        self.mods = mods;
        self
    }

    /// Sets the memory offset (SMEM, DS, global).
    pub fn offset(mut self, offset: i32) -> Instr {
        self.mods.offset = offset;
        self
    }

    /// Sets cache-policy bits.
    pub fn cache(mut self, cache: Cache) -> Instr {
        self.mods.cache = cache;
        self
    }

    /// The explicit operands this instruction writes, in assembler order (implicit
    /// state such as SCC from scalar compares or EXEC reads is not listed).
    pub fn defs(&self) -> impl Iterator<Item = &Operand> {
        self.op
            .info()
            .slots
            .iter()
            .zip(&self.operands)
            .filter(|(s, _)| s.is_def())
            .map(|(_, o)| o)
    }

    /// The explicit operands this instruction reads (registers and constants), in
    /// assembler order.
    pub fn uses(&self) -> impl Iterator<Item = &Operand> {
        self.op
            .info()
            .slots
            .iter()
            .zip(&self.operands)
            .filter(|(s, _)| !s.is_def())
            .map(|(_, o)| o)
    }

    /// The counter this instruction increments until it completes, `None` for
    /// instructions that complete in order (ALU, branches).
    pub fn counter(&self, t: IsaTarget) -> Option<Counter> {
        let info = self.op.info();
        match info.form {
            Form::Smem | Form::Ds => Some(Counter::Lgkm),
            Form::Global | Form::Scratch | Form::Buffer => {
                let returns = info.slots.iter().any(|s| matches!(s, Slot::GDst(_)));
                Some(match t.family() {
                    IsaFamily::Gfx9 => Counter::Vm,
                    IsaFamily::Gfx11 if returns => Counter::Vm,
                    IsaFamily::Gfx11 => Counter::Vs,
                })
            }
            _ => None,
        }
    }

    /// Whether the instruction uses a VOP3-family 64-bit encoding.
    pub fn is_vop3_encoded(&self) -> bool {
        self.vop3 || self.op.info().form == Form::Vop3
    }
}
