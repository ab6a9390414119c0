//! The WGSL an MD2 material compiles: md2-wgpu's pose at the material's
//! bind group (`md2_bevy::pose`), the entity records and skins beside it
//! (`md2_bevy::instance`), the vertex stage of every pass and the lit
//! fragment stage, registered as Bevy shader assets.

use bevy::asset::{Assets, Handle, uuid_handle};
use bevy::pbr::MATERIAL_BIND_GROUP_INDEX;
use bevy::shader::Shader;
use md2_wgpu::contract::PoseBindings;

// The material's bindings, which the shaders below declare: the
// shaders' numbers, so here, and the material's bind group follows them.
/// The binding of the pose's first buffer (`md2_model`); the pose's three
/// bindings follow it ([`md2_wgpu::contract::PoseBindings::starting_at`]).
pub const POSE_FIRST_BINDING: u32 = 0;
/// The binding of the entities' pose records (`md2_entity_poses`).
pub const INSTANCES_BINDING: u32 = 4;
/// The binding of the skins' texture array (`md2_skins`).
pub const SKINS_BINDING: u32 = 5;
/// The binding of the skins' sampler (`md2_skin_sampler`).
pub const SAMPLER_BINDING: u32 = 6;

/// `md2_bevy::pose`: [`md2_wgpu::contract::MD2_POSE_WGSL`] with its bindings at the
/// material's group.
pub const POSE_SHADER: Handle<Shader> = uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d01");
/// `md2_bevy::instance`: the entity pose records, the skins, the rows.
pub const INSTANCE_SHADER: Handle<Shader> = uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d02");
/// The vertex stage of every pass.
pub const VERTEX_SHADER: Handle<Shader> = uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d03");
/// The fragment stage of the main and deferred passes.
pub const FRAGMENT_SHADER: Handle<Shader> = uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d04");
/// `md2_bevy::crowd`: a resident crowd's draw words, records and members.
pub const CROWD_SHADER: Handle<Shader> = uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d05");
/// The vertex stage of a resident crowd's draws.
pub const CROWD_VERTEX_SHADER: Handle<Shader> =
    uuid_handle!("8d2b3f4e-6a71-4c0e-9f3d-2b8e1c5a7d06");

/// The import module of the pose: md2-wgpu's own text with its bindings
/// moved to the material's group (its functions are the crate's, so
/// whatever the core team changes inside `md2_pose_vertex` reaches Bevy
/// unchanged), and its names that begin with `_` renamed (see
/// [`without_leading_underscores`]).
pub fn pose_module() -> String {
    let bindings = PoseBindings::starting_at(MATERIAL_BIND_GROUP_INDEX as u32, POSE_FIRST_BINDING);
    format!(
        "#define_import_path md2_bevy::pose\n\n{}\n",
        without_leading_underscores(&bindings.wgsl())
    )
}

/// `wgsl` with every identifier that begins with `_` renamed to one Bevy's
/// shader composer
/// accepts in an import module: naga_oil checks that naga's WGSL writer
/// would keep each struct member's name, and that writer appends `_` to a
/// name ending in a digit ("Composable module identifiers must not
/// require substitution according to naga writeback rules"). `_pad0`
/// becomes `md2_bevy_pad0_`. Only names change; a struct's layout does not
/// depend on them. md2-wgpu's pose today has no such name (its padding is
/// `padding_a`, `padding_b`, for this reason); this keeps a pose that
/// gains one composable.
pub fn without_leading_underscores(wgsl: &str) -> String {
    let mut out = String::with_capacity(wgsl.len() + 64);
    let bytes = wgsl.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let starts_name = bytes[i] == b'_'
            && (i == 0 || !is_name(bytes[i - 1]))
            && bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphanumeric());
        if !starts_name {
            // Copy up to the next underscore in one piece (UTF-8 safe: `_`
            // is ASCII).
            let next = wgsl[i + 1..].find('_').map_or(bytes.len(), |k| i + 1 + k);
            out.push_str(&wgsl[i..next]);
            i = next;
            continue;
        }
        let end = (i + 1..bytes.len())
            .find(|&k| !is_name(bytes[k]))
            .unwrap_or(bytes.len());
        out.push_str("md2_bevy");
        out.push_str(&wgsl[i..end]);
        if bytes[end - 1].is_ascii_digit() {
            out.push('_');
        }
        i = end;
    }
    out
}

