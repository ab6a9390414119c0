// md2-wgpu: the pose of an MD2 vertex, as WGSL any shader can put in front
// of its own code (md2_wgpu::MD2_POSE_WGSL, which is constants.wgsl and this
// file; md2_wgpu::pose_wgsl(bindings) places the bindings elsewhere). The
// crate's own pipelines compile this very text.
//
// It reads one bind group, a model's (md2_wgpu::contract::PoseBindings
// documents it; a GpuModel's bind_group has it), at group 1 here:
//   binding 0: md2_model, the model's counts (Md2ModelInfo)
//   binding 1: md2_verts, every frame's packed vertices, the file's 4 bytes
//              {x, y, z, normal index} as one little-endian u32, at
//              md2_verts[frame * num_xyz + i]; for a model flagged
//              MD2_MODEL_WIDE_WORD, the file's 8 bytes {i16 x, y, z, u16
//              angles} as two, x | y << 16 at md2_verts[2 * (frame *
//              num_xyz + i)] and z | angles << 16 after it
//   binding 2: md2_frame_params, Quake II's 162 normals (md2_wgpu::ANORMS)
//              padded with the fallback normal to MD2_NORMAL_TABLE_LEN
//              entries, one per value of the index byte
//              (md2_wgpu::contract::normal_table), then per frame (scale,
//              0) and (translate, 0) from MD2_NORMAL_TABLE_LEN on; for a
//              wide model the table holds (cos a, sin a, 0, 0) for a = k *
//              2pi/256 instead (md2_wgpu::contract::lat_long_normal_table)
//
// Every table a vertex indexes by its own data is in storage, never in a
// uniform: a uniform read whose index differs between the invocations of a
// draw is serialised on NVIDIA (shaders/README.md; the normal table as a
// uniform made this decode 1.7x slower than float morph targets there).
// The normal table shares the frame parameters' buffer so that a resident
// crowd's draws stay within four storage buffers in the vertex stage.
//
// The arithmetic follows the contract with the CPU reference
// (src/anim/reference.rs): position = xyz * scale + translate; normal =
// table[index] (index past the table reads MD2_FALLBACK_NORMAL_INDEX), or
// for a wide word (cos lat * sin lng, sin lat * sin lng, cos lng); each
// pair lerped as a + (b - a) * t; the crossfade lerps the two pairs by the
// weight; the normal is divided by its length unless that is ~0, where the
// primary frame a's table normal stands in; a shell pushes the position out
// along that unit normal.
//
// Identifiers beginning with md2_ or Md2 (and MD2_ constants) are the
// crate's; every other name is free for the code that follows.

struct Md2ModelInfo {
    num_xyz: u32,
    num_frames: u32,
    // MD2_MODEL_* bits.
    flags: u32,
    padding_b: u32,
};

@group(1) @binding(0) var<uniform> md2_model: Md2ModelInfo;
@group(1) @binding(1) var<storage, read> md2_verts: array<u32>;
@group(1) @binding(2) var<storage, read> md2_frame_params: array<vec4<f32>>;

struct Md2Posed {
    // Quake axes (X forward, Y left, Z up), model units.
    position: vec3<f32>,
    // Unit length.
    normal: vec3<f32>,
};

// One vertex of one frame of 4-byte words (`frame` and `i` in range).
fn md2_decode(frame: u32, i: u32) -> Md2Posed {
    let word = md2_verts[frame * md2_model.num_xyz + i];
    let q = vec3<f32>(
        f32(word & 0xffu),
        f32((word >> 8u) & 0xffu),
        f32((word >> 16u) & 0xffu),
    );
    let params = MD2_NORMAL_TABLE_LEN + 2u * frame;
    let scale = md2_frame_params[params].xyz;
    let translate = md2_frame_params[params + 1u].xyz;
    // The index byte is < MD2_NORMAL_TABLE_LEN: always within the padded
    // table, whose entries past Quake II's 162 hold the fallback normal.
    let n = md2_frame_params[word >> 24u].xyz;
    return Md2Posed(q * scale + translate, n);
}

// One vertex of one frame of 8-byte words: 16-bit integers unpacked from
// u32s with shifts (no 16-bit types: nothing optional, WebGPU-legal), the
// normal from two table entries, (cos, sin) of each angle byte. The
// unpacking is exact and each of the normal's products rounds once, so
// the decoded normal is the CPU reference's to the bit; the position is
// too wherever xyz * scale is exact (an MD3's scale of 1/64, translate 0),
// else within a fused or unfused multiply-add.
fn md2_decode_wide(frame: u32, i: u32) -> Md2Posed {
    let at = 2u * (frame * md2_model.num_xyz + i);
    let xy = md2_verts[at];
    let zn = md2_verts[at + 1u];
    // An arithmetic right shift of the i32 sign-extends each half.
    let q = vec3<f32>(
        f32(bitcast<i32>(xy << 16u) >> 16u),
        f32(bitcast<i32>(xy) >> 16u),
        f32(bitcast<i32>(zn << 16u) >> 16u),
    );
    let params = MD2_NORMAL_TABLE_LEN + 2u * frame;
    let scale = md2_frame_params[params].xyz;
    let translate = md2_frame_params[params + 1u].xyz;
    // The angles' bytes are < MD2_NORMAL_TABLE_LEN: always in the table.
    let lat = md2_frame_params[zn >> 24u].xy;
    let lng = md2_frame_params[(zn >> 16u) & 0xffu].xy;
    let n = vec3<f32>(lat.x * lng.y, lat.y * lng.y, lng.x);
    return Md2Posed(q * scale + translate, n);
}

