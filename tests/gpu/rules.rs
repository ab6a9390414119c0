//! One rule for values that are not finite, on both paths (see
//! `InstancePolicy`): a typed error naming the value, or under `Skip` the
//! instance left out, or under `Clamp` the documented repair; a crowd
//! refuses the change and changes nothing. One test per value and path.

use crate::common::*;
use glam::{Mat4, Vec3};
use md2_wgpu::{
    Clip, CrowdMember, GpuModel, Md2Crowd, Md2Instance, Md2Renderer, Md2RendererOptions,
    Quake2Player,
    anim::{ClipClock, Fade, FrameLerp, Playback},
    gpu::{Md2Batch, PrepareError},
    scene::{CrowdError, InstanceError, InstancePolicy, fields},
};

const SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const SIZE: u32 = 64;

fn camera() -> md2_wgpu::Camera {
    md2_wgpu::Camera::look_at(Vec3::new(0.0, 10.0, 90.0), Vec3::ZERO, 0.9, 1.0, 1.0, 400.0)
}

struct Scene {
    gpu: Gpu,
    model: GpuModel,
    cache: md2_wgpu::gpu::Md2Cache,
}

fn scene() -> Option<Scene> {
    let gpu = gpu()?;
    let cache = md2_wgpu::gpu::Md2Cache::new(&gpu.device).unwrap();
    let model = demo_gpu_model(&gpu, &cache);
    Some(Scene { gpu, model, cache })
}

impl Scene {
    fn renderer(&self, policy: InstancePolicy) -> Md2Renderer {
        let options = Md2RendererOptions::WITH_DEPTH.with_policy(policy);
        Md2Renderer::with_cache(&self.gpu.device, &self.cache, SRGB, options).unwrap()
    }

    /// `bad` beside a good instance, under each policy: `Strict` fails
    /// naming `field`, `Skip` draws the good one alone, `Clamp` draws what
    /// `repaired` draws (or, with `None`, leaves `bad` out too).
    fn check(&self, bad: Md2Instance, field: &str, repaired: Option<Md2Instance>) {
        let good = Md2Instance::new(
            Mat4::from_translation(Vec3::new(-20.0, 0.0, 0.0)),
            FrameLerp::still(0),
        );
        let bad = Md2Instance {
            transform: Mat4::from_translation(Vec3::new(20.0, 0.0, 0.0)) * bad.transform,
            ..bad
        };
        let (gpu, camera) = (&self.gpu, camera());
        let draw = |policy, instances: &[Md2Instance]| {
            let mut renderer = self.renderer(policy);
            let batches = [Md2Batch::new(&self.model, instances)];
            let report = renderer.prepare(&gpu.device, &gpu.queue, &camera, &batches)?;
            Ok::<_, PrepareError>((report, draw_and_read(gpu, &[&renderer], SIZE, SIZE)))
        };
        let err = draw(InstancePolicy::Strict, &[good, bad]).unwrap_err();
        match &err {
            PrepareError::Instance(InstanceError::NotFinite {
                batch: 0,
                instance: 1,
                field: named,
            }) => assert_eq!(*named, field),
            other => panic!("{field}: {other:?}"),
        }
        assert!(err.to_string().contains(field), "{err}");
        let (report, alone) = draw(InstancePolicy::Strict, &[good]).unwrap();
        assert!(report.is_clean(), "{field}: a good instance alone");
        let (report, skipped) = draw(InstancePolicy::Skip, &[good, bad]).unwrap();
        assert_eq!((report.skipped, report.clamped), (1, 0), "{field}");
        assert!(!report.is_clean(), "{field}: Skip says it left one out");
        assert_eq!(
            differing_pixels(&skipped, &alone, 0),
            0,
            "{field}: Skip leaves it out"
        );
        let (report, clamped) = draw(InstancePolicy::Clamp, &[good, bad]).unwrap();
        assert!(!report.is_clean(), "{field}: Clamp says it changed one");
        match repaired {
            Some(repaired) => {
                assert_eq!((report.skipped, report.clamped), (0, 1), "{field}");
                let repaired = Md2Instance {
                    transform: bad.transform,
                    ..repaired
                };
                let (_, want) = draw(InstancePolicy::Strict, &[good, repaired]).unwrap();
                assert_eq!(
                    differing_pixels(&clamped, &want, 0),
                    0,
                    "{field}: Clamp repairs it"
                );
                assert!(
                    differing_pixels(&clamped, &alone, 0) > 0,
                    "{field}: and draws it"
                );
            }
            None => {
                assert_eq!((report.skipped, report.clamped), (1, 0), "{field}");
                assert_eq!(
                    differing_pixels(&clamped, &alone, 0),
                    0,
                    "{field}: nothing to clamp"
                );
            }
        }
        assert!(matches!(
            report.first.first(),
            Some(InstanceError::NotFinite { instance: 1, .. })
        ));
    }

