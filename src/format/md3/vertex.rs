//! An MD3 vertex of one frame as stored (8 bytes), and its decode: the
//! position in 1/64 units and the normal from two angles. The CPU
//! reference decodes with these, and the GPU's decode is held to them.

use crate::model::{WideVertex, normal_from_lat_long};

/// A vertex of one frame, as stored: `i16 x, y, z` in units of 1/64, then
/// the normal packed into two angles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Md3Vertex {
    /// The position in units of 1/64 ([`Md3Vertex::SCALE`]).
    pub xyz: [i16; 3],
    /// The normal as stored (a little-endian `u16`): the low byte is the
    /// longitude, the high byte the latitude, each 256 steps to a turn.
    pub normal: u16,
}

impl Md3Vertex {
    /// What a stored coordinate is multiplied by (`MD3_XYZ_SCALE`).
    pub const SCALE: f32 = 1.0 / 64.0;

    /// The position in model units.
    pub fn position(&self) -> [f32; 3] {
        self.xyz.map(|c| f32::from(c) * Self::SCALE)
    }

    /// The unit normal, as Quake III's renderer decodes it
    /// (`LerpMeshVertexes`): latitude = high byte × 2π/256, longitude =
    /// low byte × 2π/256, normal = (cos lat · sin lng, sin lat · sin lng,
    /// cos lng), each factor from the seam's
    /// [`lat_long_table`](crate::model::lat_long_table) (which says why the
    /// step is 2π/256, not the 2π/255 of the format's description): the
    /// numbers the CPU reference and the GPU compute for the vertex.
    pub fn normal_vector(&self) -> [f32; 3] {
        normal_from_lat_long(self.normal)
    }

    /// The vertex as the model seam holds it, the same 8 bytes: with a
    /// frame scale of [`Md3Vertex::SCALE`] it decodes to
    /// [`position`](Self::position).
    pub fn wide(&self) -> WideVertex {
        WideVertex {
            position: self.xyz,
            normal: self.normal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_sixty_fourths_and_normals_follow_the_games_table() {
        let v = Md3Vertex {
            xyz: [64, -128, 1],
            normal: 0,
        };
        assert_eq!(v.position(), [1.0, -2.0, 1.0 / 64.0]);
        // Longitude 0: straight up, whatever the latitude.
        assert_eq!(v.normal_vector(), [0.0, 0.0, 1.0]);
        let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        // Longitude a quarter turn (64), latitude 0: +X; latitude a
        // quarter turn (64 << 8): +Y; longitude a half turn: straight down.
        let n = |normal: u16| {
            Md3Vertex {
                xyz: [0; 3],
                normal,
            }
            .normal_vector()
        };
        assert!(close(n(64), [1.0, 0.0, 0.0]), "{:?}", n(64));
        assert!(close(n(64 | (64 << 8)), [0.0, 1.0, 0.0]));
        assert!(close(n(128), [0.0, 0.0, -1.0]));
        for normal in [0x1234u16, 0xffff, 0x80ff] {
            let len: f32 = n(normal).iter().map(|c| c * c).sum();
            assert!((len - 1.0).abs() < 1e-5);
        }
    }
}
