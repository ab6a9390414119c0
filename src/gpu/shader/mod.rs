//! The GPU data contract in one place: the WGSL sources, their entry points,
//! the `#[repr(C)]` mirror of every WGSL struct the CPU writes or reads, the
//! bind-group layouts and the vertex layouts.
//!
//! A test parses both shaders with naga and holds every mirror's size and
//! field offsets equal to the WGSL struct's, so a field added on one side
//! only fails `cargo test` on any machine, GPU or not.

use std::num::NonZeroU64;

/// The pose of an MD2 vertex as WGSL: the decode of the packed frames, the
/// normal table lookup, the keyframe interpolation and crossfade
/// (`md2_pose_vertex`), and the instance transform (`md2_world_position`,
/// `md2_world_normal`), for an app's own vertex or compute stage.
///
/// It declares the model's bind group at group 1: a [`GpuModel`](crate::GpuModel)'s
/// [`bind_group`](crate::GpuModel::bind_group), whose layout is
/// [`Md2Cache::model_layout`](crate::Md2Cache::model_layout); use
/// [`pose_wgsl`] for another group index. The text's header comment lists
/// the bindings and the contract with the CPU reference. Every name it
/// declares begins with `md2_`, `Md2` or `MD2_`. The crate's own pipelines
/// compile this very text, in front of their shading.
///
/// ```
/// // A compute pass that writes a model's posed vertices into the app's
/// // buffer (the model at group 0 here).
/// let source = format!(
///     "{}\n{}",
///     md2_wgpu::pose_wgsl(0),
///     r#"
///     @group(1) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
///     @compute @workgroup_size(64)
///     fn pose(@builtin(global_invocation_id) id: vec3<u32>) {
///         if id.x >= md2_model.num_xyz { return; }
///         let v = md2_pose_vertex(id.x, vec4<u32>(0u, 1u, 0u, 0u), vec3<f32>(0.5, 0.0, 0.0), 0.0);
///         out[id.x] = vec4<f32>(v.position, 1.0);
///     }
///     "#
/// );
/// # let _ = source;
/// ```
pub const MD2_POSE_WGSL: &str = include_str!("pose.wgsl");

/// [`MD2_POSE_WGSL`] with the model's bind group at `group` instead of 1.
pub fn pose_wgsl(group: u32) -> String {
    MD2_POSE_WGSL.replace("@group(1)", &format!("@group({group})"))
}

/// The vertex stage and fragment helpers a material's code follows: the
/// pose, then md2.wgsl (every vertex entry point, `Md2Fragment`, the
/// built-in shading).
pub(crate) const MATERIAL_PRELUDE_WGSL: &str =
    concat!(include_str!("pose.wgsl"), "\n", include_str!("md2.wgsl"));

/// The renderer's shader: [`MATERIAL_PRELUDE_WGSL`] and the captures.
#[doc(hidden)]
pub const MD2_WGSL: &str = concat!(
    include_str!("pose.wgsl"),
    "\n",
    include_str!("md2.wgsl"),
    "\n",
    include_str!("capture.wgsl")
);

/// The resident crowd's compute pass: clocks, culling, compaction.
pub(crate) const CROWD_WGSL: &str = include_str!("crowd.wgsl");

/// Entry points of [`MD2_WGSL`] and [`CROWD_WGSL`].
pub(crate) mod entry {
    pub const VS_MAIN: &str = "md2_vs_main";
    pub const VS_MAIN_EXTRA: &str = "md2_vs_main_extra";
    pub const VS_SHELL: &str = "md2_vs_shell";
    pub const VS_SHELL_EXTRA: &str = "md2_vs_shell_extra";
    pub const VS_SHADOW: &str = "md2_vs_shadow";
    pub const VS_SHADOW_EXTRA: &str = "md2_vs_shadow_extra";
    pub const VS_DEPTH: &str = "md2_vs_depth";
    pub const FS_BUILTIN: &str = "md2_fs_builtin";
    pub const FS_BUILTIN_SRGB: &str = "md2_fs_builtin_srgb";
    pub const FS_BUILTIN_MOTION: &str = "md2_fs_builtin_motion";
    pub const FS_BUILTIN_MOTION_SRGB: &str = "md2_fs_builtin_motion_srgb";
    /// The entry point the crate appends to a material's code.
    pub const FS_MATERIAL: &str = "md2_fs_material";
    pub const CS_CAPTURE: &str = "md2_cs_capture";
    pub const CS_CAPTURE_MOTION: &str = "md2_cs_capture_motion";
    pub const CS_CLASSIFY: &str = "cs_classify";
    pub const CS_SCAN: &str = "cs_scan";
    pub const CS_EMIT: &str = "cs_emit";
    pub const CS_SORT_BLOCK: &str = "cs_sort_block";
    pub const CS_SORT_STEP: &str = "cs_sort_step";
    pub const CS_GATHER: &str = "cs_gather";
}

