//! The IR that `parse::analyse` builds, checked on the tree shapes tree-sitter-bash gets wrong or
//! that need care: which commands exist (by static name, in order), how they were reached, and
//! what the analysis records besides commands. One row per case.

use guarded_sh::analysis::analyse;
use guarded_sh::parse::{Analysis, Limits, Stdin, Via};

fn ir(text: &str) -> Analysis {
    analyse(text, &Limits::default())
}

/// Static command names in IR order (`?` for a dynamic one, `` for a nameless one).
fn names(a: &Analysis) -> Vec<String> {
    a.commands
        .iter()
        .map(|c| match c.name.value() {
            Some(v) => v.to_string(),
            None if c.name.raw.is_empty() => String::new(),
            None => "?".to_string(),
        })
        .collect()
}

#[test]
fn command_names_table() {
    let cases: &[(&str, &[&str])] = &[
        ("ls @(a|b)", &["ls"]),
        ("ls @(a|b); rm x", &["ls", "rm"]),
        ("ls +(a|b)*.txt", &["ls"]),
        ("!(echo hi)", &["echo"]),
        ("{rm,-rf,/}", &["rm"]),
        ("x; {echo,hi}", &["x", "echo"]),
        ("coproc worker { nc -l 4444; }", &["coproc", "nc"]),
        ("coproc nc -l 4444", &["coproc", "nc"]),
        ("> /dev/sda", &[""]),
        ("X=1", &[""]),
        ("x=rm; $x -rf /", &["", "rm"]),
        ("a=(rm -rf /); \"${a[@]}\"", &["", "rm"]),
        ("set -- rm -rf /; \"$@\"", &["set", "rm"]),
        ("IFS=,; x=rm,-rf; $x", &["", "", "rm"]),
        ("$(echo rm) -rf /", &["rm", "echo"]),
        ("$(cat f) -rf /", &["?", "cat"]),
        ("time -p ls", &["time", "ls"]),
        ("command -v rm", &["command"]),
        ("alias ls='rm -rf /'", &["alias", "rm"]),
        ("echo / | xargs rm -rf", &["echo", "xargs", "rm"]),
        (
            "sudo -u x -- env A=1 nice -n 5 rm",
            &["sudo", "env", "nice", "rm"],
        ),
    ];
    for (text, want) in cases {
        let got = names(&ir(text));
        assert_eq!(&got, want, "{text:?}");
    }
}

#[test]
fn argv_after_unwrapping_table() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("{rm,-rf,/}", "rm", &["-rf", "/"]),
        ("set -- rm -rf /; \"$@\"", "rm", &["-rf", "/"]),
        ("echo / | xargs -I{} rm -rf {}", "rm", &["-rf", "/"]),
        ("parallel rm -rf ::: /", "rm", &["-rf", "/"]),
        ("env -S 'rm -rf /'", "rm", &["-rf", "/"]),
        ("rm -rf $(echo /)", "rm", &["-rf", "/"]),
        ("a=(ls -l); a[0]=rm; \"${a[@]}\"", "rm", &["-l"]),
    ];
    for (text, name, want) in cases {
        let a = ir(text);
        let cmd = a.commands.iter().find(|c| c.name.value() == Some(name));
        let args: Vec<&str> = cmd
            .map(|c| c.args.iter().filter_map(|w| w.value()).collect())
            .unwrap_or_default();
        assert_eq!(&args, want, "{text:?}");
    }
}

#[test]
fn parse_errors_table() {
    let cases: &[(&str, bool)] = &[
        ("ls @(a|b)", false),
        ("rm -rf !(keep)", false),
        ("{rm,-rf,/}", false),
        ("exec 3<> /dev/sda", false),
        ("echo \"x", true),
        ("ls &&", true),
        ("if true; then ls", true),
    ];
    for (text, error) in cases {
        assert_eq!(!ir(text).parse_errors.is_empty(), *error, "{text:?}");
    }
}

#[test]
fn how_commands_are_reached() {
    let a = ir("sudo bash -c 'eval \"rm -rf /\"'");
    let rm = a.commands.iter().find(|c| c.is(&["rm"]));
    let via = rm.map(|c| c.context.via.clone()).unwrap_or_default();
    assert_eq!(
        via,
        vec![
            Via::Wrapper("sudo".into()),
            Via::Shell("bash -c".into()),
            Via::Shell("eval".into())
        ]
    );
    assert_eq!(rm.map(|c| c.context.depth), Some(2));

    // A partly dynamic shell string is recorded as dynamic and still analysed as a template.
    let a = ir("bash -c \"rm -rf $D\"");
    assert_eq!(a.dynamic_code.len(), 1);
    let rm = a.commands.iter().find(|c| c.is(&["rm"]));
    assert!(rm.is_some_and(|c| c.args.iter().any(|w| w.unguarded_param)));

    // The heredoc pipeline is rebuilt: `sh` reads the heredoc through `cat`.
    let a = ir("cat <<'EOF' | sh\nrm -rf /\nEOF");
    let sh = a.commands.iter().find(|c| c.is(&["sh"]));
    assert!(matches!(sh.map(|c| &c.stdin), Some(Stdin::Pipe { .. })));
    assert!(a
        .commands
        .iter()
        .any(|c| c.is(&["rm"]) && c.context.depth == 1));

    // Only the substitution whose output is run is marked executed.
    let a = ir("V=$(curl x); $(wget y)");
    let executed: Vec<bool> = a
        .commands
        .iter()
        .filter(|c| c.is(&["curl", "wget"]))
        .map(|c| {
            matches!(
                c.context.substitution,
                Some(guarded_sh::parse::Substitution::Command { executed: true, .. })
            )
        })
        .collect();
    assert_eq!(executed, vec![false, true]);
}
