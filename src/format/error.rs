//! What can go wrong reading an MD2 file, and the quirks that load anyway.

use std::fmt;
use std::path::{Path, PathBuf};

/// A section of an MD2 file, as named by its header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Section {
    /// The skin names: `ofs_skins`, `num_skins` × 64 bytes.
    Skins,
    /// The texture coordinates: `ofs_st`, `num_st` × 4 bytes.
    TexCoords,
    /// The triangles: `ofs_tris`, `num_tris` × 12 bytes.
    Triangles,
    /// The frames: `ofs_frames`, `num_frames` × `framesize` bytes.
    Frames,
    /// The GL commands: `ofs_glcmds`, `num_glcmds` × 4 bytes.
    GlCmds,
}

impl Section {
    /// The header fields that place this section: (offset field, count field).
    pub fn fields(self) -> (&'static str, &'static str) {
        match self {
            Section::Skins => ("ofs_skins", "num_skins"),
            Section::TexCoords => ("ofs_st", "num_st"),
            Section::Triangles => ("ofs_tris", "num_tris"),
            Section::Frames => ("ofs_frames", "num_frames"),
            Section::GlCmds => ("ofs_glcmds", "num_glcmds"),
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Section::Skins => "skins",
            Section::TexCoords => "texture coordinates",
            Section::Triangles => "triangles",
            Section::Frames => "frames",
            Section::GlCmds => "glcmds",
        };
        f.write_str(name)
    }
}

/// Why an MD2 file (or a model built in code) was refused.
///
/// Every variant says what was wrong and where: the section or field, the
/// offset, index or count, and the file's length. Nothing is allocated for a
/// section before its extent has been checked against the file.
///
/// Which file is one rule: [`Md2Model::open`](crate::Md2Model::open) wraps
/// whatever went wrong in [`Md2Error::InFile`], which names the path, and
/// nothing else names one ([`Md2Model::from_bytes`](crate::Md2Model::from_bytes)
/// has none to name). So `{error}` prints the path exactly once where there
/// is one; [`Md2Error::without_path`] gives the error itself to match on.
#[derive(Debug)]
#[non_exhaustive]
pub enum Md2Error {
    /// An error in the file at `path`: what [`Md2Model::open`](crate::Md2Model::open)
    /// returns. Displayed as `path: error`; [`source`](std::error::Error::source)
    /// is `error`.
    InFile {
        /// The path that was opened.
        path: PathBuf,
        /// What was wrong: never another `InFile`.
        error: Box<Md2Error>,
    },
    /// The file could not be read (inside [`Md2Error::InFile`], which names
    /// it).
    Io {
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is shorter than the 68-byte header.
    TruncatedHeader {
        /// The file's length in bytes.
        length: usize,
    },
    /// The first four bytes are not `IDP2`.
    BadIdent {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The version is not 8.
    UnsupportedVersion {
        /// The version found.
        found: i32,
    },
    /// A header field holds a value no valid file has.
    InvalidField {
        /// The field's conventional name (`num_xyz`, `framesize`, ...).
        field: &'static str,
        /// The value found.
        value: i64,
        /// What a valid value looks like.
        expected: &'static str,
        /// The file's length in bytes.
        length: usize,
    },
    /// A section does not lie inside the file, or overlaps the header.
    SectionOutOfBounds {
        /// Which section.
        section: Section,
        /// Its offset, as the header gives it.
        offset: i64,
        /// One past its last byte: offset + count × record size.
        end: i64,
        /// Where the section data may start and end: the header's size and
        /// the file's length (or `ofs_end`, where that is smaller).
        allowed: (usize, usize),
    },
    /// `ofs_end` does not agree with the file or with the sections.
    BadEnd {
        /// The header's `ofs_end`.
        ofs_end: i64,
        /// Where the last section ends.
        sections_end: i64,
        /// The file's length in bytes.
        length: usize,
    },
    /// A triangle names a vertex or texture coordinate that does not exist.
    IndexOutOfRange {
        /// Which triangle.
        triangle: usize,
        /// The field: `index_xyz` or `index_st`.
        field: &'static str,
        /// Which corner (0, 1 or 2).
        corner: usize,
        /// The index found.
        index: u32,
        /// The number of entries it indexes (`num_xyz` or `num_st`).
        count: usize,
        /// The byte offset of the index in the file.
        offset: usize,
    },
    /// A frame's scale or translate is NaN or infinite.
    NonFiniteFrame {
        /// Which frame.
        frame: u32,
        /// `scale` or `translate`.
        field: &'static str,
        /// The value found.
        value: [f32; 3],
        /// The byte offset of the field in the file.
        offset: usize,
    },
    /// The model, written out, would be larger than the 2 GiB a 32-bit MD2
    /// header can describe (a huge file whose broken glcmds, regenerated,
    /// would no longer fit). Refused when loading or building, so that every
    /// [`Md2Model`](crate::Md2Model) can be written.
    TooLargeToWrite {
        /// The size the file would have, in bytes.
        size: u64,
    },
    /// A model built in code is not self-consistent (see
    /// [`Md2Model::from_parts`](crate::Md2Model::from_parts)).
    InvalidParts {
        /// What is wrong.
        reason: String,
    },
}

impl Md2Error {
    /// `error` as an error in the file at `path` (an error that names a path
    /// already keeps its own).
    pub(crate) fn in_file(self, path: &Path) -> Md2Error {
        match self {
            Md2Error::InFile { .. } => self,
            error => Md2Error::InFile {
                path: path.to_path_buf(),
                error: Box::new(error),
            },
        }
    }

    /// The file the error is in, where it came from one (see
    /// [`Md2Error::InFile`]).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Md2Error::InFile { path, .. } => Some(path),
            _ => None,
        }
    }

