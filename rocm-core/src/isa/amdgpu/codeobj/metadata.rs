//! The `NT_AMDGPU_METADATA` note: MessagePack map with `amdhsa.version`,
//! `amdhsa.target` and `amdhsa.kernels` (AMDGPUUsage "Code Object V5 Metadata").
//!
//! Only the keys the runtime needs to launch a kernel are modelled; a reader ignores the
//! others (clang writes many more, e.g. `.uniform_work_group_size`).

use crate::error::{Error, Result};
use rmpv::Value;

/// `amdhsa.version` of code object v5.
pub const METADATA_VERSION_V5: [u32; 2] = [1, 2];

/// How the runtime passes an argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// A pointer to device memory (`global_buffer`, with `.address_space`).
    GlobalBuffer,
    /// Bytes copied into the kernarg segment (`by_value`).
    ByValue,
    /// Another kind (`hidden_block_count_x`, `dynamic_shared_pointer`, …), kept by name.
    Other(String),
}

impl ValueKind {
    pub fn name(&self) -> &str {
        match self {
            ValueKind::GlobalBuffer => "global_buffer",
            ValueKind::ByValue => "by_value",
            ValueKind::Other(s) => s,
        }
    }

    fn from_name(s: &str) -> Self {
        match s {
            "global_buffer" => ValueKind::GlobalBuffer,
            "by_value" => ValueKind::ByValue,
            other => ValueKind::Other(other.to_string()),
        }
    }
}

/// One entry of a kernel's `.args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelArg {
    pub name: Option<String>,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    pub size: u32,
    pub value_kind: ValueKind,
    /// `.address_space` of pointers (`global`, `constant`, …).
    pub address_space: Option<String>,
    /// `.actual_access` (`read_only`, `write_only`, `read_write`).
    pub actual_access: Option<String>,
}

impl KernelArg {
    /// A global-memory pointer argument (8 bytes).
    pub fn global_buffer(name: &str, offset: u32) -> Self {
        KernelArg {
            name: Some(name.to_string()),
            offset,
            size: 8,
            value_kind: ValueKind::GlobalBuffer,
            address_space: Some("global".to_string()),
            actual_access: None,
        }
    }

    /// A by-value argument of `size` bytes.
    pub fn by_value(name: &str, offset: u32, size: u32) -> Self {
        KernelArg {
            name: Some(name.to_string()),
            offset,
            size,
            value_kind: ValueKind::ByValue,
            address_space: None,
            actual_access: None,
        }
    }

    fn to_value(&self) -> Value {
        let mut m = Vec::new();
        if let Some(n) = &self.name {
            m.push((".name".into(), n.as_str().into()));
        }
        m.push((".offset".into(), self.offset.into()));
        m.push((".size".into(), self.size.into()));
        m.push((".value_kind".into(), self.value_kind.name().into()));
        if let Some(a) = &self.address_space {
            m.push((".address_space".into(), a.as_str().into()));
        }
        if let Some(a) = &self.actual_access {
            m.push((".actual_access".into(), a.as_str().into()));
        }
        Value::Map(m)
    }

    fn from_value(v: &Value) -> Result<Self> {
        let m = Map::new(v, "kernel argument")?;
        Ok(KernelArg {
            name: m.opt_str(".name")?,
            offset: m.u32(".offset")?,
            size: m.u32(".size")?,
            value_kind: ValueKind::from_name(&m.str(".value_kind")?),
            address_space: m.opt_str(".address_space")?,
            actual_access: m.opt_str(".actual_access")?,
        })
    }
}

/// One entry of `amdhsa.kernels`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelMetadata {
    /// The kernel's name (`hipModuleGetFunction` looks it up).
    pub name: String,
    /// The descriptor symbol, `name.kd`.
    pub symbol: String,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    /// `.agpr_count` (absent in objects that leave it out: read as 0).
    pub agpr_count: u32,
    pub max_flat_workgroup_size: u32,
}

impl KernelMetadata {
    fn to_value(&self) -> Value {
        let u = |k: &str, v: u32| (Value::from(k), Value::from(v));
        Value::Map(vec![
            (".name".into(), self.name.as_str().into()),
            (".symbol".into(), self.symbol.as_str().into()),
            (
                ".args".into(),
                Value::Array(self.args.iter().map(KernelArg::to_value).collect()),
            ),
            u(".kernarg_segment_size", self.kernarg_segment_size),
            u(".kernarg_segment_align", self.kernarg_segment_align),
            u(".group_segment_fixed_size", self.group_segment_fixed_size),
            u(
                ".private_segment_fixed_size",
                self.private_segment_fixed_size,
            ),
            u(".wavefront_size", self.wavefront_size),
            u(".sgpr_count", self.sgpr_count),
            u(".vgpr_count", self.vgpr_count),
            u(".agpr_count", self.agpr_count),
            u(".max_flat_workgroup_size", self.max_flat_workgroup_size),
        ])
    }

