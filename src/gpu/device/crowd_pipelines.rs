//! The crowd's compute pipelines (classify, scan, emit, sort, gather), the
//! table of sort steps their dynamic offsets pick from, and the bind groups
//! they read. Built once per device, on first use, from the cache's crowd
//! module: the device's cache owns them, and the crowd and the views use
//! them, so they live with the device.

use super::buffers::buffer_init;
use super::layouts::Layouts;
use crate::contract::crowd::SortStep;
use crate::contract::entry;
use crate::crowd::CrowdSortSteps;

/// The crowd's compute pipelines, and the table of sort steps their
/// dynamic offsets pick from.
#[derive(Debug)]
pub(crate) struct CrowdPipelines {
    pub classify: wgpu::ComputePipeline,
    pub scan: wgpu::ComputePipeline,
    pub emit: wgpu::ComputePipeline,
    pub sort_block: wgpu::ComputePipeline,
    pub sort_step: wgpu::ComputePipeline,
    pub gather: wgpu::ComputePipeline,
    /// Places attached crowds' members on their parents' tags.
    pub attach: wgpu::ComputePipeline,
    pub steps: SortSteps,
}

/// The table of sort steps ([`CrowdSortSteps`]: every step of a bitonic
/// sort, one per uniform offset alignment) as the device's uniform buffer,
/// so a dispatch picks its step with a dynamic offset: WebGPU has no push
/// constants.
#[derive(Debug)]
pub(crate) struct SortSteps {
    pub buffer: wgpu::Buffer,
    pub table: CrowdSortSteps,
}

impl SortSteps {
    fn new(device: &wgpu::Device) -> SortSteps {
        let table = CrowdSortSteps::new(device.limits().min_uniform_buffer_offset_alignment);
        let bytes = table.bytes();
        let label = "md2-wgpu crowd sort steps";
        let usage = wgpu::BufferUsages::UNIFORM;
        // Made on a lost device, the buffer is invalid however it is made:
        // the crowds' passes then report the device's error.
        let buffer = buffer_init(device, label, bytes, usage).unwrap_or_else(|_| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.len() as u64,
                usage,
                mapped_at_creation: false,
            })
        });
        SortSteps { buffer, table }
    }
}

impl CrowdPipelines {
    /// Every pipeline of the crowd `module`, with `layouts`' crowd layout.
    pub(crate) fn new(
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        layouts: &Layouts,
    ) -> CrowdPipelines {
        let with_layout = |label: &str, entry_point: &str, layout| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let pipeline = |label: &str, entry_point: &str| {
            with_layout(label, entry_point, &layouts.crowd_pipeline)
        };
        CrowdPipelines {
            classify: pipeline("md2-wgpu crowd classify pipeline", entry::CS_CLASSIFY),
            scan: pipeline("md2-wgpu crowd scan pipeline", entry::CS_SCAN),
            emit: pipeline("md2-wgpu crowd emit pipeline", entry::CS_EMIT),
            sort_block: pipeline("md2-wgpu crowd sort block pipeline", entry::CS_SORT_BLOCK),
            sort_step: pipeline("md2-wgpu crowd sort step pipeline", entry::CS_SORT_STEP),
            gather: pipeline("md2-wgpu crowd gather pipeline", entry::CS_GATHER),
            attach: with_layout(
                "md2-wgpu crowd attach pipeline",
                entry::CS_ATTACH,
                &layouts.attach_pipeline,
            ),
            steps: SortSteps::new(device),
        }
    }
}

/// Group 0 of the crowd's compute passes for a view whose uniform is
/// `view`.
pub(crate) fn camera_group(
    device: &wgpu::Device,
    layouts: &Layouts,
    view: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("md2-wgpu crowd camera bind group"),
        layout: &layouts.crowd_camera,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: view.as_entire_binding(),
        }],
    })
}

/// Group 2 of the crowd's compute passes for one view of one crowd.
pub(crate) fn view_group(
    device: &wgpu::Device,
    layouts: &Layouts,
    frame: &wgpu::Buffer,
    records: &wgpu::Buffer,
    work: &wgpu::Buffer,
    steps: &SortSteps,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("md2-wgpu crowd view bind group"),
        layout: &layouts.crowd_view,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: frame.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: work.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &steps.buffer,
                    offset: 0,
                    size: std::num::NonZeroU64::new(size_of::<SortStep>() as u64),
                }),
            },
        ],
    })
}

/// Group 3 of a resident crowd's draws for one view of one crowd: the draw
/// words of every bucket (bound 16 bytes at a time at a dynamic offset into
/// the view's work buffer), the view's visible records and the crowd's
/// members.
pub(crate) fn draw_group(
    device: &wgpu::Device,
    layouts: &Layouts,
    work: &wgpu::Buffer,
    records: &wgpu::Buffer,
    members: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("md2-wgpu crowd draw bind group"),
        layout: &layouts.crowd_draw,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: work,
                    offset: 0,
                    size: std::num::NonZeroU64::new(16),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: members.as_entire_binding(),
            },
        ],
    })
}

/// The attach pass's groups for one view of a riding crowd: group 1, the
/// parent crowd's `members` and `params`; group 2, the view's `frame`, the
/// root crowd's `work` buffer of that view, the riding crowd's `members`
/// and its `tags`.
pub(crate) fn attach_groups(
    device: &wgpu::Device,
    layouts: &Layouts,
    (members, params): (&wgpu::Buffer, &wgpu::Buffer),
    (frame, work, attached, tags): (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer),
) -> [wgpu::BindGroup; 2] {
    let group = |label, layout, entries: &[(u32, &wgpu::Buffer)]| {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
            .iter()
            .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout,
            entries: &entries,
        })
    };
    [
        group(
            "md2-wgpu crowd parent bind group",
            &layouts.crowd_parent,
            &[(0, members), (1, params)],
        ),
        group(
            "md2-wgpu crowd attach bind group",
            &layouts.crowd_attach,
            &[(0, frame), (2, work), (4, attached), (5, tags)],
        ),
    ]
}