/// md2.wgsl's pipeline-overridable constant: cull per instance in the
/// fragment stage (translucent and shell pipelines of a culling renderer).
pub(crate) const CULL_IN_FRAGMENT: &str = "MD2_CULL_IN_FRAGMENT";

/// md2.wgsl's pipeline-overridable constant: the pass (`MD2_PASS_*`) a
/// pipeline of the built-in look draws.
pub(crate) const BUILTIN_PASS: &str = "MD2_BUILTIN_PASS";

/// md2.wgsl's `MD2_PASS_*`: which pass calls the fragment stage
/// (`Md2Fragment::pass_kind`).
#[doc(hidden)]
pub mod pass {
    /// Opaque instances.
    pub const OPAQUE: u32 = 0;
    /// Translucent instances.
    pub const TRANSLUCENT: u32 = 1;
    /// Powerup shells.
    pub const SHELL: u32 = 2;
    /// Planar shadows.
    pub const SHADOW: u32 = 3;
}
pub(crate) use pass::OPAQUE as PASS_OPAQUE;

/// The most frames an instance record can address (frame numbers travel as
/// `u16`; Quake II itself stopped at 512).
pub const MAX_GPU_FRAMES: u32 = 1 << 16;

/// The most skins an instance record can address (the layer travels as
/// `u16`; devices allow 256 to 2048 array layers).
pub const MAX_GPU_SKINS: u32 = 1 << 16;

/// Workgroup size of `cs_capture`, `cs_classify`, `cs_emit` and `cs_gather`.
pub(crate) const WORKGROUP_SIZE: u32 = 64;
/// Workgroup size of `cs_sort_block` and `cs_sort_step`: each sorts or
/// swaps two keys per invocation.
pub(crate) const SORT_WORKGROUP: u32 = 256;
/// Keys one workgroup of `cs_sort_block` sorts in workgroup memory; a
/// sorted bucket's keys are padded to a power of two at least this large.
pub(crate) const SORT_BLOCK: u32 = 512;
/// The word of a crowd view's work buffer that holds the crowd's
/// generation when the view last drew it (after the buckets' draw
/// arguments, five words each).
pub(crate) const SEEN: u32 = 5 * BUCKETS as u32;
/// The words after [`SEEN`] that hold the level of detail the translucent
/// bucket and the shell bucket were drawn at (the finest any of their
/// visible members needs).
pub(crate) const SORTED_LEVELS: u32 = SEEN + 1;
/// Words at the start of a crowd view's work buffer: the buckets' draw
/// arguments, [`SEEN`], [`SORTED_LEVELS`] and one unused.
pub(crate) const SUMS: u32 = SEEN + 4;
/// Words of a crowd view's work buffer that the visible counts read: the
/// draw arguments and the sorted buckets' levels.
pub(crate) const COUNTED_WORDS: u32 = SORTED_LEVELS + 2;
/// Words per workgroup of the per-member passes in a crowd view's work
/// buffer: its visible members per bucket (after `cs_scan`: where its
/// first one goes), then the finest level its translucent members and its
/// shells need.
pub(crate) const GROUP_WORDS: u32 = BUCKETS as u32 + 2;

/// The most levels of detail the renderers draw, full detail included (a
/// model's [`levels`](crate::GpuModel::levels) stop there).
pub const MAX_LEVELS: usize = 5;

// Bits of the instance record's `effects` word (md2.wgsl's EFFECT_*, and
// crowd.wgsl's MEMBER_* for what only the crowd reads).
pub(crate) const EFFECT_SHELL_RGB: u32 = 0x00ff_ffff;
pub(crate) const EFFECT_FULLBRIGHT: u32 = 0x0100_0000;
pub(crate) const EFFECT_MINLIGHT: u32 = 0x0200_0000;
pub(crate) const EFFECT_NO_SHADOW: u32 = 0x0400_0000;
pub(crate) const MEMBER_SHELL: u32 = 0x0800_0000;
pub(crate) const MEMBER_TRANSLUCENT: u32 = 0x1000_0000;
pub(crate) const MEMBER_MIRRORED: u32 = 0x2000_0000;
pub(crate) const MEMBER_FADING: u32 = 0x8000_0000;

// Bits of `Clock::flags`.
pub(crate) const CLOCK_LOOPING: u32 = 1;
pub(crate) const CLOCK_HOLD: u32 = 2;
// Bits of `CrowdParams::flags`, `CrowdFrame::flags` and `View::flags.x`.
pub(crate) const CROWD_CULL: u32 = 1;
pub(crate) const FRAME_SORT: u32 = 1;
pub(crate) const FRAME_EXTRA: u32 = 2;
pub(crate) const FRAME_FIRST: u32 = 4;
pub(crate) const VIEW_SHADOWS: u32 = 1;
// Bits of `MemberMotion::flags_id`, below the id.
pub(crate) const MOTION_MOVED: u32 = 1;
pub(crate) const MOTION_POSE: u32 = 2;
pub(crate) const MOTION_NEW: u32 = 4;
pub(crate) const MOTION_FLAG_BITS: u32 = 3;

