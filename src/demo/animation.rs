//! The demo character's 198 poses: one per frame of the Quake II player
//! table, each a set of joint rotations posed by hand (angles for most
//! joints, a two-bone reach for hands that must land somewhere: a salute,
//! a gun held in front).

use super::body::{
    BONE_COUNT, Bone, ELBOW, FOOT, FOREARM, SHIN, SHOULDER, SIDE_SIGN, THIGH, UPPER_ARM, WRIST,
};
use super::math::{Quat, V3, add, ease, length, mul, normalize, sin_cos, sub};
use crate::anim::Quake2Player;
use std::f64::consts::TAU;

/// Joint rotations (each about its bone's pivot, in its parent's frame) and
/// how high off the ground the lowest point is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pose {
    pub(crate) rotation: [Quat; BONE_COUNT],
    /// Height of the lowest vertex above the floor (a jump).
    pub(crate) lift: f64,
    /// The body's sideways and forward drift (x, y).
    pub(crate) shift: [f64; 2],
    /// The root's pitch and roll, which `leg` undoes so feet stay planted.
    root_pitch: f64,
    root_roll: f64,
}

impl Pose {
    fn rest() -> Pose {
        Pose {
            rotation: [Quat::IDENTITY; BONE_COUNT],
            lift: 0.0,
            shift: [0.0; 2],
            root_pitch: 0.0,
            root_roll: 0.0,
        }
    }

    /// Turns an upright bone (pelvis, spine, head): `pitch` leans it
    /// forward, `roll` to its own left, `yaw` turns it to its left.
    fn turn(mut self, bone: Bone, pitch: f64, roll: f64, yaw: f64) -> Pose {
        if bone == Bone::Pelvis {
            self.root_pitch = pitch;
            self.root_roll = roll;
        }
        self.rotation[bone as usize] = Quat::z(yaw)
            .then_after(Quat::y(pitch))
            .then_after(Quat::x(-roll));
        self
    }

    /// Turns a hanging bone on side `side` (0 left, 1 right): `swing`
    /// moves its lower end forward, `spread` away from the body's middle,
    /// `twist` turns its front outwards.
    fn limb(mut self, bone: Bone, side: usize, swing: f64, spread: f64, twist: f64) -> Pose {
        let s = SIDE_SIGN[side];
        self.rotation[bone as usize] = Quat::y(-swing)
            .then_after(Quat::x(s * spread))
            .then_after(Quat::z(s * twist));
        self
    }

    /// An arm by angles: the shoulder's swing and spread, the elbow's bend
    /// (the forearm comes forward).
    fn arm(self, side: usize, swing: f64, spread: f64, bend: f64) -> Pose {
        self.limb(UPPER_ARM[side], side, swing, spread, 0.0).limb(
            FOREARM[side],
            side,
            bend,
            0.0,
            0.0,
        )
    }

    /// An arm whose wrist reaches `wrist` (in the torso's rest frame: as if
    /// the spine were straight), the elbow bowing towards `hint`.
    fn reach(mut self, side: usize, wrist: V3, hint: V3) -> Pose {
        let s = SIDE_SIGN[side];
        let shoulder = [SHOULDER[0], s * SHOULDER[1], SHOULDER[2]];
        let upper = length(sub(ELBOW, SHOULDER));
        let lower = length(sub(WRIST, ELBOW));
        let to = sub(wrist, shoulder);
        let d = length(to).clamp(0.5, upper + lower - 1e-3);
        let dir = normalize(to);
        // Law of cosines: how far along `dir` the elbow sits, and how far
        // out towards the hint.
        let along = (upper * upper - lower * lower + d * d) / (2.0 * d);
        let out = (upper * upper - along * along).max(0.0).sqrt();
        let hint = normalize(sub(hint, mul(dir, super::math::dot(hint, dir))));
        let elbow = add(shoulder, add(mul(dir, along), mul(hint, out)));
        let wrist = add(shoulder, mul(dir, d));
        let down = [0.0, 0.0, -1.0];
        let q_upper = Quat::from_to(down, normalize(sub(elbow, shoulder)));
        let q_lower = Quat::from_to(down, normalize(sub(wrist, elbow)));
        self.rotation[UPPER_ARM[side] as usize] = q_upper;
        self.rotation[FOREARM[side] as usize] =
            q_upper.conjugate().then_after(q_lower).normalized();
        self
    }

