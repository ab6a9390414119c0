//! The model every room past a file's parser reads: frames of packed
//! vertices, welded corners and triangles, animations, bounds.

use std::fmt;

use super::animations::{Animation, group};
use super::frame::{Bounds, Corner, Frame, PackedVertex, WideVertex};

/// What a vertex of a frame is on the GPU: the word the contract uploads
/// verbatim and the pose decodes. Quake I's and Quake II's models both have
/// the 4-byte word; Quake III's 16-bit positions and two-angle normals
/// have the 8-byte one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameWord {
    /// `{u8 x, y, z, normal index}`: [`PackedVertex`], 4 bytes.
    Packed4,
    /// `{i16 x, y, z, u16 angles}`: [`WideVertex`], 8 bytes.
    Wide8,
}

impl FrameWord {
    /// Bytes a vertex takes in a frame.
    pub const fn bytes(self) -> usize {
        match self {
            FrameWord::Packed4 => 4,
            FrameWord::Wide8 => 8,
        }
    }
}

/// Every frame's vertices, frame-major, in the model's one word.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Words {
    Packed4(Vec<PackedVertex>),
    Wide8(Vec<WideVertex>),
}

impl Words {
    fn len(&self) -> usize {
        match self {
            Words::Packed4(v) => v.len(),
            Words::Wide8(v) => v.len(),
        }
    }
}

/// One frame's vertices in the model's word, with the frame's header: what
/// decoding a frame reads ([`KeyframeModel::frame_data`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum FrameData<'a> {
    /// A frame of [`FrameWord::Packed4`] vertices.
    Packed4(&'a Frame, &'a [PackedVertex]),
    /// A frame of [`FrameWord::Wide8`] vertices.
    Wide8(&'a Frame, &'a [WideVertex]),
}

impl<'a> FrameData<'a> {
    /// The word the vertices are in.
    pub fn word(&self) -> FrameWord {
        match self {
            FrameData::Packed4(..) => FrameWord::Packed4,
            FrameData::Wide8(..) => FrameWord::Wide8,
        }
    }

    /// The frame's header (scale, translate, name).
    pub fn frame(&self) -> &'a Frame {
        match self {
            FrameData::Packed4(f, _) | FrameData::Wide8(f, _) => f,
        }
    }

    /// The 4-byte vertices, as the file stores them; empty for a frame of
    /// [`FrameWord::Wide8`] vertices.
    pub fn packed(&self) -> &'a [PackedVertex] {
        match self {
            FrameData::Packed4(_, v) => v,
            FrameData::Wide8(..) => &[],
        }
    }

    /// The 8-byte vertices, as the file stores them; empty for a frame of
    /// [`FrameWord::Packed4`] vertices.
    pub fn wide(&self) -> &'a [WideVertex] {
        match self {
            FrameData::Wide8(_, v) => v,
            FrameData::Packed4(..) => &[],
        }
    }

    /// Appends the frame's vertices as the GPU reads them to `out`:
    /// one little-endian `u32` a vertex for 4-byte words, two for 8-byte
    /// ones ([`WideVertex::words`]).
    pub fn push_words(&self, out: &mut Vec<u32>) {
        match self {
            FrameData::Packed4(_, v) => {
                out.extend(v.iter().map(|v| u32::from_le_bytes(bytemuck::cast(*v))))
            }
            FrameData::Wide8(_, v) => out.extend(v.iter().flat_map(WideVertex::words)),
        }
    }

    /// How many vertices.
    pub fn len(&self) -> usize {
        match self {
            FrameData::Packed4(_, v) => v.len(),
            FrameData::Wide8(_, v) => v.len(),
        }
    }

    /// Whether there are none (never, in a [`KeyframeModel`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex `i` in model units (`None` past the frame's vertices).
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        match self {
            FrameData::Packed4(f, v) => v.get(i).map(|v| v.decode_position(f)),
            FrameData::Wide8(f, v) => v.get(i).map(|v| v.decode_position(f)),
        }
    }

    /// Vertex `i`'s unit normal (`None` past the frame's vertices).
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        match self {
            FrameData::Packed4(_, v) => v.get(i).map(PackedVertex::normal),
            FrameData::Wide8(_, v) => v.get(i).map(WideVertex::normal),
        }
    }

    /// Every vertex in model units, in order.
    pub fn positions(&self) -> Vec<[f32; 3]> {
        match self {
            FrameData::Packed4(f, v) => v.iter().map(|v| v.decode_position(f)).collect(),
            FrameData::Wide8(f, v) => v.iter().map(|v| v.decode_position(f)).collect(),
        }
    }

    /// Every vertex's unit normal, in order.
    pub fn normals(&self) -> Vec<[f32; 3]> {
        match self {
            FrameData::Packed4(_, v) => v.iter().map(PackedVertex::normal).collect(),
            FrameData::Wide8(_, v) => v.iter().map(WideVertex::normal).collect(),
        }
    }
}

