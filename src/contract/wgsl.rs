//! The WGSL the crate compiles, assembled from the files in `shaders/` (each
//! declaration in one file, each file included once per module), with the
//! entry points and pipeline constants the pipelines name.

/// The files of the pose module, as one literal.
macro_rules! pose_module {
    () => {
        concat!(
            include_str!("../../shaders/constants.wgsl"),
            "\n",
            include_str!("../../shaders/pose.wgsl"),
        )
    };
}

/// The pose of an MD2 vertex as WGSL: the decode of the packed frames, the
/// normal table lookup, the keyframe interpolation and crossfade
/// (`md2_pose_vertex`), and the instance transform (`md2_world_position`,
/// `md2_world_normal`), for an app's own vertex or compute stage.
///
/// It declares the model's three bindings at group 1, bindings 0 to 2, as
/// [`PoseBindings::CRATE`] lists them (a [`GpuModel`]'s bind group has them;
/// [`ModelData`](super::ModelData) is their bytes for any other host); use
/// [`pose_wgsl`] or [`PoseBindings::wgsl`] to place them elsewhere. Every
/// name it declares begins with `md2_`, `Md2` or `MD2_`. The crate's own
/// pipelines compile this very text, in front of their vertex stage.
///
/// ```
/// // A compute pass that writes a model's posed vertices into the app's
/// // buffer (the model at group 0 here).
/// let source = format!(
///     "{}\n{}",
///     md2_wgpu::contract::pose_wgsl(0),
///     r#"
///     @group(1) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
///     @compute @workgroup_size(64)
///     fn pose(@builtin(global_invocation_id) id: vec3<u32>) {
///         if id.x >= md2_model.num_xyz { return; }
///         let v = md2_pose_vertex(id.x, vec4<u32>(0u, 1u, 0u, 0u), vec3<f32>(0.5, 0.0, 0.0), 0.0);
///         out[id.x] = vec4<f32>(v.position, 1.0);
///     }
///     "#
/// );
/// # let _ = source;
/// ```
///
/// [`GpuModel`]: crate::GpuModel
pub const MD2_POSE_WGSL: &str = pose_module!();

/// The crowd reader's files (the look words' decode, then the records'
/// reads), as one literal: in the render module and, alone, for hosts.
macro_rules! crowd_read_module {
    () => {
        concat!(
            include_str!("../../shaders/look.wgsl"),
            "\n",
            include_str!("../../shaders/crowd/read.wgsl"),
        )
    };
}

/// The files of the render module, in order, as one literal: the pose
/// module, then the view, the vertex stage and the shading (so the
/// captures' module can follow it with their own).
macro_rules! render_module {
    () => {
        concat!(
            pose_module!(),
            "\n",
            include_str!("../../shaders/view.wgsl"),
            "\n",
            include_str!("../../shaders/vertex.wgsl"),
            "\n",
            crowd_read_module!(),
            "\n",
            include_str!("../../shaders/crowd/draw.wgsl"),
            "\n",
            include_str!("../../shaders/shading.wgsl"),
        )
    };
}

/// The crate's render module: [`MD2_POSE_WGSL`] (its very text first), the
/// view, the vertex stage of every phase (`Md2Fragment`) and the built-in
/// shading with the helpers a material calls. A material's code follows
/// this text in one module.
pub const MD2_RENDERER_WGSL: &str = render_module!();

/// How a resident crowd's draws read its records and members, as WGSL: a
/// visible record as its member's rows and its pose (`md2_crowd_record`,
/// giving an `Md2CrowdRecord`: `member`, `rows`, `frames`, `lerp`, which
/// `md2_pose_vertex` and `md2_world_position` take; `md2_crowd_member` for
/// the member alone), a member's look words
/// (`md2_crowd_look_words`: skin | intensity, tint, effects;
/// `md2_look_tint` decodes the tint drawn with from the first two), and the
/// previous frame's from a view's extra records (`md2_crowd_extra_at`,
/// `md2_crowd_previous_record`, `md2_crowd_previous_id`). For a host that
/// draws a crowd with its own vertex stage (md2-bevy appends this text to
/// its crowd module); the crate's own crowd draws read through it too
/// (it is in [`MD2_RENDERER_WGSL`]).
///
/// It declares no binding: its reader declares
/// `md2_crowd_records: array<u32>` (the view's records buffer) and
/// `md2_crowd_members: array<vec4<u32>>` (the crowd's member buffer), both
/// `var<storage, read>`, where its layout has room (docs/contract.md
/// gives the words). Every name it declares begins with `md2_`, `Md2` or
/// `MD2_`.
pub const CROWD_READ_WGSL: &str = crowd_read_module!();

/// The resident crowd's compute passes: clocks, parts placed on their
/// parents' tags, culling, levels, compaction, sorting.
pub(crate) const CROWD_WGSL: &str = concat!(
    include_str!("../../shaders/constants.wgsl"),
    "\n",
    include_str!("../../shaders/view.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/types.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/clock.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/attach.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/cull.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/compact.wgsl"),
    "\n",
    include_str!("../../shaders/crowd/sort.wgsl"),
);

