//! The built-in demo character: deterministic bytes, a clean file, player
//! size and animations that move, the same winding as real files, a skin
//! whose every used texel is painted. Also writes PNG renders of it to
//! `target/demo-renders/` (a small CPU rasteriser below) and checks in them
//! that the face is on the front.

use md2_wgpu::model::Bounds;
use md2_wgpu_tests as common;

use std::path::PathBuf;

use common::{cross, dot, sub};
use image::{Rgba, RgbaImage};
use md2_wgpu::anim::reference::decode_frame;
use md2_wgpu::demo::{SKIN_HEIGHT, SKIN_WIDTH, demo_model, demo_model_bytes, demo_skin};
use md2_wgpu::{Md2Model, Quake2Player};

/// FNV-1a, 64-bit: enough to pin a file's bytes without a dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Update both together, deliberately, when the demo changes.
const PINNED_LEN: usize = 507_976;
const PINNED_FNV1A: u64 = 0x2f90_6326_2c03_b537;

fn positions(model: &Md2Model, frame: usize) -> Vec<[f32; 3]> {
    let n = model.keyframes().vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    decode_frame(model, frame as u32, &mut p, &mut nrm).unwrap();
    p
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    dot(sub(a, b), sub(a, b)).sqrt()
}

#[test]
fn bytes_are_deterministic_and_pinned() {
    let bytes = demo_model_bytes();
    assert_eq!(bytes, demo_model_bytes());
    assert_eq!(bytes, demo_model().to_bytes());
    let hash = fnv1a(&bytes);
    println!("demo model: {} bytes, FNV-1a {hash:#018x}", bytes.len());
    assert_eq!(
        (bytes.len(), hash),
        (PINNED_LEN, PINNED_FNV1A),
        "the demo model's bytes changed"
    );
    assert_eq!(demo_skin(), demo_skin());
}

#[test]
fn parses_back_without_warnings() {
    let bytes = demo_model_bytes();
    let model = Md2Model::from_bytes(&bytes).unwrap();
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());
    assert_eq!(model, demo_model());
    assert_eq!(model.to_bytes(), bytes);
    assert!(!model.glcmds().is_empty());
}

#[test]
fn counts_and_frame_names_are_a_quake2_players() {
    let model = demo_model();
    assert!(
        (300..=700).contains(&model.keyframes().vertex_count()),
        "{}",
        model.keyframes().vertex_count()
    );
    assert!(
        (500..=1200).contains(&model.triangles().len()),
        "{}",
        model.triangles().len()
    );
    assert_eq!(model.keyframes().frame_count(), 198);
    for anim in Quake2Player::ALL {
        for (k, f) in anim.frames().enumerate() {
            assert_eq!(
                model.keyframes().frames()[f as usize].name(),
                anim.frame_name(k as u32)
            );
        }
    }
    assert_eq!(model.keyframes().frames()[0].name(), "stand01");
    assert_eq!(model.keyframes().frames()[57].name(), "pain104");
    assert_eq!(model.keyframes().frames()[153].name(), "crstnd19");
    assert_eq!(model.keyframes().frames()[197].name(), "death308");
}

#[test]
fn animations_are_the_quake2_player_table() {
    let model = demo_model();
    let anims = model.keyframes().animations();
    assert_eq!(anims.len(), 20);
    for (anim, preset) in anims.iter().zip(Quake2Player::ALL) {
        assert_eq!(anim.name, preset.group_name());
        assert_eq!(Quake2Player::from_name(&anim.name), Some(preset));
        assert_eq!(anim.frames(), preset.frames());
    }
    let pains: Vec<_> = anims
        .iter()
        .filter(|a| a.name.starts_with("pain"))
        .collect();
    assert_eq!(pains.len(), 3, "pain1, pain2 and pain3 stay apart");
}

fn height(model: &Md2Model, frame: u32) -> f32 {
    let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(frame);
    hi[2] - lo[2]
}

#[test]
fn standing_frames_are_player_sized() {
    let model = demo_model();
    for f in Quake2Player::Stand.frames() {
        let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(f);
        assert!((lo[2] + 24.0).abs() < 0.3, "frame {f}: feet at {}", lo[2]);
        assert!(
            (hi[2] - 32.0).abs() < 1.0,
            "frame {f}: head top at {}",
            hi[2]
        );
        for k in 0..2 {
            assert!(lo[k] > -20.0 && hi[k] < 20.0, "frame {f}: {lo:?}..{hi:?}");
        }
    }
    // Whatever it does, it touches the floor, except in a jump or a running
    // stride.
    for f in 0..198 {
        let lo = model.keyframes().frame_bounds(f).min[2];
        let anim = Quake2Player::of_frame(f);
        if anim != Some(Quake2Player::Jump) && anim != Some(Quake2Player::Run) {
            assert!((lo + 24.0).abs() < 0.3, "frame {f}: lowest point {lo}");
        }
    }
}

