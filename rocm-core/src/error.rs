//! The one error type of rocm-rs.
//!
//! Every fallible operation in the workspace returns [`Result`]. Bad input is reported as
//! an [`Error`] naming what was wrong; no panic is reachable from the public API.

use std::fmt;
use std::time::Duration;

/// Result alias used throughout rocm-rs.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, with enough context to act on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument was rejected: `what` names it, `why` says what rule it broke.
    #[error("invalid argument `{what}`: {why}")]
    InvalidArgument { what: String, why: String },

    /// The operation exists, but not on this device (or not for this dtype/target yet).
    #[error("`{op}` is not supported on {device}")]
    Unsupported { op: String, device: String },

    /// A device name that does not match any present device.
    #[error("no device `{requested}`; available: {}", available.join(", "))]
    DeviceNotFound {
        requested: String,
        available: Vec<String>,
    },

    /// A target name that is not in the capability table.
    #[error("unknown target `{name}`: {why}; known targets: {}", known.join(", "))]
    UnknownTarget {
        name: String,
        why: String,
        known: Vec<String>,
    },

    /// A device allocation failed.
    #[error("out of memory on {device}: requested {bytes} bytes")]
    OutOfMemory { device: String, bytes: usize },

    /// A buffer or view access outside its bounds.
    #[error("out of bounds: {what}")]
    OutOfBounds { what: String },

    /// Two objects that must live on the same device do not.
    #[error("device mismatch: {what} is on {found}, expected {expected}")]
    DeviceMismatch {
        what: String,
        expected: String,
        found: String,
    },

    /// A module or kernel could not be found or loaded.
    #[error("module error: {0}")]
    Module(String),

    /// A driver or runtime call failed: which API, its code and message.
    #[error("{api} failed with code {code}: {message}")]
    Backend {
        api: String,
        code: i64,
        message: String,
    },

    /// An I/O error (files, sockets), with the operation that failed.
    #[error("I/O error during {context}: {message}")]
    Io { context: String, message: String },

    /// A blocking call waited longer than its time limit: `op` names the call, `who` the
    /// participant that waited (e.g. `rank 1`), `waiting_for` what never came.
    #[error("`{op}` on {who} timed out after {after:?} waiting for {waiting_for}")]
    Timeout {
        op: String,
        who: String,
        after: Duration,
        waiting_for: String,
    },

    /// A peer of a cooperative call (a collective) went away: its process died, or it
    /// closed its connection. `detail` says which peer and how it was noticed.
    #[error("`{op}` on {who} lost a peer: {detail}")]
    PeerLost {
        op: String,
        who: String,
        detail: String,
    },

    /// The participants of a cooperative call disagree on its argument `what` (e.g. one
    /// rank reduces 10 elements, another 12).
    #[error("the ranks disagree on `{what}`: {why}")]
    Mismatch { what: String, why: String },

    /// A cooperative call was stopped before it finished, by `by` (e.g. `rank 3`), for
    /// `cause`: an explicit abort, or a failure there (a timeout, a lost peer, a mismatch)
    /// that stops every participant instead of leaving them to hang.
    #[error("`{op}` on {who} was stopped by {by}: {cause}")]
    Aborted {
        op: String,
        who: String,
        by: String,
        cause: FailureKind,
    },

    /// An operation reached a stream that is capturing a graph but cannot be recorded
    /// into one (a synchronous host copy, a host wait, an allocation that is not ordered
    /// on the capturing stream): `op` names it, `why` says what to use instead.
    #[error("`{op}` cannot be captured into a graph: {why}")]
    NotCapturable { op: String, why: String },

    /// A kernel did something the machine forbids or leaves undefined, caught by the
    /// emulated device: an out-of-bounds access, a read of a register whose load has not
    /// been waited for, a violated hazard, an unsupported instruction.
    #[error("kernel `{kernel}` faulted at pc {pc:#x}{}{}: {what}",
        lane.map(|l| format!(", lane {l}")).unwrap_or_default(),
        address.map(|a| format!(", address {a:#x}")).unwrap_or_default())]
    KernelFault {
        kernel: String,
        /// Byte offset of the faulting instruction from the kernel's entry.
        pc: u64,
        lane: Option<u32>,
        address: Option<u64>,
        what: String,
    },
}

/// The kinds of failure that stop a cooperative call, as [`Error::Aborted`] reports the
/// cause. The discriminants are stable (1-4): communicators publish them to their peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// `abort()` was called.
    Aborted = 1,
    /// A blocking call ran past its timeout.
    Timeout = 2,
    /// The participants disagreed on a call's arguments.
    Mismatch = 3,
    /// A peer died or closed its connection.
    PeerLost = 4,
}