    /// What was wrong, without the file it was in: the error inside an
    /// [`Md2Error::InFile`], any other error itself. Match on this.
    pub fn without_path(&self) -> &Md2Error {
        match self {
            Md2Error::InFile { error, .. } => error,
            other => other,
        }
    }
}

impl fmt::Display for Md2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md2Error::InFile { path, error } => write!(f, "{}: {error}", path.display()),
            Md2Error::Io { source } => write!(f, "cannot read the file: {source}"),
            Md2Error::TruncatedHeader { length } => write!(
                f,
                "file is {length} bytes, shorter than the 68-byte MD2 header"
            ),
            Md2Error::BadIdent { found } => write!(
                f,
                "not an MD2 file: ident is {:?}, expected \"IDP2\"",
                String::from_utf8_lossy(found)
            ),
            Md2Error::UnsupportedVersion { found } => {
                write!(f, "MD2 version {found} is not supported (expected 8)")
            }
            Md2Error::InvalidField {
                field,
                value,
                expected,
                length,
            } => write!(
                f,
                "header field {field} is {value}, expected {expected} (file is {length} bytes)"
            ),
            Md2Error::SectionOutOfBounds {
                section,
                offset,
                end,
                allowed,
            } => {
                let (ofs, num) = section.fields();
                write!(
                    f,
                    "{section} section ({ofs}, {num}) spans bytes {offset}..{end}, outside {}..{}",
                    allowed.0, allowed.1
                )
            }
            Md2Error::BadEnd {
                ofs_end,
                sections_end,
                length,
            } => write!(
                f,
                "ofs_end is {ofs_end}, but the sections end at {sections_end} and the file is {length} bytes"
            ),
            Md2Error::IndexOutOfRange {
                triangle,
                field,
                corner,
                index,
                count,
                offset,
            } => write!(
                f,
                "triangle {triangle}: {field}[{corner}] is {index}, but there are only {count} (at byte {offset})"
            ),
            Md2Error::NonFiniteFrame {
                frame,
                field,
                value,
                offset,
            } => write!(
                f,
                "frame {frame}: {field} is {value:?}, which is not finite (at byte {offset})"
            ),
            Md2Error::TooLargeToWrite { size } => write!(
                f,
                "the model would be {size} bytes written out, more than an MD2 header can describe (2 GiB)"
            ),
            Md2Error::InvalidParts { reason } => write!(f, "invalid model parts: {reason}"),
        }
    }
}

impl std::error::Error for Md2Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Md2Error::InFile { error, .. } => Some(error.as_ref()),
            Md2Error::Io { source } => Some(source),
            _ => None,
        }
    }
}

