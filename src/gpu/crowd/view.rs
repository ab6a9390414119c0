//! What one view keeps of one crowd: the visible records its compute pass
//! writes, the draw arguments it counts them into, and the draws that read
//! them.

use super::super::cache::{CrowdPipelines, Md2Cache};
use super::super::device::grow;
use super::super::error::PrepareError;
use super::super::model::DrawModel;
use super::super::shader::{BUCKETS, InstanceRecord, WORKGROUP_SIZE};
use super::Md2Crowd;

const RECORD: u64 = size_of::<InstanceRecord>() as u64;
/// One `DrawIndexedIndirectArgs`.
const ARGS: u64 = 20;
/// Dispatches are at most this many workgroups wide (WebGPU's
/// `maxComputeWorkgroupsPerDimension`); larger crowds add rows.
const MAX_GROUPS_X: u32 = 65535;

#[derive(Debug)]
pub(crate) struct CrowdView {
    crowd_id: u64,
    records: Option<wgpu::Buffer>,
    args: wgpu::Buffer,
    group: Option<wgpu::BindGroup>,
    /// Of the crowd, as of the last `fit`.
    model: Option<DrawModel>,
    counts: [u32; BUCKETS],
    bases: [u32; BUCKETS],
    members: u32,
}

impl CrowdView {
    pub(crate) fn new(device: &wgpu::Device, crowd: &Md2Crowd) -> CrowdView {
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu crowd draw arguments"),
            size: ARGS * BUCKETS as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        CrowdView {
            crowd_id: crowd.id(),
            records: None,
            args,
            group: None,
            model: None,
            counts: [0; BUCKETS],
            bases: [0; BUCKETS],
            members: 0,
        }
    }

    pub(crate) fn crowd_id(&self) -> u64 {
        self.crowd_id
    }

    /// Makes room for every record the crowd can make visible, and takes
    /// the crowd's current counts.
    pub(crate) fn fit(
        mut self,
        device: &wgpu::Device,
        cache: &Md2Cache,
        crowd: &Md2Crowd,
        frame: &wgpu::Buffer,
    ) -> Result<CrowdView, PrepareError> {
        let needed = crowd.record_capacity().max(1) * RECORD;
        if self.records.as_ref().is_none_or(|b| b.size() < needed) {
            let cap = device
                .limits()
                .max_storage_buffer_binding_size
                .min(device.limits().max_buffer_size)
                / RECORD
                * RECORD;
            let records = grow(
                device,
                "md2-wgpu crowd visible records",
                needed,
                64 * RECORD,
                cap,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::VERTEX
                    | wgpu::BufferUsages::COPY_SRC,
            )
            .map_err(|message| PrepareError::Device {
                operation: "growing a view's crowd records",
                message,
            })?;
            self.group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("md2-wgpu crowd view bind group"),
                layout: &cache.layouts().crowd_view,
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
                        resource: self.args.as_entire_binding(),
                    },
                ],
            }));
            self.records = Some(records);
        }
        if self.model.is_none() {
            self.model = Some(crowd.draw_model().clone());
        }
        self.counts = crowd.counts();
        self.bases = crowd.bases();
        self.members = crowd.len() as u32;
        Ok(self)
    }

    /// Records this crowd's reset and cull dispatches.
    pub(crate) fn record(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        pipelines: &CrowdPipelines,
        crowd: &Md2Crowd,
    ) {
        let Some(group) = &self.group else {
            return;
        };
        pass.set_bind_group(1, crowd.group(), &[]);
        pass.set_bind_group(2, group, &[]);
        pass.set_pipeline(&pipelines.reset);
        pass.dispatch_workgroups(1, 1, 1);
        let groups = self.members.div_ceil(WORKGROUP_SIZE);
        if groups > 0 {
            let x = groups.min(MAX_GROUPS_X);
            pass.set_pipeline(&pipelines.cull);
            pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
        }
    }

    /// Whether any of `buckets` can have records.
    pub(crate) fn draws_any(&self, buckets: [usize; 2]) -> bool {
        self.records.is_some() && buckets.iter().any(|&k| self.counts[k] > 0)
    }

    /// The indirect draws of `buckets` (the second one mirrored); returns
    /// how many it recorded.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, buckets: [usize; 2]) -> u64 {
        let (Some(records), Some(model)) = (&self.records, &self.model) else {
            return 0;
        };
        let mut draws = 0;
        for (mirrored, bucket) in [(false, buckets[0]), (true, buckets[1])] {
            let count = self.counts[bucket];
            if count == 0 {
                continue;
            }
            let start = u64::from(self.bases[bucket]) * RECORD;
            model.bind(pass, mirrored);
            pass.set_vertex_buffer(1, records.slice(start..start + u64::from(count) * RECORD));
            pass.draw_indexed_indirect(&self.args, bucket as u64 * ARGS);
            draws += 1;
        }
        draws
    }

    /// The visible records and draw arguments, for tests that read them
    /// back.
    pub(crate) fn buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, [u32; BUCKETS])> {
        Some((self.records.as_ref()?, &self.args, self.bases))
    }
}
