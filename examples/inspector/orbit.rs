//! The turntable camera around the model: dragged to orbit, scrolled to
//! zoom.

use md2_wgpu::Camera;
use md2_wgpu::glam::Vec3;

/// The camera's vertical field of view.
const FOV_Y: f32 = 0.7;

/// Yaw and pitch in radians around a target, at a distance.
#[derive(Clone, Copy, Debug)]
pub struct Orbit {
    target: Vec3,
    yaw: f32,
    pitch: f32,
    distance: f32,
    home: (f32, f32, f32),
}

impl Orbit {
    /// Looks at the box `min..max` from the home angles, just far enough
    /// that all of it is in view at this aspect ratio.
    pub fn framing(min: Vec3, max: Vec3, aspect: f32) -> Orbit {
        let (yaw, pitch) = (0.55, 0.2);
        let mut orbit = Orbit {
            target: (min + max) * 0.5,
            yaw,
            pitch,
            distance: 1.0,
            home: (yaw, pitch, 1.0),
        };
        let back = orbit.eye() - orbit.target;
        let right = Vec3::Y.cross(back).normalize();
        let up = back.cross(right);
        let tan_y = (FOV_Y * 0.5).tan();
        let tan_x = tan_y * aspect;
        // A corner at depth z towards the eye and offsets x, y is in view
        // from distance d when |x| <= (d - z) tan_x and |y| <= (d - z) tan_y.
        let mut distance: f32 = 0.0;
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            ) - orbit.target;
            let z = corner.dot(back);
            let need = (corner.dot(right).abs() / tan_x).max(corner.dot(up).abs() / tan_y);
            distance = distance.max(z + need);
        }
        // A margin, so the model does not touch the view's edges.
        let distance = (distance * 1.12).max(1e-3);
        orbit.distance = distance;
        orbit.home.2 = distance;
        orbit
    }

    /// Where the camera is.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// What the camera looks at.
    pub fn target(&self) -> Vec3 {
        self.target
    }

    /// The camera for a view of this aspect ratio that sees `far` beyond
    /// the target.
    pub fn camera(&self, aspect: f32, far: f32) -> Camera {
        Camera::look_at(
            self.eye(),
            self.target,
            FOV_Y,
            aspect,
            (self.distance * 0.02).max(0.01),
            far + self.distance,
        )
    }

    /// Back to the framing view.
    pub fn reset(&mut self) {
        (self.yaw, self.pitch, self.distance) = self.home;
    }

    /// Turns by a drag of `dx`, `dy` pixels.
    pub fn drag(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-1.45, 1.45);
    }

    /// Moves in (`lines > 0`) or out by wheel lines, within a tenth and ten
    /// times the framing distance.
    pub fn zoom(&mut self, lines: f32) {
        let min = self.home.2 * 0.1;
        let max = self.home.2 * 10.0;
        self.distance = (self.distance * 0.9f32.powf(lines)).clamp(min, max);
    }
}
