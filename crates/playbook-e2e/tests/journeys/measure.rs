//! Measurements for docs/benchmarks.md ("Desktop app"). They print numbers
//! and assert nothing about time: run them with `scripts/e2e.sh measure`.

use std::time::{Duration, Instant};

use playbook_e2e::{App, Key, Profile, Result, procs};

/// Resident memory (PSS, shared pages split fairly) of the app and every
/// process below it (WebKit's web and network processes), in MiB.
fn memory_of_tree(root: u32) -> f64 {
    let mut pids = vec![root];
    let mut i = 0;
    while i < pids.len() {
        let parent = pids[i];
        for child in procs::children(parent) {
            if !pids.contains(&child.pid) {
                pids.push(child.pid);
            }
        }
        i += 1;
    }
    for pid in &pids {
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        let rollup =
            std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        // Where the process's share lies: its own memory (anonymous: heaps,
        // the JavaScript heap, stacks), mapped files (code of the libraries
        // and the binary) and shared memory (WebKit's buffers).
        let field = |key: &str| {
            rollup
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<u64>().ok())
                .map_or_else(
                    || "?".to_string(),
                    |kib| format!("{:.1}", kib as f64 / 1024.0),
                )
        };
        // Resident, unshared by other processes: the file part of PSS moves
        // with what else maps the same libraries (other WebKit windows on
        // the machine); RSS does not.
        println!(
            "  pid {pid} {}: Pss {} MiB (anonymous {}, file {}, shared memory {}); Rss {} (anonymous {})",
            name.trim(),
            field("Pss:"),
            field("Pss_Anon:"),
            field("Pss_File:"),
            field("Pss_Shmem:"),
            field("Rss:"),
            field("Anonymous:")
        );
    }
    let kib: u64 = pids
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .sum();
    kib as f64 / 1024.0
}

fn playbook_with_roles(n: usize) -> String {
    let mut text = String::from(
        "schema_version: \"1.0.0\"\nid: big\nname: Two hundred roles\nworkflow:\n  build:\n    roles:\n",
    );
    for i in 0..n {
        let next = (i + 1) % n;
        text.push_str(&format!(
            "      - name: role{i}\n        mode: worker\n        responsibilities: Role {i} of the benchmark.\n        allowed_agents: [claude]\n        inputs_required: [task]\n        outputs_contract: {{type: work_result, required: [summary]}}\n        actions_allowed: [read_file]\n        handoff_to: [role{next}]\n        retry_policy: {{max_iterations: 3, escalate_on: [retry_limit]}}\n        completion_criteria: [Done]\n"
        ));
    }
    text
}

