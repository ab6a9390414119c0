//! How the contract's records meet wgpu: the vertex buffer layouts every
//! render pipeline reads (corners, instance records, extra records) and the
//! bind-group layouts of the crate's modules, made once per device.

use std::num::NonZeroU64;

use crate::contract::crowd::{CrowdFrame, CrowdParams, SortStep};
use crate::contract::{ExtraRecord, InstanceRecord, ModelInfo, ViewUniform};

/// A render vertex as the vertex buffer holds it:
/// [`Corner`](crate::model::Corner), `vertex.wgsl`'s `Md2CornerIn`.
pub(crate) const CORNER_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Uint32, 1 => Float32x2];

/// `vertex.wgsl`'s `Md2InstanceIn` over [`InstanceRecord`].
pub(crate) const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 8] = wgpu::vertex_attr_array![
    2 => Float32x4,
    3 => Float32x4,
    4 => Float32x4,
    5 => Uint16x4,
    6 => Float32x3,
    7 => Uint32,
    // Unpacked in the shader, as the resident draws unpack theirs.
    8 => Uint32,
    9 => Uint32,
];

/// `vertex.wgsl`'s `Md2ExtraIn` over [`ExtraRecord`].
pub(crate) const EXTRA_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    10 => Float32x4,
    11 => Float32x4,
    12 => Float32x4,
    13 => Uint16x4,
    14 => Float32x3,
    15 => Uint32x2,
];

/// The vertex buffers every render pipeline reads: corners, instances,
/// and the extra records of materials and motion (where a pipeline reads
/// them).
pub(crate) fn vertex_buffers_with_extra() -> [Option<wgpu::VertexBufferLayout<'static>>; 3] {
    [
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<crate::model::Corner>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &CORNER_ATTRIBUTES,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<InstanceRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<ExtraRecord>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &EXTRA_ATTRIBUTES,
        }),
    ]
}

/// The bind-group layouts of both shaders, made once per device.
#[derive(Debug)]
pub(crate) struct Layouts {
    /// Group 0 of the render pipelines: the view, the sampler.
    pub view: wgpu::BindGroupLayout,
    /// Group 1 of the render module: one model's data (the pose's bindings) and
    /// skins.
    pub model: wgpu::BindGroupLayout,
    /// Group 0 of the crowd module: the view uniform alone (the crowd's compute
    /// stage has no use for the normal table, and a device may offer it only
    /// four storage buffers).
    pub crowd_camera: wgpu::BindGroupLayout,
    /// Group 1 of the crowd module: one crowd's members and parameters.
    pub crowd: wgpu::BindGroupLayout,
    /// Group 2 of the crowd module: one view's time, output, work buffer (draw
    /// arguments, prefix sums, sort keys) and the sort step (a dynamic
    /// offset into the cache's table of steps).
    pub crowd_view: wgpu::BindGroupLayout,
    /// Group 1 of the crowd's attach pass: the parent crowd's members and
    /// parameters (without its motion records: the pass has four storage
    /// buffers, WebGPU's downlevel limit).
    pub crowd_parent: wgpu::BindGroupLayout,
    /// Group 2 of the crowd's attach pass: one view's time, the root
    /// crowd's work buffer of that view, the attached crowd's members
    /// (written) and its parent's tag per frame.
    pub crowd_attach: wgpu::BindGroupLayout,
    /// Group 3 of the resident crowd's draws: the bucket's draw words (a
    /// uniform at a dynamic offset into the view's work buffer), the view's
    /// visible records, the crowd's members.
    pub crowd_draw: wgpu::BindGroupLayout,
    /// The render pipelines: groups 0 and 1.
    pub render_pipeline: wgpu::PipelineLayout,
    /// The resident crowd's render pipelines: groups 0, 1 and 3 (2 is a
    /// material's).
    pub resident_pipeline: wgpu::PipelineLayout,
    /// The crowd's compute passes: groups 0, 1 and 2.
    pub crowd_pipeline: wgpu::PipelineLayout,
    /// The attach pass: groups 0, 1 (the parent crowd's) and its own 2.
    pub attach_pipeline: wgpu::PipelineLayout,
}

