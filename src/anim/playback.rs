//! Animation playback: turning time into the two keyframes and blend factor
//! that the GPU (and the CPU [`reference`](crate::anim::reference)) interpolate.
//!
//! - A [`Clip`] is a frame range played at some frames per second, looping
//!   or once. [`Clip::sample`] gives a [`FrameLerp`]: `frame_a`, `frame_b`
//!   and `t` with `0 <= t < 1`.
//! - [`Quake2Player`] is the 198-frame Quake II player table as a preset,
//!   usable on any player model whatever its frame names say.
//! - A clip plays on a [`ClipClock`](crate::anim::ClipClock) (when it
//!   started, how fast), and a [`Playback`](crate::anim::Playback) blends
//!   two clocks over a given time (a character going from run to attack);
//!   its pose is a [`Pose`]: two [`FrameLerp`]s and a weight. They are the
//!   one vocabulary of both paths (see [`clock`](crate::anim::clock));
//!   0.1.0's `Crossfade` and `Playing` are deprecated.
//!
//! Times are seconds as `f64` everywhere (on the immediate path as on the
//! resident crowd's), reduced in `f64`, so a clock that has run for days (or
//! a time of 1e30) still lands on a frame of the clip.
//!
//! Every function here is total: any time, any frame rate, any frame range
//! gives frames inside the clip and never panics. A time that is not finite
//! is not an instant, so it has no pose: its sample carries a NaN blend
//! factor, which the renderer refuses as it refuses any non-finite instance
//! value (see [`InstancePolicy`](crate::scene::InstancePolicy)), exactly as a
//! resident crowd refuses such a time. Nothing non-finite is ever silently
//! read as some other instant.

use std::ops::RangeInclusive;
use std::sync::Arc;

use crate::model::Animation;
use crate::model::KeyframeModel;

/// The rate at which Quake II ran its animations: 10 frames a second.
pub const QUAKE2_FPS: f32 = 10.0;

/// The largest `f32` below 1: where `t` is clamped so a [`FrameLerp`] from a
/// clip never reaches 1.
const BELOW_ONE: f32 = 1.0 - f32::EPSILON / 2.0;

/// Where an instance is between two keyframes: `frame_a` blended towards
/// `frame_b` by `t`.
///
/// A [`Clip`] gives `0 <= t < 1`; as input to the renderer or the reference,
/// `t == 1.0` is allowed (all `frame_b`), and values outside `[0, 1]` are
/// clamped (NaN reads as 0).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FrameLerp {
    /// The frame at `t = 0`.
    pub frame_a: u32,
    /// The frame at `t = 1`.
    pub frame_b: u32,
    /// How far from `frame_a` towards `frame_b`.
    pub t: f32,
}

impl FrameLerp {
    /// One frame, held: `frame_a = frame_b = frame`, `t = 0`.
    pub const fn still(frame: u32) -> Self {
        FrameLerp {
            frame_a: frame,
            frame_b: frame,
            t: 0.0,
        }
    }
}

/// A crossfade between two [`FrameLerp`]s (e.g. run → attack): `weight` 0
/// is all `primary`, 1 all `secondary`.
///
/// `weight` is clamped to `[0, 1]` where it is used (NaN reads as 0). Where
/// the blended normal has zero length, the table normal of
/// `primary.frame_a` is used: see [`reference`](crate::anim::reference).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pose {
    /// The pose at weight 0.
    pub primary: FrameLerp,
    /// The pose at weight 1.
    pub secondary: FrameLerp,
    /// How far from `primary` towards `secondary`.
    pub weight: f32,
}

/// The names errors give a pose's four frames (primary a and b, secondary
/// a and b), as a path from the pose: the CPU reference's, and through
/// [`fields::POSE_FRAMES`](crate::scene::fields::POSE_FRAMES) `prepare`'s,
/// so both paths name a frame alike. Here, beside the pose, so that the
/// reference needs nothing from the scene above it.
pub(crate) const POSE_FRAME_FIELDS: [&str; 4] = [
    "pose.primary.frame_a",
    "pose.primary.frame_b",
    "pose.secondary.frame_a",
    "pose.secondary.frame_b",
];

