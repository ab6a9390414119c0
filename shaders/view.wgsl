// md2-wgpu: one view's uniform (md2_wgpu's ViewUniform): the camera, the
// light and the shadow plane, read by the vertex stage, the shading and the
// crowd's culling. Each module binds it itself (md2_view, group 0).

// Bits of Md2View.flags.x.
// The view draws planar shadows: a member's shadow can be in view when the
// member is not.
const MD2_VIEW_SHADOWS: u32 = 1u;

struct Md2View {
    // World to clip space, without jitter.
    view_proj: mat4x4<f32>,
    // The previous frame's view_proj, for motion vectors.
    previous_view_proj: mat4x4<f32>,
    // xy: the camera's jitter in clip-space units (added after projecting;
    // motion is measured without it).
    jitter: vec4<f32>,
    // World to world: a point projected along the light onto the shadow
    // plane (lifted a little off it).
    shadow_proj: mat4x4<f32>,
    // xyz: unit vector from a surface towards the light (world space).
    towards_light: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    // The colour of planar shadows (Quake II: black at alpha 0.5).
    shadow_color: vec4<f32>,
    // Dotted with a world point (w = 1), its depth along the view: larger
    // is farther (the crowd sorts by it; see Md2Renderer::view_depth).
    depth_row: vec4<f32>,
    // x: MD2_VIEW_* bits.
    flags: vec4<u32>,
    // x: pixels per world unit at clip-space w = 1, divided by the largest
    // error in pixels a level of detail may make (0: full detail only).
    level: vec4<f32>,
};