    fn from_value(v: &Value) -> Result<Self> {
        let m = Map::new(v, "amdhsa.kernels entry")?;
        let args = match m.get(".args") {
            None => Vec::new(),
            Some(Value::Array(a)) => a.iter().map(KernelArg::from_value).collect::<Result<_>>()?,
            Some(_) => return Err(bad(".args", "is not an array")),
        };
        Ok(KernelMetadata {
            name: m.str(".name")?,
            symbol: m.str(".symbol")?,
            args,
            kernarg_segment_size: m.u32(".kernarg_segment_size")?,
            kernarg_segment_align: m.u32(".kernarg_segment_align")?,
            group_segment_fixed_size: m.u32(".group_segment_fixed_size")?,
            private_segment_fixed_size: m.u32(".private_segment_fixed_size")?,
            wavefront_size: m.u32(".wavefront_size")?,
            sgpr_count: m.u32(".sgpr_count")?,
            vgpr_count: m.u32(".vgpr_count")?,
            agpr_count: m.opt_u32(".agpr_count")?.unwrap_or(0),
            max_flat_workgroup_size: m.u32(".max_flat_workgroup_size")?,
        })
    }
}

/// The whole metadata document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CodeObjectMetadata {
    /// `amdhsa.version` (`[1, 2]` for v5).
    pub version: [u32; 2],
    /// `amdhsa.target`, the target ID.
    pub target: String,
    pub kernels: Vec<KernelMetadata>,
}

impl CodeObjectMetadata {
    /// The MessagePack bytes of the note's descriptor.
    pub fn to_msgpack(&self) -> Result<Vec<u8>> {
        let doc = Value::Map(vec![
            (
                "amdhsa.version".into(),
                Value::Array(vec![self.version[0].into(), self.version[1].into()]),
            ),
            ("amdhsa.target".into(), self.target.as_str().into()),
            (
                "amdhsa.kernels".into(),
                Value::Array(self.kernels.iter().map(KernelMetadata::to_value).collect()),
            ),
        ]);
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &doc)
            .map_err(|e| Error::io("encoding AMDGPU metadata", e))?;
        Ok(out)
    }

    /// Parses the note's MessagePack bytes.
    pub fn from_msgpack(mut bytes: &[u8]) -> Result<Self> {
        let doc = rmpv::decode::read_value(&mut bytes)
            .map_err(|e| Error::invalid("AMDGPU metadata", format!("bad MessagePack: {e}")))?;
        let m = Map::new(&doc, "AMDGPU metadata")?;
        let version = match m.get("amdhsa.version") {
            Some(Value::Array(a)) if a.len() == 2 => {
                let part = |v: &Value| {
                    v.as_u64()
                        .and_then(|x| u32::try_from(x).ok())
                        .ok_or_else(|| bad("amdhsa.version", "holds a non-integer"))
                };
                [part(&a[0])?, part(&a[1])?]
            }
            _ => return Err(bad("amdhsa.version", "is missing or not [major, minor]")),
        };
        let kernels = match m.get("amdhsa.kernels") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(KernelMetadata::from_value)
                .collect::<Result<_>>()?,
            Some(_) => return Err(bad("amdhsa.kernels", "is not an array")),
        };
        Ok(CodeObjectMetadata {
            version,
            target: m.opt_str("amdhsa.target")?.unwrap_or_default(),
            kernels,
        })
    }
}

fn bad(key: &str, why: &str) -> Error {
    Error::invalid("AMDGPU metadata", format!("`{key}` {why}"))
}

/// A MessagePack map with string keys, looked up by key.
struct Map<'a>(&'a [(Value, Value)]);

impl<'a> Map<'a> {
    fn new(v: &'a Value, what: &str) -> Result<Self> {
        match v {
            Value::Map(m) => Ok(Map(m)),
            _ => Err(Error::invalid(
                "AMDGPU metadata",
                format!("{what} is not a map"),
            )),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| bad(key, "is not a string")),
        }
    }

    fn str(&self, key: &str) -> Result<String> {
        self.opt_str(key)?.ok_or_else(|| bad(key, "is missing"))
    }

    fn opt_u32(&self, key: &str) -> Result<Option<u32>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .map(Some)
                .ok_or_else(|| bad(key, "is not a 32-bit unsigned integer")),
        }
    }

    fn u32(&self, key: &str) -> Result<u32> {
        self.opt_u32(key)?.ok_or_else(|| bad(key, "is missing"))
    }
}
