//! A model at Quake II's limits, built in code: the largest a player of the
//! game could bring, for the benchmarks and the tests that bound what a
//! model costs (levels of detail, export, upload).

use crate::format::{Md2Model, Md2Parts, TexCoord, Triangle};
use crate::model::{Frame, PackedVertex, nearest_normal_index};

/// Rings around the torus's tube, and segments around its ring.
const RINGS: usize = 32;
const SEGMENTS: usize = 64;

/// A smoothly animated torus at Quake II's limits: 2,048 vertices (32 × 64),
/// 4,096 triangles (the surface closed both ways, with texture seams where
/// it wraps), 512 frames of a wave travelling round it, every frame
/// quantised into its own box as the game's tools wrote them.
pub fn limits_model() -> Md2Model {
    limits_model_with(512)
}

/// [`limits_model`] with `frames` frames (at least 1).
pub fn limits_model_with(frames: usize) -> Md2Model {
    let frames = frames.max(1);
    let (major, minor) = (40.0f32, 12.0f32);
    let tau = std::f32::consts::TAU;
    let position = |ring: usize, segment: usize, frame: usize| -> [f32; 3] {
        let u = segment as f32 / SEGMENTS as f32 * tau;
        let v = ring as f32 / RINGS as f32 * tau;
        let phase = frame as f32 / frames as f32 * tau;
        // A wave that runs round the ring and breathes along the tube.
        let r = minor * (1.0 + 0.25 * (3.0 * u - phase).sin() * (0.5 + 0.5 * (v + phase).cos()));
        let centre = major + 4.0 * (2.0 * u + phase).sin();
        [
            (centre + r * v.cos()) * u.cos(),
            (centre + r * v.cos()) * u.sin(),
            r * v.sin() + 6.0 * (u + 2.0 * phase).sin(),
        ]
    };
    let id = |ring: usize, segment: usize| (ring % RINGS) * SEGMENTS + segment % SEGMENTS;
    // Texels on a (RINGS + 1) × (SEGMENTS + 1) grid: the last row and column
    // repeat the first's positions with their own texels (the seams).
    let st_id = |ring: usize, segment: usize| ring * (SEGMENTS + 1) + segment;
    let (width, height) = (256u32, 128u32);
    let mut tex_coords = Vec::new();
    for ring in 0..=RINGS {
        for segment in 0..=SEGMENTS {
            tex_coords.push(TexCoord {
                s: (segment * (width as usize - 1) / SEGMENTS) as i16,
                t: (ring * (height as usize - 1) / RINGS) as i16,
            });
        }
    }
    let mut triangles = Vec::new();
    for ring in 0..RINGS {
        for segment in 0..SEGMENTS {
            let corners = [
                (ring, segment),
                (ring + 1, segment),
                (ring + 1, segment + 1),
                (ring, segment + 1),
            ];
            let xyz = corners.map(|(r, s)| id(r, s) as u16);
            let st = corners.map(|(r, s)| st_id(r, s) as u16);
            // Clockwise seen from outside, as real files wind them.
            for [a, b, c] in [[0, 2, 1], [0, 3, 2]] {
                triangles.push(Triangle {
                    xyz: [xyz[a], xyz[b], xyz[c]],
                    st: [st[a], st[b], st[c]],
                });
            }
        }
    }
    let mut frame_headers = Vec::with_capacity(frames);
    let mut vertices = Vec::with_capacity(frames * RINGS * SEGMENTS);
    for frame in 0..frames {
        let points: Vec<[f32; 3]> = (0..RINGS)
            .flat_map(|ring| (0..SEGMENTS).map(move |segment| (ring, segment)))
            .map(|(ring, segment)| position(ring, segment, frame))
            .collect();
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &points {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let scale: [f32; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / 255.0).max(1e-3));
        frame_headers.push(Frame::new(&format!("wave{frame:03}"), scale, lo));
        for (i, p) in points.iter().enumerate() {
            let (ring, segment) = (i / SEGMENTS, i % SEGMENTS);
            // The outward normal: the central difference across the surface.
            let du = sub(
                position(ring, segment + 1, frame),
                position(ring, segment + SEGMENTS - 1, frame),
            );
            let dv = sub(
                position(ring + 1, segment, frame),
                position(ring + RINGS - 1, segment, frame),
            );
            let n = cross(dv, du);
            vertices.push(PackedVertex {
                position: std::array::from_fn(|k| {
                    ((p[k] - lo[k]) / scale[k]).round().clamp(0.0, 255.0) as u8
                }),
                normal_index: nearest_normal_index(n),
            });
        }
    }
    Md2Model::from_parts(Md2Parts {
        skin_size: (width, height),
        skins: Vec::new(),
        tex_coords,
        triangles,
        frames: frame_headers,
        vertices,
    })
    .expect("a model within Quake II's limits builds")
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
