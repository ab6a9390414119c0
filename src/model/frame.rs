//! A keyframe's parts, whatever file they came from: the packed 4-byte
//! vertex (Quake I's and Quake II's), the wide 8-byte one (Quake III's), a
//! frame's header (how its packed
//! vertices map to model units, and its name), a welded corner, and bounds.

use super::anorms::normal_from_index;
use super::lat_long::normal_from_lat_long;

/// One vertex of one frame, exactly the file's 4 bytes: a position quantised
/// to a byte per axis and an index into [`ANORMS`](crate::model::ANORMS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct PackedVertex {
    /// x, y, z in the frame's quantised grid.
    pub position: [u8; 3],
    /// Index into the normal table (≥ 162 is read as straight up).
    pub normal_index: u8,
}

impl PackedVertex {
    /// The vertex in model units: position × scale + translate.
    #[inline]
    pub fn decode_position(&self, frame: &Frame) -> [f32; 3] {
        frame.place(self.position.map(f32::from))
    }

    /// The unit normal from the table.
    #[inline]
    pub fn normal(&self) -> [f32; 3] {
        normal_from_index(self.normal_index)
    }
}

/// One vertex of one frame, Quake III's 8 bytes: a position of three
/// signed 16-bit integers (an MD3's are sixty-fourths of a unit: its
/// frames' scale is 1/64) and the normal as two angles of a byte each (low
/// byte the longitude, high byte the latitude; [`normal_from_lat_long`]).
/// On the GPU it is two little-endian `u32`s, `x | y << 16` and
/// `z | normal << 16`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct WideVertex {
    /// x, y, z in the frame's grid.
    pub position: [i16; 3],
    /// The normal's longitude (low byte) and latitude (high byte).
    pub normal: u16,
}

impl WideVertex {
    /// The vertex in model units: position × scale + translate.
    #[inline]
    pub fn decode_position(&self, frame: &Frame) -> [f32; 3] {
        frame.place(self.position.map(f32::from))
    }

    /// The unit normal the two angles give.
    #[inline]
    pub fn normal(&self) -> [f32; 3] {
        normal_from_lat_long(self.normal)
    }

    /// The two `u32`s the GPU reads: `x | y << 16`, `z | normal << 16`.
    #[inline]
    pub fn words(&self) -> [u32; 2] {
        let [x, y, z] = self.position.map(|c| u32::from(c as u16));
        [x | y << 16, z | u32::from(self.normal) << 16]
    }
}

/// A keyframe's header: how its packed vertices map to model units, and its
/// name. The vertices themselves are in
/// [`KeyframeModel::frame_data`](super::KeyframeModel::frame_data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Multiplies each packed coordinate.
    pub scale: [f32; 3],
    /// Added after scaling.
    pub translate: [f32; 3],
    /// The name's 16 bytes as stored, NUL padding (and whatever an old tool
    /// left after the NUL) included, so a rewrite is exact.
    pub name_bytes: [u8; 16],
}

impl Frame {
    /// A frame header with the given name (truncated to 15 bytes).
    pub fn new(name: &str, scale: [f32; 3], translate: [f32; 3]) -> Self {
        Frame {
            scale,
            translate,
            name_bytes: fixed_name(name),
        }
    }

    /// The name up to the first NUL (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> String {
        name_until_nul(&self.name_bytes)
    }

    /// A point of the frame's grid in model units: `grid × scale +
    /// translate` per component, multiply then add, in `f32` (the CPU
    /// reference's arithmetic).
    #[inline]
    pub(crate) fn place(&self, grid: [f32; 3]) -> [f32; 3] {
        [
            grid[0] * self.scale[0] + self.translate[0],
            grid[1] * self.scale[1] + self.translate[1],
            grid[2] * self.scale[2] + self.translate[2],
        ]
    }
}

/// A name as a NUL-padded fixed-size field, truncated so one NUL remains.
pub(crate) fn fixed_name<const N: usize>(name: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let bytes = name.as_bytes();
    let n = bytes.len().min(N - 1);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

pub(crate) fn name_until_nul(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// A welded corner: one (vertex, texture coordinate) pair the triangles
/// use, as the vertex buffer holds it (12 bytes).
///
/// A file may index positions and texture coordinates separately (MD2's
/// `num_st` differs from `num_xyz`; Quake I's seam doubles some); a GPU
/// index buffer has one index per corner, so every distinct pair becomes
/// one `Corner`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Corner {
    /// The vertex index into each frame's packed vertices.
    pub xyz: u32,
    /// The texture coordinate on the skin, 0 to 1 across it (MD2's is
    /// `(st + 0.5) / skin size`: the centre of the texel, as Quake II's GL
    /// commands have it, so triangles and GL commands give the same
    /// picture).
    pub uv: [f32; 2],
}

/// An axis-aligned box in model units (Quake axes: X forward, Y left, Z
/// up): what a frame, or every frame, of a model occupies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The smallest coordinate on each axis.
    pub min: [f32; 3],
    /// The largest coordinate on each axis.
    pub max: [f32; 3],
}

impl Bounds {
    /// The box that holds nothing: every union with it is the other box.
    pub const EMPTY: Bounds = Bounds {
        min: [f32::INFINITY; 3],
        max: [f32::NEG_INFINITY; 3],
    };

    /// The box around `points`; [`Bounds::EMPTY`] for none.
    pub fn around<'a>(points: impl IntoIterator<Item = &'a [f32; 3]>) -> Bounds {
        points
            .into_iter()
            .fold(Bounds::EMPTY, |b, p| b.with_point(*p))
    }

    /// This box grown to hold `p`.
    pub fn with_point(self, p: [f32; 3]) -> Bounds {
        Bounds {
            min: [0, 1, 2].map(|k| self.min[k].min(p[k])),
            max: [0, 1, 2].map(|k| self.max[k].max(p[k])),
        }
    }

    /// The box around both.
    pub fn union(self, other: Bounds) -> Bounds {
        Bounds {
            min: [0, 1, 2].map(|k| self.min[k].min(other.min[k])),
            max: [0, 1, 2].map(|k| self.max[k].max(other.max[k])),
        }
    }

    /// The middle of the box.
    pub fn center(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.min[k] + self.max[k]) * 0.5)
    }

    /// The box as (min, max), as the crate gave bounds until 0.2.
    pub fn to_pair(self) -> ([f32; 3], [f32; 3]) {
        (self.min, self.max)
    }
}

impl From<([f32; 3], [f32; 3])> for Bounds {
    fn from((min, max): ([f32; 3], [f32; 3])) -> Bounds {
        Bounds { min, max }
    }
}