    /// A leg planted as if the pelvis were upright: the thigh `swing`s
    /// forward (in the world), the knee bends by `bend`, the foot stays
    /// flat; the root's pitch and roll are undone (set the root first).
    fn leg(self, side: usize, swing: f64, bend: f64, spread: f64) -> Pose {
        let s = SIDE_SIGN[side];
        self.limb(
            THIGH[side],
            side,
            swing + self.root_pitch,
            spread + s * self.root_roll,
            0.0,
        )
        .limb(SHIN[side], side, -bend, 0.0, 0.0)
        .limb(FOOT[side], side, bend - swing, 0.0, 0.0)
    }

    /// A leg posed relative to the pelvis (a body lying down), the ankle
    /// bent by `ankle` (toes down positive).
    fn leg_free(self, side: usize, swing: f64, bend: f64, spread: f64, ankle: f64) -> Pose {
        self.limb(THIGH[side], side, swing, spread, 0.0)
            .limb(SHIN[side], side, -bend, 0.0, 0.0)
            .limb(FOOT[side], side, -ankle, 0.0, 0.0)
    }

    fn lift(mut self, lift: f64) -> Pose {
        self.lift = lift;
        self
    }

    fn shift(mut self, x: f64, y: f64) -> Pose {
        self.shift = [x, y];
        self
    }

    fn lerp(&self, other: &Pose, t: f64) -> Pose {
        let mut out = *self;
        for (q, o) in out.rotation.iter_mut().zip(&other.rotation) {
            *q = q.nlerp(*o, t);
        }
        out.lift = self.lift + (other.lift - self.lift) * t;
        for i in 0..2 {
            out.shift[i] = self.shift[i] + (other.shift[i] - self.shift[i]) * t;
        }
        out.root_pitch = self.root_pitch + (other.root_pitch - self.root_pitch) * t;
        out.root_roll = self.root_roll + (other.root_roll - self.root_roll) * t;
        out
    }
}

/// The pose at frame position `at` between keyframes `(frame, pose)`
/// (sorted), eased in and out of each key.
fn keys(at: f64, keys: &[(f64, Pose)]) -> Pose {
    let (first, last) = (&keys[0], &keys[keys.len() - 1]);
    if at <= first.0 {
        return first.1;
    }
    for pair in keys.windows(2) {
        let ((a, pa), (b, pb)) = (&pair[0], &pair[1]);
        if at <= *b {
            return pa.lerp(pb, ease((at - a) / (b - a)));
        }
    }
    last.1
}

fn sin(x: f64) -> f64 {
    sin_cos(x).0
}

fn cos(x: f64) -> f64 {
    sin_cos(x).1
}

/// The gun hand (right) held at the hip, pointing forward, the left arm
/// relaxed: how Quake II players stand.
fn ready() -> Pose {
    Pose::rest()
        .arm(0, 4.0, 7.0, 14.0)
        .arm(1, 14.0, 9.0, 62.0)
        .leg(0, 2.0, 4.0, 3.0)
        .leg(1, -1.0, 3.0, 3.0)
}

/// Both hands on the gun at chest height, legs apart.
fn aim(root_yaw: f64) -> Pose {
    Pose::rest()
        .turn(Bone::Pelvis, 0.0, 0.0, root_yaw)
        .turn(Bone::Spine, 3.0, 0.0, 12.0)
        .turn(Bone::Head, 0.0, 0.0, -12.0)
        .reach(1, [12.0, -2.5, 14.5], [-0.3, -1.0, -1.0])
        .reach(0, [13.0, 0.5, 13.5], [-0.3, 1.0, -1.0])
        .leg(0, 14.0, 8.0, 6.0)
        .leg(1, -10.0, 4.0, 6.0)
}

