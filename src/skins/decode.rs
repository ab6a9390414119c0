//! One skin image decoded into RGBA, from a file or from bytes, with the
//! same limits: the format from the first bytes (TGA, which has no
//! signature, from the name), a side of at most [`MAX_SKIN_SIDE`] checked
//! before any pixel is decoded, and a decoder's panic turned into an error
//! that names the file.

use std::io::{BufRead, Cursor, Seek};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use image::{ImageFormat, ImageReader, Limits, RgbaImage};

use super::error::{MAX_SKIN_SIDE, SkinError};

/// Decodes one skin image (PCX, PNG, TGA, BMP or JPEG) from its bytes;
/// `path` names it in errors and, for TGA (which has no signature) or
/// bytes no decoder recognises, gives the format by its extension.
///
/// A size of zero or above [`MAX_SKIN_SIDE`] is refused before any pixel
/// is decoded, and whatever the bytes, it returns an error rather than
/// panicking.
pub fn decode_skin(bytes: &[u8], path: &Path) -> Result<RgbaImage, SkinError> {
    decode_with(path, || reader(Cursor::new(bytes), path))
}

/// The image's size, read from its header alone.
pub(super) fn image_size(bytes: &[u8], path: &Path) -> Result<(u32, u32), SkinError> {
    guarded(path, || {
        reader(Cursor::new(bytes), path)?
            .into_dimensions()
            .map_err(|e| undecodable(path, e))
    })
}

/// Decodes the image `open` reads (opened twice: once for its size, which
/// sets the decoder's limits, then to decode it).
pub(super) fn decode_with<R: BufRead + Seek>(
    path: &Path,
    open: impl Fn() -> Result<ImageReader<R>, SkinError>,
) -> Result<RgbaImage, SkinError> {
    image_extras::register();
    let (width, height) = guarded(path, || {
        open()?.into_dimensions().map_err(|e| undecodable(path, e))
    })?;
    if width == 0 || height == 0 || width > MAX_SKIN_SIDE || height > MAX_SKIN_SIDE {
        return Err(SkinError::AbsurdSize {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    guarded(path, || {
        let mut reader = open()?;
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SKIN_SIDE);
        limits.max_image_height = Some(MAX_SKIN_SIDE);
        // The decoded image plus one RGBA copy of it, with room for a
        // decoder's row buffers.
        limits.max_alloc = Some(3 * 4 * u64::from(width) * u64::from(height) + (1 << 20));
        reader.limits(limits);
        let image = reader.decode().map_err(|e| undecodable(path, e))?;
        Ok(image.into_rgba8())
    })
}

/// An image reader over `source`, its format from the bytes, else from
/// `path`'s extension.
pub(super) fn reader<R: BufRead + Seek>(
    source: R,
    path: &Path,
) -> Result<ImageReader<R>, SkinError> {
    image_extras::register();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if extension.as_deref() == Some("tga") {
        // TGA has no signature, and its first bytes can look like PCX's.
        return Ok(ImageReader::with_format(source, ImageFormat::Tga));
    }
    let mut reader = ImageReader::new(source)
        .with_guessed_format()
        .map_err(|source| SkinError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if reader.format().is_none()
        && let Some(format) = extension.as_deref().and_then(ImageFormat::from_extension)
    {
        reader.set_format(format);
    }
    Ok(reader)
}

/// Runs a decoder step, turning a panic inside a third-party decoder (old
/// formats, hostile headers) into an error that names the file.
fn guarded<T>(path: &Path, step: impl FnOnce() -> Result<T, SkinError>) -> Result<T, SkinError> {
    catch_unwind(AssertUnwindSafe(step)).unwrap_or_else(|_| {
        Err(SkinError::Undecodable {
            path: path.to_path_buf(),
            reason: "the decoder gave up on malformed data".to_owned(),
        })
    })
}

fn undecodable(path: &Path, error: image::ImageError) -> SkinError {
    SkinError::Undecodable {
        path: path.to_path_buf(),
        reason: error.to_string(),
    }
}
