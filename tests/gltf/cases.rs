//! The models every glTF test exports (the demo, a few built in code, one
//! made through the model seam alone, every real model in the shared
//! folder) and a reader for what comes back.

use std::path::PathBuf;

use gltf::Semantic;
use image::RgbaImage;
use md2_wgpu::gltf::{GltfExport, GltfOptions, to_glb};
use md2_wgpu::model::{Animation, KeyframeModel};
use md2_wgpu::{Md2Model, scene::quake_to_y_up};

use crate::common;

/// A model to export, with its skins and the size of its MD2 file.
pub struct Case {
    pub name: String,
    /// What the export reads: the model seam.
    pub model: KeyframeModel,
    /// The MD2 model it came from, if it came from one.
    pub md2: Option<Md2Model>,
    pub skins: Vec<RgbaImage>,
    pub skin_names: Vec<String>,
    /// The size of its file, MD2 or MDL (0 for the seam's own).
    pub md2_bytes: usize,
}

impl Case {
    fn from_md2(name: String, md2: Md2Model, md2_bytes: usize) -> Case {
        Case {
            name,
            model: md2.keyframes().clone(),
            md2: Some(md2),
            skins: Vec::new(),
            skin_names: Vec::new(),
            md2_bytes,
        }
    }
}

impl Case {
    /// The export with `options` (and this case's skin names).
    pub fn export(&self, options: &GltfOptions) -> GltfExport {
        let options = GltfOptions {
            skin_names: self.skin_names.clone(),
            ..options.clone()
        };
        to_glb(&self.model, &self.skins, &options)
            .unwrap_or_else(|e| panic!("{}: export failed: {e}", self.name))
    }

    /// The export with `options`, and its GLB read back.
    pub fn read(&self, options: &GltfOptions) -> (GltfExport, Read) {
        let export = self.export(options);
        let read = Read::new(&export.glb);
        (export, read)
    }
}

/// The built-in demo model and its skin.
pub fn demo() -> Case {
    Case {
        skins: vec![md2_wgpu::demo::demo_skin()],
        skin_names: vec!["demo".into()],
        ..Case::from_md2(
            "demo".into(),
            md2_wgpu::demo::demo_model(),
            md2_wgpu::demo::demo_model_bytes().len(),
        )
    }
}

/// Models built in code: a seamed sphere, one triangle, a seamed box; and
/// a box made through the model seam alone, with animations of its own; no
/// skins.
pub fn built() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        ("sphere", common::sphere(6, 8, 5)),
        ("single", common::single()),
        ("box", common::seamed_box(7)),
    ]
    .into_iter()
    .map(|(name, mesh)| {
        let model = mesh.model();
        let bytes = model.to_bytes().len();
        Case::from_md2(name.into(), model, bytes)
    })
    .collect();
    cases.push(seam());
    cases
}

/// A box made through the model seam alone (no MD2 file or parts), as
/// another keyframe format comes in: two clips its frame names would not
/// make.
pub fn seam() -> Case {
    let animation = |name: &str, first, last| Animation {
        name: name.into(),
        first,
        last,
    };
    Case {
        name: "seam".into(),
        model: common::seamed_box(6).keyframes(Some(vec![
            animation("spin", 0, 2),
            animation("tumble", 3, 5),
        ])),
        md2: None,
        skins: Vec::new(),
        skin_names: Vec::new(),
        md2_bytes: 0,
    }
}

/// Every real model in the shared folder with the skins found beside it
/// (those that load); empty, with a note, where the folder is absent.
pub fn real() -> Vec<Case> {
    let Some(dir) = common::shared_dir() else {
        return Vec::new();
    };
    common::real_files()
        .into_iter()
        .map(|(name, bytes)| {
            let model = Md2Model::from_bytes(&bytes).expect("real model parses");
            let loaded = md2_wgpu::skins::load_skins(dir.join(&name), &model);
            let (skins, skin_names) = loaded
                .images
                .into_iter()
                .zip(loaded.paths)
                .filter(|(image, _)| image.width() > 0)
                .map(|(image, path)| (image, stem(path)))
                .unzip();
            Case {
                skins,
                skin_names,
                ..Case::from_md2(name, model, bytes.len())
            }
        })
        .collect()
}

