// md2-wgpu: members that ride another crowd's members on a tag (a Quake III
// player's torso on its legs' `tag_torso`, its head and weapon on the
// torso's `tag_head` and `tag_weapon`), placed on the GPU every frame from
// the parent's clock (src/gpu/crowd/attach.rs; the CPU reference is
// Md3Model::tag_at and Md3Tag::attach).
//
// `cs_attach` runs in each view's pass just before the rider's own passes
// and after its parent's and its root's (the legs, which ride nothing), one
// invocation per member, with the parent crowd's members and parameters as
// group 1 (`members` and `crowd` are the parent's) and its own group 2: the
// view's frame (the time), the root's work buffer for this view (`work`:
// whether cs_classify found the root member in view), the rider's members,
// which it writes, and the parent model's tag, TAG_VEC4S vec4s per frame.
//
// A member whose root is out of the view is marked MEMBER_HIDDEN and left
// where it was: one culling test (the root's, on a box the crowd made large
// enough for every part on every frame) decides for the whole tree, and
// only members in view pay for their clocks. For the others it samples the
// parent member's clocks as cs_emit does, lerps the tag between the two
// frames of each clock and crossfades the two tags as the pose crossfades,
// then writes the child member's rows as the parent's rows times the tag's
// matrix. Parts riding parts (the head on the torso) are placed after their
// parent, in the same pass, so they read rows written this frame.
//
// The child member with the parent's index is the one placed: the crowds
// are kept in step (same members, same order) by the player crowd that
// owns them.

// The tag of one frame, as the crowd uploads it: vec4 k is (axis k, origin
// component k), the axes being the columns of the tag's matrix
// (Md3Tag::matrix).
const TAG_VEC4S: u32 = 3u;

@group(2) @binding(4) var<storage, read_write> attached: array<vec4<u32>>;
@group(2) @binding(5) var<storage, read> tags: array<vec4<f32>>;

// A vector scaled to unit length as Quake III's VectorNormalize scales it (by
// the reciprocal of its length; a zero vector left as it is).
fn tag_normalized(v: vec3<f32>) -> vec3<f32> {
    let length = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    return select(v * (1.0 / length), v, length == 0.0);
}

// Md3Tag::lerp of one vec4 of the table: the axis lerped and normalised,
// the origin's component lerped.
fn tag_mix(a: vec4<f32>, b: vec4<f32>, t: f32) -> vec4<f32> {
    let v = a * (1.0 - t) + b * t;
    return vec4<f32>(tag_normalized(v.xyz), v.w);
}

struct Tag {
    k0: vec4<f32>,
    k1: vec4<f32>,
    k2: vec4<f32>,
};

// The tag at a sampled clock: lerped between its two frames (clamped to the
// table, which has every frame of the parent's model).
fn tag_at(lerp: Lerp) -> Tag {
    let last = arrayLength(&tags) / TAG_VEC4S - 1u;
    let a = min(lerp.a, last) * TAG_VEC4S;
    let b = min(lerp.b, last) * TAG_VEC4S;
    return Tag(
        tag_mix(tags[a], tags[b], lerp.t),
        tag_mix(tags[a + 1u], tags[b + 1u], lerp.t),
        tag_mix(tags[a + 2u], tags[b + 2u], lerp.t),
    );
}

// Row `r` of the parent's rows times the tag's matrix (columns: the three
// axes, then the origin).
fn attached_row(r: vec4<f32>, tag: Tag) -> vec4<f32> {
    let origin = vec3<f32>(tag.k0.w, tag.k1.w, tag.k2.w);
    return vec4<f32>(
        dot(r.xyz, tag.k0.xyz),
        dot(r.xyz, tag.k1.xyz),
        dot(r.xyz, tag.k2.xyz),
        dot(r.xyz, origin) + r.w,
    );
}

@compute @workgroup_size(WORKGROUP)
fn cs_attach(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let index = (wid.y * groups.x + wid.x) * WORKGROUP + lid;
    if index >= crowd.count || index >= arrayLength(&attached) / MEMBER_VEC4S {
        return;
    }
    // The root's culling decides for every part: its placed word for this
    // view (the crowds are in step, so the parent's count and workgroups
    // are the root's).
    let in_view = (work[placed_at(index)] & PLACED_MAIN) != 0u;
    let at = index * MEMBER_VEC4S;
    var look = attached[at + 3u];
    look.z = select(look.z | MEMBER_HIDDEN, look.z & ~MEMBER_HIDDEN, in_view);
    attached[at + 3u] = look;
    if !in_view {
        return;
    }
    let now = frame.now;
    var tag = tag_at(sample(member_clock(index, false), now));
    // A crossfading parent: the tag of each clock, lerped by the fade's
    // weight (Md3Model::tag_at on the pose).
    if (member_effects(index) & MD2_MEMBER_FADING) != 0u {
        let weight = fade_weight(index, now);
        if weight != 0.0 {
            let to = tag_at(sample(member_clock(index, true), now));
            tag = Tag(
                tag_mix(tag.k0, to.k0, weight),
                tag_mix(tag.k1, to.k1, weight),
                tag_mix(tag.k2, to.k2, weight),
            );
        }
    }
    let rows = member_rows(index);
    attached[at] = bitcast<vec4<u32>>(attached_row(rows[0], tag));
    attached[at + 1u] = bitcast<vec4<u32>>(attached_row(rows[1], tag));
    attached[at + 2u] = bitcast<vec4<u32>>(attached_row(rows[2], tag));
}
