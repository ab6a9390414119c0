//! What can go wrong reading an MDL file, and the quirks that load anyway.

use std::fmt;
use std::path::{Path, PathBuf};

/// A part of an MDL file. The file has no offsets: each part follows the
/// last, so a part that does not fit is a file cut short or a count that
/// lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MdlPart {
    /// The skins: per skin a group flag, then an image or a group.
    Skins,
    /// The texture coordinates: `num_verts` × 12 bytes.
    TexCoords,
    /// The triangles: `num_tris` × 16 bytes.
    Triangles,
    /// The frames: per frame a type, then a pose or a group of poses.
    Frames,
}

impl MdlPart {
    /// One record of the part: `skin`, `frame`, ... (the tables have one
    /// record of their own, numbered 0).
    pub fn record(self) -> &'static str {
        match self {
            MdlPart::Skins => "skin",
            MdlPart::TexCoords => "texture coordinate table",
            MdlPart::Triangles => "triangle table",
            MdlPart::Frames => "frame",
        }
    }
}

impl fmt::Display for MdlPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MdlPart::Skins => "skins",
            MdlPart::TexCoords => "texture coordinates",
            MdlPart::Triangles => "triangles",
            MdlPart::Frames => "frames",
        })
    }
}

/// Why an MDL file (or a model built in code) was refused.
///
/// Every variant says what was wrong and where: the field or part, the
/// index and the byte offset. Nothing is allocated for a part before the
/// bytes it needs have been found in the file.
///
/// As with [`Md2Error`](crate::format::Md2Error), only
/// [`MdlModel::open`](super::MdlModel::open) names a path
/// ([`MdlError::InFile`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum MdlError {
    /// An error in the file at `path`. Displayed as `path: error`.
    InFile {
        /// The path that was opened.
        path: PathBuf,
        /// What was wrong: never another `InFile`.
        error: Box<MdlError>,
    },
    /// The file could not be read (inside [`MdlError::InFile`]).
    Io {
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is shorter than the 84-byte header.
    TruncatedHeader {
        /// The file's length in bytes.
        length: usize,
    },
    /// The first four bytes are not `IDPO`.
    BadIdent {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The version is not 6.
    UnsupportedVersion {
        /// The version found.
        found: i32,
    },
    /// A field holds a value no valid file has.
    InvalidField {
        /// The field's name in Quake's sources (`numverts`, `skinwidth`,
        /// ...), or the part's (`skin group 2 count`).
        field: String,
        /// The value found.
        value: i64,
        /// What a valid value looks like.
        expected: &'static str,
    },
    /// A count is beyond the limit this crate holds MDL files to: the
    /// strictest that loads every real model found (QuakeSpasm's; see
    /// [the limits](super#limits)).
    BeyondLimit {
        /// What is counted.
        field: &'static str,
        /// How many the file has.
        value: i64,
        /// The limit.
        limit: i64,
    },
    /// A part runs past the end of the file.
    Truncated {
        /// Which part.
        part: MdlPart,
        /// Which record of it (skin, frame, ...; 0 for a table).
        index: usize,
        /// Where the record starts.
        offset: usize,
        /// The bytes it needs from there.
        needed: u64,
        /// The file's length.
        length: usize,
    },
    /// A triangle names a vertex that does not exist.
    IndexOutOfRange {
        /// Which triangle.
        triangle: usize,
        /// Which corner (0, 1 or 2).
        corner: usize,
        /// The index found.
        index: i32,
        /// The vertices there are.
        count: usize,
        /// The byte offset of the index.
        offset: usize,
    },
    /// The header's scale or translate is NaN or infinite.
    NonFinite {
        /// `scale` or `translate`.
        field: &'static str,
        /// The value found.
        value: [f32; 3],
    },
    /// A group's interval is not a positive, finite number of seconds (the
    /// game divides by it).
    BadInterval {
        /// A skin group or a frame group.
        part: MdlPart,
        /// Which skin or frame.
        index: usize,
        /// Which interval of the group.
        interval: usize,
        /// The value found.
        value: f32,
        /// Its byte offset.
        offset: usize,
    },
    /// Parts built in code are inconsistent: what is wrong.
    InvalidParts {
        /// What is wrong.
        reason: String,
    },
    /// The model would be larger written out than an MDL reader accepts
    /// (2 GiB).
    TooLargeToWrite {
        /// Its size in bytes.
        size: u64,
    },
}

impl MdlError {
    pub(crate) fn in_file(self, path: &Path) -> MdlError {
        match self {
            MdlError::InFile { .. } => self,
            error => MdlError::InFile {
                path: path.to_path_buf(),
                error: Box::new(error),
            },
        }
    }

    /// The error itself, without the path [`MdlError::InFile`] wraps it in.
    pub fn without_path(&self) -> &MdlError {
        match self {
            MdlError::InFile { error, .. } => error,
            error => error,
        }
    }
}

impl fmt::Display for MdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdlError::InFile { path, error } => write!(f, "{}: {error}", path.display()),
            MdlError::Io { source } => write!(f, "cannot read the file: {source}"),
            MdlError::TruncatedHeader { length } => write!(
                f,
                "{length} bytes is shorter than the {}-byte MDL header",
                super::layout::HEADER_SIZE
            ),
            MdlError::BadIdent { found } => write!(
                f,
                "the file starts with {:?}, not IDPO: not a Quake I model",
                String::from_utf8_lossy(found)
            ),
            MdlError::UnsupportedVersion { found } => {
                write!(f, "version {found}: only MDL version 6 (Quake's) is read")
            }
            MdlError::InvalidField {
                field,
                value,
                expected,
            } => write!(f, "{field} is {value}; expected {expected}"),
            MdlError::BeyondLimit {
                field,
                value,
                limit,
            } => write!(
                f,
                "{field} is {value}, beyond the limit of {limit} (QuakeSpasm's, the strictest every real model loads in)"
            ),
            MdlError::Truncated {
                part,
                index,
                offset,
                needed,
                length,
            } => write!(
                f,
                "{} {index} at byte {offset} needs {needed} bytes, past the end of the {length}-byte file",
                part.record()
            ),
            MdlError::IndexOutOfRange {
                triangle,
                corner,
                index,
                count,
                offset,
            } => write!(
                f,
                "triangle {triangle}, corner {corner}: vertex {index} is outside 0..{count} (at byte {offset})"
            ),
            MdlError::NonFinite { field, value } => {
                write!(f, "the header's {field} is {value:?}, which is not finite")
            }
            MdlError::BadInterval {
                part,
                index,
                interval,
                value,
                offset,
            } => write!(
                f,
                "{} {index}: interval {interval} is {value}, not a positive number of seconds (at byte {offset})",
                part.record()
            ),
            MdlError::InvalidParts { reason } => write!(f, "invalid model parts: {reason}"),
            MdlError::TooLargeToWrite { size } => write!(
                f,
                "the model would be {size} bytes written out, more than an MDL reader accepts (2 GiB)"
            ),
        }
    }
}

