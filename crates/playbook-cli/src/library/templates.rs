//! `playbook db template ...`: team templates in the library.

use super::*;

pub(super) fn template(
    store: &mut Store,
    format: Output,
    command: TemplateCommand,
) -> Result<(), Failure> {
    let text = format == Output::Text;
    match command {
        TemplateCommand::List => {
            let list = store.templates()?;
            if text {
                for t in &list {
                    let source = match t.source {
                        playbook_store::TemplateSource::Builtin => "built-in".to_string(),
                        playbook_store::TemplateSource::Team => format!("team v{}", t.latest),
                    };
                    let mode = t.mode.map(|m| m.as_str()).unwrap_or("-");
                    println!("{:<28} {:<10} {source}", shown(&t.name), mode);
                }
            } else {
                print_json(&list);
            }
        }
        TemplateCommand::Show {
            name,
            version,
            as_format,
        } => {
            let template = store.template(&name, version)?;
            if text {
                match as_format {
                    FileFormat::Json => print!("{}", template.content),
                    FileFormat::Yaml => {
                        let role = store.template_role(&name, version)?;
                        let yaml = yaml_serde::to_string(&role)
                            .context("cannot write YAML")
                            .map_err(Failure::Other)?;
                        print!("{yaml}");
                    }
                }
            } else {
                print_json_as_written(&template);
            }
        }
        TemplateCommand::Save {
            name,
            file,
            playbook,
            role,
            base,
            note,
        } => {
            let base = base.map(Base::Version).unwrap_or(Base::Latest);
            let saved = match (file, playbook, role) {
                (Some(file), _, _) => {
                    let source = Source::read(&file)?;
                    store.save_template_text(&name, &source.text, source.format, base, &note)?
                }
                (None, Some(pid), Some(role)) => {
                    let pid = id(&pid)?;
                    let playbook = store.playbook(&pid, None)?;
                    let Some(found) = playbook.role(&role) else {
                        return Err(StoreError::NotFound {
                            what: format!("role {role:?} in playbook {pid:?}"),
                        }
                        .into());
                    };
                    let note = if note.is_empty() {
                        format!("from playbook {pid}")
                    } else {
                        note
                    };
                    store.save_template(&name, found.role, base, &note)?
                }
                _ => {
                    return Err(anyhow::anyhow!(
                        "name the role: --file FILE, or --playbook ID --role ROLE"
                    )
                    .into());
                }
            };
            if text {
                let state = if saved.unchanged {
                    "unchanged"
                } else {
                    "saved"
                };
                println!("template {} v{} {state}", saved.name, saved.version.number);
            } else {
                print_json(&saved);
            }
        }
        TemplateCommand::History { name } => {
            let history = store.template_history(&name)?;
            if text {
                for v in &history {
                    println!(
                        "v{:<5} {}  {}  {}",
                        v.number,
                        v.created_at,
                        short_hash(&v.content_hash),
                        shown(&v.note)
                    );
                }
            } else {
                print_json(&history);
            }
        }
        TemplateCommand::Rm { name } => {
            store.delete_template(&name)?;
            done(format, &format!("template {name} removed"));
        }
    }
    Ok(())
}
