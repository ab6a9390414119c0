//! What can go wrong reading an MD3 file, and the quirks that load anyway.

use std::fmt;
use std::path::PathBuf;

/// A part of an MD3 file: the header's three tables and each surface's
/// header and four tables. Offsets say where each lies, so a part can lie
/// outside the file, outside its surface or over another part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Md3Part {
    /// The 108-byte header.
    Header,
    /// The frames: `numFrames` × 56 bytes at `ofsFrames`.
    Frames,
    /// The tags: `numFrames` × `numTags` × 112 bytes at `ofsTags`.
    Tags,
    /// A surface's 108-byte header (surface `n`, from 0).
    Surface(usize),
    /// A surface's shaders: `numShaders` × 68 bytes.
    Shaders(usize),
    /// A surface's triangles: `numTriangles` × 12 bytes.
    Triangles(usize),
    /// A surface's texture coordinates: `numVerts` × 8 bytes.
    TexCoords(usize),
    /// A surface's vertices: `numFrames` × `numVerts` × 8 bytes.
    Vertices(usize),
}

impl fmt::Display for Md3Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, surface) = match *self {
            Md3Part::Header => return f.write_str("the header"),
            Md3Part::Frames => return f.write_str("the frames"),
            Md3Part::Tags => return f.write_str("the tags"),
            Md3Part::Surface(s) => ("header", s),
            Md3Part::Shaders(s) => ("shaders", s),
            Md3Part::Triangles(s) => ("triangles", s),
            Md3Part::TexCoords(s) => ("texture coordinates", s),
            Md3Part::Vertices(s) => ("vertices", s),
        };
        write!(f, "surface {surface}'s {what}")
    }
}

/// A name field of an MD3 file: which one, where an error or a warning
/// names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Md3Name {
    /// The header's model name (the game never reads it).
    Model,
    /// A frame's name (the game never reads it).
    Frame(usize),
    /// A tag's name, by its index among all tags (frame-major).
    Tag(usize),
    /// A surface's name.
    Surface(usize),
    /// A shader's name.
    Shader {
        /// The surface.
        surface: usize,
        /// The shader within it.
        shader: usize,
    },
}

impl fmt::Display for Md3Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md3Name::Model => f.write_str("the model's name"),
            Md3Name::Frame(i) => write!(f, "frame {i}'s name"),
            Md3Name::Tag(i) => write!(f, "tag {i}'s name"),
            Md3Name::Surface(i) => write!(f, "surface {i}'s name"),
            Md3Name::Shader { surface, shader } => {
                write!(f, "surface {surface}'s shader {shader}'s name")
            }
        }
    }
}

