//! A resident crowd in Bevy's render world: each crowd's buffers (written
//! as its main-world flush says), md2-wgpu's crowd passes run for every
//! camera and every shadow map's view before the cameras draw, and each
//! view's draws of the crowd: one phase item per pass (a camera's opaque
//! phase, its prepass, its deferred G-buffer pass, and in its transparent
//! phase one for the translucent members and one for the shells, which its
//! passes sort back to front; a shadow map's phase) whose draw is one
//! `draw_indexed_indirect` per bucket it draws.

use std::collections::{HashMap, HashSet};
use std::num::NonZeroU64;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use bevy::asset::AssetId;
use bevy::camera::visibility::InheritedVisibility;
use bevy::core_pipeline::core_3d::{
    CORE_3D_DEPTH_FORMAT, Opaque3d, Opaque3dBatchSetKey, Opaque3dBinKey, Transparent3d,
    TransparentSortingInfo3d,
};
use bevy::core_pipeline::deferred::AlphaMask3dDeferred;
use bevy::core_pipeline::prepass::{
    MotionVectorPrepass, Opaque3dPrepass, OpaqueNoLightmap3dBatchSetKey, OpaqueNoLightmap3dBinKey,
    prepass_target_descriptors,
};
use bevy::ecs::entity::Entity;
use bevy::ecs::query::{Has, QueryItem, ROQueryItem, With};
use bevy::ecs::resource::Resource;
use bevy::ecs::system::SystemParam;
use bevy::ecs::system::lifetimeless::{Read, SRes};
use bevy::ecs::system::{Commands, Query, Res, ResMut, SystemParamItem};
use bevy::ecs::world::{FromWorld, World};
use bevy::material::OpaqueRendererMethod;
use bevy::mesh::{Mesh, MeshVertexBufferLayoutRef, VertexBufferLayout};
use bevy::pbr::{
    DefaultOpaqueRendererMethod, LightEntity, LightKeyCache, MATERIAL_BIND_GROUP_INDEX,
    MeshPipeline, MeshPipelineKey, PrepassPipeline, SetMeshViewBindGroup,
    SetMeshViewBindingArrayBindGroup, SetPrepassViewBindGroup, SetPrepassViewEmptyBindGroup,
    Shadow, ShadowBatchSetKey, ShadowBinKey, ViewKeyCache, ViewKeyPrepassCache,
};
use bevy::reflect::{PartialReflect, ReflectRef};
use bevy::render::camera::{DirtySpecializations, PendingQueues};
use bevy::render::extract_component::ExtractComponent;
use bevy::render::mesh::RenderMesh;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctionId, DrawFunctions, InputUniformIndex, PhaseItem,
    PhaseItemExtraIndex, RenderCommand, RenderCommandResult, SetItemPipeline, TrackedRenderPass,
    ViewBinnedRenderPhases, ViewSortedRenderPhases,
};
use bevy::render::render_resource::{
    BindGroup, BindGroupEntry, BindGroupLayout, BindGroupLayoutDescriptor, BindGroupLayoutEntry,
    BindingResource, BindingType, Buffer, BufferBinding, BufferBindingType, BufferDescriptor,
    BufferInitDescriptor, BufferUsages, CachedRenderPipelineId, CompareFunction,
    ComputePassDescriptor, ComputePipeline, DepthBiasState, DepthStencilState, Face, FragmentState,
    IndexFormat, MapMode, MultisampleState, PipelineCache, PipelineLayoutDescriptor,
    PrimitiveState, PrimitiveTopology, RawComputePipelineDescriptor, RenderPipelineDescriptor,
    SamplerBindingType, ShaderModuleDescriptor, ShaderSource, ShaderStages,
    SpecializedMeshPipeline, SpecializedMeshPipelineError, SpecializedMeshPipelines, StencilState,
    TextureSampleType, TextureViewDimension, VertexAttribute, VertexFormat, VertexState,
    VertexStepMode,
};
use bevy::render::renderer::{RenderContext, RenderDevice, RenderQueue};
use bevy::render::storage::GpuShaderBuffer;
use bevy::render::sync_world::MainEntity;
use bevy::render::texture::GpuImage;
use bevy::render::view::{ExtractedView, RenderVisibleEntities, RetainedViewEntity};
use bevy::shader::ShaderDefVal;
use md2_wgpu::Camera as Md2Camera;
use md2_wgpu::contract::MAX_LEVELS;
use md2_wgpu::crowd::{
    CLASSIFY_ENTRY, CROWD_PASSES_WGSL, CrowdFrame, CrowdLayout, CrowdParams, CrowdSortSteps,
    EMIT_ENTRY, GATHER_ENTRY, SCAN_ENTRY, SORT_BLOCK_ENTRY, SORT_STEP_ENTRY,
};

use crate::asset::CrowdModel;
use crate::crowd::{CrowdFrameWrites, CrowdWrite, Md2Crowd};
use crate::shaders::{CROWD_VERTEX_SHADER, FRAGMENT_SHADER};

/// The crowd draw group's bindings beside the pose's (0 to 2) and the
/// skins' (5, 6), which `md2_crowd.wgsl` declares: the bucket's draw words
/// (a uniform at the bucket's dynamic offset), the view's visible records,
/// the crowd's members.
pub const CROWD_DRAW_BINDING: u32 = 7;
/// The binding of the view's visible records (`md2_crowd_records`).
pub const CROWD_RECORDS_BINDING: u32 = 8;
/// The binding of the crowd's members (`md2_crowd_members`).
pub const CROWD_MEMBERS_BINDING: u32 = 9;

/// The crowd passes' entry points, as `CrowdPipelines::passes` holds them.
const PASS_ENTRIES: [&str; 6] = [
    CLASSIFY_ENTRY,
    SCAN_ENTRY,
    EMIT_ENTRY,
    SORT_BLOCK_ENTRY,
    SORT_STEP_ENTRY,
    GATHER_ENTRY,
];

/// The translucent bucket (after the opaque and mirrored ones of each
/// level: md2-wgpu's `BucketDraw::bucket`), and the shell bucket after it.
const TRANSLUCENT_BUCKET: usize = 2 * MAX_LEVELS;
const SHELL_BUCKET: usize = TRANSLUCENT_BUCKET + 1;

/// Dispatches are at most this many workgroups wide (WebGPU's
/// `maxComputeWorkgroupsPerDimension`); larger ones add rows.
const MAX_GROUPS_X: u32 = 65_535;

/// What the render world holds of a crowd: the main world's flush of this
/// frame, and the model it draws.
#[derive(bevy::ecs::component::Component, Clone)]
pub struct ExtractedCrowd {
    pub(crate) frame: CrowdFrameWrites,
    pub(crate) level_error_pixels: f32,
    pub(crate) level_tint: bool,
    pub(crate) model: std::sync::Arc<CrowdModel>,
    /// Its `InheritedVisibility`: a hidden crowd draws in no view.
    pub(crate) visible: bool,
}

impl bevy::render::sync_component::SyncComponent for Md2Crowd {
    type Target = ExtractedCrowd;
}

impl ExtractComponent for Md2Crowd {
    type QueryData = (Read<Md2Crowd>, Read<InheritedVisibility>);
    type QueryFilter = ();
    type Out = ExtractedCrowd;

    fn extract_component(
        (crowd, visibility): QueryItem<'_, '_, Self::QueryData>,
    ) -> Option<ExtractedCrowd> {
        Some(ExtractedCrowd {
            frame: crowd.frame.clone(),
            level_error_pixels: crowd.level_error_pixels(),
            level_tint: crowd.level_tint(),
            model: crowd.drawn.clone(),
            visible: visibility.get(),
        })
    }
}

