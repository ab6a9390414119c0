//! A second MDL decoder, written from the format's description alone and
//! sharing nothing with the crate's: what a model's positions, texture
//! coordinates and frame names must be.

/// What the file says, decoded plainly.
pub struct Decoded {
    /// Per pose: its name (up to the first NUL) and every vertex in model
    /// units.
    pub poses: Vec<(String, Vec<[f32; 3]>)>,
    /// Per triangle, per corner: the texture coordinate in [0, 1] (texel
    /// centres, Quake's seam rule applied).
    pub uvs: Vec<[[f32; 2]; 3]>,
    /// Per triangle: its three vertex indices.
    pub triangles: Vec<[usize; 3]>,
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Decodes a well-formed file (panics on any other: the files it is given
/// loaded in the crate already).
pub fn decode(b: &[u8]) -> Decoded {
    let scale = [f32_at(b, 8), f32_at(b, 12), f32_at(b, 16)];
    let origin = [f32_at(b, 20), f32_at(b, 24), f32_at(b, 28)];
    let (skins, w, h) = (i32_at(b, 48), i32_at(b, 52), i32_at(b, 56));
    let (verts, tris, frames) = (i32_at(b, 60) as usize, i32_at(b, 64), i32_at(b, 68));
    let image = (w * h) as usize;
    let mut at = 84;
    for _ in 0..skins {
        let group = i32_at(b, at);
        at += 4;
        if group == 0 {
            at += image;
        } else {
            let n = i32_at(b, at) as usize;
            at += 4 + 4 * n + n * image;
        }
    }
    let st: Vec<(i32, i32, i32)> = (0..verts)
        .map(|i| {
            let p = at + 12 * i;
            (i32_at(b, p), i32_at(b, p + 4), i32_at(b, p + 8))
        })
        .collect();
    at += 12 * verts;
    let mut uvs = Vec::new();
    let mut triangles = Vec::new();
    for t in 0..tris as usize {
        let p = at + 16 * t;
        let front = i32_at(b, p) != 0;
        let v = [1, 2, 3].map(|k| i32_at(b, p + 4 * k) as usize);
        triangles.push(v);
        uvs.push(v.map(|i| {
            let (seam, s, t) = st[i];
            let s = if !front && seam != 0 { s + w / 2 } else { s };
            [
                ((f64::from(s) + 0.5) / f64::from(w)) as f32,
                ((f64::from(t) + 0.5) / f64::from(h)) as f32,
            ]
        }));
    }
    at += 16 * tris as usize;
    let mut poses = Vec::new();
    let mut pose = |at: &mut usize| {
        let name = &b[*at + 8..*at + 24];
        let name =
            String::from_utf8_lossy(&name[..name.iter().position(|&c| c == 0).unwrap_or(16)])
                .into_owned();
        *at += 24;
        let vertices = (0..verts)
            .map(|i| {
                let q = *at + 4 * i;
                [0, 1, 2].map(|k| f32::from(b[q + k]) * scale[k] + origin[k])
            })
            .collect();
        *at += 4 * verts;
        poses.push((name, vertices));
    };
    for _ in 0..frames {
        let kind = i32_at(b, at);
        at += 4;
        if kind == 0 {
            pose(&mut at);
        } else {
            let n = i32_at(b, at) as usize;
            at += 4 + 8 + 4 * n;
            for _ in 0..n {
                pose(&mut at);
            }
        }
    }
    Decoded {
        poses,
        uvs,
        triangles,
    }
}

/// Holds `model` to the independent decoding of `bytes`: every pose's
/// name and positions (exactly: both compute `v · scale + translate` in
/// f32), every triangle's vertices and texture coordinates, in order.
pub fn agrees(bytes: &[u8], model: &md2_wgpu::format::mdl::MdlModel) {
    let d = decode(bytes);
    assert_eq!(d.poses.len() as u32, model.frame_count());
    for (f, (name, positions)) in d.poses.iter().enumerate() {
        assert_eq!(&model.frames()[f].name(), name, "pose {f}'s name");
        let frame = &model.frames()[f];
        for (i, v) in model.frame_data(f as u32).packed().iter().enumerate() {
            assert_eq!(
                v.decode_position(frame),
                positions[i],
                "pose {f}, vertex {i}"
            );
        }
    }
    assert_eq!(d.triangles.len(), model.triangle_count());
    let corners = model.corners();
    for (t, tri) in model.indices().chunks_exact(3).enumerate() {
        for k in 0..3 {
            let corner = corners[tri[k] as usize];
            assert_eq!(
                corner.xyz as usize, d.triangles[t][k],
                "triangle {t}, corner {k}"
            );
            assert_eq!(corner.uv, d.uvs[t][k], "triangle {t}, corner {k}'s texel");
        }
    }
}