/// A crouch: thighs forward, knees deep, the trunk leaning in.
fn crouch() -> Pose {
    Pose::rest()
        .turn(Bone::Pelvis, 22.0, 0.0, 0.0)
        .turn(Bone::Spine, 12.0, 0.0, 0.0)
        .turn(Bone::Head, -28.0, 0.0, 0.0)
        .leg(0, 88.0, 128.0, 9.0)
        .leg(1, 80.0, 128.0, 9.0)
        .reach(1, [11.0, -3.0, 12.0], [-0.3, -1.0, -1.0])
        .reach(0, [12.0, 0.5, 11.0], [-0.3, 1.0, -1.0])
}

/// The pose of frame `k` (0-based) of `anim`.
pub(crate) fn pose(anim: Quake2Player, k: u32) -> Pose {
    let len = anim.frames().count() as f64;
    let at = f64::from(k);
    // Loops come round to where they started; `phase` never reaches 2π.
    let phase = TAU * at / len;
    match anim {
        Quake2Player::Stand => stand(phase),
        Quake2Player::Run => run(phase),
        Quake2Player::Attack => attack(at),
        Quake2Player::Pain1 => pain(at, 1),
        Quake2Player::Pain2 => pain(at, 2),
        Quake2Player::Pain3 => pain(at, 3),
        Quake2Player::Jump => jump(at),
        Quake2Player::Flip => flip(at),
        Quake2Player::Salute => salute(at),
        Quake2Player::Taunt => taunt(at),
        Quake2Player::Wave => wave(at),
        Quake2Player::Point => point(at),
        Quake2Player::CrouchStand => crouch_stand(phase),
        Quake2Player::CrouchWalk => crouch_walk(phase),
        Quake2Player::CrouchAttack => crouch_attack(at),
        Quake2Player::CrouchPain => crouch_pain(at),
        Quake2Player::CrouchDeath => crouch_death(at),
        Quake2Player::Death1 => death1(at),
        Quake2Player::Death2 => death2(at),
        Quake2Player::Death3 => death3(at),
    }
}

fn stand(phase: f64) -> Pose {
    let (s, c) = sin_cos(phase);
    let breath = sin(2.0 * phase);
    Pose::rest()
        .turn(Bone::Pelvis, 0.0, 2.5 * s, 3.0 * c)
        .shift(0.0, 0.6 * s)
        .turn(Bone::Spine, 1.5 * breath, -1.5 * s, 5.0 * s)
        .turn(Bone::Head, 4.0 * breath, 0.0, 22.0 * sin(phase + 0.6))
        .arm(
            0,
            4.0 + 4.0 * sin(phase + 1.0),
            7.0 + 2.0 * c,
            14.0 + 6.0 * s,
        )
        .arm(1, 14.0 + 2.0 * s, 9.0, 62.0 + 4.0 * breath)
        .leg(0, 2.0, 4.0 + 2.0 * s, 3.0)
        .leg(1, -1.0, 3.0 - 2.0 * s, 3.0)
}

fn run(phase: f64) -> Pose {
    let (s, c) = sin_cos(phase);
    // Each knee folds most just after its foot leaves the ground behind.
    let fold = |p: f64| 14.0 + 75.0 * cos(p + 1.1).max(0.0);
    Pose::rest()
        .turn(Bone::Pelvis, 10.0, 0.0, -8.0 * s)
        .lift(1.5 * s * s)
        .turn(Bone::Spine, 6.0, 0.0, 14.0 * s)
        .turn(Bone::Head, -12.0, 0.0, -6.0 * s)
        .leg(0, 40.0 * s, fold(phase + std::f64::consts::PI), 2.0)
        .leg(1, -40.0 * s, fold(phase), 2.0)
        .arm(0, -38.0 * s + 8.0, 12.0, 80.0 + 10.0 * c)
        .arm(1, 30.0 * s + 14.0, 12.0, 85.0 - 10.0 * c)
}

