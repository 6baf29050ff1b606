//! Crash safety: a process saving versions in a loop is killed with SIGKILL
//! at random points, again and again. After every kill the library must pass
//! SQLite's integrity check and hold every save that had returned,
//! byte for byte.
//!
//! The saving process is this test binary itself, started with an
//! environment variable that turns `child_saving_until_killed` from a no-op
//! into the save loop; it reports each save that returned on stdout.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use playbook_core::Format;
use playbook_store::{Base, Source, Store};

use crate::{canonical, demo, id};

const CHILD_DB: &str = "PLAYBOOK_STORE_CRASH_CHILD_DB";
const CHILD_START: &str = "PLAYBOOK_STORE_CRASH_CHILD_START";
const KILLS: usize = 100;

fn text_of(i: u64) -> String {
    demo("crash", &format!("save {i}"), 1 + (i % 7) as u32)
}

#[test]
#[ignore = "the child process of the crash test; it does nothing unless that test starts it"]
fn child_saving_until_killed() {
    let Some(path) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let start: u64 = std::env::var(CHILD_START)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut store = Store::open(&path).expect("the child opens the library");
    let mut out = std::io::stdout().lock();
    for i in start.. {
        let text = text_of(i);
        // Alternate the two ways a version is added: a save and an import.
        let number = if i % 2 == 0 {
            store
                .save_version(
                    &id("crash"),
                    Base::Latest,
                    &text,
                    Format::Yaml,
                    &format!("save {i}"),
                )
                .expect("save")
                .version
                .number
        } else {
            let source = Source {
                name: format!("save-{i}.yaml"),
                text,
                format: Format::Yaml,
            };
            store.import(&[source]).expect("import")[0]
                .saved
                .version
                .number
        };
        // One write per line: the parent never sees half a report.
        out.write_all(format!("SAVED {i} {number}\n").as_bytes())
            .expect("stdout");
        out.flush().expect("stdout");
    }
}

#[test]
fn killing_a_saving_process_at_random_points_loses_no_returned_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    Store::open(&path)
        .unwrap()
        .create_from_text(&text_of(0), Format::Yaml, "start")
        .unwrap();
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    let exe = std::env::current_exe().unwrap();
    // Save i (by the child's counter) → version number it returned.
    let mut returned: HashMap<u64, u32> = HashMap::new();
    let mut expected: HashMap<u64, String> = HashMap::new();
    let mut next = 1u64;
    for kill in 0..KILLS {
        let mut child = Command::new(&exe)
            .args([
                "crash::child_saving_until_killed",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DB, &path)
            .env(CHILD_START, next.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, reports) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let mut words = line.strip_prefix("SAVED ").unwrap_or_default().split(' ');
                if let (Some(Ok(i)), Some(Ok(n))) =
                    (words.next().map(str::parse), words.next().map(str::parse))
                {
                    let _ = sender.send((i, n));
                }
            }
        });
        // Wait for the first save so that the kill lands inside the loop,
        // then let it run a random while: mid-transaction, mid-fsync, between saves.
        let first = reports
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("kill {kill}: the child never saved (seed {seed})"));
        std::thread::sleep(Duration::from_micros(rng.u64(0..15_000)));
        child.kill().unwrap();
        child.wait().unwrap();
        reader.join().unwrap();
        for (i, number) in std::iter::once(first).chain(reports.try_iter()) {
            returned.insert(i, number);
            expected.entry(i).or_insert_with(|| canonical(&text_of(i)));
            next = next.max(i + 1);
        }

        let store = Store::open(&path).unwrap_or_else(|e| {
            panic!("kill {kill}: the library no longer opens: {e} (seed {seed})")
        });
        assert_eq!(
            store.integrity_check().unwrap(),
            ["ok"],
            "kill {kill}: the file is consistent after SIGKILL (seed {seed})"
        );
        let stored: HashMap<u32, String> = store
            .history(&id("crash"))
            .unwrap()
            .into_iter()
            .map(|v| (v.number, v.content_hash))
            .collect();
        for (i, number) in &returned {
            let hash = stored.get(number).unwrap_or_else(|| {
                panic!(
                    "kill {kill}: save {i} returned version {number}, which is gone (seed {seed})"
                )
            });
            let version = store.version(&id("crash"), Some(*number)).unwrap();
            assert_eq!(&version.info.content_hash, hash);
            assert_eq!(
                version.content, expected[i],
                "kill {kill}: version {number} holds save {i} byte for byte (seed {seed})"
            );
        }
    }
    assert!(
        returned.len() >= KILLS,
        "every child saved at least once before it was killed"
    );
    let versions = Store::open(&path)
        .unwrap()
        .history(&id("crash"))
        .unwrap()
        .len();
    eprintln!(
        "{KILLS} kills, {} saves returned, {versions} versions stored (seed {seed})",
        returned.len()
    );
}