#[test]
fn crouching_lowers_and_jumping_lifts() {
    use Quake2Player::*;
    let model = demo_model();
    for anim in [CrouchStand, CrouchWalk, CrouchAttack, CrouchPain] {
        for f in anim.frames() {
            let h = height(&model, f);
            assert!(h < 44.0 && h > 30.0, "{} frame {f}: {h} tall", anim.name());
        }
    }
    let highest = Jump
        .frames()
        .map(|f| model.keyframes().frame_bounds(f).min[2])
        .fold(f32::NEG_INFINITY, f32::max);
    assert!(highest > -16.0, "the jump's feet only reach {highest}");
}

#[test]
fn deaths_end_lying_on_the_ground() {
    use Quake2Player::*;
    let model = demo_model();
    for anim in [Death1, Death2, Death3, CrouchDeath] {
        let last = *anim.frames().end();
        let h = height(&model, last);
        assert!(h < 15.0, "{} ends {h} tall", anim.name());
        assert!((model.keyframes().frame_bounds(last).min[2] + 24.0).abs() < 0.3);
        let first = height(&model, *anim.frames().start());
        assert!(first > 35.0, "{} starts {first} tall", anim.name());
    }
}

#[test]
fn every_animation_moves_its_limbs() {
    let model = demo_model();
    let frames: Vec<_> = (0..198).map(|f| positions(&model, f)).collect();
    for anim in Quake2Player::ALL {
        let mut most = 0f32;
        for a in anim.frames() {
            for b in anim.frames() {
                for (p, q) in frames[a as usize].iter().zip(&frames[b as usize]) {
                    most = most.max(distance(*p, *q));
                }
            }
        }
        assert!(most > 4.0, "{}: vertices move at most {most}", anim.name());
        // Consecutive frames differ too: no frame is a copy of the last.
        for f in anim.frames().skip(1) {
            let same = model.keyframes().frame_data(f).packed()
                == model.keyframes().frame_data(f - 1).packed();
            assert!(!same, "{}: frame {f} repeats frame {}", anim.name(), f - 1);
        }
    }
    // Loops come round smoothly: the last frame is near the first.
    for anim in Quake2Player::ALL.into_iter().filter(|a| a.looping()) {
        let (a, b) = (
            *anim.frames().start() as usize,
            *anim.frames().end() as usize,
        );
        let step = frames[a]
            .iter()
            .zip(&frames[b])
            .map(|(p, q)| distance(*p, *q))
            .fold(0.0, f32::max);
        assert!(step < 16.0, "{}: last to first moves {step}", anim.name());
    }
}

#[test]
fn no_degenerate_triangles() {
    let model = demo_model();
    let p = positions(&model, 0);
    for (i, tri) in model.triangles().iter().enumerate() {
        let [a, b, c] = tri.xyz.map(|v| p[v as usize]);
        let n = cross(sub(b, a), sub(c, a));
        let area = 0.5 * dot(n, n).sqrt();
        assert!(area > 0.02, "triangle {i} {tri:?} has area {area}");
    }
}

/// The triangles whose `(v1 - v0) × (v2 - v0)` points against the stored
/// normals, as a fraction, and the mesh's signed volume, in frame 0.
fn winding(model: &Md2Model) -> (f32, f32) {
    let n = model.keyframes().vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    decode_frame(model, 0, &mut p, &mut nrm).unwrap();
    let mut inward = 0;
    let mut volume = 0.0;
    for tri in model.triangles() {
        let [a, b, c] = tri.xyz.map(|v| p[v as usize]);
        let normal = tri.xyz.iter().fold([0.0; 3], |s, &v| {
            let m = nrm[v as usize];
            [s[0] + m[0], s[1] + m[1], s[2] + m[2]]
        });
        if dot(cross(sub(b, a), sub(c, a)), normal) < 0.0 {
            inward += 1;
        }
        volume += dot(a, cross(b, c)) / 6.0;
    }
    (inward as f32 / model.triangles().len() as f32, volume)
}

#[test]
fn winding_is_the_real_files_winding() {
    let (inward, volume) = winding(&demo_model());
    assert!(
        inward > 0.97,
        "only {inward} of the triangles are clockwise from outside"
    );
    assert!(volume < -1000.0, "signed volume {volume}");
    if let Some(real) = common::shared_file("yohko/tris.md2") {
        let model = Md2Model::open(&real).expect("the real model loads");
        let (inward, volume) = winding(&model);
        println!("{}: {inward} clockwise, volume {volume}", real.display());
        assert!(inward > 0.97 && volume < 0.0);
    }
}

