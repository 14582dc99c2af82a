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
    /// VOP1/VOP2/VOPC in an extended 64-bit `_e32` encoding: SDWA (gfx9) or DPP.
    /// `neg`/`abs` (sources 0 and 1), `clamp` and `omod` keep their meaning.
    pub ext: Option<VExt>,
}

/// Which part of a dword an SDWA operand reads or its result writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SdwaSel {
    Byte0,
    Byte1,
    Byte2,
    Byte3,
    Word0,
    Word1,
    Dword,
}

impl SdwaSel {
    pub const ALL: [SdwaSel; 7] = [
        SdwaSel::Byte0,
        SdwaSel::Byte1,
        SdwaSel::Byte2,
        SdwaSel::Byte3,
        SdwaSel::Word0,
        SdwaSel::Word1,
        SdwaSel::Dword,
    ];

    /// The field's encoding (0..=6).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The selector of a 3-bit field, `None` for 7.
    pub fn from_code(c: u32) -> Option<SdwaSel> {
        SdwaSel::ALL.get(c as usize).copied()
    }

    /// LLVM's name (`BYTE_0`, `WORD_1`, `DWORD`).
    pub fn name(self) -> &'static str {
        [
            "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
        ][self as usize]
    }

    /// (bit offset, bit width) of the selected part.
    pub fn field(self) -> (u32, u32) {
        match self {
            SdwaSel::Byte0 => (0, 8),
            SdwaSel::Byte1 => (8, 8),
            SdwaSel::Byte2 => (16, 8),
            SdwaSel::Byte3 => (24, 8),
            SdwaSel::Word0 => (0, 16),
            SdwaSel::Word1 => (16, 16),
            SdwaSel::Dword => (0, 32),
        }
    }
}

/// What an SDWA result does with the destination bits outside `dst_sel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DstUnused {
    /// Zeroes them (`UNUSED_PAD`).
    Pad,
    /// Fills the bits above with the result's sign bit, zeroes those below
    /// (`UNUSED_SEXT`).
    Sext,
    /// Keeps the old destination bits (`UNUSED_PRESERVE`).
    Preserve,
}

impl DstUnused {
    pub const ALL: [DstUnused; 3] = [DstUnused::Pad, DstUnused::Sext, DstUnused::Preserve];

    pub fn name(self) -> &'static str {
        ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"][self as usize]
    }
}

/// gfx9 sub-dword addressing: each source reads a byte or word of its register
/// (zero- or sign-extended), the result goes to a byte or word of the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sdwa {
    /// Destination part (VOP1/VOP2; a VOPC writes a mask and has none).
    pub dst_sel: SdwaSel,
    pub dst_unused: DstUnused,
    /// Source parts (src1 only for VOP2/VOPC).
    pub src_sel: [SdwaSel; 2],
    /// Bit i: source i is sign-extended from its part (integer ops).
    pub sext: u8,
}

impl Sdwa {
    /// Whole dwords everywhere: the instruction's plain meaning.
    pub const DWORD: Sdwa = Sdwa {
        dst_sel: SdwaSel::Dword,
        dst_unused: DstUnused::Pad,
        src_sel: [SdwaSel::Dword; 2],
        sext: 0,
    };
}

/// Data-parallel primitives (DPP16): src0 (a VGPR) is read from another lane of the
/// same row of 16 (or of the wave on gfx9), chosen by `ctrl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dpp {
    /// The 9-bit `dpp_ctrl`: `quad_perm` 0x00..=0xff, `row_shl` 0x101.., `row_shr`
    /// 0x111.., `row_ror` 0x121.., gfx9 `wave_*` 0x130/0x134/0x138/0x13c, `row_mirror`
    /// 0x140, `row_half_mirror` 0x141, gfx9 `row_bcast` 0x142/0x143, gfx11 `row_share`
    /// 0x150.. and `row_xmask` 0x160...
    pub ctrl: u16,
    /// Rows (bit i: lanes 16i..16i+15) that write their result.
    pub row_mask: u8,
    /// Banks (bit i: lanes 4i..4i+3 of every row) that write their result.
    pub bank_mask: u8,
    /// An invalid source lane reads 0 instead of disabling the lane's write.
    pub bound_ctrl: bool,
    /// gfx11 fetch-inactive: source lanes outside EXEC are read, not invalid.
    pub fi: bool,
}

/// gfx11 DPP8: lane `8k + i` reads src0 from lane `8k + sel[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dpp8 {
    pub sel: [u8; 8],
    pub fi: bool,
}

/// The extended encodings of VOP1/VOP2/VOPC (src0 field 0xf9 SDWA, 0xfa DPP16,
/// 0xe9/0xea DPP8, then a second dword).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VExt {
    Sdwa(Sdwa),
    Dpp(Dpp),
    Dpp8(Dpp8),
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
            // The mixed-precision FMA's op_sel_hi marks f16 sources: none by default.
            Form::Vop3p if op == Op::VFmaMixF32 => Mods::default(),
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
            Form::Global | Form::Flat | Form::Scratch | Form::Buffer => {
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
