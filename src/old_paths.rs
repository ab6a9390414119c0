//! The crate root's names of 0.1.0 that now live in their rooms, kept
//! for one release so that an app written against 0.1.0 still builds, with
//! a deprecation warning that says where each name went. A re-export
//! cannot carry a deprecation (rust-lang/rust#30827), so the types are
//! deprecated aliases, the constants and functions deprecated copies and
//! forwarders, and the seven moved modules plain re-exports; all of them
//! go in the next release.
#![allow(missing_docs)]
// Some of the old names are deprecated where they live too.
#![allow(deprecated)]

/// Deprecated aliases at the crate root for types that moved into `$room`.
macro_rules! moved_types {
    ($room:ident: $($name:ident),* $(,)?) => {$(
        #[deprecated = concat!(
            "moved to `md2_wgpu::", stringify!($room), "::", stringify!($name),
            "`; the root path goes in the next release"
        )]
        pub type $name = crate::$room::$name;
    )*};
}

/// Deprecated copies at the crate root of constants that moved into `$room`.
macro_rules! moved_consts {
    ($room:ident: $($name:ident: $ty:ty),* $(,)?) => {$(
        #[deprecated = concat!(
            "moved to `md2_wgpu::", stringify!($room), "::", stringify!($name),
            "`; the root path goes in the next release"
        )]
        pub const $name: $ty = crate::$room::$name;
    )*};
}

moved_types!(anim: ClipClock, Crossfade, Fade, FrameLerp, Playback, Playing, Pose, ReferenceError);

moved_consts!(anim: MAX_FADE_SECONDS: f64, QUAKE2_FPS: f32, TICKS_PER_SECOND: f64);

pub use crate::anim::clock;

pub use crate::anim::playback;

pub use crate::anim::reference;

moved_types!(contract: ExtraRecord, GpuModelOptions, InstanceRecord, ModelDataError, PoseWords);

moved_consts!(contract: MAX_GPU_FRAMES: u32, MAX_GPU_SKINS: u32, MAX_LEVELS: usize, MD2_POSE_WGSL: &str, MD2_RENDERER_WGSL: &str);

#[deprecated = "moved to `md2_wgpu::contract::pose_wgsl`; the root path goes in the next release"]
#[inline]
pub fn pose_wgsl(group: u32) -> String {
    crate::contract::pose_wgsl(group)
}

moved_types!(format: GlCmd, GlCmdKind, GlVertex, Md2Error, Md2Header, Md2Parts, Md2Warning, QuakeModelError, Section, SkinName, TexCoord, Triangle);

pub use crate::format::mdl;

moved_types!(mesh: Level, LevelOptions, Levels, LevelsFileError, MeshError, RenderMesh, TriangleOrder, VertexCacheStats);

moved_types!(model: Animation, Corner, Frame, PackedVertex);

moved_consts!(model: ANORMS: [[f32; 3]; 162], FALLBACK_NORMAL_INDEX: u8);

pub use crate::model::animations;

#[deprecated = "moved to `md2_wgpu::model::nearest_normal_index`; the root path goes in the next release"]
#[inline]
pub fn nearest_normal_index(normal: [f32; 3]) -> u8 {
    crate::model::nearest_normal_index(normal)
}

#[deprecated = "moved to `md2_wgpu::model::normal_from_index`; the root path goes in the next release"]
#[inline]
pub fn normal_from_index(index: u8) -> [f32; 3] {
    crate::model::normal_from_index(index)
}

moved_types!(scene: CrowdError, Effects, InstanceError, InstancePolicy, Md2Previous, PlanarShadow, ShadowStencil, TranslucentOrder);

moved_consts!(scene: MIN_LIGHT: f32, QUAKE_TO_Y_UP: glam::Mat4, SHELL_ALPHA: f32, SHELL_OFFSET: f32);

pub use crate::scene::fields;

pub use crate::scene::quake_flags;

#[deprecated = "moved to `md2_wgpu::scene::quake_to_y_up`; the root path goes in the next release"]
#[inline]
pub fn quake_to_y_up(v: [f32; 3]) -> glam::Vec3 {
    crate::scene::quake_to_y_up(v)
}

#[deprecated = "moved to `md2_wgpu::scene::stand_on_ground`; the root path goes in the next release"]
#[inline]
pub fn stand_on_ground(
    model: &crate::model::KeyframeModel,
    frames: std::ops::RangeInclusive<u32>,
    feet: glam::Vec3,
) -> glam::Mat4 {
    crate::scene::stand_on_ground(model, frames, feet)
}

// The GPU half's, where only the GPU half may name wgpu.
#[cfg(feature = "wgpu")]
pub use crate::gpu::old_paths::*;
