//! The real MD2 files in ../shared/md2: every one loads with the right
//! counts, names, animations and warnings; frames decode as an independent
//! reading of the bytes says; and they write back exactly.
//!
//! A fresh clone has no ../shared: each test then prints why it checked
//! nothing (the generated models in format_built.rs carry the core checks).

use crate::common::{QUAKE2_PLAYER_FRAMES, Tolerance, assert_glcmds_cover, real_files};
use md2_wgpu::model::Bounds;
use md2_wgpu::{
    Md2Model,
    format::{GlCmdKind, Md2Warning},
    model::normal_from_index,
};

/// What ../shared/md2/README.md (and a reading of the headers) says each file
/// holds.
struct Expected {
    path: &'static str,
    num_xyz: usize,
    num_st: usize,
    num_tris: usize,
    num_frames: usize,
    skin_size: (u32, u32),
    skins: &'static [&'static str],
    /// (frame index, name)
    frames: &'static [(usize, &'static str)],
    /// The animations, in order: the names this file gives Quake II's
    /// player animations from the first ([`QUAKE2_PLAYER_FRAMES`]; a name
    /// repeated over neighbours takes them as one), space-separated, in
    /// pieces; then (name, first, last) of any after them.
    player_animations: &'static [&'static str],
    more_animations: &'static [(&'static str, u32, u32)],
    /// The trailing-byte warning's (ofs_end, length), the only quirk of the
    /// bytes seen.
    trailing: Option<(usize, usize)>,
    /// The animations renamed to keep names unique: (name in the frames,
    /// new name, first, last), warned about after any other warning.
    renamed: &'static [(&'static str, &'static str, u32, u32)],
}

/// A player's weapon, animated as the player is: id's frame names.
const PLAYER_WEAPON_ANIMS: &str = "stand run attack pain1 pain2 pain3 jump flip salute taunt wave \
                                   point crstnd crwalk crattak crpain";

/// Yohko's names for the player animations up to the crouched pain, the
/// pains as one.
const YOHKO_ANIMS: &str = "stand run attack pain pain pain jump flip salute taunt wave point \
                           crstand crwalk crattack crpain";

