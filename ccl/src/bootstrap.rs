//! Unique ids and the TCP rendezvous (placeholder).

/// The rendezvous of a communicator: root address and a random magic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniqueId {
    bytes: [u8; 128],
}