/// A keyframe model, whatever file (or code) it came from: what meshes,
/// levels of detail, the CPU reference, the GPU contract, the renderer and
/// the glTF export read. An [`Md2Model`](crate::Md2Model) holds one (and
/// derefs to it); so can any other keyframe format, converted into it
/// ([`KeyframeModel::from_parts`]), and every path past the parser then
/// works unchanged.
///
/// - every frame: a [`Frame`] (scale, translate, name) and its
///   [`vertex_count`](Self::vertex_count) vertices, frame-major, all of one
///   [`FrameWord`]: packed 4-byte ones ([`from_parts`](Self::from_parts))
///   or wide 8-byte ones ([`KeyframeParts::wide_vertices`]);
/// - the welded corners (vertex and texture coordinate) and the triangles
///   over them, three corner indices each, wound as Quake's files wind them:
///   clockwise seen from outside;
/// - the frames grouped into named animations;
/// - the skin size the texture coordinates were made for.
///
/// Fields are private so that a model is always valid: every index in
/// range, every frame complete, every scale finite.
///
/// ```
/// use md2_wgpu::model::{KeyframeModel, KeyframeParts};
/// use md2_wgpu::model::{Corner, Frame, PackedVertex};
///
/// // A triangle that grows over two frames, built in code.
/// let at = |x: u8, y: u8| PackedVertex { position: [x, y, 0], normal_index: 5 };
/// let model = KeyframeModel::from_parts(KeyframeParts {
///     frames: vec![
///         Frame::new("grow1", [1.0; 3], [0.0; 3]),
///         Frame::new("grow2", [2.0; 3], [0.0; 3]),
///     ],
///     vertices: vec![at(0, 0), at(10, 0), at(0, 10), at(0, 0), at(10, 0), at(0, 10)],
///     corners: vec![
///         Corner { xyz: 0, uv: [0.0, 0.0] },
///         Corner { xyz: 1, uv: [1.0, 0.0] },
///         Corner { xyz: 2, uv: [0.0, 1.0] },
///     ],
///     indices: vec![0, 2, 1],
///     skin_size: (8, 8),
///     animations: None,
///     ..KeyframeParts::default()
/// })?;
/// assert_eq!(model.frame_count(), 2);
/// assert_eq!(model.animations()[0].name, "grow");
/// assert_eq!(model.frame_bounds(1).max, [20.0, 20.0, 0.0]);
/// # Ok::<(), md2_wgpu::model::KeyframeError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KeyframeModel {
    pub(crate) vertex_count: usize,
    pub(crate) frames: Vec<Frame>,
    /// All frames' vertices, frame-major: `[frame * vertex_count + i]`.
    pub(crate) words: Words,
    pub(crate) corners: Vec<Corner>,
    pub(crate) indices: Vec<u32>,
    pub(crate) skin_size: (u32, u32),
    pub(crate) animations: Vec<Animation>,
}

impl AsRef<KeyframeModel> for KeyframeModel {
    fn as_ref(&self) -> &KeyframeModel {
        self
    }
}

/// Everything that makes a [`KeyframeModel`]; see
/// [`KeyframeModel::from_parts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyframeParts {
    /// Frame headers, one per frame.
    pub frames: Vec<Frame>,
    /// Every frame's vertices, frame-major: as many per frame.
    pub vertices: Vec<PackedVertex>,
    /// Every frame's 8-byte vertices, frame-major, in place of
    /// [`vertices`](Self::vertices) for a model of [`FrameWord::Wide8`]
    /// (Quake III's): give one or the other.
    pub wide_vertices: Vec<WideVertex>,
    /// The welded corners the triangles use.
    pub corners: Vec<Corner>,
    /// The triangles: three indices into `corners` each, clockwise seen
    /// from outside (Quake's winding; the renderer draws mirrored instances
    /// with the other).
    pub indices: Vec<u32>,
    /// The skin size the texture coordinates were made for (texels).
    pub skin_size: (u32, u32),
    /// The animations; `None` groups the frames by name, as MD2 frames
    /// are grouped ([`animations`](crate::model::animations)).
    pub animations: Option<Vec<Animation>>,
}

