//! The demo character's body: a skeleton of 15 bones and one closed,
//! capsule-like part per bone, each a stack of elliptical rings between two
//! poles, textured from its own rectangle of the skin.

use super::math::{Quat, Rigid, V3, add, cross, dot, mul, sub};

/// The bones, in the order [`BONES`] lists them; a child comes after its
/// parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bone {
    Pelvis,
    Spine,
    Head,
    UpperArmL,
    ForearmL,
    HandL,
    UpperArmR,
    ForearmR,
    HandR,
    ThighL,
    ShinL,
    FootL,
    ThighR,
    ShinR,
    FootR,
}

pub(crate) const BONE_COUNT: usize = 15;

/// Left (+Y) is side 0, right (−Y) side 1.
pub(crate) const SIDE_SIGN: [f64; 2] = [1.0, -1.0];
pub(crate) const UPPER_ARM: [Bone; 2] = [Bone::UpperArmL, Bone::UpperArmR];
pub(crate) const FOREARM: [Bone; 2] = [Bone::ForearmL, Bone::ForearmR];
pub(crate) const THIGH: [Bone; 2] = [Bone::ThighL, Bone::ThighR];
pub(crate) const SHIN: [Bone; 2] = [Bone::ShinL, Bone::ShinR];
pub(crate) const FOOT: [Bone; 2] = [Bone::FootL, Bone::FootR];

/// Where the shoulder, elbow and wrist joints are (rest pose, side 0); the
/// other side mirrors Y.
pub(crate) const SHOULDER: V3 = [0.0, 8.0, 19.2];
pub(crate) const ELBOW: V3 = [0.0, 8.0, 10.6];
pub(crate) const WRIST: V3 = [0.0, 8.0, 2.0];

/// A bone: its parent and the joint it turns about (rest pose, model
/// units).
pub(crate) struct BoneDef {
    pub(crate) parent: Option<Bone>,
    pub(crate) pivot: V3,
}

const fn bone(parent: Option<Bone>, pivot: V3) -> BoneDef {
    BoneDef { parent, pivot }
}

const fn mirror(p: V3) -> V3 {
    [p[0], -p[1], p[2]]
}

const HIP: V3 = [0.0, 3.2, 0.5];
const KNEE: V3 = [0.2, 3.2, -10.4];
const ANKLE: V3 = [0.0, 3.2, -21.0];

pub(crate) const BONES: [BoneDef; BONE_COUNT] = [
    bone(None, [0.0, 0.0, 1.0]),
    bone(Some(Bone::Pelvis), [0.0, 0.0, 4.0]),
    bone(Some(Bone::Spine), [0.0, 0.0, 22.3]),
    bone(Some(Bone::Spine), SHOULDER),
    bone(Some(Bone::UpperArmL), ELBOW),
    bone(Some(Bone::ForearmL), WRIST),
    bone(Some(Bone::Spine), mirror(SHOULDER)),
    bone(Some(Bone::UpperArmR), mirror(ELBOW)),
    bone(Some(Bone::ForearmR), mirror(WRIST)),
    bone(Some(Bone::Pelvis), HIP),
    bone(Some(Bone::ThighL), KNEE),
    bone(Some(Bone::ShinL), ANKLE),
    bone(Some(Bone::Pelvis), mirror(HIP)),
    bone(Some(Bone::ThighR), mirror(KNEE)),
    bone(Some(Bone::ShinR), mirror(ANKLE)),
];

/// Each bone's world transform from each bone's local rotation (about its
/// pivot), the root's offset applied last.
pub(crate) fn world_transforms(local: &[Quat; BONE_COUNT], offset: V3) -> [Rigid; BONE_COUNT] {
    let mut world = [Rigid::IDENTITY; BONE_COUNT];
    for (i, def) in BONES.iter().enumerate() {
        let own = Rigid::about(def.pivot, local[i]);
        world[i] = match def.parent {
            Some(parent) => world[parent as usize].compose(&own),
            None => Rigid {
                rotation: own.rotation,
                translation: add(own.translation, offset),
            },
        };
    }
    world
}

/// What a part's skin rectangle shows, for the painter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    Head,
    Shirt,
    Trousers,
    Sleeve,
    Forearm,
    Hand,
    Thigh,
    Shin,
    Boot,
}

/// A ring of a part: its centre, its radii along the part's `u` and `v`
/// axes, and how far its `u`-most vertex (the front) pokes out: a nose, a
/// toe cap.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ring {
    pub(crate) centre: V3,
    pub(crate) radius: [f64; 2],
    pub(crate) bump: f64,
}

