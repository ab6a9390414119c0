//! Clips, the Quake II player preset, crossfades and the CPU reference
//! interpolation: every edge case defined, the arithmetic as the contract
//! fixes it, no allocation per call, and agreement with an independent
//! decoder on real files (where `../shared/md2` is present).

use md2_wgpu_tests as common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use md2_wgpu::anim::reference::{ReferenceError, blend, decode_frame, interpolate};
use md2_wgpu::demo::demo_model;
use md2_wgpu::{
    Clip, Md2Model, Quake2Player,
    anim::{ClipClock, FrameLerp, Playback, Pose, QUAKE2_FPS},
    format::{Md2Parts, TexCoord, Triangle},
    model::{ANORMS, Animation, Frame, PackedVertex},
};

/// Counts this thread's allocations, so a test can see that a call made
/// none (other test threads allocate as they please).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

const BELOW_ONE: f32 = 1.0 - f32::EPSILON / 2.0;

fn lerp(frame_a: u32, frame_b: u32, t: f32) -> FrameLerp {
    FrameLerp {
        frame_a,
        frame_b,
        t,
    }
}

fn run() -> Clip {
    Quake2Player::Run.clip()
}

fn death() -> Clip {
    Quake2Player::Death1.clip()
}

// ---------------------------------------------------------------- clips

#[test]
fn a_looping_clip_steps_at_its_rate_and_wraps_last_to_first() {
    let run = run();
    assert_eq!((run.first, run.last, run.fps), (40, 45, QUAKE2_FPS));
    // Times and rates chosen so every product is exact in binary.
    assert_eq!(run.sample(0.0), lerp(40, 41, 0.0));
    assert_eq!(run.sample(0.25), lerp(42, 43, 0.5));
    assert_eq!(run.sample(0.5), lerp(45, 40, 0.0));
    assert_eq!(run.sample(1.25), lerp(40, 41, 0.5));
    let slow = run.clone().with_fps(4.0);
    assert_eq!(slow.sample(1.375), lerp(45, 40, 0.5));
    assert_eq!(slow.sample(1.5), lerp(40, 41, 0.0));
    assert!((run.duration() - 0.6).abs() < 1e-6);
    assert!(!run.is_finished(1e9));
    assert_eq!(run.clone().with_fps(20.0).sample(0.125), lerp(42, 43, 0.5));
}

#[test]
fn a_looping_clip_runs_backwards_through_negative_time() {
    let run = run().with_fps(4.0);
    assert_eq!(run.sample(-0.125), lerp(45, 40, 0.5));
    assert_eq!(run.sample(-1.5), lerp(40, 41, 0.0));
    assert_eq!(run.sample(-0.875), lerp(42, 43, 0.5));
    // So small that rem_euclid rounds it up to the whole loop: the very end.
    let tiny = run.sample(-1e-300);
    assert_eq!((tiny.frame_a, tiny.frame_b), (45, 40));
    assert!(tiny.t < 1.0 && tiny.t > 0.999);
}

#[test]
fn a_one_shot_clip_holds_its_last_frame_exactly() {
    let death = death();
    assert_eq!(death.sample(0.0), lerp(178, 179, 0.0));
    assert_eq!(death.sample(0.4375), lerp(182, 183, 0.375));
    let just_before = death.sample(0.4999);
    assert_eq!((just_before.frame_a, just_before.frame_b), (182, 183));
    assert!(just_before.t > 0.9 && just_before.t < 1.0);
    // The end is reached and held: never blended back towards the start.
    for time in [0.5, 0.50001, 0.7, 3.0, 1e6, 1e30, f64::MAX] {
        assert_eq!(death.sample(time), FrameLerp::still(183), "at {time}");
    }
    assert!((death.duration() - 0.5).abs() < 1e-6);
    assert!(!death.is_finished(0.49));
    assert!(death.is_finished(0.5));
    // Before it starts it holds the first frame.
    for time in [-0.01, -5.0, -1e30, f64::MIN] {
        assert_eq!(death.sample(time), FrameLerp::still(178), "at {time}");
    }
}

#[test]
fn odd_rates_and_times_are_defined() {
    for looping in [true, false] {
        let clip = Clip { looping, ..run() };
        for fps in [0.0, -0.0, -10.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let odd = clip.clone().with_fps(fps);
            for time in [0.0, 0.37, -3.0, 1e30, f64::MAX] {
                assert_eq!(
                    odd.sample(time),
                    FrameLerp::still(40),
                    "fps {fps} at {time}"
                );
            }
            assert_eq!(odd.duration(), 0.0);
        }
        // A time that is not finite is no instant: first frame, NaN t,
        // which a renderer refuses (or repairs to t = 0 under Clamp).
        for time in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let s = clip.sample(time);
            assert_eq!((s.frame_a, s.frame_b), (40, 40), "at {time}");
            assert!(s.t.is_nan(), "at {time}");
        }
    }
    // A finite time whose position overflows: no phase for a loop, so its
    // first frame.
    assert_eq!(run().sample(f64::MAX), FrameLerp::still(40));
    assert_eq!(run().sample(f64::MIN), FrameLerp::still(40));
}

