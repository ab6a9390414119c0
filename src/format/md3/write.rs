//! Writing an MD3 file, and building a model in code (which lays its parts
//! out, writes them and reads them back, so a built model passes exactly
//! the loader's checks and writes back to the same bytes).

use super::error::Md3Error;
use super::layout::{
    FRAME_SIZE, HEADER_SIZE, SHADER_SIZE, ST_SIZE, SURFACE_HEADER_SIZE, TAG_SIZE, TRIANGLE_SIZE,
    XYZ_NORMAL_SIZE,
};
use super::model::{
    Md3Frame, Md3Header, Md3Model, Md3Shader, Md3Surface, Md3SurfaceHeader, Md3Tag,
};
use super::vertex::Md3Vertex;
use crate::model::fixed_name;

/// Everything needed to build a model in code; see [`Md3Model::from_parts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Md3Parts {
    /// Each frame's name (at most 15 bytes are kept): one or more frames.
    pub frame_names: Vec<String>,
    /// Every frame's tags, frame-major: the same number in each frame
    /// (`frame_names.len() × tags per frame` entries).
    pub tags: Vec<Md3Tag>,
    /// The surfaces.
    pub surfaces: Vec<Md3SurfaceParts>,
    /// The model's name (at most 63 bytes are kept).
    pub name: String,
    /// The header's flags (the game reads none).
    pub flags: i32,
}

/// A surface to build; see [`Md3Model::from_parts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Md3SurfaceParts {
    /// The surface's name (at most 63 bytes are kept), which `.skin` files
    /// name.
    pub name: String,
    /// The surface's flags (the game reads none).
    pub flags: i32,
    /// The shaders (texture paths or script shaders).
    pub shaders: Vec<Md3Shader>,
    /// The triangles, as indices into the vertices.
    pub triangles: Vec<[i32; 3]>,
    /// One texture coordinate (s, t) per vertex.
    pub tex_coords: Vec<[f32; 2]>,
    /// Every frame's vertices, frame-major: `frame_names.len() ×
    /// tex_coords.len()` entries.
    pub vertices: Vec<Md3Vertex>,
}

