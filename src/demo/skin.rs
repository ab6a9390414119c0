//! The demo skin: each body part's rectangle painted from where its texels
//! land on the body (angle round the part, height along it), so the face,
//! the emblem and the laces sit where the geometry puts them.

use image::{Rgba, RgbaImage};

use super::body::{Look, Part};
use super::math::{V3, lerp};
use std::f64::consts::{FRAC_PI_2, PI, TAU};

type Rgb = [u8; 3];

const SKIN: Rgb = [228, 178, 138];
const HAND: Rgb = [212, 160, 122];
const HAIR: Rgb = [92, 56, 30];
const SHIRT: Rgb = [46, 88, 164];
const STRIPE: Rgb = [238, 196, 44];
const TROUSERS: Rgb = [86, 96, 56];
const POCKET: Rgb = [64, 74, 40];
const BELT: Rgb = [92, 56, 26];
const BUCKLE: Rgb = [222, 190, 64];
const PAD: Rgb = [112, 112, 118];
const BOOT: Rgb = [72, 46, 26];
const SOLE: Rgb = [26, 22, 20];
const LACE: Rgb = [204, 192, 160];
const WHITE: Rgb = [236, 236, 228];
const IRIS: Rgb = [36, 52, 120];
const BROW: Rgb = [64, 38, 20];
const LIPS: Rgb = [160, 56, 56];
const BADGE: Rgb = [196, 40, 40];
/// Texels no triangle should sample: loud, so a texturing bug shows.
const UNUSED: [Rgb; 2] = [[255, 0, 255], [0, 255, 0]];

/// Paints the skin for `parts` on a `width` × `height` image.
pub(crate) fn paint(parts: &[Part], width: u32, height: u32) -> RgbaImage {
    let mut img = RgbaImage::from_fn(width, height, |x, y| {
        let c = UNUSED[((x / 8 + y / 8) % 2) as usize];
        Rgba([c[0], c[1], c[2], 255])
    });
    let mut done: Vec<[u32; 4]> = Vec::new();
    for part in parts {
        // Mirrored limbs share their rectangle; paint it once.
        if done.contains(&part.region) {
            continue;
        }
        done.push(part.region);
        let [x0, y0, w, h] = part.region;
        for y in y0..y0 + h {
            let centre = centre_at_row(part, y);
            for x in x0..x0 + w {
                let theta = -PI + TAU * f64::from(x - x0) / f64::from(w - 1);
                let c = shade(colour(part.look, theta, centre), x, y);
                img.put_pixel(x, y, Rgba([c[0], c[1], c[2], 255]));
            }
        }
    }
    img
}

/// The part's centre line at skin row `y`, interpolated between the rows
/// of its poles and rings.
fn centre_at_row(part: &Part, y: u32) -> V3 {
    let rings = part.rings.len() as isize;
    for i in -1..rings {
        let (a, b) = (part.row(i), part.row(i + 1));
        if y <= b {
            let t = if b > a {
                f64::from(y.saturating_sub(a)) / f64::from(b - a)
            } else {
                0.0
            };
            return lerp(part.centre(i), part.centre(i + 1), t);
        }
    }
    part.end
}

/// A little deterministic grain, so surfaces read as cloth and skin.
fn shade(c: Rgb, x: u32, y: u32) -> Rgb {
    let mut h = x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    let d = (h % 13) as i32 - 6;
    c.map(|v| (i32::from(v) + d).clamp(0, 255) as u8)
}

fn between(v: f64, lo: f64, hi: f64) -> bool {
    (lo..=hi).contains(&v)
}

/// The colour at angle `theta` round a part (0 = its front, growing towards
/// the body's outside for limbs, towards its left for the trunk) and height
/// `c` (the centre line's model position).
fn colour(look: Look, theta: f64, c: V3) -> Rgb {
    let a = theta.abs();
    let z = c[2];
    match look {
        Look::Head => {
            let eye = between(z, 27.5, 28.6) && between(a, 0.2, 0.66);
            if between(z, 29.0, 29.5) && between(a, 0.16, 0.7) {
                BROW
            } else if eye && between(a, 0.33, 0.52) && between(z, 27.6, 28.5) {
                IRIS
            } else if eye {
                WHITE
            } else if between(z, 25.0, 25.6) && a < 0.34 {
                LIPS
            } else if z > 29.7 || (a > 1.8 && z > 24.6) || (a > 1.3 && z > 27.3) {
                HAIR
            } else if z < 23.8 {
                darker(SKIN, 14)
            } else {
                SKIN
            }
        }
        Look::Shirt => {
            let chest = a / 0.42 + (z - 16.6).abs() / 2.2 < 1.0;
            if z > 21.7 {
                WHITE
            } else if chest {
                STRIPE
            } else if a > 2.3 && (between(z, 14.6, 15.6) || between(z, 17.0, 18.0)) {
                WHITE
            } else if (a - FRAC_PI_2).abs() < 0.06 || z < 5.2 {
                darker(SHIRT, 24)
            } else {
                SHIRT
            }
        }
        Look::Trousers => {
            if between(z, 3.6, 5.3) {
                if a < 0.28 { BUCKLE } else { BELT }
            } else if a < 0.05 {
                darker(TROUSERS, 24)
            } else {
                TROUSERS
            }
        }
        Look::Sleeve => {
            if between(z, 11.4, 12.6) {
                STRIPE
            } else if between(theta, 1.0, 2.2) && between(z, 15.5, 18.5) {
                BADGE
            } else {
                SHIRT
            }
        }
        Look::Forearm => {
            if between(z, 2.0, 4.9) {
                darker(BELT, 20)
            } else {
                SKIN
            }
        }
        Look::Hand => {
            // Fingers: dark gaps along the lower half, front to back.
            let finger_gap = z < -0.6 && (theta * 4.0 / PI).fract().abs() < 0.2;
            if finger_gap { darker(HAND, 60) } else { HAND }
        }
        Look::Thigh => {
            if between(theta, 1.0, 2.1) && between(z, -7.6, -3.4) {
                if z > -4.2 { darker(POCKET, 20) } else { POCKET }
            } else {
                TROUSERS
            }
        }
        Look::Shin => {
            if z < -18.6 {
                BOOT
            } else if a < 0.95 && z > -13.6 {
                PAD
            } else {
                TROUSERS
            }
        }
        Look::Boot => {
            // θ = 0 is the instep, ±π the sole; x runs heel to toe.
            let x = c[0];
            if a > 2.2 {
                SOLE
            } else if a < 0.45 && between(x, -0.4, 3.2) {
                if ((x + 0.4) * 2.2).fract() < 0.45 {
                    LACE
                } else {
                    darker(BOOT, 20)
                }
            } else if x > 3.6 {
                darker(BOOT, 18)
            } else {
                BOOT
            }
        }
    }
}

fn darker(c: Rgb, by: u8) -> Rgb {
    c.map(|v| v.saturating_sub(by))
}
/// An image as a TGA file's bytes.
pub(super) fn tga(image: &image::RgbaImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Tga,
        )
        .expect("an RGBA image encodes as TGA");
    bytes
}