/// One closed body part: pole, rings, pole; `segments` vertices round each
/// ring. Vertex `k` of a ring sits at angle `θ = −π + 2πk / segments` from
/// the part's back: `centre + u·ru·cos θ + v·rv·sin θ`, so θ = 0 is the
/// front (`u`) and θ grows towards `v`.
pub(crate) struct Part {
    pub(crate) bone: Bone,
    pub(crate) look: Look,
    /// The skin rectangle: x, y, width, height in texels. Columns run from
    /// θ = −π (left edge) to π (right edge); the first pole is the top row,
    /// the last pole the bottom row.
    pub(crate) region: [u32; 4],
    pub(crate) u: V3,
    pub(crate) v: V3,
    pub(crate) segments: usize,
    pub(crate) start: V3,
    pub(crate) rings: Vec<Ring>,
    pub(crate) end: V3,
}

impl Part {
    /// The skin column of ring vertex `k` (0..=segments: the seam twice).
    pub(crate) fn column(&self, k: usize) -> u32 {
        let [x, _, w, _] = self.region;
        x + ((w - 1) as f64 * k as f64 / self.segments as f64).round() as u32
    }

    /// The skin row of ring `i`, where −1 is the first pole and
    /// `rings.len()` the last.
    pub(crate) fn row(&self, i: isize) -> u32 {
        let [_, y, _, h] = self.region;
        let steps = (self.rings.len() + 1) as f64;
        y + ((h - 1) as f64 * (i + 1) as f64 / steps).round() as u32
    }

    /// The centre line at row `i` (as [`Part::row`]).
    pub(crate) fn centre(&self, i: isize) -> V3 {
        if i < 0 {
            self.start
        } else if i as usize >= self.rings.len() {
            self.end
        } else {
            self.rings[i as usize].centre
        }
    }

    fn vertex(&self, ring: &Ring, k: usize) -> V3 {
        let theta = -std::f64::consts::PI + std::f64::consts::TAU * k as f64 / self.segments as f64;
        let (s, c) = super::math::sin_cos(theta);
        let front = if k * 2 == self.segments {
            ring.bump
        } else {
            0.0
        };
        add(
            ring.centre,
            add(
                mul(self.u, ring.radius[0] * c + front),
                mul(self.v, ring.radius[1] * s),
            ),
        )
    }
}

/// An upright part on a vertical axis through `at` (x, y): `profile` runs
/// top to bottom as (z, radius forward, radius sideways), its first and
/// last entries the poles (their radii unused).
fn up_part(
    bone: Bone,
    look: Look,
    region: [u32; 4],
    segments: usize,
    at: [f64; 2],
    profile: &[(f64, f64, f64)],
) -> Part {
    let point = |z: f64| [at[0], at[1], z];
    let (top, rings, bottom) = (
        profile[0],
        &profile[1..profile.len() - 1],
        profile[profile.len() - 1],
    );
    Part {
        bone,
        look,
        region,
        u: [1.0, 0.0, 0.0],
        v: [0.0, 1.0, 0.0],
        segments,
        start: point(top.0),
        rings: rings
            .iter()
            .map(|&(z, ru, rv)| Ring {
                centre: point(z),
                radius: [ru, rv],
                bump: 0.0,
            })
            .collect(),
        end: point(bottom.0),
    }
}

fn mirrored(part: &Part, bone: Bone) -> Part {
    let m = |p: V3| [p[0], -p[1], p[2]];
    Part {
        bone,
        look: part.look,
        region: part.region,
        u: part.u,
        // Mirroring v keeps θ = 0 at the front and sends θ > 0 outwards on
        // both sides, so both limbs share one skin rectangle the same way
        // round.
        v: m(part.v),
        segments: part.segments,
        start: m(part.start),
        rings: part
            .rings
            .iter()
            .map(|r| Ring {
                centre: m(r.centre),
                ..*r
            })
            .collect(),
        end: m(part.end),
    }
}

