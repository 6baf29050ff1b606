//! A spill store in a temporary file for the heap figures (the `bench_flow`
//! example and the heap test, through `#[path]`): the blocks a run parks
//! beyond its memory bound leave the heap the counting allocator measures.
//! The product's store is `playbook_runner::spill`, which this crate
//! cannot depend on.

use std::io::{Read, Seek, SeekFrom, Write};

use playbook_orchestrator::spill::{Spill, SpillPort};

struct FileSpill {
    file: std::fs::File,
    end: u64,
}

impl Spill for FileSpill {
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

pub fn port() -> SpillPort {
    SpillPort::new(|| {
        Ok(Box::new(FileSpill {
            file: tempfile::tempfile()?,
            end: 0,
        }) as Box<dyn Spill>)
    })
}
