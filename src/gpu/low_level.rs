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

use crate::contract::crowd::{
    DRAW_STRIDE, DRAWS, EXTRA_WORDS, MEMBER_VEC4S, RECORD_WORDS, SORT_LAYOUT,
};
use crate::contract::{BUCKETS, ExtraRecord, InstanceRecord};
use crate::gpu::device::layouts;
use crate::gpu::readback::Readback;
use crate::gpu::view::Md2Renderer;

/// The vertex buffers of every render pipeline of the crate, in slot
/// order: the model's corners (locations 0, 1), the instance records
/// (locations 2 to 9, instance step), and the extra records of materials
/// and motion (locations 10 to 15, instance step; only where a renderer
/// keeps them). A pipeline of the app's over the render module
/// ([`MD2_RENDERER_WGSL`](crate::contract::MD2_RENDERER_WGSL)) reads the same
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

/// Bytes of GPU memory the renderer keeps for crowd `index` of its last
/// `prepare_crowds` (in the order given): the visible records (24 bytes
/// per member and per shell, and where the renderer keeps them, 80 more for
/// the extra records; a view that sorts keeps its translucent members and
/// shells twice), and the work buffer the compute passes count in (about
/// 5 bytes a member). `None` past the crowds drawn. With
/// [`Md2Crowd::gpu_bytes`](crate::Md2Crowd::gpu_bytes), what a crowd costs a
/// view.
pub fn crowd_view_bytes(renderer: &Md2Renderer, index: usize) -> Option<u64> {
    Some(renderer.crowd_views().views().get(index)?.gpu_bytes())
}

/// Every visible record the renderer's last `prepare_crowds` wrote for
/// crowd `index` (in the order given), with its draw bucket, in draw order:
/// what the GPU's clocks, culling and levels made of the members, as the
/// [`InstanceRecord`] the immediate path would draw (the crowd's record
/// names its member and holds its pose; the rest is the member's). Three
/// read-backs of their own (the draws, the records, the members); nothing
/// blocks, and natively the device must be polled for each.
pub fn read_crowd_records(
    renderer: &Md2Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    index: usize,
) -> impl Future<Output = Result<Vec<(usize, InstanceRecord)>, String>> + use<> {
    let read = read_crowd(renderer, device, queue, index, false);
    async move {
        let (records, members) = read.await?;
        let words = crate::gpu::readback::words(&members);
        records
            .into_iter()
            .map(|(bucket, r)| {
                let member = r[0] as usize * MEMBER_WORDS;
                let m = words
                    .get(member..member + MEMBER_WORDS)
                    .ok_or_else(|| format!("a record names member {}, past the crowd", r[0]))?;
                let frames = [
                    r[1] as u16,
                    (r[1] >> 16) as u16,
                    r[2] as u16,
                    (r[2] >> 16) as u16,
                ];
                let rows =
                    std::array::from_fn(|k| std::array::from_fn(|c| f32::from_bits(m[4 * k + c])));
                Ok((
                    bucket,
                    InstanceRecord {
                        rows,
                        frames,
                        t: f32::from_bits(r[3]),
                        t2: f32::from_bits(r[4]),
                        weight: f32::from_bits(r[5]),
                        skin_intensity: m[12],
                        tint: m[13].to_le_bytes(),
                        effects: m[14],
                    },
                ))
            })
            .collect()
    }
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
        let (records, _) = read.await?;
        Ok(records
            .into_iter()
            .map(|(bucket, words)| {
                (
                    bucket,
                    bytemuck::pod_read_unaligned(bytemuck::cast_slice(&words)),
                )
            })
            .collect())
    }
}

/// Words of a member in the crowd's member buffer.
const MEMBER_WORDS: usize = 4 * MEMBER_VEC4S as usize;

/// The visible records of crowd `index` (each as its words: the record's,
/// or with `extras` the extra record's), bucket by bucket with its bucket,
/// and the crowd's member buffer's members.
#[allow(clippy::type_complexity)]
fn read_crowd(
    renderer: &Md2Renderer,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    index: usize,
    extras: bool,
) -> impl Future<Output = Result<(Vec<(usize, Vec<u32>)>, Vec<u8>), String>> + use<> {
    let view = renderer.crowd_views().views().get(index);
    let found = view.is_some();
    let (offset, stride) = match view {
        Some(view) if extras => (view.extra_base(), u64::from(EXTRA_WORDS)),
        _ => (0, u64::from(RECORD_WORDS)),
    };
    let (device, queue) = (device.clone(), queue.clone());
    let first = view
        .and_then(|v| Some((v.buffers()?, v.member_count())))
        .map(|((records, work, members), count)| {
            let encoder = device.create_command_encoder(&Default::default());
            // The draw arguments and every bucket's draw words.
            let size = u64::from(SORT_LAYOUT) * 4;
            let args = Readback::start(&device, &queue, encoder, &[(work, 0, size)]);
            (records.clone(), members.clone(), count, args)
        });
    async move {
        if !found {
            return Err("no such crowd".to_string());
        }
        let Some((records, members, count, args)) = first else {
            return Ok((Vec::new(), Vec::new()));
        };
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&args.await?);
        let ranges: Vec<(usize, u64, u64)> = (0..BUCKETS)
            .map(|bucket| {
                let base = words[(DRAWS + DRAW_STRIDE * bucket as u32) as usize];
                (bucket, u64::from(base), u64::from(words[bucket * 5 + 1]))
            })
            .filter(|&(_, _, count)| count > 0)
            .collect();
        let mut parts: Vec<_> = ranges
            .iter()
            .map(|&(_, base, count)| (&records, (offset + base * stride) * 4, count * stride * 4))
            .collect();
        let member_bytes =
            u64::from(count) * size_of::<crate::contract::crowd::MemberRecord>() as u64;
        if member_bytes > 0 {
            parts.push((&members, 0, member_bytes));
        }
        let encoder = device.create_command_encoder(&Default::default());
        let bytes = Readback::start(&device, &queue, encoder, &parts).await?;
        let (record_bytes, member_bytes) = bytes.split_at(bytes.len() - member_bytes as usize);
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(record_bytes);
        let mut chunks = words.chunks_exact(stride as usize);
        let mut out = Vec::new();
        for (bucket, _, count) in ranges {
            out.extend(
                chunks
                    .by_ref()
                    .take(count as usize)
                    .map(|r| (bucket, r.to_vec())),
            );
        }
        Ok((out, member_bytes.to_vec()))
    }
}
