//! Bytes offered as a download: a Blob behind a link the page clicks.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// How long the Blob's URL lives after the click, in milliseconds: the
/// browser reads it when the download starts, a moment later.
const URL_LIFETIME_MS: i32 = 60_000;

/// Offers `bytes` to the person as a file called `name`: the browser saves
/// it (or asks where).
pub fn offer(name: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("model/gltf-binary");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // Revoked later: the URL keeps the bytes alive until then.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    window.set_timeout_with_callback_and_timeout_and_arguments_0(
        revoke.unchecked_ref(),
        URL_LIFETIME_MS,
    )?;
    Ok(())
}