/// Recoil: how hard the gun kicks at each frame of an attack.
const KICK: [f64; 9] = [0.15, 1.0, 0.7, 0.45, 0.28, 0.15, 0.07, 0.02, 0.0];

fn attack(at: f64) -> Pose {
    let kick = KICK[at as usize];
    aim(0.0)
        .turn(Bone::Spine, 3.0 - 10.0 * kick, 0.0, 12.0)
        .turn(Bone::Head, -8.0 * kick, 0.0, -12.0)
        .reach(
            1,
            [12.0 - 3.5 * kick, -2.5, 14.5 + 3.5 * kick],
            [-0.3, -1.0, -1.0],
        )
        .reach(
            0,
            [13.0 - 3.0 * kick, 0.5, 13.5 + 3.0 * kick],
            [-0.3, 1.0, -1.0],
        )
        .shift(-0.8 * kick, 0.0)
}

/// How hurt at each frame of a 4-frame pain.
const HURT: [f64; 4] = [0.35, 1.0, 0.55, 0.15];

fn pain(at: f64, which: u32) -> Pose {
    let p = HURT[at as usize];
    let base = ready();
    let hurt = match which {
        // Shot in the chest: thrown back, arms flung out.
        1 => Pose::rest()
            .turn(Bone::Pelvis, -6.0, 0.0, 0.0)
            .shift(-1.5, 0.0)
            .turn(Bone::Spine, -24.0, 0.0, 0.0)
            .turn(Bone::Head, -24.0, 0.0, 0.0)
            .arm(0, 25.0, 40.0, 45.0)
            .arm(1, 25.0, 40.0, 60.0)
            .leg(0, 8.0, 14.0, 4.0)
            .leg(1, -6.0, 10.0, 4.0),
        // Hit on the right: bent to the left, twisted.
        2 => Pose::rest()
            .turn(Bone::Pelvis, 0.0, 6.0, -10.0)
            .shift(0.0, 1.5)
            .turn(Bone::Spine, 0.0, 22.0, -22.0)
            .turn(Bone::Head, 0.0, 20.0, -10.0)
            .arm(0, 10.0, 55.0, 30.0)
            .reach(1, [3.0, -5.0, 12.0], [-1.0, -1.0, -0.5])
            .leg(0, 2.0, 10.0, 6.0)
            .leg(1, -4.0, 16.0, 2.0),
        // Gut shot: doubled over, hands to the belly.
        _ => Pose::rest()
            .turn(Bone::Pelvis, 12.0, 0.0, 0.0)
            .turn(Bone::Spine, 28.0, 0.0, 0.0)
            .turn(Bone::Head, 12.0, 0.0, 0.0)
            .reach(0, [6.0, 2.0, 8.0], [0.0, 1.0, 0.0])
            .reach(1, [6.0, -2.0, 9.0], [0.0, -1.0, 0.0])
            .leg(0, 22.0, 30.0, 4.0)
            .leg(1, 14.0, 24.0, 4.0),
    };
    base.lerp(&hurt, p)
}