/// The compute passes and the layouts every crowd's groups are made with.
#[derive(Resource)]
pub(crate) struct CrowdPipelines {
    /// `cs_classify`, `cs_scan`, `cs_emit`, and the sort's
    /// `cs_sort_block`, `cs_sort_step`, `cs_gather` (PASS_ENTRIES' order).
    passes: [ComputePipeline; 6],
    pass_layouts: [BindGroupLayout; 3],
    /// md2-wgpu's table of sort steps, and the uniform buffer holding it
    /// (the passes' group 2, binding 3, at each dispatch's offset).
    steps: CrowdSortSteps,
    steps_buffer: Buffer,
    /// The draws' group 3, and the empty group 2 (a crowd has no mesh
    /// uniform).
    draw_layout: BindGroupLayoutDescriptor,
    empty_layout: BindGroupLayoutDescriptor,
    mesh_pipeline: MeshPipeline,
    /// Bevy's prepass pipeline, whose view groups and fragment the shadow
    /// maps' draws use (absent where an app has no prepass pipeline: then
    /// crowds cast no shadows).
    prepass_pipeline: Option<PrepassPipeline>,
}

fn buffer_entry(
    binding: u32,
    visibility: ShaderStages,
    ty: BufferBindingType,
    dynamic: bool,
) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: dynamic.then(|| NonZeroU64::new(16).unwrap_or(NonZeroU64::MIN)),
        },
        count: None,
    }
}

impl FromWorld for CrowdPipelines {
    fn from_world(world: &mut World) -> CrowdPipelines {
        let device = world.resource::<RenderDevice>();
        let compute = ShaderStages::COMPUTE;
        let uniform = BufferBindingType::Uniform;
        let read = BufferBindingType::Storage { read_only: true };
        let write = BufferBindingType::Storage { read_only: false };
        // docs/contract.md's groups of the crowd's passes.
        let pass_layouts = [
            vec![buffer_entry(0, compute, uniform, false)],
            vec![
                buffer_entry(0, compute, read, false),
                buffer_entry(1, compute, uniform, false),
                buffer_entry(2, compute, read, false),
            ],
            vec![
                buffer_entry(0, compute, uniform, false),
                buffer_entry(1, compute, write, false),
                buffer_entry(2, compute, write, false),
                buffer_entry(3, compute, uniform, true),
            ],
        ]
        .map(|entries| device.create_bind_group_layout("md2_bevy crowd passes", &entries));
        let module = device
            .wgpu_device()
            .create_shader_module(ShaderModuleDescriptor {
                label: Some("md2-wgpu crowd passes"),
                source: ShaderSource::Wgsl(CROWD_PASSES_WGSL.into()),
            });
        let pipeline_layout = device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: Some("md2_bevy crowd passes"),
            bind_group_layouts: &[
                Some(&pass_layouts[0]),
                Some(&pass_layouts[1]),
                Some(&pass_layouts[2]),
            ],
            immediate_size: 0,
        });
        let passes = PASS_ENTRIES.map(|entry| {
            device.create_compute_pipeline(&RawComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        });
        let vertex = ShaderStages::VERTEX;
        let both = ShaderStages::VERTEX_FRAGMENT;
        let draw_layout = BindGroupLayoutDescriptor::new(
            "md2_bevy crowd draws",
            &[
                buffer_entry(0, both, uniform, false),
                buffer_entry(1, vertex, read, false),
                buffer_entry(2, vertex, read, false),
                BindGroupLayoutEntry {
                    binding: 5,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: true },
                        view_dimension: TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                BindGroupLayoutEntry {
                    binding: 6,
                    visibility: ShaderStages::FRAGMENT,
                    ty: BindingType::Sampler(SamplerBindingType::Filtering),
                    count: None,
                },
                buffer_entry(CROWD_DRAW_BINDING, both, uniform, true),
                buffer_entry(CROWD_RECORDS_BINDING, both, read, false),
                buffer_entry(CROWD_MEMBERS_BINDING, both, read, false),
            ],
        );
        let steps = CrowdSortSteps::new(device.limits().min_uniform_buffer_offset_alignment);
        let steps_buffer = device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("md2_bevy crowd sort steps"),
            contents: steps.bytes(),
            usage: BufferUsages::UNIFORM,
        });
        CrowdPipelines {
            passes,
            pass_layouts,
            steps,
            steps_buffer,
            draw_layout,
            empty_layout: BindGroupLayoutDescriptor::new("md2_bevy crowd no mesh", &[]),
            mesh_pipeline: world.resource::<MeshPipeline>().clone(),
            prepass_pipeline: world.get_resource::<PrepassPipeline>().cloned(),
        }
    }
}

/// Which pass a crowd pipeline draws in (the main pass, or one of the
/// prepasses: a shadow map, a camera's depth, normal and motion-vector
/// prepasses, its deferred G-buffer pass), and the view's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CrowdPipelineKey {
    /// In the main pass: the opaque buckets, or one of the sorted ones
    /// (blended, drawn in Bevy's transparent phase).
    pub blend: CrowdBlend,
    pub prepass: bool,
    /// A shadow map's: members whose effects say they cast no shadow
    /// (md2-wgpu's `EFFECT_NO_SHADOW`) are left out.
    pub shadow: bool,
    pub mesh_key: MeshPipelineKey,
}

/// What a main-pass crowd pipeline draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CrowdBlend {
    /// The opaque buckets, at each level.
    Opaque,
    /// The translucent bucket: the skin times the tint, lit, blended by the
    /// tint's alpha.
    Translucent,
    /// The shell bucket: the member pushed out along its normals, flat in
    /// its shell's colour at Quake II's alpha.
    Shell,
}

/// The crowd's vertex layout: the contract's 12-byte corner (its vertex
/// index, then its uv), at locations 0 and 1 in every pass.
fn corner_layout() -> VertexBufferLayout {
    VertexBufferLayout {
        array_stride: 12,
        step_mode: VertexStepMode::Vertex,
        attributes: vec![
            VertexAttribute {
                format: VertexFormat::Uint32,
                offset: 0,
                shader_location: 0,
            },
            VertexAttribute {
                format: VertexFormat::Float32x2,
                offset: 4,
                shader_location: 1,
            },
        ],
    }
}

impl SpecializedMeshPipeline for CrowdPipelines {
    type Key = CrowdPipelineKey;

    fn specialize(
        &self,
        key: CrowdPipelineKey,
        layout: &MeshVertexBufferLayoutRef,
    ) -> Result<RenderPipelineDescriptor, SpecializedMeshPipelineError> {
        if key.prepass {
            let Some(prepass) = &self.prepass_pipeline else {
                // Not asked for (the queue adds no crowd to a prepass
                // without Bevy's prepass pipeline); an error of Bevy's own
                // making stands in, as this one cannot be built outside it:
                // the crowd's mesh has no positions.
                layout
                    .0
                    .get_layout(&[Mesh::ATTRIBUTE_POSITION.at_shader_location(0)])?;
                return self.mesh_pipeline.specialize(key.mesh_key, layout);
            };
            return Ok(self.prepass_pipeline(prepass, key.mesh_key, key.shadow));
        }
        let blend = key.blend;
        let mut key = key.mesh_key;
        if blend != CrowdBlend::Opaque {
            // Alpha blending, no depth written (Bevy's transparent pass).
            key |= MeshPipelineKey::BLEND_ALPHA;
        }
        // Bevy's mesh pipeline for the view's key (targets, depth, MSAA,
        // the view's bindings and shader defs), with the crowd's stages,
        // its one vertex layout (the contract's 12-byte corner) and its
        // group where the mesh's and the material's would be.
        let mut descriptor = self.mesh_pipeline.specialize(key, layout)?;
        descriptor.label = Some("md2_bevy crowd".into());
        descriptor.vertex.shader = CROWD_VERTEX_SHADER;
        descriptor.vertex.buffers = vec![corner_layout()];
        // The group md2-bevy's modules declare their bindings at, as a
        // material pipeline defines it.
        let mut defs = vec![
            ShaderDefVal::from("MD2_CROWD"),
            ShaderDefVal::UInt(
                "MATERIAL_BIND_GROUP".into(),
                MATERIAL_BIND_GROUP_INDEX as u32,
            ),
        ];
        match blend {
            CrowdBlend::Opaque => {}
            CrowdBlend::Translucent => defs.push("MD2_CROWD_TRANSLUCENT".into()),
            CrowdBlend::Shell => defs.push("MD2_CROWD_SHELL".into()),
        }
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader = FRAGMENT_SHADER;
            fragment.shader_defs.extend(defs.clone());
        }
        descriptor.vertex.shader_defs.extend(defs);
        descriptor.layout.truncate(2);
        descriptor.layout.push(self.empty_layout.clone());
        descriptor.layout.push(self.draw_layout.clone());
        // Translucent members and shells show their far side through their
        // near one, as md2-wgpu draws them: no face culled.
        descriptor.primitive.cull_mode = (blend == CrowdBlend::Opaque).then_some(Face::Back);
        Ok(descriptor)
    }
}

