//! A crowd whose members ride another crowd's members on a tag: each frame,
//! before the views' passes, `cs_attach` (`shaders/crowd/attach.wgsl`)
//! samples every parent member's clock, lerps the parent model's tag at
//! that pose (crossfades included) and writes the child member's rows as
//! the parent's rows times the tag's matrix, so a Quake III player's torso,
//! head and weapon follow legs and torsos that animate on their own clocks
//! with nothing done per member on the CPU.

use crate::contract::crowd::TAG_VEC4S;
use crate::format::md3::{Md3Model, Md3TagError};
use crate::gpu::device::buffers::buffer_init;

/// The tag named `name` in every frame of `model`, as `cs_attach` reads it:
/// per frame, vec4 `k` is (axis `k`, origin component `k`), the axes being
/// the columns of [`Md3Tag::matrix`](crate::format::md3::Md3Tag::matrix).
/// A frame without the tag is the error (as [`Md3Model::tag_at`] says).
pub(crate) fn tag_table(model: &Md3Model, name: &str) -> Result<Vec<[f32; 4]>, Md3TagError> {
    let mut table = Vec::with_capacity(model.frames().len() * TAG_VEC4S as usize);
    for frame in 0..model.frames().len() {
        let tag = model
            .tag(frame, name)
            .ok_or_else(|| Md3TagError::NoSuchTag {
                tag: name.to_owned(),
                frame: frame as u32,
            })?;
        for k in 0..TAG_VEC4S as usize {
            let [x, y, z] = tag.axis[k];
            table.push([x, y, z, tag.origin[k]]);
        }
    }
    Ok(table)
}

/// What a crowd keeps of the crowd it rides: the parent's id (the parent
/// is found among the crowds of each `prepare_crowds`, before this one)
/// and the parent model's tag per frame, uploaded once.
#[derive(Debug)]
pub(crate) struct Attachment {
    parent: u64,
    tags: wgpu::Buffer,
}

impl Attachment {
    /// Uploads `table` (from [`tag_table`]) for a crowd riding the crowd
    /// with id `parent`.
    pub(crate) fn new(
        device: &wgpu::Device,
        parent: u64,
        table: &[[f32; 4]],
    ) -> Result<Attachment, String> {
        if table.is_empty() {
            return Err("a tag table needs a frame".into());
        }
        let tags = buffer_init(
            device,
            "md2-wgpu crowd tags",
            bytemuck::cast_slice(table),
            wgpu::BufferUsages::STORAGE,
        )?;
        Ok(Attachment { parent, tags })
    }

    /// The id of the crowd ridden.
    pub(crate) fn parent(&self) -> u64 {
        self.parent
    }

    /// The tag table on the GPU.
    pub(crate) fn tags(&self) -> &wgpu::Buffer {
        &self.tags
    }

    /// Bytes of GPU memory the table takes.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        self.tags.size()
    }
}