/// Why parts do not make a [`KeyframeModel`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyframeError {
    /// A model needs at least one frame, one vertex and one triangle.
    Empty {
        /// What there is none of: `"frames"`, `"vertices"` or `"triangles"`.
        what: &'static str,
    },
    /// The vertices do not divide into the frames.
    VerticesPerFrame {
        /// The vertices given.
        vertices: usize,
        /// The frames given.
        frames: usize,
    },
    /// The triangle list is not whole triangles.
    PartialTriangle {
        /// The indices given.
        indices: usize,
    },
    /// A triangle names a corner past the corners.
    CornerOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The corner index it names.
        corner: u32,
        /// How many corners there are.
        corners: usize,
    },
    /// A corner names a vertex past a frame's vertices.
    VertexOutOfRange {
        /// The corner.
        corner: usize,
        /// The vertex it names.
        vertex: u32,
        /// Vertices per frame.
        vertices: usize,
    },
    /// A frame's scale or translate, or a corner's texture coordinate, is
    /// not finite.
    NotFinite {
        /// `"frame"` or `"corner"`.
        what: &'static str,
        /// Which one.
        index: usize,
    },
    /// The skin size is 0 on a side.
    SkinSize {
        /// The size given.
        size: (u32, u32),
    },
    /// An animation is empty, runs past the frames, shares its name with
    /// another, or the animations leave a frame out or take one twice.
    Animations {
        /// What is wrong.
        reason: String,
    },
    /// Both words were given: a model's vertices are
    /// [`KeyframeParts::vertices`] or [`KeyframeParts::wide_vertices`].
    TwoWords {
        /// The 4-byte vertices given.
        packed: usize,
        /// The 8-byte vertices given.
        wide: usize,
    },
    /// More than the GPU contract addresses: frames, vertices or corners
    /// past `u32` (frames past [`MAX_GPU_FRAMES`](crate::contract::MAX_GPU_FRAMES)
    /// are refused where the model is uploaded).
    TooLarge {
        /// What is too many.
        what: &'static str,
        /// How many.
        count: usize,
    },
}

impl fmt::Display for KeyframeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyframeError::Empty { what } => write!(f, "a model needs {what}: it has none"),
            KeyframeError::VerticesPerFrame { vertices, frames } => {
                write!(f, "{vertices} vertices do not divide into {frames} frames")
            }
            KeyframeError::PartialTriangle { indices } => {
                write!(f, "{indices} indices are not whole triangles")
            }
            KeyframeError::CornerOutOfRange {
                triangle,
                corner,
                corners,
            } => write!(
                f,
                "triangle {triangle} names corner {corner}, but there are {corners}"
            ),
            KeyframeError::VertexOutOfRange {
                corner,
                vertex,
                vertices,
            } => write!(
                f,
                "corner {corner} names vertex {vertex}, but a frame has {vertices}"
            ),
            KeyframeError::NotFinite { what, index } => {
                write!(f, "{what} {index} has a value that is not finite")
            }
            KeyframeError::SkinSize { size } => write!(f, "skin size {size:?} has a side of 0"),
            KeyframeError::Animations { reason } => write!(f, "animations: {reason}"),
            KeyframeError::TooLarge { what, count } => write!(f, "{count} {what} are too many"),
            KeyframeError::TwoWords { packed, wide } => write!(
                f,
                "{packed} 4-byte and {wide} 8-byte vertices were given: a model has one word"
            ),
        }
    }
}

impl std::error::Error for KeyframeError {}

impl KeyframeParts {
    /// Every index in range, every frame complete, every value finite, every
    /// count within a GPU index (the animations are checked apart), for
    /// `vertices` vertices in all (the parts' own, or wide ones given
    /// beside them).
    fn check(&self, vertices: usize) -> Result<(), KeyframeError> {
        for (what, empty) in [
            ("frames", self.frames.is_empty()),
            ("vertices", vertices == 0),
            ("triangles", self.indices.is_empty()),
        ] {
            if empty {
                return Err(KeyframeError::Empty { what });
            }
        }
        if !vertices.is_multiple_of(self.frames.len()) {
            return Err(KeyframeError::VerticesPerFrame {
                vertices,
                frames: self.frames.len(),
            });
        }
        for (what, count) in [
            ("frames", self.frames.len()),
            ("vertices", vertices),
            ("corners", self.corners.len()),
            ("indices", self.indices.len()),
        ] {
            if u32::try_from(count).is_err() {
                return Err(KeyframeError::TooLarge { what, count });
            }
        }
        let vertex_count = vertices / self.frames.len();
        if !self.indices.len().is_multiple_of(3) {
            return Err(KeyframeError::PartialTriangle {
                indices: self.indices.len(),
            });
        }
        if let Some(i) = self
            .indices
            .iter()
            .position(|&c| c as usize >= self.corners.len())
        {
            return Err(KeyframeError::CornerOutOfRange {
                triangle: i / 3,
                corner: self.indices[i],
                corners: self.corners.len(),
            });
        }
        for (i, c) in self.corners.iter().enumerate() {
            if c.xyz as usize >= vertex_count {
                return Err(KeyframeError::VertexOutOfRange {
                    corner: i,
                    vertex: c.xyz,
                    vertices: vertex_count,
                });
            }
            if !c.uv.iter().all(|x| x.is_finite()) {
                return Err(KeyframeError::NotFinite {
                    what: "corner",
                    index: i,
                });
            }
        }
        if let Some(i) = self
            .frames
            .iter()
            .position(|f| !f.scale.iter().chain(&f.translate).all(|x| x.is_finite()))
        {
            return Err(KeyframeError::NotFinite {
                what: "frame",
                index: i,
            });
        }
        if self.skin_size.0 == 0 || self.skin_size.1 == 0 {
            return Err(KeyframeError::SkinSize {
                size: self.skin_size,
            });
        }
        Ok(())
    }
}