    fn crowd(&self) -> (Md2Crowd, md2_wgpu::gpu::CrowdHandle, CrowdMember) {
        let mut crowd = Md2Crowd::new(&self.gpu.device, &self.cache, &self.model).unwrap();
        let good = CrowdMember::new(
            Mat4::IDENTITY,
            ClipClock::new(Quake2Player::Run.clip(), 0.0),
        );
        let handle = crowd.add(good.clone()).unwrap();
        (crowd, handle, good)
    }
}

fn not_finite(field: &'static str) -> Result<(), CrowdError> {
    Err(CrowdError::NotFinite { field })
}

#[test]
fn immediate_a_non_finite_transform_is_refused_under_every_policy() {
    let Some(s) = scene() else { return };
    for bad in [f32::NAN, f32::INFINITY] {
        let transform = Mat4::from_scale(Vec3::new(1.0, bad, 1.0));
        s.check(
            Md2Instance::new(transform, FrameLerp::still(3)),
            "transform",
            None,
        );
    }
}

#[test]
fn immediate_a_non_finite_tint_is_refused_or_clamped() {
    let Some(s) = scene() else { return };
    let base = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(3));
    // NaN reads as 0; +∞ as the largest intensity (white, clamped by the
    // sRGB target); -∞ as 0.
    s.check(
        base.with_tint([1.0, f32::NAN, 1.0, 1.0]),
        "tint",
        Some(base.with_tint([1.0, 0.0, 1.0, 1.0])),
    );
    s.check(
        base.with_tint([f32::INFINITY, 1.0, 1.0, 1.0]),
        "tint",
        Some(base.with_tint([65504.0, 1.0, 1.0, 1.0])),
    );
    s.check(
        base.with_tint([1.0, 1.0, f32::NEG_INFINITY, 1.0]),
        "tint",
        Some(base.with_tint([1.0, 1.0, 0.0, 1.0])),
    );
}

#[test]
fn immediate_a_non_finite_time_is_refused_or_read_as_the_start() {
    let Some(s) = scene() else { return };
    let run = Quake2Player::Run.clip();
    let start = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(*run.frames().start()));
    for time in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let bad = Md2Instance::from_clip(Mat4::IDENTITY, &run, time);
        s.check(bad, "pose.primary.t", Some(start));
        // A playback's clock, and a crossfade's, say the same.
        let playback = Playback::new(run.clone(), 0.0);
        s.check(
            Md2Instance::from_playback(Mat4::IDENTITY, &playback, time),
            "pose.primary.t",
            Some(start),
        );
    }
    // A fade with a duration that is not finite has no weight.
    let mut fading = Playback::new(run.clone(), 0.0);
    fading.fade = Some(Fade {
        to: ClipClock::new(Quake2Player::Attack.clip(), 0.0),
        start: 0.0,
        duration: f64::NAN,
    });
    let bad = Md2Instance::from_playback(Mat4::IDENTITY, &fading, 0.25);
    let repaired = Md2Instance {
        pose: md2_wgpu::anim::Pose {
            weight: 0.0,
            ..bad.pose
        },
        ..bad
    };
    s.check(bad, "pose.weight", Some(repaired));
}

#[test]
fn immediate_a_non_finite_speed_is_refused_or_read_as_the_start() {
    let Some(s) = scene() else { return };
    let run = Quake2Player::Run.clip();
    let start = Md2Instance::new(Mat4::IDENTITY, FrameLerp::still(*run.frames().start()));
    for speed in [f32::NAN, f32::INFINITY] {
        let playback = Playback::from(ClipClock::new(run.clone(), 0.0).with_speed(speed));
        let bad = Md2Instance::from_playback(Mat4::IDENTITY, &playback, 0.35);
        s.check(bad, "pose.primary.t", Some(start));
    }
}