#[test]
fn short_and_inverted_clips_are_defined() {
    let one = Clip::looping("one", 7, 7);
    let inverted = Clip::once("inverted", 9, 3);
    assert_eq!((one.len(), inverted.len()), (1, 1));
    assert_eq!(inverted.frames(), 9..=9);
    for clip in [
        &one,
        &Clip {
            looping: false,
            ..one.clone()
        },
    ] {
        for time in [0.0, 0.5, -2.0, 1e30] {
            assert_eq!(clip.sample(time), FrameLerp::still(7));
        }
        assert_eq!(clip.duration(), 0.0);
    }
    assert!(Clip::once("one", 7, 7).is_finished(0.0));
    for looping in [true, false] {
        let clip = Clip {
            looping,
            ..inverted.clone()
        };
        for time in [0.0, 0.5, -2.0, 1e30] {
            assert_eq!(clip.sample(time), FrameLerp::still(9));
        }
    }
    // The widest range a u32 allows.
    let all = Clip::looping("all", 0, u32::MAX);
    assert_eq!(all.len(), 1 << 32);
    let far = all.sample(-0.05);
    assert_eq!((far.frame_a, far.frame_b), (u32::MAX, 0));
    assert_eq!(
        Clip::once("all", 0, u32::MAX).sample(1e30),
        FrameLerp::still(u32::MAX)
    );
}

#[test]
fn long_running_clocks_keep_their_place() {
    let run = run();
    // 1_000_002.5 frames is 0.5 into the loop.
    assert_eq!(run.sample(100_000.25), lerp(40, 41, 0.5));
    // A clock a year in keeps sub-frame precision.
    let year = 365.0 * 86_400.0;
    assert_eq!(run.sample(year + 0.25), lerp(42, 43, 0.5));
    let far = run.sample(1e300);
    assert!(far.t >= 0.0 && far.t < 1.0 && (40..=45).contains(&far.frame_a));
}

/// A deterministic spread of finite times, plain and pathological.
fn times() -> Vec<f64> {
    let mut out = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        1e-40,
        -1e-40,
        1e-320,
        f64::MAX,
        f64::MIN,
        1e30,
        -1e30,
    ];
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..4000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let bits = x as u32;
        let t = f32::from_bits(bits);
        out.push(if t.is_finite() {
            f64::from(t)
        } else {
            f64::from(bits % 100_000) * 0.0137 - 400.0
        });
        out.push((x >> 40) as f64 * 1e-4 - 500.0);
    }
    out
}

#[test]
fn every_sample_of_every_clip_is_in_range() {
    let mut clips = Quake2Player::clips();
    clips.push(Clip::looping("one", 3, 3));
    clips.push(Clip::once("two", 3, 4));
    clips.push(Clip::looping("two", 3, 4).with_fps(1e-30));
    clips.push(Clip::looping("fast", 0, 9).with_fps(1e30));
    clips.push(Clip::once("inverted", 5, 1));
    let times = times();
    for clip in &clips {
        for looping in [true, false] {
            let clip = Clip {
                looping,
                ..clip.clone()
            };
            for &time in &times {
                let s = clip.sample(time);
                let frames = clip.frames();
                assert!(
                    frames.contains(&s.frame_a) && frames.contains(&s.frame_b),
                    "{clip:?} at {time}: {s:?}"
                );
                assert!(s.t >= 0.0 && s.t < 1.0, "{clip:?} at {time}: {s:?}");
                let next = if s.frame_a == *frames.end() {
                    if looping { *frames.start() } else { s.frame_a }
                } else {
                    s.frame_a + 1
                };
                assert!(
                    s.frame_b == next || (s.frame_b == s.frame_a && s.t == 0.0),
                    "{clip:?} at {time}: {s:?}"
                );
            }
        }
    }
}

#[test]
fn t_never_rounds_up_to_one() {
    // Positions a hair below a whole frame round to 1.0 in f32.
    let clip = Clip::looping("x", 0, 9);
    let s = clip.sample(0.299_999_999_999);
    assert_eq!((s.frame_a, s.frame_b), (2, 3));
    assert_eq!(s.t, BELOW_ONE);
}

// ---------------------------------------------------------------- preset