impl KeyframeModel {
    /// A model from its parts, every index and value checked. Nothing is
    /// allocated past the parts themselves.
    ///
    /// The vertices are `parts.vertices` (4-byte words) or
    /// `parts.wide_vertices` (8-byte words), whichever is given.
    ///
    /// ```
    /// use md2_wgpu::model::{Corner, Frame, FrameWord, KeyframeModel, KeyframeParts, WideVertex};
    ///
    /// // A triangle in sixty-fourths of a unit, its normals straight up.
    /// let at = |x: i16, y: i16| WideVertex { position: [x, y, -64], normal: 0 };
    /// let model = KeyframeModel::from_parts(KeyframeParts {
    ///     frames: vec![Frame::new("still", [1.0 / 64.0; 3], [0.0; 3])],
    ///     wide_vertices: vec![at(0, 0), at(640, 0), at(0, 640)],
    ///     corners: (0..3).map(|xyz| Corner { xyz, uv: [0.0, 0.0] }).collect(),
    ///     indices: vec![0, 2, 1],
    ///     skin_size: (1, 1),
    ///     ..KeyframeParts::default()
    /// })?;
    /// assert_eq!(model.frame_word(), FrameWord::Wide8);
    /// assert_eq!(model.frame_bounds(0).max, [10.0, 10.0, -1.0]);
    /// # Ok::<(), md2_wgpu::model::KeyframeError>(())
    /// ```
    pub fn from_parts(mut parts: KeyframeParts) -> Result<KeyframeModel, KeyframeError> {
        let packed = std::mem::take(&mut parts.vertices);
        let wide = std::mem::take(&mut parts.wide_vertices);
        let words = match (packed.is_empty(), wide.is_empty()) {
            (false, false) => {
                return Err(KeyframeError::TwoWords {
                    packed: packed.len(),
                    wide: wide.len(),
                });
            }
            (true, false) => Words::Wide8(wide),
            _ => Words::Packed4(packed),
        };
        KeyframeModel::checked(parts, words)
    }

    fn checked(parts: KeyframeParts, words: Words) -> Result<KeyframeModel, KeyframeError> {
        parts.check(words.len())?;
        let animations = match parts.animations {
            Some(given) => {
                check_animations(&given, parts.frames.len())?;
                given
            }
            None => group(parts.frames.iter().map(Frame::name)).0,
        };
        Ok(KeyframeModel::put_together(
            parts.frames,
            words,
            parts.corners,
            parts.indices,
            parts.skin_size,
            animations,
        ))
    }

    /// A model from parts a parser has already checked (every index in
    /// range, every frame complete, every scale finite).
    pub(crate) fn checked_by_caller(
        frames: Vec<Frame>,
        vertices: Vec<PackedVertex>,
        corners: Vec<Corner>,
        indices: Vec<u32>,
        skin_size: (u32, u32),
        animations: Vec<Animation>,
    ) -> KeyframeModel {
        let words = Words::Packed4(vertices);
        KeyframeModel::put_together(frames, words, corners, indices, skin_size, animations)
    }

    /// The one place the fields are put together.
    fn put_together(
        frames: Vec<Frame>,
        words: Words,
        corners: Vec<Corner>,
        indices: Vec<u32>,
        skin_size: (u32, u32),
        animations: Vec<Animation>,
    ) -> KeyframeModel {
        KeyframeModel {
            vertex_count: words.len() / frames.len().max(1),
            frames,
            words,
            corners,
            indices,
            skin_size,
            animations,
        }
    }