/// Why an MD3 file (or a model built in code) was refused.
///
/// Every variant says what was wrong and where: the field or part, the
/// surface, the index and the byte offset. Nothing is allocated for a part
/// before every part's place has been checked against the file.
///
/// As with [`MdlError`](crate::format::mdl::MdlError), only
/// [`Md3Model::open`](super::Md3Model::open) names a path
/// ([`Md3Error::InFile`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Md3Error {
    /// The file is shorter than the 108-byte header.
    TruncatedHeader {
        /// The file's length in bytes.
        length: usize,
    },
    /// The header's `ofsEnd` (where the model ends) is past the end of the
    /// file: a file cut short.
    Truncated {
        /// The bytes `ofsEnd` says the model has.
        needed: u64,
        /// The file's length.
        length: usize,
    },
    /// The first four bytes are not `IDP3`.
    BadIdent {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// A surface does not start with `IDP3`: its place (the surface before
    /// it, or `ofsSurfaces`) is wrong.
    BadSurfaceIdent {
        /// Which surface.
        surface: usize,
        /// The four bytes found.
        found: [u8; 4],
        /// Where the surface starts.
        offset: u64,
    },
    /// The version is not 15.
    UnsupportedVersion {
        /// The version found.
        found: i32,
    },
    /// A surface's `numFrames` differs from the header's.
    FrameCountMismatch {
        /// Which surface.
        surface: usize,
        /// The surface's `numFrames`.
        found: i32,
        /// The header's.
        expected: i32,
    },
    /// A count is beyond Quake III's limit for it (`qfiles.h`).
    BeyondLimit {
        /// The surface, where the count is a surface's.
        surface: Option<usize>,
        /// The field's name in Quake III's sources (`numVerts`, ...).
        field: &'static str,
        /// How many the file has.
        value: i64,
        /// The limit.
        limit: i64,
        /// The limit's name in Quake III's sources (`MD3_MAX_VERTS`, ...).
        limit_name: &'static str,
    },
    /// A field holds a value no valid file has.
    InvalidField {
        /// The field's name in Quake III's sources (`numFrames`, ...), with
        /// its surface where it is a surface's (`surface 2's numVerts`).
        field: String,
        /// The value found.
        value: i64,
        /// What a valid value looks like.
        expected: &'static str,
    },
    /// A part does not lie where it must: after the header and before
    /// `ofsEnd` (the frames, the tags, a surface), or inside its surface
    /// (a surface's tables). A part with no records may lie anywhere up to
    /// `ofsEnd`.
    OutOfBounds {
        /// Which part.
        part: Md3Part,
        /// Where it starts, from the file's start (negative where the file
        /// says so).
        offset: i64,
        /// Its size in bytes (a surface: its `ofsEnd`).
        size: u64,
        /// Where it may start at the earliest.
        start: u64,
        /// Where it must end at the latest.
        end: u64,
    },
    /// Two parts share bytes.
    Overlap {
        /// The part that starts first.
        first: Md3Part,
        /// The part that starts inside it.
        second: Md3Part,
        /// Where the second starts.
        offset: u64,
    },
    /// A triangle names a vertex its surface does not have.
    IndexOutOfRange {
        /// Which surface.
        surface: usize,
        /// Which triangle.
        triangle: usize,
        /// Which corner (0, 1 or 2).
        corner: usize,
        /// The index found.
        index: i32,
        /// The vertices the surface has.
        count: usize,
        /// The byte offset of the index.
        offset: u64,
    },
    /// A name the game reads (a tag's, a surface's, a shader's) fills its
    /// field with no NUL to end it.
    UnterminatedName {
        /// Which name.
        name: Md3Name,
        /// Where its field starts.
        offset: u64,
    },
    /// Parts built in code are inconsistent: what is wrong.
    InvalidParts {
        /// What is wrong.
        reason: String,
    },
    /// A float (a frame's bounds, origin or radius, a tag's origin or
    /// axis, a texture coordinate) is NaN or infinite.
    NonFinite {
        /// The part it is in.
        part: Md3Part,
        /// Which record of the part (frame, tag, vertex).
        index: usize,
        /// The record's byte offset.
        offset: u64,
    },
    /// The model would be larger written out than an `i32` offset can
    /// reach (2 GiB).
    TooLargeToWrite {
        /// Its size in bytes.
        size: u64,
    },
    /// An error in the file at `path`. Displayed as `path: error`.
    InFile {
        /// The path that was opened.
        path: PathBuf,
        /// What was wrong: never another `InFile`.
        error: Box<Md3Error>,
    },
    /// The file could not be read (inside [`Md3Error::InFile`]).
    Io {
        /// What the operating system said.
        source: std::io::Error,
    },
}

impl Md3Error {
    /// The error itself, without the path [`Md3Error::InFile`] wraps it in.
    pub fn without_path(&self) -> &Md3Error {
        let mut error = self;
        while let Md3Error::InFile { error: inner, .. } = error {
            error = inner.as_ref();
        }
        error
    }
}

