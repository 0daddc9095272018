//! A session's line judged with the session's state (issue 15 item 2): each row of
//! `tests/session/state.tsv` is the state the hook sends (bash's `declare -p`, `declare -f`,
//! `set -- …`) and a line, with the signals and the built-in verdict the line must get.

use crate::setup::{table, unescape};
use guarded_sh::analysis::analyse_in_session;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;

#[test]
fn lines_are_judged_with_the_sessions_state() {
    let rows = table("session/state.tsv");
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let mut failures = Vec::new();
    for (line_no, fields) in rows {
        let [name, state, line, expected, verdict] = fields.as_slice() else {
            panic!("state.tsv:{line_no}: five fields, got {fields:?}");
        };
        let state = if state == "-" {
            String::new()
        } else {
            unescape(state)
        };
        let analysis =
            analyse_in_session(&state, &unescape(line), &Limits::default(), &mut |_| None);
        let signals = detect(&analysis);
        let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
        for want in expected.split_whitespace().filter(|w| *w != "-") {
            let ok = match want.strip_prefix('!') {
                Some(absent) => !ids.contains(&absent),
                None => ids.contains(&want),
            };
            if !ok {
                failures.push(format!("state.tsv:{line_no} {name}: {want} (got {ids:?})"));
            }
        }
        let got = if builtin(&signals, Mode::Command).is_some() {
            "deny"
        } else {
            "allow"
        };
        if got != verdict {
            failures.push(format!(
                "state.tsv:{line_no} {name}: {got}, expected {verdict} ({ids:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