    /// How many vertices each frame has.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// How many frames there are (at least 1).
    pub fn frame_count(&self) -> u32 {
        // `from_parts` refuses more than u32 counts.
        self.frames.len() as u32
    }

    /// The frame headers (scale, translate, name).
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// What each vertex of a frame is on the GPU.
    pub fn frame_word(&self) -> FrameWord {
        match self.words {
            Words::Packed4(_) => FrameWord::Packed4,
            Words::Wide8(_) => FrameWord::Wide8,
        }
    }

    /// Every frame's packed vertices, frame-major: the bytes the GPU
    /// receives unchanged. Empty for a model of [`FrameWord::Wide8`]
    /// vertices ([`frame_data`](Self::frame_data) reads either word).
    pub fn vertices(&self) -> &[PackedVertex] {
        match &self.words {
            Words::Packed4(v) => v,
            Words::Wide8(_) => &[],
        }
    }

    /// One frame's header and vertices, whatever the word. Panics if
    /// `frame` is out of range, like slice indexing; see
    /// [`frame_count`](Self::frame_count).
    pub fn frame_data(&self, frame: u32) -> FrameData<'_> {
        let n = self.vertex_count;
        let f = frame as usize;
        let header = &self.frames[f];
        match &self.words {
            Words::Packed4(v) => FrameData::Packed4(header, &v[f * n..(f + 1) * n]),
            Words::Wide8(v) => FrameData::Wide8(header, &v[f * n..(f + 1) * n]),
        }
    }

    /// The welded corners, in order of first use by the triangles.
    pub fn corners(&self) -> &[Corner] {
        &self.corners
    }

    /// The triangles: three indices into [`corners`](Self::corners) each,
    /// in the source's order and winding (clockwise seen from outside).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// How many triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The skin size the texture coordinates were made for, in texels.
    pub fn skin_size(&self) -> (u32, u32) {
        self.skin_size
    }

    /// The frames grouped into named animations, in frame order.
    pub fn animations(&self) -> &[Animation] {
        &self.animations
    }

    /// The animation with this name, if there is one.
    pub fn animation(&self, name: &str) -> Option<&Animation> {
        self.animations.iter().find(|a| a.name == name)
    }

    /// Every frame's vertices as the GPU reads them, frame after frame
    /// ([`FrameData::push_words`]): what `ModelData` uploads and the saved
    /// levels' fingerprint hashes.
    pub(crate) fn all_words(&self) -> Vec<u32> {
        let per_vertex = self.frame_word().bytes() / 4;
        let mut words = Vec::with_capacity(per_vertex * self.frames.len() * self.vertex_count);
        for f in 0..self.frame_count() {
            self.frame_data(f).push_words(&mut words);
        }
        words
    }

    /// The box one frame's vertices occupy, in model units. Panics if
    /// `frame` is out of range, like [`frame_data`](Self::frame_data).
    pub fn frame_bounds(&self, frame: u32) -> Bounds {
        match self.frame_data(frame) {
            FrameData::Packed4(f, v) => v
                .iter()
                .fold(Bounds::EMPTY, |b, v| b.with_point(v.decode_position(f))),
            FrameData::Wide8(f, v) => v
                .iter()
                .fold(Bounds::EMPTY, |b, v| b.with_point(v.decode_position(f))),
        }
    }

    /// The box around every frame: what a camera frames to show the model
    /// whatever it does.
    pub fn bounds(&self) -> Bounds {
        (0..self.frame_count()).fold(Bounds::EMPTY, |b, f| b.union(self.frame_bounds(f)))
    }
}

/// Animations given with the parts must cover the frames in order, each
/// once, none empty, no two with one name (clips and the viewer find an
/// animation by its name).
fn check_animations(animations: &[Animation], frames: usize) -> Result<(), KeyframeError> {
    let mut next = 0u32;
    let mut names = std::collections::HashSet::with_capacity(animations.len());
    for a in animations {
        if !names.insert(a.name.as_str()) {
            return Err(KeyframeError::Animations {
                reason: format!("two animations are named {:?}", a.name),
            });
        }
        if a.first != next || a.last < a.first {
            return Err(KeyframeError::Animations {
                reason: format!(
                    "{:?} covers frames {} to {}; the next animation must start at frame {next}",
                    a.name, a.first, a.last
                ),
            });
        }
        next = a.last + 1;
    }
    if next as usize != frames {
        return Err(KeyframeError::Animations {
            reason: format!("the animations cover {next} frames of {frames}"),
        });
    }
    Ok(())
}