fn stem(path: Option<PathBuf>) -> String {
    path.and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// Quake I models: the one built in code (seam vertices read from both
/// skin halves, so the welded corners outnumber the vertices; frame and
/// skin groups) and every shared one, skins in the shared palette (else
/// the built-in one). Named `mdl/<file>`.
pub fn mdl() -> Vec<Case> {
    let built = common::seam_mdl();
    let mut cases = vec![mdl_case(
        "mdl/seam (built)".into(),
        built,
        &common::seam_palette(),
    )];
    if let Some(dir) = common::shared_mdl_dir() {
        let palette =
            common::shared_palette().unwrap_or_else(md2_wgpu::format::mdl::Palette::builtin);
        for (name, bytes) in md2_wgpu::support::files_in(&dir, "mdl").expect("the shared MDLs") {
            let model =
                md2_wgpu::format::mdl::MdlModel::from_bytes(&bytes).expect("a shared MDL loads");
            cases.push(mdl_case(format!("mdl/{name}"), model, &palette));
        }
    }
    cases
}

fn mdl_case(
    name: String,
    model: md2_wgpu::format::mdl::MdlModel,
    palette: &md2_wgpu::format::mdl::Palette,
) -> Case {
    let skins = md2_wgpu::format::mdl::SkinImages::new(&model, palette).layers;
    Case {
        skin_names: (0..skins.len()).map(|i| format!("skin{i}")).collect(),
        skins,
        md2_bytes: model.to_bytes().len(),
        model: (*model).clone(),
        md2: None,
        name,
    }
}

/// The demo, the built models, the real ones and the Quake I ones.
pub fn all() -> Vec<Case> {
    let mut cases = vec![demo()];
    cases.extend(built());
    cases.extend(real());
    cases.extend(mdl());
    cases
}

/// Where this binary's files go: <target tmp>/gltf/<what>.
pub fn out_dir(what: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("gltf")
        .join(what);
    std::fs::create_dir_all(&dir).expect("create the test output folder");
    dir
}

/// A file name for a case's name (which may hold `/`).
pub fn file_name(name: &str, suffix: &str) -> String {
    format!("{}{suffix}", name.replace(['/', '\\'], "_"))
}

/// A position in Quake axes as the export writes it: in glTF's axes (the
/// renderer's own mapping, `quake_to_y_up`) and scaled.
pub fn exported(p: [f32; 3], scale: f32) -> [f32; 3] {
    let v = quake_to_y_up(p);
    [v.x * scale, v.y * scale, v.z * scale]
}

/// A GLB read back with the gltf crate (without its validation, which
/// refuses `KHR_mesh_quantization`: it knows the extension but not its
/// integer attributes).
pub struct Read {
    pub doc: gltf::Document,
    pub blob: Vec<u8>,
}

impl Read {
    pub fn new(glb: &[u8]) -> Read {
        let g = gltf::Gltf::from_slice_without_validation(glb).expect("the GLB parses");
        Read {
            doc: g.document,
            blob: g.blob.expect("a binary chunk"),
        }
    }

    /// The export's one mesh.
    pub fn mesh(&self) -> gltf::Mesh<'_> {
        self.doc.meshes().next().expect("a mesh")
    }

    /// The mesh's one primitive.
    pub fn primitive(&self) -> gltf::Primitive<'_> {
        self.mesh().primitives().next().expect("a primitive")
    }

    /// An attribute of the primitive, as [`Read::vectors`] reads it.
    pub fn attribute(&self, semantic: Semantic) -> Vec<[f64; 3]> {
        let accessor = self.primitive().get(&semantic);
        self.vectors(accessor.unwrap_or_else(|| panic!("no {semantic:?}")))
    }

    /// The primitive's triangle indices.
    pub fn indices(&self) -> Vec<f64> {
        self.scalars(self.primitive().indices().expect("indices"))
    }

    /// An accessor's elements as f64 triples (or pairs, third 0), its
    /// normalised integers scaled as glTF says.
    pub fn vectors(&self, accessor: gltf::Accessor<'_>) -> Vec<[f64; 3]> {
        use gltf::accessor::{DataType, Dimensions, Iter};
        let data = |_: gltf::Buffer<'_>| Some(self.blob.as_slice());
        let normalized = accessor.normalized();
        match (accessor.data_type(), accessor.dimensions()) {
            (DataType::F32, Dimensions::Vec3) => Iter::<[f32; 3]>::new(accessor, data)
                .expect("readable")
                .map(|v| v.map(f64::from))
                .collect(),
            (DataType::F32, Dimensions::Vec2) => Iter::<[f32; 2]>::new(accessor, data)
                .expect("readable")
                .map(|v| [f64::from(v[0]), f64::from(v[1]), 0.0])
                .collect(),
            (DataType::I16, Dimensions::Vec3) => Iter::<[i16; 3]>::new(accessor, data)
                .expect("readable")
                .map(|v| {
                    v.map(|x| {
                        if normalized {
                            (f64::from(x) / 32767.0).max(-1.0)
                        } else {
                            f64::from(x)
                        }
                    })
                })
                .collect(),
            other => panic!("unexpected accessor type {other:?}"),
        }
    }

    /// A scalar accessor as f64 (sparse ones included).
    pub fn scalars(&self, accessor: gltf::Accessor<'_>) -> Vec<f64> {
        use gltf::accessor::{DataType, Iter};
        let data = |_: gltf::Buffer<'_>| Some(self.blob.as_slice());
        match accessor.data_type() {
            DataType::F32 => Iter::<f32>::new(accessor, data)
                .expect("readable")
                .map(f64::from)
                .collect(),
            DataType::U16 => Iter::<u16>::new(accessor, data)
                .expect("readable")
                .map(f64::from)
                .collect(),
            DataType::U32 => Iter::<u32>::new(accessor, data)
                .expect("readable")
                .map(f64::from)
                .collect(),
            other => panic!("unexpected scalar type {other:?}"),
        }
    }

    /// The node's transform as (translation, uniform scale).
    pub fn node_transform(&self) -> ([f64; 3], f64) {
        let node = self.doc.nodes().next().expect("a node");
        let (t, r, s) = node.transform().decomposed();
        assert_eq!(
            r,
            [0.0, 0.0, 0.0, 1.0],
            "no rotation: the axes are in the data"
        );
        assert!(s[0] == s[1] && s[1] == s[2], "a uniform scale: {s:?}");
        (t.map(f64::from), f64::from(s[0]))
    }
}