impl From<FrameLerp> for Pose {
    /// A pose that is just `lerp`: `secondary = primary`, `weight = 0`.
    fn from(lerp: FrameLerp) -> Self {
        Pose {
            primary: lerp,
            secondary: lerp,
            weight: 0.0,
        }
    }
}

/// A named frame range played at a rate, looping or once.
///
/// # Timing
///
/// Frame `first` is shown at time 0 and each following frame `1 / fps`
/// seconds later, blended linearly in between.
///
/// - **Looping** clips blend the last frame back into the first and repeat;
///   negative times count backwards through the loop (the time is reduced
///   modulo the clip's length with [`f64::rem_euclid`]).
/// - **One-shot** clips (deaths, gestures) reach `last` at
///   `(len - 1) / fps` seconds and then hold it exactly
///   (`frame_a = frame_b = last`, `t = 0`); before time 0 they hold
///   `first`.
///
/// # Edge cases
///
/// - `last < first` is read as the single frame `first`.
/// - A one-frame clip always gives that frame held.
/// - An `fps` that is 0, negative, NaN or infinite holds `first` (a clip
///   that cannot advance: a property of the clip, read the same way on
///   every path).
/// - A time that is NaN or infinite is no instant: the sample is `first`
///   with `t` NaN (see the [module docs](self)).
/// - A finite time whose position overflows (`time × fps` past `f64::MAX`)
///   holds `last` (one-shot) or `first` (looping, where no phase is
///   defined).
///
/// The name is shared (`Arc<str>`), so a clip clones without allocating.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// A name for people (an animation name such as `run`).
    pub name: Arc<str>,
    /// The first frame (an index into the model's frames).
    pub first: u32,
    /// The last frame, inclusive.
    pub last: u32,
    /// Frames per second; Quake II used [`QUAKE2_FPS`].
    pub fps: f32,
    /// Whether the clip repeats (blending its last frame into its first) or
    /// holds its last frame.
    pub looping: bool,
}

impl Clip {
    /// A looping clip over `first..=last` at [`QUAKE2_FPS`].
    pub fn looping(name: impl Into<Arc<str>>, first: u32, last: u32) -> Self {
        Clip {
            name: name.into(),
            first,
            last,
            fps: QUAKE2_FPS,
            looping: true,
        }
    }

    /// A one-shot clip over `first..=last` at [`QUAKE2_FPS`] that holds its
    /// last frame once it gets there.
    pub fn once(name: impl Into<Arc<str>>, first: u32, last: u32) -> Self {
        Clip {
            looping: false,
            ..Clip::looping(name, first, last)
        }
    }

    /// The same clip at another rate.
    pub fn with_fps(self, fps: f32) -> Self {
        Clip { fps, ..self }
    }

    /// The clip playing since `start` (seconds on the caller's clock): a
    /// side of a [`Crossfade`].
    #[deprecated(note = "use `ClipClock::new(clip, start)`; this method goes in the next release")]
    #[allow(deprecated)]
    pub fn started_at(self, start: f64) -> Playing {
        Playing { clip: self, start }
    }

    /// The clips of a model, one per [`Animation`] found from its frame
    /// names (see [`KeyframeModel::animations`]); looping as [`Clip::from`]
    /// an animation decides.
    pub fn for_model(model: &KeyframeModel) -> Vec<Clip> {
        model.animations().iter().map(Clip::from).collect()
    }

    /// How many frames the clip plays (1 when `last < first`).
    pub fn len(&self) -> u64 {
        if self.last < self.first {
            1
        } else {
            u64::from(self.last - self.first) + 1
        }
    }

    /// Always false: a clip plays at least one frame.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The frames the clip plays: `first..=last`, or `first..=first` when
    /// `last < first`.
    pub fn frames(&self) -> RangeInclusive<u32> {
        self.first..=self.last.max(self.first)
    }