impl CrowdPipelines {
    /// The crowd's pipeline for a prepass of key `key`, as Bevy's prepass
    /// pipeline makes an opaque mesh material's: a shadow map (depth
    /// only), a camera's depth, normal and motion-vector prepasses, or its
    /// deferred G-buffer pass (`DEFERRED_PREPASS`, md2-bevy's own fragment
    /// stage writing the member's surface). Its view groups (with the
    /// previous view where motion vectors are drawn), the crowd's vertex
    /// stage, depth written with `GreaterEqual` (reversed depth), and where
    /// a directional light's map cannot clamp depth, the prepass fragment
    /// that writes the unclamped depth.
    fn prepass_pipeline(
        &self,
        prepass: &PrepassPipeline,
        key: MeshPipelineKey,
        shadow: bool,
    ) -> RenderPipelineDescriptor {
        let mut defs: Vec<ShaderDefVal> = vec![
            "MD2_CROWD".into(),
            "PREPASS_PIPELINE".into(),
            "VERTEX_OUTPUT_INSTANCE_INDEX".into(),
            "VERTEX_UVS".into(),
            "VERTEX_UVS_A".into(),
            ShaderDefVal::UInt(
                "MATERIAL_BIND_GROUP".into(),
                MATERIAL_BIND_GROUP_INDEX as u32,
            ),
        ];
        let projection = key.intersection(MeshPipelineKey::VIEW_PROJECTION_RESERVED_BITS);
        if projection == MeshPipelineKey::VIEW_PROJECTION_NONSTANDARD {
            defs.push("VIEW_PROJECTION_NONSTANDARD".into());
        } else if projection == MeshPipelineKey::VIEW_PROJECTION_PERSPECTIVE {
            defs.push("VIEW_PROJECTION_PERSPECTIVE".into());
        } else if projection == MeshPipelineKey::VIEW_PROJECTION_ORTHOGRAPHIC {
            defs.push("VIEW_PROJECTION_ORTHOGRAPHIC".into());
        }
        let normal = key.contains(MeshPipelineKey::NORMAL_PREPASS);
        let motion = key.contains(MeshPipelineKey::MOTION_VECTOR_PREPASS);
        let deferred = key.contains(MeshPipelineKey::DEFERRED_PREPASS);
        for (on, def) in [
            (
                key.contains(MeshPipelineKey::DEPTH_PREPASS),
                "DEPTH_PREPASS",
            ),
            (normal, "NORMAL_PREPASS"),
            (normal || deferred, "NORMAL_PREPASS_OR_DEFERRED_PREPASS"),
            (
                motion || deferred,
                "MOTION_VECTOR_PREPASS_OR_DEFERRED_PREPASS",
            ),
            (deferred, "DEFERRED_PREPASS"),
            (motion, "MOTION_VECTOR_PREPASS"),
            (normal || motion || deferred, "PREPASS_FRAGMENT"),
            (shadow, "MD2_CROWD_SHADOW_CASTER"),
        ] {
            if on {
                defs.push(def.into());
            }
        }
        let unclipped = key.contains(MeshPipelineKey::UNCLIPPED_DEPTH_ORTHO);
        let emulate = unclipped && !prepass.depth_clip_control_supported;
        if emulate {
            defs.push("UNCLIPPED_DEPTH_ORTHO_EMULATION".into());
            if !defs.contains(&"PREPASS_FRAGMENT".into()) {
                defs.push("PREPASS_FRAGMENT".into());
            }
        }
        let mut targets = prepass_target_descriptors(normal, motion, deferred);
        if targets.iter().all(Option::is_none) {
            targets.clear();
        }
        let fragment = (!targets.is_empty() || emulate).then(|| FragmentState {
            // The G-buffer takes the member's surface (skin, tint,
            // fullbright), as the entities' deferred pass writes it; the
            // other prepasses need only what the vertex stage gives.
            shader: if deferred {
                FRAGMENT_SHADER
            } else {
                prepass.default_prepass_shader.clone()
            },
            shader_defs: defs.clone(),
            targets,
            ..Default::default()
        });
        let view_layout = if motion {
            prepass.view_layout_motion_vectors.clone()
        } else {
            prepass.view_layout_no_motion_vectors.clone()
        };
        RenderPipelineDescriptor {
            label: Some("md2_bevy crowd prepass".into()),
            layout: vec![
                view_layout,
                prepass.empty_layout.clone(),
                self.empty_layout.clone(),
                self.draw_layout.clone(),
            ],
            vertex: VertexState {
                shader: CROWD_VERTEX_SHADER,
                shader_defs: defs,
                buffers: vec![corner_layout()],
                ..Default::default()
            },
            fragment,
            primitive: PrimitiveState {
                topology: PrimitiveTopology::TriangleList,
                cull_mode: Some(Face::Back),
                unclipped_depth: unclipped && prepass.depth_clip_control_supported,
                ..Default::default()
            },
            depth_stencil: Some(DepthStencilState {
                format: CORE_3D_DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(CompareFunction::GreaterEqual),
                stencil: StencilState::default(),
                bias: DepthBiasState::default(),
            }),
            multisample: MultisampleState {
                count: key.msaa_samples(),
                ..Default::default()
            },
            ..Default::default()
        }
    }
}

/// What one view keeps of one crowd.
struct CrowdView {
    records: Buffer,
    work: Buffer,
    view: Buffer,
    frame: Buffer,
    layout: CrowdLayout,
    pass_groups: Option<[BindGroup; 3]>,
    draw_group: Option<BindGroup>,
    /// The frame it was last prepared in: a view gone is dropped.
    frame_number: u64,
    /// The view and frame uniforms as last written (written again only
    /// where they change).
    view_written: Option<md2_wgpu::contract::ViewUniform>,
    frame_written: Option<CrowdFrame>,
    /// Whether the view draws motion vectors: its passes keep each visible
    /// member's extra record (what the previous frame showed of it).
    extra: bool,
    /// Whether the view sorts the crowd's translucent members and shells
    /// back to front (a camera, where the crowd has some), and the sort
    /// words as last written into its work buffer.
    sort: bool,
    sort_written: Option<(u64, [u32; 6])>,
    /// Its previous frame's time, where it draws motion (`None` before its
    /// first: that frame shows no motion).
    previous_now: Option<f64>,
    /// The crowd's motion generation when the view last drew it
    /// ([`NOT_SEEN`] before), and the work buffer's layout words as last
    /// written (written again only where they change).
    seen: u32,
    extra_written: Option<[(u64, u32); 2]>,
    /// The host's words of each opaque bucket's draw words (its level, and
    /// whether members are painted in their level's colour), as last
    /// written, by the words' offset.
    host_words_written: HashMap<u32, [u32; 2]>,
    /// The buckets' draw arguments on their way back from the GPU, and
    /// the members drawn per level they last said.
    readback: Buffer,
    readback_state: Arc<AtomicU8>,
    visible_per_level: Option<[u32; MAX_LEVELS]>,
}