/// md2.wgsl's `Md2View`: the camera, light and shadow plane of one view.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ViewUniform {
    pub view_proj: [[f32; 4]; 4],
    pub previous_view_proj: [[f32; 4]; 4],
    pub jitter: [f32; 4],
    pub shadow_proj: [[f32; 4]; 4],
    pub towards_light: [f32; 4],
    pub light_color: [f32; 4],
    pub ambient: [f32; 4],
    pub shadow_color: [f32; 4],
    pub depth_row: [f32; 4],
    pub flags: [u32; 4],
    pub detail: [f32; 4],
}

/// md2.wgsl's `ModelInfo`.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ModelInfo {
    pub num_xyz: u32,
    pub num_frames: u32,
    pub _pad0: u32,
    pub _pad1: u32,
}

/// md2.wgsl's `Md2CaptureParams`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CaptureParams {
    pub frames: [u32; 4],
    pub lerp: [f32; 4],
    pub rows: [[f32; 4]; 3],
    pub previous_frames: [u32; 4],
    pub previous_lerp: [f32; 4],
    pub previous_rows: [[f32; 4]; 3],
}

/// The per-instance record, 80 bytes: md2.wgsl's `InstanceIn` as vertex
/// attributes ([`INSTANCE_ATTRIBUTES`]) and crowd.wgsl's `InstanceOut` as
/// memory.
///
/// It travels as a vertex buffer with `step_mode: Instance` rather than a
/// storage array indexed by `instance_index`. Both read the same bytes, but
/// instance-rate attributes are fetched by the vertex-input hardware (or a
/// fetch preamble the driver schedules ahead of the shader) once per
/// instance and handed to every vertex in registers, while storage loads
/// are issued by each vertex invocation. Attributes also let one buffer
/// hold every model's instances with a plain buffer slice per draw: no
/// per-model bind group, dynamic offset or `first_instance` needed.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct InstanceRecord {
    /// Rows of (transform × QUAKE_TO_Y_UP), the bottom row (0, 0, 0, 1) left out.
    pub rows: [[f32; 4]; 3],
    /// primary a, primary b, secondary a, secondary b.
    pub frames: [u16; 4],
    pub t: f32,
    pub t2: f32,
    pub weight: f32,
    /// Low 16 bits: skin layer; high 16 bits: the tint's intensity (f16).
    pub skin_intensity: u32,
    /// Linear RGBA, unorm8.
    pub tint: [u8; 4],
    /// `EFFECT_*` and `MEMBER_*` bits.
    pub effects: u32,
}

/// The extra per-instance record of materials and motion, 80 bytes:
/// md2.wgsl's `Md2ExtraIn` as vertex attributes ([`EXTRA_ATTRIBUTES`]).
/// The previous frame's transform and pose lie where an
/// [`InstanceRecord`] keeps the current ones, so the crowd's compute pass
/// writes both with one struct.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ExtraRecord {
    /// The previous frame's rows of (transform × QUAKE_TO_Y_UP).
    pub rows: [[f32; 4]; 3],
    /// The previous frame's frames.
    pub frames: [u16; 4],
    /// The previous frame's (t, secondary t, weight).
    pub lerp: [f32; 3],
    /// The instance's index in its batch (the member's in its crowd).
    pub index: u32,
    /// Its stable id.
    pub id: u32,
    pub _pad: u32,
}

/// crowd.wgsl's `Clock`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ClockRecord {
    pub step: [u32; 3],
    pub flags: u32,
    pub start: [u32; 2],
    pub first: u32,
    pub len: u32,
    pub rate: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// crowd.wgsl's `Member`: one resident instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MemberRecord {
    pub rows: [[f32; 4]; 3],
    pub bounds_min: [f32; 3],
    pub effects: u32,
    pub bounds_max: [f32; 3],
    pub skin_intensity: u32,
    pub tint: u32,
    pub fade_ticks: u32,
    pub fade_start: [u32; 2],
    pub primary: ClockRecord,
    pub secondary: ClockRecord,
}

/// The byte ranges of a [`MemberRecord`] each of the crowd's setters
/// rewrites (see crowd.wgsl's `Member`).
pub(crate) mod member_part {
    use std::ops::Range;

    use super::MemberRecord;

    const fn at(offset: usize, end: usize) -> Range<usize> {
        offset..end
    }

