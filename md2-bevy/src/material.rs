//! The material every MD2 model draws with: the model's GPU data (the
//! contract's bytes, uploaded once), its entities' poses and its skins, at
//! Bevy's material bind group, and the shaders that pose the model in every
//! pass Bevy draws a mesh in.

use bevy::asset::Handle;
use bevy::image::Image;
use bevy::material::OpaqueRendererMethod;
use bevy::mesh::{Mesh, MeshVertexBufferLayoutRef};
use bevy::pbr::{Material, MaterialPipeline, MaterialPipelineKey};
use bevy::reflect::TypePath;
use bevy::render::render_resource::{
    AsBindGroup, Face, RenderPipelineDescriptor, ShaderType, SpecializedMeshPipelineError,
};
use bevy::render::storage::ShaderBuffer;
use bevy::shader::ShaderRef;

use crate::mesh::ATTRIBUTE_MD2_VERTEX;
use crate::shaders::{FRAGMENT_SHADER, VERTEX_SHADER};

/// `Md2ModelInfo`, the pose's uniform: the model's counts
/// ([`md2_wgpu::contract::ModelInfo`], 16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ShaderType)]
pub struct Md2ModelInfo {
    /// Vertices per frame.
    pub num_xyz: u32,
    /// Frames.
    pub num_frames: u32,
    /// The contract's `MD2_MODEL_*` bits
    /// ([`md2_wgpu::contract::MODEL_FULLBRIGHT_MASKS`]: the skins' second
    /// half are fullbright masks, lit fully by the fragment stage).
    pub flags: u32,
    /// Padding to 16 bytes, as the contract's record has it.
    pub padding_b: u32,
}

/// One MD2 model's GPU data as a Bevy [`Material`]: the loader makes one
/// per model ([`Md2Asset::material`](crate::Md2Asset::material)), and every
/// entity of the model draws with it, so Bevy batches them into one draw
/// per pass.
///
/// | binding (group 3) | WGSL | what |
/// |---|---|---|
/// | 0 | `md2_model` | [`Md2ModelInfo`], uniform |
/// | 1 | `md2_verts` | every frame's packed vertices, the file's 4 bytes each |
/// | 2 | `md2_frame_params` | Quake II's normals, padded to 256 ([`normal_table`](md2_wgpu::contract::normal_table)), then per frame (scale, 0), (translate, 0) |
/// | 4 | `md2_entity_poses` | a pose record per entity, at its [`MeshTag`](bevy::mesh::MeshTag) |
/// | 5, 6 | `md2_skins`, `md2_skin_sampler` | the skins as one sRGB texture array with mips (then their fullbright masks, where `flags` says so) |
///
/// Bindings 0 to 2 are md2-wgpu's [`PoseBindings`](md2_wgpu::contract::PoseBindings)
/// at the material's group, and the bytes are [`ModelData`](md2_wgpu::ModelData)'s.
/// The shaders read nothing else of the mesh than the corner's vertex index
/// and uv, so one vertex layout serves the main pass, the prepasses, the
/// shadow maps and the deferred pass.
#[derive(AsBindGroup, TypePath, Clone, Debug, bevy::asset::Asset)]
pub struct Md2Material {
    /// The model's counts.
    #[uniform(0)]
    pub info: Md2ModelInfo,
    /// `md2_verts`: [`ModelData::vertex_bytes`](md2_wgpu::ModelData::vertex_bytes).
    #[storage(1, read_only, visibility(vertex))]
    pub vertices: Handle<ShaderBuffer>,
    /// `md2_frame_params`: [`ModelData::frame_param_bytes`](md2_wgpu::ModelData::frame_param_bytes),
    /// the normal table the pose's normal index reads (every byte's value
    /// in range), then each frame's scale and translate. Storage: a uniform
    /// read at each vertex's own index is serialised on NVIDIA GPUs.
    #[storage(2, read_only, visibility(vertex))]
    pub frame_params: Handle<ShaderBuffer>,
    /// `md2_entity_poses`: one 80-byte record per entity slot, rewritten in
    /// place every frame.
    #[storage(4, read_only, visibility(vertex, fragment))]
    pub poses: Handle<ShaderBuffer>,
    /// `md2_skins`: [`md2_wgpu::contract::SkinArray`]'s layers.
    #[texture(5, dimension = "2d_array")]
    #[sampler(6)]
    pub skins: Handle<Image>,
}

impl Material for Md2Material {
    fn vertex_shader() -> ShaderRef {
        ShaderRef::Handle(VERTEX_SHADER)
    }

    fn fragment_shader() -> ShaderRef {
        ShaderRef::Handle(FRAGMENT_SHADER)
    }

    // The depth, normal and motion-vector prepasses and every shadow map:
    // the same vertex stage, with Bevy's prepass fragment.
    fn prepass_vertex_shader() -> ShaderRef {
        ShaderRef::Handle(VERTEX_SHADER)
    }

    fn deferred_vertex_shader() -> ShaderRef {
        ShaderRef::Handle(VERTEX_SHADER)
    }

    fn deferred_fragment_shader() -> ShaderRef {
        ShaderRef::Handle(FRAGMENT_SHADER)
    }

    // Forward or deferred as the app's DefaultOpaqueRendererMethod says.
    fn opaque_render_method(&self) -> OpaqueRendererMethod {
        OpaqueRendererMethod::Auto
    }

    // Bevy calls this for every pipeline it builds for the material: main,
    // prepass, shadow and deferred. The mesh pipelines ask for the standard
    // attributes they find (the uv, at location 2 in the main pass and 1 in
    // the prepass); MD2 shaders take the corner's vertex index and uv at
    // locations 0 and 1 in every pass.
    fn specialize(
        _pipeline: &MaterialPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        _key: MaterialPipelineKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        let corners = layout.0.get_layout(&[
            ATTRIBUTE_MD2_VERTEX.at_shader_location(0),
            Mesh::ATTRIBUTE_UV_0.at_shader_location(1),
        ])?;
        descriptor.vertex.buffers = vec![corners];
        // The mesh's triangles face outwards counter-clockwise (the
        // contract's mirrored list: MD2 files wind them the other way).
        descriptor.primitive.cull_mode = Some(Face::Back);
        Ok(())
    }
}
