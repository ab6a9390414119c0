//! The soldier built: its rest mesh posed for every frame of the Quake II
//! player table, each frame quantised the way a file stores it, and the
//! result cached for the process.

use std::sync::OnceLock;

use image::RgbaImage;

use super::math::{Rigid, V3, add, cross, sub};
use super::{animation, body, normals, skin};
use crate::anim::Quake2Player;
use crate::format::Md2Parts;
use crate::format::{Md2Model, TexCoord, Triangle};
use crate::model::{Frame, PackedVertex};

/// The skin's width in texels (also the header's `skinwidth`).
pub const SKIN_WIDTH: u32 = 256;
/// The skin's height in texels (also the header's `skinheight`).
pub const SKIN_HEIGHT: u32 = 128;

/// Where the floor is: the lowest point of every frame but a jump's.
const FLOOR: f64 = -24.0;

/// The demo character: see the [module docs](super).
pub fn demo_model() -> Md2Model {
    cached().clone()
}

/// The demo character as an MD2 file: [`Md2Model::to_bytes`] of
/// [`demo_model`].
pub fn demo_model_bytes() -> Vec<u8> {
    cached().to_bytes()
}

/// The demo character as a Quake I model: [`demo_model`] through
/// [`mdl::from_keyframes`](crate::format::mdl::from_keyframes), on one grid for
/// every frame, its skin in the crate's built-in palette
/// ([`Palette::builtin`](crate::format::mdl::Palette::builtin)).
pub fn demo_mdl() -> crate::format::mdl::MdlModel {
    let palette = crate::format::mdl::Palette::builtin();
    crate::format::mdl::from_keyframes(cached(), &[demo_skin()], &palette)
        .expect("the demo fits an MDL")
        .0
}

/// The demo character's skin, [`SKIN_WIDTH`] × [`SKIN_HEIGHT`], RGBA8.
pub fn demo_skin() -> RgbaImage {
    skin::paint(&body::parts(), SKIN_WIDTH, SKIN_HEIGHT)
}

fn cached() -> &'static Md2Model {
    static MODEL: OnceLock<Md2Model> = OnceLock::new();
    MODEL.get_or_init(build)
}

fn build() -> Md2Model {
    let parts = body::parts();
    let mesh = body::rest_mesh(&parts);
    let n = mesh.positions.len();
    let mut frames = Vec::with_capacity(Quake2Player::FRAME_COUNT as usize);
    let mut vertices = Vec::with_capacity(Quake2Player::FRAME_COUNT as usize * n);
    let mut positions = vec![[0.0; 3]; n];
    let mut normals = vec![[0.0; 3]; n];
    let normal_index = normals::NormalIndex::new();
    for anim in Quake2Player::ALL {
        for k in 0..anim.frames().count() as u32 {
            let pose = animation::pose(anim, k);
            pose_mesh(&mesh, &pose, &mut positions);
            vertex_normals(&mesh, &positions, &mut normals);
            let (frame, packed) =
                quantise(&anim.frame_name(k), &positions, &normals, &normal_index);
            frames.push(frame);
            vertices.extend(packed);
        }
    }
    let tex_coords = mesh.st.iter().map(|&[s, t]| TexCoord { s, t }).collect();
    // The rest mesh is wound with outward normals; files wind the other
    // way (see the module docs).
    let triangles = mesh
        .triangles
        .iter()
        .map(|&[a, b, c]| Triangle {
            xyz: [a.0, c.0, b.0],
            st: [a.1, c.1, b.1],
        })
        .collect();
    let parts = Md2Parts {
        skin_size: (SKIN_WIDTH, SKIN_HEIGHT),
        skins: Vec::new(),
        tex_coords,
        triangles,
        frames,
        vertices,
    };
    Md2Model::from_parts(parts).expect("the demo model's parts are consistent by construction")
}

/// Poses the rest mesh and sets it on the floor (plus the pose's lift),
/// and gives each bone's transform as posed (the floor's shift in it).
pub(super) fn pose_mesh(
    mesh: &body::RestMesh,
    pose: &animation::Pose,
    out: &mut [V3],
) -> [Rigid; body::BONE_COUNT] {
    let mut world = body::world_transforms(&pose.rotation, [pose.shift[0], pose.shift[1], 0.0]);
    let mut lowest = f64::INFINITY;
    for ((p, rest), bone) in out.iter_mut().zip(&mesh.positions).zip(&mesh.bones) {
        *p = world[*bone as usize].apply(*rest);
        lowest = lowest.min(p[2]);
    }
    let dz = FLOOR + pose.lift - lowest;
    for p in out.iter_mut() {
        p[2] += dz;
    }
    for bone in &mut world {
        bone.translation[2] += dz;
    }
    world
}

/// Smooth normals: each vertex's area-weighted sum of its faces' outward
/// normals.
pub(super) fn vertex_normals(mesh: &body::RestMesh, positions: &[V3], out: &mut [V3]) {
    out.fill([0.0; 3]);
    for tri in &mesh.triangles {
        let [a, b, c] = tri.map(|(v, _)| v as usize);
        let face = cross(
            sub(positions[b], positions[a]),
            sub(positions[c], positions[a]),
        );
        for v in [a, b, c] {
            out[v] = add(out[v], face);
        }
    }
}

/// One frame in the file's form: bounds give scale and translate, each
/// coordinate rounds to the nearest of 256 steps, each normal to the
/// nearest table entry.
fn quantise(
    name: &str,
    positions: &[V3],
    normals: &[V3],
    normal_index: &normals::NormalIndex,
) -> (Frame, Vec<PackedVertex>) {
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    for p in positions {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    let mut scale = [0f32; 3];
    let mut translate = [0f32; 3];
    for k in 0..3 {
        translate[k] = min[k] as f32;
        // A flat axis still needs a non-zero step to divide by.
        scale[k] = (((max[k] - min[k]) / 255.0) as f32).max(f32::MIN_POSITIVE);
    }
    let packed = positions
        .iter()
        .zip(normals)
        .map(|(p, n)| {
            let mut position = [0u8; 3];
            for k in 0..3 {
                let q = (p[k] - f64::from(translate[k])) / f64::from(scale[k]);
                position[k] = q.round().clamp(0.0, 255.0) as u8;
            }
            PackedVertex {
                position,
                normal_index: normal_index.nearest(n.map(|x| x as f32)),
            }
        })
        .collect();
    (Frame::new(name, scale, translate), packed)
}