/// `md2_bevy::instance`'s text.
pub const INSTANCE_WGSL: &str = include_str!("../shaders/md2_instance.wgsl");
/// The vertex stage's text.
pub const VERTEX_WGSL: &str = include_str!("../shaders/md2_vertex.wgsl");
/// The fragment stage's text.
pub const FRAGMENT_WGSL: &str = include_str!("../shaders/md2_fragment.wgsl");
/// `md2_bevy::crowd`'s own text: its bindings and what only md2-bevy's
/// stages read (the level tint, the shell's colour); [`crowd_module`] is
/// the module.
pub const CROWD_WGSL: &str = include_str!("../shaders/md2_crowd.wgsl");

/// The import module `md2_bevy::crowd`: [`CROWD_WGSL`], then md2-wgpu's
/// crowd reader (`CROWD_READ_WGSL`: a record as its member's rows and
/// pose, a member's look, the previous frame's from the extra records),
/// so md2-bevy reads the words md2-wgpu's passes write with md2-wgpu's
/// own functions (its names that begin with `_` renamed, as the pose's).
pub fn crowd_module() -> String {
    format!(
        "{CROWD_WGSL}\n{}\n",
        without_leading_underscores(md2_wgpu::contract::CROWD_READ_WGSL)
    )
}
/// The crowd's vertex stage's text.
pub const CROWD_VERTEX_WGSL: &str = include_str!("../shaders/md2_crowd_vertex.wgsl");