/// The body parts. The skin is 256 × 128; the rectangles are listed here
/// and painted in `skin.rs`.
pub(crate) fn parts() -> Vec<Part> {
    let mut head = up_part(
        Bone::Head,
        Look::Head,
        [0, 0, 96, 64],
        10,
        [0.2, 0.0],
        &[
            (32.0, 0.0, 0.0),
            (31.4, 2.2, 2.0),
            (30.4, 3.5, 3.2),
            (28.9, 4.1, 3.7),
            (27.3, 4.2, 3.8),
            (25.8, 3.8, 3.4),
            (24.4, 2.9, 2.6),
            (23.4, 1.6, 1.6),
            (21.4, 1.8, 1.8),
            (21.0, 0.0, 0.0),
        ],
    );
    // The face: jaw forward, a nose.
    for (ring, (dx, bump)) in head.rings.iter_mut().zip([
        (0.0, 0.0),
        (0.0, 0.0),
        (0.2, 0.0),
        (0.4, 0.3),
        (0.6, 0.9),
        (0.6, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
    ]) {
        ring.centre[0] += dx;
        ring.bump = bump;
    }
    let torso = up_part(
        Bone::Spine,
        Look::Shirt,
        [96, 0, 96, 64],
        10,
        [0.0, 0.0],
        &[
            (22.6, 0.0, 0.0),
            (22.2, 2.0, 2.2),
            (21.2, 3.3, 6.6),
            (19.3, 3.7, 7.3),
            (15.8, 3.9, 6.8),
            (11.8, 3.5, 5.9),
            (7.8, 3.2, 5.4),
            (4.2, 3.2, 5.4),
            (3.4, 0.0, 0.0),
        ],
    );
    let pelvis = up_part(
        Bone::Pelvis,
        Look::Trousers,
        [192, 0, 64, 32],
        10,
        [0.0, 0.0],
        &[
            (5.6, 0.0, 0.0),
            (5.0, 3.1, 5.3),
            (2.6, 3.4, 5.7),
            (0.2, 3.3, 5.6),
            (-2.0, 2.7, 4.4),
            (-2.7, 0.0, 0.0),
        ],
    );
    let upper_arm = up_part(
        Bone::UpperArmL,
        Look::Sleeve,
        [192, 32, 32, 32],
        8,
        [SHOULDER[0], SHOULDER[1]],
        &[
            (21.1, 0.0, 0.0),
            (20.3, 2.0, 1.9),
            (17.0, 2.0, 1.9),
            (13.5, 1.7, 1.6),
            (10.9, 1.5, 1.5),
            (10.1, 0.0, 0.0),
        ],
    );
    let forearm = up_part(
        Bone::ForearmL,
        Look::Forearm,
        [224, 32, 32, 32],
        8,
        [WRIST[0], WRIST[1]],
        &[
            (11.3, 0.0, 0.0),
            (10.7, 1.5, 1.5),
            (8.0, 1.6, 1.5),
            (4.6, 1.3, 1.2),
            (2.4, 1.0, 1.0),
            (1.7, 0.0, 0.0),
        ],
    );
    let hand = up_part(
        Bone::HandL,
        Look::Hand,
        [96, 96, 48, 32],
        8,
        [WRIST[0], WRIST[1]],
        &[
            (2.7, 0.0, 0.0),
            (2.1, 1.1, 0.75),
            (0.0, 1.4, 0.8),
            (-2.4, 1.1, 0.6),
            (-3.4, 0.0, 0.0),
        ],
    );
    let thigh = up_part(
        Bone::ThighL,
        Look::Thigh,
        [0, 64, 48, 64],
        8,
        [HIP[0], HIP[1]],
        &[
            (1.9, 0.0, 0.0),
            (1.0, 2.7, 2.6),
            (-3.0, 2.6, 2.5),
            (-7.0, 2.2, 2.1),
            (-10.3, 1.9, 1.8),
            (-11.1, 0.0, 0.0),
        ],
    );
    let shin = up_part(
        Bone::ShinL,
        Look::Shin,
        [48, 64, 48, 64],
        8,
        [KNEE[0], KNEE[1]],
        &[
            (-9.5, 0.0, 0.0),
            (-10.2, 1.9, 1.8),
            (-13.0, 2.1, 1.8),
            (-17.0, 1.6, 1.4),
            (-20.4, 1.3, 1.2),
            (-21.2, 0.0, 0.0),
        ],
    );
    // The foot runs heel to toe along +X; its front (u) is the instep.
    let foot_ring = |x: f64, up: f64, side: f64, bump: f64| Ring {
        centre: [x, ANKLE[1], -24.0 + up],
        radius: [up, side],
        bump,
    };
    let foot = Part {
        bone: Bone::FootL,
        look: Look::Boot,
        region: [96, 64, 64, 32],
        u: [0.0, 0.0, 1.0],
        v: [0.0, 1.0, 0.0],
        segments: 8,
        start: [-2.3, ANKLE[1], -22.4],
        rings: vec![
            foot_ring(-1.6, 1.6, 1.3, 0.0),
            foot_ring(0.6, 1.8, 1.5, 0.6),
            foot_ring(3.2, 1.2, 1.6, 0.0),
            foot_ring(5.0, 0.8, 1.4, 0.0),
        ],
        end: [5.9, ANKLE[1], -23.1],
    };
    let mut parts = vec![head, torso, pelvis];
    for (part, other) in [
        (upper_arm, Bone::UpperArmR),
        (forearm, Bone::ForearmR),
        (hand, Bone::HandR),
        (thigh, Bone::ThighR),
        (shin, Bone::ShinR),
        (foot, Bone::FootR),
    ] {
        let right = mirrored(&part, other);
        parts.push(part);
        parts.push(right);
    }
    parts
}

/// The rest mesh: positions, the bone of each vertex, texture coordinates
/// and triangles wound counter-clockwise seen from outside (outward
/// normals, right-handed); `mod.rs` flips them to the file convention.
pub(crate) struct RestMesh {
    pub(crate) positions: Vec<V3>,
    pub(crate) bones: Vec<Bone>,
    pub(crate) st: Vec<[i16; 2]>,
    /// Per corner: (vertex, st).
    pub(crate) triangles: Vec<[(u16, u16); 3]>,
}

pub(crate) fn rest_mesh(parts: &[Part]) -> RestMesh {
    let mut mesh = RestMesh {
        positions: Vec::new(),
        bones: Vec::new(),
        st: Vec::new(),
        triangles: Vec::new(),
    };
    for part in parts {
        add_part(&mut mesh, part);
    }
    mesh
}

fn add_part(mesh: &mut RestMesh, part: &Part) {
    let segs = part.segments;
    let rings = part.rings.len();
    let v0 = mesh.positions.len();
    let push_vertex = |mesh: &mut RestMesh, p: V3| {
        mesh.positions.push(p);
        mesh.bones.push(part.bone);
        (mesh.positions.len() - 1) as u16
    };
    let start = push_vertex(mesh, part.start);
    for ring in &part.rings {
        for k in 0..segs {
            push_vertex(mesh, part.vertex(ring, k));
        }
    }
    let end = push_vertex(mesh, part.end);
    let ring_vertex = |i: usize, k: usize| (v0 + 1 + i * segs + k % segs) as u16;

    // Texture coordinates: one per ring vertex and column (the seam column
    // twice), and one per pole and segment, in the middle of the segment.
    let st0 = mesh.st.len();
    for i in 0..rings {
        let row = part.row(i as isize) as i16;
        for k in 0..=segs {
            mesh.st.push([part.column(k) as i16, row]);
        }
    }
    let pole_st0 = mesh.st.len();
    for pole_row in [part.row(-1), part.row(rings as isize)] {
        for k in 0..segs {
            let middle = (part.column(k) + part.column(k + 1)) / 2;
            mesh.st.push([middle as i16, pole_row as i16]);
        }
    }
    let ring_st = |i: usize, k: usize| (st0 + i * (segs + 1) + k) as u16;
    let start_st = |k: usize| (pole_st0 + k) as u16;
    let end_st = |k: usize| (pole_st0 + segs + k) as u16;

    // Rings advance along `axis`; θ turns from u towards v. Where u × v
    // points along the advance, (i, k), (i, k + 1), (i + 1, k + 1) faces
    // outwards; otherwise every triangle is listed the other way round.
    let axis = sub(part.end, part.start);
    let outward = dot(cross(part.u, part.v), axis) > 0.0;
    let push = |mesh: &mut RestMesh, a: (u16, u16), b: (u16, u16), c: (u16, u16)| {
        mesh.triangles
            .push(if outward { [a, b, c] } else { [a, c, b] });
    };
    for k in 0..segs {
        push(
            mesh,
            (start, start_st(k)),
            (ring_vertex(0, k + 1), ring_st(0, k + 1)),
            (ring_vertex(0, k), ring_st(0, k)),
        );
    }
    for i in 0..rings - 1 {
        for k in 0..segs {
            let a = (ring_vertex(i, k), ring_st(i, k));
            let b = (ring_vertex(i, k + 1), ring_st(i, k + 1));
            let c = (ring_vertex(i + 1, k + 1), ring_st(i + 1, k + 1));
            let d = (ring_vertex(i + 1, k), ring_st(i + 1, k));
            push(mesh, a, b, c);
            push(mesh, a, c, d);
        }
    }
    let last = rings - 1;
    for k in 0..segs {
        push(
            mesh,
            (end, end_st(k)),
            (ring_vertex(last, k), ring_st(last, k)),
            (ring_vertex(last, k + 1), ring_st(last, k + 1)),
        );
    }
}
