//! Quake III players in a resident crowd against MD2 members in one: the
//! same soldier (the crate's demo, as an MD2 and as a Quake III player
//! holding its gun), the same places, clocks, tints and effects, the same
//! camera (the steady state's patch in the middle), at each size. A player is one crowd per
//! surface kept in step, legs and torso on their own clocks, torso and head
//! placed on their tags by a compute pass each frame
//! (`md2_wgpu::gpu::PlayerCrowd`); what that costs against one model per
//! member: the CPU per frame, the upload, the GPU frame, GPU memory per
//! member.

use std::fmt::Write as _;

use md2_wgpu::Md2Renderer;
use md2_wgpu::anim::ClipClock;
use md2_wgpu::format::md3::{Md3Player, PlayerAnimation};
use md2_wgpu::gpu::{GpuPlayer, Md2Cache, PlayerCrowd, PlayerMember};
use md2_wgpu::support::player_clips;

use crate::Bench;
use crate::figures::say;
use crate::gpu::Gpu;
use crate::measure::{self, Entry};
use crate::report::{self, Row, ms, verdict};
use crate::scene::{BenchModel, Scene};
use crate::strategies::{
    Resident, ResidentDraw, Strategy, prepare_resident, renderer, upload, visible,
};

/// The camera frames a patch this wide in the middle of every crowd (the
/// steady-state section's).
const PATCH: f32 = 240.0;

/// The crate's player crowd: players added once, per frame the time.
pub struct Players {
    renderer: Md2Renderer,
    player: GpuPlayer,
    crowd: PlayerCrowd,
    camera: md2_wgpu::Camera,
}

impl Players {
    /// `scene`'s members as players: each at its place with its tint and
    /// effects, its legs on a legs clip (idle, walk, run, crouch) from the
    /// member's start at its speed, its torso on a torso clip of its own
    /// with another phase and speed.
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        player: &Md3Player,
        scene: &Scene,
    ) -> Result<Players, String> {
        use PlayerAnimation::*;
        let renderer = renderer(gpu, cache, scene)?;
        let gpu_player = GpuPlayer::new(gpu.device(), gpu.queue(), cache, player, &[])
            .map_err(|e| e.to_string())?;
        let mut crowd =
            PlayerCrowd::new(gpu.device(), cache, &gpu_player).map_err(|e| e.to_string())?;
        let cfg = player.animations();
        let legs = player_clips(cfg, &[LegsIdle, LegsWalk, LegsRun, LegsIdlecr]);
        let torso = player_clips(cfg, &[TorsoStand, TorsoGesture, TorsoAttack, TorsoStand2]);
        if legs.is_empty() || torso.is_empty() {
            return Err("the player's animation.cfg has no legs or torso clips".into());
        }
        crowd.reserve(scene.members.len());
        for (i, m) in scene.members.iter().enumerate() {
            let legs = ClipClock::new(legs[i % legs.len()].clone(), m.clock.start)
                .with_speed(m.clock.speed);
            let torso = ClipClock::new(torso[(i / 3) % torso.len()].clone(), m.clock.start * 0.7)
                .with_speed(m.clock.speed * 1.1);
            let mut member = PlayerMember::new(m.transform, legs, torso);
            member.tint = m.tint;
            member.effects = m.effects;
            crowd.add(member).map_err(|e| e.to_string())?;
        }
        Ok(Players {
            renderer,
            player: gpu_player,
            crowd,
            camera: scene.camera,
        })
    }
}

impl Strategy for Players {
    /// Nothing: the clocks and the tags run on the GPU.
    fn animate(&mut self, _: u64) {}

    fn prepare(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        frame: u64,
    ) -> Result<(), String> {
        let crowds = self.crowd.crowds_mut();
        prepare_resident(
            &mut self.renderer,
            &self.camera,
            (gpu, encoder),
            frame,
            crowds,
        )
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(pass);
    }

    fn uploaded_bytes(&self) -> u64 {
        self.renderer.uploaded_bytes()
    }

    fn gpu_model_bytes(&self) -> u64 {
        (0..self.player.surface_count())
            .filter_map(|s| self.player.surface(s))
            .map(|(_, _, m)| m.gpu_bytes_breakdown().vertex_data)
            .sum()
    }

    /// Players in view: the legs' crowd's members in view.
    fn visible_members(&self, gpu: &Gpu) -> Option<u32> {
        visible(&self.renderer, gpu)?.per_crowd.first().copied()
    }

