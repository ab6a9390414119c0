//! Counting draws where Bevy records them: every draw function of the 3D
//! phases (the main opaque, alpha-mask and transparent passes, the
//! prepasses, the deferred prepass, the shadow maps) is wrapped, in the
//! render world, by one that notes each phase item it draws before
//! drawing it: the phase, the view, the item's instance range and how many
//! draws the item issues (one, or for a multi-draw-indirect item the number
//! of indirect draws in it: one per bin, a bin being one mesh and material).

use std::any::type_name;
use std::sync::{Arc, Mutex};

use bevy::core_pipeline::core_3d::{AlphaMask3d, Opaque3d, Transparent3d};
use bevy::core_pipeline::deferred::{AlphaMask3dDeferred, Opaque3dDeferred};
use bevy::core_pipeline::prepass::{AlphaMask3dPrepass, Opaque3dPrepass};
use bevy::pbr::Shadow;
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_phase::{
    Draw, DrawError, DrawFunctions, PhaseItem, PhaseItemExtraIndex, TrackedRenderPass,
};

/// One phase item drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawnItem {
    /// The phase (`Opaque3d`, `Opaque3dPrepass`, `Shadow`, ...).
    pub phase: &'static str,
    /// The render-world view entity (a camera, or one shadow map).
    pub view: Entity,
    /// The instances the item covers (for an indirect item, the range its
    /// indirect parameters were written for).
    pub instances: std::ops::Range<u32>,
    /// Draw calls the item issues on the GPU.
    pub draws: u32,
}

/// The items drawn since the last [`DrawLog::take`].
#[derive(Clone, Default)]
pub struct DrawLog(Arc<Mutex<Vec<DrawnItem>>>);

impl DrawLog {
    /// Takes what was recorded.
    pub fn take(&self) -> Vec<DrawnItem> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

struct Counting<P: PhaseItem> {
    inner: Box<dyn Draw<P>>,
    log: DrawLog,
}

impl<P: PhaseItem> Draw<P> for Counting<P> {
    fn prepare(&mut self, world: &'_ World) {
        self.inner.prepare(world);
    }

    fn draw<'w>(
        &mut self,
        world: &'w World,
        pass: &mut TrackedRenderPass<'w>,
        view: Entity,
        item: &P,
    ) -> Result<(), DrawError> {
        let draws = match item.extra_index() {
            PhaseItemExtraIndex::IndirectParametersIndex { range, .. } => range.len() as u32,
            _ => 1,
        };
        let phase = type_name::<P>().rsplit("::").next().unwrap_or_default();
        self.log.0.lock().unwrap().push(DrawnItem {
            phase,
            view,
            instances: item.batch_range().clone(),
            draws,
        });
        self.inner.draw(world, pass, view, item)
    }
}

fn wrap<P: PhaseItem>(render_world: &World, log: &DrawLog) {
    let Some(functions) = render_world.get_resource::<DrawFunctions<P>>() else {
        return;
    };
    let mut functions = functions.write();
    // Each wrapped where it stands: the ids the phase items hold still name
    // it.
    functions.draw_functions = std::mem::take(&mut functions.draw_functions)
        .into_iter()
        .map(|inner| {
            Box::new(Counting {
                inner,
                log: log.clone(),
            }) as Box<dyn Draw<P>>
        })
        .collect();
}

/// Wraps every draw function of the 3D phases of `app` (a finished app):
/// from now on, each item drawn is in the log.
pub fn count_draws(app: &mut App) -> DrawLog {
    let log = DrawLog::default();
    let world = app.sub_app(RenderApp).world();
    wrap::<Opaque3d>(world, &log);
    wrap::<AlphaMask3d>(world, &log);
    wrap::<Transparent3d>(world, &log);
    wrap::<Opaque3dPrepass>(world, &log);
    wrap::<AlphaMask3dPrepass>(world, &log);
    wrap::<Opaque3dDeferred>(world, &log);
    wrap::<AlphaMask3dDeferred>(world, &log);
    wrap::<Shadow>(world, &log);
    log
}
