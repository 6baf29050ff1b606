//! The spill store of a run with many tasks (a preview or a simulation of
//! a large plan): the engine's parked task state beyond its memory bound,
//! in an unnamed temporary file that the system removes once it is closed,
//! so nothing is left behind when the run ends or the process dies.

use std::io::{Read, Seek, SeekFrom, Write};

use playbook_orchestrator::spill::{Spill, SpillPort};

/// Blocks appended to a temporary file, read back by position.
pub struct TempSpill {
    file: std::fs::File,
    end: u64,
}

impl TempSpill {
    pub fn new() -> std::io::Result<Self> {
        Ok(TempSpill {
            file: tempfile::tempfile()?,
            end: 0,
        })
    }
}

impl Spill for TempSpill {
    fn write(&mut self, block: &[u8]) -> std::io::Result<u64> {
        let at = self.end;
        self.file.seek(SeekFrom::Start(at))?;
        self.file.write_all(block)?;
        self.end += block.len() as u64;
        Ok(at)
    }

    fn read(&mut self, at: u64, into: &mut [u8]) -> std::io::Result<()> {
        self.file.seek(SeekFrom::Start(at))?;
        self.file.read_exact(into)
    }
}

/// The port a run opens a [`TempSpill`] through, when it first needs one.
pub fn port() -> SpillPort {
    SpillPort::new(|| Ok(Box::new(TempSpill::new()?) as Box<dyn Spill>))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_comes_back_from_where_it_was_written() {
        let mut store = port().open_for_test();
        let a = store.write(b"first block").unwrap();
        let b = store.write(b"second").unwrap();
        let mut into = vec![0; 6];
        store.read(b, &mut into).unwrap();
        assert_eq!(into, b"second");
        let mut into = vec![0; 11];
        store.read(a, &mut into).unwrap();
        assert_eq!(into, b"first block");
        let mut past = vec![0; 4];
        assert!(store.read(b + 4, &mut past).is_err(), "past the end");
    }
}
