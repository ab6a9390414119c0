//! What every renderer of a device shares: the shader modules, the layouts,
//! the sampler and the pipelines, built once and keyed by what the pass
//! they draw into looks like.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::crowd_pipelines::CrowdPipelines;
use super::layouts::Layouts;
use super::limits::check_device;
use super::pipeline::{self, PassKey, Shading};
use crate::contract::{CROWD_WGSL, MD2_RENDERER_WGSL, entry};
use crate::gpu::error::{PrepareError, SetupError};

/// A built-in pipeline's key: the colour format and whether the shader
/// encodes sRGB (`None` for a depth-only pass), the motion target's format,
/// and the pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BuiltinKey {
    pub color: Option<(wgpu::TextureFormat, bool)>,
    pub motion: Option<wgpu::TextureFormat>,
    pub pass: PassKey,
}

/// Why a cache's device was lost, set once (shared with the device-lost
/// callback).
#[derive(Debug, Default)]
struct DeviceLoss(Arc<OnceLock<String>>);

/// The message of an error on a lost device.
fn lost_message(why: &str) -> String {
    format!("the device was lost ({why})")
}

/// Shared GPU state for any number of renderers (views) of one device:
/// shader modules, bind-group layouts, the skin sampler, and a pipeline
/// cache keyed by (colour format, output, samples, depth
/// state, culling, draw).
///
/// Cheap to clone (an `Arc`). A renderer made with
/// [`Md2Renderer::new`](crate::Md2Renderer::new) has a cache of its own;
/// renderers made with [`Md2Renderer::with_cache`](crate::Md2Renderer::with_cache)
/// share one, so a second view costs a uniform and an instance buffer, not a
/// shader compile. Models and crowds can be drawn by any renderer of the
/// same device (their bind-group layouts are equal whatever cache made
/// them), so sharing a cache only saves compiles and memory.
#[derive(Clone, Debug)]
pub struct Md2Cache(Arc<CacheInner>);

#[derive(Debug)]
struct CacheInner {
    md2: wgpu::ShaderModule,
    crowd: wgpu::ShaderModule,
    layouts: Layouts,
    sampler: wgpu::Sampler,
    /// Why the device was lost, once wgpu or the app said so.
    lost: DeviceLoss,
    pipelines: Mutex<HashMap<BuiltinKey, wgpu::RenderPipeline>>,
    crowd_passes: OnceLock<CrowdPipelines>,
}

impl AsRef<Md2Cache> for Md2Cache {
    fn as_ref(&self) -> &Md2Cache {
        self
    }
}

