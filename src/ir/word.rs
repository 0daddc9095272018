//! The static word: what a shell word is known to be before anything runs (its value, or the
//! fact that it is only known at run time), with what rules need besides the value.

/// A shell word after static evaluation. `value` is `None` when any part is only known at run
/// time; rules must then treat the word as unknown, never as its raw text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Word {
    /// The word as written (bounded).
    pub raw: String,
    pub(crate) value: Option<String>,
    /// The reference engine's rendering: literal parts verbatim, `$X` for expansions, nothing
    /// for substitutions. Used for `detected.flags`/`paths` and messages.
    pub shown: String,
    /// The static text before the first run-time part (the whole value when static).
    pub static_prefix: String,
    /// A parameter expansion without the `:?` guard (`$D`, `${D}`, `${D:-x}`).
    pub unguarded_param: bool,
    /// A `${D:?}` guarded expansion.
    pub guarded_param: bool,
    /// Ids of `$(…)`/backtick substitutions inside this word.
    pub substitutions: Vec<usize>,
    /// Ids of `<(…)`/`>(…)` process substitutions inside this word.
    pub processes: Vec<usize>,
    /// Unquoted glob characters (`*`, `?`, `[`) in the value.
    pub glob: bool,
    /// Quotes or escapes inside what would otherwise be a plain word (`r''m`, `\rm`, `$'\x72m'`).
    pub obfuscated: bool,
    /// For a dynamic word made only of text and parameter expansions: the text with each unknown
    /// expansion left as written (`"rm -rf $D"` → `rm -rf $D`). A shell string that is only
    /// partly known is analysed through it, so its visible commands are still seen.
    pub template: Option<String>,
    /// Other fully known values the word may take, each as the fields it becomes: the default
    /// or alternative of an expansion whose variable is only known at run time
    /// (`${OUT:-/dev/sdb}`), a value the variable was known to have on some path, or the
    /// standard system paths a glob can match (`/u?r`). Rules see each through the analysis's
    /// readings of the command (`Context::reading_of`), never through `value`.
    pub alternatives: Vec<Vec<String>>,
}

impl Word {
    /// A fully static word (used for synthetic argv such as `env -S` splits).
    pub fn literal(text: &str) -> Self {
        Word {
            raw: text.to_string(),
            value: Some(text.to_string()),
            shown: text.to_string(),
            static_prefix: text.to_string(),
            ..Word::default()
        }
    }

    /// A word whose value is unknown (e.g. the `{}` of `find -exec`, appended `xargs` input).
    pub fn unknown(raw: &str) -> Self {
        Word {
            raw: raw.to_string(),
            shown: raw.to_string(),
            ..Word::default()
        }
    }

    pub(crate) fn with_value(mut self, value: Option<String>) -> Self {
        self.value = value;
        self
    }

    /// The static value, when the whole word is known.
    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    pub fn is_static(&self) -> bool {
        self.value.is_some()
    }

    /// True when the word is only known at run time and has an unquoted expansion or
    /// substitution, so it may split into several fields (`$X`, `a$(cmd)`; not `"$X"`).
    pub fn may_split(&self) -> bool {
        if self.value.is_some() {
            return false;
        }
        let mut chars = self.raw.chars();
        let (mut single, mut double) = (false, false);
        while let Some(c) = chars.next() {
            match c {
                '\\' if !single => {
                    chars.next();
                }
                '\'' if !double => single = !single,
                '"' if !single => double = !double,
                '$' | '`' if !single && !double => return true,
                _ => {}
            }
        }
        false
    }

    /// True for a literal file-descriptor number (`2>&1`'s `1`, `>&-`).
    pub fn is_fd_number(&self) -> bool {
        self.value()
            .is_some_and(|v| v == "-" || (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())))
    }
}
