//! Reading an MD3 file. The header's counts are held to Quake III's
//! limits, then every part is placed (the frames, the tags, each surface
//! and its four tables) and checked against its bounds and the others
//! before any is read, so no header can make the loader allocate more than
//! the file's length justifies, read out of bounds, or panic.

use std::path::Path;

use super::error::{Md3Error, Md3Name, Md3Part, Md3Warning};
use super::layout::{
    FRAME_SIZE, HEADER_SIZE, MAX_FRAMES, MAX_SHADERS, MAX_SURFACES, MAX_TAGS, MAX_TRIANGLES,
    MAX_VERTS, RENDERER_MAX_INDEXES, RENDERER_MAX_VERTS, SHADER_SIZE, ST_SIZE, SURFACE_HEADER_SIZE,
    TAG_SIZE, TRIANGLE_SIZE, XYZ_NORMAL_SIZE,
};
use super::model::{
    Md3Frame, Md3Header, Md3Model, Md3Shader, Md3Surface, Md3SurfaceHeader, Md3Tag,
};
use super::regions::Regions;
use super::vertex::Md3Vertex;

impl Md3Model {
    /// Reads a model from a file. Any error is an [`Md3Error::InFile`]
    /// naming `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Md3Model, Md3Error> {
        let path = path.as_ref();
        let in_file = |error: Md3Error| Md3Error::InFile {
            path: path.to_path_buf(),
            error: Box::new(error),
        };
        let bytes = std::fs::read(path).map_err(|source| in_file(Md3Error::Io { source }))?;
        Md3Model::from_bytes(&bytes).map_err(in_file)
    }

    /// Reads a model from the bytes of an MD3 file. Errors name no file.
    ///
    /// Validation is stricter than Quake III's loader, which checks only
    /// the version, the frame count and its renderer's limits: the counts
    /// within [the limits](super#limits), every part inside the model
    /// (after the header, before `ofsEnd`) and each surface's tables inside
    /// the surface, no two parts sharing a byte, every surface's frame
    /// count the header's, every triangle's vertices in range, the names
    /// the game reads NUL-terminated, every float finite. Parts may lie in
    /// any order with bytes between them: the layout is kept, and quirks
    /// that load are listed in [`Md3Model::warnings`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Md3Model, Md3Error> {
        let header = read_header(bytes)?;
        let counts = Counts::of(&header)?;
        let end = model_end(&header, bytes.len())?;
        let mut regions = Regions::default();
        let places = Places::find(bytes, &header, &counts, end, &mut regions)?;
        regions.check_disjoint()?;

        let frames = read_frames(bytes, (places.frames, counts.frames))?;
        let tags = read_tags(bytes, (places.tags, counts.frames * counts.tags))?;
        let surfaces = places
            .surfaces
            .iter()
            .enumerate()
            .map(|(s, place)| read_surface(bytes, s, place))
            .collect::<Result<Vec<_>, _>>()?;

        let (unread, mut warnings) = kept_bytes(bytes, &regions, end);
        warnings.extend(unterminated_names(&header, &frames));
        for (s, surface) in surfaces.iter().enumerate() {
            warnings.extend(beyond_the_renderer(s, &surface.header));
        }
        warnings.extend(tag_names_differ(&tags, counts.tags));

        Ok(Md3Model {
            header,
            frames,
            tags,
            surfaces,
            unread,
            length: bytes.len(),
            warnings,
        })
    }
}

/// The bytes no part covers, by offset (kept, so that a rewrite is
/// exact), and a warning for each stretch: unread before the model's end,
/// trailing after it.
fn kept_bytes(
    bytes: &[u8],
    regions: &Regions,
    end: u64,
) -> (Vec<(usize, Vec<u8>)>, Vec<Md3Warning>) {
    let mut unread = Vec::new();
    let mut warnings = Vec::new();
    let length = bytes.len() as u64;
    for (start, stop) in regions.gaps(end).into_iter().chain([(end, length)]) {
        // Both within the file: every part is, and `end` is.
        let (start, stop) = (start as usize, stop as usize);
        if stop <= start {
            continue;
        }
        unread.push((start, bytes[start..stop].to_vec()));
        warnings.push(if start as u64 == end {
            Md3Warning::TrailingBytes {
                end: start,
                length: bytes.len(),
            }
        } else {
            Md3Warning::UnreadBytes {
                offset: start,
                length: stop - start,
            }
        });
    }
    (unread, warnings)
}

