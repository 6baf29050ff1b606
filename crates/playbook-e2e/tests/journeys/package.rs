//! The installable package: the .deb that `scripts/package.sh` builds
//! installs an app that the desktop offers for playbook files and that
//! opens the file it is given.
//!
//! The package is unpacked into a folder rather than installed (no root
//! needed), and the two steps dpkg's triggers run on install are run on
//! that folder: `update-mime-database` and `update-desktop-database`. GLib's
//! `gio` then answers as a file manager would: the file's type, and the app
//! that opens it. The app is started with the desktop entry's own `Exec`
//! line, the file in place of `%F`.

use std::path::{Path, PathBuf};
use std::process::Command;

use playbook_e2e::{App, Profile, Result, target_dir};

const PLAYBOOK_YAML: &str = "application/vnd.playbook-studio.playbook+yaml";

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display, the built app and its package: scripts/e2e.sh"]
async fn the_installed_package_opens_a_playbook_file_from_its_desktop_entry() -> Result<()> {
    let deb = built_package()?;
    let profile = Profile::new();
    let root = profile.path("installed");
    run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&root))?;
    let depends = run(Command::new("dpkg-deb").arg("-f").arg(&deb).arg("Depends"))?;
    assert!(
        depends.contains("libwebkit2gtk-4.1-0") && depends.contains("libgtk-3-0"),
        "the package depends on the webview and GTK: {depends}"
    );
    let share = root.join("usr/share");
    run(Command::new("update-mime-database").arg(share.join("mime")))?;
    run(Command::new("update-desktop-database").arg(share.join("applications")))?;
    let entry = desktop_entry(&share.join("applications"))?;
    run(Command::new("desktop-file-validate").arg(&entry))?;

    let tdd = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/tdd.yaml"),
    )?;
    let file = profile.path("release-team.playbook.yaml");
    std::fs::write(&file, tdd.replacen("id: tdd", "id: release-team", 1))?;

    // What a file manager sees, through the unpacked package's data only.
    let desktop = |command: &mut Command| {
        let path = std::env::var("PATH").unwrap_or_default();
        command
            .env("XDG_DATA_DIRS", format!("{}:/usr/share", share.display()))
            .env("XDG_DATA_HOME", profile.path("desktop-data"))
            .env("XDG_CONFIG_HOME", profile.path("desktop-config"))
            .env("PATH", format!("{}:{path}", root.join("usr/bin").display()));
    };
    let mut info = Command::new("gio");
    desktop(
        info.args(["info", "-a", "standard::content-type"])
            .arg(&file),
    );
    let info = run(&mut info)?;
    assert!(
        info.contains(PLAYBOOK_YAML),
        "a *.playbook.yaml file is a playbook: {info}"
    );
    let mut handlers = Command::new("gio");
    desktop(handlers.args(["mime", PLAYBOOK_YAML]));
    let handlers = run(&mut handlers)?;
    let entry_name = entry.file_name().unwrap_or_default().to_string_lossy();
    let default = handlers.lines().next().unwrap_or_default();
    assert!(
        default.contains(entry_name.as_ref()),
        "the app opens playbook files by default: {handlers}"
    );

    let (binary, args) = exec_line(&entry, &root, &file)?;
    let mut app = App::launch_binary("installed-package", &profile, &binary, &args).await?;
    app.until_text("[data-testid=notice]", "Opened").await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.screenshot("opened-from-desktop-entry").await?;
    app.quit().await
}

/// The package `scripts/package.sh --debug` made (`scripts/e2e.sh` runs it),
/// or the one named by `PLAYBOOK_STUDIO_DEB` (a relative path is from the
/// repository's root, e.g. the release package of `scripts/package.sh`).
fn built_package() -> Result<PathBuf> {
    if let Some(deb) = std::env::var_os("PLAYBOOK_STUDIO_DEB") {
        return Ok(Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(deb));
    }
    let dir = target_dir().join("debug/bundle/deb");
    let found = std::fs::read_dir(&dir)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "deb"));
    found.ok_or_else(|| {
        format!(
            "no .deb in {}: run scripts/e2e.sh, which builds it with scripts/package.sh --debug",
            dir.display()
        )
        .into()
    })
}

/// The package's one desktop entry.
fn desktop_entry(applications: &Path) -> Result<PathBuf> {
    let entries: Vec<PathBuf> = std::fs::read_dir(applications)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "desktop"))
        .collect();
    match entries.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!("expected one desktop entry, found {entries:?}").into()),
    }
}

/// The entry's `Exec` line as a launcher expands it for one file: the
/// program from the package's `usr/bin`, `%F`/`%f` replaced by the file,
/// any other field code dropped.
fn exec_line(entry: &Path, root: &Path, file: &Path) -> Result<(PathBuf, Vec<String>)> {
    let text = std::fs::read_to_string(entry)?;
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("Exec="))
        .ok_or("the desktop entry has no Exec line")?;
    let mut words = exec.split_whitespace();
    let program = words.next().ok_or("the Exec line is empty")?;
    let mut args = Vec::new();
    let mut takes_files = false;
    for word in words {
        match word {
            "%F" | "%f" | "%U" | "%u" => {
                takes_files = true;
                args.push(file.display().to_string());
            }
            w if w.starts_with('%') => {}
            w => args.push(w.to_string()),
        }
    }
    assert!(
        takes_files,
        "the Exec line passes the opened files to the app: {exec}"
    );
    Ok((root.join("usr/bin").join(program), args))
}

/// Runs `command`, returning its standard output; a failure says which
/// command and what it printed.
fn run(command: &mut Command) -> Result<String> {
    let output = command
        .output()
        .map_err(|e| format!("could not run {command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
