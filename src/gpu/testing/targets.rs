//! Offscreen targets to draw into and read back, for the native suites
//! (blocking, through [`wait`](super::wait)) and the browser's (awaited):
//! one copy of each, whichever way a suite waits.

use std::future::Future;

use crate::gpu::readback::Readback;

/// A `width` × `height` texture of `format` to draw into and read back.
pub fn attachment(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("md2-wgpu test attachment"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// A colour attachment of `view`, cleared to `clear` and kept: how the
/// tests', benchmarks' and examples' passes that make a picture begin.
pub fn cleared(
    view: &wgpu::TextureView,
    clear: wgpu::Color,
) -> Option<wgpu::RenderPassColorAttachment<'_>> {
    Some(wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(clear),
            store: wgpu::StoreOp::Store,
        },
    })
}

/// A depth-stencil attachment of `view`, cleared to depth 1 and stencil 0
/// and dropped after the pass: the scratch depth of a pass whose picture
/// is all that is kept.
pub fn scratch_depth_stencil(
    view: &wgpu::TextureView,
) -> wgpu::RenderPassDepthStencilAttachment<'_> {
    wgpu::RenderPassDepthStencilAttachment {
        view,
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(1.0),
            store: wgpu::StoreOp::Discard,
        }),
        stencil_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(0),
            store: wgpu::StoreOp::Discard,
        }),
    }
}

/// Records into `encoder` one pass over the colour targets `colors`
/// (cleared to `clear`) and `depth` (cleared to 1.0, no stencil) in which
/// `draw` runs.
pub fn draw_into(
    encoder: &mut wgpu::CommandEncoder,
    colors: &[&wgpu::Texture],
    depth: Option<&wgpu::Texture>,
    clear: wgpu::Color,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
) {
    let views: Vec<_> = colors
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let depth_view = depth.map(|t| t.create_view(&Default::default()));
    let attachments: Vec<_> = views.iter().map(|view| cleared(view, clear)).collect();
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("md2-wgpu test pass"),
        color_attachments: &attachments,
        depth_stencil_attachment: depth_view.as_ref().map(|view| {
            wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }
        }),
        ..Default::default()
    });
    draw(&mut pass);
}

/// The texels of mip 0, layer 0 of `texture` (the given aspect), rows
/// packed without the 256-byte padding copies need, once the GPU is done:
/// records the copy into `encoder` (which may hold the pass that drew it)
/// and submits it. Natively, [`wait`](super::wait) for it; in a browser,
/// await it.
pub fn read_texture_later(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mut encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
) -> impl Future<Output = Result<Vec<u8>, String>> + use<> {
    let (width, height) = (texture.width(), texture.height());
    let copied = texture.format().block_copy_size(Some(aspect)).map(|texel| {
        let row = texel * width;
        let padded_row =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let size = u64::from(padded_row) * u64::from(height);
        // The copy lands in a buffer of its own, which the crate's
        // read-back then maps a copy of.
        let padded = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu texture read-back"),
            size,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &padded,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        let read = Readback::start(device, queue, encoder, &[(&padded, 0, size)]);
        (read, row as usize, padded_row as usize)
    });
    let format = texture.format();
    async move {
        let (read, row, padded_row) =
            copied.ok_or_else(|| format!("{format:?} cannot be copied as {aspect:?}"))?;
        let padded = read.await?;
        Ok(padded
            .chunks_exact(padded_row)
            .flat_map(|r| &r[..row])
            .copied()
            .collect())
    }
}