    fn member_gpu_bytes(&self) -> Option<u64> {
        let crowds = self.crowd.crowds().count();
        let view = (0..crowds)
            .filter_map(|i| md2_wgpu::gpu::low_level::crowd_view_bytes(&self.renderer, i))
            .sum::<u64>();
        Some(self.crowd.gpu_bytes() + view)
    }
}

/// The section: at each of `sizes`, the first model's resident crowd and
/// the shared player's crowd, measured interleaved.
pub fn run(
    bench: &Bench,
    model: &BenchModel,
    sizes: &[usize],
    frames: usize,
) -> Result<Vec<Row>, String> {
    say!("## Quake III players against MD2 members, resident\n");
    // The demo soldier as a player, holding its gun: the MD2 demo's own
    // body, cut into parts that ride tags.
    let player: Md3Player = md2_wgpu::demo::demo_player("default").map_err(|e| e.to_string())?;
    let mut entries = Vec::new();
    let mut labels = Vec::new();
    for &n in sizes {
        eprintln!(
            "players: {} and the demo player × {n} (setting up) ...",
            model.label
        );
        let scene = model.crowd(n)?.framing_middle(PATCH);
        let md2 = upload(&bench.gpu, &bench.cache, model).and_then(|m| {
            Resident::new(&bench.gpu, &bench.cache, m, &scene, true, ResidentDraw::All)
        });
        let count = report::count(n as u64);
        let md2_label = format!("MD2 {} × {count}", model.label);
        let player_label = format!("MD3 demo player with gun × {count}");
        entries.push(Entry::new(md2_label.clone(), None, md2));
        entries.push(Entry::new(
            player_label.clone(),
            None,
            Players::new(&bench.gpu, &bench.cache, &player, &scene),
        ));
        labels.push((n, md2_label, player_label));
    }
    eprintln!("players: measuring ...");
    let instances = sizes.iter().flat_map(|&n| [n, n]);
    let section = ("players", model.label.as_str());
    let rows = measure::measure_rows(bench, section, entries, instances, frames);
    say!(
        "The steady state's scene (members added once, the camera on the same patch in the \
         middle of every crowd) drawn twice: each member as the {} model in one resident \
         crowd, and as the demo soldier cut into a Quake III player holding its gun ({} \
         surfaces: legs, torso, head and gun; `md2_wgpu::demo::demo_player`), legs and \
         torso on their own clocks and clips, torso, head and gun placed on their tags by \
         the attach pass every frame. Skins are the checker for both.\n",
        model.label,
        GpuPlayer::new(
            bench.gpu.device(),
            bench.gpu.queue(),
            &bench.cache,
            &player,
            &[]
        )
        .map_or(0, |p| p.surface_count()),
    );
    say!("{}", report::markdown(&rows));
    say!("{}", targets(&rows, &labels));
    Ok(rows)
}

/// Per size: the player crowd's CPU, upload and memory per member beside
/// the MD2 crowd's, and whether the players' CPU per frame stays flat.
fn targets(rows: &[Row], labels: &[(usize, String, String)]) -> String {
    let find = |label: &str| {
        rows.iter()
            .find(|r| r.strategy == label)
            .and_then(Row::measured)
    };
    let mut out = String::from("Players against MD2 members:\n");
    let mut cpu = Vec::new();
    for (n, md2_label, player_label) in labels {
        let (Some(md2), Some(players)) = (find(md2_label), find(player_label)) else {
            continue;
        };
        let per =
            |b: Option<u64>| b.map_or("?".to_owned(), |b| format!("{:.0}", b as f64 / *n as f64));
        let _ = writeln!(
            out,
            "- {}: CPU per frame {} ms (MD2 {} ms), upload {} bytes (MD2 {}), frame {} ms \
             (MD2 {} ms, {:.2}×), GPU memory per member {} bytes (MD2 {})",
            report::count(*n as u64),
            ms(players.cpu_ms.median),
            ms(md2.cpu_ms.median),
            players.upload_bytes,
            md2.upload_bytes,
            ms(players.frame_ms.median),
            ms(md2.frame_ms.median),
            players.frame_ms.median / md2.frame_ms.median,
            per(players.member_gpu_bytes),
            per(md2.member_gpu_bytes),
        );
        cpu.push(players.renderer_cpu_ms.median);
    }
    if let (Some(first), Some(last)) = (cpu.first(), cpu.last())
        && cpu.len() > 1
    {
        let ratio = last / first;
        let _ = writeln!(
            out,
            "- the crate's calls for the players, largest crowd against smallest: {ratio:.2}× \
             (flat within 1.5×: {})",
            verdict(ratio <= 1.5)
        );
    }
    out
}
