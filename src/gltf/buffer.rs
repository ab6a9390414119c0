//! The GLB's one binary buffer and the JSON objects that describe it:
//! buffer views and accessors, aligned as glTF requires.

use std::convert::Infallible;

use ::gltf::json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::{Stride, Target, View};
use json::validation::{Checked, USize64};
use json::{Accessor, Index, Value};

/// The glTF document being built and its binary chunk.
pub(super) struct Builder {
    pub root: json::Root,
    pub bin: Vec<u8>,
}

/// What an accessor reads, beyond its view: see [`Builder::accessor`].
pub(super) struct AccessorSpec {
    pub view: Option<Index<View>>,
    /// Byte offset inside the view: a multiple of the component size (and,
    /// for vertex data, of 4), which every caller's layout gives.
    pub offset: usize,
    pub count: usize,
    pub component: ComponentType,
    pub kind: Type,
    pub normalized: bool,
    pub min: Option<Value>,
    pub max: Option<Value>,
    pub sparse: Option<json::accessor::sparse::Sparse>,
}

impl AccessorSpec {
    /// A dense accessor of `count` elements at `offset` in `view`.
    pub fn dense(
        view: Index<View>,
        offset: usize,
        count: usize,
        component: ComponentType,
        kind: Type,
    ) -> Self {
        AccessorSpec {
            view: Some(view),
            offset,
            count,
            component,
            kind,
            normalized: false,
            min: None,
            max: None,
            sparse: None,
        }
    }

    /// With these bounds.
    pub fn bounds(self, min: Value, max: Value) -> Self {
        AccessorSpec {
            min: Some(min),
            max: Some(max),
            ..self
        }
    }
}

impl Builder {
    /// An empty document with room for `bin_capacity` bytes of data.
    pub fn new(asset: json::Asset, bin_capacity: usize) -> Self {
        Builder {
            root: json::Root {
                asset,
                ..Default::default()
            },
            bin: Vec::with_capacity(bin_capacity),
        }
    }

    /// A buffer view over the bytes `write` appends, starting on a 4-byte
    /// boundary (glTF wants vertex data there, and every other kind of data
    /// is content with it). `stride` is for vertex data that several
    /// accessors share; `target` says what the view holds, as the validator
    /// likes to be told.
    pub fn view(
        &mut self,
        stride: Option<usize>,
        target: Option<Target>,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Index<View> {
        let written = self.view_with(stride, target, |bin| {
            write(bin);
            Ok::<(), Infallible>(())
        });
        match written {
            Ok(view) => view,
            Err(never) => match never {},
        }
    }

    /// [`Builder::view`] with a writer that can fail; a failure leaves no
    /// view behind (the export is abandoned anyway).
    pub fn view_with<E>(
        &mut self,
        stride: Option<usize>,
        target: Option<Target>,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<Index<View>, E> {
        pad_to_four(&mut self.bin);
        let start = self.bin.len();
        write(&mut self.bin)?;
        let length = self.bin.len() - start;
        Ok(self.root.push(View {
            buffer: Index::new(0),
            byte_length: USize64::from(length),
            byte_offset: (start > 0).then(|| USize64::from(start)),
            byte_stride: stride.map(Stride),
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        }))
    }

    /// An accessor as `spec` says.
    pub fn accessor(&mut self, spec: AccessorSpec) -> Index<Accessor> {
        self.root.push(Accessor {
            buffer_view: spec.view,
            byte_offset: (spec.offset > 0).then(|| USize64::from(spec.offset)),
            count: USize64::from(spec.count),
            component_type: Checked::Valid(GenericComponentType(spec.component)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(spec.kind),
            min: spec.min,
            max: spec.max,
            name: None,
            normalized: spec.normalized,
            sparse: spec.sparse,
        })
    }

    /// A triangle list's indices (`count` of them, 16-bit where `short`),
    /// each triangle's winding reversed: Quake's triangles (MD2's and
    /// MD3's) run clockwise seen from outside, glTF's front faces
    /// counter-clockwise.
    pub fn reversed_triangles(
        &mut self,
        triangles: impl Iterator<Item = [u32; 3]>,
        count: usize,
        short: bool,
    ) -> Index<Accessor> {
        let view = self.view(None, Some(Target::ElementArrayBuffer), |bin| {
            for t in triangles {
                for i in [t[0], t[2], t[1]] {
                    if short {
                        bin.extend_from_slice(&(i as u16).to_le_bytes());
                    } else {
                        bin.extend_from_slice(&i.to_le_bytes());
                    }
                }
            }
        });
        let component = if short {
            ComponentType::U16
        } else {
            ComponentType::U32
        };
        self.accessor(AccessorSpec::dense(view, 0, count, component, Type::Scalar))
    }

    /// The one buffer, once every view is in: its length padded to 4 bytes,
    /// as the GLB's BIN chunk will be.
    pub fn finish_buffer(&mut self) {
        pad_to_four(&mut self.bin);
        let length = self.bin.len();
        self.root.push(json::Buffer {
            byte_length: USize64::from(length),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
}

/// Zeros up to the next multiple of 4 bytes.
pub(super) fn pad_to_four(bin: &mut Vec<u8>) {
    bin.resize(bin.len().next_multiple_of(4), 0);
}

/// Appends little-endian `f32`s.
pub(super) fn put_f32s(bin: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends little-endian `i16`s.
pub(super) fn put_i16s(bin: &mut Vec<u8>, values: &[i16]) {
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
}

/// Bounds as glTF writes them: each `f32` as the `f64` it is exactly, so
/// the validator, which reads the data as doubles, finds the very same
/// numbers.
pub(super) fn float_bounds(values: &[f32]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(f64::from(v))).collect())
}

/// Integer bounds, written as integers.
pub(super) fn int_bounds(values: &[i32]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(v)).collect())
}
