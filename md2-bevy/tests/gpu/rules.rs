//! md2-bevy's shaders as Bevy composes them follow the real-GPU rules
//! (md2-wgpu's `checks`: no uniform array indexed by a value that varies
//! across a draw's invocations, no function-local array indexed at run
//! time in a vertex or fragment stage; shaders/README.md gives the H200
//! figures behind them). md2-wgpu's own tests hold its shaders to them;
//! these hold what a Bevy app actually runs: every pipeline Bevy built for
//! md2-bevy's entities and crowds (main pass, translucent members and
//! shells, depth, normal and motion-vector prepasses, deferred G-buffer,
//! every shadow view: directional cascades, a point light's cube faces, a
//! spot light), each stage composed with Bevy's own imports and the very
//! shader defs Bevy built it with, as Bevy's shader cache composes it.
//!
//! Bevy composes with naga 29 (naga_oil); the check reads naga 30's IR,
//! so each composed module crosses over as WGSL, as Bevy itself hands a
//! composed module to wgpu where it is built with `decoupled_naga`.

use std::collections::{BTreeSet, HashMap};

use bevy::asset::AssetId;
use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::light::DirectionalLightShadowMap;
use bevy::pbr::DefaultOpaqueRendererMethod;
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_resource::{
    CachedPipelineState, PipelineCache, PipelineDescriptor, TextureFormat,
};
use bevy::render::renderer::RenderDevice;
use bevy::shader::{ShaderDefVal, ShaderImport};
use md2_bevy::shaders::{CROWD_VERTEX_SHADER, FRAGMENT_SHADER, VERTEX_SHADER};
use md2_bevy::{Md2, Md2Animator, Md2Crowd, member_transform};
use md2_wgpu::checks::{Finding, Rule};
use md2_wgpu::scene::Effects;
use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};
use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderDefValue,
};

use crate::harness::{Harness, gpu_or_skip};

#[test]
fn every_forward_pipeline_of_entities_and_crowds_follows_the_real_gpu_rules() {
    if gpu_or_skip("real-GPU rules, forward") {
        check_pipelines(false);
    }
}

#[test]
fn every_deferred_pipeline_of_entities_and_crowds_follows_the_real_gpu_rules() {
    if gpu_or_skip("real-GPU rules, deferred") {
        check_pipelines(true);
    }
}

/// A read that varies per instance, planted in a module that imports
/// md2-bevy's crowd reader: the same composition and crossing finds it,
/// so the tests above cannot pass for want of looking.
#[test]
fn a_planted_uniform_table_read_through_the_crowd_reader_is_found() {
    if !gpu_or_skip("real-GPU rules, planted") {
        return;
    }
    let mut h = Harness::new(|_| {});
    let planted = Shader::from_wgsl(
        "#import md2_bevy::crowd::md2_crowd_record\n\
         @group(0) @binding(0) var<uniform> planted_table: array<vec4<f32>, 16>;\n\
         @vertex fn planted(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {\n\
             return planted_table[md2_crowd_record(i).frames.x & 15u];\n\
         }\n",
        "planted.wgsl",
    );
    // Held: a dropped handle frees the shader.
    let handle = h
        .app
        .world_mut()
        .resource_mut::<Assets<Shader>>()
        .add(planted);
    let id = handle.id();
    let mut composition = Composition::new(&h.app);
    let stage = Stage {
        shader: id,
        entry_point: Some("planted".into()),
        defs: vec![ShaderDefVal::UInt("MATERIAL_BIND_GROUP".into(), 3)],
    };
    let findings = composition
        .check(&stage)
        .expect("the planted module composes");
    eprintln!("planted: {findings:#?}");
    assert!(
        findings.iter().any(|f| f.rule == Rule::VaryingUniformIndex
            && f.variable == "planted_table"
            && f.entry_point == "planted"),
        "the planted read was not found: {findings:#?}"
    );
}

