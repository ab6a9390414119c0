// md2-bevy: the fragment stage of the main pass (lit by Bevy's PBR lighting,
// its lights, shadows and fog) and of the deferred G-buffer pass (where
// Bevy's deferred lighting pass lights it). The surface is the skin layer
// the entity's pose record names, times its tint (a Quake I model's
// fullbright texels, where its skins carry masks, emit their colour instead
// of being lit, as Quake drew fire and eyes); the depth, normal and
// motion-vector prepasses and the shadow maps use Bevy's own prepass
// fragment, which reads the vertex stage's outputs. A crowd's translucent
// members are the same surface, blended by its alpha (the skin's times the
// tint's: MD2_CROWD_TRANSLUCENT's pipeline blends); its shells are flat
// (MD2_CROWD_SHELL).

#import bevy_pbr::{
    pbr_types,
    pbr_functions,
    mesh_view_bindings::view,
}
#ifdef MD2_CROWD
// A resident crowd's member: its look through the record the vertex stage
// passed on as the instance index; no mesh bindings (a crowd has no mesh
// uniform), so it receives shadows as every mesh does by default.
#import md2_bevy::crowd::{md2_crowd_look, md2_crowd_paint, md2_crowd_shell_colour}
#import bevy_pbr::mesh_types::MESH_FLAGS_SHADOW_RECEIVER_BIT
#else
#import bevy_pbr::{mesh_bindings::mesh, mesh_functions}
#import md2_bevy::instance::md2_entity_poses
#endif
#import md2_bevy::instance::{md2_skins, md2_skin_sampler}
#import md2_bevy::pose::{md2_model, MD2_MODEL_FULLBRIGHT_MASKS}

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
#ifdef MD2_CROWD_SHELL
    // A crowd member's shell: flat in its colour at Quake II's alpha, lit
    // by nothing (as md2-wgpu draws shells).
    var shell: FragmentOutput;
    shell.color = md2_crowd_shell_colour(in.instance_index);
    return shell;
#else
#ifdef MD2_CROWD
    let pose = md2_crowd_look(in.instance_index);
#else
    let pose = md2_entity_poses[mesh_functions::get_tag(in.instance_index)];
#endif
    // With fullbright masks the array's second half are the masks, one per
    // skin: uniform control flow (the flag is the model's).
    let masks = (md2_model.flags & MD2_MODEL_FULLBRIGHT_MASKS) != 0u;
    let layers = select(textureNumLayers(md2_skins), textureNumLayers(md2_skins) / 2u, masks);
    // A skin the model lacks reads its last one, as md2-wgpu's Clamp policy does.
    let layer = min(pose.skin, layers - 1u);

    var pbr_input = pbr_types::pbr_input_new();
    var colour =
        textureSampleBias(md2_skins, md2_skin_sampler, in.uv, layer, view.mip_bias) * pose.tint;
#ifdef MD2_CROWD
    colour = md2_crowd_paint(colour);
#endif
    // The mask is read only where the model has masks: a branch on the
    // model's uniform flags, the same for every fragment of a draw, so the
    // sample stays in uniform control flow (as md2-wgpu's shading reads it).
    var glow = 0.0;
    if masks {
        glow = textureSampleBias(
            md2_skins, md2_skin_sampler, in.uv, layer + layers, view.mip_bias).a;
    }
    // A masked texel is not lit: its colour is emitted (alpha 0: not scaled
    // by the camera's exposure, as md2-wgpu's built-in shading draws it).
    pbr_input.material.base_color = vec4<f32>(colour.rgb * (1.0 - glow), colour.a);
    pbr_input.material.emissive = vec4<f32>(colour.rgb * glow, 0.0);
    pbr_input.material.perceptual_roughness = MD2_ROUGHNESS;
    pbr_input.material.reflectance = vec3<f32>(MD2_REFLECTANCE);
    pbr_input.material.metallic = 0.0;
#ifdef MD2_CROWD
    pbr_input.flags = MESH_FLAGS_SHADOW_RECEIVER_BIT;
#else
    pbr_input.flags = mesh[in.instance_index].flags;
#endif
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
#endif
}
