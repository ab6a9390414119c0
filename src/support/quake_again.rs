//! The built-in look written again as a material.

/// The built-in look written again by hand as a material (its function is
/// `quake_again`): what an app porting its own shading starts from, and
/// what the tests and the crowd benchmark compare with the built-in look.
pub const QUAKE_AGAIN_WGSL: &str = r#"
fn quake_again(in: Md2Fragment) -> vec4<f32> {
    if in.phase == MD2_PHASE_SHELLS {
        return vec4<f32>(unpack4x8unorm(in.effects & 0x00ffffffu).rgb, 0.3);
    }
    if in.phase == MD2_PHASE_SHADOWS {
        return md2_view.shadow_color;
    }
    let albedo = textureSample(md2_skins, md2_skin_sampler, in.uv, in.skin);
    let len2 = dot(in.world_normal, in.world_normal);
    let n = in.world_normal * select(0.0, inverseSqrt(len2), len2 > 1e-12);
    var light = md2_view.ambient.rgb + md2_view.light_color.rgb * max(dot(n, md2_view.towards_light.xyz), 0.0);
    if (in.effects & 0x02000000u) != 0u {
        light = max(light, vec3<f32>(0.1));
    }
    if (in.effects & 0x01000000u) != 0u {
        light = vec3<f32>(1.0);
    }
    return vec4<f32>(albedo.rgb * light * in.tint.rgb, albedo.a * in.tint.a);
}
"#;
