//! What an export wrote, and how far quantisation moved it.

/// A GLB and what is in it: what [`to_glb`](super::to_glb) returns.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfExport {
    /// The binary glTF file.
    pub glb: Vec<u8>,
    /// What it holds.
    pub report: GltfReport,
}

/// What an export holds.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GltfReport {
    /// Vertices of the glTF mesh: the welded corners.
    pub corners: usize,
    /// Triangles.
    pub triangles: usize,
    /// Morph targets: one per frame.
    pub morph_targets: u32,
    /// Animations: one per clip.
    pub animations: usize,
    /// Materials: one per skin, or one plain one.
    pub materials: usize,
    /// Bytes of the JSON chunk, padding included.
    pub json_bytes: usize,
    /// Bytes of the binary chunk, padding included.
    pub bin_bytes: usize,
    /// Where quantised: the grid and the largest errors it made.
    pub quantization: Option<QuantizationReport>,
}

/// How far quantisation moved the frames, measured over every corner of
/// every frame against the exact (float) export.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct QuantizationReport {
    /// The grid step, in output units: the node's uniform scale.
    pub step: f32,
    /// The grid's origin, in output units: the node's translation.
    pub centre: [f32; 3],
    /// The largest distance between a position as stored (base plus delta,
    /// on the grid) and the frame's exact position, in output units: at
    /// most half a step per axis. A pose between two frames is a blend of
    /// two such positions, so it is off by no more.
    pub max_position_error: f32,
    /// The largest length of the difference between a normal as stored
    /// (base plus delta) and the frame's table normal.
    pub max_normal_error: f32,
    /// Targets whose normal deltas did not fit a normalised `SHORT` (some
    /// component beyond ±1: a normal turned by more than about 60°, as a
    /// body falling over turns them) and are stored as floats.
    pub float_normal_targets: u32,
}
