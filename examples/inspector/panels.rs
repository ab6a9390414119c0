//! The inspector's panels: a status bar, the controls on the left, the
//! facts and figures on the right, the 3D view in the middle.

use std::path::PathBuf;

use egui::{Color32, RichText, Sense, Ui};
use md2_wgpu::QuakeModel;
use md2_wgpu::format::md3::PlayerPart;
use md2_wgpu::glam::Vec3;
use md2_wgpu::gpu::PlayerPiece;

use super::model::{CACHE_SIZE, LoadedModel};
use super::player::{MAX_FADE, Player, SPEEDS};
use super::{BACKGROUND, Host, HostRequest, Inspector, KEYS, SHELLS, Shell, WEB_KEYS};

/// The side of a skin thumbnail's box, in points.
const THUMBNAIL: f32 = 96.0;

/// A side panel (`side`: `egui::Panel::left` or `right`) the user can
/// resize, `id` naming it and the scroll area its contents scroll in.
fn side_panel(
    ui: &mut Ui,
    side: impl FnOnce(&'static str) -> egui::Panel,
    id: &'static str,
    contents: impl FnOnce(&mut Ui),
) {
    side(id).resizable(true).default_size(300.0).show(ui, |ui| {
        egui::ScrollArea::vertical().id_salt(id).show(ui, contents);
    });
}

impl Inspector {
    pub(super) fn panels(&mut self, ui: &mut Ui) {
        if self.quake3.is_some() {
            egui::Panel::top("md2 status").show(ui, |ui| self.quake3_status(ui));
            side_panel(ui, egui::Panel::left, "md2 controls", |ui| {
                self.quake3_controls(ui)
            });
            side_panel(ui, egui::Panel::right, "md2 facts", |ui| {
                self.quake3_facts(ui)
            });
        } else {
            egui::Panel::top("md2 status").show(ui, |ui| self.status_bar(ui));
            side_panel(ui, egui::Panel::left, "md2 controls", |ui| {
                self.controls(ui)
            });
            side_panel(ui, egui::Panel::right, "md2 facts", |ui| self.facts(ui));
        }
        let [r, g, b] = BACKGROUND;
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE.fill(egui::Rgba::from_rgb(r, g, b).into()))
            .show(ui, |ui| self.view(ui));
    }

    fn status_bar(&self, ui: &mut Ui) {
        let frame = self.player.frame();
        let weapon = match self.weapon.as_ref().filter(|_| self.show_weapon) {
            Some(w) => format!(" + {}", w.file.name),
            None => String::new(),
        };
        let clip = self.player.clip();
        let weight = self.player.weight();
        let animation = if weight < 1.0 {
            format!(
                "{} to {} {:.0}%",
                self.player.playback().clock.clip.name,
                clip.name,
                weight * 100.0
            )
        } else {
            clip.name.to_string()
        };
        ui.horizontal(|ui| {
            ui.strong(format!("{}{weapon}", self.body.file.name));
            ui.separator();
            ui.label(format!(
                "{animation} ({}/{})",
                self.player.current() + 1,
                self.player.clips().len()
            ));
            ui.separator();
            ui.label(format!("frame {} {}", frame, self.body.frame_name(frame)));
            ui.separator();
            ui.label(format!(
                "{}x{}",
                self.player.speed,
                if self.player.paused { ", paused" } else { "" }
            ));
            ui.separator();
            ui.label(format!("{:.0} fps", self.fps.fps));
        });
    }

    fn controls(&mut self, ui: &mut Ui) {
        section(ui, "File", true, |ui| self.open_section(ui));
        let heading = format!(
            "Animations ({}, from {})",
            self.player.clips().len(),
            self.body.clips_from
        );
        section(ui, "Timeline", true, |ui| self.timeline(ui));
        section(ui, &heading, true, |ui| self.animations(ui));
        section(ui, "Skins", true, |ui| self.skins(ui));
        section(ui, "Effects", true, |ui| self.effects(ui));
        section(ui, "Weapon", true, |ui| self.weapon_section(ui));
        section(ui, "Keys", false, |ui| {
            let keys = match self.host {
                Host::Native => KEYS,
                Host::Browser => WEB_KEYS,
            };
            ui.label(RichText::new(keys).monospace().small());
        });
    }

    fn open_section(&mut self, ui: &mut Ui) {
        match self.host {
            Host::Native => self.open_paths(ui),
            Host::Browser => self.open_picked(ui),
        }
        if !self.errors.is_empty() {
            let color = ui.visuals().error_fg_color;
            for error in &self.errors {
                ui.label(RichText::new(error).color(color));
            }
            if ui.button("Dismiss").clicked() {
                self.errors.clear();
            }
        }
    }

    /// A browser's way: files picked (or dropped) with their skins, and
    /// the model exported as a download.
    fn open_picked(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            if self.host_button(ui, "Open files…").clicked() {
                self.requests.push(HostRequest::PickFiles { weapon: false });
            }
            if self.host_button(ui, "Open weapon…").clicked() {
                self.requests.push(HostRequest::PickFiles { weapon: true });
            }
        });
        ui.label(
            RichText::new(
                "or drop an .md2 with its skin images (.pcx .png .tga .jpg .bmp), and a \
                 weapon.md2, an .mdl (and its palette.lmp), or a Quake III player's \
                 files (its .md3s, animation.cfg, .skins and textures), on the page",
            )
            .weak(),
        );
        if self.host_button(ui, "Export .glb").clicked() {
            self.export_glb();
        }
        if let Some(exported) = &self.exported {
            ui.label(RichText::new(exported).weak());
        }
    }

    /// A button for the host's part, laid out where [`Inspector::layout`]
    /// says.
    fn host_button(&mut self, ui: &mut Ui, label: &'static str) -> egui::Response {
        let response = ui.button(label);
        self.layout.controls.push((label, response.rect));
        response
    }

    /// A native window's way: a path typed, or a file dropped.
    fn open_paths(&mut self, ui: &mut Ui) {
        let label = ui.label("path");
        let field = ui
            .add(
                egui::TextEdit::singleline(&mut self.path)
                    .hint_text("path/to/tris.md2 or .mdl")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.horizontal(|ui| {
            if ui.button("Open").clicked() || entered {
                let path = PathBuf::from(self.path.trim());
                self.open(&path);
            }
            if ui.button("Open as weapon").clicked() {
                let path = PathBuf::from(self.path.trim());
                self.open_weapon(&path);
            }
        });
        ui.label(RichText::new("or drop a file on the window").weak());
    }

    fn animations(&mut self, ui: &mut Ui) {
        clip_list(ui, &mut self.player, "md2 animations");
    }

    /// A Quake III player's status: its name, what the legs and the
    /// torso play, and the frame rate.
    fn quake3_status(&self, ui: &mut Ui) {
        let Some(q3) = &self.quake3 else { return };
        ui.horizontal(|ui| {
            ui.strong(format!("{} (Quake III player)", q3.file.name));
            ui.separator();
            ui.label(format!(
                "legs {} frame {}",
                q3.legs.clip().name,
                q3.legs.frame()
            ));
            ui.separator();
            ui.label(format!(
                "torso {} frame {}",
                q3.torso.clip().name,
                q3.torso.frame()
            ));
            ui.separator();
            ui.label(format!("{:.0} fps", self.fps.fps));
        });
    }

    /// A Quake III player's controls: the file, and the legs' and the
    /// torso's animations, each on its own clock as the game plays them.
    fn quake3_controls(&mut self, ui: &mut Ui) {
        section(ui, "File", true, |ui| self.open_section(ui));
        let Some(q3) = &mut self.quake3 else { return };
        let mut remove = false;
        ui.horizontal(|ui| {
            let paused = q3.legs.paused && q3.torso.paused;
            if ui.button(if paused { "Play" } else { "Pause" }).clicked() {
                q3.legs.paused = !paused;
                q3.torso.paused = !paused;
            }
            // A weapon in its hand (Open as weapon, with an .md3).
            remove = q3.file.player.weapon().is_some() && ui.button("Remove weapon").clicked();
        });
        if remove {
            self.remove_weapon();
        }
        let Some(q3) = &mut self.quake3 else { return };
        let legs = format!("Legs ({} animations, lower.md3)", q3.legs.clips().len());
        section(ui, &legs, true, |ui| {
            clip_list(ui, &mut q3.legs, "md3 legs")
        });
        let torso = format!("Torso ({} animations, upper.md3)", q3.torso.clips().len());
        section(ui, &torso, true, |ui| {
            clip_list(ui, &mut q3.torso, "md3 torso")
        });
    }

    /// A Quake III player's facts: its parts and surfaces, the texture
    /// each wears and where it came from, and its tags where the pose
    /// shown puts them.
    fn quake3_facts(&self, ui: &mut Ui) {
        let Some(q3) = &self.quake3 else { return };
        section(ui, "Stats", true, |ui| {
            egui::Grid::new("md3 stats").num_columns(2).show(ui, |ui| {
                row(ui, "frame rate", format!("{:.1} fps", self.fps.fps));
                row(ui, "draw calls", self.stats.draws().to_string());
                row(ui, "surfaces", q3.gpu.surface_count().to_string());
                let (mut total, mut frames) = (0, 0);
                for i in 0..q3.gpu.surface_count() {
                    if let Some((_, _, model)) = q3.gpu.surface(i) {
                        let bytes = model.gpu_bytes_breakdown();
                        total += bytes.total();
                        frames += bytes.vertex_data;
                    }
                }
                row(ui, "on the GPU", format!("{} bytes", group_digits(total)));
                row(ui, "frames (8 B/vertex)", group_digits(frames));
            });
        });
        section(ui, "Parts", true, |ui| {
            egui::Grid::new("md3 parts").num_columns(2).show(ui, |ui| {
                let parts =
                    PlayerPart::ALL.map(|part| (part.model_file(), q3.file.player.part(part)));
                let weapon = q3
                    .file
                    .player
                    .weapon()
                    .map(|w| ("weapon (tag_weapon)".to_owned(), w));
                for (name, model) in parts.into_iter().chain(weapon) {
                    row(
                        ui,
                        name.as_str(),
                        format!(
                            "{}, {}, {}",
                            count(model.frames().len(), "frame"),
                            count(model.surfaces().len(), "surface"),
                            count(model.tags().len() / model.frames().len().max(1), "tag")
                        ),
                    );
                }
            });
        });
        section(ui, "Textures (default skins)", true, |ui| {
            // Where a texture came from can be a long sentence: wrapped
            // under its surface's name rather than in a grid's column.
            for (piece, surface, status) in &q3.file.surfaces {
                let piece = match piece {
                    PlayerPiece::Part(part) => part.name(),
                    PlayerPiece::Weapon => "weapon",
                };
                ui.label(RichText::new(format!("{piece} {surface}")).weak());
                ui.add(egui::Label::new(status.as_str()).wrap());
            }
        });
        section(ui, "Tags (pose shown, Quake axes)", true, |ui| {
            egui::Grid::new("md3 tags").num_columns(2).show(ui, |ui| {
                for (name, [x, y, z]) in q3.tags() {
                    row(ui, &name, format!("({x:.1}, {y:.1}, {z:.1})"));
                }
            });
        });
    }
}