/// Puts the six shaders into `shaders` under their handles.
pub(crate) fn register(shaders: &mut Assets<Shader>) {
    let modules = [
        (POSE_SHADER, pose_module(), "md2_bevy/pose.wgsl"),
        (
            INSTANCE_SHADER,
            INSTANCE_WGSL.to_owned(),
            "md2_bevy/md2_instance.wgsl",
        ),
        (
            VERTEX_SHADER,
            VERTEX_WGSL.to_owned(),
            "md2_bevy/md2_vertex.wgsl",
        ),
        (
            FRAGMENT_SHADER,
            FRAGMENT_WGSL.to_owned(),
            "md2_bevy/md2_fragment.wgsl",
        ),
        (CROWD_SHADER, crowd_module(), "md2_bevy/md2_crowd.wgsl"),
        (
            CROWD_VERTEX_SHADER,
            CROWD_VERTEX_WGSL.to_owned(),
            "md2_bevy/md2_crowd_vertex.wgsl",
        ),
    ];
    for (handle, source, path) in modules {
        // Uuid handles cannot fail to insert.
        let _ = shaders.insert(handle.id(), Shader::from_wgsl(source, path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_with_a_leading_underscore_change() {
        assert_eq!(
            without_leading_underscores(
                "struct A { _pad0: u32, _pad: u32, md2_x1: u32, a_b: vec4<f32> } // _ é_"
            ),
            "struct A { md2_bevy_pad0_: u32, md2_bevy_pad: u32, md2_x1: u32, a_b: vec4<f32> } // _ é_"
        );
        // md2-wgpu names its padding field `padding_b` so that nothing in
        // the pose needs renaming; it passes unchanged.
        let module = pose_module();
        assert!(module.contains("padding_b: u32"));
        assert!(!module.contains("md2_bevy_"));
        assert!(module.contains("fn md2_pose_vertex("));
        assert!(module.contains("@group(3) @binding(0) var<uniform> md2_model"));
    }

    /// A module of this crate as plain WGSL naga reads: Bevy's
    /// preprocessor lines dropped, the material's group put in.
    fn plain(wgsl: &str) -> String {
        wgsl.lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| l.replace("#{MATERIAL_BIND_GROUP}", "3"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The records the plugin writes are the WGSL structs its shaders read,
    /// field by field (name, offset, size), held by md2-wgpu's record
    /// checker as md2-wgpu holds its own.
    #[test]
    fn the_records_are_their_wgsl_structs() {
        use crate::material::Md2ModelInfo;
        use crate::poses::PoseRecord;
        use md2_wgpu::checks::check_record_wgsl;

        let pose = md2_wgpu::record_layout!(
            PoseRecord,
            "Md2EntityPose",
            [
                frames,
                previous_frames,
                lerp,
                skin,
                previous_lerp,
                pad,
                tint
            ]
        );
        check_record_wgsl("md2_instance.wgsl", &plain(INSTANCE_WGSL), &pose)
            .unwrap_or_else(|e| panic!("{e}"));
        let info = md2_wgpu::record_layout!(
            Md2ModelInfo,
            "Md2ModelInfo",
            [num_xyz, num_frames, flags, padding_b]
        );
        check_record_wgsl("the pose module", &plain(&pose_module()), &info)
            .unwrap_or_else(|e| panic!("{e}"));
        // And a record that is not the struct is found out.
        let mut wrong = pose.clone();
        wrong.fields.swap(2, 3);
        assert!(check_record_wgsl("md2_instance.wgsl", &plain(INSTANCE_WGSL), &wrong).is_err());
    }

    /// The crowd's draw group: `md2_crowd.wgsl` declares its bindings
    /// where `crowd_render.rs` binds them, and its record and member
    /// strides are md2-wgpu's.
    #[test]
    fn the_crowd_bindings_in_the_wgsl_are_the_rust_constants() {
        use crate::crowd_render::{
            CROWD_DRAW_BINDING, CROWD_MEMBERS_BINDING, CROWD_RECORDS_BINDING,
        };
        for (binding, name) in [
            (CROWD_DRAW_BINDING, "md2_crowd_draw"),
            (CROWD_RECORDS_BINDING, "md2_crowd_records"),
            (CROWD_MEMBERS_BINDING, "md2_crowd_members"),
        ] {
            assert_declared_at(CROWD_WGSL, binding, name);
        }
        // The words are read by md2-wgpu's reader, the very text its own
        // crowd draws read them with (in its renderer's module).
        let reader = md2_wgpu::contract::CROWD_READ_WGSL;
        assert!(crowd_module().contains(&without_leading_underscores(reader)));
        assert!(md2_wgpu::contract::MD2_RENDERER_WGSL.contains(reader));
    }

    /// A crowd's shells are md2-wgpu's: pushed out as far, as translucent.
    #[test]
    fn the_shells_are_md2_wgpus() {
        use md2_wgpu::scene::{SHELL_ALPHA, SHELL_OFFSET};
        for (name, value) in [("OFFSET", SHELL_OFFSET), ("ALPHA", SHELL_ALPHA)] {
            let expected = format!("MD2_CROWD_SHELL_{name}: f32 = {value:?};");
            assert!(CROWD_WGSL.contains(&expected), "{expected}");
        }
    }

    /// The crowd's shadow maps leave out md2-wgpu's no-shadow members.
    #[test]
    fn the_no_shadow_effect_is_md2_wgpus() {
        let bit = md2_wgpu::contract::EFFECT_NO_SHADOW;
        let expected = format!("MD2_CROWD_EFFECT_NO_SHADOW: u32 = {bit:#010x}u;");
        assert!(CROWD_WGSL.contains(&expected), "{expected}");
    }

    /// The level tint's colours in the WGSL are `LEVEL_COLOURS`, level by
    /// level (the last is the chain's start).
    #[test]
    fn the_level_colours_in_the_wgsl_are_the_rust_constants() {
        use crate::crowd::LEVEL_COLOURS;
        let vec3 = |[r, g, b]: [f32; 3]| format!("vec3<f32>({r:.1}, {g:.1}, {b:.1})");
        let last = LEVEL_COLOURS.len() - 1;
        for (level, colour) in LEVEL_COLOURS.iter().enumerate() {
            let expected = if level == last {
                format!("var colour = {};", vec3(*colour))
            } else {
                format!("{}, level == {level}u)", vec3(*colour))
            };
            assert!(CROWD_WGSL.contains(&expected), "{expected}");
        }
    }

    #[test]
    fn the_bindings_in_the_wgsl_are_the_rust_constants() {
        for (binding, name) in [
            (INSTANCES_BINDING, "md2_entity_poses"),
            (SKINS_BINDING, "md2_skins"),
            (SAMPLER_BINDING, "md2_skin_sampler"),
        ] {
            assert_declared_at(INSTANCE_WGSL, binding, name);
        }
    }

    /// `wgsl` declares `name` at `binding` of the material's group.
    fn assert_declared_at(wgsl: &str, binding: u32, name: &str) {
        let declaration = wgsl
            .lines()
            .find(|l| l.contains(&format!(" {name}:")))
            .unwrap_or_else(|| panic!("{name} is declared"));
        assert!(
            declaration.starts_with(&format!(
                "@group(#{{MATERIAL_BIND_GROUP}}) @binding({binding}) var"
            )),
            "{declaration}"
        );
    }
}
