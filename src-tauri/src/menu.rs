//! The native menu bar: File, Edit, View and Help with the accelerators
//! every desktop editor has.
//!
//! A menu item does no work here: it tells the page which command was
//! chosen (`menu` event, a [`MenuCommand`]). The page owns the document,
//! its undo history and the screens, so a command chosen in the menu and
//! the same key pressed in the page run the same code. Only Open Recent is
//! handled on this side: the recent files are paths, which the page never
//! names (`grants.rs`), so choosing one grants it and opens it
//! ([`crate::opening::open_paths`]).

use serde::Serialize;
use tauri::menu::{Menu, MenuBuilder, MenuEvent, MenuItemBuilder, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Runtime};
use ts_rs::TS;

use crate::recent::Recent;

/// A command of the menu bar, as the page receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum MenuCommand {
    New,
    Open,
    Save,
    SaveAs,
    Export,
    Undo,
    Redo,
    Find,
    ThemeLight,
    ThemeDark,
    ThemeSystem,
    About,
    Documentation,
}

impl MenuCommand {
    const ALL: [MenuCommand; 13] = [
        MenuCommand::New,
        MenuCommand::Open,
        MenuCommand::Save,
        MenuCommand::SaveAs,
        MenuCommand::Export,
        MenuCommand::Undo,
        MenuCommand::Redo,
        MenuCommand::Find,
        MenuCommand::ThemeLight,
        MenuCommand::ThemeDark,
        MenuCommand::ThemeSystem,
        MenuCommand::About,
        MenuCommand::Documentation,
    ];

    /// The menu item's id, the same text the page receives.
    pub fn id(self) -> &'static str {
        match self {
            MenuCommand::New => "new",
            MenuCommand::Open => "open",
            MenuCommand::Save => "save",
            MenuCommand::SaveAs => "save-as",
            MenuCommand::Export => "export",
            MenuCommand::Undo => "undo",
            MenuCommand::Redo => "redo",
            MenuCommand::Find => "find",
            MenuCommand::ThemeLight => "theme-light",
            MenuCommand::ThemeDark => "theme-dark",
            MenuCommand::ThemeSystem => "theme-system",
            MenuCommand::About => "about",
            MenuCommand::Documentation => "documentation",
        }
    }

    fn from_id(id: &str) -> Option<MenuCommand> {
        MenuCommand::ALL.into_iter().find(|c| c.id() == id)
    }

    fn label(self) -> &'static str {
        match self {
            MenuCommand::New => "&New playbook…",
            MenuCommand::Open => "&Open file…",
            MenuCommand::Save => "&Save version",
            MenuCommand::SaveAs => "Export to &file (save as)…",
            MenuCommand::Export => "Export for &Claude Code…",
            MenuCommand::Undo => "&Undo",
            MenuCommand::Redo => "&Redo",
            MenuCommand::Find => "&Find",
            MenuCommand::ThemeLight => "&Light",
            MenuCommand::ThemeDark => "&Dark",
            MenuCommand::ThemeSystem => "Follow the &system",
            MenuCommand::About => "&About Playbook Studio",
            MenuCommand::Documentation => "&Documentation and shortcuts",
        }
    }

    fn accelerator(self) -> Option<&'static str> {
        match self {
            MenuCommand::New => Some("CmdOrCtrl+N"),
            MenuCommand::Open => Some("CmdOrCtrl+O"),
            MenuCommand::Save => Some("CmdOrCtrl+S"),
            MenuCommand::SaveAs => Some("CmdOrCtrl+Shift+S"),
            MenuCommand::Export => Some("CmdOrCtrl+E"),
            MenuCommand::Undo => Some("CmdOrCtrl+Z"),
            MenuCommand::Redo => Some("CmdOrCtrl+Shift+Z"),
            MenuCommand::Find => Some("CmdOrCtrl+F"),
            MenuCommand::Documentation => Some("F1"),
            _ => None,
        }
    }
}

/// Prefix of the Open Recent items' ids; the rest is the index in the list.
const RECENT: &str = "recent:";
const CLEAR_RECENT: &str = "recent-clear";
const QUIT: &str = "quit";

