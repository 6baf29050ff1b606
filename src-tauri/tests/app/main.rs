//! Behaviour of the app's workbench (what the commands call), without a window.

mod generated;
mod preview;
mod templates;
mod workbench;
