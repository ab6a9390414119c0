//! Models built in code: faces, cubes, squares, animated meshes of
//! awkward shapes; and cameras that look at them.

use image::RgbaImage;
use md2_wgpu::model::{Animation, Bounds, KeyframeModel, KeyframeParts};
use md2_wgpu::{
    Camera, Md2Model,
    format::{Md2Parts, SkinName, TexCoord, Triangle},
    model::{Corner, Frame, PackedVertex, nearest_normal_index},
};
/// One triangle of a built model: three positions in Quake axes and their
/// texels.
pub struct Face {
    pub corners: [[f32; 3]; 3],
    pub texels: [(i16, i16); 3],
}

/// A one-frame model of separate triangles (no shared vertices), each wound
/// as real MD2 files are, clockwise seen from the side `outward` points to,
/// with every vertex normal `outward`. Positions are quantised to the
/// frame's 8-bit grid over their bounds.
pub fn model_from_faces(faces: &[(Face, [f32; 3])], skin_size: (u32, u32)) -> Md2Model {
    let Bounds { min: lo, max: hi } = Bounds::around(faces.iter().flat_map(|(f, _)| &f.corners));
    let scale: [f32; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / 255.0).max(1e-6));
    let mut vertices = Vec::new();
    let mut tex_coords = Vec::new();
    let mut triangles = Vec::new();
    for (face, outward) in faces {
        let [a, mut b, mut c] = face.corners;
        let [ta, mut tb, mut tc] = face.texels;
        let e1 = sub(b, a);
        let e2 = sub(c, a);
        let cross = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        if cross[0] * outward[0] + cross[1] * outward[1] + cross[2] * outward[2] > 0.0 {
            std::mem::swap(&mut b, &mut c);
            std::mem::swap(&mut tb, &mut tc);
        }
        let normal = nearest_normal_index(*outward);
        let base = vertices.len() as u16;
        for (p, (s, t)) in [(a, ta), (b, tb), (c, tc)] {
            vertices.push(PackedVertex {
                position: std::array::from_fn(|k| ((p[k] - lo[k]) / scale[k]).round() as u8),
                normal_index: normal,
            });
            tex_coords.push(TexCoord { s, t });
        }
        triangles.push(Triangle {
            xyz: [base, base + 1, base + 2],
            st: [base, base + 1, base + 2],
        });
    }
    Md2Model::from_parts(Md2Parts {
        skin_size,
        skins: Vec::new(),
        tex_coords,
        triangles,
        frames: vec![Frame::new("still", scale, lo)],
        vertices,
    })
    .expect("built model is valid")
}

/// The two triangles of the quadrilateral with these corners (in order
/// around it) and their texels.
pub fn quad(
    corners: [[f32; 3]; 4],
    texels: [(i16, i16); 4],
    outward: [f32; 3],
) -> [(Face, [f32; 3]); 2] {
    let [p0, p1, p2, p3] = corners;
    let [t0, t1, t2, t3] = texels;
    [
        (
            Face {
                corners: [p0, p1, p2],
                texels: [t0, t1, t2],
            },
            outward,
        ),
        (
            Face {
                corners: [p0, p2, p3],
                texels: [t0, t2, t3],
            },
            outward,
        ),
    ]
}

/// A cube of side 2 around the origin (Quake axes), each face one texel of
/// a 6 × 1 skin: +X (the front) texel 0, −X texel 1, +Y 2, −Y 3, +Z 4,
/// −Z 5.
pub fn cube_model() -> Md2Model {
    let mut faces = Vec::new();
    for axis in 0..3 {
        for (side, sign) in [1.0f32, -1.0].into_iter().enumerate() {
            let u = (axis + 1) % 3;
            let v = (axis + 2) % 3;
            let corner = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                p[axis] = sign;
                p[u] = a;
                p[v] = b;
                p
            };
            let mut outward = [0.0; 3];
            outward[axis] = sign;
            let texel = ((2 * axis + side) as i16, 0);
            faces.extend(quad(
                [
                    corner(-1.0, -1.0),
                    corner(1.0, -1.0),
                    corner(1.0, 1.0),
                    corner(-1.0, 1.0),
                ],
                [texel; 4],
                outward,
            ));
        }
    }
    model_from_faces(&faces, (6, 1))
}

/// Per-face colours of `cube_model`'s 6 × 1 skin: front red, back blue, the
/// rest other colours.
pub fn cube_skin() -> RgbaImage {
    let colours = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 0, 255, 255],
    ];
    RgbaImage::from_fn(6, 1, |x, _| image::Rgba(colours[x as usize]))
}