    /// The transform, and the effects word whose mirrored bit follows it.
    pub const TRANSFORM: Range<usize> = at(0, std::mem::offset_of!(MemberRecord, bounds_max));
    /// The effects word alone (shell, fullbright, minlight, shadow).
    pub const EFFECTS: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, effects),
        std::mem::offset_of!(MemberRecord, bounds_max),
    );
    /// The skin layer (with the tint's intensity beside it).
    pub const SKIN: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, skin_intensity),
        std::mem::offset_of!(MemberRecord, tint),
    );
    /// The tint: its intensity, its colour, and the translucency bit in the
    /// effects word.
    pub const TINT: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, effects),
        std::mem::offset_of!(MemberRecord, fade_ticks),
    );
    /// What plays: the clocks, the fade, the bounds of every frame they
    /// show, and the fading bit in the effects word.
    pub const PLAYBACK: Range<usize> = at(
        std::mem::offset_of!(MemberRecord, bounds_min),
        size_of::<MemberRecord>(),
    );
    /// The whole record.
    pub const ALL: Range<usize> = at(0, size_of::<MemberRecord>());
}

/// crowd.wgsl's `CrowdParams`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CrowdParams {
    pub count: u32,
    pub levels: u32,
    pub flags: u32,
    pub groups: u32,
    pub bases: [[u32; 4]; 3],
    pub sort: [u32; 4],
    pub sort_size: [u32; 2],
    pub extra_base: [u32; 2],
    pub generation: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
    pub level_first: [[u32; 4]; 2],
    pub level_count: [[u32; 4]; 2],
    pub level_error: [[f32; 4]; 2],
    pub lod_sphere: [f32; 4],
}

/// crowd.wgsl's `MemberMotion`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct MotionRecord {
    pub previous_rows: [[f32; 4]; 3],
    pub previous_frames: [u32; 2],
    pub changed_at: u32,
    pub flags_id: u32,
    pub previous_lerp: [f32; 3],
    pub _pad: u32,
}

/// crowd.wgsl's `SortStep`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct SortStep {
    pub k: u32,
    pub j: u32,
    pub region: u32,
    pub _pad: u32,
}

/// crowd.wgsl's `CrowdFrame`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct CrowdFrame {
    pub now: [u32; 2],
    pub flags: u32,
    pub _pad0: u32,
    pub previous: [u32; 2],
    pub _pad1: u32,
    pub _pad2: u32,
}

/// The draw buckets of a model's instances, in the order the records lie
/// and the crowd's `bases` and draw arguments list them: opaque and opaque
/// mirrored at each level of detail, translucent, shell (see
/// [`Buckets`](super::instance::Buckets)).
pub(crate) const BUCKETS: usize = 2 * MAX_LEVELS + 2;

/// A render vertex as the vertex buffer holds it:
/// [`Corner`](crate::mesh::Corner), md2.wgsl's `CornerIn`.
pub(crate) const CORNER_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Uint32, 1 => Float32x2];

/// md2.wgsl's `InstanceIn` over [`InstanceRecord`].
#[doc(hidden)]
pub const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 8] = wgpu::vertex_attr_array![
    2 => Float32x4,
    3 => Float32x4,
    4 => Float32x4,
    5 => Uint16x4,
    6 => Float32x3,
    7 => Uint32,
    8 => Unorm8x4,
    9 => Uint32,
];

/// md2.wgsl's `Md2ExtraIn` over [`ExtraRecord`].
#[doc(hidden)]
pub const EXTRA_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    10 => Float32x4,
    11 => Float32x4,
    12 => Float32x4,
    13 => Uint16x4,
    14 => Float32x3,
    15 => Uint32x2,
];

/// The vertex buffers every render pipeline reads: corners, then instances.
#[doc(hidden)]
pub fn vertex_buffers() -> [Option<wgpu::VertexBufferLayout<'static>>; 2] {
    let [corners, instances, _] = vertex_buffers_with_extra();
    [corners, instances]
}

/// [`vertex_buffers`] and the extra records of materials and motion.
pub(crate) fn vertex_buffers_with_extra() -> [Option<wgpu::VertexBufferLayout<'static>>; 3] {
    [
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<crate::mesh::Corner>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &CORNER_ATTRIBUTES,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<InstanceRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<ExtraRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &EXTRA_ATTRIBUTES,
        }),
    ]
}

/// The bind-group layouts of both shaders, made once per device.
#[derive(Debug)]
pub(crate) struct Layouts {
    /// Group 0 of the render pipelines and captures: the view, the sampler.
    pub view: wgpu::BindGroupLayout,
    /// Group 1 of md2.wgsl: one model's data (pose.wgsl's bindings) and
    /// skins.
    pub model: wgpu::BindGroupLayout,
    /// Group 1 of the captures: the model without its skins.
    pub capture_model: wgpu::BindGroupLayout,
    /// Group 2 of `cs_capture`.
    pub capture_io: wgpu::BindGroupLayout,
    /// Group 0 of crowd.wgsl: the view uniform alone (the crowd's compute
    /// stage has no use for the normal table, and a device may offer it only
    /// four storage buffers).
    pub crowd_camera: wgpu::BindGroupLayout,
    /// Group 1 of crowd.wgsl: one crowd's members and parameters.
    pub crowd: wgpu::BindGroupLayout,
    /// Group 2 of crowd.wgsl: one view's time, output, work buffer (draw
    /// arguments, prefix sums, sort keys) and the sort step (a dynamic
    /// offset into the cache's table of steps).
    pub crowd_view: wgpu::BindGroupLayout,
    /// md2.wgsl's render pipelines: groups 0 and 1.
    pub render_pipeline: wgpu::PipelineLayout,
    /// `cs_capture`: groups 0, 1 and 2.
    pub capture_pipeline: wgpu::PipelineLayout,
    /// crowd.wgsl: groups 0, 1 and 2.
    pub crowd_pipeline: wgpu::PipelineLayout,
}

