// md2-wgpu: a resident crowd's records as a draw's vertex stage reads them.
// The crate's own draws (crowd/draw.wgsl, in the render module) and any
// host's (md2-bevy's crowd module appends this very text:
// contract::CROWD_READ_WGSL) read them through these functions, so the
// layout below is read in one place.
//
// It declares no binding. Its reader declares, where its layout has room:
//   md2_crowd_records: var<storage, read> array<u32>: the view's visible
//     records, then (views that draw motion vectors) its extra records;
//   md2_crowd_members: var<storage, read> array<vec4<u32>>: the crowd's
//     members.
// A record is RECORD_WORDS words (crowd/types.wgsl): the member's index;
// its frames as two u16 pairs (primary, secondary); t, t2 and the
// crossfade's weight as f32 bits. An extra record is EXTRA_WORDS words
// (crowd/compact.wgsl writes it): the previous frame's three rows, frames
// and (t, t2, weight), then the member's index and id. A member is
// MEMBER_VEC4S vec4s, of which a draw reads the first four: its rows, then
// skin | intensity, tint, effects.
//
// Every word is read at a fixed offset: a local array filled in a loop and
// indexed by its counter would live in memory where the compiler does not
// unroll it (shaders/README.md).

// crowd/types.wgsl's RECORD_WORDS, EXTRA_WORDS and MEMBER_VEC4S (a test
// holds them equal).
const MD2_CROWD_RECORD_WORDS: u32 = 6u;
const MD2_CROWD_EXTRA_WORDS: u32 = 20u;
const MD2_CROWD_MEMBER_VEC4S: u32 = 8u;

// What a record says a member draws with: the member's index, its rows,
// its frames (the primary pair, then the secondary) and (t, t2, weight).
struct Md2CrowdRecord {
    member: u32,
    rows: array<vec4<f32>, 3>,
    frames: vec4<u32>,
    lerp: vec3<f32>,
};

// The two words of the records buffer at `at` (u16 pairs: the primary
// frames, then the secondary) as four frame numbers.
fn md2_crowd_frames(at: u32) -> vec4<u32> {
    let primary = md2_crowd_records[at];
    let secondary = md2_crowd_records[at + 1u];
    return vec4<u32>(primary & 0xffffu, primary >> 16u, secondary & 0xffffu, secondary >> 16u);
}

// The three words of the records buffer at `at` as (t, t2, weight).
fn md2_crowd_lerp(at: u32) -> vec3<f32> {
    return bitcast<vec3<f32>>(vec3<u32>(
        md2_crowd_records[at],
        md2_crowd_records[at + 1u],
        md2_crowd_records[at + 2u],
    ));
}

// Four words of the records buffer from `at`, as a row.
fn md2_crowd_row(at: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        md2_crowd_records[at],
        md2_crowd_records[at + 1u],
        md2_crowd_records[at + 2u],
        md2_crowd_records[at + 3u],
    ));
}

// The member of visible record `record` (a bucket's first record plus
// the instance's index): its index in the crowd's order.
fn md2_crowd_member(record: u32) -> u32 {
    return md2_crowd_records[record * MD2_CROWD_RECORD_WORDS];
}

// Visible record `record`: its member's rows from the member buffer, its
// pose from the record.
fn md2_crowd_record(record: u32) -> Md2CrowdRecord {
    let at = record * MD2_CROWD_RECORD_WORDS;
    let member = md2_crowd_member(record);
    let first = member * MD2_CROWD_MEMBER_VEC4S;
    var out: Md2CrowdRecord;
    out.member = member;
    out.rows = array<vec4<f32>, 3>(
        bitcast<vec4<f32>>(md2_crowd_members[first]),
        bitcast<vec4<f32>>(md2_crowd_members[first + 1u]),
        bitcast<vec4<f32>>(md2_crowd_members[first + 2u]),
    );
    out.frames = md2_crowd_frames(at + 1u);
    out.lerp = md2_crowd_lerp(at + 3u);
    return out;
}

// Member `member`'s look: skin | intensity (f16 bits above the layer),
// tint (RGBA8), effects, and a word no draw reads.
fn md2_crowd_look_words(member: u32) -> vec4<u32> {
    return md2_crowd_members[member * MD2_CROWD_MEMBER_VEC4S + 3u];
}

// Where visible record `record`'s extra record starts, the view's extra
// records starting at word `extra_base` (the bucket's draw words say
// where).
fn md2_crowd_extra_at(extra_base: u32, record: u32) -> u32 {
    return extra_base + record * MD2_CROWD_EXTRA_WORDS;
}

// What the previous frame showed of the member of the extra record at
// word `at`: its rows, frames and (t, t2, weight) then, and its index.
fn md2_crowd_previous_record(at: u32) -> Md2CrowdRecord {
    var out: Md2CrowdRecord;
    out.member = md2_crowd_records[at + 17u];
    out.rows = array<vec4<f32>, 3>(
        md2_crowd_row(at),
        md2_crowd_row(at + 4u),
        md2_crowd_row(at + 8u),
    );
    out.frames = md2_crowd_frames(at + 12u);
    out.lerp = md2_crowd_lerp(at + 14u);
    return out;
}

// The id of the member of the extra record at word `at`.
fn md2_crowd_previous_id(at: u32) -> u32 {
    return md2_crowd_records[at + 18u];
}
