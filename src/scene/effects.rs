//! Quake II's entity effects, as `ref_gl` drew them: powerup shells, planar
//! shadows, fullbright and minlight (translucency is a tint's alpha below 1).
//! Each costs at most one extra instanced draw per model, however many
//! instances carry it.

use glam::{Mat4, Vec3, Vec4};

use crate::contract::{
    EFFECT_FULLBRIGHT, EFFECT_MINLIGHT, EFFECT_NO_SHADOW, EFFECT_SHELL_RGB, MEMBER_SHELL, unorm8,
};

/// How far a shell stands off the skin, in model units: Quake II's
/// `POWERSUIT_SCALE`.
pub const SHELL_OFFSET: f32 = 4.0;
/// A shell's opacity: Quake II drew shells at alpha 0.30.
pub const SHELL_ALPHA: f32 = 0.3;
/// The least light an `RF_MINLIGHT` instance receives.
pub const MIN_LIGHT: f32 = 0.1;

/// Quake II's `renderfx` flags (`q_shared.h`) that this crate draws, with
/// the game's values, for [`Effects::from_quake_flags`].
pub mod quake_flags {
    /// Never darker than [`MIN_LIGHT`](crate::scene::MIN_LIGHT).
    pub const RF_MINLIGHT: u32 = 1;
    /// Lit by nothing but itself: the skin as it is.
    pub const RF_FULLBRIGHT: u32 = 8;
    /// Translucent: give the instance a tint alpha below 1.
    pub const RF_TRANSLUCENT: u32 = 32;
    /// Red shell (quad damage's is blue; the game mixes these).
    pub const RF_SHELL_RED: u32 = 1024;
    /// Green shell (power armour).
    pub const RF_SHELL_GREEN: u32 = 2048;
    /// Blue shell (quad damage).
    pub const RF_SHELL_BLUE: u32 = 4096;
    /// Double damage's gold shell.
    pub const RF_SHELL_DOUBLE: u32 = 0x10000;
    /// Half damage's grey shell.
    pub const RF_SHELL_HALF_DAM: u32 = 0x20000;
    /// Every shell flag.
    pub const RF_SHELLS: u32 =
        RF_SHELL_RED | RF_SHELL_GREEN | RF_SHELL_BLUE | RF_SHELL_DOUBLE | RF_SHELL_HALF_DAM;
}

/// What an instance draws besides its lit, skinned self.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Effects {
    /// A powerup shell in this linear colour (each channel in `[0, 1]`): the
    /// posed model pushed [`SHELL_OFFSET`] units out along its normals,
    /// drawn flat at [`SHELL_ALPHA`] over the scene after everything opaque,
    /// without writing depth.
    pub shell: Option<[f32; 3]>,
    /// Ignore the lighting: the skin times the tint.
    pub fullbright: bool,
    /// Never let the light fall below [`MIN_LIGHT`].
    pub minlight: bool,
    /// Cast no planar shadow even where the view draws them. Translucent
    /// instances never cast one.
    pub no_shadow: bool,
}

impl Effects {
    /// No effects: lit, skinned, casting a shadow where the view draws them.
    pub const NONE: Effects = Effects {
        shell: None,
        fullbright: false,
        minlight: false,
        no_shadow: false,
    };

    /// The effects Quake II draws for these `renderfx` bits (see
    /// [`quake_flags`]). The shell colour follows `ref_gl`: half damage
    /// (0.56, 0.59, 0.45), then double damage sets red and green to
    /// (0.9, 0.7), then red, green and blue each set their channel to 1, so
    /// red + green + blue is white.
    pub fn from_quake_flags(flags: u32) -> Effects {
        use quake_flags::*;
        let shell = (flags & RF_SHELLS != 0).then(|| {
            let mut c = [0.0; 3];
            if flags & RF_SHELL_HALF_DAM != 0 {
                c = [0.56, 0.59, 0.45];
            }
            if flags & RF_SHELL_DOUBLE != 0 {
                c[0] = 0.9;
                c[1] = 0.7;
            }
            for (bit, channel) in [(RF_SHELL_RED, 0), (RF_SHELL_GREEN, 1), (RF_SHELL_BLUE, 2)] {
                if flags & bit != 0 {
                    c[channel] = 1.0;
                }
            }
            c
        });
        Effects {
            shell,
            fullbright: flags & RF_FULLBRIGHT != 0,
            minlight: flags & RF_MINLIGHT != 0,
            no_shadow: false,
        }
    }

    /// The same effects with a shell of this linear colour.
    pub fn with_shell(self, color: [f32; 3]) -> Effects {
        Effects {
            shell: Some(color),
            ..self
        }
    }