fn jump(at: f64) -> Pose {
    let crouch = |lean: f64| {
        Pose::rest()
            .turn(Bone::Pelvis, lean, 0.0, 0.0)
            .turn(Bone::Spine, 10.0, 0.0, 0.0)
            .turn(Bone::Head, -20.0, 0.0, 0.0)
            .leg(0, 50.0, 90.0, 4.0)
            .leg(1, 50.0, 90.0, 4.0)
    };
    keys(
        at,
        &[
            (
                0.0,
                crouch(18.0)
                    .arm(0, -40.0, 10.0, 20.0)
                    .arm(1, -35.0, 10.0, 30.0),
            ),
            (
                1.0,
                Pose::rest()
                    .turn(Bone::Spine, -4.0, 0.0, 0.0)
                    .lift(2.5)
                    .leg_free(0, -4.0, 4.0, 3.0, 35.0)
                    .leg_free(1, -4.0, 4.0, 3.0, 35.0)
                    .arm(0, 110.0, 20.0, 20.0)
                    .arm(1, 100.0, 20.0, 30.0),
            ),
            (
                2.0,
                Pose::rest()
                    .lift(12.0)
                    .turn(Bone::Spine, 8.0, 0.0, 0.0)
                    .leg_free(0, 70.0, 100.0, 6.0, 20.0)
                    .leg_free(1, 60.0, 95.0, 6.0, 20.0)
                    .arm(0, 60.0, 30.0, 30.0)
                    .arm(1, 55.0, 30.0, 40.0),
            ),
            (
                3.0,
                Pose::rest()
                    .lift(9.0)
                    .leg_free(0, 40.0, 55.0, 6.0, 15.0)
                    .leg_free(1, 35.0, 50.0, 6.0, 15.0)
                    .arm(0, 40.0, 40.0, 25.0)
                    .arm(1, 35.0, 40.0, 35.0),
            ),
            (
                4.0,
                Pose::rest()
                    .lift(2.0)
                    .leg_free(0, 20.0, 25.0, 5.0, 10.0)
                    .leg_free(1, 18.0, 22.0, 5.0, 10.0)
                    .arm(0, 20.0, 35.0, 25.0)
                    .arm(1, 20.0, 35.0, 35.0),
            ),
            (
                5.0,
                crouch(14.0)
                    .arm(0, 25.0, 15.0, 30.0)
                    .arm(1, 25.0, 15.0, 50.0),
            ),
        ],
    )
}

fn flip(at: f64) -> Pose {
    let up = |z: f64| {
        ready()
            .turn(Bone::Pelvis, -3.0, 0.0, 0.0)
            .turn(Bone::Spine, -6.0, 0.0, -10.0)
            .turn(Bone::Head, -8.0, -8.0, 10.0)
            .reach(1, [10.0, -6.0, z], [0.0, -1.0, -0.6])
    };
    keys(
        at,
        &[
            (0.0, ready()),
            (3.0, up(25.0)),
            (4.5, up(21.5)),
            (6.0, up(25.5)),
            (7.5, up(21.5)),
            (9.0, up(25.0)),
            (11.0, ready()),
        ],
    )
}

fn salute(at: f64) -> Pose {
    // Drawn up to attention, chest out while the hand is at the brow.
    let saluting = |chest: f64| {
        Pose::rest()
            .turn(Bone::Spine, -chest, 0.0, 0.0)
            .turn(Bone::Head, -4.0 - chest, 0.0, 0.0)
            .arm(0, 0.0, 3.0, 0.0)
            .reach(1, [5.5, -8.5, 27.5], [0.2, -1.0, -0.2])
            .leg(0, 0.0, 0.0, 1.0)
            .leg(1, 0.0, 0.0, 1.0)
    };
    keys(
        at,
        &[
            (0.0, ready()),
            (2.0, saluting(-2.0)),
            (3.0, saluting(0.0)),
            (5.0, saluting(4.0)),
            (7.0, saluting(1.0)),
            (10.0, ready()),
        ],
    )
}

fn taunt(at: f64) -> Pose {
    let hips = |sway: f64| {
        Pose::rest()
            .turn(Bone::Pelvis, 0.0, sway, 0.0)
            .turn(Bone::Spine, -3.0, -sway, 0.0)
            .turn(Bone::Head, -6.0, 6.0, 8.0)
            .reach(0, [0.5, 6.2, 5.0], [-0.4, 1.0, 0.0])
            .reach(1, [0.5, -6.2, 5.0], [-0.4, -1.0, 0.0])
            .leg(0, 4.0, 6.0, 7.0)
            .leg(1, -3.0, 6.0, 7.0)
    };
    // "Come on": the left hand out front, beckoning.
    let beckon = |pull: f64| {
        hips(0.0).turn(Bone::Head, -10.0, 0.0, 5.0).reach(
            0,
            [13.0 - 4.0 * pull, 4.5, 14.0 + 3.0 * pull],
            [0.0, 1.0, -1.0],
        )
    };
    keys(
        at,
        &[
            (0.0, ready()),
            (3.0, hips(6.0)),
            (5.0, hips(-6.0)),
            (7.0, beckon(0.0)),
            (9.0, beckon(1.0)),
            (11.0, beckon(0.0)),
            (13.0, beckon(1.0)),
            (16.0, ready()),
        ],
    )
}

