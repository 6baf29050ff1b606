//! Text from a model or a playbook, made safe to print on a terminal: the
//! core's rule ([`playbook_core::printable`]), used on every text the
//! what-if reports and errors quote.

pub use playbook_core::printable::{is_unprintable, printable};