impl Layouts {
    pub(crate) fn new(device: &wgpu::Device) -> Layouts {
        use wgpu::ShaderStages as S;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let everywhere = S::VERTEX_FRAGMENT | S::COMPUTE;
        let view = layout(
            "md2-wgpu view layout",
            &[
                uniform(0, everywhere, size_of::<ViewUniform>()),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: S::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        );
        let model_entries = [
            uniform(0, S::VERTEX | S::COMPUTE, size_of::<ModelInfo>()),
            storage(1, S::VERTEX | S::COMPUTE, true),
            storage(2, S::VERTEX | S::COMPUTE, true),
            storage(3, S::VERTEX | S::COMPUTE, true),
        ];
        let skins = wgpu::BindGroupLayoutEntry {
            binding: 4,
            visibility: S::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        };
        let mut with_skins = model_entries.to_vec();
        with_skins.push(skins);
        let model = layout("md2-wgpu model layout", &with_skins);
        let capture_model = layout("md2-wgpu capture model layout", &model_entries);
        let capture_io = layout(
            "md2-wgpu capture io layout",
            &[
                uniform(0, S::COMPUTE, size_of::<CaptureParams>()),
                storage(1, S::COMPUTE, false),
            ],
        );
        let crowd_camera = layout(
            "md2-wgpu crowd camera layout",
            &[uniform(0, S::COMPUTE, size_of::<ViewUniform>())],
        );
        let crowd = layout(
            "md2-wgpu crowd layout",
            &[
                storage(0, S::COMPUTE, true),
                uniform(1, S::COMPUTE, size_of::<CrowdParams>()),
                storage(2, S::COMPUTE, true),
            ],
        );
        let crowd_view = layout(
            "md2-wgpu crowd view layout",
            &[
                uniform(0, S::COMPUTE, size_of::<CrowdFrame>()),
                storage(1, S::COMPUTE, false),
                storage(2, S::COMPUTE, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: S::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: NonZeroU64::new(size_of::<SortStep>() as u64),
                    },
                    count: None,
                },
            ],
        );
        let pipeline = |label: &str, groups: &[&wgpu::BindGroupLayout]| {
            let groups: Vec<Option<&wgpu::BindGroupLayout>> =
                groups.iter().copied().map(Some).collect();
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &groups,
                immediate_size: 0,
            })
        };
        let render_pipeline = pipeline("md2-wgpu render pipeline layout", &[&view, &model]);
        let capture_pipeline = pipeline(
            "md2-wgpu capture pipeline layout",
            &[&view, &capture_model, &capture_io],
        );
        let crowd_pipeline = pipeline(
            "md2-wgpu crowd pipeline layout",
            &[&crowd_camera, &crowd, &crowd_view],
        );
        Layouts {
            view,
            model,
            capture_model,
            capture_io,
            crowd_camera,
            crowd,
            crowd_view,
            render_pipeline,
            capture_pipeline,
            crowd_pipeline,
        }
    }
}

