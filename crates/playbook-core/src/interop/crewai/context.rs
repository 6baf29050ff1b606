//! `context:` — the tasks whose output a task reads — checked: every name
//! is a task of the file, and no task reads (through others) its own output.

use indexmap::IndexMap;

use super::ImportError;
use super::config::Config;

/// Task id → the tasks it reads, deduplicated, in the order written.
pub(super) fn resolve(tasks: &Config) -> Result<IndexMap<String, Vec<String>>, ImportError> {
    let mut reads: IndexMap<String, Vec<String>> = IndexMap::new();
    for id in tasks.entries.keys() {
        let mut list: Vec<String> = Vec::new();
        for (i, name) in tasks
            .names(id, "context")?
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            if !tasks.entries.contains_key(&name) {
                return Err(ImportError::new(
                    tasks.file,
                    tasks.line(id, Some("context"), Some(i)),
                    format!(
                        "task `{id}` reads the context of `{name}`, which is not a task of this file"
                    ),
                    format!("use one of: {}", known(tasks)),
                ));
            }
            if !list.contains(&name) {
                list.push(name);
            }
        }
        reads.insert(id.clone(), list);
    }
    if let Some(cycle) = find_cycle(&reads) {
        let first = &cycle[0];
        let at = reads[first].iter().position(|r| *r == cycle[1]);
        return Err(ImportError::new(
            tasks.file,
            tasks.line(first, Some("context"), at),
            format!(
                "the tasks read each other's output in a circle: {}",
                cycle.join(" → ")
            ),
            "a task can only read the output of a task that finished before it; remove one `context` entry of the circle",
        ));
    }
    Ok(reads)
}

/// A circle of reads, as ids with the first repeated at the end.
fn find_cycle(reads: &IndexMap<String, Vec<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let index = |id: &str| reads.get_index_of(id);
    let mut marks = vec![Mark::New; reads.len()];
    for start in 0..reads.len() {
        if marks[start] != Mark::New {
            continue;
        }
        // Iterative depth-first search: (node, next edge to follow).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = Mark::Open;
        while let Some(&mut (node, ref mut edge)) = stack.last_mut() {
            let targets = &reads[node];
            if *edge >= targets.len() {
                marks[node] = Mark::Done;
                stack.pop();
                continue;
            }
            let next = index(&targets[*edge])?;
            *edge += 1;
            match marks[next] {
                Mark::New => {
                    marks[next] = Mark::Open;
                    stack.push((next, 0));
                }
                Mark::Open => {
                    let from = stack.iter().position(|(n, _)| *n == next)?;
                    let mut cycle: Vec<String> = stack[from..]
                        .iter()
                        .map(|(n, _)| {
                            reads
                                .get_index(*n)
                                .map(|(k, _)| k.clone())
                                .unwrap_or_default()
                        })
                        .collect();
                    cycle.push(cycle[0].clone());
                    return Some(cycle);
                }
                Mark::Done => {}
            }
        }
    }
    None
}

fn known(tasks: &Config) -> String {
    let ids: Vec<&str> = tasks.entries.keys().take(20).map(String::as_str).collect();
    ids.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::CrewFile;
    use super::*;

    fn run(text: &str) -> Result<IndexMap<String, Vec<String>>, ImportError> {
        let c = Config::parse(
            CrewFile {
                file: "tasks.yaml",
                text,
            },
            "task",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        resolve(&c)
    }

    #[test]
    fn unknown_and_circular_context_are_refused_at_their_line() {
        let e = run("a:\n  description: x\nb:\n  context:\n    - a\n    - c\n").unwrap_err();
        assert_eq!(e.line, Some(6), "{e}");
        assert!(e.message.contains("`c`"), "{e}");
        let e = run("a:\n  context: [b]\nb:\n  context: [c]\nc:\n  context: [a]\n").unwrap_err();
        assert!(e.message.contains("a → b → c → a"), "{e}");
        assert_eq!(e.line, Some(2));
        let e = run("a:\n  context: [a]\n").unwrap_err();
        assert!(e.message.contains("a → a"), "{e}");
    }

    #[test]
    fn reads_are_deduplicated_in_order() {
        let r = run("a:\n  x: 1\nb:\n  x: 1\nc:\n  context: [b, a, b]\n").unwrap();
        assert_eq!(r["c"], ["b", "a"]);
    }
}
