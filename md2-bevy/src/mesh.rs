//! A model's welded corners and triangles as a Bevy [`Mesh`], and the box
//! every frame fits in.

use bevy::asset::RenderAssetUsages;
use bevy::camera::primitives::Aabb;
use bevy::math::Vec3;
use bevy::mesh::{Indices, Mesh, MeshVertexAttribute, PrimitiveTopology, VertexAttributeValues};
use bevy::render::render_resource::VertexFormat;
use md2_wgpu::ModelData;
use md2_wgpu::contract::IndexFormat;

/// The corner's index into each frame's packed vertices (`Corner::xyz`):
/// what `md2_pose_vertex` decodes. A mesh of an MD2 model has this and
/// [`Mesh::ATTRIBUTE_UV_0`] only: no positions or normals, which the vertex
/// stage decodes from the frames.
pub const ATTRIBUTE_MD2_VERTEX: MeshVertexAttribute =
    MeshVertexAttribute::new("Md2_Vertex", 0x4d44_3256, VertexFormat::Uint32);

/// The mesh of `data`: one vertex per welded corner (its vertex index and
/// uv, 12 bytes) and full detail's triangles, wound counter-clockwise seen
/// from outside as Bevy's pipelines cull them (the contract's mirrored
/// list; MD2 files wind them clockwise).
pub fn md2_mesh(data: &ModelData) -> Mesh {
    md2_level_mesh(data, 0)
}

/// The mesh of `data`'s level of detail `level` (0: full detail; past the
/// last level, the last): [`md2_mesh`]'s corners with that level's
/// triangles.
pub fn md2_level_mesh(data: &ModelData, level: usize) -> Mesh {
    let corners = data.mesh().corners();
    let levels = data.levels_of_detail().levels();
    let chosen = levels[level.min(levels.len() - 1)];
    let range = chosen.first_index as usize..(chosen.first_index + chosen.index_count) as usize;
    let triangles = &data.mirrored_indices()[range];
    let indices = match data.index_format() {
        // Every corner index fits: index_format says so.
        IndexFormat::Uint16 => Indices::U16(triangles.iter().map(|&i| i as u16).collect()),
        IndexFormat::Uint32 => Indices::U32(triangles.to_vec()),
    };
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD,
    )
    .with_inserted_attribute(
        ATTRIBUTE_MD2_VERTEX,
        VertexAttributeValues::Uint32(corners.iter().map(|c| c.xyz).collect()),
    )
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_UV_0,
        VertexAttributeValues::Float32x2(corners.iter().map(|c| c.uv).collect()),
    )
    .with_inserted_indices(indices)
}

/// The box around every frame, in the mesh's local space (Y up: Quake's
/// `(x, y, z)` as `(y, z, x)`, [`md2_wgpu::scene::QUAKE_TO_Y_UP`]). Bevy cannot
/// compute it from a mesh without positions, and an entity's box must hold
/// every pose it can take, or culling drops it mid-animation.
pub fn every_frame_aabb(data: &ModelData) -> Aabb {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for bounds in data.frame_bounds() {
        lo = lo.min(y_up(bounds.min));
        hi = hi.max(y_up(bounds.max));
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Aabb::from_min_max(Vec3::ZERO, Vec3::ZERO);
    }
    Aabb::from_min_max(lo, hi)
}

/// A point in Quake axes in the mesh's local space, through arrays (Bevy's
/// glam is not md2-wgpu's).
fn y_up(p: [f32; 3]) -> Vec3 {
    Vec3::from_array(md2_wgpu::scene::quake_to_y_up(p).to_array())
}
