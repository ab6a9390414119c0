//! The immediate path on the GPU: a frame's packed instance records (and
//! extra records) in buffers that grow geometrically and are reused, and
//! the instanced draws that read them, batch by batch and bucket by bucket.

use super::batch::Md2Batch;
use super::packing::{PackOptions, Packing, Ranges};
use crate::contract::{ExtraRecord, InstanceRecord, MAX_LEVELS, opaque_at};
use crate::gpu::device::buffers::grow;
use crate::gpu::error::{PrepareError, PrepareReport};
use crate::gpu::model::DrawModel;

const RECORD: u64 = size_of::<InstanceRecord>() as u64;
const EXTRA: u64 = size_of::<ExtraRecord>() as u64;
/// The instance buffer's first size, in records: enough for a small scene
/// without regrowing.
const MIN_INSTANCE_CAPACITY: u64 = 64;

/// One batch of the last `prepare`, as drawn.
#[derive(Debug)]
struct BatchDraw {
    model: DrawModel,
    ranges: Ranges,
}

/// The immediate path's records and draws.
#[derive(Debug, Default)]
pub(crate) struct Immediate {
    instances: Option<wgpu::Buffer>,
    /// The extra records (previous transform and pose, index, id), parallel
    /// to the instance records, where the renderer keeps them.
    extras: Option<wgpu::Buffer>,
    /// Whether the last `prepare` wrote extra records.
    with_extras: bool,
    /// The records of the last `prepare`, kept to reuse the memory.
    packing: Packing,
    batches: Vec<BatchDraw>,
}

impl Immediate {
    /// Packs and uploads `batches`; returns the bytes written. The report
    /// counts what the policy left out or repaired and the instances per
    /// level.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        batches: &[Md2Batch<'_>],
        options: PackOptions,
        report: &mut PrepareReport,
    ) -> Result<u64, PrepareError> {
        self.batches.clear();
        self.with_extras = options.extras;
        let ranges = self.packing.pack(batches, options, report)?;
        for r in &ranges {
            for (bucket, &count) in r.count.iter().enumerate().take(crate::contract::SHELL) {
                report.levels[r.level(bucket)] += count;
            }
        }
        let records = self.packing.records.len() as u64;
        let bytes = records * RECORD;
        let max_buffer_size = device.limits().max_buffer_size;
        if bytes > max_buffer_size || u32::try_from(records).is_err() {
            return Err(PrepareError::TooManyInstances {
                instances: self.packing.records.len(),
                bytes,
                limit: max_buffer_size,
            });
        }
        let mut uploaded = 0;
        if records > 0 {
            let buffer = grow_buffer(
                device,
                &mut self.instances,
                "md2-wgpu instances",
                bytes,
                RECORD,
            )?;
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&self.packing.records));
            uploaded += bytes;
            if options.extras {
                let buffer = grow_buffer(
                    device,
                    &mut self.extras,
                    "md2-wgpu extra instance records",
                    records * EXTRA,
                    EXTRA,
                )?;
                queue.write_buffer(buffer, 0, bytemuck::cast_slice(&self.packing.extras));
                uploaded += records * EXTRA;
            }
        }
        for (batch, ranges) in batches.iter().zip(ranges) {
            if ranges.count.iter().any(|&c| c > 0) {
                self.batches.push(BatchDraw {
                    model: batch.model.draw_model(),
                    ranges,
                });
            }
        }
        Ok(uploaded)
    }

    /// Draws nothing until the next `prepare` (the last one failed
    /// half-way).
    pub fn forget(&mut self) {
        self.batches.clear();
    }

    /// How many records the instance buffer holds before it must grow.
    pub fn capacity(&self) -> u64 {
        self.instances.as_ref().map_or(0, |b| b.size() / RECORD)
    }

    /// The instance records of the last `prepare`, batch after batch.
    pub fn instance_buffer(&self) -> Option<&wgpu::Buffer> {
        self.instances.as_ref()
    }

    /// Whether any batch has records in one of `buckets`.
    pub fn draws_any(&self, buckets: &[(usize, bool)]) -> bool {
        self.instances.is_some()
            && self
                .batches
                .iter()
                .any(|b| buckets.iter().any(|&(k, _)| b.ranges.count[k] > 0))
    }

    /// Records every batch's draws of `buckets` (each with whether it binds
    /// the reversed index list); returns how many. `shadows`: the opaque
    /// buckets are drawn unculled, both windings of a level in one draw.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        buckets: &[(usize, bool)],
        shadows: bool,
    ) -> u64 {
        let Some(instances) = &self.instances else {
            return 0;
        };
        let records = Records {
            instances,
            extras: self.extras.as_ref().filter(|_| self.with_extras),
        };
        let mut draws = 0;
        for batch in &self.batches {
            let r = &batch.ranges;
            if shadows {
                // Shadows are not culled, so both opaque buckets of a level
                // (which lie side by side) are one draw with either winding.
                for level in 0..MAX_LEVELS {
                    let (plain, mirrored) = (opaque_at(level, false), opaque_at(level, true));
                    let draw = InstancedDraw {
                        first: r.first[plain],
                        count: r.count[plain] + r.count[mirrored],
                        level,
                        reversed: false,
                    };
                    draws += records.draw(pass, &batch.model, draw);
                }
                continue;
            }
            for &(bucket, reversed) in buckets {
                let draw = InstancedDraw {
                    first: r.first[bucket],
                    count: r.count[bucket],
                    level: r.level(bucket),
                    reversed,
                };
                draws += records.draw(pass, &batch.model, draw);
            }
        }
        draws
    }
}

