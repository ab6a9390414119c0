//! Quake II's normal table as the pose reads it: padded to every value of
//! the packed vertex's index byte, so no index can read past it and every
//! index ≥ 162 reads the fallback normal, and laid out as `vec4`s: the
//! first [`NORMAL_TABLE_LEN`] entries of the pose's `md2_frame_params`
//! storage buffer (never a uniform: a uniform indexed by each vertex's own
//! normal byte is serialised on NVIDIA; `shaders/README.md`).

use crate::model::{ANORMS, FALLBACK_NORMAL_INDEX};

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
