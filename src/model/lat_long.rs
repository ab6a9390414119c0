//! Quake III's normals: two angles of a byte each, a latitude and a
//! longitude, decoded through one table of cosines and sines.

use std::sync::LazyLock;

/// Steps to a turn of each angle: a byte's 256 values.
pub const LAT_LONG_STEPS: usize = 256;

/// `(cos a, sin a)` for `a = k × 2π/256`, `k` = 0 to 255, each the `f32`
/// nearest the true value (computed in `f64`, then rounded once), so the
/// table is the same wherever it is built.
static TABLE: LazyLock<[[f32; 2]; LAT_LONG_STEPS]> = LazyLock::new(|| {
    std::array::from_fn(|k| {
        let a = k as f64 * std::f64::consts::TAU / LAT_LONG_STEPS as f64;
        [a.cos() as f32, a.sin() as f32]
    })
});

/// `(cos a, sin a)` for each value `k` of an angle's byte, `a = k × 2π/256`:
/// the table both the CPU reference and the GPU read (the first 256
/// entries of the pose's frame parameters for a model of
/// [`FrameWord::Wide8`](super::FrameWord::Wide8)).
///
/// The step is 2π/256 because Quake III's renderer reads both angles from
/// its 1,024-entry sine table at byte × 4 (`LerpMeshVertexes`). The
/// format's public description says 2π/255 (and the tools' encoder,
/// `NormalToLatLong`, scales by 255/360 a degree); the game's decode is
/// what players saw, so this follows it.
pub fn lat_long_table() -> &'static [[f32; 2]; LAT_LONG_STEPS] {
    &TABLE
}

/// The unit normal of a packed pair of angles, as Quake III decodes it: the
/// low byte is the longitude, the high byte the latitude, and the normal is
/// `(cos lat · sin lng, sin lat · sin lng, cos lng)`, each a product of two
/// [`lat_long_table`] entries (one rounding each, so a GPU computes the
/// same bits).
#[inline]
pub fn normal_from_lat_long(packed: u16) -> [f32; 3] {
    let [lng, lat] = packed.to_le_bytes();
    let table = lat_long_table();
    let [cos_lat, sin_lat] = table[usize::from(lat)];
    let [cos_lng, sin_lng] = table[usize::from(lng)];
    [cos_lat * sin_lng, sin_lat * sin_lng, cos_lng]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_are_exact_and_every_normal_is_unit() {
        let table = lat_long_table();
        assert_eq!(table[0], [1.0, 0.0]);
        // cos(π/2) in f64 is 6e-17, which rounds to itself in f32, not to 0:
        // tiny, and what the table holds everywhere it is built.
        assert_eq!(table[64][1], 1.0);
        assert!(table[64][0].abs() < 1e-16);
        assert_eq!(table[128][0], -1.0);
        assert_eq!(normal_from_lat_long(0), [0.0, 0.0, 1.0]);
        let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(normal_from_lat_long(64), [1.0, 0.0, 0.0]));
        assert!(close(normal_from_lat_long(64 | (64 << 8)), [0.0, 1.0, 0.0]));
        assert!(close(normal_from_lat_long(128), [0.0, 0.0, -1.0]));
        for packed in 0..=u16::MAX {
            let n = normal_from_lat_long(packed);
            let len: f32 = n.iter().map(|c| c * c).sum();
            assert!((len - 1.0).abs() < 1e-6, "{packed:#06x}: {n:?}");
        }
    }
}
