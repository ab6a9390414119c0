//! The resident crowd on another host: a host with its own wgpu objects,
//! which knows md2-wgpu only through `md2_wgpu::crowd` and
//! `md2_wgpu::contract` (as md2-bevy does, on Bevy's wgpu), flushes a
//! crowd's members into its own buffers, runs the crowd's passes for a
//! view, and gets what md2-wgpu's own renderer gets from the same members
//! and camera: the same members in the same buckets at the same levels, in
//! the same order (member order, or translucent members and shells sorted
//! back to front by md2-wgpu's sorting passes), with the same poses.

use std::num::NonZeroU64;

use crate::common::*;
use glam::{Mat4, Quat, Vec3};
use md2_wgpu::contract::{GpuModelOptions, ModelData, ViewUniform, transform_rows};
use md2_wgpu::crowd::{
    CLASSIFY_ENTRY, CROWD_PASSES_WGSL, CrowdBuffers, CrowdFrame, CrowdLayout, CrowdMembers,
    CrowdParams, CrowdSortSteps, EMIT_ENTRY, GATHER_ENTRY, SCAN_ENTRY, SORT_BLOCK_ENTRY,
    SORT_STEP_ENTRY,
};
use md2_wgpu::gpu::{Md2Cache, VisibleMembers};
use md2_wgpu::support::{Rng, read_buffer};
use md2_wgpu::{
    CrowdMember, GpuModel, Md2Crowd, Md2Renderer, Md2RendererOptions, Quake2Player,
    anim::ClipClock, contract::MAX_LEVELS, demo, scene::Effects, scene::TranslucentOrder,
};

/// The shell bucket, drawn last.
const SHELL: usize = 2 * MAX_LEVELS + 1;

/// The host's member and motion buffers.
struct Host<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    members: Option<wgpu::Buffer>,
    motion: Option<wgpu::Buffer>,
}

fn storage(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl CrowdBuffers for Host<'_> {
    fn new_member_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.members = Some(storage(self.device, "host members", bytes));
        Ok(())
    }

    fn write_members(&mut self, offset: u64, bytes: &[u8]) {
        let members = self.members.as_ref().expect("made before written");
        self.queue.write_buffer(members, offset, bytes);
    }

    fn new_motion_buffer(&mut self, bytes: u64) -> Result<(), String> {
        self.motion = Some(storage(self.device, "host motion", bytes));
        Ok(())
    }

    fn write_motion(&mut self, offset: u64, bytes: &[u8]) {
        let motion = self.motion.as_ref().expect("made before written");
        self.queue.write_buffer(motion, offset, bytes);
    }
}

fn uniform(device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) -> wgpu::Buffer {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("host uniform"),
        size: (bytes.len() as u64).max(256),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&buffer, 0, bytes);
    buffer
}

/// The layout entries `docs/contract.md` gives the passes' groups.
fn entry(binding: u32, ty: wgpu::BufferBindingType, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: dynamic.then(|| NonZeroU64::new(16).unwrap()),
        },
        count: None,
    }
}

/// A street of soldiers: near ones at full detail, far ones coarser, some
/// mirrored, some translucent, some with shells, some out of view.
fn street(now: f64) -> Vec<CrowdMember> {
    let mut rng = Rng::new(37);
    let clips = [
        Quake2Player::Run.clip(),
        Quake2Player::Attack.clip(),
        Quake2Player::Stand.clip(),
    ];
    (0..600)
        .map(|i| {
            // Every ninth far off to the side, out of view.
            let side = if i % 9 == 0 { 1.0e5 } else { 0.0 };
            let at = Vec3::new(
                rng.unit_f64() as f32 * 400.0 - 200.0 + side,
                0.0,
                20.0 + i as f32 * 4.0,
            );
            let turn = Quat::from_rotation_y(rng.unit_f64() as f32 * 6.0);
            let mut transform =
                Mat4::from_rotation_translation(turn, at) * md2_wgpu::scene::QUAKE_TO_Y_UP;
            if i % 7 == 3 {
                transform *= Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0));
            }
            let clip = clips[rng.below(clips.len())].clone();
            let mut member =
                CrowdMember::new(transform, ClipClock::new(clip, now - rng.unit_f64() * 5.0));
            if i % 11 == 5 {
                member.tint = [1.0, 0.8, 0.8, 0.5];
            }
            if i % 13 == 6 {
                member.effects = Effects::NONE.with_shell([0.2, 1.0, 0.2]);
            }
            member
        })
        .collect()
}