#[test]
fn the_quake2_player_table_covers_198_frames_in_order() {
    let mut next = 0;
    for anim in Quake2Player::ALL {
        assert_eq!(*anim.frames().start(), next, "{}", anim.name());
        next = anim.frames().end() + 1;
        assert_eq!(Quake2Player::from_name(anim.name()), Some(anim));
        assert_eq!(Quake2Player::from_name(anim.group_name()), Some(anim));
        assert_eq!(
            Quake2Player::from_name(&anim.name().to_uppercase()),
            Some(anim)
        );
        for f in anim.frames() {
            assert_eq!(Quake2Player::of_frame(f), Some(anim));
        }
        let clip = anim.clip();
        assert_eq!((clip.first..=clip.last), anim.frames());
        assert_eq!(clip.looping, anim.looping());
        assert_eq!(&*clip.name, anim.name());
    }
    assert_eq!(next, Quake2Player::FRAME_COUNT);
    assert_eq!(Quake2Player::of_frame(198), None);
    assert_eq!(Quake2Player::from_name("boom"), None);
    let looping: Vec<_> = Quake2Player::ALL
        .into_iter()
        .filter(|a| a.looping())
        .map(Quake2Player::name)
        .collect();
    assert_eq!(looping, ["stand", "run", "crstand", "crwalk"]);
    let ranges: Vec<_> = Quake2Player::ALL
        .into_iter()
        .map(|a| (a.name(), *a.frames().start(), *a.frames().end()))
        .collect();
    assert_eq!(ranges, common::QUAKE2_PLAYER_FRAMES);
}

#[test]
fn frame_names_follow_the_game() {
    let names = [
        (Quake2Player::Stand, 0, "stand01"),
        (Quake2Player::Stand, 39, "stand40"),
        (Quake2Player::Run, 5, "run6"),
        (Quake2Player::Pain2, 0, "pain201"),
        (Quake2Player::Flip, 11, "flip12"),
        (Quake2Player::CrouchStand, 18, "crstnd19"),
        (Quake2Player::CrouchAttack, 8, "crattak9"),
        (Quake2Player::Death3, 7, "death308"),
    ];
    for (anim, k, name) in names {
        assert_eq!(anim.frame_name(k), name);
    }
}

#[test]
fn clips_come_from_a_models_frame_names() {
    let model = demo_model();
    assert!(Quake2Player::fits(&model));
    let clips = Clip::for_model(&model);
    assert_eq!(clips.len(), 20);
    for (clip, anim) in clips.iter().zip(Quake2Player::ALL) {
        assert_eq!(&*clip.name, anim.group_name());
        assert_eq!((clip.first..=clip.last), anim.frames());
        assert_eq!(clip.looping, anim.looping(), "{}", clip.name);
        assert_eq!(clip.fps, QUAKE2_FPS);
    }
    // Names the preset does not know loop.
    let boom = Clip::from(&Animation {
        name: "boom".into(),
        first: 3,
        last: 9,
    });
    assert!(boom.looping);
    assert_eq!((boom.first, boom.last), (3, 9));
    let death = Clip::from(&Animation {
        name: "death2".into(),
        first: 0,
        last: 4,
    });
    assert!(!death.looping);
    // Monsters' and odd players' deaths play once too, whatever the suffix.
    for name in ["deatha", "crdeath", "death", "Die3", "dead"] {
        let clip = Clip::from(&Animation {
            name: name.into(),
            first: 0,
            last: 4,
        });
        assert!(!clip.looping, "{name} should play once");
    }
    // A name made unique by a suffix plays as the name without it, and keeps
    // the suffix as its name.
    for (name, looping) in [
        ("pain1_2", false),
        ("crstand_2", true),
        ("crstnd_3", true),
        ("death_2", false),
        ("boom_2", true),
    ] {
        let clip = Clip::from(&Animation {
            name: name.into(),
            first: 0,
            last: 4,
        });
        assert_eq!((clip.name.as_ref(), clip.looping), (name, looping));
    }
}

// ---------------------------------------------------------------- crossfade

/// `clip` playing from `start`, no fade.
fn playing(clip: Clip, start: f64) -> Playback {
    Playback::new(clip, start)
}