#[test]
fn every_st_is_used_and_lands_on_painted_skin() {
    let model = demo_model();
    let skin = demo_skin();
    let mut used = vec![false; model.tex_coords().len()];
    for tri in model.triangles() {
        for i in tri.st {
            used[i as usize] = true;
            let st = model.tex_coords()[i as usize];
            assert!(
                st.s >= 0 && (st.s as u32) < SKIN_WIDTH && st.t >= 0 && (st.t as u32) < SKIN_HEIGHT
            );
            let px = skin.get_pixel(st.s as u32, st.t as u32).0;
            assert!(
                px != [255, 0, 255, 255] && px != [0, 255, 0, 255],
                "st {st:?} is on the unused checker"
            );
        }
    }
    let unused: Vec<_> = used
        .iter()
        .enumerate()
        .filter(|(_, u)| !**u)
        .map(|(i, _)| i)
        .collect();
    assert!(unused.is_empty(), "st never used: {unused:?}");
}

#[test]
fn skin_matches_the_header_and_is_not_square() {
    let model = demo_model();
    let skin = demo_skin();
    assert_eq!(model.skin_size(), (skin.width(), skin.height()));
    assert_eq!(model.skin_size(), (SKIN_WIDTH, SKIN_HEIGHT));
    assert_ne!(skin.width(), skin.height());
    assert!(skin.pixels().all(|p| p.0[3] == 255));
}

/// An orthographic camera on the horizon, looking at the model from
/// `yaw` degrees round from the front (+X) towards its left (+Y).
struct View {
    yaw: f32,
}

/// What a render sampled at each pixel: the skin texel, or none.
struct Render {
    image: RgbaImage,
    texels: Vec<Option<(u32, u32)>>,
}

/// Draws frame `frame` of `model` with `skin`, lit by the file's normals,
/// culling the triangles that face away by the MD2 winding (clockwise seen
/// from outside), so a winding error shows as a model seen inside out.
fn render(model: &Md2Model, skin: &RgbaImage, frame: usize, view: &View, size: u32) -> Render {
    let n = model.keyframes().vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    decode_frame(model, frame as u32, &mut p, &mut nrm).unwrap();
    let (s, c) = view.yaw.to_radians().sin_cos();
    let toward_camera = [c, s, 0.0];
    let right = [-s, c, 0.0];
    let scale = size as f32 / 66.0;
    let project = |q: [f32; 3]| {
        [
            size as f32 * 0.5 + dot(q, right) * scale,
            size as f32 * 0.5 - (q[2] - 4.0) * scale,
            dot(q, toward_camera),
        ]
    };
    let light = {
        let l = [0.6 * c - 0.5 * s, 0.6 * s + 0.5 * c, 0.7];
        let len = dot(l, l).sqrt();
        l.map(|x| x / len)
    };
    let mut image = RgbaImage::from_pixel(size, size, Rgba([40, 44, 52, 255]));
    let mut depth = vec![f32::NEG_INFINITY; (size * size) as usize];
    let mut texels = vec![None; (size * size) as usize];
    let (w, h) = model.skin_size();
    let st = model.tex_coords();
    for tri in model.triangles() {
        let [a, b, cc] = tri.xyz.map(|i| p[i as usize]);
        // Outward normal: the file winding is clockwise from outside.
        let outward = cross(sub(cc, a), sub(b, a));
        if dot(outward, toward_camera) <= 0.0 {
            continue;
        }
        let v = tri.xyz.map(|i| project(p[i as usize]));
        let uv = tri.st.map(|i| {
            let t = st[i as usize];
            [(t.s as f32 + 0.5) / w as f32, (t.t as f32 + 0.5) / h as f32]
        });
        let nn = tri.xyz.map(|i| nrm[i as usize]);
        let area =
            (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
        if area.abs() < 1e-9 {
            continue;
        }
        // The pixels the triangle's bounds cover along axis `k`, clamped to
        // the image.
        let span = |k: usize| {
            let lo = v.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min);
            let hi = v.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max);
            (
                lo.floor().max(0.0) as u32,
                hi.ceil().min(size as f32 - 1.0) as u32,
            )
        };
        let ((min_x, max_x), (min_y, max_y)) = (span(0), span(1));
        for y in min_y..=max_y {
            for x in min_x..=max_x {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let e = |i: usize, j: usize| {
                    (v[j][0] - v[i][0]) * (py - v[i][1]) - (px - v[i][0]) * (v[j][1] - v[i][1])
                };
                let (w0, w1, w2) = (e(1, 2) / area, e(2, 0) / area, e(0, 1) / area);
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * v[0][2] + w1 * v[1][2] + w2 * v[2][2];
                let k = (y * size + x) as usize;
                if z <= depth[k] {
                    continue;
                }
                depth[k] = z;
                let u = w0 * uv[0][0] + w1 * uv[1][0] + w2 * uv[2][0];
                let t = w0 * uv[0][1] + w1 * uv[1][1] + w2 * uv[2][1];
                let tx = ((u * w as f32) as u32).min(w - 1);
                let ty = ((t * h as f32) as u32).min(h - 1);
                texels[k] = Some((tx, ty));
                let mut normal = [0.0; 3];
                for (m, wi) in nn.iter().zip([w0, w1, w2]) {
                    for d in 0..3 {
                        normal[d] += m[d] * wi;
                    }
                }
                let len = dot(normal, normal).sqrt().max(1e-6);
                let lit = 0.35 + 0.65 * (dot(normal, light) / len).max(0.0);
                let texel = skin.get_pixel(tx.min(skin.width() - 1), ty.min(skin.height() - 1));
                let shade = |ch: u8| (ch as f32 * lit).min(255.0) as u8;
                image.put_pixel(
                    x,
                    y,
                    Rgba([shade(texel[0]), shade(texel[1]), shade(texel[2]), 255]),
                );
            }
        }
    }
    Render { image, texels }
}