/// Typing in the Source tab of the open (200-role) playbook at a fast
/// typist's pace, 20 keys a second, at the end of its `id` line (each key a
/// valid playbook): from each keydown to the frame that paints it. Work the
/// page still does for the key before (its check, completions, the
/// document's update) delays the next key's frame, so this is what typing
/// feels like.
async fn source_tab_keystrokes(app: &App) -> Result<()> {
    app.click("[data-tab=source]").await?;
    app.find("[data-testid=source-text]").await?.click().await?;
    let key = |k: Key| char::from(k).to_string();
    app.keys(&(Key::Control + key(Key::Home).as_str())).await?;
    app.keys(&key(Key::Down)).await?;
    app.keys(&key(Key::End)).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    app.execute(
        "window.__sourceKeys = []; document.addEventListener('keydown', () => { \
         const start = performance.now(); \
         requestAnimationFrame(() => window.__sourceKeys.push(performance.now() - start)); }, true); \
         return 0",
    )
    .await?;
    for _ in 0..30 {
        app.keys("x").await?;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let keys = app.recorded_ms("window.__sourceKeys").await?;
    let mean = keys.0.iter().sum::<f64>() / keys.len().max(1) as f64;
    println!(
        "Source tab, 200 roles, 20 keys a second: keydown to its frame: {} samples, median {:.1} ms, \
         mean {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        keys.len(),
        keys.at(0.5),
        mean,
        keys.at(0.95),
        keys.at(1.0)
    );
    let typed = app
        .execute("return document.querySelector('[data-testid=source-text]').textContent.includes('id: bigxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')")
        .await?;
    println!("Source tab: the 30 keys are in the text: {typed}");
    Ok(())
}

/// The keystroke floor: a textarea on the empty window's page, typed into
/// as the app's field is, from the edit to the frame that paints it. No
/// hint can be painted sooner than the character that caused it.
async fn keystroke_floor(window: &App) -> Result<()> {
    window
        .execute(
            "const t = document.createElement('textarea'); t.id = 'floor'; \
             document.body.appendChild(t); window.__floor = { latencies: [], pending: false }; \
             t.addEventListener('input', () => { const m = window.__floor; const start = performance.now(); \
             m.pending = true; requestAnimationFrame(() => { m.latencies.push(performance.now() - start); \
             m.pending = false; }); }); return 0",
        )
        .await?;
    let field = window.find("#floor").await?;
    for _ in 0..40 {
        field.send_keys("x").await?;
        window
            .until("the keystroke is painted", || async {
                Ok(window
                    .execute("return window.__floor.pending")
                    .await?
                    .as_bool()
                    == Some(false))
            })
            .await?;
    }
    let ms = window.recorded_ms("window.__floor.latencies").await?;
    println!(
        "floor: keystroke to the frame that paints it, empty window: {} samples, median {:.1} ms, p95 {:.1} ms",
        ms.len(),
        ms.at(0.5),
        ms.at(0.95)
    );
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "measurement: scripts/e2e.sh measure"]
async fn measure_desktop_app() -> Result<()> {
    // The floor: an empty Tauri 2 window (src-tauri/examples/empty_window)
    // on the same machine, measured the same way, before the app runs.
    let empty = playbook_e2e::empty_window_binary();
    if empty.exists() {
        let profile = Profile::new();
        let window = App::launch_bare("measure-empty", &profile, &empty, "body").await?;
        // As long as the app's first view takes to settle.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let memory = window.pid().map(memory_of_tree).unwrap_or(f64::NAN);
        println!("floor: empty Tauri 2 window with a blank page: {memory:.1} MiB PSS");
        keystroke_floor(&window).await?;
        window.quit().await?;
    } else {
        println!(
            "floor: not measured, {} does not exist (cargo build -p playbook-studio --example empty_window)",
            empty.display()
        );
    }

    // Cold start to interactive, three times: new profile each time.
    let mut starts = Vec::new();
    for k in 0..3 {
        let profile = Profile::new();
        let t = Instant::now();
        let app = App::launch(&format!("measure-start-{k}"), &profile).await?;
        app.find(".first-run [data-testid=open-tdd]").await?;
        starts.push(t.elapsed().as_secs_f64() * 1000.0);
        let in_page = app.execute("return performance.now()").await?;
        app.until("the app reports its start-up time", || async {
            Ok(app
                .execute("return window.__playbookStudioMetrics?.startup ?? null")
                .await?
                .is_number())
        })
        .await?;
        let process = app
            .execute("return window.__playbookStudioMetrics.startup")
            .await?;
        println!(
            "start {k}: {:.0} ms from session request to interactive; page clock {in_page} ms; \
             process start to interactive {process} ms",
            starts[k]
        );
        if k == 0 {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let memory = app.pid().map(memory_of_tree).unwrap_or(f64::NAN);
            println!("memory at the first-run view: {memory:.1} MiB PSS");
        }
        app.quit().await?;
    }

    let profile = Profile::new();
    let big = profile.path("big.yaml");
    std::fs::write(&big, playbook_with_roles(200))?;
    let mut app = App::launch("measure", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-open=compound-engineering]").await?;
    app.find("[data-outline-role]").await?;
    app.click("[data-tab=flow]").await?;
    app.find("[data-role-node]").await?;
    let memory = app.pid().map(memory_of_tree).unwrap_or(f64::NAN);
    println!("memory after opening compound-engineering (form + graph): {memory:.1} MiB PSS");
    // The same view once it has settled, as the floor and the first-run
    // view are measured: what the page allocated while opening and no
    // longer holds is returned by then.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let memory = app.pid().map(memory_of_tree).unwrap_or(f64::NAN);
    println!("the same, 2 s later: {memory:.1} MiB PSS");
    // What the page holds for that view: its elements, all and per part.
    let nodes = app
        .execute(
            "const n = (css) => document.querySelectorAll(css).length; \
             return [n('*'), n('.outline *'), n('.flow-canvas *'), n('main *')].join(' / ')",
        )
        .await?;
    println!(
        "elements: all / outline / graph / main view: {}",
        nodes.as_str().unwrap_or("?")
    );

    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &big).await?;
    // A large outline starts folded: the filter finds the role.
    app.find("input[aria-label='Filter roles']")
        .await?
        .send_keys("role100")
        .await?;
    app.click("[data-outline-role=role100]").await?;
    let field = app
        .find("textarea[data-pointer='/workflow/build/roles/100/responsibilities']")
        .await?;
    app.screenshot("200-roles-open").await?;
    app.execute("window.__playbookStudioMetrics = { latencies: [], pending: null, roundTrips: [] }; return 0")
        .await?;
    for _ in 0..40 {
        field.send_keys("x").await?;
        app.until("the hint of the keystroke is painted", || async {
            Ok(app
                .execute("const m = window.__playbookStudioMetrics; return m.pending === null")
                .await?
                .as_bool()
                == Some(true))
        })
        .await?;
    }
    let ms = app
        .recorded_ms("window.__playbookStudioMetrics.latencies")
        .await?;
    let pick = |q: f64| ms.at(q);
    println!(
        "keystroke-to-hint on 200 roles: {} samples, median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        ms.len(),
        pick(0.5),
        pick(0.95),
        pick(1.0)
    );
    // Where the time goes: per keystroke, ms from the edit to each step.
    let steps = app
        .execute("return window.__playbookStudioMetrics.steps ?? []")
        .await?;
    let steps: Vec<Vec<f64>> = steps
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|r| r.as_array())
                .map(|r| r.iter().filter_map(|v| v.as_f64()).collect())
                .collect()
        })
        .unwrap_or_default();
    let median_of = |column: usize| {
        let mut values: Vec<f64> = steps
            .iter()
            .filter_map(|r| r.get(column).copied())
            .collect();
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "steps from the edit (medians over {} keystrokes): request sent {:.1} ms, answer back {:.1} ms, \
         hints in the DOM {:.1} ms, next frame {:.1} ms",
        steps.len(),
        median_of(0),
        median_of(1),
        median_of(2),
        median_of(3)
    );
    // The frame that paints the character itself: hints in the DOM before
    // it are painted with the character, later ones wait for a frame more.
    let with_the_character = steps
        .iter()
        .filter(|r| matches!((r.get(3), r.get(4)), (Some(hint), Some(own)) if hint <= own))
        .count();
    println!(
        "the edit's own frame (median) {:.1} ms; hints painted in that frame: {} of {} keystrokes",
        median_of(4),
        with_the_character,
        steps.len()
    );
    let answered_now = steps.iter().filter(|r| r.get(5) == Some(&1.0)).count();
    println!(
        "checks answered inside the key's own event: {answered_now} of {} keystrokes",
        steps.len()
    );
    // The page's clock ticks in whole milliseconds: the means tell steps
    // under a millisecond apart.
    let mean_of = |column: usize| {
        let values: Vec<f64> = steps
            .iter()
            .filter_map(|r| r.get(column).copied())
            .collect();
        values.iter().sum::<f64>() / values.len() as f64
    };
    println!(
        "the same, means: request sent {:.2} ms, answer back {:.2} ms, hints in the DOM {:.2} ms, \
         next frame {:.2} ms",
        mean_of(0),
        mean_of(1),
        mean_of(2),
        mean_of(3)
    );
    let trips = app
        .execute("return window.__playbookStudioMetrics.roundTrips")
        .await?;
    let mut trips: Vec<f64> = trips
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
        .unwrap_or_default();
    trips.sort_by(f64::total_cmp);
    println!(
        "of which the validation round trip (IPC + Rust): median {:.1} ms over {} samples",
        trips.get(trips.len() / 2).copied().unwrap_or(f64::NAN),
        trips.len()
    );
    // The IPC alone: an empty command's round trip in the page (a command
    // with no arguments, answering a short list), one at a time, idle.
    app.execute(
        "window.__ipcTrips = null; (async () => { const t = []; \
         for (let i = 0; i < 40; i++) { const s = performance.now(); \
         await window.__TAURI_INTERNALS__.invoke('fixable_codes'); t.push(performance.now() - s); } \
         window.__ipcTrips = t; })(); return 0",
    )
    .await?;
    app.until("the empty commands are answered", || async {
        Ok(app
            .execute("return window.__ipcTrips !== null")
            .await?
            .as_bool()
            == Some(true))
    })
    .await?;
    let ipc = app.recorded_ms("window.__ipcTrips").await?;
    let ipc_mean = ipc.0.iter().sum::<f64>() / ipc.len().max(1) as f64;
    println!(
        "an empty command's round trip in the page: median {:.1} ms, mean {:.2} ms, max {:.1} ms over {} calls",
        ipc.at(0.5),
        ipc_mean,
        ipc.at(1.0),
        ipc.len()
    );
    let memory = app.pid().map(memory_of_tree).unwrap_or(f64::NAN);
    println!("memory with the 200-role playbook open: {memory:.1} MiB PSS");
    source_tab_keystrokes(&app).await?;
    app.screenshot("200-roles").await?;
    app.quit().await
}