fn uniform(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str, source: &str) -> naga::Module {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(source, name)));
        // Default capabilities: nothing beyond what every WebGPU-class
        // adapter offers.
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(source, name)));
        module
    }

    fn md2() -> naga::Module {
        parse("md2.wgsl", MD2_WGSL)
    }

    fn crowd() -> naga::Module {
        parse("crowd.wgsl", CROWD_WGSL)
    }

    /// A Rust mirror as the layout check sees it.
    struct Mirror {
        wgsl: &'static str,
        size: usize,
        /// (field, offset, size)
        fields: Vec<(&'static str, usize, usize)>,
    }

    fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
        size_of::<F>()
    }

    macro_rules! mirror {
        ($rust:ty, $wgsl:literal, [$($field:ident),* $(,)?]) => {
            Mirror {
                wgsl: $wgsl,
                size: size_of::<$rust>(),
                fields: vec![$((
                    stringify!($field),
                    std::mem::offset_of!($rust, $field),
                    field_size(|r: &$rust| &r.$field),
                )),*],
            }
        };
    }

    /// Checks `mirror` against the struct of that name in `module`: size,
    /// and every member's name, offset and size, in order.
    fn check(module: &naga::Module, mirror: &Mirror) {
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .expect("naga lays the module out");
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(mirror.wgsl))
            .unwrap_or_else(|| panic!("no struct {} in the shader", mirror.wgsl));
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("{} is not a struct", mirror.wgsl);
        };
        assert_eq!(*span as usize, mirror.size, "size of {}", mirror.wgsl);
        let wgsl: Vec<(String, usize, usize)> = members
            .iter()
            .map(|m| {
                (
                    m.name.clone().unwrap_or_default(),
                    m.offset as usize,
                    layouter[m.ty].size as usize,
                )
            })
            .collect();
        let rust: Vec<(String, usize, usize)> = mirror
            .fields
            .iter()
            .map(|&(n, o, s)| (n.to_string(), o, s))
            .collect();
        assert_eq!(rust, wgsl, "fields (name, offset, size) of {}", mirror.wgsl);
    }

    #[test]
    fn every_wgsl_struct_the_cpu_touches_matches_its_mirror() {
        let md2 = md2();
        let crowd = crowd();
        let view = mirror!(
            ViewUniform,
            "Md2View",
            [
                view_proj,
                previous_view_proj,
                jitter,
                shadow_proj,
                towards_light,
                light_color,
                ambient,
                shadow_color,
                depth_row,
                flags,
                detail
            ]
        );
        check(&md2, &view);
        check(&crowd, &view);
        check(
            &md2,
            &mirror!(
                ModelInfo,
                "Md2ModelInfo",
                [num_xyz, num_frames, _pad0, _pad1]
            ),
        );
        check(
            &md2,
            &mirror!(
                CaptureParams,
                "Md2CaptureParams",
                [
                    frames,
                    lerp,
                    rows,
                    previous_frames,
                    previous_lerp,
                    previous_rows
                ]
            ),
        );
        check(
            &crowd,
            &mirror!(
                InstanceRecord,
                "InstanceOut",
                [rows, frames, t, t2, weight, skin_intensity, tint, effects]
            ),
        );
        check(
            &crowd,
            &mirror!(
                ClockRecord,
                "Clock",
                [step, flags, start, first, len, rate, _pad0, _pad1, _pad2]
            ),
        );
        check(
            &crowd,
            &mirror!(
                MemberRecord,
                "Member",
                [
                    rows,
                    bounds_min,
                    effects,
                    bounds_max,
                    skin_intensity,
                    tint,
                    fade_ticks,
                    fade_start,
                    primary,
                    secondary
                ]
            ),
        );
        check(
            &crowd,
            &mirror!(
                CrowdParams,
                "CrowdParams",
                [
                    count,
                    levels,
                    flags,
                    groups,
                    bases,
                    sort,
                    sort_size,
                    extra_base,
                    generation,
                    _pad0,
                    _pad1,
                    _pad2,
                    level_first,
                    level_count,
                    level_error,
                    lod_sphere
                ]
            ),
        );
        check(
            &crowd,
            &mirror!(
                MotionRecord,
                "MemberMotion",
                [
                    previous_rows,
                    previous_frames,
                    changed_at,
                    flags_id,
                    previous_lerp,
                    _pad
                ]
            ),
        );
        check(&crowd, &mirror!(SortStep, "SortStep", [k, j, region, _pad]));
        check(
            &crowd,
            &mirror!(
                CrowdFrame,
                "CrowdFrame",
                [now, flags, _pad0, previous, _pad1, _pad2]
            ),
        );
    }

    /// The shader locations of the members of struct `name` in `module`.
    fn locations(module: &naga::Module, name: &str) -> Vec<u32> {
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no struct {name}"));
        let naga::TypeInner::Struct { members, .. } = &ty.inner else {
            panic!("{name} is not a struct");
        };
        members
            .iter()
            .map(|m| match m.binding {
                Some(naga::Binding::Location { location, .. }) => location,
                ref other => panic!("{other:?}"),
            })
            .collect()
    }

    /// md2.wgsl's `Md2ExtraIn` reads [`ExtraRecord`] through vertex
    /// attributes at its fields' offsets, and the previous transform and
    /// pose lie where [`InstanceRecord`] keeps the current ones (the crowd
    /// writes both with one struct).
    #[test]
    fn extra_attributes_read_the_extra_record_fields() {
        let fields = [
            (std::mem::offset_of!(ExtraRecord, rows), 16),
            (std::mem::offset_of!(ExtraRecord, rows) + 16, 16),
            (std::mem::offset_of!(ExtraRecord, rows) + 32, 16),
            (std::mem::offset_of!(ExtraRecord, frames), 8),
            (std::mem::offset_of!(ExtraRecord, lerp), 12),
            (std::mem::offset_of!(ExtraRecord, index), 8),
        ];
        assert_eq!(size_of::<ExtraRecord>(), size_of::<InstanceRecord>());
        assert_eq!(
            std::mem::offset_of!(ExtraRecord, lerp),
            std::mem::offset_of!(InstanceRecord, t)
        );
        assert_eq!(std::mem::offset_of!(ExtraRecord, id), 72);
        for (attribute, (offset, size)) in EXTRA_ATTRIBUTES.iter().zip(fields) {
            assert_eq!(attribute.offset as usize, offset, "{attribute:?}");
            assert_eq!(attribute.format.size() as usize, size, "{attribute:?}");
        }
        let ours: Vec<u32> = EXTRA_ATTRIBUTES.iter().map(|a| a.shader_location).collect();
        assert_eq!(locations(&md2(), "Md2ExtraIn"), ours);
        // Every attribute of the three buffers, within WebGPU's 16.
        let all = CORNER_ATTRIBUTES.len() + INSTANCE_ATTRIBUTES.len() + EXTRA_ATTRIBUTES.len();
        assert!(all <= 16, "{all} vertex attributes");
    }

    /// md2.wgsl's `Md2InstanceIn` reads [`InstanceRecord`] through vertex
    /// attributes: each attribute at its field's offset, with its size.
    #[test]
    fn instance_attributes_read_the_record_fields() {
        let fields = [
            (std::mem::offset_of!(InstanceRecord, rows), 16),
            (std::mem::offset_of!(InstanceRecord, rows) + 16, 16),
            (std::mem::offset_of!(InstanceRecord, rows) + 32, 16),
            (std::mem::offset_of!(InstanceRecord, frames), 8),
            (std::mem::offset_of!(InstanceRecord, t), 12),
            (std::mem::offset_of!(InstanceRecord, skin_intensity), 4),
            (std::mem::offset_of!(InstanceRecord, tint), 4),
            (std::mem::offset_of!(InstanceRecord, effects), 4),
        ];
        assert_eq!(size_of::<InstanceRecord>(), 80);
        for (attribute, (offset, size)) in INSTANCE_ATTRIBUTES.iter().zip(fields) {
            assert_eq!(attribute.offset as usize, offset, "{attribute:?}");
            assert_eq!(attribute.format.size() as usize, size, "{attribute:?}");
        }
        // The attributes' shader locations are Md2InstanceIn's, in order.
        let ours: Vec<u32> = INSTANCE_ATTRIBUTES
            .iter()
            .map(|a| a.shader_location)
            .collect();
        assert_eq!(locations(&md2(), "Md2InstanceIn"), ours);
    }

    /// The crowd benchmark's baselines are md2.wgsl with vertex stages
    /// appended (so they shade with md2.wgsl's own code): validated here, so
    /// a change to md2.wgsl that breaks them fails `cargo test`, not only a
    /// benchmark run.
    #[test]
    fn the_benchmark_baselines_validate_appended_to_md2() {
        let source = format!(
            "{MD2_WGSL}\n{}",
            include_str!("../../../benches/crowd/baselines.wgsl.part")
        );
        let module = parse("md2.wgsl + baselines.wgsl.part", &source);
        for name in ["vs_static", "vs_posed", "vs_morph_loop", "vs_morph_pair"] {
            assert!(
                has_entry_point(&module, name, naga::ShaderStage::Vertex),
                "{name}"
            );
        }
    }

    fn has_entry_point(module: &naga::Module, name: &str, stage: naga::ShaderStage) -> bool {
        module
            .entry_points
            .iter()
            .any(|ep| ep.name == name && ep.stage == stage)
    }

    #[test]
    fn the_entry_points_the_crate_names_exist() {
        use naga::ShaderStage::{Compute, Fragment, Vertex};
        let md2 = md2();
        for (name, stage) in [
            (entry::VS_MAIN, Vertex),
            (entry::VS_MAIN_EXTRA, Vertex),
            (entry::VS_SHELL, Vertex),
            (entry::VS_SHELL_EXTRA, Vertex),
            (entry::VS_SHADOW, Vertex),
            (entry::VS_SHADOW_EXTRA, Vertex),
            (entry::VS_DEPTH, Vertex),
            (entry::FS_BUILTIN, Fragment),
            (entry::FS_BUILTIN_SRGB, Fragment),
            (entry::FS_BUILTIN_MOTION, Fragment),
            (entry::FS_BUILTIN_MOTION_SRGB, Fragment),
            (entry::CS_CAPTURE, Compute),
            (entry::CS_CAPTURE_MOTION, Compute),
        ] {
            assert!(has_entry_point(&md2, name, stage), "md2.wgsl: {name}");
        }
        let crowd = crowd();
        for name in [
            entry::CS_CLASSIFY,
            entry::CS_SCAN,
            entry::CS_EMIT,
            entry::CS_SORT_BLOCK,
            entry::CS_SORT_STEP,
            entry::CS_GATHER,
        ] {
            assert!(has_entry_point(&crowd, name, Compute), "crowd.wgsl: {name}");
        }
    }

    fn constant(module: &naga::Module, name: &str) -> naga::Literal {
        let (_, c) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no constant {name}"));
        match module.global_expressions[c.init] {
            naga::Expression::Literal(l) => l,
            ref other => panic!("{name} is not a literal: {other:?}"),
        }
    }

    fn u32_constant(module: &naga::Module, name: &str) -> u32 {
        match constant(module, name) {
            naga::Literal::U32(v) => v,
            other => panic!("{name} is not a u32: {other:?}"),
        }
    }

    fn f32_constant(module: &naga::Module, name: &str) -> f32 {
        match constant(module, name) {
            naga::Literal::F32(v) => v,
            other => panic!("{name} is not an f32: {other:?}"),
        }
    }

    #[test]
    fn shader_constants_match_the_crate() {
        let md2 = md2();
        let crowd = crowd();
        assert_eq!(
            u32_constant(&md2, "MD2_FALLBACK_NORMAL_INDEX"),
            u32::from(crate::FALLBACK_NORMAL_INDEX),
            "the shader and the CPU reference must read a bad normal index the same way"
        );
        assert_eq!(f32_constant(&md2, "MD2_SHELL_OFFSET"), crate::SHELL_OFFSET);
        assert_eq!(f32_constant(&crowd, "SHELL_OFFSET"), crate::SHELL_OFFSET);
        assert_eq!(f32_constant(&md2, "MD2_SHELL_ALPHA"), crate::SHELL_ALPHA);
        assert_eq!(f32_constant(&md2, "MD2_MIN_LIGHT"), crate::MIN_LIGHT);
        for (name, value) in [
            ("MD2_EFFECT_SHELL_RGB", EFFECT_SHELL_RGB),
            ("MD2_EFFECT_FULLBRIGHT", EFFECT_FULLBRIGHT),
            ("MD2_EFFECT_MINLIGHT", EFFECT_MINLIGHT),
            ("MD2_EFFECT_NO_SHADOW", EFFECT_NO_SHADOW),
            ("MD2_MEMBER_MIRRORED", MEMBER_MIRRORED),
            ("MD2_PASS_OPAQUE", pass::OPAQUE),
            ("MD2_PASS_TRANSLUCENT", pass::TRANSLUCENT),
            ("MD2_PASS_SHELL", pass::SHELL),
            ("MD2_PASS_SHADOW", pass::SHADOW),
        ] {
            assert_eq!(u32_constant(&md2, name), value, "md2.wgsl {name}");
        }
        for (name, value) in [
            ("EFFECT_NO_SHADOW", EFFECT_NO_SHADOW),
            ("MEMBER_SHELL", MEMBER_SHELL),
            ("MEMBER_TRANSLUCENT", MEMBER_TRANSLUCENT),
            ("MEMBER_MIRRORED", MEMBER_MIRRORED),
            ("MEMBER_FADING", MEMBER_FADING),
            ("CLOCK_LOOPING", CLOCK_LOOPING),
            ("CLOCK_HOLD", CLOCK_HOLD),
            ("CROWD_CULL", CROWD_CULL),
            ("FRAME_SORT", FRAME_SORT),
            ("FRAME_EXTRA", FRAME_EXTRA),
            ("FRAME_FIRST", FRAME_FIRST),
            ("MOTION_MOVED", MOTION_MOVED),
            ("MOTION_POSE", MOTION_POSE),
            ("MOTION_NEW", MOTION_NEW),
            ("MOTION_FLAG_BITS", MOTION_FLAG_BITS),
            ("SEEN", SEEN),
            ("VIEW_SHADOWS", VIEW_SHADOWS),
            ("WORKGROUP", WORKGROUP_SIZE),
            ("SORT_BLOCK", SORT_BLOCK),
            ("SORT_WORKGROUP", SORT_WORKGROUP),
            ("SUMS", SUMS),
            ("SORTED_LEVELS", SORTED_LEVELS),
            ("GROUP_WORDS", GROUP_WORDS),
            ("BUCKETS", BUCKETS as u32),
            ("MAX_LEVELS", MAX_LEVELS as u32),
            ("OPAQUE", crate::gpu::instance::OPAQUE as u32),
            (
                "OPAQUE_MIRRORED",
                crate::gpu::instance::OPAQUE_MIRRORED as u32,
            ),
            ("TRANSLUCENT", crate::gpu::instance::TRANSLUCENT as u32),
            ("SHELL", crate::gpu::instance::SHELL as u32),
        ] {
            assert_eq!(u32_constant(&crowd, name), value, "crowd.wgsl {name}");
        }
        assert_eq!(
            f32_constant(&crowd, "TICK"),
            (1.0 / crate::anim::TICKS_PER_SECOND) as f32
        );
        assert_eq!(
            f32_constant(&crowd, "BELOW_ONE"),
            1.0 - f32::EPSILON / 2.0,
            "the largest f32 below 1, as Clip::sample uses"
        );
        assert_eq!(f32_constant(&crowd, "TWO_POW_32"), 2f32.powi(32));
        assert_eq!(f32_constant(&crowd, "TWO_POW_M32"), 2f32.powi(-32));
        assert_eq!(f32_constant(&crowd, "TWO_POW_M64"), 2f32.powi(-64));
    }
}