#[test]
fn a_crossfade_eases_from_one_clip_to_the_other() {
    let attack = ClipClock::new(Quake2Player::Attack.clip(), 3.0);
    let playback = playing(run(), 1.0).then(attack.clone(), 3.0, 0.4);
    assert_eq!(
        (playback.clock.start, playback.clock.clip.name.as_ref()),
        (1.0, "run")
    );
    let fade = playback.fade.clone().expect("a fade");
    assert_eq!((fade.to.start, fade.start), (3.0, 3.0));
    assert_eq!(fade.weight(2.9), 0.0);
    assert_eq!(fade.weight(3.0), 0.0);
    assert!((fade.weight(3.2) - 0.5).abs() < 1e-6);
    // On the tick grid (2^20 a second) the time since the start and the
    // duration each round by at most half a tick, so u = 0.25 is off by at
    // most (0.5 + 0.25 * 0.5) / 419,430 < 1.5e-6, and the smoothstep's
    // slope there is 6u(1 - u) = 1.125: the weight within 1.7e-6.
    assert!((fade.weight(3.1) - 0.15625).abs() < 1.7e-6, "smoothstep");
    assert_eq!(fade.weight(3.4), 1.0);
    assert_eq!(fade.weight(8e12), 1.0);
    let mut last = 0.0;
    for i in 0..=100 {
        let w = fade.weight(3.0 + 0.004 * f64::from(i));
        assert!(w >= last && (0.0..=1.0).contains(&w));
        last = w;
    }
    assert!(fade.weight(3.39) < 1.0);
    let pose = playback.pose(3.2);
    assert_eq!(pose.primary, ClipClock::new(run(), 1.0).sample(3.2));
    assert_eq!(pose.secondary, attack.sample(3.2));
    // On the tick grid, within a tick of the clip time itself (away from
    // a frame boundary: 2.15 s into run is 21.5 frames).
    let (ticked, direct) = (playback.pose(3.15).primary, run().sample(2.15));
    assert_eq!(
        (ticked.frame_a, ticked.frame_b),
        (direct.frame_a, direct.frame_b)
    );
    assert!((ticked.t - direct.t).abs() < 1e-5);
    assert!((pose.weight - 0.5).abs() < 1e-6);
}

#[test]
fn crossfade_edge_cases_are_defined() {
    let cut = |duration| playing(run(), 0.0).then(ClipClock::new(death(), 2.0), 2.0, duration);
    for duration in [0.0, -1.0, -1e300] {
        let fade = cut(duration).fade.unwrap();
        assert_eq!(fade.weight(1.99), 0.0, "{duration}");
        assert_eq!(fade.weight(2.0), 1.0, "{duration}");
    }
    // Every time on the clock has a pose, however far (±2^43 s).
    for time in [8e12, -8e12] {
        let pose = cut(0.5).pose(time);
        assert!(!pose.weight.is_nan(), "at {time}");
        assert!(!pose.primary.t.is_nan() && !pose.secondary.t.is_nan());
    }
    // A time, start or duration that is not finite, or off the clock, has
    // none: NaN, which a renderer refuses as a crowd refuses the values.
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(
            cut(bad).fade.unwrap().weight(3.0).is_nan(),
            "duration {bad}"
        );
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e30] {
        assert!(cut(0.5).fade.unwrap().weight(bad).is_nan(), "time {bad}");
        let mut start = cut(0.5);
        start.fade.as_mut().unwrap().start = bad;
        assert!(start.pose(3.0).weight.is_nan(), "start {bad}");
        let pose = cut(0.5).pose(bad);
        assert!(pose.weight.is_nan() && pose.primary.t.is_nan() && pose.secondary.t.is_nan());
    }
}

#[test]
fn a_change_mid_fade_starts_from_the_heavier_clip() {
    let attack = Quake2Player::Attack.clip();
    let fade = playing(run(), 0.0).then(ClipClock::new(attack.clone(), 1.0), 1.0, 1.0);
    let early = fade.then(ClipClock::new(death(), 1.2), 1.2, 0.3);
    assert_eq!(
        (early.clock.clip.name.as_ref(), early.clock.start),
        ("run", 0.0)
    );
    let late = fade.then(ClipClock::new(death(), 1.8), 1.8, 0.3);
    assert_eq!(
        (late.clock.clip.name.as_ref(), late.clock.start),
        ("attack", 1.0)
    );
    let to = late.fade.as_ref().unwrap();
    assert_eq!(
        (to.to.clip.name.as_ref(), to.to.start, to.start),
        ("death1", 1.8, 1.8)
    );
    let still = playing(run(), 5.0);
    assert_eq!(still.pose(5.25).primary, still.pose(5.25).secondary);
    assert_eq!(
        still.pose(5.25).primary,
        ClipClock::new(run(), 5.0).sample(5.25)
    );
    let next = still.then(ClipClock::new(attack, 6.0), 6.0, 0.2);
    assert_eq!(&*next.clock.clip.name, "run");
}