fn wave(at: f64) -> Pose {
    let up = |out: f64| {
        ready()
            .turn(Bone::Spine, 0.0, 6.0, 0.0)
            .turn(Bone::Head, -5.0, 0.0, -10.0)
            .reach(1, [3.0, -9.0 - 6.0 * out, 31.0 - out], [0.0, -1.0, -0.3])
    };
    keys(
        at,
        &[
            (0.0, ready()),
            (2.0, up(0.2)),
            (3.0, up(1.0)),
            (5.0, up(0.0)),
            (7.0, up(1.0)),
            (8.0, up(0.4)),
            (10.0, ready()),
        ],
    )
}

fn point(at: f64) -> Pose {
    let pointing = ready()
        .turn(Bone::Spine, 0.0, 0.0, -14.0)
        .turn(Bone::Head, -2.0, 0.0, 4.0)
        .arm(1, 88.0, 6.0, 4.0);
    keys(
        at,
        &[
            (0.0, ready()),
            (3.0, pointing),
            (8.0, pointing.turn(Bone::Head, -2.0, 0.0, -4.0)),
            (11.0, ready()),
        ],
    )
}

fn crouch_stand(phase: f64) -> Pose {
    let (s, c) = sin_cos(phase);
    crouch()
        .turn(Bone::Spine, 12.0 + 2.0 * sin(2.0 * phase), 0.0, 6.0 * s)
        .turn(Bone::Head, -28.0, 0.0, 24.0 * sin(phase + 0.6))
        .reach(
            1,
            [11.0 + 0.6 * c, -3.0, 12.0 + 0.8 * s],
            [-0.3, -1.0, -1.0],
        )
        .reach(0, [12.0 + 0.6 * c, 0.5, 11.0 + 0.8 * s], [-0.3, 1.0, -1.0])
}

fn crouch_walk(phase: f64) -> Pose {
    let (s, c) = sin_cos(phase);
    crouch()
        .turn(Bone::Pelvis, 22.0, 0.0, -6.0 * s)
        .turn(Bone::Spine, 12.0, 0.0, 8.0 * s)
        .leg(0, 80.0 + 22.0 * s, 122.0 - 18.0 * c, 9.0)
        .leg(1, 80.0 - 22.0 * s, 122.0 + 18.0 * c, 9.0)
        .reach(1, [11.0, -3.0, 12.0 + 0.8 * c], [-0.3, -1.0, -1.0])
        .reach(0, [12.0, 0.5, 11.0 + 0.8 * c], [-0.3, 1.0, -1.0])
}

fn crouch_attack(at: f64) -> Pose {
    let kick = KICK[at as usize];
    crouch()
        .turn(Bone::Spine, 12.0 - 12.0 * kick, 0.0, 0.0)
        .turn(Bone::Head, -28.0 - 6.0 * kick, 0.0, 0.0)
        .reach(
            1,
            [11.0 - 3.5 * kick, -3.0, 13.0 + 3.5 * kick],
            [-0.3, -1.0, -1.0],
        )
        .reach(
            0,
            [12.0 - 3.0 * kick, 0.5, 12.0 + 3.0 * kick],
            [-0.3, 1.0, -1.0],
        )
        .shift(-0.8 * kick, 0.0)
}

fn crouch_pain(at: f64) -> Pose {
    let p = HURT[at as usize];
    let hurt = crouch()
        .turn(Bone::Spine, -14.0, 10.0, -10.0)
        .turn(Bone::Head, -40.0, 12.0, 0.0)
        .arm(0, 30.0, 45.0, 40.0)
        .arm(1, 40.0, 35.0, 70.0)
        .shift(-1.2, 0.0);
    crouch().lerp(&hurt, p)
}

