//! The command line of `playbook db` and `playbook diff`, as clap reads it.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use playbook_core::Format;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FileFormat {
    Yaml,
    Json,
}

impl From<FileFormat> for Format {
    fn from(f: FileFormat) -> Format {
        match f {
            FileFormat::Yaml => Format::Yaml,
            FileFormat::Json => Format::Json,
        }
    }
}

#[derive(Args)]
pub struct DbArgs {
    /// Library file [default: $PLAYBOOK_DB, else library.db in the platform data directory].
    #[arg(long, global = true, value_name = "PATH")]
    pub(super) db: Option<PathBuf>,
    /// Output as text or JSON.
    #[arg(long, global = true, value_enum, default_value = "text")]
    pub(super) format: Output,
    #[command(subcommand)]
    pub(super) command: DbCommand,
}

#[derive(Subcommand)]
pub(super) enum DbCommand {
    /// List playbooks with the validity of their latest version.
    List {
        /// Include deleted playbooks.
        #[arg(long)]
        all: bool,
    },
    /// Print a version of a playbook (the latest by default).
    Show {
        id: String,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        /// Text format of the content.
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
    },
    /// List the versions of a playbook, newest first.
    History { id: String },
    /// Create a playbook: blank, from the built-in role templates, or from a file.
    Create {
        id: String,
        #[arg(long)]
        name: Option<String>,
        /// Start with plan/build/test stages made of the built-in role templates.
        #[arg(long, conflicts_with = "from")]
        from_templates: bool,
        /// Start from a playbook file; its id must be ID.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
    },
    /// Save a file as the next version of a playbook.
    Save {
        id: String,
        file: PathBuf,
        /// The version you edited; the save fails if another was saved since.
        #[arg(long, value_name = "N", required_unless_present = "force")]
        base: Option<u32>,
        /// Save on top of whatever is latest, without the concurrency check.
        #[arg(long, conflicts_with = "base")]
        force: bool,
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Import playbook files (or every .yaml/.yml/.json file of a directory): all or nothing.
    Import {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Export a playbook, or with --all the whole library into a directory.
    Export {
        /// Playbook to export.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        /// Export the latest version of every playbook as DIR/<id>.yaml.
        #[arg(long, requires = "out")]
        all: bool,
        /// Output file (or directory with --all); standard output when absent.
        #[arg(short, long, value_name = "PATH")]
        out: Option<PathBuf>,
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
    },
    /// Show what changed between two versions (TO defaults to the latest).
    Diff {
        id: String,
        from: u32,
        to: Option<u32>,
        #[command(flatten)]
        behaviour: crate::whatif::BehaviourArgs,
    },
    /// Make an old version the latest again, as a new version.
    Restore {
        id: String,
        version: u32,
        #[arg(long)]
        note: Option<String>,
    },
    /// Change a playbook's display name (saved as a new version).
    Rename { id: String, name: String },
    /// Copy a playbook under a new id.
    Duplicate {
        id: String,
        new_id: String,
        #[arg(long)]
        name: Option<String>,
    },
    /// Delete a playbook; recoverable with `undelete` until purged.
    Rm { id: String },
    /// Bring back a deleted playbook.
    Undelete { id: String },
    /// Remove deleted playbooks for good.
    Purge {
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Purge every deleted playbook.
        #[arg(long)]
        all: bool,
    },
    /// Show (or discard) a draft of a playbook: unsaved text, autosaved or
    /// kept from a refused save (the newest by default).
    Draft {
        id: String,
        /// Which draft (`--list` shows their numbers).
        #[arg(long, value_name = "N")]
        number: Option<i64>,
        /// Throw the draft away.
        #[arg(long, conflicts_with = "list")]
        discard: bool,
        /// List the playbook's drafts, newest first.
        #[arg(long)]
        list: bool,
    },
    /// Run SQLite's integrity check on the library file.
    Check,
    /// List preview runs, of one playbook or all.
    Runs { id: Option<String> },
    /// Role templates: the built-in ones and the team's.
    #[command(subcommand)]
    Template(TemplateCommand),
}

#[derive(Subcommand)]
pub(super) enum TemplateCommand {
    /// List built-in and team templates.
    List,
    /// Print a template (a team template's latest version by default).
    Show {
        name: String,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
    },
    /// Save a role as a team template: from a role file, or from a playbook's role.
    Save {
        name: String,
        /// A YAML or JSON file holding one role.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["playbook", "role"])]
        file: Option<PathBuf>,
        /// Take the role from the latest version of this playbook.
        #[arg(long, requires = "role", value_name = "ID")]
        playbook: Option<String>,
        #[arg(long, requires = "playbook")]
        role: Option<String>,
        /// The version you edited (omit for a new template or to overwrite).
        #[arg(long, value_name = "N")]
        base: Option<u32>,
        #[arg(long, default_value = "")]
        note: String,
    },
    /// List the versions of a team template.
    History { name: String },
    /// Remove a team template from the list.
    Rm { name: String },
}

#[derive(Args)]
pub struct DiffArgs {
    /// The older playbook file.
    pub(super) a: String,
    /// The newer playbook file.
    pub(super) b: String,
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: Output,
    #[command(flatten)]
    pub(super) behaviour: crate::whatif::BehaviourArgs,
}
