//! Constants assigned earlier in the same text: scalars, indexed arrays, `$1…` from `set --` or
//! `sh -c STR NAME ARGS`, and `IFS`, so words that use them evaluate to their values.

use crate::parse::word::DEFAULT_IFS;
use std::collections::HashMap;

/// Constants assigned earlier in the same text.
#[derive(Clone, Debug, Default)]
pub(super) struct Vars {
    pub(super) named: HashMap<String, String>,
    /// Indexed arrays (`a=(x y)`); `$a` is element 0, so it is also in `named`.
    pub(super) arrays: HashMap<String, Vec<String>>,
    pub(super) positional: Option<Vec<String>>,
    /// `IFS` when assigned a constant; `None` for the default.
    pub(super) ifs: Option<String>,
    /// `IFS` was assigned a run-time value: unquoted expansions split unpredictably.
    pub(super) ifs_unknown: bool,
    /// For a variable only known at run time, the known values it may have (`X=${Y:-/dev/sdb}`,
    /// a `for` loop's list): `$X` then has those readings.
    pub(super) possible: HashMap<String, Vec<String>>,
    /// Variables a `${V:?}` expansion has checked (the shell stops if one is empty or unset):
    /// later expansions of them are never empty.
    pub(super) checked: std::collections::HashSet<String>,
}

/// What a parameter expands to, when known.
pub(super) enum Value {
    One(String),
    /// Several fields (`$@`, `${a[@]}`): separate words when quoted, split again when not.
    Fields(Vec<String>),
}

impl Vars {
    pub(super) fn with_positional(args: Vec<String>) -> Self {
        Vars {
            positional: Some(args),
            ..Vars::default()
        }
    }

    pub(super) fn get(&self, name: &str) -> Option<String> {
        if let Ok(n) = name.parse::<usize>() {
            if n == 0 {
                return None;
            }
            return self.positional.as_ref()?.get(n - 1).cloned();
        }
        match name {
            "@" | "*" => self.positional.as_ref().map(|p| p.join(" ")),
            _ => self.named.get(name).cloned(),
        }
    }

    /// The value of `name` with an optional array subscript (`@`, `*` or an index).
    pub(super) fn lookup(&self, name: &str, subscript: Option<&str>) -> Option<Value> {
        match (name, subscript) {
            ("@" | "*", None) => self.positional.clone().map(Value::Fields),
            (_, None) => self.get(name).map(Value::One),
            (_, Some("@" | "*")) => self
                .arrays
                .get(name)
                .cloned()
                .or_else(|| self.named.get(name).map(|v| vec![v.clone()]))
                .map(Value::Fields),
            (_, Some(index)) => {
                let i: usize = index.trim().parse().ok()?;
                match self.arrays.get(name) {
                    Some(a) => a.get(i).cloned().map(Value::One),
                    None if i == 0 => self.named.get(name).cloned().map(Value::One),
                    None => None,
                }
            }
        }
    }

    pub(super) fn set(&mut self, name: &str, value: Option<String>) {
        self.arrays.remove(name);
        self.possible.remove(name);
        self.checked.remove(name);
        if name == "IFS" {
            self.ifs_unknown = value.is_none();
            self.ifs = value.clone();
        }
        match value {
            Some(v) => {
                self.named.insert(name.to_string(), v);
            }
            None => {
                self.named.remove(name);
            }
        }
    }

    /// `name` is only known at run time but may be one of `values` (bounded).
    pub(super) fn set_possible(&mut self, name: &str, values: Vec<String>) {
        self.set(name, None);
        if !values.is_empty() {
            let values = values
                .into_iter()
                .filter(|v| v.len() <= crate::parse::values::MAX_READING_CHARS)
                .take(crate::parse::values::MAX_READINGS);
            self.possible.insert(name.to_string(), values.collect());
        }
    }

    /// The known values `name` may have when it is only known at run time.
    pub(super) fn alternatives(&self, name: &str) -> Vec<String> {
        self.possible.get(name).cloned().unwrap_or_default()
    }

    /// `${name:?}` was expanded: from here on `name` is not empty.
    pub(super) fn check(&mut self, name: &str) {
        self.checked.insert(name.to_string());
    }

    pub(super) fn is_checked(&self, name: &str) -> bool {
        self.checked.contains(name)
    }

    /// After code that may set anything (`eval "$x"`, `. "$f"`): nothing is known any more,
    /// `IFS` included.
    pub(super) fn forget_all(&mut self) {
        *self = Vars {
            ifs_unknown: true,
            ..Vars::default()
        };
    }

    /// `unset NAME`: no longer a known constant (`IFS` returns to its default).
    pub(super) fn unset(&mut self, name: &str) {
        self.set(name, None);
        if name == "IFS" {
            self.ifs = None;
            self.ifs_unknown = false;
        }
    }

    pub(super) fn set_array(&mut self, name: &str, values: Option<Vec<String>>) {
        self.set(name, values.as_ref().and_then(|v| v.first().cloned()));
        if let Some(v) = values {
            self.arrays.insert(name.to_string(), v);
        }
    }

    /// `a[i]=v`: updates a known array, or forgets it when the index or value is not static.
    pub(super) fn set_element(&mut self, name: &str, index: &str, value: Option<&str>) {
        let slot = index.trim().parse::<usize>().ok().filter(|i| *i < 4096);
        let mut array = self
            .arrays
            .get(name)
            .cloned()
            .or_else(|| self.named.get(name).map(|v| vec![v.clone()]))
            .unwrap_or_default();
        match (slot, value) {
            (Some(i), Some(v)) => {
                if array.len() <= i {
                    array.resize(i + 1, String::new());
                }
                array[i] = v.to_string();
                self.set_array(name, Some(array));
            }
            _ => self.set(name, None),
        }
    }

    pub(super) fn ifs(&self) -> &str {
        self.ifs.as_deref().unwrap_or(DEFAULT_IFS)
    }
}
