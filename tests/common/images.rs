//! Comparing pictures.

use image::RgbaImage;
/// Pixels covered by the model (alpha above zero).
pub fn coverage(image: &RgbaImage) -> usize {
    image.pixels().filter(|p| p.0[3] > 0).count()
}

/// Pixels whose colour differs by more than `tolerance` in any channel.
pub fn differing_pixels(a: &RgbaImage, b: &RgbaImage, tolerance: u8) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..4).any(|c| p.0[c].abs_diff(q.0[c]) > tolerance))
        .count()
}

/// Pixels one picture covers (alpha above 0) and the other does not.
pub fn coverage_differences(a: &RgbaImage, b: &RgbaImage) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (p.0[3] > 0) != (q.0[3] > 0))
        .count()
}

/// Asserts that two pipelines drew the same picture from the same words:
/// the same pixels covered (every position output is `@invariant`: the
/// same data and control flow give the same position whatever pipeline
/// computes it), and every channel within 1 (the other outputs are not
/// invariant: a pipeline may fuse their arithmetic differently, a few ULP
/// that move a value only when it sits that close to a rounding boundary,
/// by one step; a later blend's (1 − alpha) shrinks that step before its
/// own rounding).
pub fn assert_same_drawing(a: &RgbaImage, b: &RgbaImage, what: &str) {
    let uncovered = coverage_differences(a, b);
    assert_eq!(
        uncovered, 0,
        "{what}: {uncovered} pixels covered by one only"
    );
    let differ = differing_pixels(a, b, 1);
    assert_eq!(
        differ, 0,
        "{what}: {differ} pixels differ by more than 1/255"
    );
}

/// Mean absolute difference per channel, over every pixel (0..255).
pub fn mean_difference(a: &RgbaImage, b: &RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let total: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    total as f64 / a.as_raw().len() as f64
}

/// The sRGB byte the renderer writes for linear value `c`.
pub fn srgb_byte(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// How many different colours the covered pixels have: a lit, textured
/// model has many, a black or flat silhouette one or two.
pub fn distinct_colours(image: &RgbaImage) -> usize {
    let mut colours: Vec<[u8; 4]> = image.pixels().filter(|p| p.0[3] > 0).map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    colours.len()
}

/// The linear value of an sRGB byte (what a skin texel samples as).
pub fn srgb_to_linear(byte: u8) -> f32 {
    let c = f32::from(byte) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