/// Limbs of a body lying down, relaxed.
fn sprawl(pose: Pose, arms: [(f64, f64, f64); 2], legs: [(f64, f64, f64); 2]) -> Pose {
    let mut pose = pose;
    for side in 0..2 {
        let (swing, spread, bend) = arms[side];
        let (leg_swing, leg_spread, knee) = legs[side];
        pose = pose
            .arm(side, swing, spread, bend)
            .leg_free(side, leg_swing, knee, leg_spread, 30.0);
    }
    pose
}

fn crouch_death(at: f64) -> Pose {
    // From the crouch, slumping forward and rolling half onto the right
    // side, face down.
    let tipping = sprawl(
        Pose::rest()
            .turn(Bone::Pelvis, 45.0, -15.0, 0.0)
            .turn(Bone::Spine, 25.0, 0.0, 0.0)
            .turn(Bone::Head, -20.0, -10.0, 0.0)
            .shift(3.0, 0.0),
        [(40.0, 35.0, 50.0), (50.0, 30.0, 60.0)],
        [(70.0, 6.0, 100.0), (65.0, 4.0, 95.0)],
    );
    let down = sprawl(
        Pose::rest()
            .turn(Bone::Pelvis, 88.0, -35.0, 0.0)
            .turn(Bone::Spine, 4.0, 0.0, 0.0)
            .turn(Bone::Head, -8.0, 0.0, 55.0)
            .shift(7.0, 0.0),
        [(-4.0, 22.0, 8.0), (-8.0, 12.0, 12.0)],
        [(2.0, 8.0, 30.0), (-2.0, 4.0, 12.0)],
    );
    keys(
        at,
        &[
            (0.0, crouch().turn(Bone::Head, -45.0, 0.0, 0.0)),
            (2.0, tipping),
            (4.0, down),
        ],
    )
}

fn death1(at: f64) -> Pose {
    // Shot from the front: arms up, knees give, falls on the back.
    keys(
        at,
        &[
            (
                0.0,
                ready()
                    .turn(Bone::Spine, -18.0, 0.0, 0.0)
                    .turn(Bone::Head, -25.0, 0.0, 0.0)
                    .arm(0, 40.0, 50.0, 50.0)
                    .arm(1, 40.0, 50.0, 60.0),
            ),
            (
                2.0,
                Pose::rest()
                    .turn(Bone::Pelvis, -25.0, 0.0, 0.0)
                    .turn(Bone::Spine, -15.0, 0.0, 0.0)
                    .turn(Bone::Head, -20.0, 0.0, 0.0)
                    .leg(0, 30.0, 55.0, 5.0)
                    .leg(1, 25.0, 50.0, 5.0)
                    .arm(0, 60.0, 60.0, 40.0)
                    .arm(1, 50.0, 60.0, 50.0)
                    .shift(-3.0, 0.0),
            ),
            (
                4.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, -70.0, 0.0, 0.0)
                        .turn(Bone::Spine, -5.0, 0.0, 0.0)
                        .turn(Bone::Head, 10.0, 0.0, 0.0)
                        .shift(-7.0, 0.0),
                    [(30.0, 70.0, 30.0), (30.0, 70.0, 30.0)],
                    [(35.0, 8.0, 40.0), (30.0, 6.0, 35.0)],
                ),
            ),
            (
                5.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, -90.0, 0.0, 0.0)
                        .turn(Bone::Head, 0.0, 0.0, 35.0)
                        .shift(-9.0, 0.0),
                    [(0.0, 75.0, 20.0), (0.0, 85.0, 30.0)],
                    [(6.0, 10.0, 6.0), (12.0, 8.0, 14.0)],
                ),
            ),
        ],
    )
}

