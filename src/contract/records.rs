//! The `#[repr(C)]` records the vertex stage reads, each the mirror of a
//! WGSL struct in `shaders/` (a naga test holds every size and offset
//! equal): the view, the model's counts, and the two per-instance records.

/// `view.wgsl`'s `Md2View`: the camera, light and shadow plane of one view.
/// [`Camera::uniform`](crate::Camera::uniform) fills it.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ViewUniform {
    /// World to clip space (column-major), without jitter.
    pub view_proj: [[f32; 4]; 4],
    /// The previous frame's `view_proj`, for motion vectors.
    pub previous_view_proj: [[f32; 4]; 4],
    /// xy: the jitter in clip-space units, added after projecting.
    pub jitter: [f32; 4],
    /// World to world: a point projected along the light onto the shadow
    /// plane.
    pub shadow_proj: [[f32; 4]; 4],
    /// xyz: the unit vector from a surface towards the light.
    pub towards_light: [f32; 4],
    /// rgb: the light's linear colour.
    pub light_color: [f32; 4],
    /// rgb: the ambient light.
    pub ambient: [f32; 4],
    /// The planar shadow's linear RGBA.
    pub shadow_color: [f32; 4],
    /// Dotted with a world point (w = 1): its depth along the view, larger
    /// farther (what back-to-front sorting sorts by).
    pub depth_row: [f32; 4],
    /// x: `MD2_VIEW_*` bits.
    pub flags: [u32; 4],
    /// x: pixels per world unit at clip-space w = 1 over the largest error
    /// in pixels a level of detail may make (0: full detail only).
    pub level: [f32; 4],
}

/// `pose.wgsl`'s `Md2ModelInfo`: the uniform at binding 0 of the pose's
/// group ([`PoseBindings::model`](crate::contract::PoseBindings::model)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ModelInfo {
    /// Vertices per frame (`num_xyz`).
    pub num_xyz: u32,
    /// Frames.
    pub num_frames: u32,
    /// `MODEL_*` bits: [`MODEL_FULLBRIGHT_MASKS`](super::MODEL_FULLBRIGHT_MASKS).
    pub flags: u32,
    /// Padding to 16 bytes, as uniforms want (named without a leading
    /// underscore or a trailing digit, which Bevy's shader composer
    /// refuses in the WGSL it imports).
    pub padding_b: u32,
}

/// The per-instance record, 80 bytes: `vertex.wgsl`'s `Md2InstanceIn` as
/// vertex attributes (instance step mode) and `crowd/types.wgsl`'s
/// `InstanceOut` as memory. [`InstanceRecord::pack`] makes one from an
/// [`Md2Instance`](crate::Md2Instance).
///
/// It travels as a vertex buffer with `step_mode: Instance` rather than a
/// storage array indexed by `instance_index`. Both read the same bytes, but
/// instance-rate attributes are fetched by the vertex-input hardware (or a
/// fetch preamble the driver schedules ahead of the shader) once per
/// instance and handed to every vertex in registers, while storage loads
/// are issued by each vertex invocation. Attributes also let one buffer
/// hold every model's instances with a plain buffer slice per draw: no
/// per-model bind group, dynamic offset or `first_instance` needed.
///
/// | bytes | field | shader location, format |
/// |---|---|---|
/// | 0..48 | `rows` | 2, 3, 4: `Float32x4` each |
/// | 48..56 | `frames` | 5: `Uint16x4` |
/// | 56..68 | `t`, `t2`, `weight` | 6: `Float32x3` |
/// | 68..72 | `skin_intensity` | 7: `Uint32` |
/// | 72..76 | `tint` | 8: `Uint32` (unpacked in the shader, `unpack4x8unorm`) |
/// | 76..80 | `effects` | 9: `Uint32` |
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct InstanceRecord {
    /// Rows of (transform × [`QUAKE_TO_Y_UP`](crate::scene::QUAKE_TO_Y_UP)), the
    /// bottom row (0, 0, 0, 1) left out.
    pub rows: [[f32; 4]; 3],
    /// Primary a, primary b, secondary a, secondary b.
    pub frames: [u16; 4],
    /// The primary pair's blend factor, in `[0, 1]`.
    pub t: f32,
    /// The secondary pair's blend factor.
    pub t2: f32,
    /// The crossfade's weight of the secondary pair.
    pub weight: f32,
    /// Low 16 bits: skin layer; high 16 bits: the tint's intensity (f16).
    pub skin_intensity: u32,
    /// Linear RGBA, unorm8.
    pub tint: [u8; 4],
    /// [`EFFECT_*`](crate::contract::EFFECT_SHELL_RGB) and [`MEMBER_*`](crate::contract::MEMBER_SHELL) bits.
    pub effects: u32,
}

/// The extra per-instance record of materials and motion, 80 bytes:
/// `vertex.wgsl`'s `Md2ExtraIn` as vertex attributes (locations 10 to 15).
/// The previous frame's transform and pose lie where an [`InstanceRecord`]
/// keeps the current ones, so the crowd's compute pass writes both with one
/// struct.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ExtraRecord {
    /// The previous frame's rows of (transform × `QUAKE_TO_Y_UP`).
    pub rows: [[f32; 4]; 3],
    /// The previous frame's frames.
    pub frames: [u16; 4],
    /// The previous frame's (t, secondary t, weight).
    pub lerp: [f32; 3],
    /// The instance's index in its batch (the member's in its crowd).
    pub index: u32,
    /// Its stable id.
    pub id: u32,
    /// Padding to the instance record's size.
    pub _pad: u32,
}