/// A unit square facing the front (+X in Quake axes, +Z in the Y-up world),
/// from (y, z) = (−0.5, −0.5) to (0.5, 0.5), its corners mapped to texels
/// (0, 0) at the top left as seen from the front, (`s`, `t`) at the bottom
/// right. Seen from the front, Quake +Y (the square's left) is on the
/// viewer's right.
pub fn front_square(s: i16, t: i16, skin_size: (u32, u32)) -> Md2Model {
    let c = |y: f32, z: f32| [0.0, y, z];
    let faces = quad(
        [c(-0.5, 0.5), c(0.5, 0.5), c(0.5, -0.5), c(-0.5, -0.5)],
        [(0, 0), (s, 0), (s, t), (0, t)],
        [1.0, 0.0, 0.0],
    );
    model_from_faces(&faces, skin_size)
}

/// A solid-colour skin.
pub fn solid_skin(width: u32, height: u32, rgba: [u8; 4]) -> RgbaImage {
    RgbaImage::from_pixel(width, height, image::Rgba(rgba))
}

/// An orthographic camera looking down −Z at the rectangle `x0..x1`,
/// `y0..y1` of the Y-up world, with ambient light only (the skin's colours
/// times `ambient`).
pub fn ortho_camera(x0: f32, x1: f32, y0: f32, y1: f32, ambient: f32) -> Camera {
    let proj = glam::camera::rh::proj::directx::orthographic(x0, x1, y0, y1, 0.0, 200.0);
    let view = glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, -100.0));
    Camera {
        light: md2_wgpu::Light::ambient_only(ambient),
        ..Camera::new(proj * view)
    }
}

/// A camera framing `model` in the given frames (three-quarter front view,
/// default light).
pub fn frames_camera(model: &Md2Model, frames: &[u32], aspect: f32) -> Camera {
    Camera::framing_frames(model, frames.iter().copied(), aspect)
}

/// The parts of a loaded model, ready for [`Md2Model::from_parts`]: its
/// glcmds are not among them, so a model built from them gets generated ones.
pub fn parts_of(model: &Md2Model) -> Md2Parts {
    Md2Parts {
        skin_size: model.skin_size(),
        skins: model.skins().to_vec(),
        tex_coords: model.tex_coords().to_vec(),
        triangles: model.triangles().to_vec(),
        frames: model.keyframes().frames().to_vec(),
        vertices: model.keyframes().vertices().to_vec(),
    }
}

/// A mesh in model units, before quantisation: positions per frame,
/// triangles over (position index, texel) corners, counter-clockwise seen
/// from outside (the right-hand rule gives the outward normal).
pub struct Mesh {
    /// Skin size in texels.
    pub skin: (u32, u32),
    /// Texture coordinates in texels.
    pub st: Vec<(i16, i16)>,
    /// Triangles: xyz indices and st indices.
    pub tris: Vec<([u16; 3], [u16; 3])>,
    /// Frames: name and one position per vertex.
    pub frames: Vec<(String, Vec<[f32; 3]>)>,
}