/// A warning for each name the game never reads (the model's, the
/// frames') that fills its field with no NUL.
fn unterminated_names(header: &Md3Header, frames: &[Md3Frame]) -> Vec<Md3Warning> {
    let frame_names = frames.iter().map(|f| &f.name_bytes[..]);
    let fields = std::iter::once(&header.name_bytes[..]).chain(frame_names);
    let names = std::iter::once(Md3Name::Model).chain((0..frames.len()).map(Md3Name::Frame));
    names
        .zip(fields)
        .filter(|(_, field)| !field.contains(&0))
        .map(|(name, _)| Md3Warning::UnterminatedName { name })
        .collect()
}

/// A cursor over bytes whose place in the file has been checked: reads the
/// little-endian fields of a record in turn.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn at(bytes: &'a [u8], at: u64) -> Fields<'a> {
        // A checked place is inside the file, so it fits a usize.
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        Fields { bytes, at }
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        out
    }

    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.array())
    }

    fn f32(&mut self) -> f32 {
        f32::from_le_bytes(self.array())
    }

    fn vec3(&mut self) -> [f32; 3] {
        [self.f32(), self.f32(), self.f32()]
    }

    fn vertex(&mut self) -> Md3Vertex {
        let xyz = [self.array(), self.array(), self.array()].map(i16::from_le_bytes);
        Md3Vertex {
            xyz,
            normal: u16::from_le_bytes(self.array()),
        }
    }
}

fn read_header(bytes: &[u8]) -> Result<Md3Header, Md3Error> {
    if bytes.len() < HEADER_SIZE {
        return Err(Md3Error::TruncatedHeader {
            length: bytes.len(),
        });
    }
    let mut f = Fields::at(bytes, 0);
    let header = Md3Header {
        ident: f.array(),
        version: f.i32(),
        name_bytes: f.array(),
        flags: f.i32(),
        num_frames: f.i32(),
        num_tags: f.i32(),
        num_surfaces: f.i32(),
        num_skins: f.i32(),
        ofs_frames: f.i32(),
        ofs_tags: f.i32(),
        ofs_surfaces: f.i32(),
        ofs_end: f.i32(),
    };
    match (header.ident, header.version) {
        (Md3Header::IDENT, Md3Header::VERSION) => Ok(header),
        (Md3Header::IDENT, found) => Err(Md3Error::UnsupportedVersion { found }),
        (found, _) => Err(Md3Error::BadIdent { found }),
    }
}

/// A field's name in errors: Quake III's, with its surface where it is a
/// surface's.
fn field_name(field: &str, surface: Option<usize>) -> String {
    match surface {
        Some(s) => format!("surface {s}'s {field}"),
        None => field.to_owned(),
    }
}

