//! The inspector in the framework's native window (the viewer): egui's
//! frame, the title, the summary of unattended runs, and the background
//! the screenshot check compares with.

use egui_wgpu::CallbackResources;

use super::Inspector;
use crate::framework::gui::GuiApp;

impl GuiApp for Inspector {
    fn ui(&mut self, ui: &mut egui::Ui) {
        Inspector::ui(self, ui);
    }

    fn title(&self) -> String {
        Inspector::title(self)
    }

    fn summary(&self) -> String {
        Inspector::summary(self)
    }

    fn background_only(&mut self, resources: &mut CallbackResources, on: bool) -> bool {
        Inspector::set_background_only(resources, on)
    }
}
