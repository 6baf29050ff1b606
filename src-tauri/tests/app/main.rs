//! Behaviour of the app's workbench (what the commands call), without a window.

mod authored;
mod generated;
mod grants;
mod hostile;
mod imports;
mod library;
mod permissions;
mod preview;
mod realrun;
mod scenarios;
mod templates;
mod workbench;