/// A count, checked: at least `least` (0 or 1), at most Quake III's limit
/// (`(limit, its name)`).
fn count(
    field: &'static str,
    surface: Option<usize>,
    value: i32,
    least: i32,
    (limit, limit_name): (i64, &'static str),
) -> Result<usize, Md3Error> {
    if value < least {
        return Err(Md3Error::InvalidField {
            field: field_name(field, surface),
            value: value.into(),
            expected: if least == 0 { "0 or more" } else { "1 or more" },
        });
    }
    if i64::from(value) > limit {
        return Err(Md3Error::BeyondLimit {
            field,
            surface,
            value: value.into(),
            limit,
            limit_name,
        });
    }
    // Not negative: checked above.
    Ok(usize::try_from(value).unwrap_or(0))
}

/// The header's counts, each checked against its limit.
struct Counts {
    frames: usize,
    tags: usize,
    surfaces: usize,
}

impl Counts {
    fn of(h: &Md3Header) -> Result<Counts, Md3Error> {
        // The game never reads numSkins; it is kept, but a count is never
        // negative.
        count("numSkins", None, h.num_skins, 0, (i64::MAX, "none"))?;
        Ok(Counts {
            // Quake III refuses a model with no frames (`R_LoadMD3`).
            frames: count(
                "numFrames",
                None,
                h.num_frames,
                1,
                (MAX_FRAMES, "MD3_MAX_FRAMES"),
            )?,
            tags: count("numTags", None, h.num_tags, 0, (MAX_TAGS, "MD3_MAX_TAGS"))?,
            surfaces: count(
                "numSurfaces",
                None,
                h.num_surfaces,
                0,
                (MAX_SURFACES, "MD3_MAX_SURFACES"),
            )?,
        })
    }
}

/// Where the model ends (`ofsEnd`): past the header, within the file.
fn model_end(h: &Md3Header, length: usize) -> Result<u64, Md3Error> {
    let end = u64::try_from(h.ofs_end)
        .ok()
        .filter(|&end| end >= HEADER_SIZE as u64);
    let Some(end) = end else {
        return Err(Md3Error::InvalidField {
            field: "ofsEnd".into(),
            value: h.ofs_end.into(),
            expected: "108 (the header's size) or more",
        });
    };
    if end > length as u64 {
        return Err(Md3Error::Truncated {
            needed: end,
            length,
        });
    }
    Ok(end)
}

/// A byte position as the offsets' arithmetic takes it (an offset past
/// `i64::MAX` is out of bounds anyway).
fn signed(at: u64) -> i64 {
    i64::try_from(at).unwrap_or(i64::MAX)
}

/// A surface's header and where its tables lie, found before any is read.
struct SurfacePlace {
    start: u64,
    header: Md3SurfaceHeader,
    shaders: (u64, usize),
    triangles: (u64, usize),
    /// The texture coordinates' place; the vertices per frame.
    st: (u64, usize),
    /// The vertices' place; the vertices over all frames.
    xyz: (u64, usize),
}

/// Where every part lies: each checked against its bounds and recorded in
/// the regions, before any is read.
struct Places {
    frames: u64,
    tags: u64,
    surfaces: Vec<SurfacePlace>,
}

impl Places {
    fn find(
        bytes: &[u8],
        header: &Md3Header,
        counts: &Counts,
        end: u64,
        regions: &mut Regions,
    ) -> Result<Places, Md3Error> {
        let model = (HEADER_SIZE as u64, end);
        // Each product is far below u64::MAX: the counts are within the
        // limits.
        let frames = counts.frames as u64;
        regions.place(Md3Part::Header, 0, HEADER_SIZE as u64, (0, end))?;
        let frames_at = regions.place(
            Md3Part::Frames,
            header.ofs_frames.into(),
            FRAME_SIZE * frames,
            model,
        )?;
        let tags_at = regions.place(
            Md3Part::Tags,
            header.ofs_tags.into(),
            TAG_SIZE * frames * counts.tags as u64,
            model,
        )?;
        if counts.surfaces == 0 {
            Regions::within(Md3Part::Surface(0), header.ofs_surfaces.into(), 0, model)?;
        }
        let mut surfaces = Vec::new();
        let mut next = i64::from(header.ofs_surfaces);
        for s in 0..counts.surfaces {
            let at = regions.place(Md3Part::Surface(s), next, SURFACE_HEADER_SIZE, model)?;
            let place = place_surface(bytes, s, at, header, model, regions)?;
            // The surface lies within the model, so this is its end.
            next = signed(at) + i64::from(place.header.ofs_end);
            surfaces.push(place);
        }
        Ok(Places {
            frames: frames_at,
            tags: tags_at,
            surfaces,
        })
    }
}

/// Surface `s` at `at`: its header read and checked, the surface within
/// the model, and its four tables placed inside it.
fn place_surface(
    bytes: &[u8],
    s: usize,
    at: u64,
    model: &Md3Header,
    bounds: (u64, u64),
    regions: &mut Regions,
) -> Result<SurfacePlace, Md3Error> {
    let mut f = Fields::at(bytes, at);
    let header = Md3SurfaceHeader {
        ident: f.array(),
        name_bytes: f.array(),
        flags: f.i32(),
        num_frames: f.i32(),
        num_shaders: f.i32(),
        num_verts: f.i32(),
        num_triangles: f.i32(),
        ofs_triangles: f.i32(),
        ofs_shaders: f.i32(),
        ofs_st: f.i32(),
        ofs_xyz_normals: f.i32(),
        ofs_end: f.i32(),
    };
    if header.ident != Md3Header::IDENT {
        return Err(Md3Error::BadSurfaceIdent {
            surface: s,
            found: header.ident,
            offset: at,
        });
    }
    if header.num_frames != model.num_frames {
        return Err(Md3Error::FrameCountMismatch {
            surface: s,
            found: header.num_frames,
            expected: model.num_frames,
        });
    }
    let surface = Some(s);
    let checked = |value, field, limit| count(field, surface, value, 0, limit);
    let shaders = checked(
        header.num_shaders,
        "numShaders",
        (MAX_SHADERS, "MD3_MAX_SHADERS"),
    )?;
    let verts = checked(header.num_verts, "numVerts", (MAX_VERTS, "MD3_MAX_VERTS"))?;
    let triangles = checked(
        header.num_triangles,
        "numTriangles",
        (MAX_TRIANGLES, "MD3_MAX_TRIANGLES"),
    )?;
    let size = u64::try_from(header.ofs_end)
        .ok()
        .filter(|&size| size >= SURFACE_HEADER_SIZE);
    let Some(size) = size else {
        return Err(Md3Error::InvalidField {
            field: field_name("ofsEnd", surface),
            value: header.ofs_end.into(),
            expected: "108 (a surface header's size) or more",
        });
    };
    Regions::within(Md3Part::Surface(s), signed(at), size, bounds)?;
    // The tables lie after the surface's header and before its end; their
    // offsets count from its start.
    let inside = (at + SURFACE_HEADER_SIZE, at + size);
    let mut table = |part, ofs: i32, record: u64, n: usize| {
        regions
            .place(part, signed(at) + i64::from(ofs), record * n as u64, inside)
            .map(|place| (place, n))
    };
    let xyz = verts * usize::try_from(model.num_frames).unwrap_or(0);
    Ok(SurfacePlace {
        start: at,
        shaders: table(
            Md3Part::Shaders(s),
            header.ofs_shaders,
            SHADER_SIZE,
            shaders,
        )?,
        triangles: table(
            Md3Part::Triangles(s),
            header.ofs_triangles,
            TRIANGLE_SIZE,
            triangles,
        )?,
        st: table(Md3Part::TexCoords(s), header.ofs_st, ST_SIZE, verts)?,
        xyz: table(
            Md3Part::Vertices(s),
            header.ofs_xyz_normals,
            XYZ_NORMAL_SIZE,
            xyz,
        )?,
        header,
    })
}

/// Refuses a record holding a NaN or an infinity.
fn finite<'v>(
    part: Md3Part,
    index: usize,
    offset: u64,
    values: impl IntoIterator<Item = &'v f32>,
) -> Result<(), Md3Error> {
    if values.into_iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Md3Error::NonFinite {
            part,
            index,
            offset,
        })
    }
}