/// 0.1.0's `Crossfade` and `Playing` still work for their last release.
#[test]
#[allow(deprecated)]
fn the_deprecated_crossfade_still_blends() {
    use md2_wgpu::anim::Crossfade;
    let fade = Crossfade::new(
        run().started_at(1.0),
        Quake2Player::Attack.clip().started_at(3.0),
        0.4,
    );
    assert!((fade.weight(3.2) - 0.5).abs() < 1e-6);
    let late = fade.then(death().started_at(3.3), 0.3);
    assert_eq!(late.from.name.as_ref(), "attack");
    assert_eq!(fade.pose(3.2).primary, run().sample(2.2));
}

#[test]
fn a_lerp_is_a_pose_with_no_weight() {
    let l = lerp(3, 4, 0.25);
    let pose = Pose::from(l);
    assert_eq!((pose.primary, pose.secondary, pose.weight), (l, l, 0.0));
}

// ---------------------------------------------------------------- reference

fn buffers(model: &Md2Model) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let n = model.keyframes().vertex_count();
    (vec![[0.0; 3]; n], vec![[0.0; 3]; n])
}

fn close(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tolerance * (1.0 + a[k].abs().max(b[k].abs())))
}

fn length(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[test]
fn decoding_is_position_times_scale_plus_translate() {
    let model = demo_model();
    let (mut p, mut n) = buffers(&model);
    for frame in [0, 45, 197] {
        decode_frame(&model, frame, &mut p, &mut n).unwrap();
        let f = &model.keyframes().frames()[frame as usize];
        for (i, v) in model
            .keyframes()
            .frame_data(frame)
            .packed()
            .iter()
            .enumerate()
        {
            let expected = [0, 1, 2].map(|k| v.position[k] as f32 * f.scale[k] + f.translate[k]);
            assert_eq!(p[i], expected);
            assert_eq!(n[i], ANORMS[v.normal_index as usize]);
        }
    }
}

#[test]
fn interpolation_ends_on_its_frames() {
    let model = demo_model();
    let (mut pa, mut na) = buffers(&model);
    let (mut pb, mut nb) = buffers(&model);
    let (mut p, mut n) = buffers(&model);
    decode_frame(&model, 40, &mut pa, &mut na).unwrap();
    decode_frame(&model, 43, &mut pb, &mut nb).unwrap();
    interpolate(&model, lerp(40, 43, 0.0), &mut p, &mut n).unwrap();
    assert_eq!(p, pa);
    for (x, y) in n.iter().zip(&na) {
        assert!(close(*x, *y, 1e-6), "{x:?} {y:?}");
    }
    interpolate(&model, lerp(40, 43, 1.0), &mut p, &mut n).unwrap();
    for (x, y) in p.iter().zip(&pb) {
        assert!(close(*x, *y, 1e-6), "{x:?} {y:?}");
    }
    for (x, y) in n.iter().zip(&nb) {
        assert!(close(*x, *y, 1e-6), "{x:?} {y:?}");
    }
    // Halfway is halfway, and every normal is unit length.
    interpolate(&model, lerp(40, 43, 0.5), &mut p, &mut n).unwrap();
    for i in 0..p.len() {
        let mid = [0, 1, 2].map(|k| pa[i][k] + (pb[i][k] - pa[i][k]) * 0.5);
        assert_eq!(p[i], mid);
        assert!((length(n[i]) - 1.0).abs() < 1e-5, "{:?}", n[i]);
    }
}

#[test]
fn blend_factors_are_clamped_and_nan_reads_as_zero() {
    let model = demo_model();
    let (mut p, mut n) = buffers(&model);
    let (mut q, mut m) = buffers(&model);
    let cases = [
        (f32::NAN, 0.0),
        (-3.0, 0.0),
        (f32::NEG_INFINITY, 0.0),
        (2.0, 1.0),
        (f32::INFINITY, 1.0),
    ];
    for (given, read) in cases {
        interpolate(&model, lerp(0, 100, given), &mut p, &mut n).unwrap();
        interpolate(&model, lerp(0, 100, read), &mut q, &mut m).unwrap();
        assert_eq!((&p, &n), (&q, &m), "t = {given}");
        let pose = |weight| Pose {
            primary: lerp(0, 1, 0.3),
            secondary: lerp(100, 101, 0.6),
            weight,
        };
        blend(&model, &pose(given), &mut p, &mut n).unwrap();
        blend(&model, &pose(read), &mut q, &mut m).unwrap();
        assert_eq!((&p, &n), (&q, &m), "weight = {given}");
    }
}

#[test]
fn interpolate_is_blend_of_the_same_lerp() {
    let model = demo_model();
    let (mut p, mut n) = buffers(&model);
    let (mut q, mut m) = buffers(&model);
    for l in [
        lerp(0, 1, 0.3),
        lerp(45, 40, 0.99),
        lerp(183, 183, 0.0),
        lerp(7, 150, 0.5),
    ] {
        interpolate(&model, l, &mut p, &mut n).unwrap();
        blend(&model, &Pose::from(l), &mut q, &mut m).unwrap();
        let bits = |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&p), bits(&q), "{l:?}");
        assert_eq!(bits(&n), bits(&m), "{l:?}");
    }
}