#[test]
fn resident_a_non_finite_transform_is_refused_and_changes_nothing() {
    let Some(s) = scene() else { return };
    let (mut crowd, h, good) = s.crowd();
    for bad in [f32::NAN, f32::NEG_INFINITY] {
        let transform = Mat4::from_translation(Vec3::new(0.0, bad, 0.0));
        let member = CrowdMember {
            transform,
            ..good.clone()
        };
        assert_eq!(
            crowd.add(member.clone()).map(drop),
            not_finite(fields::TRANSFORM)
        );
        assert_eq!(crowd.set(h, member), not_finite(fields::TRANSFORM));
        assert_eq!(
            crowd.member(h).set_transform(transform),
            not_finite(fields::TRANSFORM)
        );
    }
    assert_eq!((crowd.len(), crowd.get(h)), (1, Some(good)));
}

#[test]
fn resident_a_non_finite_tint_is_refused_and_changes_nothing() {
    let Some(s) = scene() else { return };
    let (mut crowd, h, good) = s.crowd();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let tint = [1.0, 1.0, bad, 1.0];
        assert_eq!(
            crowd.add(good.clone().with_tint(tint)).map(drop),
            not_finite(fields::TINT)
        );
        assert_eq!(
            crowd.set(h, good.clone().with_tint(tint)),
            not_finite(fields::TINT)
        );
        assert_eq!(crowd.member(h).set_tint(tint), not_finite(fields::TINT));
    }
    assert_eq!((crowd.len(), crowd.get(h)), (1, Some(good)));
}

#[test]
fn resident_a_non_finite_time_is_refused_and_changes_nothing() {
    let Some(s) = scene() else { return };
    let (mut crowd, h, good) = s.crowd();
    let run = Quake2Player::Run.clip();
    // 1e300 s is finite but off the tick clock (±2^43 s): refused alike.
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
        let member = CrowdMember::new(Mat4::IDENTITY, ClipClock::new(run.clone(), bad));
        assert_eq!(crowd.add(member).map(drop), not_finite(fields::CLOCK_START));
        let next = ClipClock::new(Quake2Player::Attack.clip(), bad);
        assert_eq!(
            crowd.member(h).play(next, 1.0, 0.2),
            not_finite(fields::NEXT_START)
        );
        let next = ClipClock::new(Quake2Player::Attack.clip(), 1.0);
        assert_eq!(
            crowd.member(h).play(next.clone(), bad, 0.2),
            not_finite(fields::AT)
        );
        if bad.is_finite() {
            // A finite duration past the clock's is too long, not infinite.
            assert!(matches!(
                crowd.member(h).play(next, 1.0, bad),
                Err(CrowdError::FadeTooLong { .. })
            ));
        } else {
            assert_eq!(
                crowd.member(h).play(next, 1.0, bad),
                not_finite(fields::DURATION)
            );
        }
        // The frame's time.
        let mut renderer = s.renderer(InstancePolicy::Strict);
        let mut encoder = s.gpu.device.create_command_encoder(&Default::default());
        let err = renderer
            .prepare_crowds(&s.gpu.device, &s.gpu.queue, &mut encoder, bad, [&mut crowd])
            .unwrap_err();
        assert!(matches!(err, PrepareError::TimeNotFinite { .. }), "{err}");
    }
    assert_eq!((crowd.len(), crowd.get(h)), (1, Some(good)));
}

#[test]
fn resident_a_non_finite_speed_is_refused_and_changes_nothing() {
    let Some(s) = scene() else { return };
    let (mut crowd, h, good) = s.crowd();
    for bad in [f32::NAN, f32::INFINITY] {
        let clock = ClipClock::new(Clip::looping("run", 40, 45), 0.0).with_speed(bad);
        assert_eq!(
            crowd
                .add(CrowdMember::new(Mat4::IDENTITY, clock.clone()))
                .map(drop),
            not_finite(fields::CLOCK_SPEED)
        );
        // The same speed, given to play, is named by where it was given.
        assert_eq!(
            crowd.member(h).play(clock.clone(), 1.0, 0.2),
            not_finite(fields::NEXT_SPEED)
        );
        // ... and in a member's crossfade, by its place in the playback.
        let mut fading = CrowdMember::new(
            Mat4::IDENTITY,
            ClipClock::new(Clip::looping("run", 40, 45), 0.0),
        );
        fading.playback.fade = Some(Fade {
            to: clock,
            start: 0.0,
            duration: 0.5,
        });
        assert_eq!(
            crowd.add(fading).map(drop),
            not_finite(fields::FADE_TO_SPEED)
        );
    }
    assert_eq!((crowd.len(), crowd.get(h)), (1, Some(good)));
}
