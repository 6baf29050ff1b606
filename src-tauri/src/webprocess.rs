//! The window's page comes back when WebKit's web process dies.
//!
//! WebKitGTK draws the page in a separate process. When that process
//! crashes or is killed for memory, WebKit leaves the window blank and
//! only reports it; the app then loads its page again, which reopens the
//! library view (edits are autosaved as drafts, so nothing typed is lost
//! beyond the last quarter of a second). A page that keeps dying is not
//! reloaded in a loop: after [`MAX_RELOADS`] reloads within
//! [`RELOAD_WINDOW`], the window is left as it is.

use std::time::{Duration, Instant};

/// How many reloads within [`RELOAD_WINDOW`] are tried before giving up.
pub const MAX_RELOADS: usize = 3;
/// The span over which reloads are counted.
pub const RELOAD_WINDOW: Duration = Duration::from_secs(60);

/// Why the web process ended, as far as the app's choice depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Crashed or killed (for memory or by the system): the page is gone.
    Lost,
    /// Ended on purpose by the app itself (closing the window): no reload.
    ByTheApp,
}

/// Remembers recent reloads and decides whether to reload once more.
#[derive(Debug, Default)]
pub struct Reloads {
    recent: Vec<Instant>,
}

impl Reloads {
    /// Whether to load the page again after an ending at `now`; counts the
    /// reload when it says yes.
    pub fn should_reload(&mut self, ending: Ending, now: Instant) -> bool {
        if ending == Ending::ByTheApp {
            return false;
        }
        self.recent
            .retain(|at| now.saturating_duration_since(*at) < RELOAD_WINDOW);
        if self.recent.len() >= MAX_RELOADS {
            return false;
        }
        self.recent.push(now);
        true
    }
}

/// Watches the window's web view and reloads its page when its process dies.
#[cfg(target_os = "linux")]
pub fn watch(window: &tauri::WebviewWindow) {
    use std::cell::RefCell;
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt};
    let watched = window.with_webview(|platform| {
        let view = platform.inner();
        let reloads = RefCell::new(Reloads::default());
        view.connect_web_process_terminated(move |view, reason| {
            let ending = match reason {
                WebProcessTerminationReason::TerminatedByApi => Ending::ByTheApp,
                _ => Ending::Lost,
            };
            if reloads.borrow_mut().should_reload(ending, Instant::now()) {
                eprintln!(
                    "playbook-studio: the page's process ended ({reason:?}); loading the page again"
                );
                view.reload();
            } else if ending == Ending::Lost {
                eprintln!(
                    "playbook-studio: the page's process ended ({reason:?}) again; not reloading it"
                );
            }
        });
    });
    if let Err(e) = watched {
        eprintln!("playbook-studio: cannot watch the page's process: {e}");
    }
}

/// Other platforms' web views restart their page themselves.
#[cfg(not(target_os = "linux"))]
pub fn watch(_window: &tauri::WebviewWindow) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_page_is_reloaded_a_few_times_then_left() {
        let mut reloads = Reloads::default();
        let t0 = Instant::now();
        for i in 0..MAX_RELOADS {
            assert!(reloads.should_reload(Ending::Lost, t0 + Duration::from_secs(i as u64)));
        }
        assert!(!reloads.should_reload(Ending::Lost, t0 + Duration::from_secs(10)));
        // Once the earlier reloads are out of the window, one more is tried.
        assert!(reloads.should_reload(Ending::Lost, t0 + RELOAD_WINDOW + Duration::from_secs(1)));
    }

    #[test]
    fn an_ending_the_app_asked_for_is_not_reloaded() {
        let mut reloads = Reloads::default();
        assert!(!reloads.should_reload(Ending::ByTheApp, Instant::now()));
        assert!(reloads.should_reload(Ending::Lost, Instant::now()));
    }
}
