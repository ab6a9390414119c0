//! Levels of detail saved to bytes and loaded back, so an app (or
//! `md2info --levels`) builds them once, ahead of time, and never at start-up.
//!
//! The bytes are little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | `MD2L` |
//! | 4 | [`Levels::FILE_VERSION`] |
//! | 8 | the fingerprint of what the levels were built over: the model's frames and the mesh's corners and triangles ([`Levels::fingerprint`]) |
//! | 4 | corners, 4 | full-detail indices, 4 | levels, 4 | indices in all |
//! | 12 × levels | per level: first index, index count, error (`f32`) |
//! | 4 × indices | the indices |
//! | 8 | a checksum (FNV-1a, 64 bits) of everything before it |
//!
//! Loading checks everything a file can get wrong before it allocates for
//! it: the length against the counts (so no count can make it allocate more
//! than the file holds), the checksum (a flipped bit anywhere), the version,
//! the fingerprint (levels of another model, or of the same model meshed in
//! another triangle order), and then the levels themselves as
//! [`Levels::check_for`] does (full detail is the mesh's, every range whole
//! triangles within the indices, every index a corner), errors finite,
//! non-negative and growing with the level. What loads is exactly what was
//! saved.

use std::fmt;

use super::{Level, Levels};
use crate::mesh::RenderMesh;
use crate::model::KeyframeModel;

const MAGIC: [u8; 4] = *b"MD2L";
/// Bytes before the levels: magic, version, fingerprint, four counts.
const HEADER: usize = 4 + 4 + 8 + 4 * 4;
const LEVEL: usize = 12;
const CHECKSUM: usize = 8;
/// Levels a file may hold: more than any build makes (see
/// [`LevelOptions::coarser_levels`](super::LevelOptions::coarser_levels)).
const MAX_FILE_LEVELS: usize = 256;

/// Why saved levels do not load.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LevelsFileError {
    /// The bytes end before what they say they hold.
    Truncated {
        /// Bytes needed, as far as the bytes tell.
        needed: u64,
        /// Bytes there are.
        len: usize,
    },
    /// The bytes go on after the checksum.
    TrailingBytes {
        /// Bytes past the end.
        extra: usize,
    },
    /// Not a levels file: it does not begin with `MD2L`.
    NotALevelsFile,
    /// Saved by another version of the format.
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The one this crate reads.
        supported: u32,
    },
    /// The checksum does not match the bytes: the file was altered or
    /// damaged.
    ChecksumMismatch,
    /// The levels were built over another model, or the same model meshed
    /// in another triangle order.
    OtherModel {
        /// The fingerprint of the model and mesh given.
        expected: u64,
        /// The one the file was saved for.
        found: u64,
    },
    /// The levels do not fit the mesh, or are not levels at all.
    Invalid {
        /// What does not hold.
        what: &'static str,
    },
}

impl fmt::Display for LevelsFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelsFileError::Truncated { needed, len } => write!(
                f,
                "the levels file is truncated: {len} bytes, but it needs {needed}"
            ),
            LevelsFileError::TrailingBytes { extra } => {
                write!(f, "the levels file has {extra} bytes after its checksum")
            }
            LevelsFileError::NotALevelsFile => {
                write!(f, "not a levels file: it does not begin with MD2L")
            }
            LevelsFileError::UnsupportedVersion { found, supported } => write!(
                f,
                "the levels file is version {found}; this crate reads version {supported}"
            ),
            LevelsFileError::ChecksumMismatch => write!(
                f,
                "the levels file's checksum does not match its bytes: it was altered or damaged"
            ),
            LevelsFileError::OtherModel { expected, found } => write!(
                f,
                "the levels file is for another model or triangle order \
                 (fingerprint {found:016x}, this one's is {expected:016x})"
            ),
            LevelsFileError::Invalid { what } => write!(f, "the levels file is invalid: {what}"),
        }
    }
}

impl std::error::Error for LevelsFileError {}