impl fmt::Display for Md3Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md3Error::TruncatedHeader { length } => write!(
                f,
                "{length} bytes is shorter than the {}-byte MD3 header",
                super::layout::HEADER_SIZE
            ),
            Md3Error::Truncated { needed, length } => write!(
                f,
                "the header's ofsEnd says the model has {needed} bytes; the file has {length}: cut short"
            ),
            Md3Error::BadIdent { found } => write!(
                f,
                "the file starts with {:?}, not IDP3: not a Quake III model",
                String::from_utf8_lossy(found)
            ),
            Md3Error::BadSurfaceIdent {
                surface,
                found,
                offset,
            } => write!(
                f,
                "surface {surface} at byte {offset} starts with {:?}, not IDP3: the surfaces' offsets are wrong",
                String::from_utf8_lossy(found)
            ),
            Md3Error::UnsupportedVersion { found } => {
                write!(
                    f,
                    "version {found}: only MD3 version 15 (Quake III's) is read"
                )
            }
            Md3Error::FrameCountMismatch {
                surface,
                found,
                expected,
            } => write!(
                f,
                "surface {surface} has {found} frames; the header says {expected}"
            ),
            Md3Error::BeyondLimit {
                surface,
                field,
                value,
                limit,
                limit_name,
            } => {
                if let Some(s) = surface {
                    write!(f, "surface {s}: ")?;
                }
                write!(
                    f,
                    "{field} is {value}, beyond Quake III's limit of {limit} ({limit_name})"
                )
            }
            Md3Error::InvalidField {
                field,
                value,
                expected,
            } => write!(f, "{field} is {value}; expected {expected}"),
            Md3Error::OutOfBounds {
                part,
                offset,
                size,
                start,
                end,
            } => write!(
                f,
                "{part} at byte {offset} ({size} bytes) must lie within bytes {start}..{end}"
            ),
            Md3Error::Overlap {
                first,
                second,
                offset,
            } => write!(f, "{second} starts at byte {offset}, inside {first}"),
            Md3Error::IndexOutOfRange {
                offset,
                surface,
                triangle,
                corner,
                index,
                count,
            } => write!(
                f,
                "byte {offset}: surface {surface}'s triangle {triangle}, corner {corner}, names vertex {index}, outside 0..{count}"
            ),
            Md3Error::UnterminatedName { name, offset } => write!(
                f,
                "{name} (at byte {offset}) has no NUL to end it within its field"
            ),
            Md3Error::InvalidParts { reason } => write!(f, "invalid model parts: {reason}"),
            Md3Error::NonFinite {
                part,
                index,
                offset,
            } => write!(
                f,
                "{part}: record {index} (at byte {offset}) holds a NaN or infinite number"
            ),
            Md3Error::TooLargeToWrite { size } => write!(
                f,
                "the model would be {size} bytes written out, more than an i32 offset reaches (2 GiB)"
            ),
            Md3Error::InFile { path, error } => write!(f, "{}: {error}", path.display()),
            Md3Error::Io { source } => write!(f, "cannot read the file: {source}"),
        }
    }
}

impl std::error::Error for Md3Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source: &(dyn std::error::Error + 'static) = match self {
            Md3Error::InFile { error, .. } => error.as_ref(),
            Md3Error::Io { source } => source,
            _ => return None,
        };
        Some(source)
    }
}

/// A quirk of a file that loaded anyway. None changes how the file writes
/// back: every MD3 that loads rewrites byte for byte.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Md3Warning {
    /// Bytes between parts (before `ofsEnd`) that no part covers: kept and
    /// written back, read by nothing.
    UnreadBytes {
        /// Where they start.
        offset: usize,
        /// How many.
        length: usize,
    },
    /// Bytes follow `ofsEnd`: the game never loads them; they are kept and
    /// written back.
    TrailingBytes {
        /// Where the model ends (`ofsEnd`).
        end: usize,
        /// The file's length.
        length: usize,
    },
    /// A name the game never reads (the model's, a frame's) fills its
    /// field with no NUL to end it; it reads up to the field's end.
    UnterminatedName {
        /// Which name.
        name: Md3Name,
    },
    /// A frame's tags are not named as the first frame's, in the same
    /// order: the game finds a tag by name in each frame, so the tag is
    /// elsewhere in that frame or missing from it.
    TagNamesDiffer {
        /// The first frame that differs.
        frame: usize,
        /// The first tag that differs in it.
        tag: usize,
    },
    /// A surface within the file format's limits but past what Quake III's
    /// renderer draws (`SHADER_MAX_VERTEXES`, 1,000 vertices, and
    /// `SHADER_MAX_INDEXES`, 6,000 indices: below 1,000 vertices and 2,000
    /// triangles), which refuses the model.
    BeyondRendererLimit {
        /// Which surface.
        surface: usize,
        /// `numVerts` or `numTriangles`.
        field: &'static str,
        /// How many it has.
        value: i64,
        /// The count the renderer draws up to (exclusive).
        limit: i64,
    },
}

impl fmt::Display for Md3Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md3Warning::UnterminatedName { name } => {
                write!(f, "{name} has no NUL within its field; read to its end")
            }
            Md3Warning::TagNamesDiffer { frame, tag } => write!(
                f,
                "frame {frame}: tag {tag} is not named as in frame 0; the game finds tags by name"
            ),
            Md3Warning::BeyondRendererLimit {
                surface,
                field,
                value,
                limit,
            } => write!(
                f,
                "surface {surface}: {field} is {value}; Quake III's renderer draws fewer than {limit}"
            ),
            Md3Warning::UnreadBytes { offset, length } => write!(
                f,
                "{length} bytes at byte {offset} lie between parts: kept, read by nothing"
            ),
            Md3Warning::TrailingBytes { end, length } => write!(
                f,
                "{} bytes after the model's end (ofsEnd, byte {end}) in a {length}-byte file, ignored",
                length.saturating_sub(*end)
            ),
        }
    }
}