    /// The instance record's `effects` bits (shell colour, fullbright,
    /// minlight, no shadow, and whether a shell is drawn at all): see
    /// [`contract::EFFECT_SHELL_RGB`](crate::contract::EFFECT_SHELL_RGB)
    /// and the bits beside it.
    pub fn bits(&self) -> u32 {
        let mut bits = 0;
        if let Some(c) = self.shell {
            let byte = |x: f32| u32::from(unorm8(x));
            bits |= (byte(c[0]) | byte(c[1]) << 8 | byte(c[2]) << 16) & EFFECT_SHELL_RGB;
            bits |= MEMBER_SHELL;
        }
        if self.fullbright {
            bits |= EFFECT_FULLBRIGHT;
        }
        if self.minlight {
            bits |= EFFECT_MINLIGHT;
        }
        if self.no_shadow {
            bits |= EFFECT_NO_SHADOW;
        }
        bits
    }
}

/// Planar shadows (Quake II's `gl_shadows`): every opaque instance's posed
/// vertices projected along a light direction onto a plane and drawn in
/// one colour (black at alpha 0.5). The stencil buffer keeps a pixel from
/// darkening twice (see [`ShadowStencil`]), so the depth format needs a
/// stencil aspect ([`DepthState::LESS_STENCIL`](crate::DepthState::LESS_STENCIL)).
///
/// # The lift
///
/// The shadow is drawn on the plane moved `lift` units towards the models,
/// so that it wins the depth test against the ground it lies on. Points are
/// projected along the light onto that lifted plane, so the lift also moves
/// the shadow towards the light, by `lift / tan(elevation)` (the light's
/// elevation above the plane): little under a high sun, a lot at a grazing
/// one. Quake II's 1 unit suits a game drawn with this shadow alone; where
/// the scene's own shadow maps darken the same ground, use
/// [`PlanarShadow::beside_shadow_maps`] (0.05 units), whose shadow lies
/// where the shadow map's does, or set the smallest lift your depth buffer
/// resolves at the distances you draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarShadow {
    /// The plane's unit normal (world space), pointing to the side the
    /// models stand on.
    pub normal: Vec3,
    /// The plane's distance from the origin along `normal`: points `p` with
    /// `normal · p = distance` are on it.
    pub distance: f32,
    /// Direction from the plane towards the light (world space). Shadows
    /// fall the other way.
    pub towards_light: Vec3,
    /// How far above the plane the shadow is drawn, so it does not fight the
    /// ground for depth (Quake II drew it 1 unit up): see [the lift](#the-lift).
    pub lift: f32,
    /// Linear RGBA, blended over what is below.
    pub color: [f32; 4],
    /// The stencil bits the shadow uses to darken each pixel once.
    pub stencil: ShadowStencil,
}

/// How planar shadows use the stencil buffer to darken each pixel once:
/// a shadow fragment is drawn where `stencil & read_mask == reference &
/// read_mask`, and inverts the `write_mask` bits of the pixel it draws, so
/// every later shadow fragment of that pixel fails the test.
///
/// The default takes the whole 8-bit stencil: the pass clears it to 0 and
/// nothing else uses it. An app that keeps portals or outlines in some
/// stencil bits gives the shadow others (say `read_mask = write_mask =
/// 0x80`, reference 0, with bit 7 clear at the start of the pass), and the
/// shadow never disturbs the app's bits. The shadow draw sets the pass's
/// stencil reference; an app that draws with its own reference after
/// [`Md2Phase::Shadows`](crate::gpu::Md2Phase::Shadows) sets it again. Every
/// other draw of the crate leaves the stencil alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShadowStencil {
    /// The value the pixel's `read_mask` bits must equal (before a shadow
    /// darkened it).
    pub reference: u32,
    /// The bits tested.
    pub read_mask: u32,
    /// The bits a shadow fragment inverts; must share a bit with
    /// `read_mask`, or a pixel darkens as often as shadows overlap on it.
    pub write_mask: u32,
}

impl ShadowStencil {
    /// All eight bits, reference 0: the stencil cleared to 0 for the pass
    /// and used by nothing else.
    pub const WHOLE: ShadowStencil = ShadowStencil {
        reference: 0,
        read_mask: 0xff,
        write_mask: 0xff,
    };

    /// One stencil bit (0 to 7), clear at the start of the pass; the other
    /// bits stay the app's.
    pub const fn bit(bit: u32) -> ShadowStencil {
        ShadowStencil {
            reference: 0,
            read_mask: 1 << bit,
            write_mask: 1 << bit,
        }
    }
}

impl Default for ShadowStencil {
    fn default() -> Self {
        ShadowStencil::WHOLE
    }
}

impl PlanarShadow {
    /// Quake II's look: black at alpha 0.5, 1 unit above the ground plane
    /// `y = height` of the Y-up world, cast by a light from `towards_light`.
    pub fn on_ground(height: f32, towards_light: Vec3) -> PlanarShadow {
        PlanarShadow {
            normal: Vec3::Y,
            distance: height,
            towards_light,
            lift: 1.0,
            color: [0.0, 0.0, 0.0, 0.5],
            stencil: ShadowStencil::WHOLE,
        }
    }