// One vertex of one frame in the word `wide` names. Called with a constant
// (md2_pose_vertex's two sides), so the branch folds away.
fn md2_decode_word(frame: u32, i: u32, wide: bool) -> Md2Posed {
    if wide {
        return md2_decode_wide(frame, i);
    }
    return md2_decode(frame, i);
}

// Vertex `i` in the pose given by four frames (primary a, b; secondary a, b)
// and (t, secondary t, weight), pushed `push` units out along its normal (0,
// or MD2_SHELL_OFFSET for a shell). md2_wgpu::PoseWords::of(&pose) packs a
// CPU pose into exactly these two arguments.
//
// The caller keeps them in range, as the crate's paths do on the CPU (every
// instance checked, every clock sampled within its clip): frames below the
// model's num_frames, `i` below its num_xyz, (t, secondary t, weight) in
// [0, 1] (PoseWords::of clamps them). No clamp here: the decode is the
// vertex stage's hottest code, and an index out of range still reads
// nothing outside the model's buffers (wgpu, and WebGPU, check every index
// of a storage buffer), only another vertex.
//
// Which word is the model's is a uniform, the same for every invocation of
// a draw: branched on once here, never divergent (shaders/README.md, rule
// 3), each side posing in one word with its decodes folded to that word's.
// One pose text draws every model, so no host needs a pipeline per format.
// What the branch costs an MD2 is measured, not assumed: the decode section
// of benches/crowd has the pose without it ("4-byte word only"). On
// lavapipe, a CPU, the pose with it takes 1.12-1.15x the frame (2026-12-05,
// demo and yohko at 4,000); a GPU takes a branch on a uniform as one
// scalar jump, and its figure comes from the next benches/device.sh run.
fn md2_pose_vertex(i: u32, frames: vec4<u32>, lerp: vec3<f32>, push: f32) -> Md2Posed {
    if (md2_model.flags & MD2_MODEL_WIDE_WORD) != 0u {
        return md2_pose_in(i, frames, lerp, push, true);
    }
    return md2_pose_in(i, frames, lerp, push, false);
}

// md2_pose_vertex in the word `wide` names (a constant at both calls).
fn md2_pose_in(i: u32, frames: vec4<u32>, lerp: vec3<f32>, push: f32, wide: bool) -> Md2Posed {
    let a = md2_decode_word(frames.x, i, wide);
    let b = md2_decode_word(frames.y, i, wide);
    var p = a.position + (b.position - a.position) * lerp.x;
    var n = a.normal + (b.normal - a.normal) * lerp.x;

    // Most instances are not crossfading: skip the second pair's fetches.
    // With weight 0 the blend below would return (p, n) unchanged anyway.
    if lerp.z > 0.0 {
        let c = md2_decode_word(frames.z, i, wide);
        let d = md2_decode_word(frames.w, i, wide);
        let p2 = c.position + (d.position - c.position) * lerp.y;
        let n2 = c.normal + (d.normal - c.normal) * lerp.y;
        p = p + (p2 - p) * lerp.z;
        n = n + (n2 - n) * lerp.z;
    }

    let len2 = dot(n, n);
    if len2 > 1e-12 {
        n = n / sqrt(len2);
    } else {
        n = a.normal;
    }
    return Md2Posed(p + n * push, n);
}

// The model-to-world affine of an instance as three rows (Quake axes to the
// Y-up world folded in: the instance record's rows), applied to a point.
fn md2_world_position(rows: array<vec4<f32>, 3>, p: vec3<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    return vec3<f32>(dot(rows[0], h), dot(rows[1], h), dot(rows[2], h));
}

// Normals need the inverse transpose of the 3x3 part. Its cofactor matrix is
// that times the determinant: three cross products, exact for any invertible
// affine (non-uniform scale, shear) and cheaper than an inverse. Not
// normalised (only the determinant's sign is kept): normalise where it is
// used.
fn md2_world_normal(rows: array<vec4<f32>, 3>, n: vec3<f32>) -> vec3<f32> {
    let c0 = vec3<f32>(rows[0].x, rows[1].x, rows[2].x);
    let c1 = vec3<f32>(rows[0].y, rows[1].y, rows[2].y);
    let c2 = vec3<f32>(rows[0].z, rows[1].z, rows[2].z);
    let cofactor = mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let det_sign = select(1.0, -1.0, dot(c0, cross(c1, c2)) < 0.0);
    return cofactor * n * det_sign;
}