/// `n` things, with the plural where it takes one: "1 frame", "2 frames".
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// A player's crossfade slider and clip list, the one playing selected; a
/// click plays another.
fn clip_list(ui: &mut Ui, player: &mut Player, id: &str) {
    {
        let mut fade = player.fade_seconds;
        ui.add(
            egui::Slider::new(&mut fade, 0.0..=MAX_FADE)
                .text("crossfade")
                .suffix(" s"),
        )
        .on_hover_text("how long a change of animation takes; 0 cuts");
        player.fade_seconds = fade;
        let mut chosen = None;
        egui::Grid::new(id)
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for (i, clip) in player.clips().iter().enumerate() {
                    let playing = i == player.current();
                    if ui.selectable_label(playing, clip.name.as_ref()).clicked() {
                        chosen = Some(i);
                    }
                    let kind = if clip.looping { "loop" } else { "once" };
                    ui.label(
                        RichText::new(format!(
                            "{}-{} {kind}",
                            clip.first,
                            clip.last.max(clip.first)
                        ))
                        .weak(),
                    );
                    ui.end_row();
                }
            });
        if let Some(i) = chosen {
            player.play(i);
        }
    }
}

impl Inspector {
    fn timeline(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let label = if self.player.paused { "Play" } else { "Pause" };
            if ui.button(label).clicked() {
                self.player.paused = !self.player.paused;
            }
            if ui.button("< Step").clicked() {
                self.player.step(-1);
            }
            if ui.button("Step >").clicked() {
                self.player.step(1);
            }
        });
        let mut speed = self.player.speed;
        ui.add(
            egui::Slider::new(&mut speed, SPEEDS[0]..=SPEEDS[SPEEDS.len() - 1])
                .logarithmic(true)
                .text("speed")
                .suffix("x"),
        );
        self.player.speed = speed;
        let clip = self.player.clip();
        let frames = clip.frames();
        let mut frame = self.player.frame();
        let slider = ui.add_enabled(
            frames.start() != frames.end(),
            egui::Slider::new(&mut frame, frames).text("frame"),
        );
        // A drag pauses on the frame under the pointer even where that is
        // the frame already shown.
        if slider.changed() || slider.dragged() {
            self.player.set_frame(frame);
        }
        ui.label(format!(
            "frame {} of {}: {}",
            self.player.frame(),
            self.body.file.model.frame_count(),
            self.body.frame_name(self.player.frame())
        ));
        ui.checkbox(&mut self.player.interpolate, "interpolate")
            .on_hover_text("blend between keyframes; off shows whole frames, as Quake II's software renderer did");
    }

    fn skins(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        let mut chosen = None;
        ui.horizontal_wrapped(|ui| {
            for (i, slot) in self.body.file.skins.iter().enumerate() {
                let label = format!("{}: {}", i + 1, slot.name);
                let selected = i == self.skin;
                let thumbnail = match (&slot.image, &mut self.thumbnails[i]) {
                    (Some(image), handle) => Some(handle.get_or_insert_with(|| {
                        let small = thumbnail(image);
                        ctx.load_texture(
                            format!("md2 skin {i}"),
                            egui::ColorImage::from_rgba_unmultiplied(
                                [small.width() as usize, small.height() as usize],
                                small.as_raw(),
                            ),
                            egui::TextureOptions::LINEAR,
                        )
                    })),
                    (None, _) => None,
                };
                let button = match thumbnail {
                    Some(texture) => {
                        let size = texture.size_vec2();
                        let image = egui::Image::new((texture.id(), size));
                        egui::Button::image_and_text(image, label.as_str())
                    }
                    None => egui::Button::new(format!("{label} (missing)")),
                };
                let response = ui
                    .add(button.selected(selected))
                    .on_hover_text(&slot.status);
                if response.clicked() {
                    chosen = Some(i);
                }
            }
        });
        if self.body.file.skins.is_empty() {
            ui.label("none: the renderer's checker texture");
        }
        if let Some(i) = chosen {
            self.set_skin(i);
        }
    }

    fn effects(&mut self, ui: &mut Ui) {
        let shell_name = match self.look.shell {
            Shell::Off => "off".to_owned(),
            Shell::Quake(i) => SHELLS[i].0.to_owned(),
            Shell::Colour(_) => "colour".to_owned(),
        };
        egui::ComboBox::from_label("shell")
            .selected_text(shell_name)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut self.look.shell, Shell::Off, "off");
                for (i, (name, _)) in SHELLS.iter().enumerate() {
                    ui.selectable_value(&mut self.look.shell, Shell::Quake(i), *name);
                }
                let colour = match self.look.shell {
                    Shell::Colour(c) => c,
                    _ => [1.0, 0.5, 0.0],
                };
                ui.selectable_value(&mut self.look.shell, Shell::Colour(colour), "colour");
            });
        if let Shell::Colour(c) = &mut self.look.shell {
            ui.horizontal(|ui| {
                ui.label("shell colour");
                ui.color_edit_button_rgb(c);
            });
        }
        let stencil = self.target.has_stencil();
        ui.add_enabled(
            stencil,
            egui::Checkbox::new(&mut self.look.shadow, "planar shadow"),
        )
        .on_disabled_hover_text("egui's pass has no stencil buffer, which planar shadows need");
        ui.checkbox(&mut self.look.fullbright, "fullbright");
        ui.checkbox(&mut self.look.minlight, "minlight");
        ui.add(egui::Slider::new(&mut self.look.opacity, 0.05..=1.0).text("opacity"))
            .on_hover_text("below 1: translucent, drawn after the opaque models and blended");
    }

    fn weapon_section(&mut self, ui: &mut Ui) {
        let Some(weapon) = &self.weapon else {
            ui.label(match self.host {
                Host::Native => {
                    "none: give --weapon FILE, or type its path above and press Open as weapon"
                }
                Host::Browser => "none: Open weapon…, or drop weapon.md2 with the model",
            });
            return;
        };
        let (weapon_frames, body_frames) = (
            weapon.file.model.frame_count(),
            self.body.file.model.frame_count(),
        );
        let name = weapon.file.name.clone();
        ui.checkbox(&mut self.show_weapon, format!("show {name}"));
        if weapon_frames != body_frames {
            ui.label(
                RichText::new(format!(
                    "the weapon has {weapon_frames} frames, the body {body_frames}: frames past the \
                     weapon's last show its last"
                ))
                .weak(),
            );
        }
        if ui.button("Remove weapon").clicked() {
            self.remove_weapon();
        }
    }

    fn facts(&self, ui: &mut Ui) {
        section(ui, "Stats", true, |ui| {
            egui::Grid::new("md2 stats").num_columns(2).show(ui, |ui| {
                row(ui, "frame rate", format!("{:.1} fps", self.fps.fps));
                row(ui, "frame time", format!("{:.2} ms", self.fps.frame_ms));
                row(ui, "draw calls", self.stats.draws().to_string());
                let vertices = match self.stats.vertices() {
                    Some(n) => group_digits(n),
                    None if self.counts_vertices => "counting...".to_owned(),
                    None => "not counted (no pipeline statistics)".to_owned(),
                };
                row(ui, "vertices shaded", vertices);
            });
        });
        section(ui, "Model", true, |ui| model_facts(ui, &self.body, "body"));
        if let Some(weapon) = &self.weapon {
            let heading = format!("Weapon: {}", weapon.file.name);
            section(ui, &heading, false, |ui| model_facts(ui, weapon, "weapon"));
        }
    }

    fn view(&mut self, ui: &mut Ui) {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.layout.view = Some(rect);
        if response.dragged() {
            let delta = response.drag_delta();
            if let Some(orbit) = &mut self.orbit {
                orbit.drag(delta.x, delta.y);
            }
        }
        if response.hovered() {
            // About 50 points a wheel line.
            let lines = ui.input(|i| i.smooth_scroll_delta.y) / 50.0;
            if lines != 0.0
                && let Some(orbit) = &mut self.orbit
            {
                orbit.zoom(lines);
            }
        }
        if response.double_clicked()
            && let Some(orbit) = &mut self.orbit
        {
            orbit.reset();
        }
        if rect.width() < 1.0 || rect.height() < 1.0 {
            return;
        }
        let frame = self.scene_frame(rect);
        ui.painter()
            .add(egui_wgpu::Callback::new_paint_callback(rect, frame));
        if ui.input(|i| !i.raw.hovered_files.is_empty()) {
            ui.painter()
                .rect_filled(rect, 0.0, Color32::from_black_alpha(160));
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "drop to open",
                egui::FontId::proportional(24.0),
                Color32::WHITE,
            );
        }
    }
}

