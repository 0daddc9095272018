//! Bounds of the analysis (DESIGN §3): each crossing is its own critical signal and a deny, and
//! each is cheap. Pathological inputs are built here rather than stored.

use guarded_sh::analysis::analyse;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::{Limit, Limits};
use guarded_sh::signals::detect;
use std::time::{Duration, Instant};

/// The signal IDs for `text` under `limits`, and whether the built-in floor denies it.
fn run(text: &str, limits: &Limits) -> (Vec<&'static str>, bool) {
    let signals = detect(&analyse(text, limits));
    let deny = builtin(&signals, Mode::Command).is_some();
    (signals.iter().map(|s| s.id()).collect(), deny)
}

fn nested_heredocs(levels: usize, inner: &str) -> String {
    let mut text = inner.to_string();
    for i in (1..=levels).rev() {
        text = format!("sh <<'L{i}'\n{text}\nL{i}");
    }
    text
}

#[test]
fn each_bound_is_its_own_signal_and_denies() {
    let defaults = Limits::default();
    let small_nodes = Limits {
        max_nodes: 200,
        ..Limits::default()
    };
    let no_time = Limits {
        max_millis: 0,
        ..Limits::default()
    };
    let cases: Vec<(&str, String, &Limits, &str)> = vec![
        (
            "1 MiB line",
            format!("echo {}", "a".repeat(1 << 20)),
            &defaults,
            "INPUT_TOO_LARGE",
        ),
        (
            "huge heredoc",
            format!("cat <<EOF\n{}EOF\n", "line $x\n".repeat(200_000)),
            &defaults,
            "INPUT_TOO_LARGE",
        ),
        (
            "1 MB pipeline",
            vec!["cat x"; 131_072].join(" | "),
            &defaults,
            "INPUT_TOO_LARGE",
        ),
        (
            "many nodes",
            vec!["ls"; 500].join("; "),
            &small_nodes,
            "SYNTAX_TOO_LARGE",
        ),
        (
            "deep substitutions",
            format!("echo {}x{}", "$(echo ".repeat(2_000), ")".repeat(2_000)),
            &defaults,
            "SYNTAX_TOO_DEEP",
        ),
        (
            "deep subshells",
            format!("{}ls{}", "(".repeat(5_000), ")".repeat(5_000)),
            &defaults,
            "SYNTAX_TOO_DEEP",
        ),
        (
            "deep arithmetic",
            format!("echo $(({}1{}))", "(".repeat(5_000), ")".repeat(5_000)),
            &defaults,
            "SYNTAX_TOO_DEEP",
        ),
        (
            "nested shells",
            nested_heredocs(9, "ls"),
            &defaults,
            "NESTING_LIMIT_EXCEEDED",
        ),
        (
            "long slow pipeline",
            format!("echo -x {}", "| cat ".repeat(5_000)),
            &defaults,
            "SYNTAX_TOO_LARGE",
        ),
        (
            "no time",
            vec!["ls -la /tmp"; 2_000].join("; "),
            &no_time,
            "ANALYSIS_TIMEOUT",
        ),
    ];
    for (name, text, limits, want) in cases {
        let started = Instant::now();
        let (ids, deny) = run(&text, limits);
        assert!(ids.contains(&want), "{name}: {want} missing from {ids:?}");
        assert!(deny, "{name}: not denied");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{name}: took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn within_bounds_nothing_is_reported() {
    let (ids, deny) = run(&nested_heredocs(8, "ls"), &Limits::default());
    assert!(!deny && ids.is_empty(), "{ids:?}");
    let (ids, _) = run(&vec!["ls"; 2_000].join("; "), &Limits::default());
    assert!(ids.is_empty(), "{ids:?}");
}

#[test]
fn a_crossed_bound_never_hides_what_was_seen_first() {
    let text = format!("rm -rf /; {}", nested_heredocs(9, "ls"));
    let (ids, deny) = run(&text, &Limits::default());
    assert!(
        ids.contains(&"DELETE_ROOT_PATH") && ids.contains(&"NESTING_LIMIT_EXCEEDED"),
        "{ids:?}"
    );
    assert!(deny);
}

/// 100,000 nested `$(` with the size bound lifted, so only the depth bound protects the
/// recursive lowering, on a thread with the default 2 MiB test stack.
#[test]
fn deep_nesting_does_not_overflow_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let limits = Limits {
                max_bytes: 4 << 20,
                max_millis: 60_000,
                ..Limits::default()
            };
            let mut out = Vec::new();
            for text in [
                format!("echo {}x{}", "$(echo ".repeat(100_000), ")".repeat(100_000)),
                format!("{}ls{}", "$(".repeat(100_000), ")".repeat(100_000)),
                "$(".repeat(100_000),
                format!("{}ls{}", "{ ".repeat(100_000), "; }".repeat(100_000)),
                format!("echo {}", "{a,".repeat(50_000)),
                // Wrapper chains: each wrapper is one more level of the lowering's recursion.
                format!("{}true", "sudo ".repeat(100_000)),
                format!("{}true", "env nice nohup ".repeat(30_000)),
                format!("bash -c '{}true'", "command ".repeat(400)),
            ] {
                let analysis = analyse(&text, &limits);
                out.push((analysis.limits.clone(), detect(&analysis).len()));
            }
            out
        })
        .map_err(|e| e.to_string());
    let results = handle.and_then(|h| h.join().map_err(|_| "analysis thread panicked".to_string()));
    let results = results.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        results[0].0.contains(&Limit::Depth {
            max: Limits::default().max_depth
        }),
        "{results:?}"
    );
    // A chain of long argvs reaches the node bound first (each level's words count), a chain
    // of short ones the depth bound; either stops the recursion.
    let depth = Limit::Depth {
        max: Limits::default().max_depth,
    };
    let nodes = Limit::Nodes {
        max: Limits::default().max_nodes,
    };
    for (row, (limits, _)) in results.iter().enumerate().skip(5).take(2) {
        assert!(
            limits.contains(&nodes),
            "row {row}, a long wrapper chain past max_nodes: {limits:?}"
        );
    }
    assert!(
        results[7].0.contains(&depth),
        "a short wrapper chain past max_depth: {:?}",
        results[7].0
    );
}