/// A count as the header stores it. Every count written is below the
/// file's size, which is checked to fit an `i32` first.
fn stored(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Where parts of `sizes` laid end to end from `base` end, as `i32`
/// offsets: each the next part's start, the last the end of them all.
fn end_to_end<const N: usize>(base: u64, sizes: [u64; N]) -> [i32; N] {
    let mut at = base;
    sizes.map(|size| {
        at += size;
        i32::try_from(at).unwrap_or(i32::MAX)
    })
}

impl Md3Model {
    /// Builds a model from its parts, laid out as the shared files are:
    /// the header, the frames, the tags, then each surface (its header,
    /// triangles, shaders, texture coordinates, vertices), with no bytes
    /// between. Each frame's bounds are its vertices' over every surface
    /// (zero where there are none), its local origin zero and its radius
    /// the bounds' farthest corner from it, as q3data made them. The checks
    /// are the loader's (the parts are written and read back), so a built
    /// model is one the loader accepts, with the same warnings.
    pub fn from_parts(parts: Md3Parts) -> Result<Md3Model, Md3Error> {
        let invalid = |reason: String| Err(Md3Error::InvalidParts { reason });
        let frames = parts.frame_names.len();
        if frames == 0 || !parts.tags.len().is_multiple_of(frames) {
            return invalid(format!(
                "{} tags over {frames} frames: at least one frame, the same number of tags in each",
                parts.tags.len()
            ));
        }
        for (s, surface) in parts.surfaces.iter().enumerate() {
            let verts = surface.tex_coords.len();
            if surface.vertices.len() != verts * frames {
                return invalid(format!(
                    "surface {s}: {} vertices are not {verts} texture coordinates' worth for each of {frames} frames",
                    surface.vertices.len()
                ));
            }
        }
        let sizes: Vec<[u64; 4]> = parts.surfaces.iter().map(table_sizes).collect();
        let tags = parts.tags.len() as u64;
        let frames_size = FRAME_SIZE * frames as u64;
        let surfaces_size: u64 =
            sizes.iter().flatten().sum::<u64>() + SURFACE_HEADER_SIZE * parts.surfaces.len() as u64;
        let size = HEADER_SIZE as u64 + frames_size + TAG_SIZE * tags + surfaces_size;
        if size > i32::MAX as u64 {
            return Err(Md3Error::TooLargeToWrite { size });
        }
        let [ofs_tags, ofs_surfaces, ofs_end] = end_to_end(
            HEADER_SIZE as u64,
            [frames_size, TAG_SIZE * tags, surfaces_size],
        );
        let header = Md3Header {
            ident: Md3Header::IDENT,
            version: Md3Header::VERSION,
            name_bytes: fixed_name(&parts.name),
            flags: parts.flags,
            num_frames: stored(frames),
            num_tags: stored(parts.tags.len() / frames),
            num_surfaces: stored(parts.surfaces.len()),
            num_skins: 0,
            ofs_frames: stored(HEADER_SIZE),
            ofs_tags,
            ofs_surfaces,
            ofs_end,
        };
        let frame_headers = parts
            .frame_names
            .iter()
            .enumerate()
            .map(|(f, name)| frame_of(f, name, &parts.surfaces))
            .collect();
        let surfaces = parts
            .surfaces
            .into_iter()
            .zip(&sizes)
            .map(|(surface, &sizes)| built_surface(surface, header.num_frames, sizes))
            .collect();
        let built = Md3Model {
            header,
            frames: frame_headers,
            tags: parts.tags,
            surfaces,
            unread: Vec::new(),
            // Checked to fit an i32 above.
            length: size as usize,
            warnings: Vec::new(),
        };
        Md3Model::from_bytes(&built.to_bytes())
    }

    /// The file's bytes: exactly what was read, for a loaded model (each
    /// part where the file had it, the bytes between and after them
    /// included).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Out {
            bytes: vec![0; self.length],
            at: 0,
        };
        out.header(&self.header);
        out.seek(0, self.header.ofs_frames);
        for frame in &self.frames {
            out.f32s(&frame.min);
            out.f32s(&frame.max);
            out.f32s(&frame.local_origin);
            out.f32s(&[frame.radius]);
            out.put(&frame.name_bytes);
        }
        out.seek(0, self.header.ofs_tags);
        for tag in &self.tags {
            out.put(&tag.name_bytes);
            out.f32s(&tag.origin);
            out.f32s(tag.axis.as_flattened());
        }
        let mut start = usize::try_from(self.header.ofs_surfaces).unwrap_or(0);
        for surface in &self.surfaces {
            out.surface(start, surface);
            start += usize::try_from(surface.header.ofs_end).unwrap_or(0);
        }
        for (offset, bytes) in &self.unread {
            out.seek(*offset, 0);
            out.put(bytes);
        }
        out.bytes
    }
}

/// The sizes of a surface's tables, in the order [`built_surface`] lays
/// them out: triangles, shaders, texture coordinates, vertices.
fn table_sizes(s: &Md3SurfaceParts) -> [u64; 4] {
    [
        TRIANGLE_SIZE * s.triangles.len() as u64,
        SHADER_SIZE * s.shaders.len() as u64,
        ST_SIZE * s.tex_coords.len() as u64,
        XYZ_NORMAL_SIZE * s.vertices.len() as u64,
    ]
}

/// A built surface: its header's offsets laid end to end (`sizes` from
/// [`table_sizes`]).
fn built_surface(s: Md3SurfaceParts, num_frames: i32, sizes: [u64; 4]) -> Md3Surface {
    let [ofs_shaders, ofs_st, ofs_xyz_normals, ofs_end] = end_to_end(SURFACE_HEADER_SIZE, sizes);
    Md3Surface {
        header: Md3SurfaceHeader {
            ident: Md3Header::IDENT,
            name_bytes: fixed_name(&s.name),
            flags: s.flags,
            num_frames,
            num_shaders: stored(s.shaders.len()),
            num_verts: stored(s.tex_coords.len()),
            num_triangles: stored(s.triangles.len()),
            ofs_triangles: stored(Md3SurfaceHeader::SIZE),
            ofs_shaders,
            ofs_st,
            ofs_xyz_normals,
            ofs_end,
        },
        shaders: s.shaders,
        triangles: s.triangles,
        tex_coords: s.tex_coords,
        vertices: s.vertices,
    }
}