    /// [`PlanarShadow::on_ground`] lifted 0.05 units instead of 1, for
    /// scenes whose own shadow maps darken the same ground: the planar
    /// shadow then falls where the shadow map puts it (an app that compared
    /// both with its own shadow map of the same light on the ground
    /// reported an intersection over union of 0.958 at 0.05, against 0.75
    /// at Quake II's 1 unit). Needs a depth buffer that
    /// resolves 0.05 units at the distances drawn (a 32-bit float, or
    /// 24 bits with a near plane not too close).
    pub fn beside_shadow_maps(height: f32, towards_light: Vec3) -> PlanarShadow {
        PlanarShadow::on_ground(height, towards_light).with_lift(0.05)
    }

    /// The same shadow drawn `lift` units above its plane.
    pub fn with_lift(self, lift: f32) -> PlanarShadow {
        PlanarShadow { lift, ..self }
    }

    /// The same shadow with these stencil bits.
    pub fn with_stencil(self, stencil: ShadowStencil) -> PlanarShadow {
        PlanarShadow { stencil, ..self }
    }

    /// World to world: each point moved along the light onto the lifted
    /// plane. Identity where the light runs parallel to the plane (no shadow
    /// can be cast) or the plane has no normal.
    pub fn projection(&self) -> Mat4 {
        let n = self.normal.normalize_or_zero();
        let l = self.towards_light.normalize_or_zero();
        let d = self.distance + self.lift;
        let nl = n.dot(l);
        if n == Vec3::ZERO || nl.abs() < 1e-6 {
            return Mat4::IDENTITY;
        }
        // p' = p - l (n·p - d) / (n·l): columns are the images of the axes
        // (and of the origin, for the translation).
        let k = l / nl;
        Mat4::from_cols(
            (Vec3::X - k * n.x).extend(0.0),
            (Vec3::Y - k * n.y).extend(0.0),
            (Vec3::Z - k * n.z).extend(0.0),
            Vec4::new(k.x * d, k.y * d, k.z * d, 1.0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::quake_flags::*;
    use super::*;

    #[test]
    fn the_shaders_draw_shells_and_minlight_with_these_constants() {
        use crate::contract::mirrors::{crowd, f32_constant, renderer};
        // Both modules include constants.wgsl: checking each holds that
        // they include the one file. (The contract's own constants are
        // checked beside it; these are the scene's, so the scene checks.)
        for module in [renderer(), crowd()] {
            assert_eq!(f32_constant(&module, "MD2_SHELL_OFFSET"), SHELL_OFFSET);
            assert_eq!(f32_constant(&module, "MD2_SHELL_ALPHA"), SHELL_ALPHA);
            assert_eq!(f32_constant(&module, "MD2_MIN_LIGHT"), MIN_LIGHT);
        }
    }

    #[test]
    fn quake_shell_colours() {
        let shell = |flags| Effects::from_quake_flags(flags).shell;
        assert_eq!(shell(RF_SHELL_RED), Some([1.0, 0.0, 0.0]));
        assert_eq!(shell(RF_SHELL_GREEN), Some([0.0, 1.0, 0.0]));
        assert_eq!(shell(RF_SHELL_BLUE), Some([0.0, 0.0, 1.0]));
        assert_eq!(
            shell(RF_SHELL_RED | RF_SHELL_GREEN | RF_SHELL_BLUE),
            Some([1.0; 3])
        );
        assert_eq!(shell(RF_SHELL_DOUBLE), Some([0.9, 0.7, 0.0]));
        assert_eq!(shell(RF_SHELL_HALF_DAM), Some([0.56, 0.59, 0.45]));
        assert_eq!(
            shell(RF_SHELL_DOUBLE | RF_SHELL_BLUE),
            Some([0.9, 0.7, 1.0])
        );
        assert_eq!(shell(RF_FULLBRIGHT), None);
        let e = Effects::from_quake_flags(RF_FULLBRIGHT | RF_MINLIGHT);
        assert!(e.fullbright && e.minlight);
    }

    #[test]
    fn shadow_projection_lands_on_the_lifted_plane_along_the_light() {
        let shadow = PlanarShadow::on_ground(2.0, Vec3::new(1.0, 2.0, 0.5));
        let m = shadow.projection();
        for p in [Vec3::new(3.0, 10.0, -4.0), Vec3::new(-1.0, 2.5, 7.0)] {
            let q = m.transform_point3(p);
            assert!((q.y - 3.0).abs() < 1e-5, "{q} on y = 2 + 1");
            // q - p is along the light.
            let along = (q - p).cross(shadow.towards_light).length();
            assert!(along < 1e-4, "{p} -> {q}");
        }
        let parallel = PlanarShadow::on_ground(0.0, Vec3::X);
        assert_eq!(parallel.projection(), Mat4::IDENTITY);
    }
}
