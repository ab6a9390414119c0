//! Reading a camera's prepass back: a quad right in front of the camera
//! (as Bevy's `shader_prepass` example has it) whose material writes the
//! prepass's motion vector and depth at each pixel into the colour target
//! (RGBA16F, no tonemapping: the values as written). It has no prepass and
//! casts no shadow, so the prepass holds only the scene; it is on a render
//! layer of its own, which only its camera sees.

use bevy::asset::uuid_handle;
use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy::render::render_resource::AsBindGroup;
use bevy::shader::ShaderRef;

/// The render layer only probe cameras see.
const PROBE_LAYER: usize = 7;

const PROBE_SHADER: Handle<Shader> = uuid_handle!("5e0c4b1a-0d9b-4a57-8a55-6b1f0c7e9a11");

const PROBE_WGSL: &str = r#"
#import bevy_pbr::{forward_io::VertexOutput, prepass_utils}

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    var motion = vec2<f32>(0.0);
    var depth = 0.0;
#ifdef MOTION_VECTOR_PREPASS
    motion = prepass_utils::prepass_motion_vector(in.position, 0u);
#endif
#ifdef DEPTH_PREPASS
    depth = prepass_utils::prepass_depth(in.position, 0u);
#endif
    return vec4<f32>(motion, depth, 1.0);
}
"#;

/// The probe's material.
#[derive(Asset, TypePath, AsBindGroup, Clone, Debug, Default)]
pub struct PrepassProbe {}

impl Material for PrepassProbe {
    fn fragment_shader() -> ShaderRef {
        ShaderRef::Handle(PROBE_SHADER)
    }

    fn enable_prepass() -> bool {
        false
    }

    fn enable_shadows() -> bool {
        false
    }
}

/// Registers the probe's material and shader.
pub fn add_probe(app: &mut App) {
    app.add_plugins(MaterialPlugin::<PrepassProbe>::default());
    let _ = app.world_mut().resource_mut::<Assets<Shader>>().insert(
        PROBE_SHADER.id(),
        Shader::from_wgsl(PROBE_WGSL, "md2_bevy_tests/probe.wgsl"),
    );
}

/// Puts the probe in front of `camera` (near plane `near`, vertical field
/// of view `fov`): a quad twice the frustum's size at twice the near
/// distance.
pub fn attach_probe(world: &mut World, camera: Entity, near: f32, fov: f32, aspect: f32) {
    let distance = near * 2.0;
    let half_height = distance * (fov * 0.5).tan() * 2.0;
    let mesh = world.resource_mut::<Assets<Mesh>>().add(Rectangle::new(
        half_height * 2.0 * aspect,
        half_height * 2.0,
    ));
    let material = world
        .resource_mut::<Assets<PrepassProbe>>()
        .add(PrepassProbe {});
    let quad = world
        .spawn((
            Mesh3d(mesh),
            MeshMaterial3d(material),
            Transform::from_xyz(0.0, 0.0, -distance),
            RenderLayers::layer(PROBE_LAYER),
        ))
        .id();
    world
        .entity_mut(camera)
        .insert(RenderLayers::from_layers(&[0, PROBE_LAYER]))
        .add_child(quad);
}