#[test]
fn another_host_runs_the_crowds_passes_as_md2_wgpu_does() {
    host_gets_md2_wgpus_records(false);
}

/// The same with translucent members and shells back to front: the host
/// sorts them with md2-wgpu's sorting passes, dispatched as
/// `CrowdLayout::dispatches` plans them with `CrowdSortSteps`' table, and
/// gets them in the order md2-wgpu's renderer draws them
/// (`TranslucentOrder::BackToFront`).
#[test]
fn another_host_sorts_translucent_members_as_md2_wgpu_does() {
    host_gets_md2_wgpus_records(true);
}

fn host_gets_md2_wgpus_records(sort: bool) {
    let Some(gpu) = gpu_at_limits() else {
        return;
    };
    let (device, queue) = (&gpu.device, &gpu.queue);
    let now = 7.25;
    let members = street(now);
    // The levels cases' street: head height, looking down a long way.
    let camera = md2_wgpu_tests::cases::levels::street_camera();
    let options = if sort {
        Md2RendererOptions::WITH_DEPTH.with_translucent_order(TranslucentOrder::BackToFront)
    } else {
        Md2RendererOptions::WITH_DEPTH
    };

    // md2-wgpu's own renderer.
    let cache = Md2Cache::new(device).unwrap();
    let gpu_model = GpuModel::with_options(
        device,
        queue,
        &cache,
        &demo::demo_model(),
        &[demo::demo_skin()],
        GpuModelOptions::WITH_LEVELS,
    )
    .unwrap();
    let mut renderer =
        Md2Renderer::with_cache(device, &cache, wgpu::TextureFormat::Rgba8UnormSrgb, options)
            .unwrap();
    let mut crowd = Md2Crowd::new(device, &renderer, &gpu_model).unwrap();
    for m in &members {
        crowd.add(m.clone()).unwrap();
    }
    step_crowd(&gpu, &mut renderer, &camera, &mut crowd, now);
    let theirs = crowd_records(&gpu, &renderer, 0).unwrap();
    let visible: VisibleMembers = visible(&gpu, &renderer);

    // The host: the same model's bytes, the same members.
    let data =
        ModelData::new(demo::demo_model().keyframes(), GpuModelOptions::WITH_LEVELS).unwrap();
    let levels = data.levels_of_detail().levels().len();
    assert!(levels > 2, "the demo has coarser levels: {levels}");
    let mut book = CrowdMembers::new(data.frame_bounds().to_vec(), 1);
    for m in &members {
        book.add(m.clone()).unwrap();
    }
    let mut host = Host {
        device,
        queue,
        members: None,
        motion: None,
    };
    let cap = device.limits().max_storage_buffer_binding_size;
    let flushed = book.flush(&mut host, cap, now, false).unwrap();
    let layout = CrowdLayout::of(&book, levels);
    let params: CrowdParams = layout.params(
        data.levels_of_detail(),
        data.bounding_sphere(),
        &flushed,
        true,
    );
    let view: ViewUniform =
        camera.uniform(None, false, camera.view_proj, options.level_error_pixels);
    let frame = CrowdFrame::new(now, None).unwrap();
    let frame = if sort { frame.sorted() } else { frame };
    let member_buffer = host.members.clone().unwrap();
    let motion_stand_in = storage(device, "host motion stand-in", 80);
    let (record_bytes, work_bytes) = if sort {
        (
            layout.sorted_record_bytes(false),
            layout.sorted_work_bytes(),
        )
    } else {
        (layout.record_bytes(false), layout.work_bytes())
    };
    let records = storage(device, "host records", record_bytes);
    let work = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("host work"),
        size: work_bytes,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if sort {
        let (offset, words) = layout.sort_words();
        queue.write_buffer(&work, offset, bytemuck::cast_slice(&words));
    }
    let steps = CrowdSortSteps::new(device.limits().min_uniform_buffer_offset_alignment);
    let (view_buffer, params_buffer, frame_buffer, step_buffer) = (
        uniform(device, queue, bytemuck::bytes_of(&view)),
        uniform(device, queue, bytemuck::bytes_of(&params)),
        uniform(device, queue, bytemuck::bytes_of(&frame)),
        uniform(device, queue, steps.bytes()),
    );
    use wgpu::BufferBindingType::{Storage, Uniform};
    let layouts = [
        vec![entry(0, Uniform, false)],
        vec![
            entry(0, Storage { read_only: true }, false),
            entry(1, Uniform, false),
            entry(2, Storage { read_only: true }, false),
        ],
        vec![
            entry(0, Uniform, false),
            entry(1, Storage { read_only: false }, false),
            entry(2, Storage { read_only: false }, false),
            entry(3, Uniform, true),
        ],
    ]
    .map(|entries| {
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("host crowd layout"),
            entries: &entries,
        })
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("host crowd passes"),
        bind_group_layouts: &[Some(&layouts[0]), Some(&layouts[1]), Some(&layouts[2])],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("md2-wgpu crowd passes"),
        source: wgpu::ShaderSource::Wgsl(CROWD_PASSES_WGSL.into()),
    });
    let pipeline = |entry_point: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry_point),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(entry_point),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let group = |layout: &wgpu::BindGroupLayout, buffers: &[(&wgpu::Buffer, Option<u64>)]| {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, (buffer, size))| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: size.and_then(NonZeroU64::new),
                }),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout,
            entries: &entries,
        })
    };
    let groups = [
        group(&layouts[0], &[(&view_buffer, None)]),
        group(
            &layouts[1],
            &[
                (&member_buffer, None),
                (&params_buffer, None),
                (&motion_stand_in, None),
            ],
        ),
        group(
            &layouts[2],
            &[
                (&frame_buffer, None),
                (&records, None),
                (&work, None),
                (&step_buffer, Some(16)),
            ],
        ),
    ];
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &groups[0], &[]);
        pass.set_bind_group(1, &groups[1], &[]);
        let dispatches = layout.dispatches(sort.then_some(&steps));
        let entries: Vec<_> = dispatches.iter().map(|d| d.entry).collect();
        assert_eq!(&entries[..3], [CLASSIFY_ENTRY, SCAN_ENTRY, EMIT_ENTRY]);
        if sort {
            // Both sorted buckets have members: each is sorted and gathered.
            let sorts = [SORT_BLOCK_ENTRY, SORT_STEP_ENTRY];
            assert!(
                entries[3..]
                    .iter()
                    .all(|e| sorts.contains(e) || *e == GATHER_ENTRY)
            );
            assert_eq!(entries.iter().filter(|e| **e == GATHER_ENTRY).count(), 2);
        } else {
            assert_eq!(entries.len(), 3);
        }
        for d in dispatches {
            assert!(d.workgroups <= 65_535);
            pass.set_bind_group(2, &groups[2], &[d.step_offset]);
            pass.set_pipeline(&pipeline(d.entry));
            pass.dispatch_workgroups(d.workgroups, 1, 1);
        }
    }
    queue.submit([encoder.finish()]);
    let read = |buffer: &wgpu::Buffer| -> Vec<u32> {
        let encoder = device.create_command_encoder(&Default::default());
        let bytes = read_buffer(device, queue, encoder, buffer, 0, buffer.size()).unwrap();
        bytemuck::cast_slice(&bytes).to_vec()
    };
    let (work_words, record_words) = (read(&work), read(&records));

    // What the host's passes laid out, bucket by bucket in draw order, as
    // md2-wgpu's read-back gives its own.
    let mut ours = Vec::new();
    let mut per_level = [0u32; MAX_LEVELS];
    let handles: Vec<_> = book.iter().map(|(h, _)| h).collect();
    for draw in layout.draws() {
        let args = &work_words[draw.args_offset as usize / 4..][..5];
        let base = work_words[draw.draw_offset as usize / 4] as usize;
        // The level its arguments draw (a translucent or shell bucket's is
        // the finest its visible members need): the level whose index range
        // they are.
        let level = data
            .levels_of_detail()
            .levels()
            .iter()
            .position(|l| [l.index_count, l.first_index] == [args[0], args[2]])
            .expect("the arguments draw one of the model's levels");
        if let Some(opaque) = draw.level {
            assert_eq!(level, opaque, "bucket {}", draw.bucket);
            assert_eq!(draw.mirrored, draw.bucket % 2 == 1);
        }
        // Members per level, as md2-wgpu counts them (a shell is its
        // member's second record).
        if draw.bucket != SHELL {
            per_level[level] += args[1];
        }
        for k in 0..args[1] as usize {
            let r = &record_words[(base + k) * 6..][..6];
            let member = book.get(handles[r[0] as usize]).unwrap();
            let frames = [
                r[1] as u16,
                (r[1] >> 16) as u16,
                r[2] as u16,
                (r[2] >> 16) as u16,
            ];
            let lerp = [
                f32::from_bits(r[3]),
                f32::from_bits(r[4]),
                f32::from_bits(r[5]),
            ];
            ours.push((draw.bucket, transform_rows(&member.transform), frames, lerp));
        }
    }
    let theirs: Vec<_> = theirs
        .iter()
        .map(|(bucket, r)| (*bucket, r.rows, r.frames, [r.t, r.t2, r.weight]))
        .collect();
    eprintln!(
        "another host: {} of {} members in view, per level {per_level:?}, md2-wgpu's {:?}",
        ours.len(),
        members.len(),
        visible.per_level[0]
    );
    assert!(
        per_level.iter().filter(|&&n| n > 0).count() >= 3,
        "{per_level:?}"
    );
    assert_eq!(per_level, visible.per_level[0]);
    assert_eq!(ours.len(), theirs.len());
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "record {k}");
    }
    // The sorted buckets: back to front (the members' origins' clip w,
    // their distance along the view, never growing) where the host sorts;
    // in the crowd's member order where it does not.
    for bucket in [SHELL - 1, SHELL] {
        let depths: Vec<f32> = ours
            .iter()
            .filter(|r| r.0 == bucket)
            .map(|r| {
                let origin = glam::Vec4::new(r.1[0][3], r.1[1][3], r.1[2][3], 1.0);
                (camera.view_proj * origin).w
            })
            .collect();
        assert!(
            depths.len() > 10,
            "bucket {bucket}: {} records",
            depths.len()
        );
        let back_to_front = depths.windows(2).all(|w| w[0] >= w[1]);
        // The street runs away from the camera in member order: unsorted,
        // nearest first.
        assert_eq!(back_to_front, sort, "bucket {bucket}: {depths:?}");
    }
    let drawn = ours.iter().filter(|r| r.0 != SHELL).count();
    assert!(drawn < members.len() - 50, "some are out of view: {drawn}");
    // And a crowd whose members changed since: the host's next flush
    // writes only those, and its passes see them.
    let first = handles[0];
    book.member(first)
        .set_transform(Mat4::from_translation(Vec3::new(0.0, 0.0, 9.0e6)))
        .unwrap();
    let again = book.flush(&mut host, cap, now, false).unwrap();
    assert_eq!(again.written, 60);
}