/// A view's `seen` before it first drew the crowd: nothing it shows has
/// moved.
const NOT_SEEN: u32 = u32::MAX;

/// Where a view's read-back of its draw arguments is.
const READBACK_IDLE: u8 = 0;
/// The copy is recorded (and submitted with the frame).
const READBACK_COPIED: u8 = 1;
const READBACK_MAPPING: u8 = 2;
const READBACK_READY: u8 = 3;
/// Bytes of the buckets' draw arguments: opaque and mirrored at each
/// level, translucent, shell; five words each.
const ARGS_BYTES: u64 = (2 * MAX_LEVELS as u64 + 2) * 20;

/// What the render world keeps of one crowd.
struct GpuCrowd {
    members: Option<Buffer>,
    motion: Buffer,
    params: Buffer,
    info: Buffer,
    corners: Buffer,
    indices: [Buffer; 2],
    layout: CrowdLayout,
    views: HashMap<RetainedViewEntity, CrowdView>,
    frame_number: u64,
    params_written: Option<CrowdParams>,
}

/// Every crowd the render world draws, by main-world entity.
#[derive(Resource, Default)]
pub(crate) struct GpuCrowds {
    crowds: HashMap<MainEntity, GpuCrowd>,
    frame_number: u64,
    empty_group: Option<BindGroup>,
}

/// The opaque members the crowds drew at each level of detail, over every
/// view, as last read back from the GPU: a resource of the main world (and,
/// shared, of the render world, which writes it), for an app's own display
/// (the battle example's title).
#[derive(Resource, Clone, Debug, Default)]
pub struct Md2CrowdLevels(Arc<std::sync::Mutex<[u64; MAX_LEVELS]>>);

impl Md2CrowdLevels {
    /// Members drawn per level, full detail first.
    pub fn get(&self) -> [u64; MAX_LEVELS] {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, counts: [u64; MAX_LEVELS]) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = counts;
    }
}

/// What the render world's crowds cost in the last frame (a resource of
/// the render world, `RenderApp`'s): for benchmarks, tests and overlays.
#[derive(Resource, Debug, Default)]
pub struct Md2CrowdStats {
    /// Bytes of GPU memory every crowd holds: its members, its model's
    /// corners and index lists, and every view's visible records and work
    /// buffer.
    pub gpu_bytes: u64,
    /// Bytes written into the crowds' buffers: their members' changes, and
    /// each view's uniforms where they changed (its time, every frame).
    pub bytes_written: u64,
    /// Views (cameras and shadow maps) whose crowd passes ran.
    pub views: u64,
    /// Indirect draws the crowds recorded, one per level and bucket of
    /// each view that drew them.
    pub indirect_draws: AtomicU64,
    /// Opaque members drawn at each level of detail, over every view, as
    /// the views' draw arguments last came back from the GPU (a frame or
    /// two late; a view reads back one frame's while the next ones draw).
    pub visible_per_level: [u64; MAX_LEVELS],
}

fn buffer(device: &RenderDevice, label: &str, size: u64, usage: BufferUsages) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size: size.max(16).div_ceil(4) * 4,
        usage,
        mapped_at_creation: false,
    })
}

fn buffer_with(
    device: &RenderDevice,
    queue: &RenderQueue,
    label: &str,
    bytes: &[u8],
    usage: BufferUsages,
) -> Buffer {
    let b = buffer(
        device,
        label,
        bytes.len() as u64,
        usage | BufferUsages::COPY_DST,
    );
    queue.write_buffer(&b, 0, bytes);
    b
}

/// A view's visible records: the passes write them, the draws read them.
fn records_buffer(device: &RenderDevice, bytes: u64) -> Buffer {
    buffer(
        device,
        "md2_bevy crowd records",
        bytes,
        BufferUsages::STORAGE,
    )
}

/// A view's work buffer: the passes' counts, the draws' indirect
/// arguments and draw words (a uniform at each bucket's offset), the
/// layout words the CPU writes, and the arguments read back.
fn work_buffer(device: &RenderDevice, bytes: u64) -> Buffer {
    let usage = BufferUsages::STORAGE
        | BufferUsages::INDIRECT
        | BufferUsages::UNIFORM
        | BufferUsages::COPY_DST
        | BufferUsages::COPY_SRC;
    buffer(device, "md2_bevy crowd work", bytes, usage)
}

