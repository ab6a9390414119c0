//! Files as a browser hands them over, read into bytes: dropped on the
//! canvas (eframe gives their handles) or picked with a file input. The
//! reads are asynchronous; each batch lands in the app's inbox and asks
//! for a frame.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use egui::DroppedFile;
use md2_wgpu_examples::inspector::files::{IMAGE_EXTENSIONS, NamedFile};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Files read and waiting for the next frame: each batch with whether its
/// models are weapons.
pub type Inbox = Rc<RefCell<Vec<(Vec<NamedFile>, bool)>>>;

/// Reads the files dropped this frame, then hands them to the inspector
/// as one batch; a file that cannot be read is left out, with a log line.
pub fn read_dropped(
    dropped: Vec<Arc<dyn DroppedFile + Send + Sync>>,
    inbox: Inbox,
    ctx: egui::Context,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut batch = Vec::new();
        for file in &dropped {
            let name = file.path().to_string_lossy().into_owned();
            match file.bytes_async().await {
                Ok(bytes) => batch.push(NamedFile { name, bytes }),
                Err(e) => log::error!("cannot read the dropped file {name}: {e}"),
            }
        }
        inbox.borrow_mut().push((batch, false));
        ctx.request_repaint();
    });
}

/// Opens the browser's file picker (several files: a model, its skins, a
/// weapon) and hands what is picked to the inspector, the models as
/// weapons when `weapon`.
pub fn pick(weapon: bool, inbox: Inbox, ctx: egui::Context) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let input: web_sys::HtmlInputElement = document.create_element("input")?.dyn_into()?;
    input.set_type("file");
    input.set_multiple(true);
    let accept: Vec<String> = ["md2", "mdl", "lmp", "md3", "cfg", "skin"]
        .into_iter()
        .chain(IMAGE_EXTENSIONS)
        .map(|e| format!(".{e}"))
        .collect();
    input.set_accept(&accept.join(","));
    let picked = input.clone();
    let on_change = Closure::once_into_js(move || {
        let Some(list) = picked.files() else {
            return;
        };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        wasm_bindgen_futures::spawn_local(async move {
            let mut batch = Vec::new();
            for file in files {
                match read(&file).await {
                    Ok(bytes) => batch.push(NamedFile {
                        name: file.name(),
                        bytes,
                    }),
                    Err(e) => log::error!("cannot read {}: {e:?}", file.name()),
                }
            }
            inbox.borrow_mut().push((batch, weapon));
            ctx.request_repaint();
        });
    });
    input.set_onchange(Some(on_change.unchecked_ref()));
    // The picker opens from the frame that follows the click, still within
    // the click's user activation.
    input.click();
    Ok(())
}

async fn read(file: &web_sys::File) -> Result<Vec<u8>, JsValue> {
    let buffer = JsFuture::from(file.array_buffer()).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
