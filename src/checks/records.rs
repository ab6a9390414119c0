//! A host's Rust records held to the WGSL structs its shaders read: size,
//! and every member's name, offset and size, in order, as naga lays the
//! struct out. The crate holds each of its own `#[repr(C)]` records to its
//! shaders this way; a host with records of its own (md2-bevy's per-entity
//! pose, a material's uniform) holds them the same way, in a test that runs
//! on any machine.

use std::fmt;

use naga::Module;

/// One field of a Rust record: its name (the WGSL member's), offset and
/// size in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// The field's name, which the WGSL member must share.
    pub name: String,
    /// Its offset in the record, in bytes.
    pub offset: usize,
    /// Its size in bytes.
    pub size: usize,
}

/// A Rust record as the check sees it: the WGSL struct it mirrors, its size
/// and its fields in order. [`record_layout!`](crate::record_layout) makes
/// one from a type and its field names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    /// The WGSL struct's name.
    pub wgsl: String,
    /// The Rust record's size in bytes.
    pub size: usize,
    /// Its fields, in memory order.
    pub fields: Vec<FieldLayout>,
}

/// Why a record does not match its WGSL struct.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordMismatch {
    /// The module has no struct of that name.
    NoStruct {
        /// The name looked for.
        wgsl: String,
    },
    /// The sizes differ.
    Size {
        /// The WGSL struct's name.
        wgsl: String,
        /// The Rust record's size.
        rust: usize,
        /// The WGSL struct's size (its span, padding included).
        shader: usize,
    },
    /// The fields differ: the first that does, on either side (`None`
    /// where that side has no more fields).
    Field {
        /// The WGSL struct's name.
        wgsl: String,
        /// The position of the first differing field.
        index: usize,
        /// The Rust field there.
        rust: Option<FieldLayout>,
        /// The WGSL member there.
        shader: Option<FieldLayout>,
    },
}

impl fmt::Display for RecordMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = |l: &Option<FieldLayout>| match l {
            Some(l) => format!("{} at byte {} ({} bytes)", l.name, l.offset, l.size),
            None => "nothing".to_owned(),
        };
        match self {
            RecordMismatch::NoStruct { wgsl } => write!(f, "the module has no struct {wgsl}"),
            RecordMismatch::Size { wgsl, rust, shader } => write!(
                f,
                "{wgsl} is {shader} bytes in WGSL and {rust} bytes in Rust"
            ),
            RecordMismatch::Field {
                wgsl,
                index,
                rust,
                shader,
            } => write!(
                f,
                "{wgsl}'s field {index} is {} in WGSL and {} in Rust",
                field(shader),
                field(rust)
            ),
        }
    }
}

impl std::error::Error for RecordMismatch {}

/// Checks `layout` against the struct of that name in `module`: the size,
/// then every member's name, offset and size, in order.
pub fn check_record(module: &Module, layout: &RecordLayout) -> Result<(), RecordMismatch> {
    let mut layouter = naga::proc::Layouter::default();
    // A module that naga validated always lays out; one that does not has
    // no struct to hold a record to.
    let no_struct = || RecordMismatch::NoStruct {
        wgsl: layout.wgsl.clone(),
    };
    layouter.update(module.to_ctx()).map_err(|_| no_struct())?;
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(layout.wgsl.as_str()))
        .ok_or_else(no_struct)?;
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        return Err(no_struct());
    };
    if *span as usize != layout.size {
        return Err(RecordMismatch::Size {
            wgsl: layout.wgsl.clone(),
            rust: layout.size,
            shader: *span as usize,
        });
    }
    let shader: Vec<FieldLayout> = members
        .iter()
        .map(|m| FieldLayout {
            name: m.name.clone().unwrap_or_default(),
            offset: m.offset as usize,
            size: layouter[m.ty].size as usize,
        })
        .collect();
    let differs =
        (0..shader.len().max(layout.fields.len())).find(|&i| shader.get(i) != layout.fields.get(i));
    match differs {
        None => Ok(()),
        Some(index) => Err(RecordMismatch::Field {
            wgsl: layout.wgsl.clone(),
            index,
            rust: layout.fields.get(index).cloned(),
            shader: shader.get(index).cloned(),
        }),
    }
}

