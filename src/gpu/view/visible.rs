//! How many crowd members a renderer's views found in view: the counts
//! its crowds' compute passes leave, read back by the GPU.

use std::future::Future;

use super::renderer::Md2Renderer;
use crate::gpu::crowd::counts::VisibleMembers;
use crate::gpu::device::cache::Md2Cache;
use crate::gpu::error::PrepareError;

impl VisibleMembers {
    /// How many crowd members the last submitted
    /// [`prepare_crowds`](Md2Renderer::prepare_crowds) of `renderer` found
    /// in view, crowd by crowd (in the order given), and how many of them at
    /// each level of detail.
    ///
    /// It copies the crowds' draw arguments and submits the copy; the
    /// returned future resolves once the GPU has done it (natively, when the
    /// device is next polled: `device.poll(wgpu::PollType::wait_indefinitely())`
    /// waits for it). Nothing blocks. An app that wants the counts every
    /// frame uses [`VisibleMembers::recent`], which needs no submission of
    /// its own.
    pub fn read(
        renderer: &Md2Renderer,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> impl Future<Output = Result<VisibleMembers, PrepareError>> + use<> {
        let lost = AsRef::<Md2Cache>::as_ref(renderer)
            .check_prepare("reading the crowds' draw arguments back");
        let read = lost
            .is_ok()
            .then(|| renderer.crowd_views().read_visible(device, queue));
        async move {
            let read = match read {
                Some(read) => read,
                None => return lost.map(|()| VisibleMembers::default()),
            };
            read.await.map_err(|message| PrepareError::Device {
                operation: "reading the crowds' draw arguments back",
                message,
            })
        }
    }

    /// The visible-member counts of a recent frame of `renderer`, without
    /// waiting for the GPU: `None` until one is ready.
    ///
    /// The first call starts the counting: from then on every
    /// [`prepare_crowds`](Md2Renderer::prepare_crowds) copies its crowds'
    /// draw arguments (80 bytes a crowd) into one of a few small read-back
    /// buffers, maps the copy of an earlier, submitted frame, and this call
    /// returns the newest one mapped so far (typically two or three frames
    /// old). Mapping completes as the device is polled; native wgpu polls
    /// at every submit, an app that submits every frame need do nothing.
    /// Each count comes with the number of the `prepare_crowds` call it is
    /// from (counted from 1), so the app sees how old it is.
    pub fn recent(renderer: &mut Md2Renderer, device: &wgpu::Device) -> Option<VisibleMembers> {
        renderer.crowd_views_mut().recent(device)
    }
}