/// Builds the menu bar, with `recent` (newest first) under Open Recent.
pub fn build<R: Runtime>(app: &AppHandle<R>, recent: &[String]) -> tauri::Result<Menu<R>> {
    let item = |command: MenuCommand| {
        let mut builder = MenuItemBuilder::with_id(command.id(), command.label());
        if let Some(keys) = command.accelerator() {
            builder = builder.accelerator(keys);
        }
        builder.build(app)
    };
    let mut open_recent = SubmenuBuilder::new(app, "Open &Recent");
    for (index, path) in recent.iter().enumerate() {
        open_recent = open_recent.item(
            &MenuItemBuilder::with_id(format!("{RECENT}{index}"), menu_text(path)).build(app)?,
        );
    }
    let open_recent = if recent.is_empty() {
        open_recent
            .item(
                &MenuItemBuilder::with_id("recent-none", "No recent files")
                    .enabled(false)
                    .build(app)?,
            )
            .build()?
    } else {
        open_recent
            .separator()
            .item(&MenuItemBuilder::with_id(CLEAR_RECENT, "&Clear the list").build(app)?)
            .build()?
    };
    let file = SubmenuBuilder::new(app, "&File")
        .item(&item(MenuCommand::New)?)
        .item(&item(MenuCommand::Open)?)
        .item(&open_recent)
        .separator()
        .item(&item(MenuCommand::Save)?)
        .item(&item(MenuCommand::SaveAs)?)
        .item(&item(MenuCommand::Export)?)
        .separator()
        .item(
            &MenuItemBuilder::with_id(QUIT, "&Quit")
                .accelerator("CmdOrCtrl+Q")
                .build(app)?,
        )
        .build()?;
    let edit = SubmenuBuilder::new(app, "&Edit")
        .item(&item(MenuCommand::Undo)?)
        .item(&item(MenuCommand::Redo)?)
        .separator()
        .item(&item(MenuCommand::Find)?)
        .build()?;
    let theme = SubmenuBuilder::new(app, "&Theme")
        .item(&item(MenuCommand::ThemeLight)?)
        .item(&item(MenuCommand::ThemeDark)?)
        .item(&item(MenuCommand::ThemeSystem)?)
        .build()?;
    let view = SubmenuBuilder::new(app, "&View").item(&theme).build()?;
    let help = SubmenuBuilder::new(app, "&Help")
        .item(&item(MenuCommand::Documentation)?)
        .item(&item(MenuCommand::About)?)
        .build()?;
    MenuBuilder::new(app)
        .items(&[&file, &edit, &view, &help])
        .build()
}

/// A path as a menu label: `&` would otherwise mark a mnemonic.
fn menu_text(path: &str) -> String {
    path.replace('&', "&&")
}

/// What a chosen item does: tell the page, or open a recent file.
pub fn on_menu_event<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let id = event.id().as_ref();
    if let Some(command) = MenuCommand::from_id(id) {
        let _ = app.emit("menu", command);
    } else if let Some(index) = id.strip_prefix(RECENT) {
        let recent = tauri::Manager::state::<Recent>(app);
        if let Some(path) = index.parse().ok().and_then(|i: usize| recent.get(i)) {
            crate::opening::open_paths(app, &[std::path::PathBuf::from(path)]);
        }
    } else if id == CLEAR_RECENT {
        tauri::Manager::state::<Recent>(app).clear();
        crate::opening::refresh_menu(app);
    } else if id == QUIT {
        app.exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_distinct_id_that_reads_back() {
        for command in MenuCommand::ALL {
            assert_eq!(MenuCommand::from_id(command.id()), Some(command));
            let json = serde_json::to_value(command).unwrap();
            assert_eq!(json, command.id(), "the page receives the id");
        }
        assert_eq!(MenuCommand::from_id("recent:0"), None);
    }

    #[test]
    fn a_path_with_an_ampersand_is_shown_as_it_is() {
        assert_eq!(menu_text("/home/a&b/x.yaml"), "/home/a&&b/x.yaml");
    }
}
