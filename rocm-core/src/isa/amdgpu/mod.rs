//! The AMDGPU instruction model: instructions, encoder, decoder and LLVM-syntax printer
//! for gfx9 (gfx908, gfx90a, gfx942) and gfx11 (gfx1100, gfx1101, gfx1102, gfx1151).
//!
//! (Design notes below are completed at the end of this module's first version.)

mod decode;
mod encode;
mod instr;
mod operand;
mod ops;
mod print;
mod target;

pub use decode::{decode, decode_all};
pub use encode::{encode, has_e64};
pub use instr::{Cache, Instr, Mods};
pub use operand::{a, ar, s, sr, v, vr, InlineFloat, Operand, RegRange, Waitcnt};
pub use ops::{Form, ImmKind, Op, OpInfo, Slot, Ty, NA, OPS};
pub use print::InstrDisplay;
pub use target::{IsaFamily, IsaTarget};

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;