const EXPECTED: &[Expected] = &[
    Expected {
        path: "edge/bug_weapon_1tri.md2",
        num_xyz: 3,
        num_st: 1,
        num_tris: 1,
        num_frames: 173,
        skin_size: (136, 60),
        skins: &["players/tank/weapon.pcx"],
        frames: &[
            (0, "stand01"),
            (54, "pain101"),
            (62, "pain301"),
            (172, "crpain4"),
        ],
        player_animations: &[PLAYER_WEAPON_ANIMS],
        more_animations: &[],
        trailing: None,
        renamed: &[],
    },
    Expected {
        path: "edge/infantry_weapon_1frame.md2",
        num_xyz: 40,
        num_st: 66,
        num_tris: 68,
        num_frames: 1,
        skin_size: (72, 68),
        skins: &["layers/infantry/weapon.pcx"],
        frames: &[(0, "grenade")],
        player_animations: &[],
        more_animations: &[("grenade", 0, 0)],
        trailing: None,
        renamed: &[],
    },
    Expected {
        path: "edge/thecrow_weapon_trailing1.md2",
        num_xyz: 115,
        num_st: 188,
        num_tris: 202,
        num_frames: 174,
        skin_size: (308, 169),
        skins: &["models/weapons/g_shotg2/skin.pcx"],
        frames: &[(0, "stand01"), (172, "crpain4"), (173, "g_view")],
        player_animations: &[PLAYER_WEAPON_ANIMS],
        more_animations: &[("g_view", 173, 173)],
        trailing: Some((94556, 94557)),
        renamed: &[],
    },
    Expected {
        path: "ogro/ogros.MD2",
        num_xyz: 358,
        num_st: 469,
        num_tris: 670,
        num_frames: 199,
        skin_size: (256, 256),
        skins: &[
            "players/ogro/igdosh.pcx",
            "players/ogro/arboshak.pcx",
            "players/ogro/darkam.pcx",
            "players/ogro/freedom.pcx",
            "players/ogro/gib.pcx",
            "players/ogro/gorash.pcx",
            "players/ogro/gordogh.pcx",
            "players/ogro/grok.pcx",
            "players/ogro/khorne.pcx",
            "players/ogro/nabogro.pcx",
            "players/ogro/slaanesh.pcx",
            "players/ogro/ctf_r.pcx",
            "players/ogro/ctf_b.pcx",
        ],
        frames: &[
            (0, "stand001"),
            (46, "attack000"),
            (54, "paina001"),
            (84, "salute_alt1"),
            (94, "salute_alt11"),
            (197, "deathc008"),
            (198, "boom"),
        ],
        player_animations: &[
            "stand run attack paina painb painc jump flip salute_alt bumflop wavealt sniffsniff \
             cstand cwalk crattack crpain crdeath deatha deathb deathc",
        ],
        more_animations: &[("boom", 198, 198)],
        trailing: None,
        renamed: &[],
    },
    Expected {
        path: "yohko/tris.md2",
        num_xyz: 411,
        num_st: 516,
        num_tris: 772,
        num_frames: 198,
        skin_size: (256, 256),
        skins: &[],
        frames: &[
            (0, "stand001"),
            (54, "pain001"),
            (65, "pain012"),
            (197, "death020"),
        ],
        player_animations: &[YOHKO_ANIMS, "crdeath death death death"],
        more_animations: &[],
        trailing: None,
        renamed: &[],
    },
    Expected {
        path: "yohko/w_railgun.md2",
        num_xyz: 112,
        num_st: 188,
        num_tris: 192,
        num_frames: 173,
        skin_size: (292, 194),
        skins: &["models/weapons/g_rail/skin.pcx"],
        frames: &[
            (0, "rail001"),
            (98, "rail099"),
            (99, "rail100"),
            (172, "rail173"),
        ],
        // rail001..rail173 count on across the hundred (rail099, rail100):
        // one animation, not a `rail` and a `rail1`.
        player_animations: &[],
        more_animations: &[("rail", 0, 172)],
        trailing: None,
        renamed: &[],
    },
    Expected {
        path: "yohko/weapon.md2",
        num_xyz: 23,
        num_st: 34,
        num_tris: 28,
        num_frames: 198,
        skin_size: (128, 128),
        skins: &["players\\Yohko\\weapon.pcx"],
        frames: &[
            (0, "stand001"),
            (172, "crpain004"),
            (173, "crstand001"),
            (197, "crwalk006"),
        ],
        // The file repeats crstand001..019 and crwalk001..006 after crpain
        // (frames 173..197, where a player has crdeath and the deaths): new
        // animations whose names are taken, so they get a suffix.
        player_animations: &[YOHKO_ANIMS],
        more_animations: &[("crstand_2", 173, 191), ("crwalk_2", 192, 197)],
        trailing: None,
        renamed: &[
            ("crstand", "crstand_2", 173, 191),
            ("crwalk", "crwalk_2", 192, 197),
        ],
    },
];

fn expected(path: &str) -> &'static Expected {
    EXPECTED.iter().find(|e| e.path == path).unwrap_or_else(|| {
        panic!("{path} is in the shared models folder but not in this test's table")
    })
}