/// Frame `f`'s header: its vertices' bounds over every surface, the local
/// origin zero, the radius the bounds' farthest corner (q3data's
/// `RadiusFromBounds`).
fn frame_of(f: usize, name: &str, surfaces: &[Md3SurfaceParts]) -> Md3Frame {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for s in surfaces {
        let verts = s.tex_coords.len();
        for v in s.vertices.iter().skip(f * verts).take(verts) {
            let p = v.position();
            min = std::array::from_fn(|k| min[k].min(p[k]));
            max = std::array::from_fn(|k| max[k].max(p[k]));
        }
    }
    if min[0] > max[0] {
        (min, max) = ([0.0; 3], [0.0; 3]);
    }
    let corner: [f32; 3] = std::array::from_fn(|k| min[k].abs().max(max[k].abs()));
    Md3Frame {
        min,
        max,
        local_origin: [0.0; 3],
        radius: corner.iter().map(|c| c * c).sum::<f32>().sqrt(),
        name_bytes: fixed_name(name),
    }
}

/// The file being written: a buffer of its length, and where the next
/// bytes go.
struct Out {
    bytes: Vec<u8>,
    at: usize,
}

impl Out {
    /// Moves to `base + offset` (an offset the loader checked, or the
    /// writer laid out: never negative).
    fn seek(&mut self, base: usize, offset: i32) {
        self.at = base + usize::try_from(offset).unwrap_or(0);
    }

    fn put(&mut self, data: &[u8]) {
        let end = self.at + data.len();
        if let Some(to) = self.bytes.get_mut(self.at..end) {
            to.copy_from_slice(data);
        }
        self.at = end;
    }

    fn i32s(&mut self, values: &[i32]) {
        values.iter().for_each(|v| self.put(&v.to_le_bytes()));
    }

    fn f32s(&mut self, values: &[f32]) {
        values.iter().for_each(|v| self.put(&v.to_le_bytes()));
    }

    fn header(&mut self, h: &Md3Header) {
        self.put(&h.ident);
        self.i32s(&[h.version]);
        self.put(&h.name_bytes);
        self.i32s(&[
            h.flags,
            h.num_frames,
            h.num_tags,
            h.num_surfaces,
            h.num_skins,
            h.ofs_frames,
            h.ofs_tags,
            h.ofs_surfaces,
            h.ofs_end,
        ]);
    }

    /// A surface starting at `start`: its header, then each table where the
    /// header's offsets put it.
    fn surface(&mut self, start: usize, s: &Md3Surface) {
        let h = &s.header;
        self.seek(start, 0);
        self.put(&h.ident);
        self.put(&h.name_bytes);
        self.i32s(&[
            h.flags,
            h.num_frames,
            h.num_shaders,
            h.num_verts,
            h.num_triangles,
            h.ofs_triangles,
            h.ofs_shaders,
            h.ofs_st,
            h.ofs_xyz_normals,
            h.ofs_end,
        ]);
        self.seek(start, h.ofs_shaders);
        for shader in &s.shaders {
            self.put(&shader.name_bytes);
            self.i32s(&[shader.shader_index]);
        }
        self.seek(start, h.ofs_triangles);
        s.triangles.iter().for_each(|t| self.i32s(t));
        self.seek(start, h.ofs_st);
        s.tex_coords.iter().for_each(|st| self.f32s(st));
        self.seek(start, h.ofs_xyz_normals);
        for v in &s.vertices {
            v.xyz.iter().for_each(|c| self.put(&c.to_le_bytes()));
            self.put(&v.normal.to_le_bytes());
        }
    }
}