/// The tests' captures of a pose and of motion: the render module and
/// `shaders/testing/capture.wgsl`, a module of their own that no pipeline
/// the crate draws with includes.
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))]
pub(crate) const CAPTURE_WGSL: &str = concat!(
    render_module!(),
    "\n",
    include_str!("../../shaders/testing/capture.wgsl"),
);

/// Where the pose's bindings are: one bind group, three bindings. A
/// [`GpuModel`](crate::GpuModel)'s bind group is [`PoseBindings::CRATE`]
/// (with the skins at binding 4); another host places them where its own
/// layout has room (a Bevy material's group, say) and uploads
/// [`ModelData`](super::ModelData)'s bytes there.
///
/// | binding | WGSL | type | bytes |
/// |---|---|---|---|
/// | `model` | `md2_model` | `var<uniform> Md2ModelInfo` | [`ModelData::info_bytes`](super::ModelData::info_bytes), 16 |
/// | `vertices` | `md2_verts` | `var<storage, read> array<u32>` | [`ModelData::vertex_bytes`](super::ModelData::vertex_bytes): 4 per vertex per frame (8 for [`FrameWord::Wide8`](crate::model::FrameWord::Wide8)) |
/// | `frame_params` | `md2_frame_params` | `var<storage, read> array<vec4<f32>>` | [`ModelData::frame_param_bytes`](super::ModelData::frame_param_bytes): the normal table (4,096), then 32 per frame |
///
/// Which decode a model needs is in its bytes, not in the bindings or the
/// WGSL: [`ModelInfo::flags`](super::ModelInfo::flags) carries
/// [`MODEL_WIDE_WORD`](super::MODEL_WIDE_WORD) for a model of 8-byte words
/// (Quake III's), whose frame parameters begin with
/// [`lat_long_normal_table`](super::lat_long_normal_table). One pose text
/// draws every model; a host's pipeline needs no variant per format.
///
/// Every binding is read by the vertex (or compute) stage only. The two
/// storage buffers are all the pose adds to a stage's storage-buffer
/// count (a resident crowd's draws add two more: four, WebGPU's downlevel
/// limit).
///
/// Until 0.2 the normal table was a fourth binding, a uniform: indexed by
/// each vertex's own normal byte, it was read one lane at a time on NVIDIA
/// GPUs (`shaders/README.md`). It is now the first
/// [`NORMAL_TABLE_LEN`](super::NORMAL_TABLE_LEN) entries of
/// `md2_frame_params`, whose bytes include it: a host that uploads
/// [`ModelData::frame_param_bytes`](super::ModelData::frame_param_bytes)
/// there needs no other change, and binding 3 is no longer read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoseBindings {
    /// The bind group index.
    pub group: u32,
    /// `md2_model`.
    pub model: u32,
    /// `md2_verts`.
    pub vertices: u32,
    /// `md2_frame_params`: the normal table, then each frame's scale and
    /// translate.
    pub frame_params: u32,
    /// Where `md2_anorms`, the normal table as a uniform, was until 0.2.
    /// The pose no longer reads it ([`wgsl`](Self::wgsl) ignores it): the
    /// table is part of `frame_params`.
    #[deprecated(
        since = "0.2.0",
        note = "the normal table is the start of `frame_params` (a storage buffer); nothing reads this binding"
    )]
    pub normals: u32,
}

impl PoseBindings {
    /// Where the crate's pipelines bind them: group 1, bindings 0 to 2.
    pub const CRATE: PoseBindings = PoseBindings::starting_at(1, 0);

    /// Group `group`, bindings `first` to `first + 2` in the table's order.
    // The deprecated field is still set (to the binding after the others,
    // where it was) for the release that keeps it.
    #[allow(deprecated)]
    pub const fn starting_at(group: u32, first: u32) -> PoseBindings {
        PoseBindings {
            group,
            model: first,
            vertices: first + 1,
            frame_params: first + 2,
            normals: first + 3,
        }
    }