/// Writes each crowd's changes into its buffers, and makes each camera's
/// records and work buffers the crowd's layout needs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_crowds(
    mut commands: Commands,
    mut gpu: ResMut<GpuCrowds>,
    crowds: Query<(&MainEntity, &ExtractedCrowd)>,
    views: Query<(
        &ExtractedView,
        Has<MotionVectorPrepass>,
        Option<&LightEntity>,
    )>,
    opaque: Res<ViewBinnedRenderPhases<Opaque3d>>,
    shadows: Res<ViewBinnedRenderPhases<Shadow>>,
    transparent: Res<ViewSortedRenderPhases<Transparent3d>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    levels: Option<Res<Md2CrowdLevels>>,
) {
    gpu.frame_number += 1;
    let frame_number = gpu.frame_number;
    let mut stats = Md2CrowdStats::default();
    let storage = BufferUsages::STORAGE | BufferUsages::COPY_DST;
    let uniform = BufferUsages::UNIFORM | BufferUsages::COPY_DST;
    for (main, crowd) in &crowds {
        let g = gpu.crowds.entry(*main).or_insert_with(|| GpuCrowd {
            members: None,
            motion: buffer(&device, "md2_bevy crowd motion stand-in", 80, storage),
            params: buffer(
                &device,
                "md2_bevy crowd params",
                size_of::<CrowdParams>() as u64,
                uniform,
            ),
            info: buffer_with(
                &device,
                &queue,
                "md2_bevy crowd model info",
                bytemuck::bytes_of(&crowd.model.info),
                BufferUsages::UNIFORM,
            ),
            corners: buffer_with(
                &device,
                &queue,
                "md2_bevy crowd corners",
                &crowd.model.corners,
                BufferUsages::VERTEX,
            ),
            indices: [&crowd.model.indices, &crowd.model.mirrored_indices].map(|list| {
                buffer_with(
                    &device,
                    &queue,
                    "md2_bevy crowd indices",
                    bytemuck::cast_slice(list),
                    BufferUsages::INDEX,
                )
            }),
            layout: CrowdLayout::default(),
            views: HashMap::new(),
            frame_number,
            params_written: None,
        });
        g.frame_number = frame_number;
        for write in &crowd.frame.writes {
            match write {
                CrowdWrite::NewMembers(bytes) => {
                    let members = buffer(&device, "md2_bevy crowd members", *bytes, storage);
                    g.members = Some(members);
                    // Every view's groups bind the old one.
                    for view in g.views.values_mut() {
                        view.pass_groups = None;
                        view.draw_group = None;
                    }
                }
                CrowdWrite::Members(offset, bytes) => {
                    if let Some(members) = &g.members {
                        queue.write_buffer(members, *offset, bytes);
                    }
                }
                CrowdWrite::NewMotion(bytes) => {
                    g.motion = buffer(&device, "md2_bevy crowd motion", *bytes, storage);
                    // Every view's passes bind the stand-in.
                    for view in g.views.values_mut() {
                        view.pass_groups = None;
                    }
                }
                CrowdWrite::Motion(offset, bytes) => {
                    queue.write_buffer(&g.motion, *offset, bytes);
                }
            }
        }
        stats.bytes_written += crowd.frame.written;
        if g.params_written != Some(crowd.frame.params) {
            queue.write_buffer(&g.params, 0, bytemuck::bytes_of(&crowd.frame.params));
            g.params_written = Some(crowd.frame.params);
            stats.bytes_written += size_of::<CrowdParams>() as u64;
        }
        g.layout = crowd.frame.layout;
        for (view, motion, light) in &views {
            let key = view.retained_view_entity;
            // A hidden crowd keeps its members' buffers but runs no passes
            // (its views are dropped below).
            if !crowd.visible || (opaque.get(&key).is_none() && shadows.get(&key).is_none()) {
                continue;
            }
            let layout = g.layout;
            // A camera sorts the translucent members and shells it draws
            // (a shadow map draws none).
            let sort = transparent.contains_key(&key) && layout.draws().any(|d| d.level.is_none());
            let (records_needed, work_needed) = if sort {
                (
                    layout.sorted_record_bytes(motion),
                    layout.sorted_work_bytes(),
                )
            } else {
                (layout.record_bytes(motion), layout.work_bytes())
            };
            let entry = g.views.entry(view.retained_view_entity);
            let v = entry.or_insert_with(|| CrowdView {
                records: records_buffer(&device, records_needed),
                work: work_buffer(&device, work_needed),
                view: buffer(
                    &device,
                    "md2_bevy crowd view",
                    size_of::<md2_wgpu::contract::ViewUniform>() as u64,
                    uniform,
                ),
                frame: buffer(
                    &device,
                    "md2_bevy crowd frame",
                    size_of::<CrowdFrame>() as u64,
                    uniform,
                ),
                layout,
                pass_groups: None,
                draw_group: None,
                frame_number,
                view_written: None,
                frame_written: None,
                extra: motion,
                sort: false,
                sort_written: None,
                previous_now: None,
                seen: NOT_SEEN,
                extra_written: None,
                host_words_written: HashMap::new(),
                readback: buffer(
                    &device,
                    "md2_bevy crowd draw arguments read back",
                    ARGS_BYTES,
                    BufferUsages::MAP_READ | BufferUsages::COPY_DST,
                ),
                readback_state: Arc::new(AtomicU8::new(READBACK_IDLE)),
                visible_per_level: None,
            });
            if v.records.size() < records_needed {
                v.records = records_buffer(&device, records_needed.next_power_of_two());
                v.pass_groups = None;
                v.draw_group = None;
            }
            if v.work.size() < work_needed {
                v.work = work_buffer(&device, work_needed.next_power_of_two());
                v.pass_groups = None;
                v.draw_group = None;
                v.extra_written = None;
                v.sort_written = None;
                v.host_words_written.clear();
            }
            v.sort = sort;
            if sort {
                let words = layout.sort_words();
                if v.sort_written != Some(words) {
                    queue.write_buffer(&v.work, words.0, bytemuck::cast_slice(&words.1));
                    v.sort_written = Some(words);
                    stats.bytes_written += 24;
                }
            }
            // Each opaque bucket's level and the tint switch, in the two
            // words of its draw words that the passes leave to the host
            // (docs/contract.md): what the fragment stage paints by.
            for draw in layout.draws() {
                let Some(level) = draw.level else {
                    continue;
                };
                let words = [level as u32, u32::from(crowd.level_tint)];
                if v.host_words_written.get(&draw.draw_offset) != Some(&words) {
                    let offset = u64::from(draw.draw_offset) + 8;
                    queue.write_buffer(&v.work, offset, bytemuck::cast_slice(&words));
                    v.host_words_written.insert(draw.draw_offset, words);
                    stats.bytes_written += 8;
                }
            }
            if v.extra != motion {
                // The camera took or dropped its motion-vector prepass.
                v.extra = motion;
                v.previous_now = None;
                v.seen = NOT_SEEN;
                v.extra_written = None;
            }
            if motion {
                // Where the extra records start, and which of the crowd's
                // changes the view has drawn (those after, its passes take
                // the previous transform and pose of from the motion
                // buffer).
                let words = if sort {
                    layout.sorted_extra_words(v.seen)
                } else {
                    layout.extra_words(v.seen)
                };
                for (i, &(offset, word)) in words.iter().enumerate() {
                    if v.extra_written.is_none_or(|w| w[i] != (offset, word)) {
                        queue.write_buffer(&v.work, offset, bytemuck::bytes_of(&word));
                        stats.bytes_written += 4;
                    }
                }
                v.extra_written = Some(words);
                v.seen = crowd.frame.motion_generation;
            }
            v.layout = layout;
            v.frame_number = frame_number;
            let view_proj = view.clip_from_world.unwrap_or_else(|| {
                view.clip_from_view * view.world_from_view.to_matrix().inverse()
            });
            let mut view_proj = md2_wgpu::glam::Mat4::from_cols_array(&view_proj.to_cols_array());
            if matches!(light, Some(LightEntity::Directional { .. })) {
                // A directional light's cascade keeps casters between the
                // light and its near plane (Bevy clamps their depth, and
                // culls its own casters without the near plane:
                // bevy_light lib.rs:455): the passes' near plane, clip
                // z <= w (reversed depth), is pushed 10,000 cascade depths
                // towards the light by scaling the clip z row, which
                // leaves the far plane (z >= 0), the sides and the level
                // choice (rows 0, 1 and 3) as they are. The records are
                // drawn through Bevy's own view, so no depth changes.
                view_proj = md2_wgpu::glam::Mat4::from_diagonal(md2_wgpu::glam::Vec4::new(
                    1.0, 1.0, 1e-4, 1.0,
                )) * view_proj;
            }
            let viewport = md2_wgpu::glam::UVec2::new(view.viewport.z, view.viewport.w);
            let camera = Md2Camera::new(view_proj).with_viewport(viewport);
            let uniform = camera.uniform(None, true, view_proj, crowd.level_error_pixels);
            if v.view_written != Some(uniform) {
                queue.write_buffer(&v.view, 0, bytemuck::bytes_of(&uniform));
                v.view_written = Some(uniform);
                stats.bytes_written += size_of_val(&uniform) as u64;
            }
            let mut frame = if motion {
                let frame = CrowdFrame::new(crowd.frame.now, Some(v.previous_now));
                v.previous_now = Some(crowd.frame.now);
                frame.unwrap_or(crowd.frame.frame)
            } else {
                crowd.frame.frame
            };
            if sort {
                frame = frame.sorted();
            }
            if v.frame_written != Some(frame) {
                queue.write_buffer(&v.frame, 0, bytemuck::bytes_of(&frame));
                v.frame_written = Some(frame);
                stats.bytes_written += size_of::<CrowdFrame>() as u64;
            }
        }
        g.views.retain(|_, v| v.frame_number == frame_number);
    }
    gpu.crowds.retain(|_, g| g.frame_number == frame_number);
    for g in gpu.crowds.values_mut() {
        for v in g.views.values_mut() {
            take_readback(v);
        }
    }
    for g in gpu.crowds.values() {
        let own = [
            &g.motion,
            &g.params,
            &g.info,
            &g.corners,
            &g.indices[0],
            &g.indices[1],
        ];
        stats.gpu_bytes += own.iter().map(|b| b.size()).sum::<u64>();
        stats.gpu_bytes += g.members.as_ref().map_or(0, |b| b.size());
        for v in g.views.values() {
            stats.views += 1;
            for (sum, n) in stats
                .visible_per_level
                .iter_mut()
                .zip(v.visible_per_level.unwrap_or_default())
            {
                *sum += u64::from(n);
            }
            stats.gpu_bytes += [&v.records, &v.work, &v.view, &v.frame]
                .iter()
                .map(|b| b.size())
                .sum::<u64>();
        }
    }
    if let Some(levels) = levels {
        levels.set(stats.visible_per_level);
    }
    commands.insert_resource(stats);
}

