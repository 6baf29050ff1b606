//! Behaviour of the app's workbench (what the commands call), without a window.

mod generated;
mod imports;
mod library;
mod preview;
mod realrun;
mod templates;
mod workbench;