#[test]
fn blend_follows_the_contract_arithmetic() {
    let model = demo_model();
    let pose = Pose {
        primary: lerp(41, 42, 0.3),
        secondary: lerp(47, 48, 0.8),
        weight: 0.35,
    };
    let (mut p, mut n) = buffers(&model);
    blend(&model, &pose, &mut p, &mut n).unwrap();
    let (mut p1, mut n1) = buffers(&model);
    let (mut p2, mut n2) = buffers(&model);
    let raw = |l: FrameLerp, p: &mut Vec<[f32; 3]>, n: &mut Vec<[f32; 3]>| {
        let (mut pa, mut na) = buffers(&model);
        let (mut pb, mut nb) = buffers(&model);
        decode_frame(&model, l.frame_a, &mut pa, &mut na).unwrap();
        decode_frame(&model, l.frame_b, &mut pb, &mut nb).unwrap();
        for i in 0..p.len() {
            p[i] = [0, 1, 2].map(|k| pa[i][k] + (pb[i][k] - pa[i][k]) * l.t);
            n[i] = [0, 1, 2].map(|k| na[i][k] + (nb[i][k] - na[i][k]) * l.t);
        }
    };
    raw(pose.primary, &mut p1, &mut n1);
    raw(pose.secondary, &mut p2, &mut n2);
    let w = pose.weight;
    for i in 0..p.len() {
        let expected = [0, 1, 2].map(|k| p1[i][k] + (p2[i][k] - p1[i][k]) * w);
        assert_eq!(p[i], expected);
        let nn = [0, 1, 2].map(|k| n1[i][k] + (n2[i][k] - n1[i][k]) * w);
        let len = length(nn);
        assert_eq!(n[i], nn.map(|x| x / len));
    }
    // Weight 1 is all secondary.
    blend(
        &model,
        &Pose {
            weight: 1.0,
            ..pose
        },
        &mut p,
        &mut n,
    )
    .unwrap();
    for (x, y) in p.iter().zip(&p2) {
        assert!(close(*x, *y, 1e-6));
    }
}

/// A one-triangle, two-frame model whose vertex 0 flips its normal from
/// straight up to straight down, and whose vertex 1 has an index past the
/// table.
fn flipping_model() -> Md2Model {
    let up = ANORMS.iter().position(|n| *n == [0.0, 0.0, 1.0]).unwrap() as u8;
    let down = ANORMS.iter().position(|n| *n == [0.0, 0.0, -1.0]).unwrap() as u8;
    let v = |x: u8, normal_index: u8| PackedVertex {
        position: [x, 0, 0],
        normal_index,
    };
    Md2Model::from_parts(Md2Parts {
        skin_size: (8, 8),
        skins: Vec::new(),
        tex_coords: vec![TexCoord { s: 0, t: 0 }],
        triangles: vec![Triangle {
            xyz: [0, 1, 2],
            st: [0, 0, 0],
        }],
        frames: vec![
            Frame::new("a1", [1.0; 3], [0.0; 3]),
            Frame::new("a2", [1.0; 3], [0.0; 3]),
        ],
        vertices: vec![v(0, up), v(1, 200), v(2, 7), v(0, down), v(1, 250), v(3, 7)],
    })
    .unwrap()
}

#[test]
fn a_vanishing_normal_falls_back_to_the_first_frames() {
    let model = flipping_model();
    let (mut p, mut n) = buffers(&model);
    interpolate(&model, lerp(0, 1, 0.5), &mut p, &mut n).unwrap();
    assert_eq!(n[0], [0.0, 0.0, 1.0]);
    assert_eq!(n[1], [0.0, 0.0, 1.0], "an index past the table reads as up");
    assert!(n.iter().flatten().all(|x| x.is_finite()));
    interpolate(&model, lerp(1, 0, 0.5), &mut p, &mut n).unwrap();
    assert_eq!(n[0], [0.0, 0.0, -1.0], "the fallback is frame_a's normal");
    // Through a pose, the fallback is primary.frame_a's.
    let pose = Pose {
        primary: lerp(1, 1, 0.0),
        secondary: lerp(0, 0, 0.0),
        weight: 0.5,
    };
    blend(&model, &pose, &mut p, &mut n).unwrap();
    assert_eq!(n[0], [0.0, 0.0, -1.0]);
    decode_frame(&model, 1, &mut p, &mut n).unwrap();
    assert_eq!(n[1], [0.0, 0.0, 1.0]);
}