fn death2(at: f64) -> Pose {
    // Shot in the back: arches, buckles, falls on the face.
    keys(
        at,
        &[
            (
                0.0,
                ready()
                    .turn(Bone::Spine, -16.0, 0.0, 0.0)
                    .turn(Bone::Head, -20.0, 0.0, 0.0)
                    .arm(0, -25.0, 20.0, 20.0)
                    .arm(1, -25.0, 20.0, 30.0),
            ),
            (
                2.0,
                Pose::rest()
                    .turn(Bone::Pelvis, 20.0, 0.0, 0.0)
                    .turn(Bone::Spine, 10.0, 0.0, 0.0)
                    .leg(0, 40.0, 70.0, 4.0)
                    .leg(1, 30.0, 60.0, 4.0)
                    .arm(0, 20.0, 25.0, 30.0)
                    .arm(1, 25.0, 25.0, 40.0)
                    .shift(2.0, 0.0),
            ),
            (
                4.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, 65.0, 0.0, 0.0)
                        .turn(Bone::Spine, 10.0, 0.0, 0.0)
                        .shift(6.0, 0.0),
                    [(100.0, 25.0, 30.0), (90.0, 25.0, 30.0)],
                    [(20.0, 6.0, 50.0), (10.0, 6.0, 40.0)],
                ),
            ),
            (
                5.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, 90.0, 0.0, 0.0)
                        .turn(Bone::Head, -10.0, 0.0, 60.0)
                        .shift(8.0, 0.0),
                    [(178.0, 30.0, 15.0), (176.0, 45.0, 30.0)],
                    [(-4.0, 8.0, 4.0), (-2.0, 5.0, 10.0)],
                ),
            ),
        ],
    )
}

fn death3(at: f64) -> Pose {
    // Spun round by the hit, then down on the back, limbs flung wide.
    keys(
        at,
        &[
            (
                0.0,
                ready()
                    .turn(Bone::Spine, -5.0, 10.0, 30.0)
                    .turn(Bone::Head, -10.0, 15.0, 20.0)
                    .arm(0, 20.0, 60.0, 40.0)
                    .arm(1, 10.0, 30.0, 50.0),
            ),
            (
                2.0,
                Pose::rest()
                    .turn(Bone::Pelvis, 0.0, 8.0, 70.0)
                    .turn(Bone::Spine, -5.0, 15.0, 30.0)
                    .turn(Bone::Head, -15.0, 15.0, 20.0)
                    .leg(0, 10.0, 20.0, 8.0)
                    .leg(1, -5.0, 15.0, 12.0)
                    .arm(0, 20.0, 75.0, 30.0)
                    .arm(1, 10.0, 60.0, 40.0),
            ),
            (
                4.0,
                Pose::rest()
                    .turn(Bone::Pelvis, -20.0, 10.0, 140.0)
                    .turn(Bone::Spine, -10.0, 10.0, 20.0)
                    .turn(Bone::Head, -15.0, 10.0, 0.0)
                    .leg(0, 25.0, 50.0, 8.0)
                    .leg(1, 15.0, 45.0, 10.0)
                    .arm(0, 30.0, 80.0, 30.0)
                    .arm(1, 20.0, 70.0, 40.0)
                    .shift(0.0, -2.0),
            ),
            (
                6.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, -70.0, 5.0, 165.0)
                        .turn(Bone::Spine, -5.0, 5.0, 10.0)
                        .shift(5.0, -3.0),
                    [(20.0, 80.0, 30.0), (20.0, 80.0, 30.0)],
                    [(30.0, 15.0, 40.0), (25.0, 20.0, 30.0)],
                ),
            ),
            (
                7.0,
                sprawl(
                    Pose::rest()
                        .turn(Bone::Pelvis, -90.0, 0.0, 170.0)
                        .turn(Bone::Head, 0.0, 0.0, -30.0)
                        .shift(7.0, -3.0),
                    [(2.0, 95.0, 15.0), (6.0, 70.0, 40.0)],
                    [(8.0, 22.0, 10.0), (16.0, 14.0, 24.0)],
                ),
            ),
        ],
    )
}