impl Mesh {
    /// The parts of an MD2 file: each frame quantised into its own box,
    /// normals from the faces (each vertex gets the sum of its faces'
    /// right-hand-rule normals), and each triangle written in the files'
    /// winding, which is the reverse of the mesh's: real MD2 triangles are
    /// clockwise seen from outside (see tests/format_real.rs).
    pub fn parts(&self) -> Md2Parts {
        let mut frames = Vec::new();
        let mut vertices = Vec::new();
        for (name, pos) in &self.frames {
            let Bounds { min: lo, max: hi } = Bounds::around(pos);
            let scale: [f32; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / 255.0).max(1e-3));
            frames.push(Frame::new(name, scale, lo));
            let mut normals = vec![[0f32; 3]; pos.len()];
            for (xyz, _) in &self.tris {
                let [a, b, c] = xyz.map(|i| pos[i as usize]);
                let n = cross(sub(b, a), sub(c, a));
                for &i in xyz {
                    for k in 0..3 {
                        normals[i as usize][k] += n[k];
                    }
                }
            }
            for (p, n) in pos.iter().zip(&normals) {
                let q: [u8; 3] = std::array::from_fn(|k| {
                    ((p[k] - lo[k]) / scale[k]).round().clamp(0.0, 255.0) as u8
                });
                vertices.push(PackedVertex {
                    position: q,
                    normal_index: nearest_normal_index(*n),
                });
            }
        }
        Md2Parts {
            skin_size: self.skin,
            skins: vec![SkinName::new("models/test/skin.pcx")],
            tex_coords: self.st.iter().map(|&(s, t)| TexCoord { s, t }).collect(),
            triangles: self
                .tris
                .iter()
                .map(|&(x, s)| Triangle {
                    xyz: [x[0], x[2], x[1]],
                    st: [s[0], s[2], s[1]],
                })
                .collect(),
            frames,
            vertices,
        }
    }

    /// The model built from [`Mesh::parts`].
    pub fn model(&self) -> Md2Model {
        Md2Model::from_parts(self.parts()).expect("a generated mesh is valid")
    }

    /// The mesh as a model made through the model seam alone, as another
    /// keyframe format would make one: no MD2 file or parts. Its frames
    /// quantised as [`Mesh::parts`] quantises them, its (vertex, texel)
    /// pairs welded into corners whose texture coordinate is the texel's
    /// corner over the skin (not MD2's texel centre), its triangles in
    /// Quake's winding, and `animations` as given (`None`: by frame name).
    pub fn keyframes(&self, animations: Option<Vec<Animation>>) -> KeyframeModel {
        let parts = self.parts();
        let (w, h) = (self.skin.0 as f32, self.skin.1 as f32);
        let mut corners: Vec<Corner> = Vec::new();
        let mut indices = Vec::new();
        for tri in &parts.triangles {
            for k in 0..3 {
                let st = parts.tex_coords[usize::from(tri.st[k])];
                let corner = Corner {
                    xyz: u32::from(tri.xyz[k]),
                    uv: [f32::from(st.s) / w, f32::from(st.t) / h],
                };
                let index = match corners.iter().position(|c| *c == corner) {
                    Some(i) => i,
                    None => {
                        corners.push(corner);
                        corners.len() - 1
                    }
                };
                indices.push(index as u32);
            }
        }
        KeyframeModel::from_parts(KeyframeParts {
            frames: parts.frames,
            vertices: parts.vertices,
            corners,
            indices,
            skin_size: self.skin,
            animations,
            ..KeyframeParts::default()
        })
        .expect("a generated mesh is valid")
    }
}

pub fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A mesh of `count` frames named `stem01..`, each the positions `base`
/// moved by a wobble.
fn animated(
    skin: (u32, u32),
    st: Vec<(i16, i16)>,
    tris: Vec<([u16; 3], [u16; 3])>,
    stem: &str,
    count: usize,
    base: &[[f32; 3]],
) -> Mesh {
    let frames = (0..count)
        .map(|f| {
            let a = f as f32 * 0.7;
            let pos = base
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let w = (a + i as f32 * 0.3).sin();
                    [p[0] + w, p[1] - 0.5 * w, p[2] + 0.25 * w]
                })
                .collect();
            (format!("{stem}{:02}", f + 1), pos)
        })
        .collect();
    Mesh {
        skin,
        st,
        tris,
        frames,
    }
}

/// A strip-shaped ribbon: `n` quads in a row, two triangles each, every
/// corner's texel unique to its vertex.
pub fn ribbon(n: usize, frames: usize) -> Mesh {
    let mut pos = Vec::new();
    let mut st = Vec::new();
    for i in 0..=n {
        for j in 0..2 {
            pos.push([i as f32, 0.0, j as f32 * 4.0]);
            st.push((i as i16, j as i16 * 50));
        }
    }
    let mut tris = Vec::new();
    for i in 0..n {
        let (a, b, c, d) = (2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 3);
        let v = |x: usize| x as u16;
        tris.push(([v(a), v(c), v(b)], [v(a), v(c), v(b)]));
        tris.push(([v(b), v(c), v(d)], [v(b), v(c), v(d)]));
    }
    animated((256, 64), st, tris, "ribbon", frames, &pos)
}

/// A fan-shaped disc: a centre and `n` rim vertices, closed.
pub fn disc(n: usize, frames: usize) -> Mesh {
    let mut pos = vec![[0.0, 0.0, 0.0]];
    let mut st = vec![(32i16, 32i16)];
    for i in 0..n {
        let a = i as f32 / n as f32 * std::f32::consts::TAU;
        pos.push([10.0 * a.cos(), 10.0 * a.sin(), 0.0]);
        st.push((i as i16 + 1, 40));
    }
    let tris = (0..n)
        .map(|i| {
            let a = 1 + i as u16;
            let b = 1 + ((i + 1) % n) as u16;
            ([0, a, b], [0, a, b])
        })
        .collect();
    animated((128, 64), st, tris, "disc", frames, &pos)
}

