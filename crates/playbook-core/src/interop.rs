//! Reading and writing the agent files of other tools, so playbooks meet
//! people where their agent workflows already live. Pure: callers read and
//! write the files; these modules turn text into playbooks and back.

pub mod claude_code;
pub mod crewai;
mod names;