/// Refuses a name the game reads that has no NUL within its field.
fn terminated(name: Md3Name, field: &[u8], offset: u64) -> Result<(), Md3Error> {
    if field.contains(&0) {
        Ok(())
    } else {
        Err(Md3Error::UnterminatedName { name, offset })
    }
}

/// `count` records of `size` bytes from `at` (a place already checked),
/// each read and checked by `read`, which is given the cursor, the
/// record's index and its offset.
fn records<T>(
    bytes: &[u8],
    (at, count): (u64, usize),
    size: u64,
    mut read: impl FnMut(&mut Fields<'_>, usize, u64) -> Result<T, Md3Error>,
) -> Result<Vec<T>, Md3Error> {
    let mut f = Fields::at(bytes, at);
    (0..count)
        .map(|i| read(&mut f, i, at + size * i as u64))
        .collect()
}

fn read_frames(bytes: &[u8], place: (u64, usize)) -> Result<Vec<Md3Frame>, Md3Error> {
    records(bytes, place, FRAME_SIZE, |f, i, offset| {
        let frame = Md3Frame {
            min: f.vec3(),
            max: f.vec3(),
            local_origin: f.vec3(),
            radius: f.f32(),
            name_bytes: f.array(),
        };
        let corners = frame.min.iter().chain(&frame.max);
        let values = corners.chain(&frame.local_origin).chain([&frame.radius]);
        finite(Md3Part::Frames, i, offset, values)?;
        Ok(frame)
    })
}

fn read_tags(bytes: &[u8], place: (u64, usize)) -> Result<Vec<Md3Tag>, Md3Error> {
    records(bytes, place, TAG_SIZE, |f, i, offset| {
        let tag = Md3Tag {
            name_bytes: f.array(),
            origin: f.vec3(),
            axis: [f.vec3(), f.vec3(), f.vec3()],
        };
        terminated(Md3Name::Tag(i), &tag.name_bytes, offset)?;
        let values = tag.origin.iter().chain(tag.axis.as_flattened());
        finite(Md3Part::Tags, i, offset, values)?;
        Ok(tag)
    })
}

fn read_surface(bytes: &[u8], s: usize, place: &SurfacePlace) -> Result<Md3Surface, Md3Error> {
    // The name's field follows the 4-byte ident.
    let name_at = place.start + 4;
    terminated(Md3Name::Surface(s), &place.header.name_bytes, name_at)?;
    let shaders = records(bytes, place.shaders, SHADER_SIZE, |f, shader, offset| {
        let name_bytes = f.array();
        terminated(Md3Name::Shader { surface: s, shader }, &name_bytes, offset)?;
        let shader_index = f.i32();
        Ok(Md3Shader {
            name_bytes,
            shader_index,
        })
    })?;
    let verts = place.st.1;
    let triangles = records(bytes, place.triangles, TRIANGLE_SIZE, |f, triangle, at| {
        let corners = [f.i32(), f.i32(), f.i32()];
        let outside =
            |&(_, &index): &(usize, &i32)| usize::try_from(index).ok().is_none_or(|i| i >= verts);
        match corners.iter().enumerate().find(outside) {
            None => Ok(corners),
            Some((corner, &index)) => Err(Md3Error::IndexOutOfRange {
                surface: s,
                triangle,
                corner,
                index,
                count: verts,
                offset: at + 4 * corner as u64,
            }),
        }
    })?;
    let tex_coords = records(bytes, place.st, ST_SIZE, |f, vertex, offset| {
        let st = [f.f32(), f.f32()];
        finite(Md3Part::TexCoords(s), vertex, offset, &st)?;
        Ok(st)
    })?;
    let (at, count) = place.xyz;
    let mut f = Fields::at(bytes, at);
    let vertices = (0..count).map(|_| f.vertex()).collect();
    Ok(Md3Surface {
        header: place.header,
        shaders,
        triangles,
        tex_coords,
        vertices,
    })
}

/// A surface past what Quake III's renderer draws: fewer than 1,000
/// vertices, fewer than 6,000 indices (three a triangle).
fn beyond_the_renderer(surface: usize, h: &Md3SurfaceHeader) -> Vec<Md3Warning> {
    // (field, count, indices or vertices each, the renderer's limit on them)
    let checks = [
        ("numVerts", i64::from(h.num_verts), 1, RENDERER_MAX_VERTS),
        (
            "numTriangles",
            i64::from(h.num_triangles),
            3,
            RENDERER_MAX_INDEXES,
        ),
    ];
    checks
        .into_iter()
        .filter(|&(_, value, each, max)| value * each >= max)
        .map(
            |(field, value, each, max)| Md3Warning::BeyondRendererLimit {
                surface,
                field,
                value,
                limit: max / each,
            },
        )
        .collect()
}

/// A name field up to its first NUL.
fn until_nul(field: &[u8]) -> &[u8] {
    field.split(|&b| b == 0).next().unwrap_or(field)
}

/// The first tag, after frame 0's, not named as frame 0's tag at its
/// place.
fn tag_names_differ(tags: &[Md3Tag], per_frame: usize) -> Option<Md3Warning> {
    let first = tags.get(..per_frame)?;
    let (i, _) =
        tags.iter().enumerate().skip(per_frame).find(|&(i, t)| {
            until_nul(&t.name_bytes) != until_nul(&first[i % per_frame].name_bytes)
        })?;
    Some(Md3Warning::TagNamesDiffer {
        frame: i / per_frame,
        tag: i % per_frame,
    })
}
