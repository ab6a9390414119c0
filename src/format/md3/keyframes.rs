//! An MD3's part of the model seam: each surface a [`KeyframeModel`] of
//! [`FrameWord::Wide8`](crate::model::FrameWord::Wide8) vertices, its
//! 8 bytes per vertex per frame kept as the file has them.

use std::fmt;

use super::model::{Md3Model, Md3Surface};
use super::vertex::Md3Vertex;
use crate::model::{Corner, Frame, KeyframeError, KeyframeModel, KeyframeParts};

/// The skin size a surface's model says: an MD3 does not record its
/// textures' sizes, and its texture coordinates run 0 to 1 across whatever
/// texture a surface wears, so no size is needed to draw it.
pub const MD3_SKIN_SIZE: (u32, u32) = (256, 256);

/// Why a surface does not make a [`KeyframeModel`]: a surface without
/// triangles (which the game skips), or a texture coordinate that is not
/// a number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Md3SurfaceError {
    /// The surface's index in the model.
    pub surface: usize,
    /// Its name.
    pub name: String,
    /// What the seam refused.
    pub error: KeyframeError,
}

impl Md3SurfaceError {
    /// Whether the surface is one Quake III skips when it draws the model
    /// (`R_AddMD3Surfaces` draws nothing of a surface with no triangles or
    /// no vertices): every host leaves it out and draws the rest, where any
    /// other refusal is an error.
    pub fn is_skipped(&self) -> bool {
        matches!(self.error, KeyframeError::Empty { what } if what == "triangles" || what == "vertices")
    }
}

impl fmt::Display for Md3SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "surface {} ({:?}): {}",
            self.surface, self.name, self.error
        )
    }
}

impl std::error::Error for Md3SurfaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl Md3Model {
    /// Surface `index` as the model seam holds a model, for every path past
    /// the parser (the GPU, the CPU reference, levels of detail, meshes):
    ///
    /// - its vertices as the file has them, 8 bytes each
    ///   ([`Md3Vertex::wide`]), under frames of scale
    ///   [`Md3Vertex::SCALE`] and translate 0, named as the model's frames
    ///   (an MD3's positions are in the model's space in every frame; the
    ///   frame's local origin is for the game's culling only);
    /// - one corner per vertex (an MD3 gives each vertex one texture
    ///   coordinate), and the triangles as stored (clockwise seen from
    ///   outside, as Quake II's);
    /// - the frames grouped into animations by name; a player's clips are
    ///   its `animation.cfg`'s ([`AnimationConfig::clip`](super::AnimationConfig::clip));
    /// - the skin size [`MD3_SKIN_SIZE`].
    ///
    /// `None` past the last surface.
    pub fn surface_model(&self, index: usize) -> Option<Result<KeyframeModel, Md3SurfaceError>> {
        let surface = self.surfaces().get(index)?;
        Some(
            surface_keyframes(self, surface).map_err(|error| Md3SurfaceError {
                surface: index,
                name: surface.name(),
                error,
            }),
        )
    }

    /// Every surface as [`surface_model`](Self::surface_model) makes it,
    /// in order.
    pub fn surface_models(&self) -> Result<Vec<KeyframeModel>, Md3SurfaceError> {
        (0..self.surfaces().len())
            .filter_map(|i| self.surface_model(i))
            .collect()
    }
}

fn surface_keyframes(
    model: &Md3Model,
    surface: &Md3Surface,
) -> Result<KeyframeModel, KeyframeError> {
    let frames = model
        .frames()
        .iter()
        .map(|f| Frame {
            scale: [Md3Vertex::SCALE; 3],
            translate: [0.0; 3],
            name_bytes: f.name_bytes,
        })
        .collect();
    let corners = (0u32..)
        .zip(surface.tex_coords())
        .map(|(xyz, &uv)| Corner { xyz, uv })
        .collect();
    // The reader holds every index within the surface's vertices, which
    // are fewer than 4,097: each fits a u32.
    let indices = surface
        .triangles()
        .iter()
        .flatten()
        .map(|&i| i as u32)
        .collect();
    KeyframeModel::from_parts(KeyframeParts {
        frames,
        vertices: Vec::new(),
        wide_vertices: surface.vertices().iter().map(Md3Vertex::wide).collect(),
        corners,
        indices,
        skin_size: MD3_SKIN_SIZE,
        animations: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{FrameLerp, Pose, reference};
    use crate::format::md3::{Md3Parts, Md3Shader, Md3SurfaceParts};
    use crate::model::FrameWord;

    fn two_frames() -> Md3Model {
        let vertex = |x: i16, normal: u16| Md3Vertex {
            xyz: [x, x.saturating_neg(), 64],
            normal,
        };
        Md3Model::from_parts(Md3Parts {
            name: "two".into(),
            frame_names: vec!["a".into(), "b".into()],
            tags: vec![],
            flags: 0,
            surfaces: vec![Md3SurfaceParts {
                name: "body".into(),
                flags: 0,
                shaders: vec![Md3Shader::new("body.tga")],
                triangles: vec![[0, 1, 2]],
                tex_coords: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]],
                vertices: vec![
                    vertex(0, 0),
                    vertex(64, 64),
                    vertex(-64, 0x4040),
                    vertex(128, 128),
                    vertex(32, 0x1234),
                    vertex(-32_768, 0xffff),
                ],
            }],
        })
        .unwrap()
    }

    #[test]
    fn a_surface_is_a_wide_model_that_decodes_as_the_file_says() {
        let md3 = two_frames();
        let model = md3.surface_model(0).unwrap().unwrap();
        assert!(md3.surface_model(1).is_none());
        assert_eq!(model.frame_word(), FrameWord::Wide8);
        assert_eq!((model.vertex_count(), model.frame_count()), (3, 2));
        assert_eq!(model.indices(), [0, 1, 2]);
        assert_eq!(model.corners()[2].uv, [0.0, 2.0]);
        assert_eq!(model.frames()[1].name(), "b");
        assert!(model.vertices().is_empty());
        let surface = &md3.surfaces()[0];
        let (mut positions, mut normals) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
        for frame in 0..2 {
            reference::decode_frame(&model, frame, &mut positions, &mut normals).unwrap();
            for (i, v) in surface.frame_vertices(frame as usize).iter().enumerate() {
                assert_eq!(positions[i], v.position(), "frame {frame} vertex {i}");
                assert_eq!(normals[i], v.normal_vector());
            }
        }
        // The words the GPU reads: x | y << 16, z | angles << 16.
        let mut words = Vec::new();
        for f in 0..2 {
            model.frame_data(f).push_words(&mut words);
        }
        assert_eq!(words.len(), 12);
        assert_eq!(words[2], 64 | (0xffc0 << 16));
        assert_eq!(words[3], 64 | (64 << 16));
        assert_eq!(words[11], 64 | (0xffff << 16));
        // Halfway: positions lerped, normals lerped and renormalised.
        let pose = Pose::from(FrameLerp {
            frame_a: 0,
            frame_b: 1,
            t: 0.5,
        });
        reference::blend(&model, &pose, &mut positions, &mut normals).unwrap();
        assert_eq!(positions[0], [1.0, -1.0, 1.0]);
        let len: f32 = normals[1].iter().map(|c| c * c).sum();
        assert!((len - 1.0).abs() < 1e-6);
    }
}