impl Layouts {
    pub(crate) fn new(device: &wgpu::Device) -> Layouts {
        use wgpu::ShaderStages as S;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let everywhere = S::VERTEX_FRAGMENT | S::COMPUTE;
        let view = layout(
            "md2-wgpu view layout",
            &[
                uniform(0, everywhere, size_of::<ViewUniform>()),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: S::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        );
        let model_entries = [
            // The fragment stage reads the flags (fullbright masks).
            uniform(0, S::VERTEX_FRAGMENT | S::COMPUTE, size_of::<ModelInfo>()),
            storage(1, S::VERTEX | S::COMPUTE, true),
            storage(2, S::VERTEX | S::COMPUTE, true),
        ];
        let skins = wgpu::BindGroupLayoutEntry {
            binding: 4,
            visibility: S::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        };
        let mut with_skins = model_entries.to_vec();
        with_skins.push(skins);
        let model = layout("md2-wgpu model layout", &with_skins);
        let crowd_camera = layout(
            "md2-wgpu crowd camera layout",
            &[uniform(0, S::COMPUTE, size_of::<ViewUniform>())],
        );
        let crowd = layout(
            "md2-wgpu crowd layout",
            &[
                storage(0, S::COMPUTE, true),
                uniform(1, S::COMPUTE, size_of::<CrowdParams>()),
                storage(2, S::COMPUTE, true),
            ],
        );
        let crowd_view = layout(
            "md2-wgpu crowd view layout",
            &[
                uniform(0, S::COMPUTE, size_of::<CrowdFrame>()),
                storage(1, S::COMPUTE, false),
                storage(2, S::COMPUTE, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: S::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: NonZeroU64::new(size_of::<SortStep>() as u64),
                    },
                    count: None,
                },
            ],
        );
        let crowd_parent = layout(
            "md2-wgpu crowd parent layout",
            &[
                storage(0, S::COMPUTE, true),
                uniform(1, S::COMPUTE, size_of::<CrowdParams>()),
            ],
        );
        // The view's time and work buffer where the other passes' group 2
        // has them (the one module declares them once), bindings 4 and 5
        // its own.
        let crowd_attach = layout(
            "md2-wgpu crowd attach layout",
            &[
                uniform(0, S::COMPUTE, size_of::<CrowdFrame>()),
                storage(2, S::COMPUTE, false),
                storage(4, S::COMPUTE, false),
                storage(5, S::COMPUTE, true),
            ],
        );
        let crowd_draw = layout(
            "md2-wgpu crowd draw layout",
            &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: S::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: NonZeroU64::new(16),
                    },
                    count: None,
                },
                storage(1, S::VERTEX, true),
                storage(2, S::VERTEX, true),
            ],
        );
        let pipeline = |label: &str, groups: &[&wgpu::BindGroupLayout]| {
            let groups: Vec<Option<&wgpu::BindGroupLayout>> =
                groups.iter().copied().map(Some).collect();
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &groups,
                immediate_size: 0,
            })
        };
        let render_pipeline = pipeline("md2-wgpu render pipeline layout", &[&view, &model]);
        let resident_pipeline = resident_layout(device, &view, &model, None, &crowd_draw);
        let crowd_pipeline = pipeline(
            "md2-wgpu crowd pipeline layout",
            &[&crowd_camera, &crowd, &crowd_view],
        );
        let attach_pipeline = pipeline(
            "md2-wgpu crowd attach pipeline layout",
            &[&crowd_camera, &crowd_parent, &crowd_attach],
        );
        Layouts {
            view,
            model,
            crowd_camera,
            crowd,
            crowd_view,
            crowd_parent,
            crowd_attach,
            crowd_draw,
            render_pipeline,
            resident_pipeline,
            crowd_pipeline,
            attach_pipeline,
        }
    }
}

