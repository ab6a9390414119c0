//! The CPU baseline: how many vertices a second the reference decodes and
//! interpolates, the work Quake II, Yamagi and vkQuake2 do on the CPU for
//! every model every frame (and then upload). Reported as millions of
//! vertices per second, the median of many timed batches, for
//! `decode_frame`, `interpolate` (two frames) and `blend` (a crossfade: four
//! frames), on the demo model and on `../shared/md2/yohko/tris.md2` where
//! present. One thread.
//!
//! ```text
//! cargo bench --bench interpolate
//! ```

mod timing;

use std::hint::black_box;
use std::path::Path;

use md2_wgpu::anim::reference::{blend, decode_frame, interpolate};
use md2_wgpu::{
    Clip, Md2Model, Quake2Player,
    anim::{ClipClock, MAX_FADE_SECONDS, Playback},
};
use timing::{median_seconds, print_row};

/// Batches per measurement; the median batch is reported.
const SAMPLES: usize = 31;

/// The table's column widths.
const COLUMNS: [usize; 5] = [40, 6, 14, 14, 14];

fn bench(name: &str, model: &Md2Model) {
    let n = model.keyframes().vertex_count();
    // `frames()`, not `frame_count()`: the slice's length is a usize
    // whatever integer type the model counts frames in.
    let frames = model.keyframes().frames().len() as u32;
    let mut positions = vec![[0.0f32; 3]; n];
    let mut normals = vec![[0.0f32; 3]; n];
    // Times that walk through a looping clip over every frame, as a game
    // clock does: each call a different (frame_a, frame_b, t).
    let clip = Clip::looping("all", 0, frames - 1);
    let time = |i: usize| (i % 4096) as f64 * 0.0137;
    let fade = Playback::new(clip.clone(), 0.0).then(
        ClipClock::new(
            Clip::looping("all, later", frames / 2, frames - 1).with_fps(7.0),
            0.0,
        ),
        0.0,
        MAX_FADE_SECONDS,
    );

    let decode = median_seconds(SAMPLES, |i| {
        decode_frame(
            model,
            black_box(i as u32 % frames),
            &mut positions,
            &mut normals,
        )
        .unwrap();
        black_box(&positions);
    });
    let lerp = median_seconds(SAMPLES, |i| {
        interpolate(
            model,
            black_box(clip.sample(time(i))),
            &mut positions,
            &mut normals,
        )
        .unwrap();
        black_box(&positions);
    });
    let crossfade = median_seconds(SAMPLES, |i| {
        // Half way into a fade that never ends: all four frames in play.
        let mut pose = fade.pose(time(i));
        pose.weight = 0.5;
        blend(model, black_box(&pose), &mut positions, &mut normals).unwrap();
        black_box(&positions);
    });
    let mvps = |seconds: f64| n as f64 / seconds / 1e6;
    print_row(
        &COLUMNS,
        &[
            name,
            &n.to_string(),
            &format!("{:.1}", mvps(decode)),
            &format!("{:.1}", mvps(lerp)),
            &format!("{:.1}", mvps(crossfade)),
        ],
    );
}

fn main() {
    print_row(
        &COLUMNS,
        &["model", "xyz", "decode_frame", "interpolate", "blend"],
    );
    print_row(&COLUMNS, &["", "", "Mvertex/s", "Mvertex/s", "Mvertex/s"]);
    let demo = md2_wgpu::demo::demo_model();
    assert!(Quake2Player::fits(&demo));
    bench("demo model", &demo);
    let yohko = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2/yohko/tris.md2");
    match Md2Model::open(&yohko) {
        Ok(model) => bench("yohko/tris.md2", &model),
        Err(e) => println!("(skipping yohko/tris.md2: {e})"),
    }
}