impl Md2Cache {
    /// Compiles the shaders and makes the shared objects. Fails only if the
    /// device lacks what [`required_limits`](crate::gpu::required_limits) lists.
    pub fn new(device: &wgpu::Device) -> Result<Md2Cache, SetupError> {
        check_device(device)?;
        let module = |label: &str, source: &'static str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
            })
        };
        // Repeat: real files have st outside the skin. Mipmaps keep crowds
        // seen from afar from shimmering.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("md2-wgpu skin sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        Ok(Md2Cache(Arc::new(CacheInner {
            md2: module("md2-wgpu render shader", MD2_RENDERER_WGSL),
            crowd: module("md2-wgpu crowd shader", CROWD_WGSL),
            layouts: Layouts::new(device),
            sampler,
            lost: DeviceLoss::default(),
            pipelines: Mutex::new(HashMap::new()),
            crowd_passes: OnceLock::new(),
        })))
    }

    /// Installs `device`'s lost callback (wgpu keeps one): when wgpu says
    /// the device is lost, this cache records it and calls `on_lost`, the
    /// app's own callback, with wgpu's reason and message. From then on
    /// every call of the crate that uses this cache (directly, or through a
    /// renderer, model or crowd made with it) says so:
    /// [`PrepareError::Device`] and [`SetupError::Device`], a read-back's
    /// error; CPU-side changes to crowds go on. wgpu runs the callback at
    /// the device's next poll after the loss (`device.poll`, or the crate's
    /// own read-backs) and, on the web, when the browser resolves the
    /// device's `lost` promise.
    ///
    /// An app that sets wgpu's callback itself calls
    /// [`mark_device_lost`](Self::mark_device_lost) from it instead.
    /// Without either, a lost device is noticed only by the calls that make
    /// GPU objects (see the crate docs' "A lost device").
    pub fn watch_device_lost(
        &self,
        device: &wgpu::Device,
        on_lost: impl Fn(wgpu::DeviceLostReason, String) + Send + 'static,
    ) {
        // The loss alone, not the cache: the callback must be Send, and on
        // the web a cache (its WebGPU objects) is not.
        let lost = Arc::clone(&self.0.lost.0);
        device.set_device_lost_callback(move |reason, message| {
            let _ = lost.set(format!("{reason:?}: {message}"));
            on_lost(reason, message);
        });
    }

    /// Records that this cache's device was lost (`message` says how): what
    /// [`watch_device_lost`](Self::watch_device_lost) does when wgpu calls
    /// it, for an app that keeps wgpu's device-lost callback for itself.
    /// The first message is kept.
    pub fn mark_device_lost(&self, message: impl Into<String>) {
        let _ = self.0.lost.0.set(message.into());
    }

    /// Why this cache's device was lost, once
    /// [`watch_device_lost`](Self::watch_device_lost) or
    /// [`mark_device_lost`](Self::mark_device_lost) recorded it.
    pub fn device_lost(&self) -> Option<&str> {
        self.0.lost.0.get().map(String::as_str)
    }

    /// [`SetupError::Device`] for `operation` where the device was lost.
    pub(crate) fn check_setup(&self, operation: &'static str) -> Result<(), SetupError> {
        match self.device_lost() {
            Some(why) => Err(SetupError::Device {
                operation,
                message: lost_message(why),
            }),
            None => Ok(()),
        }
    }

    /// [`PrepareError::Device`] for `operation` where the device was lost.
    pub(crate) fn check_prepare(&self, operation: &'static str) -> Result<(), PrepareError> {
        match self.device_lost() {
            Some(why) => Err(PrepareError::Device {
                operation,
                message: lost_message(why),
            }),
            None => Ok(()),
        }
    }

    pub(crate) fn layouts(&self) -> &Layouts {
        &self.0.layouts
    }

    /// Group 0 of every render pipeline for a view whose uniform is `view`:
    /// the view and the sampler.
    pub(crate) fn view_group(&self, device: &wgpu::Device, view: &wgpu::Buffer) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu view bind group"),
            layout: &self.0.layouts.view,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: view.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.0.sampler),
                },
            ],
        })
    }

    /// The layout of a model's bind group (group 1 of the render module,
    /// and of [`MD2_POSE_WGSL`](crate::contract::MD2_POSE_WGSL)): the model's counts,
    /// packed frames, and normal table with frame parameters
    /// ([`PoseBindings::CRATE`](crate::contract::PoseBindings::CRATE)), and
    /// its skins at binding 4. A [`GpuModel::bind_group`](crate::GpuModel::bind_group)
    /// has it.
    pub fn model_layout(&self) -> &wgpu::BindGroupLayout {
        &self.0.layouts.model
    }

    /// The layout of a view's bind group (group 0 of the render module): the
    /// view uniform (`Md2View`, [`ViewUniform`](crate::contract::ViewUniform))
    /// and the skin sampler.
    pub fn view_layout(&self) -> &wgpu::BindGroupLayout {
        &self.0.layouts.view
    }

    /// The built-in pipeline for `key`, built on first use.
    pub(crate) fn pipeline(&self, device: &wgpu::Device, key: BuiltinKey) -> wgpu::RenderPipeline {
        let mut pipelines = self
            .0
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        pipelines
            .entry(key)
            .or_insert_with(|| self.build(device, &key))
            .clone()
    }

    fn build(&self, device: &wgpu::Device, key: &BuiltinKey) -> wgpu::RenderPipeline {
        let md2 = &self.0.md2;
        let layout = &self.0.layouts.render_pipeline;
        let Some((format, encode)) = key.color else {
            return pipeline::build(device, &key.pass, None, self.depth_only_parts());
        };
        let color = |blend| wgpu::ColorTargetState {
            format,
            blend,
            write_mask: wgpu::ColorWrites::ALL,
        };
        // Translucent surfaces, shells and shadows leave the motion target
        // alone: a pixel's motion is that of the opaque surface behind.
        let motion = |write_mask| {
            key.motion.map(|format| wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask,
            })
        };
        let opaque: Vec<_> = std::iter::once(color(None))
            .chain(motion(wgpu::ColorWrites::ALL))
            .collect();
        let blended: Vec<_> = std::iter::once(color(Some(wgpu::BlendState::ALPHA_BLENDING)))
            .chain(motion(wgpu::ColorWrites::empty()))
            .collect();
        let fragment = match (key.motion.is_some(), encode) {
            (false, false) => entry::FS_BUILTIN,
            (false, true) => entry::FS_BUILTIN_SRGB,
            (true, false) => entry::FS_BUILTIN_MOTION,
            (true, true) => entry::FS_BUILTIN_MOTION_SRGB,
        };
        let shading = Shading {
            module: md2,
            layout,
            resident_layout: &self.0.layouts.resident_pipeline,
            // Motion needs the previous transform and pose.
            extra: key.motion.is_some(),
            fragment,
            opaque_targets: &opaque,
            blended_targets: &blended,
        };
        pipeline::build(device, &key.pass, Some(&shading), self.depth_only_parts())
    }

    /// The module and the immediate and resident layouts of depth-only
    /// pipelines (which any shading shares), for materials.
    pub(crate) fn depth_only_parts(
        &self,
    ) -> (
        &wgpu::ShaderModule,
        &wgpu::PipelineLayout,
        &wgpu::PipelineLayout,
    ) {
        let layouts = &self.0.layouts;
        (
            &self.0.md2,
            &layouts.render_pipeline,
            &layouts.resident_pipeline,
        )
    }

    /// The crowd's compute pipelines, built on first use.
    pub(crate) fn crowd_pipelines(&self, device: &wgpu::Device) -> &CrowdPipelines {
        self.0
            .crowd_passes
            .get_or_init(|| CrowdPipelines::new(device, &self.0.crowd, &self.0.layouts))
    }
}
