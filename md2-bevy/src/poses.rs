//! The per-entity pose records: one 80-byte [`PoseRecord`] per entity in a
//! storage buffer per model, at the entity's [`MeshTag`](bevy::mesh::MeshTag),
//! rewritten in place every frame from each entity's [`Md2Animator`] on
//! Bevy's clock, with the pose it had a frame earlier for motion vectors.

use bevy::asset::{AssetId, Assets, Handle, RenderAssetUsages};
use bevy::color::ColorToComponents;
use bevy::ecs::prelude::*;
use bevy::platform::collections::HashMap;
use bevy::render::storage::ShaderBuffer;
use bevy::time::Time;
use bytemuck::{Pod, Zeroable};
use md2_wgpu::contract::PoseWords;

use crate::animator::Md2Animator;
use crate::asset::Md2Asset;
use crate::material::Md2Material;

/// Where an entity's pose goes: its model and its slot in the model's pose
/// buffer (also its [`MeshTag`](bevy::mesh::MeshTag)), and the pose it showed last frame. The
/// plugin adds it with the mesh and material once the model has loaded;
/// read it, do not add it.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Md2Slot {
    pub(crate) model: AssetId<Md2Asset>,
    pub(crate) slot: u32,
    pub(crate) previous: Option<md2_wgpu::contract::PoseWords>,
}

impl Md2Slot {
    /// The model whose buffer holds the entity's pose.
    pub fn model(&self) -> AssetId<Md2Asset> {
        self.model
    }

    /// The entity's record in it (its [`MeshTag`](bevy::mesh::MeshTag)).
    pub fn slot(&self) -> u32 {
        self.slot
    }
}

/// One entity's pose as the shaders read it (`Md2EntityPose` in
/// `md2_instance.wgsl`): the pose now and a frame ago, as
/// `md2_pose_vertex`'s arguments ([`PoseWords`]), the skin layer and the
/// tint.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PoseRecord {
    /// Primary a, b, secondary a, b.
    pub frames: [u32; 4],
    /// `frames` a frame ago.
    pub previous_frames: [u32; 4],
    /// t, secondary t, crossfade weight.
    pub lerp: [f32; 3],
    /// The skin layer.
    pub skin: u32,
    /// `lerp` a frame ago.
    pub previous_lerp: [f32; 3],
    /// Padding to the WGSL struct's layout.
    pub pad: u32,
    /// Linear RGBA.
    pub tint: [f32; 4],
}

impl PoseRecord {
    /// The record of a pose, the pose a frame earlier, a skin and a tint.
    pub fn new(now: PoseWords, previous: PoseWords, skin: u32, tint: [f32; 4]) -> PoseRecord {
        PoseRecord {
            frames: now.frames,
            previous_frames: previous.frames,
            lerp: now.lerp,
            skin,
            previous_lerp: previous.lerp,
            pad: 0,
            tint,
        }
    }
}

/// The fewest records a model's buffer holds.
const MIN_CAPACITY: u32 = 64;

/// A model's entity slots: which records are in use, and the records as
/// the next upload writes them.
#[derive(Debug)]
pub(crate) struct ModelPoses {
    /// The buffer the material binds now.
    buffer: Handle<ShaderBuffer>,
    material: Handle<Md2Material>,
    records: Vec<PoseRecord>,
    free: Vec<u32>,
    next: u32,
    live: u32,
}

impl ModelPoses {
    fn new(asset: &Md2Asset) -> ModelPoses {
        ModelPoses {
            buffer: asset.poses.clone(),
            material: asset.material.clone(),
            records: vec![PoseRecord::default(); asset.pose_capacity as usize],
            free: Vec::new(),
            next: 0,
            live: 0,
        }
    }
}

/// Every model's entity slots, by model.
#[derive(Resource, Debug, Default)]
pub struct Md2Poses {
    models: HashMap<AssetId<Md2Asset>, ModelPoses>,
}

