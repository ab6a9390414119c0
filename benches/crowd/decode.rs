//! What the decode's parts cost: the crate's vertex stage against variants
//! of its pose that compute the same bits another way, beside `static` and
//! `morph-pair`, in one interleaved run. The normal table read from a
//! uniform, as the crate shipped it until 0.2 (the "before" row: slow on
//! NVIDIA, where a uniform read at a per-vertex index is serialised), from
//! a storage buffer of its own, as tightly packed triples, or from a
//! texture; and, with the crate's table, the clamps the CPU makes
//! redundant, the bytes unpacked as one vector, the frame parameters in a
//! uniform; and the decode as it was before Quake III's 8-byte word (no
//! branch on the model's word: what that uniform branch costs an MD2).
//! Every variant draws the crate's picture exactly (the picture check
//! requires 0 differing pixels) from the same 4 bytes per vertex per
//! frame.

use md2_wgpu::{GpuModel, gpu::Md2Cache};

use crate::Bench;
use crate::baselines::{Baseline, Records, Source, pipeline};
use crate::figures::say;
use crate::gpu::Gpu;
use crate::measure::{self, Entry, Table};
use crate::morph::{Morph, Weights};
use crate::report::{self, Row, find, ratio, ratio_spread};
use crate::scene::{BenchModel, Scene};
use crate::strategies::{Immediate, Strategy, upload};

/// The variants, as (label, entry point).
const VARIANTS: [(&str, &str); 8] = [
    ("4-byte word only (before MD3)", "vs_decode_four_byte_only"),
    ("uniform table (before)", "vs_decode_uniform_table"),
    ("storage table, own buffer", "vs_decode_storage_table"),
    ("storage table, 12-byte entries", "vs_decode_packed_table"),
    ("texture table", "vs_decode_texture_table"),
    ("+ clamps", "vs_decode_clamped"),
    ("+ vector unpack", "vs_decode_vector_unpack"),
    ("+ uniform params", "vs_decode_uniform_params"),
];

/// One variant of the pose, drawn from the crate's own records, groups,
/// corners and indices.
pub struct Variant {
    records: Records,
    pipeline: wgpu::RenderPipeline,
    group: wgpu::BindGroup,
}

impl Variant {
    pub fn new(
        gpu: &Gpu,
        cache: &Md2Cache,
        model: &md2_wgpu::model::KeyframeModel,
        gpu_model: GpuModel,
        scene: &Scene,
        entry: &str,
    ) -> Result<Variant, String> {
        let device = gpu.device();
        if model.frame_count() > 512 {
            return Err("the uniform variant holds 512 frames".into());
        }
        let params: Vec<[f32; 4]> = model
            .frames()
            .iter()
            .flat_map(|f| {
                [
                    [f.scale[0], f.scale[1], f.scale[2], 0.0],
                    [f.translate[0], f.translate[1], f.translate[2], 0.0],
                ]
            })
            .chain(std::iter::repeat([0.0; 4]))
            .take(1024)
            .collect();
        let init = |label: &str, contents: &[u8], usage| {
            wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                },
            )
        };
        use wgpu::BufferUsages as U;
        let uniform = init(
            "md2-wgpu crowd bench decode params",
            bytemuck::cast_slice(&params),
            U::UNIFORM,
        );
        let table = md2_wgpu::contract::normal_table();
        let uniform_normals = init(
            "md2-wgpu crowd bench uniform normals",
            bytemuck::cast_slice(&table),
            U::UNIFORM,
        );
        let storage_normals = init(
            "md2-wgpu crowd bench storage normals",
            bytemuck::cast_slice(&table),
            U::STORAGE,
        );
        let packed: Vec<f32> = table.iter().flat_map(|n| [n[0], n[1], n[2]]).collect();
        let packed_normals = init(
            "md2-wgpu crowd bench packed normals",
            bytemuck::cast_slice(&packed),
            U::STORAGE,
        );
        let texture = wgpu::util::DeviceExt::create_texture_with_data(
            device,
            gpu.queue(),
            &wgpu::TextureDescriptor {
                label: Some("md2-wgpu crowd bench normal texture"),
                size: wgpu::Extent3d {
                    width: table.len() as u32,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            bytemuck::cast_slice(&table),
        );
        let texture_view = texture.create_view(&Default::default());
        let buffer_entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let read_only = wgpu::BufferBindingType::Storage { read_only: true };
        let entries = [
            buffer_entry(5, wgpu::BufferBindingType::Uniform),
            buffer_entry(6, wgpu::BufferBindingType::Uniform),
            buffer_entry(7, read_only),
            buffer_entry(8, read_only),
            wgpu::BindGroupLayoutEntry {
                binding: 9,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
        ];
        let (pipeline, layout) = pipeline(device, cache, entry, &entries);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu crowd bench decode variants"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: uniform_normals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 7,
                    resource: storage_normals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 8,
                    resource: packed_normals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 9,
                    resource: wgpu::BindingResource::TextureView(&texture_view),
                },
            ],
        });
        Ok(Variant {
            records: Records::new(gpu, cache, gpu_model, scene)?,
            pipeline,
            group,
        })
    }
}