/// The view's draw arguments, where they have come back: the opaque
/// members drawn per level.
fn take_readback(v: &mut CrowdView) {
    if v.readback_state.load(Ordering::Acquire) != READBACK_READY {
        return;
    }
    {
        let bytes = v.readback.slice(..ARGS_BYTES).get_mapped_range();
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let mut per_level = [0; MAX_LEVELS];
        for (level, count) in per_level.iter_mut().enumerate() {
            // Opaque at `level`, then opaque mirrored; the instance count
            // is each DrawIndexedIndirectArgs' second word.
            *count = words[(2 * level) * 5 + 1] + words[(2 * level + 1) * 5 + 1];
        }
        v.visible_per_level = Some(per_level);
    }
    v.readback.unmap();
    v.readback_state.store(READBACK_IDLE, Ordering::Release);
}

/// Asks for every view's draw arguments copied this frame (after the
/// frame's submission).
pub(crate) fn map_crowd_readbacks(gpu: Res<GpuCrowds>) {
    for g in gpu.crowds.values() {
        for v in g.views.values() {
            if v.readback_state.load(Ordering::Acquire) != READBACK_COPIED {
                continue;
            }
            v.readback_state.store(READBACK_MAPPING, Ordering::Release);
            let state = Arc::clone(&v.readback_state);
            v.readback
                .slice(..ARGS_BYTES)
                .map_async(MapMode::Read, move |result| {
                    let next = if result.is_ok() {
                        READBACK_READY
                    } else {
                        READBACK_IDLE
                    };
                    state.store(next, Ordering::Release);
                });
        }
    }
}

fn whole(buffer: &Buffer) -> BindingResource<'_> {
    BindingResource::Buffer(BufferBinding {
        buffer,
        offset: 0,
        size: None,
    })
}

/// A bind group entry.
fn at(binding: u32, resource: BindingResource<'_>) -> BindGroupEntry<'_> {
    BindGroupEntry { binding, resource }
}

fn sixteen(buffer: &Buffer) -> BindingResource<'_> {
    BindingResource::Buffer(BufferBinding {
        buffer,
        offset: 0,
        size: NonZeroU64::new(16),
    })
}

/// The passes' and the draws' bind groups, made where a buffer they bind
/// was made anew.
pub(crate) fn prepare_crowd_groups(
    mut gpu: ResMut<GpuCrowds>,
    crowds: Query<(&MainEntity, &ExtractedCrowd)>,
    pipelines: Res<CrowdPipelines>,
    cache: Res<PipelineCache>,
    device: Res<RenderDevice>,
    buffers: Res<RenderAssets<GpuShaderBuffer>>,
    images: Res<RenderAssets<GpuImage>>,
) {
    if gpu.empty_group.is_none() {
        let layout = cache.get_bind_group_layout(&pipelines.empty_layout);
        gpu.empty_group = Some(device.create_bind_group("md2_bevy crowd no mesh", &layout, &[]));
    }
    let draw_layout = cache.get_bind_group_layout(&pipelines.draw_layout);
    for (main, crowd) in &crowds {
        let Some(g) = gpu.crowds.get_mut(main) else {
            continue;
        };
        let Some(members) = g.members.clone() else {
            continue;
        };
        let (vertices, frame_params, skins) = (
            buffers.get(crowd.model.vertices),
            buffers.get(crowd.model.frame_params),
            images.get(crowd.model.skins),
        );
        for v in g.views.values_mut() {
            if v.pass_groups.is_none() {
                let groups = [
                    vec![at(0, whole(&v.view))],
                    vec![
                        at(0, whole(&members)),
                        at(1, whole(&g.params)),
                        at(2, whole(&g.motion)),
                    ],
                    vec![
                        at(0, whole(&v.frame)),
                        at(1, whole(&v.records)),
                        at(2, whole(&v.work)),
                        at(3, sixteen(&pipelines.steps_buffer)),
                    ],
                ];
                let made: Vec<BindGroup> = groups
                    .iter()
                    .zip(&pipelines.pass_layouts)
                    .map(|(entries, layout)| {
                        device.create_bind_group("md2_bevy crowd passes", layout, entries)
                    })
                    .collect();
                v.pass_groups = made.try_into().ok();
            }
            if v.draw_group.is_none()
                && let (Some(vertices), Some(frame_params), Some(skins)) =
                    (vertices, frame_params, skins)
            {
                v.draw_group = Some(device.create_bind_group(
                    "md2_bevy crowd draws",
                    &draw_layout,
                    &[
                        at(0, whole(&g.info)),
                        at(1, whole(&vertices.buffer)),
                        at(2, whole(&frame_params.buffer)),
                        at(5, BindingResource::TextureView(&skins.texture_view)),
                        at(6, BindingResource::Sampler(&skins.sampler)),
                        at(CROWD_DRAW_BINDING, sixteen(&v.work)),
                        at(CROWD_RECORDS_BINDING, whole(&v.records)),
                        at(CROWD_MEMBERS_BINDING, whole(&members)),
                    ],
                ));
            }
        }
    }
}

/// Runs every crowd's passes for every camera that draws it, before the
/// cameras draw.
pub(crate) fn run_crowd_passes(
    mut context: RenderContext,
    gpu: Res<GpuCrowds>,
    pipelines: Res<CrowdPipelines>,
) {
    if gpu.crowds.values().all(|g| g.views.is_empty()) {
        return;
    }
    let encoder = context.command_encoder();
    let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
        label: Some("md2_bevy crowd passes"),
        timestamp_writes: None,
    });
    let mut ran = Vec::new();
    for g in gpu.crowds.values() {
        for v in g.views.values() {
            let Some(groups) = &v.pass_groups else {
                continue;
            };
            ran.push(v);
            pass.set_bind_group(0, &groups[0], &[]);
            pass.set_bind_group(1, &groups[1], &[]);
            // md2-wgpu's plan: classify, scan, emit, and where the view
            // sorts, each sorted bucket's steps and gather.
            for step in v.layout.dispatches(v.sort.then_some(&pipelines.steps)) {
                let Some(at) = PASS_ENTRIES.iter().position(|e| *e == step.entry) else {
                    continue;
                };
                pass.set_bind_group(2, &groups[2], &[step.step_offset]);
                pass.set_pipeline(&pipelines.passes[at]);
                if step.workgroups > 0 {
                    let x = step.workgroups.min(MAX_GROUPS_X);
                    pass.dispatch_workgroups(x, step.workgroups.div_ceil(x), 1);
                }
            }
        }
    }
    drop(pass);
    // The draw arguments of each view not still reading back an earlier
    // frame's, for the visible counts.
    for v in ran {
        if v.readback_state.load(Ordering::Acquire) == READBACK_IDLE {
            encoder.copy_buffer_to_buffer(&v.work, 0, &v.readback, 0, ARGS_BYTES);
            v.readback_state.store(READBACK_COPIED, Ordering::Release);
        }
    }
}

/// Bins left waiting for a pipeline or a loaded model, per view.
#[derive(Resource, Default, bevy::prelude::Deref, bevy::prelude::DerefMut)]
pub(crate) struct PendingCrowdQueues(PendingQueues);

/// Whether opaque materials draw deferred (Bevy's
/// `DefaultOpaqueRendererMethod`, which md2-bevy's materials follow: its
/// value is private, read through reflection).
fn deferred_by_default(method: &DefaultOpaqueRendererMethod) -> bool {
    match method.reflect_ref() {
        ReflectRef::TupleStruct(method) => method
            .field(0)
            .and_then(|f| f.try_downcast_ref::<OpaqueRendererMethod>())
            .is_some_and(|m| *m == OpaqueRendererMethod::Deferred),
        _ => false,
    }
}