impl std::error::Error for MdlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MdlError::InFile { error, .. } => Some(error.as_ref()),
            MdlError::Io { source } => Some(source),
            _ => None,
        }
    }
}

/// A quirk of a file that loaded anyway. None changes how the file writes
/// back: every MDL that loads rewrites byte for byte.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum MdlWarning {
    /// Bytes follow the last frame: the game ignores them, and so does
    /// everything here but [`MdlModel::to_bytes`](super::MdlModel::to_bytes),
    /// which writes them back.
    TrailingBytes {
        /// Where the last frame ends.
        end: usize,
        /// The file's length.
        length: usize,
    },
    /// Vertices whose normal index is outside the 162-entry table; they are
    /// read as [`FALLBACK_NORMAL_INDEX`](crate::model::FALLBACK_NORMAL_INDEX).
    NormalIndexOutOfTable {
        /// How many, over all poses.
        count: usize,
        /// The first one: (pose, vertex, index).
        first: (u32, usize, u8),
    },
    /// The skin is taller than the original Quake's 480 rows: QuakeSpasm
    /// loads it with a warning, as this does; the original refuses it.
    TallSkin {
        /// The skin's height.
        height: u32,
    },
    /// A group's intervals do not step evenly, so its clip (which plays
    /// at one rate, [`MdlModel::clips`](super::MdlModel::clips)) keeps the
    /// cycle's length but not each pose's time; the group's own timing is
    /// [`MdlFrame::pose_at`](super::MdlFrame::pose_at)'s.
    UnevenIntervals {
        /// A skin group or a frame group.
        part: MdlPart,
        /// Which skin or frame.
        index: usize,
    },
    /// The frame names give an animation a name an earlier one has; it was
    /// renamed to keep names unique (see [the naming
    /// rule](crate::model::animations#names)).
    AnimationRenamed {
        /// The name the frames give it.
        name: String,
        /// The name it has in the model's animations.
        renamed: String,
        /// Its first pose.
        first: u32,
        /// Its last pose, inclusive.
        last: u32,
    },
}

impl fmt::Display for MdlWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdlWarning::TrailingBytes { end, length } => write!(
                f,
                "{} bytes after the last frame (at byte {end}) in a {length}-byte file, ignored",
                length - end
            ),
            MdlWarning::NormalIndexOutOfTable {
                count,
                first: (pose, vertex, index),
            } => write!(
                f,
                "{count} vertices have a normal index >= 162 (first: pose {pose}, vertex {vertex}, index {index}); read as straight up"
            ),
            MdlWarning::TallSkin { height } => write!(
                f,
                "the skin is {height} rows tall, beyond the original Quake's 480; loaded anyway"
            ),
            MdlWarning::UnevenIntervals { part, index } => write!(
                f,
                "{} {index}: the group's intervals are uneven; its clip plays them at one rate over the same cycle",
                part.record()
            ),
            MdlWarning::AnimationRenamed {
                name,
                renamed,
                first,
                last,
            } => write!(
                f,
                "poses {first} to {last} are another animation named {name:?}; renamed {renamed:?}"
            ),
        }
    }
}