    /// Seconds for one pass: `len / fps` for a looping clip (the last frame
    /// blends back into the first), `(len - 1) / fps` for a one-shot clip
    /// (when it reaches its last frame). 0 where the clip cannot advance (one
    /// frame, or an `fps` that is not positive and finite).
    pub fn duration(&self) -> f64 {
        let fps = f64::from(self.fps);
        let frames = if self.looping {
            self.len()
        } else {
            self.len() - 1
        };
        if self.len() == 1 || !(fps.is_finite() && fps > 0.0) {
            return 0.0;
        }
        frames as f64 / fps
    }

    /// Whether a one-shot clip started at time 0 has reached its last frame
    /// by `time` (and holds it from then on). A one-frame one-shot clip is
    /// finished from the start; a looping clip never finishes, nor does a
    /// one-shot clip whose `fps` cannot advance it (it holds `first`).
    pub fn is_finished(&self, time_seconds: f64) -> bool {
        !self.looping && self.sample(time_seconds) == FrameLerp::still(self.last.max(self.first))
    }

    /// Where the clip is `time_seconds` after it started: see the
    /// [type docs](Clip) for every case. Both frames are in
    /// [`Clip::frames`]; `0 <= t < 1` for every finite time, NaN for a time
    /// that is not.
    pub fn sample(&self, time_seconds: f64) -> FrameLerp {
        let first = self.first;
        if !time_seconds.is_finite() {
            return FrameLerp {
                t: f32::NAN,
                ..FrameLerp::still(first)
            };
        }
        let len = self.len();
        let fps = f64::from(self.fps);
        if len == 1 || !(fps.is_finite() && fps > 0.0) {
            return FrameLerp::still(first);
        }
        // Frames since the start: finite up to f64::MAX, infinite where the
        // product overflows (handled below).
        let pos = time_seconds * fps;
        let frames = len as f64;
        if self.looping {
            if !pos.is_finite() {
                return FrameLerp::still(first);
            }
            let r = pos.rem_euclid(frames);
            // rem_euclid rounds a tiny negative position up to `frames`
            // itself: that is the very end of the loop.
            let (index, t) = if r >= frames {
                (len - 1, BELOW_ONE)
            } else {
                let whole = r.floor();
                (whole as u64, below_one(r - whole))
            };
            let frame_a = first + index as u32;
            let frame_b = if index + 1 == len { first } else { frame_a + 1 };
            FrameLerp {
                frame_a,
                frame_b,
                t,
            }
        } else if pos < 0.0 {
            FrameLerp::still(first)
        } else if pos >= frames - 1.0 {
            FrameLerp::still(self.last)
        } else {
            let whole = pos.floor();
            let frame_a = first + whole as u32;
            FrameLerp {
                frame_a,
                frame_b: frame_a + 1,
                t: below_one(pos - whole),
            }
        }
    }
}

/// A fraction in `[0, 1)` as `f32`, which rounding must not carry to 1.
fn below_one(fraction: f64) -> f32 {
    (fraction as f32).min(BELOW_ONE)
}

impl From<&Animation> for Clip {
    /// A clip over the animation's frames at [`QUAKE2_FPS`]. It loops
    /// unless its name is one of the Quake II player's one-shot animations
    /// (deaths, pains, gestures, ...: see [`Quake2Player::looping`]), as
    /// monsters name theirs alike (`death1`, `pain2`), or otherwise names a
    /// death (`deatha`, `crdeath`, `die2`, `dead`): a body that falls and
    /// then stands up to fall again is the bug this avoids. A name made
    /// unique with a suffix (`pain1_2`, see
    /// [the naming rule](crate::model::animations#names)) plays as the name without
    /// it.
    fn from(animation: &Animation) -> Self {
        let name = without_unique_suffix(&animation.name);
        let looping = match Quake2Player::from_name(name) {
            Some(player) => player.looping(),
            None => !names_a_death(name),
        };
        Clip {
            name: animation.name.as_str().into(),
            first: animation.first,
            last: animation.last,
            fps: QUAKE2_FPS,
            looping,
        }
    }
}

