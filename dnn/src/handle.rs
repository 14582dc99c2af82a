//! The `Dnn` handle: a device, its BLAS handle (the GEMMs of im2col, Winograd and
//! attention run through rocm-blas) and the algorithm-selection settings, like
//! `miopenHandle_t`.

use crate::find::{FindDb, FindMode};
use rocm_blas::Blas;
use rocm_core::{BackendKind, Device, Error, Result, Stream};

/// A DNN context bound to one device.
#[derive(Debug, Clone)]
pub struct Dnn {
    device: Device,
    blas: Blas,
    find_mode: FindMode,
    find_db: Option<FindDb>,
}

impl Dnn {
    /// A handle on `device`. The find mode comes from `ROCM_DNN_FIND_MODE` (default
    /// immediate) and the find-db from `ROCM_DNN_FIND_DB` (default
    /// `$HOME/.cache/rocm-rs/dnn/find.fdb.txt`; `none` disables it).
    pub fn new(device: &Device) -> Result<Self> {
        Ok(Dnn {
            device: device.clone(),
            blas: Blas::new(device),
            find_mode: FindMode::from_env()?,
            find_db: FindDb::from_env(),
        })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn blas(&self) -> &Blas {
        &self.blas
    }

    pub fn find_mode(&self) -> FindMode {
        self.find_mode
    }

    pub fn set_find_mode(&mut self, mode: FindMode) {
        self.find_mode = mode;
    }

    pub fn find_db(&self) -> Option<&FindDb> {
        self.find_db.as_ref()
    }

    /// Uses `db` for find results (`None`: no persistent db).
    pub fn set_find_db(&mut self, db: Option<FindDb>) {
        self.find_db = db;
    }

    /// `None` on the CPU (the host path runs), the device's stream where the op has GPU
    /// kernels (CUDA and AMD devices, emulated ones included).
    pub(crate) fn gpu_stream(&self) -> Option<&Stream> {
        match self.device.kind() {
            BackendKind::Cpu => None,
            BackendKind::Cuda | BackendKind::Hip | BackendKind::Emu => {
                Some(self.device.default_stream())
            }
        }
    }

    /// Errors with `Unsupported` naming the device unless the op can run here (the CPU).
    pub(crate) fn engine(&self, op: &str) -> Result<()> {
        match self.device.kind() {
            BackendKind::Cpu => Ok(()),
            _ => Err(Error::unsupported(format!("dnn {op}"), &self.device)),
        }
    }
}
