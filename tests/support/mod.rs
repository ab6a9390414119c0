//! Shared by the format tests: the real files in ../shared/md2, generated
//! models with awkward shapes, and an independent check that GL commands draw
//! exactly a model's triangles.

#![allow(dead_code)] // each test crate uses its own part of this module

use std::path::{Path, PathBuf};

use md2_wgpu::{
    Frame, GlCmd, Md2Model, Md2Parts, PackedVertex, SkinName, TexCoord, Triangle,
    nearest_normal_index,
};

/// `../shared/md2` beside the crate, or `None` with the reason printed.
pub fn shared_md2_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping the real-file checks: {} is absent (a fresh clone has no ../shared)",
            dir.display()
        );
        None
    }
}

/// Every `*.md2` (any case) under `../shared/md2`, as (path relative to that
/// folder with `/` separators, bytes), sorted by path. Empty where absent.
pub fn real_files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = shared_md2_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read ../shared/md2") {
            let path = entry.expect("read a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md2"))
            {
                let rel = path.strip_prefix(&dir).unwrap();
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, std::fs::read(&path).expect("read an MD2 file")));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The parts of a loaded model, ready for [`Md2Model::from_parts`]: its
/// glcmds are not among them, so a model built from them gets generated ones.
pub fn parts_of(model: &Md2Model) -> Md2Parts {
    Md2Parts {
        skin_size: model.skin_size(),
        skins: model.skins().to_vec(),
        tex_coords: model.tex_coords().to_vec(),
        triangles: model.triangles().to_vec(),
        frames: model.frames().to_vec(),
        vertices: model.vertices().to_vec(),
    }
}

/// How exactly a GL vertex's `s, t` must be `(texel + 0.5) / side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Bit for bit, as this crate computes it.
    Exact,
    /// Within an ulp or so, as real files have it.
    Ulp,
}

/// A triangle corner by value: vertex index and texel coordinate.
pub type Corner = (u32, i16, i16);

/// The rotation of a triangle that starts at its smallest corner: equal for
/// two triangles exactly when they have the same corners in the same cyclic
/// order (the same winding).
pub fn rotation_normalised(t: [Corner; 3]) -> [Corner; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap();
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// The model's triangles as rotation-normalised corners, sorted (a multiset).
pub fn model_triangles(model: &Md2Model) -> Vec<[Corner; 3]> {
    let st = model.tex_coords();
    let mut out: Vec<_> = model
        .triangles()
        .iter()
        .map(|tri| {
            rotation_normalised(std::array::from_fn(|k| {
                let c = st[tri.st[k] as usize];
                (tri.xyz[k] as u32, c.s, c.t)
            }))
        })
        .collect();
    out.sort();
    out
}

/// The triangles some GL commands draw, decoded with [`GlCmd::triangles`]
/// and mapped back to texels: a GL vertex's `s` must be
/// `(texel + 0.5) / skinwidth` for an integer texel (likewise `t`), within
/// `tolerance`, else this says which command is off. Rotation-normalised and
/// sorted.
pub fn glcmd_triangles(
    model: &Md2Model,
    cmds: &[GlCmd],
    tolerance: Tolerance,
) -> Result<Vec<[Corner; 3]>, String> {
    let (w, h) = model.skin_size();
    let texel = |x: f32, side: u32, what: &str, cmd: usize| -> Result<i16, String> {
        let guess = (x * side as f32 - 0.5).round();
        if !(i16::MIN as f32..=i16::MAX as f32).contains(&guess) {
            return Err(format!("command {cmd}: {what} {x} is no texel of {side}"));
        }
        let texel = guess as i16;
        let exact = (texel as f32 + 0.5) / side as f32 == x;
        // Quake II's tools divided in double precision and then rounded to
        // float, which can land one ulp away from a float division.
        let near = ((x as f64 * side as f64 - 0.5) - texel as f64).abs() < 1e-4;
        if !(exact || (tolerance == Tolerance::Ulp && near)) {
            return Err(format!(
                "command {cmd}: {what} {x} is not half a texel past texel {texel} of {side}"
            ));
        }
        Ok(texel)
    };
    let mut out = Vec::new();
    for (i, cmd) in cmds.iter().enumerate() {
        if cmd.vertices.len() < 3 {
            return Err(format!("command {i} has {} vertices", cmd.vertices.len()));
        }
        for tri in cmd.triangles() {
            let mut corners = [(0u32, 0i16, 0i16); 3];
            for (k, v) in tri.iter().enumerate() {
                corners[k] = (v.xyz, texel(v.s, w, "s", i)?, texel(v.t, h, "t", i)?);
            }
            out.push(rotation_normalised(corners));
        }
    }
    out.sort();
    Ok(out)
}

/// Asserts that `cmds` draw each of the model's triangles exactly once, with
/// the same winding, and nothing else.
pub fn assert_glcmds_cover(model: &Md2Model, cmds: &[GlCmd], tolerance: Tolerance, what: &str) {
    let want = model_triangles(model);
    let got = glcmd_triangles(model, cmds, tolerance).unwrap_or_else(|e| panic!("{what}: {e}"));
    if got != want {
        let missing: Vec<_> = want.iter().filter(|t| !got.contains(t)).take(5).collect();
        let extra: Vec<_> = got.iter().filter(|t| !want.contains(t)).take(5).collect();
        panic!(
            "{what}: glcmds draw {} triangles, the model has {}; missing (first 5) {missing:?}, \
             extra (first 5) {extra:?}",
            got.len(),
            want.len()
        );
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
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for p in pos {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
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

/// `count` frames named `stem01..`, each the positions moved by `wobble`.
fn animate(stem: &str, count: usize, base: &[[f32; 3]]) -> Vec<(String, Vec<[f32; 3]>)> {
    (0..count)
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
        .collect()
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
    Mesh {
        skin: (256, 64),
        st,
        tris,
        frames: animate("ribbon", frames, &pos),
    }
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
    Mesh {
        skin: (128, 64),
        st,
        tris,
        frames: animate("disc", frames, &pos),
    }
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
    Mesh {
        skin: (64, 64),
        st,
        tris,
        frames: animate("bits", frames, &pos),
    }
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
    Mesh {
        skin: (64, 16),
        st,
        tris,
        frames: animate("box", frames, &pos),
    }
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
    Mesh {
        skin: (128, 64),
        st,
        tris,
        frames: animate("stand", frames, &pos),
    }
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