/// The layout of a resident crowd's render pipelines: the view, the model,
/// a material's group (or none) and the crowd's draw group.
pub(crate) fn resident_layout(
    device: &wgpu::Device,
    view: &wgpu::BindGroupLayout,
    model: &wgpu::BindGroupLayout,
    material: Option<&wgpu::BindGroupLayout>,
    crowd_draw: &wgpu::BindGroupLayout,
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("md2-wgpu resident pipeline layout"),
        bind_group_layouts: &[Some(view), Some(model), material, Some(crowd_draw)],
        immediate_size: 0,
    })
}

pub(crate) fn uniform(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

pub(crate) fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::mirrors::{locations, renderer};

    /// vertex.wgsl's `Md2ExtraIn` reads [`ExtraRecord`] through vertex
    /// attributes at its fields' offsets, and the previous transform and
    /// pose lie where [`InstanceRecord`] keeps the current ones (the crowd
    /// writes both with one struct).
    #[test]
    fn extra_attributes_read_the_extra_record_fields() {
        let fields = [
            (std::mem::offset_of!(ExtraRecord, rows), 16),
            (std::mem::offset_of!(ExtraRecord, rows) + 16, 16),
            (std::mem::offset_of!(ExtraRecord, rows) + 32, 16),
            (std::mem::offset_of!(ExtraRecord, frames), 8),
            (std::mem::offset_of!(ExtraRecord, lerp), 12),
            (std::mem::offset_of!(ExtraRecord, index), 8),
        ];
        assert_eq!(size_of::<ExtraRecord>(), size_of::<InstanceRecord>());
        assert_eq!(
            std::mem::offset_of!(ExtraRecord, lerp),
            std::mem::offset_of!(InstanceRecord, t)
        );
        assert_eq!(std::mem::offset_of!(ExtraRecord, id), 72);
        for (attribute, (offset, size)) in EXTRA_ATTRIBUTES.iter().zip(fields) {
            assert_eq!(attribute.offset as usize, offset, "{attribute:?}");
            assert_eq!(attribute.format.size() as usize, size, "{attribute:?}");
        }
        let ours: Vec<u32> = EXTRA_ATTRIBUTES.iter().map(|a| a.shader_location).collect();
        assert_eq!(locations(&renderer(), "Md2ExtraIn"), ours);
        // Every attribute of the three buffers, within WebGPU's 16.
        let all = CORNER_ATTRIBUTES.len() + INSTANCE_ATTRIBUTES.len() + EXTRA_ATTRIBUTES.len();
        assert!(all <= 16, "{all} vertex attributes");
    }

    /// vertex.wgsl's `Md2InstanceIn` reads [`InstanceRecord`] through vertex
    /// attributes: each attribute at its field's offset, with its size.
    #[test]
    fn instance_attributes_read_the_record_fields() {
        let fields = [
            (std::mem::offset_of!(InstanceRecord, rows), 16),
            (std::mem::offset_of!(InstanceRecord, rows) + 16, 16),
            (std::mem::offset_of!(InstanceRecord, rows) + 32, 16),
            (std::mem::offset_of!(InstanceRecord, frames), 8),
            (std::mem::offset_of!(InstanceRecord, t), 12),
            (std::mem::offset_of!(InstanceRecord, skin_intensity), 4),
            (std::mem::offset_of!(InstanceRecord, tint), 4),
            (std::mem::offset_of!(InstanceRecord, effects), 4),
        ];
        assert_eq!(size_of::<InstanceRecord>(), 80);
        for (attribute, (offset, size)) in INSTANCE_ATTRIBUTES.iter().zip(fields) {
            assert_eq!(attribute.offset as usize, offset, "{attribute:?}");
            assert_eq!(attribute.format.size() as usize, size, "{attribute:?}");
        }
        // The attributes' shader locations are Md2InstanceIn's, in order.
        let ours: Vec<u32> = INSTANCE_ATTRIBUTES
            .iter()
            .map(|a| a.shader_location)
            .collect();
        assert_eq!(locations(&renderer(), "Md2InstanceIn"), ours);
    }
}
