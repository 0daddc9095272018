//! Where a configuration value was written: the line of each key of the configuration file
//! (`section.key`, and `section` for its header), from TOML's own spans. A key the file does
//! not write has no line: its value is the built-in default.

use std::collections::BTreeMap;

/// Keys the configuration still reads under an older name (`config::AuditSection`): new, old.
const ALIASES: [(&str, &str); 1] = [("audit.system_log", "audit.syslog")];

/// The line of every key of one configuration file (empty for no file, or one that does not
/// parse).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    lines: BTreeMap<String, usize>,
}

impl Lines {
    /// The keys of `text` and their lines: top-level keys and one level below (the sections'
    /// keys); deeper keys (`host_vars`' own) belong to their section key.
    pub fn of(text: &str) -> Lines {
        use toml::de::{DeTable, DeValue};
        let mut lines = BTreeMap::new();
        let Ok(document) = DeTable::parse(text) else {
            return Lines { lines };
        };
        let line = |offset: usize| crate::config::line_col(text, offset).0;
        for (section, value) in document.get_ref() {
            let name = section.get_ref().to_string();
            lines.insert(name.clone(), line(section.span().start));
            if let DeValue::Table(keys) = value.get_ref() {
                for (key, _) in keys {
                    let path = format!("{name}.{}", key.get_ref());
                    lines.insert(path, line(key.span().start));
                }
            }
        }
        Lines { lines }
    }

    /// The line of `key` (`section.key` or `section`), when the file writes it; a key written
    /// under its old alias (`audit.syslog` for `audit.system_log`) has the alias's line.
    pub fn line(&self, key: &str) -> Option<usize> {
        let alias = ALIASES
            .iter()
            .find(|(new, _)| *new == key)
            .map(|(_, old)| old);
        self.lines
            .get(key)
            .or_else(|| alias.and_then(|old| self.lines.get(*old)))
            .copied()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn lines_table() {
        let text = "# c\ntarget.env = \"prod\"\n[shells]\nsh = \"/bin/sh\"\n\n[policy]\ndir = \"/p\"\n[audit.x]\nk = 1\n";
        let lines = Lines::of(text);
        let cases = [
            ("target", Some(2)),
            ("target.env", Some(2)),
            ("shells", Some(3)),
            ("shells.sh", Some(4)),
            ("shells.bash", None),
            ("policy.dir", Some(7)),
            ("audit.x", Some(8)),
            ("audit.x.k", None),
            ("approval", None),
            ("audit.system_log", None),
        ];
        for (key, line) in cases {
            assert_eq!(lines.line(key), line, "{key}");
        }
        assert_eq!(Lines::of("[shells\n"), Lines::default());
        let old = Lines::of("[audit]\nsyslog = false\n");
        assert_eq!(old.line("audit.system_log"), Some(2));
        let new = Lines::of("[audit]\nfile = \"/f\"\nsystem_log = \"off\"\n");
        assert_eq!(new.line("audit.system_log"), Some(3));
    }
}
