//! The eframe app around the inspector: what the browser does for it
//! (files read from their handles, picked, downloaded) and what it shows
//! the page's tests.

use std::rc::Rc;

use eframe::egui_wgpu;
use md2_wgpu_examples::inspector::model::ModelFile;
use md2_wgpu_examples::inspector::{Host, HostRequest, Inspector, InspectorGpu};

use crate::device::scene_target;
use crate::files::Inbox;
use crate::{download, files, state};

/// The page's app: the inspector, and the files on their way to it.
pub struct Page {
    inspector: Inspector,
    inbox: Inbox,
    published: state::Published,
}

impl Page {
    /// The app eframe starts: the inspector on eframe's device, showing the
    /// built-in demo model.
    pub fn create(
        cc: &eframe::CreationContext<'_>,
    ) -> Result<Box<dyn eframe::App>, Box<dyn std::error::Error + Send + Sync>> {
        // Dark, as the native viewer is, whatever the browser prefers.
        cc.egui_ctx.set_theme(egui::Theme::Dark);
        let render_state: &egui_wgpu::RenderState = cc
            .wgpu_render_state
            .as_ref()
            .ok_or("eframe made no wgpu render state")?;
        let gpu = InspectorGpu {
            device: render_state.device.clone(),
            queue: render_state.queue.clone(),
            target: scene_target(render_state.target_format),
        };
        let inspector = Inspector::new(
            gpu,
            &mut render_state.renderer.write().callback_resources,
            ModelFile::demo(),
            None,
        )?
        .with_host(Host::Browser);
        let adapter = render_state.adapter.get_info();
        log::info!(
            "md2-wgpu inspector on {} ({:?}, {:?})",
            adapter.name,
            adapter.backend,
            adapter.device_type
        );
        Ok(Box::new(Page {
            inspector,
            inbox: Rc::default(),
            published: state::Published::new(adapter),
        }))
    }
}

impl eframe::App for Page {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        if !dropped.is_empty() {
            files::read_dropped(dropped, self.inbox.clone(), ctx.clone());
        }
        let batches = std::mem::take(&mut *self.inbox.borrow_mut());
        for (batch, weapon) in batches {
            self.inspector.open_files(batch, weapon);
        }
        self.inspector.ui(ui);
        for request in self.inspector.take_requests() {
            match request {
                HostRequest::PickFiles { weapon } => {
                    if let Err(e) = files::pick(weapon, self.inbox.clone(), ctx.clone()) {
                        log::error!("cannot open the file picker: {e:?}");
                    }
                }
                HostRequest::Save { name, bytes } => {
                    if let Err(e) = download::offer(&name, &bytes) {
                        log::error!("cannot offer {name} as a download: {e:?}");
                    }
                }
            }
        }
        self.published.publish(&self.inspector, ctx.zoom_factor());
    }
}