/// FNV-1a, 64 bits: small, and plenty to tell files and models apart
/// (nothing here defends against a forger, who could write valid levels
/// anyway).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) -> &mut Fnv {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    fn u32(&mut self, x: u32) -> &mut Fnv {
        self.bytes(&x.to_le_bytes())
    }
}

/// The checksum a levels file ends with, of the bytes before it.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    Fnv::new().bytes(bytes).0
}

/// Reads little-endian words from the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let word = self.bytes[self.at..self.at + 4]
            .try_into()
            .map_or(0, u32::from_le_bytes);
        self.at += 4;
        word
    }

    fn u64(&mut self) -> u64 {
        let low = u64::from(self.u32());
        low | u64::from(self.u32()) << 32
    }
}

impl Levels {
    /// The version of the bytes [`to_bytes`](Levels::to_bytes) writes and
    /// [`from_bytes`](Levels::from_bytes) reads.
    pub const FILE_VERSION: u32 = 1;

    /// What levels are built over, as 64 bits: the model's frames (their
    /// vertices' words, scales and translates: the errors are measured in
    /// them) and the mesh's corners and full-detail triangles (the indices
    /// name them). Saved levels load only for the same fingerprint.
    pub fn fingerprint(model: &KeyframeModel, mesh: &RenderMesh) -> u64 {
        let words = model.all_words();
        let mut h = Fnv::new();
        h.u32(model.vertex_count() as u32)
            .u32(model.frame_count())
            .bytes(bytemuck::cast_slice(&words));
        for frame in model.frames() {
            for x in frame.scale.iter().chain(&frame.translate) {
                h.u32(x.to_bits());
            }
        }
        h.u32(mesh.corners().len() as u32);
        for c in mesh.corners() {
            h.u32(c.xyz).u32(c.uv[0].to_bits()).u32(c.uv[1].to_bits());
        }
        h.u32(mesh.indices().len() as u32);
        for &i in mesh.indices() {
            h.u32(i);
        }
        h.0
    }

