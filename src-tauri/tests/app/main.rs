//! Behaviour of the app's workbench (what the commands call), without a window.

mod generated;
mod imports;
mod preview;
mod realrun;
mod scenarios;
mod templates;
mod workbench;
