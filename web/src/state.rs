//! What the page shows, published as JSON in the page's `#md2-state`
//! element (hidden) whenever it changes: the model, its animations and
//! skins, the errors, the weapon, a Quake III player, the adapter, and where the 3D view and
//! the host's buttons lie on the canvas. Its browser tests read it, as
//! egui_kittest reads the native inspector's state; the picture they check
//! is the canvas itself.

use md2_wgpu::wgpu;
use md2_wgpu_examples::inspector::Inspector;
use serde_json::{Value, json};

/// The element the state goes into.
const ELEMENT: &str = "md2-state";

/// The last state written, so that an unchanged one is not written again.
pub struct Published {
    adapter: Value,
    last: String,
}

impl Published {
    /// Nothing published yet, on `adapter`.
    pub fn new(adapter: wgpu::AdapterInfo) -> Published {
        Published {
            adapter: json!({
                "name": adapter.name,
                "backend": format!("{:?}", adapter.backend),
                "device_type": format!("{:?}", adapter.device_type),
            }),
            last: String::new(),
        }
    }

    /// Writes `inspector`'s state where it changed; rectangles in CSS
    /// pixels from the canvas's corner (egui's points times `zoom`).
    pub fn publish(&mut self, inspector: &Inspector, zoom: f32) {
        let rect = |r: egui::Rect| {
            json!([
                r.min.x * zoom,
                r.min.y * zoom,
                r.width() * zoom,
                r.height() * zoom
            ])
        };
        let body = inspector.model();
        let player = inspector.player();
        let layout = inspector.layout();
        let state = json!({
            "adapter": self.adapter,
            "model": body.file.name,
            "frames": body.file.model.frame_count(),
            "frame": player.frame(),
            "animations": player.clips().iter().map(|c| c.name.to_string()).collect::<Vec<_>>(),
            "animation": player.clip().name.to_string(),
            "clips_from": body.clips_from,
            "skins": body.file.skins.iter().map(|s| json!({
                "name": s.name,
                "loaded": s.image.is_some(),
                "status": s.status,
            })).collect::<Vec<_>>(),
            "skin": inspector.skin(),
            "weapon": inspector.weapon().map(|w| w.file.name.clone()),
            "quake3": inspector.quake3().map(|q3| json!({
                "name": q3.file.name,
                "surfaces": q3.gpu.surface_count(),
                "legs": q3.legs.clip().name.to_string(),
                "torso": q3.torso.clip().name.to_string(),
                "textures": q3.file.surfaces.iter().map(|s| s.2.clone()).collect::<Vec<_>>(),
            })),
            "errors": inspector.errors(),
            "exported": inspector.exported(),
            "view": layout.view.map(rect),
            "controls": layout
                .controls
                .iter()
                .map(|(label, r)| ((*label).to_owned(), rect(*r)))
                .collect::<serde_json::Map<String, Value>>(),
        });
        let text = state.to_string();
        if text == self.last {
            return;
        }
        if let Some(element) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(ELEMENT))
        {
            element.set_text_content(Some(&text));
        }
        self.last = text;
    }
}