#[test]
fn bad_frames_and_lengths_are_typed_errors_and_touch_nothing() {
    let model = demo_model();
    let (mut p, mut n) = buffers(&model);
    let sentinel = [7.0; 3];
    p.fill(sentinel);
    n.fill(sentinel);
    let out_of_range = |field, frame| ReferenceError::FrameOutOfRange {
        field,
        frame,
        frame_count: 198,
    };
    assert_eq!(
        decode_frame(&model, 198, &mut p, &mut n),
        Err(out_of_range("frame", 198))
    );
    assert_eq!(
        interpolate(&model, lerp(0, u32::MAX, 0.5), &mut p, &mut n),
        Err(out_of_range("frame_b", u32::MAX))
    );
    assert_eq!(
        interpolate(&model, lerp(500, 0, 0.5), &mut p, &mut n),
        Err(out_of_range("frame_a", 500))
    );
    let good = lerp(0, 1, 0.5);
    let bad = lerp(0, 999, 0.5);
    for (pose, field) in [
        (
            Pose {
                primary: lerp(999, 1, 0.0),
                secondary: good,
                weight: 0.0,
            },
            "pose.primary.frame_a",
        ),
        (
            Pose {
                primary: bad,
                secondary: good,
                weight: 0.0,
            },
            "pose.primary.frame_b",
        ),
        (
            Pose {
                primary: good,
                secondary: lerp(999, 1, 0.0),
                weight: 0.5,
            },
            "pose.secondary.frame_a",
        ),
        (
            // Checked even at weight 0, where secondary is not used.
            Pose {
                primary: good,
                secondary: bad,
                weight: 0.0,
            },
            "pose.secondary.frame_b",
        ),
    ] {
        let err = blend(&model, &pose, &mut p, &mut n).unwrap_err();
        assert!(
            matches!(err, ReferenceError::FrameOutOfRange { field: f, .. } if f == field),
            "{err}"
        );
    }
    let short = model.keyframes().vertex_count() - 1;
    let (mut sp, mut sn) = (vec![[0.0; 3]; short], vec![[0.0; 3]; short + 2]);
    assert_eq!(
        decode_frame(&model, 0, &mut sp, &mut n),
        Err(ReferenceError::OutputLength {
            output: "positions",
            len: short,
            expected: short + 1
        })
    );
    assert_eq!(
        interpolate(&model, good, &mut p, &mut sn),
        Err(ReferenceError::OutputLength {
            output: "normals",
            len: short + 2,
            expected: short + 1
        })
    );
    assert!(blend(&model, &Pose::from(good), &mut p, &mut []).is_err());
    assert!(
        p.iter().chain(&n).all(|v| *v == sentinel),
        "outputs written on error"
    );
    let message = decode_frame(&model, 198, &mut p, &mut n)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("198") && message.contains("frame"),
        "{message}"
    );
    let message = interpolate(&model, good, &mut p, &mut sn)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("normals") && message.contains(&(short + 2).to_string()),
        "{message}"
    );
}

#[test]
fn reference_calls_allocate_nothing() {
    let model = demo_model();
    let (mut p, mut n) = buffers(&model);
    let pose = Pose {
        primary: lerp(0, 1, 0.3),
        secondary: lerp(50, 51, 0.6),
        weight: 0.4,
    };
    let clip = run();
    let fade = playing(run(), 0.0).then(ClipClock::new(death(), 1.0), 1.0, 0.3);
    let before = allocations();
    for i in 0..50 {
        decode_frame(&model, i, &mut p, &mut n).unwrap();
        interpolate(&model, clip.sample(f64::from(i) * 0.07), &mut p, &mut n).unwrap();
        blend(&model, &pose, &mut p, &mut n).unwrap();
        blend(&model, &fade.pose(f64::from(i) * 0.03), &mut p, &mut n).unwrap();
    }
    assert_eq!(allocations() - before, 0);
}