/// A camera's phases a crowd is drawn in.
#[derive(SystemParam)]
pub(crate) struct CameraPhases<'w> {
    opaque: ResMut<'w, ViewBinnedRenderPhases<Opaque3d>>,
    prepass: ResMut<'w, ViewBinnedRenderPhases<Opaque3dPrepass>>,
    deferred: ResMut<'w, ViewBinnedRenderPhases<AlphaMask3dDeferred>>,
    opaque_draws: Res<'w, DrawFunctions<Opaque3d>>,
    prepass_draws: Res<'w, DrawFunctions<Opaque3dPrepass>>,
    deferred_draws: Res<'w, DrawFunctions<AlphaMask3dDeferred>>,
    view_keys: Res<'w, ViewKeyCache>,
    prepass_keys: Res<'w, ViewKeyPrepassCache>,
    method: Res<'w, DefaultOpaqueRendererMethod>,
}

/// Which of a camera's phases.
#[derive(Clone, Copy)]
enum CameraPhase {
    Opaque,
    Prepass,
    Deferred,
}

/// Puts each crowd a camera sees (every crowd: the passes cull) into the
/// camera's phases, once each, as one item: its main opaque pass (forward),
/// its depth, normal and motion-vector prepass, or its deferred G-buffer
/// pass where opaque materials draw deferred, as Bevy places an opaque
/// material's mesh (a deferred one is in no forward pass, and in the
/// G-buffer of cameras with a `DeferredPrepass`).
///
/// In the G-buffer pass the crowd's item is in the alpha-mask phase
/// (`AlphaMask3dDeferred`; the crowd discards nothing): Bevy 0.19.1's
/// deferred pass draws its opaque phase only where it holds meshes
/// (`bevy_core_pipeline` deferred/node.rs:225 leaves out non-mesh items),
/// so a crowd alone in a deferred camera's opaque phase would not be drawn;
/// the alpha-mask phase is drawn wherever it holds anything, in the same
/// render pass, after the opaque meshes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowds(
    cache: Res<PipelineCache>,
    pipelines: Res<CrowdPipelines>,
    mut specialized: ResMut<SpecializedMeshPipelines<CrowdPipelines>>,
    mut phases: CameraPhases,
    views: Query<(&ExtractedView, &RenderVisibleEntities)>,
    crowds: Query<&ExtractedCrowd>,
    meshes: Res<RenderAssets<RenderMesh>>,
    dirty: Res<DirtySpecializations>,
    mut pending: ResMut<PendingCrowdQueues>,
) {
    let draws = [
        phases.opaque_draws.read().id::<DrawCrowd<OPAQUE>>(),
        phases.prepass_draws.read().id::<DrawCrowdPrepass>(),
        phases.deferred_draws.read().id::<DrawCrowdPrepass>(),
    ];
    let deferred = deferred_by_default(&phases.method);
    for (view, visible) in &views {
        let key = view.retained_view_entity;
        let Some(visible) = visible.get::<Md2Crowd>() else {
            continue;
        };
        // The passes this camera draws the crowd in, with their keys.
        let mut passes = Vec::new();
        if !deferred
            && phases.opaque.contains_key(&key)
            && let Some(&view_key) = phases.view_keys.get(&key)
        {
            passes.push((CameraPhase::Opaque, false, view_key));
        }
        if let Some(&prepass_key) = phases.prepass_keys.get(&key) {
            if deferred && phases.deferred.contains_key(&key) {
                let key = prepass_key | MeshPipelineKey::DEFERRED_PREPASS;
                passes.push((CameraPhase::Deferred, true, key));
            } else if phases.prepass.contains_key(&key) {
                passes.push((CameraPhase::Prepass, true, prepass_key));
            }
        }
        if passes.is_empty() {
            continue;
        }
        let waiting = pending.prepare_for_new_frame(key);
        for &main in dirty.iter_to_dequeue(key, visible) {
            phases.remove(key, main);
        }
        for (&render, &main) in dirty.iter_to_queue(key, visible, &waiting.prev_frame) {
            let mesh = crowds
                .get(render)
                .ok()
                .and_then(|crowd| meshes.get(crowd.model.mesh));
            // Every pass's pipeline, or the crowd waits for all of them.
            let pipelines: Option<Vec<_>> = mesh.and_then(|mesh| {
                passes
                    .iter()
                    .map(|&(phase, prepass, view_key)| {
                        let key = CrowdPipelineKey {
                            blend: CrowdBlend::Opaque,
                            prepass,
                            shadow: false,
                            mesh_key: view_key
                                | MeshPipelineKey::from_bits_retain(mesh.key_bits.bits()),
                        };
                        specialized
                            .specialize(&cache, &pipelines, key, &mesh.layout)
                            .ok()
                            .map(|pipeline| (phase, pipeline))
                    })
                    .collect()
            });
            let Some(pipelines) = pipelines else {
                waiting.current_frame.insert((render, main));
                continue;
            };
            // Out of the bins it was in (a pipeline may have changed).
            phases.remove(key, main);
            for (phase, pipeline) in pipelines {
                phases.add(key, phase, draws, pipeline, (render, main));
            }
        }
    }
}

impl CameraPhases<'_> {
    fn remove(&mut self, view: RetainedViewEntity, main: MainEntity) {
        if let Some(phase) = self.opaque.get_mut(&view) {
            phase.remove(main);
        }
        if let Some(phase) = self.prepass.get_mut(&view) {
            phase.remove(main);
        }
        if let Some(phase) = self.deferred.get_mut(&view) {
            phase.remove(main);
        }
    }

    /// The crowd `entity` into `view`'s `phase`, as one non-mesh item
    /// (drawn one by one, never merged with another).
    fn add(
        &mut self,
        view: RetainedViewEntity,
        phase: CameraPhase,
        draws: [DrawFunctionId; 3],
        pipeline: CachedRenderPipelineId,
        entity: (Entity, MainEntity),
    ) {
        let (index, kind) = (InputUniformIndex::default(), BinnedRenderPhaseType::NonMesh);
        let asset_id = AssetId::<Mesh>::invalid().untyped();
        let prepass_keys = |draw_function| {
            (
                OpaqueNoLightmap3dBatchSetKey {
                    pipeline,
                    draw_function,
                    material_bind_group_index: None,
                    slabs: MeshSlabs::default(),
                },
                OpaqueNoLightmap3dBinKey { asset_id },
            )
        };
        match phase {
            CameraPhase::Opaque => {
                if let Some(phase) = self.opaque.get_mut(&view) {
                    let set = Opaque3dBatchSetKey {
                        draw_function: draws[0],
                        pipeline,
                        material_bind_group_index: None,
                        lightmap_slab: None,
                        slabs: MeshSlabs::default(),
                    };
                    phase.add(set, Opaque3dBinKey { asset_id }, entity, index, kind);
                }
            }
            CameraPhase::Prepass => {
                if let Some(phase) = self.prepass.get_mut(&view) {
                    let (set, bin) = prepass_keys(draws[1]);
                    phase.add(set, bin, entity, index, kind);
                }
            }
            CameraPhase::Deferred => {
                if let Some(phase) = self.deferred.get_mut(&view) {
                    let (set, bin) = prepass_keys(draws[2]);
                    phase.add(set, bin, entity, index, kind);
                }
            }
        }
    }
}

/// Which buckets a crowd's phase item draws: `OPAQUE` (every level, each
/// winding), `TRANSLUCENT` or `SHELLS`.
pub(crate) const OPAQUE: u8 = 0;
pub(crate) const TRANSLUCENT: u8 = 1;
pub(crate) const SHELLS: u8 = 2;

/// The crowd's draws in one view: per bucket of its kind (`KIND`), its
/// draw words at their dynamic offset and one indirect draw.
pub(crate) struct DrawCrowdBuckets<const KIND: u8>;

impl<P: PhaseItem, const KIND: u8> RenderCommand<P> for DrawCrowdBuckets<KIND> {
    type Param = (SRes<GpuCrowds>, Option<SRes<Md2CrowdStats>>);
    type ViewQuery = Read<ExtractedView>;
    type ItemQuery = ();

