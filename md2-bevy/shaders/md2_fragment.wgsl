// md2-bevy: the fragment stage of the main pass (lit by Bevy's PBR lighting,
// its lights, shadows and fog) and of the deferred G-buffer pass (where
// Bevy's deferred lighting pass lights it). The surface is the skin layer
// the entity's pose record names, times its tint; the depth, normal and
// motion-vector prepasses and the shadow maps use Bevy's own prepass
// fragment, which reads the vertex stage's outputs.

#import bevy_pbr::{
    pbr_types,
    pbr_functions,
    mesh_bindings::mesh,
    mesh_functions,
    mesh_view_bindings::view,
}
#import md2_bevy::instance::{md2_entity_poses, md2_skins, md2_skin_sampler}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::{
    prepass_io::{VertexOutput, FragmentOutput},
    pbr_deferred_functions::deferred_output,
}
#else
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#endif

// Quake II skins are painted diffuse colour: a rough dielectric.
const MD2_ROUGHNESS: f32 = 0.85;
const MD2_REFLECTANCE: f32 = 0.3;

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    let pose = md2_entity_poses[mesh_functions::get_tag(in.instance_index)];
    // A skin the model lacks reads its last one, as md2-wgpu's Clamp policy does.
    let layer = min(pose.skin, textureNumLayers(md2_skins) - 1u);

    var pbr_input = pbr_types::pbr_input_new();
    pbr_input.material.base_color =
        textureSampleBias(md2_skins, md2_skin_sampler, in.uv, layer, view.mip_bias) * pose.tint;
    pbr_input.material.perceptual_roughness = MD2_ROUGHNESS;
    pbr_input.material.reflectance = vec3<f32>(MD2_REFLECTANCE);
    pbr_input.material.metallic = 0.0;
    pbr_input.flags = mesh[in.instance_index].flags;
    pbr_input.is_orthographic = view.clip_from_view[3].w == 1.0;
    pbr_input.V = pbr_functions::calculate_view(in.world_position, pbr_input.is_orthographic);
    pbr_input.frag_coord = in.position;
    pbr_input.world_position = in.world_position;
    pbr_input.world_normal = pbr_functions::prepare_world_normal(in.world_normal, false, is_front);
    pbr_input.N = normalize(pbr_input.world_normal);

#ifdef PREPASS_PIPELINE
    return deferred_output(in, pbr_input);
#else
    var out: FragmentOutput;
    out.color = apply_pbr_lighting(pbr_input);
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
    return out;
#endif
}