    /// The levels as bytes (see the module's table), for `model` meshed as
    /// `mesh` (the ones they were built for).
    ///
    /// ```
    /// use md2_wgpu::mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder};
    ///
    /// let model = md2_wgpu::demo::demo_model();
    /// let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
    /// let levels = Levels::new(&model, &mesh, &LevelOptions::DEFAULT)?;
    /// let bytes = levels.to_bytes(&model, &mesh);
    /// assert_eq!(Levels::from_bytes(&bytes, &model, &mesh)?, levels);
    /// // Another triangle order is another mesh: its indices would name
    /// // other corners.
    /// let file_order = RenderMesh::new(&model, TriangleOrder::File);
    /// assert!(Levels::from_bytes(&bytes, &model, &file_order).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self, model: &KeyframeModel, mesh: &RenderMesh) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER + LEVEL * self.levels.len() + 4 * self.indices.len() + CHECKSUM,
        );
        out.extend_from_slice(&MAGIC);
        let words = |out: &mut Vec<u8>, w: &[u32]| {
            for x in w {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        words(&mut out, &[Levels::FILE_VERSION]);
        out.extend_from_slice(&Levels::fingerprint(model, mesh).to_le_bytes());
        words(
            &mut out,
            &[
                mesh.corners().len() as u32,
                mesh.indices().len() as u32,
                self.levels.len() as u32,
                self.indices.len() as u32,
            ],
        );
        for l in &self.levels {
            words(&mut out, &[l.first_index, l.index_count, l.error.to_bits()]);
        }
        words(&mut out, &self.indices);
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Levels saved by [`to_bytes`](Levels::to_bytes) for `model` meshed as
    /// `mesh`; every way the bytes can be wrong is a [`LevelsFileError`]
    /// (see the module's checks), and nothing is allocated beyond what the
    /// bytes hold.
    pub fn from_bytes(
        bytes: &[u8],
        model: &KeyframeModel,
        mesh: &RenderMesh,
    ) -> Result<Levels, LevelsFileError> {
        let truncated = |needed: u64| LevelsFileError::Truncated {
            needed,
            len: bytes.len(),
        };
        if bytes.len() < 8 {
            return Err(if bytes.len() >= 4 && bytes[..4] != MAGIC {
                LevelsFileError::NotALevelsFile
            } else {
                truncated(8)
            });
        }
        if bytes[..4] != MAGIC {
            return Err(LevelsFileError::NotALevelsFile);
        }
        let mut r = Reader { bytes, at: 4 };
        let version = r.u32();
        if version != Levels::FILE_VERSION {
            return Err(LevelsFileError::UnsupportedVersion {
                found: version,
                supported: Levels::FILE_VERSION,
            });
        }
        if bytes.len() < HEADER + CHECKSUM {
            return Err(truncated((HEADER + CHECKSUM) as u64));
        }
        let fingerprint = r.u64();
        let (corners, full, level_count, index_count) = (r.u32(), r.u32(), r.u32(), r.u32());
        // In 64 bits: no count can overflow the sum.
        let needed = (HEADER + CHECKSUM) as u64
            + LEVEL as u64 * u64::from(level_count)
            + 4 * u64::from(index_count);
        if (bytes.len() as u64) < needed {
            return Err(truncated(needed));
        }
        if bytes.len() as u64 > needed {
            return Err(LevelsFileError::TrailingBytes {
                extra: (bytes.len() as u64 - needed) as usize,
            });
        }
        let body = bytes.len() - CHECKSUM;
        let stored = Reader { bytes, at: body }.u64();
        if checksum(&bytes[..body]) != stored {
            return Err(LevelsFileError::ChecksumMismatch);
        }
        let expected = Levels::fingerprint(model, mesh);
        if fingerprint != expected
            || corners as usize != mesh.corners().len()
            || full as usize != mesh.indices().len()
        {
            return Err(LevelsFileError::OtherModel {
                expected,
                found: fingerprint,
            });
        }
        let invalid = |what| Err(LevelsFileError::Invalid { what });
        if level_count == 0 {
            return invalid("it holds no levels (full detail is one)");
        }
        if level_count as usize > MAX_FILE_LEVELS {
            return invalid("it holds more levels than any build makes");
        }
        let levels: Vec<Level> = (0..level_count)
            .map(|_| Level {
                first_index: r.u32(),
                index_count: r.u32(),
                error: f32::from_bits(r.u32()),
            })
            .collect();
        let indices: Vec<u32> = (0..index_count).map(|_| r.u32()).collect();
        if levels
            .iter()
            .any(|l| !(l.error.is_finite() && l.error >= 0.0))
        {
            return invalid("a level's error is negative or not a number");
        }
        if levels.windows(2).any(|w| w[1].error < w[0].error) {
            return invalid("a coarser level has a smaller error than a finer one");
        }
        if levels[0].error != 0.0 {
            return invalid("full detail's error is not 0");
        }
        // As built: level after level, each with fewer triangles than the
        // one before, and together exactly the indices.
        let mut next = 0u64;
        for (l, level) in levels.iter().enumerate() {
            if u64::from(level.first_index) != next {
                return invalid("a level does not start where the one before ends");
            }
            if l > 0 && (level.index_count == 0 || level.index_count >= levels[l - 1].index_count) {
                return invalid("a coarser level does not have fewer triangles");
            }
            next += u64::from(level.index_count);
        }
        if next != u64::from(index_count) {
            return invalid("the levels do not cover the indices");
        }
        let loaded = Levels {
            indices,
            levels,
            build_time: std::time::Duration::ZERO,
        };
        loaded.check_for(mesh).map_err(|e| match e {
            crate::mesh::MeshError::NotTheMeshsLevels { what } => LevelsFileError::Invalid { what },
            _ => LevelsFileError::Invalid {
                what: "the levels do not fit the mesh",
            },
        })?;
        Ok(loaded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Md2Model;
    use crate::mesh::{LevelOptions, TriangleOrder};

    /// The demo's levels and their bytes, built once for every test.
    fn saved() -> (Md2Model, RenderMesh, Levels, Vec<u8>) {
        static SAVED: std::sync::OnceLock<(Md2Model, RenderMesh, Levels, Vec<u8>)> =
            std::sync::OnceLock::new();
        SAVED
            .get_or_init(|| {
                let model = crate::demo::demo_model();
                let mesh = RenderMesh::new(&model, TriangleOrder::VertexCache);
                let levels = Levels::new(&model, &mesh, &LevelOptions::DEFAULT).unwrap();
                let bytes = levels.to_bytes(&model, &mesh);
                (model, mesh, levels, bytes)
            })
            .clone()
    }

    #[test]
    fn saved_levels_load_back_identical() {
        let (model, mesh, levels, bytes) = saved();
        assert_eq!(
            bytes.len(),
            HEADER + LEVEL * levels.levels().len() + 4 * levels.indices().len() + CHECKSUM
        );
        assert_eq!(Levels::from_bytes(&bytes, &model, &mesh).unwrap(), levels);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_a_typed_error() {
        let (model, mesh, _, bytes) = saved();
        for len in 0..bytes.len() {
            let err = Levels::from_bytes(&bytes[..len], &model, &mesh).unwrap_err();
            assert!(
                matches!(
                    err,
                    LevelsFileError::Truncated { .. } | LevelsFileError::NotALevelsFile
                ),
                "{len}: {err}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Levels::from_bytes(&longer, &model, &mesh),
            Err(LevelsFileError::TrailingBytes { extra: 1 })
        );
        for at in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[at] ^= 0x10;
            assert!(
                Levels::from_bytes(&altered, &model, &mesh).is_err(),
                "a flipped bit at {at} loads"
            );
        }
    }

    #[test]
    fn another_model_version_or_order_is_refused_by_name() {
        let (model, mesh, levels, bytes) = saved();
        let other = crate::support::limits_model_with(2);
        let other_mesh = RenderMesh::new(&other, TriangleOrder::VertexCache);
        assert!(matches!(
            Levels::from_bytes(&bytes, &other, &other_mesh),
            Err(LevelsFileError::OtherModel { .. })
        ));
        let file_order = RenderMesh::new(&model, TriangleOrder::File);
        assert!(matches!(
            Levels::from_bytes(&bytes, &model, &file_order),
            Err(LevelsFileError::OtherModel { .. })
        ));
        // A version this crate does not read, checksum and all made right.
        let mut future = bytes.clone();
        future[4..8].copy_from_slice(&2u32.to_le_bytes());
        let body = future.len() - CHECKSUM;
        let sum = checksum(&future[..body]);
        future[body..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(
            Levels::from_bytes(&future, &model, &mesh),
            Err(LevelsFileError::UnsupportedVersion {
                found: 2,
                supported: 1
            })
        );
        // Valid bytes of levels that are not levels, each with the checksum
        // made right: a level past the indices, two levels overlapping, an
        // index past the corners, errors that shrink.
        let last = levels.levels().len() - 1;
        let breaks: [&dyn Fn(&mut Levels); 4] = [
            &|l| l.levels[last].index_count += 3,
            &|l| l.levels[2].first_index -= 3,
            &|l| *l.indices.last_mut().unwrap() = u32::MAX,
            &|l| l.levels[2].error = 0.0,
        ];
        for (k, breaking) in breaks.iter().enumerate() {
            let mut bad = levels.clone();
            breaking(&mut bad);
            let bytes = bad.to_bytes(&model, &mesh);
            let err = Levels::from_bytes(&bytes, &model, &mesh).unwrap_err();
            assert!(matches!(err, LevelsFileError::Invalid { .. }), "{k}: {err}");
        }
        let mut huge = levels.to_bytes(&model, &mesh);
        // A count that would need gigabytes: refused by the length alone.
        huge[HEADER - 4..HEADER].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Levels::from_bytes(&huge, &model, &mesh),
            Err(LevelsFileError::Truncated { .. })
        ));
    }
}
