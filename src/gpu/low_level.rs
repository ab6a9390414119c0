//! The crate's GPU objects, for those who drive the GPU themselves: a
//! benchmark that draws other strategies with the crate's own groups and
//! records, a host or tool that binds them in pipelines of its own, a test
//! that reads back what the compute passes wrote. Everyday apps need none
//! of it.
//!
//! Everything here is as stable as the rest of the API; what it exposes is
//! described by the [contract](crate::contract) (the records' layouts, the
//! bindings), so it changes only where the contract does.

use std::future::Future;

use crate::contract::{ExtraRecord, InstanceRecord};
use crate::gpu::crowd::view::ARGS;
use crate::gpu::device::layouts;
use crate::gpu::readback::Readback;
use crate::gpu::view::Md2Renderer;

const RECORD: u64 = size_of::<InstanceRecord>() as u64;

/// The vertex buffers of every render pipeline of the crate, in slot
/// order: the model's corners (locations 0, 1), the instance records
/// (locations 2 to 9, instance step), and the extra records of materials
/// and motion (locations 10 to 15, instance step; only where a renderer
/// keeps them). A pipeline of the app's over the render module
/// ([`MD2_RENDERER_WGSL`](crate::MD2_RENDERER_WGSL)) reads the same
/// buffers with these.
pub fn vertex_buffer_layouts() -> [wgpu::VertexBufferLayout<'static>; 3] {
    layouts::vertex_buffers_with_extra().map(|l| l.expect("every slot has a layout"))
}

/// The renderer's view bind group: group 0 of the render module (the view
/// uniform, `Md2View`, and the skin sampler), with this renderer's camera,
/// light and shadow plane as its last `prepare` wrote them.
pub fn view_bind_group(renderer: &Md2Renderer) -> &wgpu::BindGroup {
    renderer.view().group()
}

/// The instance records the renderer's last `prepare` wrote, batch after
/// batch, each batch bucket by bucket (for a batch of opaque, unmirrored,
/// shell-less instances at one level of detail: in the order given). `None`
/// before the first instance.
pub fn instance_buffer(renderer: &Md2Renderer) -> Option<&wgpu::Buffer> {
    renderer.immediate().instance_buffer()
}

/// Draw calls the renderer's `render` and `render_phase` recorded since its
/// last `prepare`.
pub fn recorded_draws(renderer: &Md2Renderer) -> u64 {
    renderer.recorded_draws()
}

/// Every visible record the renderer's last `prepare_crowds` wrote for
/// crowd `index` (in the order given), with its draw bucket, in draw order:
/// what the GPU's clocks, culling and levels made of the members. Two
/// read-backs of their own (the draw counts, then the records); nothing
/// blocks, and natively the device must be polled for each.
pub fn read_crowd_records(
    renderer: &Md2Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    index: usize,
) -> impl Future<Output = Result<Vec<(usize, InstanceRecord)>, String>> + use<> {
    read_crowd(renderer, device, queue, index, false)
}

/// The extra records (previous transform and pose, index, id) beside
/// [`read_crowd_records`]' records, in the same order, for a renderer that
/// keeps them (a motion target, or a material that reads them).
pub fn read_crowd_extras(
    renderer: &Md2Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    index: usize,
) -> impl Future<Output = Result<Vec<(usize, ExtraRecord)>, String>> + use<> {
    let keeps = renderer.keeps_extras();
    let read = read_crowd(renderer, device, queue, index, true);
    async move {
        if !keeps {
            return Err("this renderer keeps no extra records".into());
        }
        Ok(read
            .await?
            .into_iter()
            .map(|(bucket, r)| (bucket, bytemuck::cast(r)))
            .collect())
    }
}

fn read_crowd(
    renderer: &Md2Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    index: usize,
    extras: bool,
) -> impl Future<Output = Result<Vec<(usize, InstanceRecord)>, String>> + use<> {
    let view = renderer.crowd_views().views().get(index);
    let found = view.is_some();
    let offset = match view {
        Some(view) if extras => view.extra_base(),
        _ => 0,
    };
    let (device, queue) = (device.clone(), queue.clone());
    let first = view
        .and_then(|v| v.buffers())
        .map(|(records, work, bases)| {
            let encoder = device.create_command_encoder(&Default::default());
            let size = ARGS * bases.len() as u64;
            let args = Readback::start(&device, &queue, encoder, &[(work, 0, size)]);
            (records.clone(), bases, args)
        });
    async move {
        if !found {
            return Err("no such crowd".to_string());
        }
        let Some((records, bases, args)) = first else {
            return Ok(Vec::new());
        };
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&args.await?);
        let ranges: Vec<(usize, u64, u64)> = bases
            .iter()
            .enumerate()
            .map(|(bucket, &base)| (bucket, u64::from(base), u64::from(words[bucket * 5 + 1])))
            .filter(|&(_, _, count)| count > 0)
            .collect();
        let parts: Vec<_> = ranges
            .iter()
            .map(|&(_, base, count)| (&records, (offset + base) * RECORD, count * RECORD))
            .collect();
        let encoder = device.create_command_encoder(&Default::default());
        let bytes = Readback::start(&device, &queue, encoder, &parts).await?;
        let records: Vec<InstanceRecord> = bytemuck::pod_collect_to_vec(&bytes);
        let mut records = records.into_iter();
        let mut out = Vec::with_capacity(records.len());
        for (bucket, _, count) in ranges {
            out.extend(records.by_ref().take(count as usize).map(|r| (bucket, r)));
        }
        Ok(out)
    }
}