/// `e`'s animations in full: (name, first, last).
fn animations(e: &Expected) -> Vec<(String, u32, u32)> {
    let names = e
        .player_animations
        .iter()
        .flat_map(|n| n.split_whitespace());
    let mut out: Vec<(String, u32, u32)> = Vec::new();
    for (name, &(_, first, last)) in names.zip(&QUAKE2_PLAYER_FRAMES) {
        if out.last().is_some_and(|a| a.0 == name) {
            out.last_mut().expect("a last").2 = last;
        } else {
            out.push((name.to_string(), first, last));
        }
    }
    let more = e.more_animations.iter();
    out.extend(more.map(|&(name, first, last)| (name.to_string(), first, last)));
    out
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

/// Header field `i` (0-based, in file order) read straight from the bytes.
fn field(b: &[u8], i: usize) -> usize {
    let v = i32_at(b, 4 * i);
    assert!(v >= 0, "header field {i} is {v}");
    v as usize
}

#[test]
fn every_real_file_is_in_the_table_and_the_table_is_complete() {
    let files = real_files();
    if files.is_empty() {
        return;
    }
    let found: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let listed: Vec<&str> = EXPECTED.iter().map(|e| e.path).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(found, sorted);
}

#[test]
fn real_files_load_with_the_right_counts_names_and_warnings() {
    for (path, bytes) in real_files() {
        let e = expected(&path);
        let model = Md2Model::from_bytes(&bytes).unwrap_or_else(|err| panic!("{path}: {err}"));
        let h = model.header();
        assert_eq!(&h.ident, b"IDP2", "{path}");
        assert_eq!(h.version, 8, "{path}");
        assert_eq!(
            model.keyframes().vertex_count(),
            e.num_xyz,
            "{path}: num_xyz"
        );
        assert_eq!(h.num_xyz as usize, e.num_xyz, "{path}: num_xyz");
        assert_eq!(model.tex_coords().len(), e.num_st, "{path}: num_st");
        assert_eq!(model.triangles().len(), e.num_tris, "{path}: num_tris");
        assert_eq!(
            model.keyframes().frame_count() as usize,
            e.num_frames,
            "{path}: num_frames"
        );
        assert_eq!(
            model.keyframes().frames().len(),
            e.num_frames,
            "{path}: num_frames"
        );
        assert_eq!(
            model.keyframes().vertices().len(),
            e.num_frames * e.num_xyz,
            "{path}"
        );
        assert_eq!(model.skins().len(), e.skins.len(), "{path}: num_skins");
        assert_eq!(model.skin_size(), e.skin_size, "{path}: skin size");
        let skins: Vec<String> = model.skins().iter().map(|s| s.name()).collect();
        assert_eq!(skins, e.skins, "{path}: skin names");
        for &(i, name) in e.frames {
            assert_eq!(
                model.keyframes().frames()[i].name(),
                name,
                "{path}: frame {i}"
            );
        }

        let anims: Vec<(String, u32, u32)> = model
            .keyframes()
            .animations()
            .iter()
            .map(|a| (a.name.clone(), a.first, a.last))
            .collect();
        assert_eq!(anims, animations(e), "{path}: animations");

        let renamed =
            e.renamed.iter().map(
                |&(name, renamed, first, last)| Md2Warning::AnimationRenamed {
                    name: name.into(),
                    renamed: renamed.into(),
                    first,
                    last,
                },
            );
        let want_warnings: Vec<Md2Warning> = e
            .trailing
            .map(|(ofs_end, length)| Md2Warning::TrailingBytes { ofs_end, length })
            .into_iter()
            .chain(renamed)
            .collect();
        assert_eq!(
            model.warnings(),
            want_warnings.as_slice(),
            "{path}: warnings"
        );
        if e.trailing.is_some() {
            assert_eq!(
                h.ofs_end as usize + 1,
                bytes.len(),
                "{path}: one trailing byte"
            );
        }
        assert!(!model.glcmds().is_empty(), "{path}: glcmds kept");
    }
}

#[test]
fn the_named_animations_of_the_issue() {
    for (path, bytes) in real_files() {
        let model = Md2Model::from_bytes(&bytes).unwrap();
        let anims = model.keyframes().animations();
        let find = |name: &str| {
            anims
                .iter()
                .find(|a| a.name == name)
                .map(|a| (a.first, a.last))
        };
        match path.as_str() {
            "yohko/tris.md2" => {
                assert_eq!(anims.len(), 16);
                assert_eq!(find("pain"), Some((54, 65)));
                assert_eq!(find("death"), Some((178, 197)));
            }
            "ogro/ogros.MD2" => {
                assert_eq!(anims.len(), 21);
                assert_eq!(find("boom"), Some((198, 198)));
                assert_eq!(anims.last().unwrap().len(), 1);
            }
            "yohko/w_railgun.md2" => {
                // One count, 1 to 173, across the hundred.
                assert_eq!(anims.len(), 1);
                assert_eq!(find("rail"), Some((0, 172)));
                assert_eq!(find("rail1"), None);
            }
            "yohko/weapon.md2" => {
                // The repeated crouch animations come back under new names;
                // the first ones keep theirs.
                assert_eq!(find("crstand"), Some((135, 153)));
                assert_eq!(find("crwalk"), Some((154, 159)));
                assert_eq!(find("crstand_2"), Some((173, 191)));
                assert_eq!(find("crwalk_2"), Some((192, 197)));
                let clip = md2_wgpu::Clip::from(model.keyframes().animation("crstand_2").unwrap());
                assert!(clip.looping, "a renamed crstand loops as crstand does");
            }
            "edge/bug_weapon_1tri.md2" => {
                assert_eq!(find("pain1"), Some((54, 57)));
                assert_eq!(find("pain2"), Some((58, 61)));
                assert_eq!(find("pain3"), Some((62, 65)));
                assert_eq!(find("pain"), None);
            }
            _ => {}
        }
        // Whatever the names, the animations tile the frames in order.
        let mut next = 0;
        for a in anims {
            assert_eq!(a.first, next, "{path}");
            assert!(a.last >= a.first, "{path}");
            next = a.last + 1;
        }
        assert_eq!(next, model.keyframes().frame_count(), "{path}");
        // And their names are unique: apps look them up by name.
        for a in anims {
            assert_eq!(model.keyframes().animation(&a.name), Some(a), "{path}");
        }
    }
}

/// Every section read again here from the raw bytes with the header's
/// offsets, and compared with what the loader made of it.
#[test]
fn real_files_agree_with_an_independent_decode() {
    for (path, b) in real_files() {
        let model = Md2Model::from_bytes(&b).unwrap();
        let (skinwidth, skinheight) = (field(&b, 2), field(&b, 3));
        let framesize = field(&b, 4);
        let (num_skins, num_xyz, num_st, num_tris) =
            (field(&b, 5), field(&b, 6), field(&b, 7), field(&b, 8));
        let (num_glcmds, num_frames) = (field(&b, 9), field(&b, 10));
        let (ofs_skins, ofs_st, ofs_tris, ofs_frames, ofs_glcmds) = (
            field(&b, 11),
            field(&b, 12),
            field(&b, 13),
            field(&b, 14),
            field(&b, 15),
        );
        let h = model.header();
        let fields = h.fields();
        for (i, (name, value)) in fields.iter().enumerate() {
            assert_eq!(*value, i32_at(&b, 4 * i), "{path}: header field {name}");
        }

        for i in 0..num_skins {
            let raw = &b[ofs_skins + 64 * i..ofs_skins + 64 * (i + 1)];
            assert_eq!(&model.skins()[i].bytes[..], raw, "{path}: skin {i}");
        }
        for i in 0..num_st {
            let st = model.tex_coords()[i];
            let at = ofs_st + 4 * i;
            assert_eq!(st.s as u16, u16_at(&b, at), "{path}: st {i}");
            assert_eq!(st.t as u16, u16_at(&b, at + 2), "{path}: st {i}");
        }
        for i in 0..num_tris {
            let tri = model.triangles()[i];
            let at = ofs_tris + 12 * i;
            for k in 0..3 {
                assert_eq!(tri.xyz[k], u16_at(&b, at + 2 * k), "{path}: triangle {i}");
                assert_eq!(
                    tri.st[k],
                    u16_at(&b, at + 6 + 2 * k),
                    "{path}: triangle {i}"
                );
            }
        }

        let mut max_extent = 0f32;
        for f in 0..num_frames {
            let at = ofs_frames + f * framesize;
            let scale = [f32_at(&b, at), f32_at(&b, at + 4), f32_at(&b, at + 8)];
            let translate = [
                f32_at(&b, at + 12),
                f32_at(&b, at + 16),
                f32_at(&b, at + 20),
            ];
            let name = &b[at + 24..at + 40];
            let frame = &model.keyframes().frames()[f];
            assert_eq!(frame.scale, scale, "{path}: frame {f}");
            assert_eq!(frame.translate, translate, "{path}: frame {f}");
            assert_eq!(&frame.name_bytes[..], name, "{path}: frame {f}");
            let end = name.iter().position(|&c| c == 0).unwrap_or(16);
            assert_eq!(frame.name().as_bytes(), &name[..end], "{path}: frame {f}");

            let verts = model.keyframes().frame_data(f as u32).packed();
            assert_eq!(verts.len(), num_xyz);
            assert_eq!(
                verts,
                &model.keyframes().vertices()[f * num_xyz..(f + 1) * num_xyz]
            );
            for (j, v) in verts.iter().enumerate() {
                let raw = &b[at + 40 + 4 * j..at + 44 + 4 * j];
                assert_eq!(
                    v.position,
                    [raw[0], raw[1], raw[2]],
                    "{path}: frame {f} vertex {j}"
                );
                assert_eq!(v.normal_index, raw[3], "{path}: frame {f} vertex {j}");
                let want: [f32; 3] =
                    std::array::from_fn(|k| raw[k] as f32 * scale[k] + translate[k]);
                let got = v.decode_position(frame);
                for k in 0..3 {
                    // The same arithmetic, so the same float (an fma would
                    // differ by an ulp, which the tolerance allows).
                    let tol = 1e-5 * want[k].abs().max(1.0);
                    assert!(
                        (got[k] - want[k]).abs() <= tol,
                        "{path}: frame {f} vertex {j} axis {k}: {} vs {}",
                        got[k],
                        want[k]
                    );
                    max_extent = max_extent.max(want[k].abs());
                }
                assert_eq!(v.normal(), normal_from_index(raw[3]));
            }
            let Bounds { min: lo, max: hi } = model.keyframes().frame_bounds(f as u32);
            for k in 0..3 {
                let axis = verts.iter().map(|v| v.decode_position(frame)[k]);
                assert_eq!(lo[k], axis.clone().fold(f32::INFINITY, f32::min), "{path}");
                assert_eq!(hi[k], axis.fold(f32::NEG_INFINITY, f32::max), "{path}");
            }
        }
        // Real models are a few dozen units across: a misread scale would
        // show here.
        assert!(
            max_extent > 1.0 && max_extent < 500.0,
            "{path}: positions reach {max_extent}"
        );

        // The glcmds, decoded word by word.
        let mut cmds = model.glcmds().iter();
        let mut w = 0;
        loop {
            let n = i32_at(&b, ofs_glcmds + 4 * w);
            w += 1;
            if n == 0 {
                break;
            }
            let cmd = cmds
                .next()
                .unwrap_or_else(|| panic!("{path}: missing glcmd"));
            let kind = if n > 0 {
                GlCmdKind::Strip
            } else {
                GlCmdKind::Fan
            };
            assert_eq!(cmd.kind, kind, "{path}");
            assert_eq!(cmd.vertices.len(), n.unsigned_abs() as usize, "{path}");
            for v in &cmd.vertices {
                let at = ofs_glcmds + 4 * w;
                assert_eq!(v.s.to_bits(), f32_at(&b, at).to_bits(), "{path}");
                assert_eq!(v.t.to_bits(), f32_at(&b, at + 4).to_bits(), "{path}");
                assert_eq!(v.xyz as i32, i32_at(&b, at + 8), "{path}");
                w += 3;
            }
        }
        assert!(cmds.next().is_none(), "{path}: extra glcmds");
        assert_eq!(w, num_glcmds, "{path}: the 0 ends the block");
        assert!(skinwidth > 0 && skinheight > 0);
    }
}

/// Quake II's own compiler made these glcmds: they draw every triangle once,
/// with the triangle's winding, each vertex half a texel past its texel. This
/// pins down how [`md2_wgpu::format::GlCmd::triangles`] orders a strip's odd
/// triangles.
#[test]
fn real_glcmds_draw_the_triangles_once_with_their_winding() {
    for (path, bytes) in real_files() {
        let model = Md2Model::from_bytes(&bytes).unwrap();
        assert_glcmds_cover(&model, model.glcmds(), Tolerance::Ulp, &path);
    }
}

/// Real MD2 triangles are clockwise seen from outside: the right-hand rule
/// gives the inward normal, against the stored vertex normals. (OBJ, which
/// wants counter-clockwise, must reverse them; md2info does.)
#[test]
fn real_triangles_are_clockwise_seen_from_outside() {
    for (path, bytes) in real_files() {
        if !matches!(
            path.as_str(),
            "yohko/tris.md2" | "ogro/ogros.MD2" | "yohko/weapon.md2" | "yohko/w_railgun.md2"
        ) {
            // Weapons made of loose cards have no outside to speak of.
            continue;
        }
        let model = Md2Model::from_bytes(&bytes).unwrap();
        let frame = &model.keyframes().frames()[0];
        let verts = model.keyframes().frame_data(0).packed();
        let (mut cw, mut ccw) = (0, 0);
        for tri in model.triangles() {
            let p = tri.xyz.map(|i| verts[i as usize].decode_position(frame));
            let n = crate::common::cross(
                crate::common::sub(p[1], p[0]),
                crate::common::sub(p[2], p[0]),
            );
            let stored: f32 = tri
                .xyz
                .iter()
                .map(|&i| crate::common::dot(n, verts[i as usize].normal()))
                .sum();
            if stored < 0.0 {
                cw += 1;
            } else if stored > 0.0 {
                ccw += 1;
            }
        }
        assert!(
            cw > 20 * ccw,
            "{path}: {cw} triangles clockwise from outside, {ccw} counter-clockwise"
        );
    }
}

#[test]
fn clean_real_files_write_back_byte_for_byte() {
    for (path, bytes) in real_files() {
        let model = Md2Model::from_bytes(&bytes).unwrap();
        // A renamed animation is about names, not bytes (yohko/weapon.md2).
        let renamed = |w: &Md2Warning| matches!(w, Md2Warning::AnimationRenamed { .. });
        if !model.warnings().iter().all(renamed) {
            continue;
        }
        let written = model.to_bytes();
        assert_eq!(written.len(), bytes.len(), "{path}");
        if let Some(at) = written.iter().zip(&bytes).position(|(a, b)| a != b) {
            panic!("{path}: first difference at byte {at}");
        }
        assert_eq!(model.canonical_header(), *model.header(), "{path}");
    }
}

#[test]
fn a_file_with_trailing_bytes_writes_back_without_them() {
    let mut seen = false;
    for (path, bytes) in real_files() {
        if path != "edge/thecrow_weapon_trailing1.md2" {
            continue;
        }
        seen = true;
        let model = Md2Model::from_bytes(&bytes).unwrap();
        let written = model.to_bytes();
        assert_eq!(written.len(), bytes.len() - 1);
        assert_eq!(written, bytes[..bytes.len() - 1]);
        let again = Md2Model::from_bytes(&written).unwrap();
        assert!(again.warnings().is_empty(), "{:?}", again.warnings());
        assert_eq!(again.header(), model.header());
        assert_eq!(again.skins(), model.skins());
        assert_eq!(again.tex_coords(), model.tex_coords());
        assert_eq!(again.triangles(), model.triangles());
        assert_eq!(again.keyframes().frames(), model.keyframes().frames());
        assert_eq!(again.keyframes().vertices(), model.keyframes().vertices());
        assert_eq!(again.glcmds(), model.glcmds());
        assert_eq!(again.to_bytes(), written);
    }
    if !seen && crate::common::shared_dir().is_some() {
        panic!("thecrow_weapon_trailing1.md2 is missing from the shared models folder");
    }
}
