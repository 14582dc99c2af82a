//! The HIP runtime's C API, as far as rocm-rs uses it: libamdhip64 found and loaded once
//! with libloading, and a table of the function pointers we resolve from it.
//!
//! Signatures follow `hip/hip_runtime_api.h` (ROCm 6.x and 7.x): every call returns a
//! `hipError_t` (a C enum, `int`-sized); handles (`hipStream_t`, `hipEvent_t`,
//! `hipModule_t`, `hipFunction_t`) are opaque pointers; `hipDeviceptr_t` is `void*`.
//! Nothing here is safe to call: the safe layer in `super` upholds the contracts.

use super::props::HipDevicePropR0600;
use std::ffi::{c_char, c_float, c_int, c_uint, c_void, CStr, OsStr};
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// `hipError_t`.
pub(crate) type HipError = c_int;
/// `hipStream_t` (null: the device's default stream).
pub(crate) type HipStream = *mut c_void;
/// `hipEvent_t`.
pub(crate) type HipEvent = *mut c_void;
/// `hipModule_t`.
pub(crate) type HipModule = *mut c_void;
/// `hipFunction_t`.
pub(crate) type HipFunction = *mut c_void;

pub(crate) const HIP_SUCCESS: HipError = 0;
pub(crate) const HIP_ERROR_OUT_OF_MEMORY: HipError = 2;
pub(crate) const HIP_ERROR_NOT_READY: HipError = 600;

/// Tags of the `extra` array of `hipModuleLaunchKernel` (`HIP_LAUNCH_PARAM_*`, which the
/// header defines as these small integers cast to `void*`).
pub(crate) const LAUNCH_PARAM_BUFFER_POINTER: usize = 0x01;
pub(crate) const LAUNCH_PARAM_BUFFER_SIZE: usize = 0x02;
pub(crate) const LAUNCH_PARAM_END: usize = 0x03;

/// The library's file names, newest soname first after the unversioned development link.
const LIBRARY_NAMES: [&str; 3] = ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"];

/// Where to look for the runtime, in order: `$ROCM_PATH/lib`, `/opt/rocm/lib`, then bare
/// names, which the dynamic loader resolves through its own path (`LD_LIBRARY_PATH`, the
/// ld.so cache). `rocm_path` is the value of `ROCM_PATH`, passed in so that the order is
/// testable.
pub(crate) fn library_candidates(rocm_path: Option<&OsStr>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(root) = rocm_path.filter(|p| !p.is_empty()) {
        dirs.push(PathBuf::from(root).join("lib"));
    }
    let default = PathBuf::from("/opt/rocm/lib");
    if !dirs.contains(&default) {
        dirs.push(default);
    }
    let mut out: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| LIBRARY_NAMES.iter().map(move |n| d.join(n)))
        .collect();
    out.extend(LIBRARY_NAMES.iter().map(PathBuf::from));
    out
}