/// [`check_record`] on WGSL text: `source` is parsed and validated with
/// default capabilities (nothing beyond what every WebGPU-class adapter
/// offers) first; `Err` carries naga's message, or the mismatch's.
pub fn check_record_wgsl(name: &str, source: &str, layout: &RecordLayout) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| e.emit_to_string_with_path(source, name))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string_with_path(source, name))?;
    check_record(&module, layout).map_err(|e| format!("{name}: {e}"))
}

/// The size of the field `field` picks out of a `T`: what
/// [`record_layout!`](crate::record_layout) measures each field with.
#[doc(hidden)]
pub fn field_size<T, F>(_field: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// The [`RecordLayout`] of a Rust struct, to hold against the WGSL struct
/// named `$wgsl`: its size, and these fields' offsets and sizes in the
/// order given (memory order, as the WGSL declares them).
///
/// ```
/// # #[cfg(feature = "checks")] {
/// use md2_wgpu::checks::check_record_wgsl;
///
/// #[repr(C)]
/// struct Glow {
///     colour: [f32; 3],
///     strength: f32,
/// }
///
/// let wgsl = "struct Glow { colour: vec3<f32>, strength: f32 }
///             @group(0) @binding(0) var<uniform> glow: Glow;";
/// let layout = md2_wgpu::record_layout!(Glow, "Glow", [colour, strength]);
/// assert_eq!(check_record_wgsl("glow", wgsl, &layout), Ok(()));
/// # }
/// ```
#[macro_export]
macro_rules! record_layout {
    ($rust:ty, $wgsl:expr, [$($field:ident),* $(,)?]) => {
        $crate::checks::RecordLayout {
            wgsl: ::std::string::String::from($wgsl),
            size: ::std::mem::size_of::<$rust>(),
            fields: ::std::vec![$($crate::checks::FieldLayout {
                name: ::std::string::String::from(::std::stringify!($field)),
                offset: ::std::mem::offset_of!($rust, $field),
                size: $crate::checks::field_size(|r: &$rust| &r.$field),
            }),*],
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C)]
    struct Pair {
        a: [f32; 3],
        b: u32,
    }

    const WGSL: &str = "struct Pair { a: vec3<f32>, b: u32 }
                        @group(0) @binding(0) var<uniform> p: Pair;";

    #[test]
    fn a_matching_record_passes_and_each_difference_is_named() {
        let good = record_layout!(Pair, "Pair", [a, b]);
        assert_eq!(check_record_wgsl("pair", WGSL, &good), Ok(()));

        let mut renamed = good.clone();
        renamed.fields[1].name = "c".into();
        let module = naga::front::wgsl::parse_str(WGSL).unwrap();
        let Err(RecordMismatch::Field { index: 1, .. }) = check_record(&module, &renamed) else {
            panic!("a renamed field is found");
        };
        let mut short = good.clone();
        short.fields.pop();
        let error = check_record(&module, &short).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Pair's field 1 is b at byte 12 (4 bytes) in WGSL and nothing in Rust"
        );
        let mut bigger = good.clone();
        bigger.size = 32;
        assert!(matches!(
            check_record(&module, &bigger),
            Err(RecordMismatch::Size {
                rust: 32,
                shader: 16,
                ..
            })
        ));
        let elsewhere = RecordLayout {
            wgsl: "Other".into(),
            ..good
        };
        assert_eq!(
            check_record(&module, &elsewhere),
            Err(RecordMismatch::NoStruct {
                wgsl: "Other".into()
            })
        );
    }
}