    /// [`MD2_POSE_WGSL`] with its bindings here.
    pub fn wgsl(&self) -> String {
        let crate_bindings = PoseBindings::CRATE;
        let moves = [
            (crate_bindings.model, self.model, "md2_model"),
            (crate_bindings.vertices, self.vertices, "md2_verts"),
            (
                crate_bindings.frame_params,
                self.frame_params,
                "md2_frame_params",
            ),
        ];
        let mut text = MD2_POSE_WGSL.to_string();
        for (from, to, name) in moves {
            let old = format!("@group({}) @binding({from}) var", crate_bindings.group);
            let new = format!("@group({}) @binding({to}) var", self.group);
            // Each declaration is one line: replace it on the line that
            // names the variable, so earlier moves cannot collide.
            text = text
                .lines()
                .map(|line| {
                    if line.starts_with(&old) && line.contains(&format!(" {name}:")) {
                        line.replacen(&old, &new, 1)
                    } else {
                        line.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
        }
        text
    }
}

/// [`MD2_POSE_WGSL`] with the model's bind group at `group` instead of 1
/// (bindings 0 to 2).
pub fn pose_wgsl(group: u32) -> String {
    PoseBindings::starting_at(group, 0).wgsl()
}

/// The entry points of the crate's modules.
pub(crate) mod entry {
    pub const VS_MAIN: &str = "md2_vs_main";
    pub const VS_MAIN_EXTRA: &str = "md2_vs_main_extra";
    pub const VS_SHELL: &str = "md2_vs_shell";
    pub const VS_SHELL_EXTRA: &str = "md2_vs_shell_extra";
    pub const VS_SHADOW: &str = "md2_vs_shadow";
    pub const VS_SHADOW_EXTRA: &str = "md2_vs_shadow_extra";
    pub const VS_DEPTH: &str = "md2_vs_depth";
    pub const VS_MAIN_CROWD: &str = "md2_vs_main_crowd";
    pub const VS_MAIN_EXTRA_CROWD: &str = "md2_vs_main_extra_crowd";
    pub const VS_SHELL_CROWD: &str = "md2_vs_shell_crowd";
    pub const VS_SHELL_EXTRA_CROWD: &str = "md2_vs_shell_extra_crowd";
    pub const VS_SHADOW_CROWD: &str = "md2_vs_shadow_crowd";
    pub const VS_SHADOW_EXTRA_CROWD: &str = "md2_vs_shadow_extra_crowd";
    pub const VS_DEPTH_CROWD: &str = "md2_vs_depth_crowd";
    pub const FS_BUILTIN: &str = "md2_fs_builtin";
    pub const FS_BUILTIN_SRGB: &str = "md2_fs_builtin_srgb";
    pub const FS_BUILTIN_MOTION: &str = "md2_fs_builtin_motion";
    pub const FS_BUILTIN_MOTION_SRGB: &str = "md2_fs_builtin_motion_srgb";
    /// The entry point the crate appends to a material's code.
    pub const FS_MATERIAL: &str = "md2_fs_material";
    /// The harness's capture of the pose (`testing`).
    #[cfg(any(test, feature = "testing"))]
    pub const CS_CAPTURE: &str = "md2_cs_capture";
    #[cfg(any(test, feature = "testing"))]
    pub const CS_CAPTURE_MOTION: &str = "md2_cs_capture_motion";
    pub const CS_CLASSIFY: &str = "cs_classify";
    pub const CS_SCAN: &str = "cs_scan";
    pub const CS_EMIT: &str = "cs_emit";
    pub const CS_SORT_BLOCK: &str = "cs_sort_block";
    pub const CS_SORT_STEP: &str = "cs_sort_step";
    pub const CS_GATHER: &str = "cs_gather";
    pub const CS_ATTACH: &str = "cs_attach";
}

/// `shading.wgsl`'s pipeline-overridable constant: cull per instance in
/// the fragment stage (translucent and shell pipelines of a culling
/// renderer).
pub(crate) const CULL_IN_FRAGMENT: &str = "MD2_CULL_IN_FRAGMENT";

/// `shading.wgsl`'s pipeline-overridable constant: the phase
/// (`MD2_PHASE_*`) a pipeline of the built-in look draws.
pub(crate) const BUILTIN_PHASE: &str = "MD2_BUILTIN_PHASE";

/// The most frames an instance record can address (frame numbers travel as
/// `u16`; Quake II itself stopped at 512).
pub const MAX_GPU_FRAMES: u32 = 1 << 16;

/// The most skins an instance record can address (the layer travels as
/// `u16`; devices allow 256 to 2048 array layers).
pub const MAX_GPU_SKINS: u32 = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_bindings_are_where_asked_and_nothing_else_changes() {
        let moved = PoseBindings::starting_at(3, 7).wgsl();
        for (binding, name) in [(7, "md2_model"), (8, "md2_verts"), (9, "md2_frame_params")] {
            assert!(
                moved.contains(&format!("@group(3) @binding({binding}) var"))
                    && moved.contains(name),
                "{name} at {binding}"
            );
        }
        assert!(!moved.contains("@group(1)"));
        assert_eq!(
            PoseBindings::CRATE.wgsl(),
            MD2_POSE_WGSL.lines().collect::<Vec<_>>().join("\n")
        );
        // Moving the bindings onto one another's numbers is a permutation.
        let swapped = PoseBindings {
            model: 2,
            frame_params: 0,
            ..PoseBindings::CRATE
        }
        .wgsl();
        assert!(swapped.contains("@group(1) @binding(2) var<uniform> md2_model"));
        assert!(swapped.contains("@group(1) @binding(0) var<storage, read> md2_frame_params"));
        // No table a vertex indexes is a uniform.
        assert!(!MD2_POSE_WGSL.contains("md2_anorms"));
    }
}