impl FailureKind {
    /// Every kind, in discriminant order.
    pub const ALL: [FailureKind; 4] = [
        FailureKind::Aborted,
        FailureKind::Timeout,
        FailureKind::Mismatch,
        FailureKind::PeerLost,
    ];

    /// The kind whose discriminant is `code`.
    pub fn from_code(code: u32) -> Option<FailureKind> {
        FailureKind::ALL.into_iter().find(|k| *k as u32 == code)
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FailureKind::Aborted => "abort() was called",
            FailureKind::Timeout => "a call timed out",
            FailureKind::Mismatch => "the ranks disagreed on a call's arguments",
            FailureKind::PeerLost => "a peer rank died or closed its connection",
        })
    }
}

impl Error {
    /// The kind of cooperative-call failure this error reports, if it is one: the variant
    /// itself for [`Error::Timeout`], [`Error::PeerLost`] and [`Error::Mismatch`], the
    /// cause for [`Error::Aborted`].
    pub fn failure_kind(&self) -> Option<FailureKind> {
        match self {
            Error::Timeout { .. } => Some(FailureKind::Timeout),
            Error::PeerLost { .. } => Some(FailureKind::PeerLost),
            Error::Mismatch { .. } => Some(FailureKind::Mismatch),
            Error::Aborted { cause, .. } => Some(*cause),
            _ => None,
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(what: impl Into<String>, why: impl fmt::Display) -> Self {
        Error::InvalidArgument {
            what: what.into(),
            why: why.to_string(),
        }
    }

    /// Shorthand for [`Error::Unsupported`].
    pub fn unsupported(op: impl Into<String>, device: impl fmt::Display) -> Self {
        Error::Unsupported {
            op: op.into(),
            device: device.to_string(),
        }
    }

    /// Shorthand for [`Error::NotCapturable`].
    pub fn not_capturable(op: impl Into<String>, why: impl fmt::Display) -> Self {
        Error::NotCapturable {
            op: op.into(),
            why: why.to_string(),
        }
    }

    /// Shorthand for [`Error::Backend`].
    pub fn backend(api: impl Into<String>, code: i64, message: impl Into<String>) -> Self {
        Error::Backend {
            api: api.into(),
            code,
            message: message.into(),
        }
    }

    /// Shorthand for [`Error::Io`].
    pub fn io(context: impl Into<String>, err: impl fmt::Display) -> Self {
        Error::Io {
            context: context.into(),
            message: err.to_string(),
        }
    }
}

/// Returns `Err(InvalidArgument)` unless `cond` holds.
///
/// ```
/// # use rocm_core::{ensure_arg, Result};
/// fn f(lda: usize, m: usize) -> Result<()> {
///     ensure_arg!(lda >= m.max(1), "lda", "must be >= max(1, m) = {}, got {}", m.max(1), lda);
///     Ok(())
/// }
/// assert!(f(1, 2).is_err());
/// ```
#[macro_export]
macro_rules! ensure_arg {
    ($cond:expr, $what:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::Error::invalid($what, format!($($fmt)+)));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_kinds_come_from_variants() {
        for k in FailureKind::ALL {
            assert_eq!(FailureKind::from_code(k as u32), Some(k));
        }
        assert_eq!(FailureKind::from_code(0), None);
        let timeout = Error::Timeout {
            op: "rocm-ccl all_reduce".into(),
            who: "rank 1".into(),
            after: Duration::from_millis(5),
            waiting_for: "rank 0 to send".into(),
        };
        assert_eq!(timeout.failure_kind(), Some(FailureKind::Timeout));
        assert_eq!(
            timeout.to_string(),
            "`rocm-ccl all_reduce` on rank 1 timed out after 5ms waiting for rank 0 to send"
        );
        let aborted = Error::Aborted {
            op: "x".into(),
            who: "rank 0".into(),
            by: "rank 2".into(),
            cause: FailureKind::PeerLost,
        };
        assert_eq!(aborted.failure_kind(), Some(FailureKind::PeerLost));
        assert!(aborted
            .to_string()
            .contains("stopped by rank 2: a peer rank died"));
        let lost = Error::PeerLost {
            op: "x".into(),
            who: "rank 0".into(),
            detail: "rank 1 closed its connection".into(),
        };
        assert_eq!(lost.failure_kind(), Some(FailureKind::PeerLost));
        let mismatch = Error::Mismatch {
            what: "count".into(),
            why: "rank 0 sends 3, rank 1 sends 4".into(),
        };
        assert_eq!(mismatch.failure_kind(), Some(FailureKind::Mismatch));
        assert_eq!(
            Error::invalid("count", "ranks disagree").failure_kind(),
            None
        );
    }
}