impl Strategy for Variant {
    fn animate(&mut self, frame: u64) {
        self.records.animate(frame);
    }

    fn prepare(&mut self, gpu: &Gpu, _: &mut wgpu::CommandEncoder, _: u64) -> Result<(), String> {
        self.records.prepare(gpu)
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.records.draw(pass, &self.pipeline, &self.group);
    }

    fn uploaded_bytes(&self) -> u64 {
        self.records.uploaded_bytes()
    }

    fn gpu_model_bytes(&self) -> u64 {
        self.records.gpu_model().gpu_bytes_breakdown().vertex_data
    }
}

/// Measures the crate's immediate path, every variant, `static` and
/// `morph-pair` at `n` instances in one interleaved run for every model;
/// prints the table and each variant's ratios.
pub fn run(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let Table { rows, checks } = measure::per_model(bench, "decode", models, n, |model, scene| {
        let look = Some("every member, posed");
        let mut entries = vec![Entry::new(
            "gpu",
            look,
            upload(gpu, cache, model).and_then(|m| Immediate::new(gpu, cache, m, scene)),
        )];
        for (label, entry) in VARIANTS {
            entries.push(Entry::new(
                label,
                look,
                upload(gpu, cache, model)
                    .and_then(|m| Variant::new(gpu, cache, &model.model, m, scene, entry)),
            ));
        }
        entries.push(Entry::new(
            "morph-pair",
            None,
            upload(gpu, cache, model)
                .and_then(|m| Morph::new(gpu, cache, &model.model, m, scene, Weights::Pair)),
        ));
        entries.push(Entry::new(
            "static",
            None,
            upload(gpu, cache, model)
                .and_then(|m| Baseline::new(gpu, cache, &model.model, m, scene, Source::Static)),
        ));
        Ok(entries)
    })?;
    say!("## The decode, part by part\n");
    say!(
        "The crate's immediate path (`gpu`: the normal table in storage, at the start of the \
         frame parameters) against variants of its pose that compute the same bits another \
         way, with `morph-pair` and `static` in the same interleaved run, {n} instances in \
         view. `uniform table (before)` is the pose as the crate shipped it until 0.2. The \
         variants marked `+` take the crate's table. Ratios round by round: median \
         (smallest–largest round).\n"
    );
    say!("{}", report::markdown(&rows));
    report::print_checks("every variant draws the crate's picture", &checks);
    let mut out = String::from(
        "| model | variant | frame / gpu | frame / morph-pair | frame / static | frame CPU-work / morph-pair |\n\
         |---|---|---:|---:|---:|---:|\n",
    );
    for model in models {
        let label = &model.label;
        let (Some(gpu_row), Some(pair), Some(stat)) = (
            find(&rows, label, n, "gpu"),
            find(&rows, label, n, "morph-pair"),
            find(&rows, label, n, "static"),
        ) else {
            continue;
        };
        for name in std::iter::once("gpu").chain(VARIANTS.map(|(l, ..)| l)) {
            let Some(m) = find(&rows, label, n, name) else {
                continue;
            };
            out.push_str(&format!(
                "| {label} | {name} | {} | {} | {} | {} |\n",
                ratio_spread(&m.frame_rounds, &gpu_row.frame_rounds),
                ratio_spread(&m.frame_rounds, &pair.frame_rounds),
                ratio_spread(&m.frame_rounds, &stat.frame_rounds),
                m.frame_cpu_ms
                    .zip(pair.frame_cpu_ms)
                    .map_or("—".into(), |(a, b)| ratio(a.median, b.median)),
            ));
        }
    }
    say!("{out}");
    Ok(rows)
}