/// Makes `slot` a buffer of at least `bytes` (growing it to the next power
/// of two, so a growing scene reallocates a logarithmic number of times),
/// for records of `stride` bytes, and returns it.
fn grow_buffer<'b>(
    device: &wgpu::Device,
    slot: &'b mut Option<wgpu::Buffer>,
    label: &str,
    bytes: u64,
    stride: u64,
) -> Result<&'b wgpu::Buffer, PrepareError> {
    if slot.as_ref().is_none_or(|b| b.size() < bytes) {
        let max = device.limits().max_buffer_size;
        *slot = None;
        let buffer = grow(
            device,
            label,
            bytes,
            MIN_INSTANCE_CAPACITY * stride,
            max / stride * stride,
            wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        )
        .map_err(|message| PrepareError::Device {
            operation: "growing an instance buffer",
            message,
        })?;
        *slot = Some(buffer);
    }
    Ok(slot.as_ref().expect("made above"))
}

/// The immediate path's records on the GPU: the instance records and,
/// where the renderer keeps them, the extra records beside them.
struct Records<'b> {
    instances: &'b wgpu::Buffer,
    extras: Option<&'b wgpu::Buffer>,
}

/// One instanced draw of the immediate path: `count` records from `first`,
/// at level of detail `level`, with the reversed index list where
/// `reversed`.
struct InstancedDraw {
    first: u32,
    count: u32,
    level: usize,
    reversed: bool,
}

impl Records<'_> {
    /// Records `draw`; returns how many draws it recorded (0 or 1).
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, model: &DrawModel, draw: InstancedDraw) -> u64 {
        if draw.count == 0 {
            return 0;
        }
        let (first, count) = (u64::from(draw.first), u64::from(draw.count));
        model.bind(pass, draw.reversed);
        let records = first * RECORD..(first + count) * RECORD;
        pass.set_vertex_buffer(1, self.instances.slice(records));
        if let Some(extras) = self.extras {
            pass.set_vertex_buffer(2, extras.slice(first * EXTRA..(first + count) * EXTRA));
        }
        pass.draw_indexed(model.indices_at(draw.level), 0, 0..count as u32);
        1
    }
}