    fn render<'w>(
        item: &P,
        view: ROQueryItem<'w, '_, Self::ViewQuery>,
        _: Option<ROQueryItem<'w, '_, Self::ItemQuery>>,
        (gpu, stats): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let gpu = gpu.into_inner();
        let (Some(crowd), Some(empty)) = (gpu.crowds.get(&item.main_entity()), &gpu.empty_group)
        else {
            return RenderCommandResult::Skip;
        };
        let Some(v) = crowd.views.get(&view.retained_view_entity) else {
            return RenderCommandResult::Skip;
        };
        let Some(group) = &v.draw_group else {
            return RenderCommandResult::Skip;
        };
        pass.set_bind_group(2, empty, &[]);
        pass.set_vertex_buffer(0, crowd.corners.slice(..));
        let drawn = v.layout.draws().filter(|d| match KIND {
            OPAQUE => d.level.is_some(),
            TRANSLUCENT => d.bucket == TRANSLUCENT_BUCKET,
            _ => d.bucket == SHELL_BUCKET,
        });
        for draw in drawn {
            let indices = &crowd.indices[usize::from(draw.mirrored)];
            pass.set_index_buffer(indices.slice(..), IndexFormat::Uint32);
            pass.set_bind_group(3, group, &[draw.draw_offset]);
            pass.draw_indexed_indirect(&v.work, draw.args_offset);
            if let Some(stats) = &stats {
                stats.indirect_draws.fetch_add(1, Ordering::Relaxed);
            }
        }
        RenderCommandResult::Success
    }
}

/// A crowd's draw in the main pass: its opaque buckets, or (in the
/// transparent phase) its translucent or its shell bucket.
pub(crate) type DrawCrowd<const KIND: u8> = (
    SetItemPipeline,
    SetMeshViewBindGroup<0>,
    SetMeshViewBindingArrayBindGroup<1>,
    DrawCrowdBuckets<KIND>,
);

/// A crowd's draw in a shadow map, a camera's prepass or its deferred
/// G-buffer pass.
pub(crate) type DrawCrowdPrepass = (
    SetItemPipeline,
    SetPrepassViewBindGroup<0>,
    SetPrepassViewEmptyBindGroup<1>,
    DrawCrowdBuckets<OPAQUE>,
);

/// The (shadow view, crowd) pairs whose item is in the view's shadow
/// phase.
#[derive(Resource, Default)]
pub(crate) struct QueuedCrowdShadows(HashSet<(RetainedViewEntity, MainEntity)>);

/// Puts every crowd into every shadow map's phase (each shadow view runs
/// the crowd's passes, which cull against it), once, as one item; takes it
/// out of the views of a crowd gone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowd_shadows(
    cache: Res<PipelineCache>,
    pipelines: Res<CrowdPipelines>,
    mut specialized: ResMut<SpecializedMeshPipelines<CrowdPipelines>>,
    mut phases: ResMut<ViewBinnedRenderPhases<Shadow>>,
    draw_functions: Res<DrawFunctions<Shadow>>,
    lights: Query<&ExtractedView, With<LightEntity>>,
    light_keys: Res<LightKeyCache>,
    crowds: Query<(Entity, &MainEntity, &ExtractedCrowd)>,
    meshes: Res<RenderAssets<RenderMesh>>,
    mut queued: ResMut<QueuedCrowdShadows>,
) {
    if pipelines.prepass_pipeline.is_none() {
        return;
    }
    let draw = draw_functions.read().id::<DrawCrowdPrepass>();
    let live: HashSet<MainEntity> = crowds
        .iter()
        .filter(|(.., crowd)| crowd.visible)
        .map(|(_, main, _)| *main)
        .collect();
    let views: HashSet<RetainedViewEntity> =
        lights.iter().map(|v| v.retained_view_entity).collect();
    queued.0.retain(|(view, main)| {
        let keep = views.contains(view) && live.contains(main);
        if !keep && let Some(phase) = phases.get_mut(view) {
            phase.remove(*main);
        }
        keep
    });
    for view in &lights {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let Some(light_key) = light_keys.get(&view.retained_view_entity) else {
            continue;
        };
        for (render, main, crowd) in &crowds {
            if !crowd.visible || queued.0.contains(&(view.retained_view_entity, *main)) {
                continue;
            }
            let Some(mesh) = meshes.get(crowd.model.mesh) else {
                continue;
            };
            let key = CrowdPipelineKey {
                blend: CrowdBlend::Opaque,
                prepass: true,
                shadow: true,
                mesh_key: *light_key | MeshPipelineKey::from_bits_retain(mesh.key_bits.bits()),
            };
            let Ok(pipeline) = specialized.specialize(&cache, &pipelines, key, &mesh.layout) else {
                continue;
            };
            phase.add(
                ShadowBatchSetKey {
                    pipeline,
                    draw_function: draw,
                    material_bind_group_index: None,
                    slabs: MeshSlabs::default(),
                },
                ShadowBinKey {
                    asset_id: AssetId::<Mesh>::invalid().untyped(),
                },
                (render, *main),
                InputUniformIndex::default(),
                BinnedRenderPhaseType::NonMesh,
            );
            queued.0.insert((view.retained_view_entity, *main));
        }
    }
}

/// Puts each crowd with translucent members or shells into each camera's
/// transparent phase, this frame: one item for its translucent bucket, one
/// for its shells (drawn after it), each sorted back to front among
/// themselves by the crowd's passes. A crowd as a whole has no place to
/// sort it by among the view's other transparent things: its items come
/// last (`AlwaysOnTop`), over them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowd_transparent(
    cache: Res<PipelineCache>,
    pipelines: Res<CrowdPipelines>,
    mut specialized: ResMut<SpecializedMeshPipelines<CrowdPipelines>>,
    mut phases: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    draw_functions: Res<DrawFunctions<Transparent3d>>,
    views: Query<(&ExtractedView, &RenderVisibleEntities)>,
    view_keys: Res<ViewKeyCache>,
    crowds: Query<&ExtractedCrowd>,
    meshes: Res<RenderAssets<RenderMesh>>,
) {
    let draws = {
        let functions = draw_functions.read();
        [
            functions.id::<DrawCrowd<TRANSLUCENT>>(),
            functions.id::<DrawCrowd<SHELLS>>(),
        ]
    };
    for (view, visible) in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let (Some(visible), Some(view_key)) = (
            visible.get::<Md2Crowd>(),
            view_keys.get(&view.retained_view_entity),
        ) else {
            continue;
        };
        for &(render, main) in &visible.entities_cpu_culling {
            let Ok(crowd) = crowds.get(render) else {
                continue;
            };
            let Some(mesh) = meshes.get(crowd.model.mesh) else {
                continue;
            };
            let layout = crowd.frame.layout;
            let kinds = [
                (
                    CrowdBlend::Translucent,
                    TRANSLUCENT_BUCKET,
                    render,
                    draws[0],
                ),
                // The same crowd's second item: another key in the phase.
                (
                    CrowdBlend::Shell,
                    SHELL_BUCKET,
                    Entity::PLACEHOLDER,
                    draws[1],
                ),
            ];
            for (blend, bucket, entity, draw_function) in kinds {
                if !layout.draws().any(|d| d.bucket == bucket) {
                    continue;
                }
                let key = CrowdPipelineKey {
                    blend,
                    prepass: false,
                    shadow: false,
                    mesh_key: *view_key | MeshPipelineKey::from_bits_retain(mesh.key_bits.bits()),
                };
                let Ok(pipeline) = specialized.specialize(&cache, &pipelines, key, &mesh.layout)
                else {
                    continue;
                };
                phase.add_transient(Transparent3d {
                    sorting_info: TransparentSortingInfo3d::AlwaysOnTop,
                    distance: 0.0,
                    pipeline,
                    entity: (entity, main),
                    draw_function,
                    batch_range: 0..1,
                    extra_index: PhaseItemExtraIndex::None,
                    indexed: true,
                });
            }
        }
    }
}
