//! A resident crowd's members without wgpu (`md2_wgpu::crowd`), driven as
//! another host drives them: buffers held in memory, every write checked.
//! Incremental flushes leave the host's buffers byte for byte as one flush
//! of the same changes does; each change writes only its own bytes; a
//! buffer the host cannot make is an error that loses nothing.

use std::sync::Arc;

use glam::{Mat4, vec3};
use md2_wgpu::anim::{ClipClock, Playback};
use md2_wgpu::crowd::{CrowdBuffers, CrowdFlush, CrowdHandle, CrowdMembers};
use md2_wgpu::demo::demo_model;
use md2_wgpu::model::Bounds;
use md2_wgpu::scene::{CrowdError, Effects};
use md2_wgpu::support::Rng;
use md2_wgpu::{Clip, CrowdMember, Quake2Player};

/// A host whose buffers are byte vectors.
#[derive(Default)]
struct MemoryHost {
    members: Vec<u8>,
    motion: Vec<u8>,
    /// Sizes asked for, in order.
    made: Vec<(&'static str, u64)>,
    /// Bytes of each write, in order.
    writes: Vec<(&'static str, u64, usize)>,
    /// The next buffer asked for is refused.
    refuse: bool,
}

impl CrowdBuffers for MemoryHost {
    fn new_member_buffer(&mut self, bytes: u64) -> Result<(), String> {
        if std::mem::take(&mut self.refuse) {
            return Err("out of memory (refused by the test)".into());
        }
        assert_eq!(bytes % 16, 0, "{bytes}");
        // Garbage, not zeroes: the crowd must write everything it needs.
        self.members = vec![0xa5; bytes as usize];
        self.made.push(("members", bytes));
        Ok(())
    }

    fn write_members(&mut self, offset: u64, bytes: &[u8]) {
        let at = offset as usize;
        self.members[at..at + bytes.len()].copy_from_slice(bytes);
        self.writes.push(("members", offset, bytes.len()));
    }

    fn new_motion_buffer(&mut self, bytes: u64) -> Result<(), String> {
        assert_eq!(bytes % 16, 0, "{bytes}");
        self.motion = vec![0xa5; bytes as usize];
        self.made.push(("motion", bytes));
        Ok(())
    }

    fn write_motion(&mut self, offset: u64, bytes: &[u8]) {
        let at = offset as usize;
        self.motion[at..at + bytes.len()].copy_from_slice(bytes);
        self.writes.push(("motion", offset, bytes.len()));
    }
}

impl MemoryHost {
    fn written(&mut self) -> usize {
        let n = self.writes.iter().map(|w| w.2).sum();
        self.writes.clear();
        n
    }
}

/// One change to a crowd, as a test case.
type Change = dyn Fn(&mut CrowdMembers);

const CAP: u64 = 128 << 20;
const MEMBER: usize = 128;
const CLIP: usize = 32;

fn demo_members() -> CrowdMembers {
    let model = demo_model();
    let keyframes = model.keyframes();
    let bounds: Arc<[Bounds]> = (0..keyframes.frame_count())
        .map(|f| keyframes.frame_bounds(f))
        .collect();
    CrowdMembers::new(bounds, 1)
}

fn runner(x: f32, start: f64) -> CrowdMember {
    CrowdMember::new(
        Mat4::from_translation(vec3(x, 0.0, 0.0)),
        ClipClock::new(Quake2Player::Run.clip(), start),
    )
}

/// What the host holds of the crowd: every member's record, then every
/// clip's, where `flushed` says the table starts.
fn held(host: &MemoryHost, crowd: &CrowdMembers, flushed: CrowdFlush) -> (Vec<u8>, Vec<u8>) {
    let members = host.members[..crowd.len() * MEMBER].to_vec();
    let at = flushed.clips_at as usize * 16;
    // Clip numbers in use are below the table's length; compare the whole
    // table the host has room for up to the end of the buffer's clips.
    let clips = host.members[at..at + 4 * CLIP].to_vec();
    (members, clips)
}

#[test]
fn incremental_flushes_hold_what_one_flush_writes() {
    let mut rng = Rng::new(37);
    let clips = [
        Quake2Player::Run.clip(),
        Quake2Player::Attack.clip(),
        Quake2Player::Stand.clip(),
    ];
    // Two crowds take the same changes; one is flushed after every step,
    // the other once at the end (its first flush writes everything).
    let (mut a, mut b) = (demo_members(), demo_members());
    let mut host_a = MemoryHost::default();
    let mut handles: Vec<(CrowdHandle, CrowdHandle)> = Vec::new();
    let mut last = CrowdFlush::default();
    for step in 0..400 {
        let t = step as f64 * 0.05;
        let pick = rng.below(100);
        if handles.is_empty() || pick < 35 {
            let m = runner(rng.below(500) as f32, t);
            handles.push((a.add(m.clone()).unwrap(), b.add(m).unwrap()));
        } else {
            let k = rng.below(handles.len());
            let (ha, hb) = handles[k];
            match pick {
                35..=49 => {
                    a.remove(ha).unwrap();
                    b.remove(hb).unwrap();
                    handles.swap_remove(k);
                }
                50..=64 => {
                    let m = Mat4::from_translation(vec3(step as f32, 1.0, 2.0));
                    a.member(ha).set_transform(m).unwrap();
                    b.member(hb).set_transform(m).unwrap();
                }
                65..=74 => {
                    let tint = [
                        1.0,
                        0.5,
                        0.25,
                        if pick.is_multiple_of(2) { 0.5 } else { 1.0 },
                    ];
                    a.member(ha).set_tint(tint).unwrap();
                    b.member(hb).set_tint(tint).unwrap();
                }
                75..=84 => {
                    let next = ClipClock::new(clips[step % 3].clone(), t);
                    a.member(ha).play(next.clone(), t, 0.2).unwrap();
                    b.member(hb).play(next, t, 0.2).unwrap();
                }
                _ => {
                    let e = if pick.is_multiple_of(2) {
                        Effects::NONE.with_shell([1.0, 0.0, 0.0])
                    } else {
                        Effects::NONE
                    };
                    a.member(ha).set_effects(e).unwrap();
                    b.member(hb).set_effects(e).unwrap();
                }
            }
        }
        last = a.flush(&mut host_a, CAP, t, false).unwrap();
    }
    let mut host_b = MemoryHost::default();
    let once = b.flush(&mut host_b, CAP, 20.0, false).unwrap();
    assert_eq!(host_b.made.len(), 1, "one member buffer: {:?}", host_b.made);
    assert!(a.len() > 50, "{}", a.len());
    assert_eq!(a.clip_count(), b.clip_count());
    assert_eq!(held(&host_a, &a, last), held(&host_b, &b, once));
    // Nothing changed: nothing written.
    host_a.written();
    let again = a.flush(&mut host_a, CAP, 21.0, false).unwrap();
    assert_eq!((again.written, host_a.written()), (0, 0));
}

#[test]
fn each_change_writes_only_its_own_bytes() {
    let mut crowd = demo_members();
    let mut host = MemoryHost::default();
    let handles: Vec<_> = (0..10)
        .map(|i| crowd.add(runner(i as f32 * 40.0, 0.0)).unwrap())
        .collect();
    let first = crowd.flush(&mut host, CAP, 0.0, false).unwrap();
    // The first flush: the member buffer, every member and the one clip.
    assert_eq!(
        host.made,
        [("members", first.clips_at as u64 * 16 + 16 * CLIP as u64)]
    );
    assert_eq!(first.written as usize, 10 * MEMBER + CLIP);
    assert_eq!(host.written(), 10 * MEMBER + CLIP);
    let h = handles[3];
    let cases: [(&str, usize, Box<Change>); 5] = [
        (
            "skin",
            4,
            Box::new(move |c| c.member(h).set_skin(0).unwrap()),
        ),
        (
            "tint",
            12,
            Box::new(move |c| c.member(h).set_tint([0.5; 4]).unwrap()),
        ),
        (
            "effects",
            4,
            Box::new(move |c| {
                c.member(h)
                    .set_effects(Effects {
                        fullbright: true,
                        ..Effects::NONE
                    })
                    .unwrap()
            }),
        ),
        (
            "transform",
            60,
            Box::new(move |c| c.member(h).set_transform(Mat4::IDENTITY).unwrap()),
        ),
        // A clip the crowd does not play yet: its clocks, and the clip.
        (
            "play",
            72 + CLIP,
            Box::new(move |c| {
                c.member(h)
                    .play(ClipClock::new(Quake2Player::Pain1.clip(), 1.0), 1.0, 0.1)
                    .unwrap()
            }),
        ),
    ];
    for (what, bytes, change) in cases {
        change(&mut crowd);
        let flushed = crowd.flush(&mut host, CAP, 1.0, false).unwrap();
        assert_eq!(
            (what, flushed.written as usize, host.written()),
            (what, bytes, bytes)
        );
    }
    // A removal moves the last member into the hole: one record.
    crowd.remove(handles[0]).unwrap();
    crowd.flush(&mut host, CAP, 1.0, false).unwrap();
    assert_eq!(host.written(), MEMBER);
    // The moved member's handle still reaches it.
    assert_eq!(
        crowd.get(handles[9]).unwrap().transform,
        runner(360.0, 0.0).transform
    );
    assert_eq!(crowd.get(handles[0]), None);
}

#[test]
fn motion_is_kept_once_a_view_draws_it() {
    let mut crowd = demo_members();
    let mut host = MemoryHost::default();
    let h = crowd.add(runner(0.0, 0.0)).unwrap();
    crowd.flush(&mut host, CAP, 0.0, false).unwrap();
    assert!(host.made.iter().all(|m| m.0 != "motion"), "{:?}", host.made);
    host.written();
    // A view draws motion: the motion buffer is made, every record written.
    let drawn = crowd.flush(&mut host, CAP, 0.1, true).unwrap();
    assert_eq!(host.made.last(), Some(&("motion", 64 * 80)));
    assert_eq!(host.written(), 80);
    // A move is kept with a new generation; the next frame without one
    // writes nothing.
    crowd
        .member(h)
        .set_transform(Mat4::from_translation(vec3(5.0, 0.0, 0.0)))
        .unwrap();
    let moved = crowd.flush(&mut host, CAP, 0.2, true).unwrap();
    assert_eq!(moved.motion_generation, drawn.motion_generation + 1);
    assert_eq!(host.written(), 60 + 80);
    let still = crowd.flush(&mut host, CAP, 0.3, true).unwrap();
    assert_eq!(
        (still.written, still.motion_generation),
        (0, moved.motion_generation)
    );
}

#[test]
fn what_cannot_be_hosted_is_an_error_that_loses_nothing() {
    let mut crowd = demo_members();
    let mut host = MemoryHost::default();
    for i in 0..100 {
        crowd.add(runner(i as f32, 0.0)).unwrap();
    }
    // Too large for the binding: the members, their bytes, the limit.
    let small = 64 * MEMBER as u64;
    match crowd.flush(&mut host, small, 0.0, false) {
        Err(CrowdError::TooManyMembers {
            members: 100,
            limit,
            ..
        }) => assert_eq!(limit, small),
        other => panic!("{other:?}"),
    }
    // The host fails to make the buffer: its message, and the next flush
    // writes everything.
    host.refuse = true;
    match crowd.flush(&mut host, CAP, 0.0, false) {
        Err(CrowdError::HostBuffer { message }) => assert!(message.contains("refused")),
        other => panic!("{other:?}"),
    }
    let flushed = crowd.flush(&mut host, CAP, 0.0, false).unwrap();
    assert_eq!(flushed.written as usize, 100 * MEMBER + CLIP);
    // Refused changes change nothing and write nothing.
    let h = crowd.iter().next().unwrap().0;
    host.written();
    assert!(matches!(
        crowd.member(h).set_skin(99),
        Err(CrowdError::SkinOutOfRange { .. })
    ));
    let bad = Clip::looping("far", 0, 9999);
    assert!(matches!(
        crowd.set(
            h,
            CrowdMember::new(Mat4::IDENTITY, Playback::from(ClipClock::new(bad, 0.0)))
        ),
        Err(CrowdError::FrameOutOfRange { .. })
    ));
    assert_eq!(crowd.flush(&mut host, CAP, 0.1, false).unwrap().written, 0);
    assert_eq!(crowd.clip_count(), 1);
}
