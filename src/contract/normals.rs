//! Quake II's normal table as the pose reads it: padded to every value of
//! the packed vertex's index byte, so no index can read past it and every
//! index ≥ 162 reads the fallback normal, and laid out as `vec4`s: the
//! first [`NORMAL_TABLE_LEN`] entries of the pose's `md2_frame_params`
//! storage buffer (never a uniform: a uniform indexed by each vertex's own
//! normal byte is serialised on NVIDIA; `shaders/README.md`).

use crate::model::{ANORMS, FALLBACK_NORMAL_INDEX, LAT_LONG_STEPS, lat_long_table};

// One table entry per value of a byte, for either word.
const _: () = assert!(LAT_LONG_STEPS == NORMAL_TABLE_LEN);

/// Entries of the table: one per value of a `u8` normal index.
pub const NORMAL_TABLE_LEN: usize = 256;

/// Quake II's normal table padded to every `u8` index ([`ANORMS`] first,
/// then [`FALLBACK_NORMAL_INDEX`]'s normal): what both the CPU reference and
/// the GPU read, so an index ≥ 162 reads the same normal on both.
pub(crate) const NORMALS: [[f32; 3]; NORMAL_TABLE_LEN] = {
    let mut table = [ANORMS[FALLBACK_NORMAL_INDEX as usize]; NORMAL_TABLE_LEN];
    let mut i = 0;
    while i < ANORMS.len() {
        table[i] = ANORMS[i];
        i += 1;
    }
    table
};

/// The normal table as the pose reads it, at the start of
/// `md2_frame_params` (see [`PoseBindings`](super::PoseBindings) and
/// [`ModelData::frame_param_bytes`](super::ModelData::frame_param_bytes)):
/// [`NORMAL_TABLE_LEN`] entries of `vec4<f32>` (x, y, z, 0), 4,096 bytes,
/// the same for every model.
pub fn normal_table() -> [[f32; 4]; NORMAL_TABLE_LEN] {
    NORMALS.map(|[x, y, z]| [x, y, z, 0.0])
}

/// The table the pose reads a wide vertex's normal through
/// ([`FrameWord::Wide8`](crate::model::FrameWord::Wide8), flagged
/// [`MODEL_WIDE_WORD`](super::MODEL_WIDE_WORD)), in the place of
/// [`normal_table`]: entry `k` is `(cos a, sin a, 0, 0)` for `a = k ×
/// 2π/256` ([`lat_long_table`]), one per value of an angle's byte. The
/// pose reads it at the latitude byte and at the longitude byte and
/// multiplies, as [`normal_from_lat_long`](crate::model::normal_from_lat_long) does.
pub fn lat_long_normal_table() -> [[f32; 4]; NORMAL_TABLE_LEN] {
    lat_long_table().map(|[cos, sin]| [cos, sin, 0.0, 0.0])
}

/// [`normal_table`] as the bytes to upload.
pub fn normal_table_bytes() -> Vec<u8> {
    bytemuck::cast_slice(&normal_table()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_anorms_then_the_fallback() {
        let table = normal_table();
        assert_eq!(normal_table_bytes().len(), 4096);
        for (i, n) in table.iter().enumerate() {
            let expected = ANORMS
                .get(i)
                .unwrap_or(&ANORMS[FALLBACK_NORMAL_INDEX as usize]);
            assert_eq!(n[..3], expected[..], "{i}");
            assert_eq!(n[3], 0.0);
        }
    }
}