/// Declares [`HipApi`]: one field per C function, resolved by symbol name on load.
macro_rules! hip_api {
    ($( $(#[$doc:meta])* $field:ident = $sym:literal : fn($($arg:ty),*) -> $ret:ty; )*) => {
        /// The loaded runtime and the functions we call. Function pointers stay valid for
        /// as long as `_lib` is loaded, i.e. for the life of this value (which lives in a
        /// `static` once loaded).
        pub(crate) struct HipApi {
            /// Which file was loaded.
            pub path: PathBuf,
            _lib: libloading::Library,
            $( $(#[$doc])* pub $field: unsafe extern "C" fn($($arg),*) -> $ret, )*
        }

        /// Every symbol [`HipApi`] resolves, in declaration order.
        #[cfg(test)]
        pub(crate) const SYMBOLS: &[&str] = &[$($sym),*];

        impl HipApi {
            /// Resolves every function from `lib`; the first missing one is an error.
            fn resolve(lib: libloading::Library, path: PathBuf) -> Result<Self, String> {
                $(
                    // SAFETY: the symbol is a function of this C signature in every HIP
                    // runtime that exports it (hip_runtime_api.h); the pointer is used only
                    // while `lib`, stored alongside it, stays loaded.
                    let $field = *unsafe {
                        lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>($sym)
                    }
                    .map_err(|e| format!("{}: missing `{}`: {e}", path.display(), $sym))?;
                )*
                Ok(HipApi { path, _lib: lib, $($field,)* })
            }
        }
    };
}

hip_api! {
    /// `hipInit(unsigned flags)`
    init = "hipInit": fn(c_uint) -> HipError;
    /// `hipGetDeviceCount(int* count)`
    get_device_count = "hipGetDeviceCount": fn(*mut c_int) -> HipError;
    /// `hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* prop, int device)`
    get_device_properties = "hipGetDevicePropertiesR0600":
        fn(*mut HipDevicePropR0600, c_int) -> HipError;
    /// `hipSetDevice(int device)`: the calling thread's current device.
    set_device = "hipSetDevice": fn(c_int) -> HipError;
    /// `hipMalloc(void** ptr, size_t bytes)`
    malloc = "hipMalloc": fn(*mut *mut c_void, usize) -> HipError;
    /// `hipFree(void* ptr)`
    free = "hipFree": fn(*mut c_void) -> HipError;
    /// `hipHostMalloc(void** ptr, size_t bytes, unsigned flags)`: page-locked host memory.
    host_malloc = "hipHostMalloc": fn(*mut *mut c_void, usize, c_uint) -> HipError;
    /// `hipHostFree(void* ptr)`
    host_free = "hipHostFree": fn(*mut c_void) -> HipError;
    /// `hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned flags)`
    stream_wait_event = "hipStreamWaitEvent": fn(HipStream, HipEvent, c_uint) -> HipError;
    /// `hipEventQuery(hipEvent_t)`: hipSuccess when done, hipErrorNotReady (600) if not.
    event_query = "hipEventQuery": fn(HipEvent) -> HipError;
    /// `hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t)`
    memset_async = "hipMemsetAsync": fn(*mut c_void, c_int, usize, HipStream) -> HipError;
    /// `hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t bytes, hipStream_t)`
    memcpy_htod_async = "hipMemcpyHtoDAsync":
        fn(*mut c_void, *mut c_void, usize, HipStream) -> HipError;
    /// `hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t bytes, hipStream_t)`
    memcpy_dtoh_async = "hipMemcpyDtoHAsync":
        fn(*mut c_void, *mut c_void, usize, HipStream) -> HipError;
    /// `hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t, hipStream_t)`
    memcpy_dtod_async = "hipMemcpyDtoDAsync":
        fn(*mut c_void, *mut c_void, usize, HipStream) -> HipError;
    /// `hipStreamCreate(hipStream_t*)`
    stream_create = "hipStreamCreate": fn(*mut HipStream) -> HipError;
    /// `hipStreamDestroy(hipStream_t)`
    stream_destroy = "hipStreamDestroy": fn(HipStream) -> HipError;
    /// `hipStreamSynchronize(hipStream_t)`
    stream_synchronize = "hipStreamSynchronize": fn(HipStream) -> HipError;
    /// `hipEventCreate(hipEvent_t*)` (timing enabled)
    event_create = "hipEventCreate": fn(*mut HipEvent) -> HipError;
    /// `hipEventRecord(hipEvent_t, hipStream_t)`
    event_record = "hipEventRecord": fn(HipEvent, HipStream) -> HipError;
    /// `hipEventSynchronize(hipEvent_t)`
    event_synchronize = "hipEventSynchronize": fn(HipEvent) -> HipError;
    /// `hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop)`
    event_elapsed_time = "hipEventElapsedTime":
        fn(*mut c_float, HipEvent, HipEvent) -> HipError;
    /// `hipEventDestroy(hipEvent_t)`
    event_destroy = "hipEventDestroy": fn(HipEvent) -> HipError;
    /// `hipModuleLoadData(hipModule_t*, const void* image)`: a code object in memory.
    module_load_data = "hipModuleLoadData": fn(*mut HipModule, *const c_void) -> HipError;
    /// `hipModuleUnload(hipModule_t)`
    module_unload = "hipModuleUnload": fn(HipModule) -> HipError;
    /// `hipModuleGetFunction(hipFunction_t*, hipModule_t, const char* name)`
    module_get_function = "hipModuleGetFunction":
        fn(*mut HipFunction, HipModule, *const c_char) -> HipError;
    /// `hipModuleLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
    /// sharedMemBytes, stream, void** kernelParams, void** extra)`; grid in workgroups.
    module_launch_kernel = "hipModuleLaunchKernel": fn(
        HipFunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, HipStream,
        *mut *mut c_void, *mut *mut c_void
    ) -> HipError;
    /// `const char* hipGetErrorName(hipError_t)`
    get_error_name = "hipGetErrorName": fn(HipError) -> *const c_char;
    /// `const char* hipGetErrorString(hipError_t)`
    get_error_string = "hipGetErrorString": fn(HipError) -> *const c_char;
}

impl fmt::Debug for HipApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HipApi({})", self.path.display())
    }
}

impl HipApi {
    /// Loads the first candidate that opens and exports every function we need.
    /// The error lists what was tried and why each failed.
    pub(crate) fn load_from(candidates: &[PathBuf]) -> Result<Self, String> {
        let mut why = Vec::new();
        for path in candidates {
            // SAFETY: loading libamdhip64 runs its initialisers, which have no
            // preconditions; a library of that name that is not HIP fails symbol resolution.
            match unsafe { libloading::Library::new(path.as_os_str()) } {
                Ok(lib) => match HipApi::resolve(lib, path.clone()) {
                    Ok(api) => return Ok(api),
                    Err(e) => why.push(e),
                },
                Err(e) => why.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!(
            "the HIP runtime (libamdhip64) was not found: {}",
            why.join("; ")
        ))
    }

    /// The name and description the runtime gives an error code, if it gives any.
    pub(crate) fn describe(&self, code: HipError) -> Option<(String, String)> {
        let text = |p: *const c_char| {
            // SAFETY: hipGetErrorName/String return null or a static NUL-terminated string.
            (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        };
        // SAFETY: both functions accept any code and only return a pointer.
        let (name, description) =
            unsafe { ((self.get_error_name)(code), (self.get_error_string)(code)) };
        Some((text(name)?, text(description)?))
    }
}

/// The runtime, loaded and initialised once; `Err` says why it is not there.
pub(crate) fn api() -> Result<&'static HipApi, &'static str> {
    static API: OnceLock<Result<HipApi, String>> = OnceLock::new();
    API.get_or_init(|| {
        let rocm_path = std::env::var_os("ROCM_PATH");
        let api = HipApi::load_from(&library_candidates(rocm_path.as_deref()))?;
        // SAFETY: hipInit takes flags (0 is the only defined value) and no pointers.
        let code = unsafe { (api.init)(0) };
        if code != HIP_SUCCESS {
            return Err(format!(
                "hipInit failed with code {code} ({})",
                error_name(code).unwrap_or("unknown hipError_t")
            ));
        }
        Ok(api)
    })
    .as_ref()
    .map_err(String::as_str)
}

/// Names of the common `hipError_t` codes (hip_runtime_api.h), for messages when the
/// runtime cannot describe a code itself. Sorted by code.
pub(crate) const ERROR_NAMES: &[(HipError, &str)] = &[
    (0, "hipSuccess"),
    (1, "hipErrorInvalidValue"),
    (2, "hipErrorOutOfMemory"),
    (3, "hipErrorNotInitialized"),
    (4, "hipErrorDeinitialized"),
    (5, "hipErrorProfilerDisabled"),
    (6, "hipErrorProfilerNotInitialized"),
    (7, "hipErrorProfilerAlreadyStarted"),
    (8, "hipErrorProfilerAlreadyStopped"),
    (9, "hipErrorInvalidConfiguration"),
    (12, "hipErrorInvalidPitchValue"),
    (13, "hipErrorInvalidSymbol"),
    (17, "hipErrorInvalidDevicePointer"),
    (21, "hipErrorInvalidMemcpyDirection"),
    (35, "hipErrorInsufficientDriver"),
    (52, "hipErrorMissingConfiguration"),
    (53, "hipErrorPriorLaunchFailure"),
    (98, "hipErrorInvalidDeviceFunction"),
    (100, "hipErrorNoDevice"),
    (101, "hipErrorInvalidDevice"),
    (200, "hipErrorInvalidImage"),
    (201, "hipErrorInvalidContext"),
    (202, "hipErrorContextAlreadyCurrent"),
    (205, "hipErrorMapFailed"),
    (206, "hipErrorUnmapFailed"),
    (209, "hipErrorNoBinaryForGpu"),
    (215, "hipErrorUnsupportedLimit"),
    (216, "hipErrorContextAlreadyInUse"),
    (217, "hipErrorPeerAccessUnsupported"),
    (218, "hipErrorInvalidKernelFile"),
    (300, "hipErrorInvalidSource"),
    (301, "hipErrorFileNotFound"),
    (302, "hipErrorSharedObjectSymbolNotFound"),
    (303, "hipErrorSharedObjectInitFailed"),
    (304, "hipErrorOperatingSystem"),
    (400, "hipErrorInvalidHandle"),
    (401, "hipErrorIllegalState"),
    (500, "hipErrorNotFound"),
    (600, "hipErrorNotReady"),
    (700, "hipErrorIllegalAddress"),
    (701, "hipErrorLaunchOutOfResources"),
    (702, "hipErrorLaunchTimeOut"),
    (704, "hipErrorPeerAccessAlreadyEnabled"),
    (705, "hipErrorPeerAccessNotEnabled"),
    (708, "hipErrorSetOnActiveProcess"),
    (709, "hipErrorContextIsDestroyed"),
    (710, "hipErrorAssert"),
    (712, "hipErrorHostMemoryAlreadyRegistered"),
    (713, "hipErrorHostMemoryNotRegistered"),
    (719, "hipErrorLaunchFailure"),
    (720, "hipErrorCooperativeLaunchTooLarge"),
    (801, "hipErrorNotSupported"),
    (900, "hipErrorStreamCaptureUnsupported"),
    (901, "hipErrorStreamCaptureInvalidated"),
    (910, "hipErrorGraphExecUpdateFailure"),
    (999, "hipErrorUnknown"),
    (1052, "hipErrorRuntimeMemory"),
    (1053, "hipErrorRuntimeOther"),
];

/// The header's name of `code`, if it is one of [`ERROR_NAMES`].
pub(crate) fn error_name(code: HipError) -> Option<&'static str> {
    ERROR_NAMES
        .binary_search_by_key(&code, |&(c, _)| c)
        .ok()
        .map(|i| ERROR_NAMES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn search_order_is_rocm_path_then_opt_rocm_then_loader() {
        let c = library_candidates(Some(OsStr::new("/usr/local/rocm-7.0")));
        let expected: Vec<PathBuf> = [
            "/usr/local/rocm-7.0/lib/libamdhip64.so",
            "/usr/local/rocm-7.0/lib/libamdhip64.so.7",
            "/usr/local/rocm-7.0/lib/libamdhip64.so.6",
            "/opt/rocm/lib/libamdhip64.so",
            "/opt/rocm/lib/libamdhip64.so.7",
            "/opt/rocm/lib/libamdhip64.so.6",
            "libamdhip64.so",
            "libamdhip64.so.7",
            "libamdhip64.so.6",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(c, expected);
    }

    #[test]
    fn unset_empty_or_default_rocm_path_is_not_searched_twice() {
        for root in [None, Some(OsStr::new("")), Some(OsStr::new("/opt/rocm"))] {
            let c = library_candidates(root);
            assert_eq!(c.len(), 6, "{root:?}");
            assert_eq!(c[0], Path::new("/opt/rocm/lib/libamdhip64.so"));
            assert_eq!(c[3], Path::new("libamdhip64.so"));
        }
    }

    #[test]
    fn missing_libraries_are_reported_not_fatal() {
        let tried = [
            PathBuf::from("/nonexistent/rocm/lib/libamdhip64.so"),
            PathBuf::from("libamdhip64-does-not-exist.so"),
        ];
        let err = HipApi::load_from(&tried).unwrap_err();
        assert!(
            err.contains("/nonexistent/rocm/lib/libamdhip64.so"),
            "{err}"
        );
        assert!(err.contains("libamdhip64-does-not-exist.so"), "{err}");
        assert!(HipApi::load_from(&[]).is_err());
    }

    #[test]
    fn a_library_without_hip_symbols_is_rejected_by_name() {
        // The C library loads everywhere this test runs but exports no HIP function: the
        // first symbol of the table must be named as missing.
        let err = HipApi::load_from(&[PathBuf::from("libc.so.6")]).unwrap_err();
        assert!(err.contains(&format!("missing `{}`", SYMBOLS[0])), "{err}");
    }

    #[test]
    fn the_table_resolves_the_documented_surface() {
        for sym in [
            "hipInit",
            "hipGetDeviceCount",
            "hipGetDevicePropertiesR0600",
            "hipSetDevice",
            "hipMalloc",
            "hipFree",
            "hipMemsetAsync",
            "hipMemcpyHtoDAsync",
            "hipMemcpyDtoHAsync",
            "hipMemcpyDtoDAsync",
            "hipStreamCreate",
            "hipStreamDestroy",
            "hipStreamSynchronize",
            "hipEventCreate",
            "hipEventRecord",
            "hipEventSynchronize",
            "hipEventElapsedTime",
            "hipEventDestroy",
            "hipModuleLoadData",
            "hipModuleUnload",
            "hipModuleGetFunction",
            "hipModuleLaunchKernel",
            "hipGetErrorName",
            "hipGetErrorString",
            "hipHostMalloc",
            "hipHostFree",
            "hipStreamWaitEvent",
            "hipEventQuery",
        ] {
            assert!(SYMBOLS.contains(&sym), "{sym}");
        }
        assert_eq!(SYMBOLS.len(), 28);
    }

    #[test]
    fn error_table_is_sorted_and_names_common_codes() {
        assert!(ERROR_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(error_name(0), Some("hipSuccess"));
        assert_eq!(
            error_name(HIP_ERROR_OUT_OF_MEMORY),
            Some("hipErrorOutOfMemory")
        );
        assert_eq!(error_name(98), Some("hipErrorInvalidDeviceFunction"));
        assert_eq!(error_name(209), Some("hipErrorNoBinaryForGpu"));
        assert_eq!(error_name(500), Some("hipErrorNotFound"));
        assert_eq!(error_name(700), Some("hipErrorIllegalAddress"));
        assert_eq!(error_name(10), None);
        assert_eq!(error_name(-1), None);
    }
}