/// `n` triangles that share nothing.
pub fn disconnected(n: usize, frames: usize) -> Mesh {
    let mut pos = Vec::new();
    let mut st = Vec::new();
    let mut tris = Vec::new();
    for i in 0..n {
        let x = i as f32 * 3.0;
        pos.extend([[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 1.0, 0.0]]);
        for k in 0..3 {
            st.push(((3 * i + k) as i16, 7));
        }
        let b = 3 * i as u16;
        tris.push(([b, b + 1, b + 2], [b, b + 1, b + 2]));
    }
    animated((64, 64), st, tris, "bits", frames, &pos)
}

/// A closed box whose faces each have their own texels: every vertex is
/// shared by three faces with three different texture coordinates (seams
/// everywhere). Counter-clockwise seen from outside.
pub fn seamed_box(frames: usize) -> Mesh {
    let pos: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 != 0 { 8.0 } else { -8.0 },
                if i & 2 != 0 { 8.0 } else { -8.0 },
                if i & 4 != 0 { 8.0 } else { -8.0 },
            ]
        })
        .collect();
    // Each face as four corners counter-clockwise from outside.
    let faces: [[u16; 4]; 6] = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    let mut st = Vec::new();
    let mut tris = Vec::new();
    for (f, q) in faces.iter().enumerate() {
        let base = st.len() as u16;
        let x = f as i16 * 10;
        st.extend([(x, 0), (x + 8, 0), (x + 8, 8), (x, 8)]);
        tris.push(([q[0], q[1], q[2]], [base, base + 1, base + 2]));
        tris.push(([q[0], q[2], q[3]], [base, base + 2, base + 3]));
    }
    animated((64, 16), st, tris, "box", frames, &pos)
}

/// A closed UV sphere, counter-clockwise seen from outside, with a seam
/// column where the texture wraps: `rings` × `segments`.
pub fn sphere(rings: usize, segments: usize, frames: usize) -> Mesh {
    let mut pos = Vec::new();
    let mut st = Vec::new();
    for r in 0..=rings {
        let phi = r as f32 / rings as f32 * std::f32::consts::PI;
        for s in 0..=segments {
            let theta = (s % segments) as f32 / segments as f32 * std::f32::consts::TAU;
            // The seam's xyz is shared; its texel is not.
            if s < segments {
                pos.push([
                    20.0 * phi.sin() * theta.cos(),
                    20.0 * phi.sin() * theta.sin(),
                    20.0 * phi.cos(),
                ]);
            }
            st.push((s as i16 * 4, r as i16 * 4));
        }
    }
    let xyz = |r: usize, s: usize| (r * segments + s % segments) as u16;
    let tc = |r: usize, s: usize| (r * (segments + 1) + s) as u16;
    let mut tris = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            // Outward and counter-clockwise: (r, s), (r+1, s), (r+1, s+1).
            if r > 0 {
                tris.push((
                    [xyz(r, s), xyz(r + 1, s), xyz(r, s + 1)],
                    [tc(r, s), tc(r + 1, s), tc(r, s + 1)],
                ));
            }
            if r + 1 < rings {
                tris.push((
                    [xyz(r, s + 1), xyz(r + 1, s), xyz(r + 1, s + 1)],
                    [tc(r, s + 1), tc(r + 1, s), tc(r + 1, s + 1)],
                ));
            }
        }
    }
    animated((128, 64), st, tris, "stand", frames, &pos)
}

/// One triangle, one frame.
pub fn single() -> Mesh {
    Mesh {
        skin: (16, 16),
        st: vec![(0, 0), (15, 0), (0, 15)],
        tris: vec![([0, 1, 2], [0, 1, 2])],
        frames: vec![(
            "boom".into(),
            vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        )],
    }
}

/// A ribbon whose triangles each appear twice, and some a third time
/// reversed: a strip or fan must never take a triangle twice.
pub fn duplicated(frames: usize) -> Mesh {
    let mut m = ribbon(6, frames);
    let copies = m.tris.clone();
    m.tris.extend(copies.iter().copied());
    for &(x, s) in copies.iter().step_by(3) {
        m.tris.push(([x[0], x[2], x[1]], [s[0], s[2], s[1]]));
    }
    m
}