/// `name` without a trailing `_` and digits: the form of the `_2`, `_3`
/// suffix that makes repeated animation names unique. No player animation
/// name has an `_`, and a death is one with or without it, so stripping
/// such an ending from a name the frames gave changes nothing.
fn without_unique_suffix(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

fn names_a_death(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("death") || name.starts_with("die") || name.starts_with("dead")
}

/// The Quake II player's animations: the 198-frame table every player model
/// (and the weapon models that follow it) shares.
///
/// The table is by frame index, so it works for any 198-frame player model
/// whatever its frame names say (many name all three pains `pain001..012`).
/// Looping follows the game (`G_SetClientFrame` in `p_view.c`): the game
/// falls back to stand, run, crouched stand and crouched walk and repeats
/// them; everything else plays once (the deaths hold their last frame, the
/// others hand back to stand or run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // the variants are the game's animation names
pub enum Quake2Player {
    Stand,
    Run,
    Attack,
    Pain1,
    Pain2,
    Pain3,
    Jump,
    Flip,
    Salute,
    Taunt,
    Wave,
    Point,
    CrouchStand,
    CrouchWalk,
    CrouchAttack,
    CrouchPain,
    CrouchDeath,
    Death1,
    Death2,
    Death3,
}

/// Per animation: name, frame-name stem, first frame number in the names,
/// digits in the names, first frame, last frame, looping.
struct Entry {
    name: &'static str,
    stem: &'static str,
    number: u32,
    digits: usize,
    first: u32,
    last: u32,
    looping: bool,
}

const fn entry(
    name: &'static str,
    stem: &'static str,
    number: u32,
    digits: usize,
    first: u32,
    last: u32,
    looping: bool,
) -> Entry {
    Entry {
        name,
        stem,
        number,
        digits,
        first,
        last,
        looping,
    }
}

/// In [`Quake2Player::ALL`] order.
const TABLE: [Entry; 20] = [
    entry("stand", "stand", 1, 2, 0, 39, true),
    entry("run", "run", 1, 1, 40, 45, true),
    entry("attack", "attack", 1, 1, 46, 53, false),
    entry("pain1", "pain", 101, 3, 54, 57, false),
    entry("pain2", "pain", 201, 3, 58, 61, false),
    entry("pain3", "pain", 301, 3, 62, 65, false),
    entry("jump", "jump", 1, 1, 66, 71, false),
    entry("flip", "flip", 1, 2, 72, 83, false),
    entry("salute", "salute", 1, 2, 84, 94, false),
    entry("taunt", "taunt", 1, 2, 95, 111, false),
    entry("wave", "wave", 1, 2, 112, 122, false),
    entry("point", "point", 1, 2, 123, 134, false),
    entry("crstand", "crstnd", 1, 2, 135, 153, true),
    entry("crwalk", "crwalk", 1, 1, 154, 159, true),
    entry("crattack", "crattak", 1, 1, 160, 168, false),
    entry("crpain", "crpain", 1, 1, 169, 172, false),
    entry("crdeath", "crdeath", 1, 1, 173, 177, false),
    entry("death1", "death", 101, 3, 178, 183, false),
    entry("death2", "death", 201, 3, 184, 189, false),
    entry("death3", "death", 301, 3, 190, 197, false),
];

impl Quake2Player {
    /// How many frames a Quake II player model has.
    pub const FRAME_COUNT: u32 = 198;

    /// Every animation, in frame order.
    pub const ALL: [Quake2Player; 20] = [
        Quake2Player::Stand,
        Quake2Player::Run,
        Quake2Player::Attack,
        Quake2Player::Pain1,
        Quake2Player::Pain2,
        Quake2Player::Pain3,
        Quake2Player::Jump,
        Quake2Player::Flip,
        Quake2Player::Salute,
        Quake2Player::Taunt,
        Quake2Player::Wave,
        Quake2Player::Point,
        Quake2Player::CrouchStand,
        Quake2Player::CrouchWalk,
        Quake2Player::CrouchAttack,
        Quake2Player::CrouchPain,
        Quake2Player::CrouchDeath,
        Quake2Player::Death1,
        Quake2Player::Death2,
        Quake2Player::Death3,
    ];

    fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }

    /// The animation's name: `stand`, `run`, ..., `crstand`, `crattack`,
    /// `death3`.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The name [`KeyframeModel::animations`](crate::model::KeyframeModel::animations) gives the animation when the frames
    /// carry the game's names: the same as [`Quake2Player::name`] except
    /// `crstnd` and `crattak`, as the frames are named `crstnd01`,
    /// `crattak1`.
    pub fn group_name(self) -> &'static str {
        match self {
            Quake2Player::CrouchStand => "crstnd",
            Quake2Player::CrouchAttack => "crattak",
            other => other.name(),
        }
    }

    /// The animation with this [name](Quake2Player::name) or
    /// [group name](Quake2Player::group_name), ASCII case ignored.
    pub fn from_name(name: &str) -> Option<Quake2Player> {
        Quake2Player::ALL.into_iter().find(|p| {
            name.eq_ignore_ascii_case(p.name()) || name.eq_ignore_ascii_case(p.group_name())
        })
    }

    /// The animation frame `frame` (an index into a 198-frame model) belongs
    /// to; `None` past the table.
    pub fn of_frame(frame: u32) -> Option<Quake2Player> {
        Quake2Player::ALL
            .into_iter()
            .find(|p| p.frames().contains(&frame))
    }

    /// The frame indices, inclusive.
    pub fn frames(self) -> RangeInclusive<u32> {
        let e = self.entry();
        e.first..=e.last
    }

    /// Whether the game repeats it (stand, run, crstand, crwalk).
    pub fn looping(self) -> bool {
        self.entry().looping
    }

    /// The game's name for the `k`-th frame of the animation, counting from
    /// 0: `stand01`, `run1`, `pain101`, `crstnd19`, `death308`. `k` past the
    /// animation's length continues the numbering.
    pub fn frame_name(self, k: u32) -> String {
        let e = self.entry();
        format!(
            "{}{:0width$}",
            e.stem,
            e.number.saturating_add(k),
            width = e.digits
        )
    }

    /// The animation as a clip at [`QUAKE2_FPS`].
    pub fn clip(self) -> Clip {
        let e = self.entry();
        Clip {
            name: e.name.into(),
            first: e.first,
            last: e.last,
            fps: QUAKE2_FPS,
            looping: e.looping,
        }
    }

    /// All twenty clips, in frame order.
    pub fn clips() -> Vec<Clip> {
        Quake2Player::ALL
            .into_iter()
            .map(Quake2Player::clip)
            .collect()
    }

    /// Whether `model` has the player's 198 frames, so the table applies.
    pub fn fits(model: &KeyframeModel) -> bool {
        model.frame_count() == Quake2Player::FRAME_COUNT
    }
}

