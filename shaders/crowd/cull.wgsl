// md2-wgpu: the crowd's culling against a view's frustum (shells and
// shadows included) and its choice of level of detail.

fn frustum_plane(i: u32) -> vec4<f32> {
    let m = view.view_proj;
    let row0 = vec4<f32>(m[0].x, m[1].x, m[2].x, m[3].x);
    let row1 = vec4<f32>(m[0].y, m[1].y, m[2].y, m[3].y);
    let row2 = vec4<f32>(m[0].z, m[1].z, m[2].z, m[3].z);
    let row3 = vec4<f32>(m[0].w, m[1].w, m[2].w, m[3].w);
    switch i {
        case 0u: { return row3 + row0; }
        case 1u: { return row3 - row0; }
        case 2u: { return row3 + row1; }
        case 3u: { return row3 - row1; }
        // wgpu's depth runs 0..w.
        case 4u: { return row2; }
        default: { return row3 - row2; }
    }
}

// Whether the world box (centre, half extent) is on the inner side of every
// plane (conservatively: boxes near a frustum corner may pass).
fn box_in_view(center: vec3<f32>, extent: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let p = frustum_plane(i);
        if dot(p.xyz, center) + p.w + dot(abs(p.xyz), extent) < 0.0 {
            return false;
        }
    }
    return true;
}

// The level of detail to draw member `m` at: the coarsest whose error,
// scaled by the transform's largest column and projected where the
// model's sphere comes nearest the camera, is within the view's budget.
// The same arithmetic, in the same order, as src/contract/level.rs's `choose`
// (the immediate path), so both paths choose alike.
fn member_level(r: array<vec4<f32>, 3>) -> u32 {
    let scale = view.level.x;
    if scale <= 0.0 || crowd.levels <= 1u {
        return 0u;
    }
    let c0 = r[0].x * r[0].x + r[1].x * r[1].x + r[2].x * r[2].x;
    let c1 = r[0].y * r[0].y + r[1].y * r[1].y + r[2].y * r[2].y;
    let c2 = r[0].z * r[0].z + r[1].z * r[1].z + r[2].z * r[2].z;
    let stretch = sqrt(max(max(c0, c1), c2));
    let c = crowd.level_sphere;
    let center = vec3<f32>(
        r[0].x * c.x + r[0].y * c.y + r[0].z * c.z + r[0].w,
        r[1].x * c.x + r[1].y * c.y + r[1].z * c.z + r[1].w,
        r[2].x * c.x + r[2].y * c.y + r[2].z * c.z + r[2].w,
    );
    let m4 = view.view_proj;
    let w = vec4<f32>(m4[0].w, m4[1].w, m4[2].w, m4[3].w);
    let w_length = sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
    let nearest = w.x * center.x + w.y * center.y + w.z * center.z + w.w
        - c.w * stretch * w_length;
    var level = 0u;
    for (var l = 1u; l < min(crowd.levels, MAX_LEVELS); l++) {
        if level_error(l) * stretch * scale <= nearest {
            level = l;
        }
    }
    return level;
}

// Whether member `index` (its rows `rows`, effects `effects`) may show in
// the view.
fn visible(index: u32, rows: array<vec4<f32>, 3>, effects: u32) -> bool {
    let bounds = member_bounds(index);
    var lo = bounds[0];
    var hi = bounds[1];
    if (effects & MD2_MEMBER_SHELL) != 0u {
        lo -= vec3<f32>(MD2_SHELL_OFFSET);
        hi += vec3<f32>(MD2_SHELL_OFFSET);
    }
    let c = vec4<f32>((lo + hi) * 0.5, 1.0);
    let e = (hi - lo) * 0.5;
    let center = vec3<f32>(dot(rows[0], c), dot(rows[1], c), dot(rows[2], c));
    let extent = vec3<f32>(
        dot(abs(rows[0].xyz), e),
        dot(abs(rows[1].xyz), e),
        dot(abs(rows[2].xyz), e),
    );
    if box_in_view(center, extent) {
        return true;
    }
    let casts = (view.flags.x & MD2_VIEW_SHADOWS) != 0u
        && (effects & (MD2_EFFECT_NO_SHADOW | MD2_MEMBER_TRANSLUCENT)) == 0u;
    if !casts {
        return false;
    }
    // The shadow: the world box's corners projected onto the plane.
    var s_lo = vec3<f32>(3.4e38);
    var s_hi = vec3<f32>(-3.4e38);
    for (var k = 0u; k < 8u; k++) {
        let sign = vec3<f32>(
            select(-1.0, 1.0, (k & 1u) != 0u),
            select(-1.0, 1.0, (k & 2u) != 0u),
            select(-1.0, 1.0, (k & 4u) != 0u),
        );
        let p = view.shadow_proj * vec4<f32>(center + extent * sign, 1.0);
        let q = p.xyz / p.w;
        s_lo = min(s_lo, q);
        s_hi = max(s_hi, q);
    }
    return box_in_view((s_lo + s_hi) * 0.5, (s_hi - s_lo) * 0.5);
}


// A member's place word: its main bucket (bits 0-3) and rank among its
// workgroup's members of that bucket (bits 4-9), whether it is drawn
