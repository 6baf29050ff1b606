//! `playbook lsp`: the language server on standard input and output, for
//! editors. The server itself is the `playbook-lsp` crate; this adds the
//! lint documentation (the same text reports carry) and the exit code.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use playbook_core::Code;
use playbook_lsp::{CodeDoc, CodeDocs};

use crate::report::docs::RuleDoc;

#[derive(Args)]
pub struct LspArgs {
    /// Talk over standard input and output (the default and only transport;
    /// accepted because editors' client settings often pass it).
    #[arg(long)]
    stdio: bool,
}

pub fn lsp(args: LspArgs) -> anyhow::Result<ExitCode> {
    let LspArgs { stdio: _ } = args;
    // Every code's section, read from the compiled-in docs once: a change
    // of a large playbook publishes hundreds of diagnostics.
    let sections: HashMap<&'static str, CodeDoc> = Code::ALL
        .iter()
        .map(|code| {
            let doc = RuleDoc::lint(*code);
            let section = CodeDoc {
                href: doc.help_uri(),
                markdown: doc.markdown,
            };
            (code.as_str(), section)
        })
        .collect();
    let docs: CodeDocs = Arc::new(move |code| sections.get(code).cloned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the language server's runtime")?;
    let outcome = runtime.block_on(playbook_lsp::serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        docs,
    ));
    // tokio reads stdin on a blocking thread that only returns when a read
    // does; after `exit` the client may keep the stream open, and waiting
    // for that thread would keep the process alive.
    runtime.shutdown_background();
    // The protocol: exit code 0 when `shutdown` came before the end, else 1.
    Ok(if outcome.shutdown_requested {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