/// A scene with everything md2-bevy draws, in every pass Bevy has, then
/// every pipeline Bevy built with one of md2-bevy's stages, composed and
/// checked.
fn check_pipelines(deferred: bool) {
    let mut h = Harness::new(|app| {
        if deferred {
            app.insert_resource(DefaultOpaqueRendererMethod::deferred());
        }
        app.insert_resource(DirectionalLightShadowMap { size: 256 });
    });
    let model = h.load_demo();
    let target = h.target(64, 64, TextureFormat::Rgba8UnormSrgb);
    let plain = h.target(64, 64, TextureFormat::Rgba8UnormSrgb);
    let eye = Transform::from_xyz(0.0, 60.0, 260.0).looking_at(Vec3::ZERO, Vec3::Y);
    let perspective = || Projection::Perspective(PerspectiveProjection::default());
    if deferred {
        h.camera(
            &target,
            eye,
            perspective(),
            (DeferredPrepass, DepthPrepass, MotionVectorPrepass),
        );
    } else {
        h.camera(
            &target,
            eye,
            perspective(),
            (DepthPrepass, NormalPrepass, MotionVectorPrepass),
        );
    }
    // A camera with no prepass: the main pass's pipelines without them.
    h.camera(&plain, eye, perspective(), ());
    let world = h.app.world_mut();
    world.spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::default().looking_to(Vec3::new(-1.0, -1.3, 0.2), Vec3::Y),
    ));
    world.spawn((
        PointLight {
            shadow_maps_enabled: true,
            range: 500.0,
            ..default()
        },
        Transform::from_xyz(0.0, 120.0, 60.0),
    ));
    world.spawn((
        SpotLight {
            shadow_maps_enabled: true,
            range: 500.0,
            ..default()
        },
        Transform::from_xyz(80.0, 120.0, 60.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    world.spawn((
        Md2(model.clone()),
        Md2Animator::default(),
        Transform::from_xyz(-60.0, 0.0, 0.0),
    ));
    // A StandardMaterial plane: Bevy's own pipelines, for what Bevy's PBR
    // functions do in any material's stages.
    h.plane(400.0, StandardMaterial::default());
    let asset = h.md2_asset(&model);
    let mut crowd = Md2Crowd::new(model.clone(), &asset);
    crowd.set_level_tint(true);
    let run = || ClipClock::new(Quake2Player::Run.clip(), 0.0);
    let members = crowd.members_mut();
    for x in 0..3 {
        let place = Transform::from_xyz(x as f32 * 50.0, 0.0, 0.0);
        let member = CrowdMember::new(member_transform(&place), run());
        let member = match x {
            0 => member,
            // Translucent: drawn in the transparent pass.
            1 => member.with_tint([1.0, 0.2, 0.2, 0.5]),
            _ => member.with_effects(Effects::NONE.with_shell([0.2, 1.0, 0.2])),
        };
        members.add(member).expect("a member");
    }
    h.app.world_mut().spawn(crowd);
    for _ in 0..5 {
        h.update();
    }

    let stages = md2_stages(&h.app);
    let mut composition = Composition::new(&h.app);
    // md2-bevy answers for what its own modules do (the stage's module and
    // `md2_bevy::*`); what Bevy's PBR functions do inside the same stages
    // is Bevy's, the same in its StandardMaterial's, and only reported.
    let mut broken = Vec::new();
    let mut bevys = BTreeSet::new();
    for (stage, labels) in &stages {
        let findings = composition
            .check(stage)
            .unwrap_or_else(|e| panic!("{labels:?}: {e}"));
        for finding in findings {
            let module = composition.module_of(&finding);
            let shown = composition.short(&finding);
            match module.as_deref() {
                Some(m) if m.starts_with("bevy_") => {
                    bevys.insert(shown);
                }
                _ => broken.push(format!(
                    "{labels:?}: {}",
                    composition.undecorate(&finding.to_string())
                )),
            }
        }
    }
    // Bevy's findings in its own PBR stages (the StandardMaterial plane's,
    // the deferred lighting pass).
    let mut standard = BTreeSet::new();
    for (stage, labels) in bevy_fragment_stages(&h.app) {
        let findings = composition
            .check(&stage)
            .unwrap_or_else(|e| panic!("{labels:?}: {e}"));
        for finding in findings {
            standard.insert(composition.short(&finding));
        }
    }
    for shown in &bevys {
        eprintln!("Bevy's own, in md2-bevy's stages: {shown}");
        assert!(
            standard.contains(shown),
            "{shown}: in md2-bevy's stages, not in Bevy's own PBR stages"
        );
    }
    let labels: Vec<&String> = stages.iter().flat_map(|(_, l)| l).collect();
    eprintln!(
        "{}: {} md2-bevy stages checked, from pipelines {labels:?}",
        if deferred { "deferred" } else { "forward" },
        stages.len()
    );
    // What the scene must have made Bevy build, or the check saw too
    // little: the entities' and the crowd's main, prepass (or G-buffer)
    // and shadow pipelines, and the crowd's translucent members and shells.
    let pass = if deferred {
        "DEFERRED_PREPASS"
    } else {
        "MOTION_VECTOR_PREPASS"
    };
    let (entities, crowd) = (VERTEX_SHADER.id(), CROWD_VERTEX_SHADER.id());
    for (what, shader, with, without) in [
        (
            "entities' main pass",
            entities,
            None,
            Some("PREPASS_PIPELINE"),
        ),
        ("entities' camera prepass", entities, Some(pass), None),
        (
            "entities' shadow maps",
            entities,
            Some("PREPASS_PIPELINE"),
            Some(pass),
        ),
        ("fragment stage", FRAGMENT_SHADER.id(), None, None),
        ("crowd's main pass", crowd, None, Some("PREPASS_PIPELINE")),
        ("crowd's camera prepass", crowd, Some(pass), None),
        (
            "crowd's shadow maps",
            crowd,
            Some("MD2_CROWD_SHADOW_CASTER"),
            None,
        ),
        (
            "crowd's translucent members",
            crowd,
            Some("MD2_CROWD_TRANSLUCENT"),
            None,
        ),
        ("crowd's shells", crowd, Some("MD2_CROWD_SHELL"), None),
    ] {
        let built = stages.iter().any(|(s, _)| {
            s.shader == shader && with.is_none_or(|d| s.has(d)) && without.is_none_or(|d| !s.has(d))
        });
        assert!(built, "Bevy built no pipeline for md2-bevy's {what}");
    }
    assert!(
        broken.is_empty(),
        "md2-bevy's stages break the real-GPU rules:\n{}",
        broken.join("\n")
    );
}

/// One shader stage as Bevy builds it: the shader, its entry point (none:
/// the module's only one of its stage) and the pipeline's defs.
#[derive(Clone, Debug, PartialEq)]
struct Stage {
    shader: AssetId<Shader>,
    entry_point: Option<String>,
    defs: Vec<ShaderDefVal>,
}

impl Stage {
    /// Whether the stage is built with the def `name`.
    fn has(&self, name: &str) -> bool {
        self.defs.iter().any(|def| match def {
            ShaderDefVal::Bool(k, v) => k == name && *v,
            ShaderDefVal::Int(k, _) | ShaderDefVal::UInt(k, _) => k == name,
        })
    }
}

/// Every vertex and fragment stage of `app`'s render pipelines that runs
/// one of md2-bevy's shaders, each once, with the labels of the pipelines
/// that run it.
fn md2_stages(app: &App) -> Vec<(Stage, Vec<String>)> {
    let ours = [
        VERTEX_SHADER.id(),
        CROWD_VERTEX_SHADER.id(),
        FRAGMENT_SHADER.id(),
    ];
    render_stages(app, |shader, _| ours.contains(&shader.id()))
}

/// The fragment stages of Bevy's own PBR pipelines in `app` (the
/// StandardMaterial's forward, prepass and deferred stages, the deferred
/// lighting pass): every fragment stage whose shader is bevy_pbr's.
fn bevy_fragment_stages(app: &App) -> Vec<(Stage, Vec<String>)> {
    let stages = render_stages(app, |shader, fragment| {
        fragment
            && shader
                .path()
                .is_some_and(|p| p.to_string().starts_with("embedded://bevy_pbr/"))
    });
    assert!(!stages.is_empty(), "Bevy built no PBR pipeline");
    stages
}

/// Every vertex and fragment stage of `app`'s render pipelines that `keep`
/// takes (given its shader, and whether it is a fragment stage), each
/// once, with the labels of the pipelines that run it. Every pipeline
/// with such a stage must have been built.
fn render_stages(
    app: &App,
    keep: impl Fn(&Handle<Shader>, bool) -> bool,
) -> Vec<(Stage, Vec<String>)> {
    let cache = app.sub_app(RenderApp).world().resource::<PipelineCache>();
    let mut stages: Vec<(Stage, Vec<String>)> = Vec::new();
    for pipeline in cache.pipelines() {
        let PipelineDescriptor::RenderPipelineDescriptor(descriptor) = &pipeline.descriptor else {
            continue;
        };
        let label = descriptor
            .label
            .as_deref()
            .unwrap_or("unlabelled")
            .to_owned();
        let mut found = vec![(
            &descriptor.vertex.shader,
            &descriptor.vertex.entry_point,
            &descriptor.vertex.shader_defs,
            false,
        )];
        if let Some(fragment) = &descriptor.fragment {
            found.push((
                &fragment.shader,
                &fragment.entry_point,
                &fragment.shader_defs,
                true,
            ));
        }
        for (shader, entry_point, defs, fragment) in found {
            if !keep(shader, fragment) {
                continue;
            }
            if let CachedPipelineState::Err(e) = &pipeline.state {
                panic!("{label}: Bevy could not build it: {e}");
            }
            let stage = Stage {
                shader: shader.id(),
                entry_point: entry_point.as_ref().map(|e| e.to_string()),
                defs: defs.clone(),
            };
            let at = match stages.iter().position(|(s, _)| *s == stage) {
                Some(at) => at,
                None => {
                    stages.push((stage, Vec::new()));
                    stages.len() - 1
                }
            };
            let labels = &mut stages[at].1;
            if !labels.contains(&label) {
                labels.push(label.clone());
            }
        }
    }
    stages
}

/// Bevy's shaders, composed as Bevy's shader cache composes them (the
/// same imports added the same way, the same global defs), then crossed
/// to naga 30 and checked.
struct Composition {
    composer: Composer,
    shaders: HashMap<AssetId<Shader>, Shader>,
    by_import: HashMap<ShaderImport, AssetId<Shader>>,
    /// Each module's suffix on the names naga_oil gives its items, and the
    /// module's name.
    suffixes: Vec<(String, String)>,
}

impl Composition {
    fn new(app: &App) -> Composition {
        // PipelineCache::new's global defs, added to every shader as its
        // extract_shaders adds them.
        let limits = app
            .sub_app(RenderApp)
            .world()
            .resource::<RenderDevice>()
            .limits();
        let global = ShaderDefVal::UInt(
            "AVAILABLE_STORAGE_BUFFER_BINDINGS".into(),
            limits.max_storage_buffers_per_shader_stage,
        );
        let mut shaders = HashMap::new();
        let mut by_import = HashMap::new();
        let mut suffixes = Vec::new();
        for (id, shader) in app.world().resource::<Assets<Shader>>().iter() {
            let mut shader = shader.clone();
            shader.shader_defs.push(global.clone());
            let name = shader.import_path.module_name().into_owned();
            suffixes.push((Composer::decorated_name(Some(&name), ""), name));
            by_import.insert(shader.import_path.clone(), id);
            shaders.insert(id, shader);
        }
        Composition {
            composer: Composer::default().with_capabilities(naga29::valid::Capabilities::all()),
            shaders,
            by_import,
            suffixes,
        }
    }

    /// Adds `import` and what it imports to the composer, as Bevy's
    /// `add_import_to_composer` does.
    fn add_import(&mut self, import: &ShaderImport) -> Result<(), String> {
        if self.composer.contains_module(&import.module_name()) {
            return Ok(());
        }
        let shader = self
            .by_import
            .get(import)
            .and_then(|id| self.shaders.get(id))
            .ok_or_else(|| format!("no shader for the import {import:?}"))?
            .clone();
        for inner in &shader.imports {
            self.add_import(inner)?;
        }
        let descriptor: ComposableModuleDescriptor<'_> = (&shader).into();
        let added = self.composer.add_composable_module(descriptor);
        added
            .map(drop)
            .map_err(|e| e.emit_to_string(&self.composer))
    }

    /// `stage`'s module composed (naga 29), written as WGSL.
    fn wgsl(&mut self, stage: &Stage) -> Result<String, String> {
        let shader = self
            .shaders
            .get(&stage.shader)
            .ok_or("the shader is not loaded")?
            .clone();
        for import in &shader.imports {
            self.add_import(import)?;
        }
        let shader_defs = stage
            .defs
            .iter()
            .chain(&shader.shader_defs)
            .map(|def| match def.clone() {
                ShaderDefVal::Bool(k, v) => (k, ShaderDefValue::Bool(v)),
                ShaderDefVal::Int(k, v) => (k, ShaderDefValue::Int(v)),
                ShaderDefVal::UInt(k, v) => (k, ShaderDefValue::UInt(v)),
            })
            .collect::<std::collections::HashMap<_, _>>();
        let module = self
            .composer
            .make_naga_module(NagaModuleDescriptor {
                shader_defs,
                ..(&shader).into()
            })
            .map_err(|e| e.emit_to_string(&self.composer))?;
        let info = naga29::valid::Validator::new(
            naga29::valid::ValidationFlags::all(),
            naga29::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| format!("naga 29 rejects the composed module: {e:?}"))?;
        naga29::back::wgsl::write_string(&module, &info, naga29::back::wgsl::WriterFlags::empty())
            .map_err(|e| format!("naga 29 cannot write it: {e}"))
    }

    /// What `stage`'s entry point breaks (every entry point of its stage
    /// where the pipeline names none).
    fn check(&mut self, stage: &Stage) -> Result<Vec<Finding>, String> {
        let wgsl = self.wgsl(stage)?;
        let module = naga::front::wgsl::parse_str(&wgsl).map_err(|e| {
            format!(
                "naga 30 cannot read the crossing: {}",
                e.emit_to_string(&wgsl)
            )
        })?;
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| format!("naga 30 rejects the crossing: {}", e.emit_to_string(&wgsl)))?;
        let mut findings = md2_wgpu::checks::check(&module, &info, Some(&wgsl));
        if let Some(entry) = &stage.entry_point {
            findings.retain(|f| &f.entry_point == entry);
        }
        Ok(findings)
    }

    /// The module `finding`'s function comes from (naga_oil's suffix on
    /// its name), or none: the stage's own.
    fn module_of(&self, finding: &Finding) -> Option<String> {
        self.suffixes
            .iter()
            .find(|(suffix, _)| finding.function.ends_with(suffix.as_str()))
            .map(|(_, name)| name.clone())
    }

    /// `finding`'s rule, variable and function, with their modules (where
    /// it is, whichever stage and line).
    fn short(&self, finding: &Finding) -> String {
        self.undecorate(&format!(
            "{}: `{}` in {}",
            finding.rule, finding.variable, finding.function
        ))
    }

    /// `text` with naga_oil's decorated names written `module::name`.
    fn undecorate(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (suffix, module) in &self.suffixes {
            while let Some(at) = out.find(suffix.as_str()) {
                let start = out[..at]
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(0, |k| k + 1);
                let name = out[start..at].to_owned();
                out.replace_range(start..at + suffix.len(), &format!("{module}::{name}"));
            }
        }
        out
    }
}