/// A collapsing section.
fn section(ui: &mut Ui, heading: &str, open: bool, add: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(heading)
        .default_open(open)
        .show(ui, add);
}

fn row(ui: &mut Ui, name: &str, value: String) {
    ui.label(RichText::new(name).weak());
    ui.label(value);
    ui.end_row();
}

/// 1234567 as "1,234,567".
fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn vec3(v: Vec3) -> String {
    format!("{:.1}, {:.1}, {:.1}", v.x, v.y, v.z)
}

/// Everything known about `loaded`: the file, its counts, bounds, skins,
/// warnings (verbatim) and what it costs on the GPU.
fn model_facts(ui: &mut Ui, loaded: &LoadedModel, id: &str) {
    let file = &loaded.file;
    let model = &file.model;
    egui::Grid::new(("md2 facts", id))
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            row(ui, "file", file.name.clone());
            if let Some(path) = &file.path {
                row(ui, "path", path.display().to_string());
            }
            row(
                ui,
                "size",
                format!("{} bytes", group_digits(file.file_bytes as u64)),
            );
            row(ui, "format", model.format().to_string());
            row(ui, "frames", model.frame_count().to_string());
            row(ui, "vertices", model.vertex_count().to_string());
            match model {
                QuakeModel::Md2(md2) => {
                    row(ui, "texture coords", md2.tex_coords().len().to_string());
                    row(ui, "triangles", md2.triangles().len().to_string());
                    row(ui, "GL strips and fans", md2.glcmds().len().to_string());
                }
                QuakeModel::Mdl(mdl) => {
                    let groups = mdl
                        .file_frames()
                        .iter()
                        .filter(|f| f.group.is_some())
                        .count();
                    row(ui, "triangles", mdl.triangles().len().to_string());
                    row(
                        ui,
                        "file frames",
                        format!("{} ({groups} groups)", mdl.file_frames().len()),
                    );
                    row(ui, "effect flags", mdl.header().flags.to_string());
                }
            }
            row(
                ui,
                "welded corners",
                loaded.gpu.mesh().corners().len().to_string(),
            );
            match model {
                QuakeModel::Md2(md2) => row(ui, "header skins", md2.skins().len().to_string()),
                QuakeModel::Mdl(mdl) => row(ui, "skins", mdl.skins().len().to_string()),
            }
            let (w, h) = model.skin_size();
            row(ui, "skin size", format!("{w}x{h}"));
            let (min, max) = model.bounds().to_pair();
            let (min, max) = (Vec3::from(min), Vec3::from(max));
            row(ui, "bounds min", vec3(min));
            row(ui, "bounds max", vec3(max));
            row(ui, "size (x, y, z)", vec3(max - min));
            row(ui, "animations", loaded.clips.len().to_string());
        });
    ui.label(RichText::new("Quake axes: X forward, Y left, Z up; all frames").weak());

    ui.add_space(4.0);
    ui.strong("Skins");
    for (i, slot) in file.skins.iter().enumerate() {
        let text = format!("{}: {}: {}", i + 1, slot.name, slot.status);
        if slot.image.is_some() {
            ui.label(text);
        } else {
            ui.label(RichText::new(text).color(ui.visuals().warn_fg_color));
        }
    }
    for note in &file.skin_notes {
        ui.label(RichText::new(note).weak());
    }

    ui.add_space(4.0);
    let warnings = model.warnings();
    ui.strong(format!("Warnings ({})", warnings.len()));
    if warnings.is_empty() {
        ui.label(RichText::new("none: the file is clean").weak());
    }
    for warning in warnings {
        ui.label(RichText::new(warning.to_string()).color(ui.visuals().warn_fg_color));
    }

    ui.add_space(4.0);
    ui.strong("On the GPU");
    let bytes = loaded.gpu.gpu_bytes_breakdown();
    egui::Grid::new(("md2 gpu", id))
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            row(
                ui,
                "total",
                format!("{} bytes", group_digits(bytes.total())),
            );
            row(ui, "frames (4 B/vertex)", group_digits(bytes.vertex_data));
            row(ui, "frame parameters", group_digits(bytes.frame_params));
            row(ui, "corners", group_digits(bytes.corners));
            row(ui, "indices", group_digits(bytes.indices));
            row(ui, "skins", group_digits(bytes.skins));
            row(
                ui,
                "triangle order",
                format!("{:?}", loaded.gpu.mesh().order()),
            );
            let cache = match &loaded.cache_stats {
                Ok(stats) => format!(
                    "ACMR {:.3}, ATVR {:.3} ({CACHE_SIZE}-entry FIFO)",
                    stats.acmr(),
                    stats.atvr()
                ),
                Err(e) => e.clone(),
            };
            row(ui, "vertex cache", cache);
        });
}

/// `image` scaled to fit a [`THUMBNAIL`]-point box, keeping its shape.
fn thumbnail(image: &md2_wgpu::image::RgbaImage) -> md2_wgpu::image::RgbaImage {
    let (w, h) = (image.width().max(1) as f32, image.height().max(1) as f32);
    let scale = (THUMBNAIL / w.max(h)).min(1.0);
    let (tw, th) = (
        ((w * scale).round() as u32).max(1),
        ((h * scale).round() as u32).max(1),
    );
    md2_wgpu::image::imageops::thumbnail(image, tw, th)
}
