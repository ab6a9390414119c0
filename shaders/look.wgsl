// md2-wgpu: an instance's look words decoded, as the immediate path's
// attributes and a resident member's words both carry them: skin |
// intensity (the skin layer in the low 16 bits, the tint's intensity as an
// f16 above it) and the tint (linear RGBA8). The crate's vertex stage and
// a host's crowd draws (contract::CROWD_READ_WGSL begins with this text)
// decode them here.

// An f16 (non-negative) in the low 16 bits. Decoded by hand:
// unpack2x16float needs a capability some backends lack
// (SHADER_FLOAT16_IN_FLOAT32 in naga).
fn md2_half_to_f32(h: u32) -> f32 {
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if e == 0u {
        return f32(m) * exp2(-24.0);
    }
    // Rebias the exponent from 15 to 127.
    return bitcast<f32>(((e + 112u) << 23u) | (m << 13u));
}

// The tint drawn with: its colour times its intensity, its alpha as is.
fn md2_look_tint(skin_intensity: u32, tint: u32) -> vec4<f32> {
    let intensity = md2_half_to_f32(skin_intensity >> 16u);
    let colour = unpack4x8unorm(tint);
    return vec4<f32>(colour.rgb * intensity, colour.a);
}