impl Md2Poses {
    /// A slot for an entity of `asset` (whose id is `id`). Where the buffer
    /// is full, a buffer twice the size replaces it and the material is
    /// given the new one: its bind group is made again (once per
    /// doubling), since a buffer of another size is another buffer.
    pub(crate) fn allocate(
        &mut self,
        id: AssetId<Md2Asset>,
        asset: &Md2Asset,
        buffers: &mut Assets<ShaderBuffer>,
        materials: &mut Assets<Md2Material>,
    ) -> u32 {
        let model = self
            .models
            .entry(id)
            .or_insert_with(|| ModelPoses::new(asset));
        model.live += 1;
        if let Some(slot) = model.free.pop() {
            return slot;
        }
        let slot = model.next;
        model.next += 1;
        if slot as usize >= model.records.len() {
            let capacity = (slot + 1).next_power_of_two().max(MIN_CAPACITY);
            model
                .records
                .resize(capacity as usize, PoseRecord::default());
            model.buffer = buffers.add(pose_buffer(&model.records));
            if let Some(mut material) = materials.get_mut(&model.material) {
                material.poses = model.buffer.clone();
            }
        }
        slot
    }

    /// Gives `slot` of model `id` back.
    pub(crate) fn free(&mut self, id: AssetId<Md2Asset>, slot: u32) {
        if let Some(model) = self.models.get_mut(&id) {
            if let Some(record) = model.records.get_mut(slot as usize) {
                *record = PoseRecord::default();
            }
            model.free.push(slot);
            model.live = model.live.saturating_sub(1);
        }
    }

    /// How many entities of model `id` have a slot.
    pub fn live(&self, id: AssetId<Md2Asset>) -> u32 {
        self.models.get(&id).map_or(0, |m| m.live)
    }

    /// How many records model `id`'s buffer holds: the bytes uploaded for
    /// it each frame are 80 times this.
    pub fn capacity(&self, id: AssetId<Md2Asset>) -> u32 {
        self.models.get(&id).map_or(0, |m| m.records.len() as u32)
    }

    /// Bytes the plugin writes to the GPU each frame for every model's
    /// poses.
    pub fn bytes_per_frame(&self) -> u64 {
        self.models
            .values()
            .filter(|m| m.live > 0)
            .map(|m| (m.records.len() * size_of::<PoseRecord>()) as u64)
            .sum()
    }
}

/// A pose buffer holding `records`, as the render world alone needs it
/// (Bevy moves the bytes there instead of copying them).
pub(crate) fn pose_buffer(records: &[PoseRecord]) -> ShaderBuffer {
    ShaderBuffer::new(
        bytemuck::cast_slice(records),
        RenderAssetUsages::RENDER_WORLD,
    )
}

/// Samples every MD2 entity's animator on Bevy's clock and rewrites each
/// model's pose buffer, same size, in place: the material is not touched,
/// so nothing is specialised again.
pub(crate) fn write_poses(
    time: Res<Time>,
    mut entities: Query<(&mut Md2Slot, &Md2Animator)>,
    mut poses: ResMut<Md2Poses>,
    mut buffers: ResMut<Assets<ShaderBuffer>>,
) {
    let now = time.elapsed_secs_f64();
    let poses = &mut *poses;
    for (mut slot, animator) in &mut entities {
        let Some(model) = poses.models.get_mut(&slot.model) else {
            continue;
        };
        let words = PoseWords::of(&animator.pose(now));
        let previous = slot.previous.unwrap_or(words);
        slot.previous = Some(words);
        if let Some(record) = model.records.get_mut(slot.slot as usize) {
            *record = PoseRecord::new(words, previous, animator.skin, animator.tint.to_f32_array());
        }
    }
    for model in poses.models.values().filter(|m| m.live > 0) {
        if let Some(mut buffer) = buffers.get_mut(&model.buffer) {
            buffer.data = Some(bytemuck::cast_slice(&model.records).to_vec());
        }
    }
}