/// A clip and the time it started, in seconds on the caller's clock: one
/// side of a [`Crossfade`]. Made with [`Clip::started_at`], so that each
/// time stands next to the clip it belongs to.
#[deprecated(
    note = "use `ClipClock` (`ClipClock::new(clip, start)`), the crowd's and the immediate path's one clock; `Playing` goes in the next release"
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Playing {
    /// The clip.
    pub clip: Clip,
    /// When it started.
    pub start: f64,
}

/// A character changing from one clip to another: the state a renderer
/// samples each frame while, say, run turns into attack.
///
/// ```
/// use md2_wgpu::{Quake2Player, anim::Crossfade};
///
/// // Running since 1 s; at 3 s attack starts and takes over within 0.4 s.
/// let run = Quake2Player::Run.clip().started_at(1.0);
/// let attack = Quake2Player::Attack.clip().started_at(3.0);
/// let fade = Crossfade::new(run, attack, 0.4);
/// assert_eq!(fade.weight(3.0), 0.0);
/// assert_eq!(fade.weight(4.0), 1.0);
/// ```
///
/// Each clip runs on its own clock (`from` started at `from_start`, `to` at
/// `to_start`, all times in seconds on the caller's clock); the weight of
/// `to` rises from 0 to 1 between `start` and `start + duration` along a
/// smoothstep (`3u² − 2u³`), so the change starts and ends without a jolt.
///
/// - Before `start` the weight is 0; from `start + duration` on it is 1.
/// - A `duration` of 0 or negative is a cut at `start`.
/// - A time, start or duration that is not finite gives a NaN weight (and
///   a NaN `t` for a clip sampled at such a time): no pose, which the
///   renderer refuses (see the [module docs](self)).
///
/// [`Crossfade::new`] is the common case (`to` starts as the fade starts);
/// [`Crossfade::then`] moves on to a third clip.
#[deprecated(
    note = "use `Playback` (`Playback::new(clip, start)`, `then(ClipClock::new(next, at), at, duration)`), the one crossfade the crowd and the immediate path share; `Crossfade` goes in the next release"
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Crossfade {
    /// The clip faded out (the pose's `primary`).
    pub from: Clip,
    /// When `from` started.
    pub from_start: f64,
    /// The clip faded in (the pose's `secondary`).
    pub to: Clip,
    /// When `to` started.
    pub to_start: f64,
    /// When the fade starts.
    pub start: f64,
    /// How long the fade takes, in seconds.
    pub duration: f64,
}