// ---------------------------------------------------------------- real files

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le_f32(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// One frame's positions and normals.
type Decoded = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Frames decoded straight from the file's bytes, without the crate's
/// parser.
fn decode_independently(bytes: &[u8]) -> Vec<Decoded> {
    let framesize = le_i32(bytes, 16) as usize;
    let num_xyz = le_i32(bytes, 24) as usize;
    let num_frames = le_i32(bytes, 40) as usize;
    let ofs_frames = le_i32(bytes, 56) as usize;
    (0..num_frames)
        .map(|f| {
            let base = ofs_frames + f * framesize;
            let scale = [0, 1, 2].map(|k| le_f32(bytes, base + 4 * k));
            let translate = [0, 1, 2].map(|k| le_f32(bytes, base + 12 + 4 * k));
            (0..num_xyz)
                .map(|i| {
                    let v = &bytes[base + 40 + 4 * i..base + 44 + 4 * i];
                    let p = [0, 1, 2].map(|k| v[k] as f32 * scale[k] + translate[k]);
                    let n = if (v[3] as usize) < 162 {
                        ANORMS[v[3] as usize]
                    } else {
                        [0.0, 0.0, 1.0]
                    };
                    (p, n)
                })
                .unzip()
        })
        .collect()
}

#[test]
fn the_reference_agrees_with_an_independent_decoder_on_real_files() {
    let Some(root) = common::shared_dir() else {
        return;
    };
    let files = [
        "yohko/tris.md2",
        "yohko/weapon.md2",
        "yohko/w_railgun.md2",
        "ogro/ogros.MD2",
        "edge/infantry_weapon_1frame.md2",
        "edge/bug_weapon_1tri.md2",
        "edge/thecrow_weapon_trailing1.md2",
    ];
    let mut checked = 0;
    for name in files {
        let path = root.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipping {}: not present", path.display());
            continue;
        };
        let model = Md2Model::from_bytes(&bytes).unwrap();
        let expected = decode_independently(&bytes);
        assert_eq!(expected.len(), model.keyframes().frame_count() as usize);
        let (mut p, mut n) = buffers(&model);
        for (f, (ep, en)) in expected.iter().enumerate() {
            decode_frame(&model, f as u32, &mut p, &mut n).unwrap();
            assert_eq!((&p, &n), (ep, en), "{name} frame {f}");
        }
        // Interpolated halfway between neighbours, by the contract's formula.
        let (mut q, mut m) = buffers(&model);
        for f in 0..model.keyframes().frame_count().saturating_sub(1) {
            interpolate(&model, lerp(f, f + 1, 0.5), &mut q, &mut m).unwrap();
            let ((pa, na), (pb, nb)) = (&expected[f as usize], &expected[f as usize + 1]);
            for i in 0..q.len() {
                let mid = [0, 1, 2].map(|k| pa[i][k] + (pb[i][k] - pa[i][k]) * 0.5);
                assert_eq!(q[i], mid, "{name} frame {f} vertex {i}");
                let nn = [0, 1, 2].map(|k| na[i][k] + (nb[i][k] - na[i][k]) * 0.5);
                let len2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
                let want = if len2 > 1e-12 {
                    nn.map(|x| x / len2.sqrt())
                } else {
                    na[i]
                };
                assert_eq!(m[i], want, "{name} frame {f} vertex {i}");
            }
        }
        checked += 1;
    }
    eprintln!("checked {checked} real files against the independent decoder");
}

// ---------------------------------------------------------------- crowds

/// This binary counts allocations, so the crowd's promise of no heap per
/// member is checked here.
#[cfg(feature = "gpu")]
#[test]
fn a_crowd_of_100_000_stores_its_clips_once() {
    let Some(gpu) = common::gpu() else { return };
    let cache = md2_wgpu::gpu::Md2Cache::new(&gpu.device).unwrap();
    let model = common::demo_gpu_model(&gpu, &cache);
    let clips = Quake2Player::clips();
    let member = |i: usize| {
        let place = glam::Mat4::from_translation(glam::Vec3::new(i as f32, 0.0, 0.0));
        let clock = md2_wgpu::anim::ClipClock::new(clips[i % clips.len()].clone(), i as f64 * 0.01);
        md2_wgpu::CrowdMember::new(place, clock)
    };
    let mut crowd = md2_wgpu::Md2Crowd::new(&gpu.device, &cache, &model).unwrap();
    crowd.reserve(100_000);
    let before = allocations();
    let handles: Vec<_> = (0..100_000)
        .map(|i| crowd.add(member(i)).unwrap())
        .collect();
    // The handles' own vector, and the clip table: its map and entries.
    let made = allocations() - before;
    eprintln!("100,000 members after reserve: {made} allocations");
    assert!(made <= 16, "{made} allocations for 100,000 members");
    assert_eq!(crowd.clip_count(), 20);
    // Reading a member back shares the crowd's clip names.
    let before = allocations();
    let back = crowd.get(handles[12_345]).unwrap();
    assert_eq!(allocations() - before, 0);
    assert_eq!(back, member(12_345));
    // Without reserve, the dense arrays grow geometrically: a logarithmic
    // count, nothing per member.
    let mut crowd = md2_wgpu::Md2Crowd::new(&gpu.device, &cache, &model).unwrap();
    let before = allocations();
    for i in 0..100_000 {
        crowd.add(member(i)).unwrap();
    }
    let made = allocations() - before;
    eprintln!("100,000 members without reserve: {made} allocations");
    assert!(made <= 200, "{made} allocations for 100,000 members");
}