fn render_dir() -> PathBuf {
    let dir = common::target_dir().join("demo-renders");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Tiles renders into a grid, `columns` wide.
fn sheet(tiles: &[RgbaImage], columns: usize) -> RgbaImage {
    let size = tiles[0].width();
    let rows = tiles.len().div_ceil(columns);
    let mut out = RgbaImage::from_pixel(
        size * columns as u32,
        size * rows as u32,
        Rgba([0, 0, 0, 255]),
    );
    for (i, tile) in tiles.iter().enumerate() {
        let (x, y) = ((i % columns) as u32 * size, (i / columns) as u32 * size);
        image::imageops::replace(&mut out, tile, x.into(), y.into());
    }
    out
}

#[test]
fn renders_show_the_face_in_front() {
    let model = demo_model();
    let skin = demo_skin();
    let dir = render_dir();
    let views = [0.0, 35.0, 90.0, 180.0, -60.0];
    let frames = [
        *Quake2Player::Stand.frames().start(),
        Quake2Player::Run.frames().start() + 2,
        Quake2Player::Attack.frames().start() + 1,
        Quake2Player::Wave.frames().start() + 5,
        Quake2Player::Salute.frames().start() + 5,
        *Quake2Player::CrouchStand.frames().start(),
        *Quake2Player::Death1.frames().end(),
        *Quake2Player::Death2.frames().end(),
        *Quake2Player::Death3.frames().end(),
        *Quake2Player::CrouchDeath.frames().end(),
    ];
    let mut tiles = Vec::new();
    for &f in &frames {
        for yaw in views {
            tiles.push(render(&model, &skin, f as usize, &View { yaw }, 160).image);
        }
    }
    sheet(&tiles, views.len())
        .save(dir.join("views.png"))
        .unwrap();
    for anim in Quake2Player::ALL {
        let tiles: Vec<_> = anim
            .frames()
            .map(|f| render(&model, &skin, f as usize, &View { yaw: 35.0 }, 128).image)
            .collect();
        sheet(&tiles, 10)
            .save(dir.join(format!("anim-{}.png", anim.name())))
            .unwrap();
    }
    let closeups: Vec<_> = [0.0, 35.0, 150.0]
        .into_iter()
        .map(|yaw| render(&model, &skin, 0, &View { yaw }, 480).image)
        .collect();
    // The eyes (the only blue texels of the head's rectangle) face +X.
    let eyes = |r: &Render| {
        r.texels
            .iter()
            .flatten()
            .filter(|&&(x, y)| {
                let p = skin.get_pixel(x, y).0;
                x < 96 && y < 64 && p[2] as i32 > p[0] as i32 + 50
            })
            .count()
    };
    let front = render(&model, &skin, 0, &View { yaw: 0.0 }, 480);
    let back = render(&model, &skin, 0, &View { yaw: 180.0 }, 480);
    assert!(
        eyes(&front) > 20,
        "{} eye pixels from the front",
        eyes(&front)
    );
    assert_eq!(eyes(&back), 0, "eyes seen from behind");
    let covered = front.texels.iter().flatten().count();
    assert!(covered > 10_000, "the model covers only {covered} pixels");
    sheet(&closeups, 3).save(dir.join("closeup.png")).unwrap();
    image::imageops::resize(
        &skin,
        SKIN_WIDTH * 3,
        SKIN_HEIGHT * 3,
        image::imageops::FilterType::Nearest,
    )
    .save(dir.join("skin.png"))
    .unwrap();
    println!("renders in {}", dir.display());
}