/// A wrapper chain within the bound is followed to its end: what the last wrapper runs is seen.
#[test]
fn a_long_wrapper_chain_is_followed_to_its_command() {
    let depth = Limits::default().max_depth;
    let within = format!("{}rm -rf /", "sudo ".repeat(depth - 1));
    let (ids, deny) = run(&within, &Limits::default());
    assert!(ids.contains(&"DELETE_ROOT_PATH") && deny, "{ids:?}");
    let (ids, _) = run(
        &format!("{}ls", "sudo ".repeat(depth - 1)),
        &Limits::default(),
    );
    assert!(!ids.contains(&"SYNTAX_TOO_DEEP"), "{ids:?}");
    let (ids, deny) = run(
        &format!("{}ls", "sudo ".repeat(depth + 1)),
        &Limits::default(),
    );
    assert!(ids.contains(&"SYNTAX_TOO_DEEP") && deny, "{ids:?}");
}

#[test]
fn control_bytes_and_lossy_text_are_analysed() {
    let bytes: Vec<u8> = b"rm -rf /\0\x01\x02; echo \xff\xfe \x1b[31m; rm -rf /etc".to_vec();
    let text = String::from_utf8_lossy(&bytes);
    let (ids, deny) = run(&text, &Limits::default());
    assert!(ids.contains(&"DELETE_ROOT_PATH") && deny, "{ids:?}");
    let (_, _) = run("\0\0\0", &Limits::default());
    let (_, _) = run(&"\u{fffd}".repeat(10_000), &Limits::default());
}

/// Signal detection is bounded too: past its budget the analysis fails closed.
#[test]
fn detection_over_budget_fails_closed() {
    use guarded_sh::signals::{detect_within, first_critical};
    let text = "echo a;".repeat(2000);
    let analysis = guarded_sh::analysis::analyse(&text, &guarded_sh::parse::Limits::default());
    let signals = detect_within(&analysis, std::time::Duration::ZERO);
    let critical = first_critical(&signals).map(|s| s.id());
    assert_eq!(critical, Some("ANALYSIS_TIMEOUT"));
    let unbounded = detect_within(&analysis, std::time::Duration::from_secs(600));
    assert!(first_critical(&unbounded).is_none());
}
