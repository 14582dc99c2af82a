//! AMD devices through the HIP runtime (libamdhip64), loaded with libloading.
//!
//! Not yet wired: no `hip:N` device is ever listed, so nothing pretends to work.

use crate::{Device, DeviceInfo, Error, Result};

/// Number of HIP devices (0 until the HIP backend lands).
pub fn device_count() -> usize {
    0
}

/// Properties of every HIP device.
pub fn enumerate() -> Vec<DeviceInfo> {
    Vec::new()
}

/// Opens `hip:ordinal`.
pub fn open(ordinal: usize) -> Result<Device> {
    Err(Error::DeviceNotFound {
        requested: format!("hip:{ordinal}"),
        available: crate::device::available_names(),
    })
}