/// A quirk of a file that loaded anyway: real files from the 1990s have many.
///
/// A file that loads with no warnings (or only
/// [`AnimationRenamed`](Md2Warning::AnimationRenamed), which is about names,
/// not bytes) writes back byte for byte; one with other warnings writes back
/// as a valid, canonical file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Md2Warning {
    /// Bytes follow `ofs_end`; they are ignored.
    TrailingBytes {
        /// The header's `ofs_end`.
        ofs_end: usize,
        /// The file's length.
        length: usize,
    },
    /// A skin name fills all 64 bytes with no terminating NUL.
    SkinNameUnterminated {
        /// Which skin.
        skin: usize,
    },
    /// Vertices whose `lightnormalindex` is outside the 162-entry table; they
    /// are read as [`FALLBACK_NORMAL_INDEX`](crate::model::FALLBACK_NORMAL_INDEX).
    NormalIndexOutOfTable {
        /// How many vertices, over all frames.
        count: usize,
        /// The first one: (frame, vertex, index).
        first: (u32, usize, u8),
    },
    /// A count is beyond what Quake II itself accepts; the file is otherwise
    /// consistent and loads.
    BeyondQuake2Limit {
        /// The header field.
        field: &'static str,
        /// Its value.
        value: usize,
        /// Quake II's limit.
        limit: usize,
    },
    /// The file has no glcmds (`num_glcmds` is 0); the triangles carry the
    /// mesh, and [`Md2Model::to_bytes`](crate::Md2Model::to_bytes) generates
    /// glcmds.
    GlCmdsMissing,
    /// The glcmd block is broken and was dropped; the triangles carry the mesh.
    GlCmdsDropped {
        /// What was wrong.
        reason: String,
        /// The byte offset in the file where it went wrong.
        offset: usize,
    },
    /// Words follow the glcmd block's terminating 0; they are ignored.
    GlCmdsTrailingWords {
        /// How many 4-byte words.
        words: usize,
    },
    /// `framesize` is larger than a frame needs; the padding is ignored.
    FramePadding {
        /// The header's `framesize`.
        framesize: usize,
        /// 40 + 4 × `num_xyz`.
        needed: usize,
    },
    /// The sections are not laid out in the usual order (header, skins, st,
    /// triangles, frames, glcmds) without gaps; a rewrite will lay them out
    /// that way.
    NonCanonicalLayout,
    /// The frame names give an animation a name an earlier animation has
    /// (the same stem comes back later in the file), so it was renamed to
    /// keep [`Md2Model::animations`](crate::Md2Model::animations)' names
    /// unique (see [the naming rule](crate::model::animations#names)). The frames
    /// themselves are unchanged.
    AnimationRenamed {
        /// The name the frames give it, taken by an earlier animation.
        name: String,
        /// The name it has in [`Md2Model::animations`](crate::Md2Model::animations).
        renamed: String,
        /// Its first frame.
        first: u32,
        /// Its last frame, inclusive.
        last: u32,
    },
}

impl fmt::Display for Md2Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md2Warning::TrailingBytes { ofs_end, length } => write!(
                f,
                "{} trailing bytes after ofs_end ({ofs_end}) in a {length}-byte file, ignored",
                length - ofs_end
            ),
            Md2Warning::SkinNameUnterminated { skin } => {
                write!(f, "skin {skin}: name fills 64 bytes with no NUL")
            }
            Md2Warning::NormalIndexOutOfTable {
                count,
                first: (frame, vertex, index),
            } => write!(
                f,
                "{count} vertices have a normal index >= 162 (first: frame {frame}, vertex {vertex}, index {index}); read as straight up"
            ),
            Md2Warning::BeyondQuake2Limit {
                field,
                value,
                limit,
            } => write!(
                f,
                "{field} is {value}, beyond Quake II's limit of {limit}; loaded anyway"
            ),
            Md2Warning::GlCmdsMissing => {
                write!(f, "no glcmds in the file; the triangles carry the mesh")
            }
            Md2Warning::GlCmdsDropped { reason, offset } => write!(
                f,
                "glcmds dropped: {reason} (at byte {offset}); the triangles carry the mesh"
            ),
            Md2Warning::GlCmdsTrailingWords { words } => {
                write!(f, "{words} words after the glcmds' terminating 0, ignored")
            }
            Md2Warning::FramePadding { framesize, needed } => write!(
                f,
                "framesize is {framesize}, a frame needs {needed}; the padding is ignored"
            ),
            Md2Warning::NonCanonicalLayout => write!(
                f,
                "sections are not in the usual order without gaps; a rewrite lays them out anew"
            ),
            Md2Warning::AnimationRenamed {
                name,
                renamed,
                first,
                last,
            } => write!(
                f,
                "frames {first} to {last} are another animation named {name:?}; renamed {renamed:?}"
            ),
        }
    }
}