#[allow(deprecated)]
impl Crossfade {
    /// Fades from `from` into `to` over `duration` seconds; the fade starts
    /// as `to` does.
    pub fn new(from: Playing, to: Playing, duration: f64) -> Self {
        Crossfade {
            from: from.clip,
            from_start: from.start,
            to: to.clip,
            to_start: to.start,
            start: to.start,
            duration,
        }
    }

    /// Just one clip playing: a state with no fade in progress, ready for
    /// [`Crossfade::then`].
    pub fn still(playing: Playing) -> Self {
        let Playing { clip, start } = playing;
        Crossfade {
            from: clip.clone(),
            from_start: start,
            to: clip,
            to_start: start,
            start,
            duration: 0.0,
        }
    }

    /// The weight of `to` at `time`: see the [type docs](Crossfade).
    pub fn weight(&self, time: f64) -> f32 {
        fade_weight(time - self.start, self.duration)
    }

    /// Whether the fade is over at `time` (all `to`).
    pub fn is_finished(&self, time: f64) -> bool {
        self.weight(time) >= 1.0
    }

    /// The blend at `time`: `from` sampled as primary, `to` as secondary,
    /// weighted by [`Crossfade::weight`].
    pub fn pose(&self, time: f64) -> Pose {
        Pose {
            primary: self.from.sample(time - self.from_start),
            secondary: self.to.sample(time - self.to_start),
            weight: self.weight(time),
        }
    }

    /// Starts a fade from this state into `next`, as `next` starts, over
    /// `duration` seconds.
    ///
    /// A pose blends two clips, not three: the new fade starts from
    /// whichever of `from` and `to` weighs more when `next` starts (with its
    /// own clock), so a change requested mid-fade drops the lighter clip.
    pub fn then(&self, next: Playing, duration: f64) -> Crossfade {
        let from = if self.weight(next.start) >= 0.5 {
            self.to.clone().started_at(self.to_start)
        } else {
            self.from.clone().started_at(self.from_start)
        };
        Crossfade::new(from, next, duration)
    }
}

/// The weight of a fade `since` seconds after it started, over `duration`
/// seconds: 0 before the start, a smoothstep (`3u² − 2u³`) in between, 1
/// after; a `duration` of 0 or negative is a cut. NaN where either is not
/// finite: no such instant (see the [module docs](self)). The resident
/// crowd's clocks (`clock`) use it too, so both blend alike.
pub(crate) fn fade_weight(since: f64, duration: f64) -> f32 {
    if !(since.is_finite() && duration.is_finite()) {
        return f32::NAN;
    }
    if since < 0.0 {
        return 0.0;
    }
    if duration <= 0.0 {
        return 1.0;
    }
    let u = (since / duration).min(1.0);
    (u * u * (3.0 - 2.0 * u)) as f32
}
