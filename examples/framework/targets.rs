//! The examples' render pass and what it draws into: a depth buffer with a
//! stencil, a multisampled colour target where the adapter offers one, and
//! a colour target to read back for a picture. Shared by the windowed examples and the
//! headless `render` (which includes this file alone, without the window).

use md2_wgpu::support::{attachment, scratch_depth_stencil};
use md2_wgpu::wgpu;

/// The depth format of every example's depth buffer: with a stencil
/// aspect, which the renderer's planar shadows need so that no pixel
/// darkens twice.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;

/// The multisample count the examples use where the adapter allows it.
const PREFERRED_SAMPLES: u32 = 4;

/// Samples per pixel for a colour target of `color_format` and its depth
/// buffer: [`PREFERRED_SAMPLES`] where the adapter offers it for both, else 1.
pub fn sample_count(adapter: &wgpu::Adapter, color_format: wgpu::TextureFormat) -> u32 {
    let supports = |format: wgpu::TextureFormat| {
        adapter
            .get_texture_format_features(format)
            .flags
            .sample_count_supported(PREFERRED_SAMPLES)
    };
    if supports(color_format) && supports(DEPTH_FORMAT) {
        PREFERRED_SAMPLES
    } else {
        1
    }
}

/// A single-sampled colour target of `size` that can be read back: for a
/// picture to save.
pub fn picture_target(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    (width, height): (u32, u32),
) -> wgpu::Texture {
    attachment(device, format, width, height)
}

/// The depth buffer, and the multisampled colour target when samples > 1.
pub struct Targets {
    /// The depth buffer's view.
    pub depth: wgpu::TextureView,
    /// The multisampled colour target's view, resolved into the frame.
    pub msaa: Option<wgpu::TextureView>,
}

impl Targets {
    /// Targets of `size` for a colour target of `color_format`, with
    /// `samples` per pixel.
    pub fn new(
        device: &wgpu::Device,
        color_format: wgpu::TextureFormat,
        samples: u32,
        (width, height): (u32, u32),
    ) -> Targets {
        let texture = |label, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width,
                        height,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        Targets {
            depth: texture("md2-wgpu example depth", DEPTH_FORMAT),
            msaa: (samples > 1)
                .then(|| texture("md2-wgpu example multisampled colour", color_format)),
        }
    }

    /// Begins the pass that draws into `view` (resolving into it where
    /// multisampled), colour cleared to `clear`, depth to 1 (nearer is
    /// less), stencil to 0 (where planar shadows start).
    pub fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        clear: wgpu::Color,
    ) -> wgpu::RenderPass<'e> {
        let (color_view, resolve_target) = match &self.msaa {
            Some(msaa) => (msaa, Some(view)),
            None => (view, None),
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("md2-wgpu example pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color_view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear),
                    // The multisampled target is only needed until resolved.
                    store: if resolve_target.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            })],
            depth_stencil_attachment: Some(scratch_depth_stencil(&self.depth)),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }
}
