//! Partition and filesystem tools as data: each tool's option grammar and which of its options
//! only read (`sfdisk -d`, `sgdisk -p`), make the run a dry run (`mke2fs -n`, `wipefs -n`) or
//! write; and whether a writing run's target is a device or an ordinary (image or swap) file.

use super::grammar::{parse, Arg, Grammar, Parsed};
use super::paths::normalize;
use crate::ir::{Command, Word};

/// What one run of a disk tool does.
pub enum DiskRun<'c> {
    /// Lists, prints, verifies or backs up the table: nothing on the disk changes.
    ReadOnly,
    /// Says what it would do and writes nothing.
    DryRun,
    /// Writes the listed targets (a device, an image file, unknown).
    Writes(Vec<&'c Word>),
}

/// One tool: its grammar and its options by effect. Options are spelled `-x` or `--name`.
struct DiskTool {
    names: &'static [&'static str],
    grammar: Grammar,
    /// Options that only read or print.
    reads: &'static [&'static str],
    /// Options that change nothing by themselves (output format, quiet, alignment).
    neutral: &'static [&'static str],
    /// Options that make the whole run a dry run, whatever else is asked.
    no_act: &'static [&'static str],
    /// A run with only neutral options lists (`wipefs DEV`).
    lists_by_default: bool,
    /// Options whose value is a file the run writes (`sgdisk --backup=FILE`): the run is only
    /// read-only while that file is an ordinary one.
    writes_file: &'static [&'static str],
}

const NO_LONGS: &[(&str, Arg)] = &[];

const MKE2FS: Grammar = Grammar {
    short_values: "bCdgGiIJNmoOrELMtTUezl",
    longs: NO_LONGS,
    options_end_at_operand: false,
};

/// Other filesystem creators and disk writers, read with the value options most of them share
/// (`-t TYPE`, `-L`/`-n` label, `-U` uuid): every run writes.
const GENERIC_WRITERS: &[&str] = &[
    "mkfs",
    "mkswap",
    "blkdiscard",
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
    "cfdisk",
];
const GENERIC: Grammar = Grammar {
    short_values: "tLnU",
    longs: NO_LONGS,
    options_end_at_operand: false,
};

const TOOLS: &[DiskTool] = &[
    DiskTool {
        names: &["sfdisk"],
        grammar: Grammar {
            short_values: "NoOXYwWu",
            longs: &[
                ("dump", Arg::No),
                ("list", Arg::No),
                ("list-free", Arg::No),
                ("list-types", Arg::No),
                ("verify", Arg::No),
                ("show-size", Arg::No),
                ("show-geometry", Arg::No),
                ("json", Arg::No),
                ("help", Arg::No),
                ("version", Arg::No),
                ("quiet", Arg::No),
                ("output", Arg::Required),
                ("color", Arg::Optional),
                ("lock", Arg::Optional),
                ("no-act", Arg::No),
                ("delete", Arg::No),
                ("activate", Arg::No),
                ("append", Arg::No),
                ("backup", Arg::No),
                ("backup-file", Arg::Required),
                ("bytes", Arg::No),
                ("force", Arg::No),
                ("label", Arg::Required),
                ("label-nested", Arg::Required),
                ("move-data", Arg::Optional),
                ("move-use-fsync", Arg::No),
                ("no-reread", Arg::No),
                ("no-tell-kernel", Arg::No),
                ("partno", Arg::Required),
                ("part-attrs", Arg::No),
                ("part-label", Arg::No),
                ("part-type", Arg::No),
                ("part-uuid", Arg::No),
                ("disk-id", Arg::No),
                ("reorder", Arg::No),
                ("relocate", Arg::No),
                ("wipe", Arg::Required),
                ("wipe-partitions", Arg::Required),
                ("sector-size", Arg::Required),
            ],
            options_end_at_operand: false,
        },
        reads: &[
            "-d",
            "--dump",
            "-l",
            "--list",
            "-F",
            "--list-free",
            "-T",
            "--list-types",
            "-V",
            "--verify",
            "-s",
            "--show-size",
            "-g",
            "--show-geometry",
            "-J",
            "--json",
            "-h",
            "--help",
            "-v",
            "--version",
        ],
        neutral: &["-q", "--quiet", "-o", "--output", "--color", "--lock"],
        no_act: &["-n", "--no-act"],
        lists_by_default: false,
        writes_file: &[],
    },
    DiskTool {
        names: &["sgdisk"],
        grammar: Grammar {
            short_values: "aAbcdhilmnrRtuU",
            longs: &[
                ("print", Arg::No),
                ("verify", Arg::No),
                ("backup", Arg::Required),
                ("info", Arg::Required),
                ("print-mbr", Arg::No),
                ("list-types", Arg::No),
                ("display-alignment", Arg::No),
                ("end-of-largest", Arg::No),
                ("first-in-largest", Arg::No),
                ("first-aligned-in-largest", Arg::No),
                ("version", Arg::No),
                ("help", Arg::No),
                ("set-alignment", Arg::Required),
                ("pretend", Arg::No),
                ("zap", Arg::No),
                ("zap-all", Arg::No),
                ("clear", Arg::No),
                ("new", Arg::Required),
                ("delete", Arg::Required),
                ("typecode", Arg::Required),
                ("change-name", Arg::Required),
                ("load-backup", Arg::Required),
                ("mbrtogpt", Arg::No),
                ("move-second-header", Arg::No),
                ("randomize-guids", Arg::No),
                ("disk-guid", Arg::Required),
                ("partition-guid", Arg::Required),
                ("sort", Arg::No),
                ("transpose", Arg::Required),
                ("attributes", Arg::Required),
                ("gpttombr", Arg::Required),
                ("hybrid", Arg::Required),
                ("recompute-chs", Arg::No),
                ("replicate", Arg::Required),
                ("largest-new", Arg::Required),
                ("adjust-main-table", Arg::Required),
                ("move-main-table", Arg::Required),
                ("align-end", Arg::No),
            ],
            options_end_at_operand: false,
        },
        reads: &[
            "-p",
            "--print",
            "-v",
            "--verify",
            "-b",
            "--backup",
            "-i",
            "--info",
            "-O",
            "--print-mbr",
            "-L",
            "--list-types",
            "-D",
            "--display-alignment",
            "-E",
            "--end-of-largest",
            "-f",
            "--first-in-largest",
            "-F",
            "--first-aligned-in-largest",
            "-V",
            "--version",
            "-?",
            "--help",
        ],
        neutral: &["-a", "--set-alignment"],
        no_act: &["-P", "--pretend"],
        lists_by_default: false,
        writes_file: &["-b", "--backup"],
    },
    DiskTool {
        names: &["wipefs"],
        grammar: Grammar {
            short_values: "otO",
            longs: &[
                ("all", Arg::No),
                ("offset", Arg::Required),
                ("backup", Arg::Optional),
                ("force", Arg::No),
                ("no-act", Arg::No),
                ("parsable", Arg::No),
                ("noheadings", Arg::No),
                ("json", Arg::No),
                ("output", Arg::Required),
                ("quiet", Arg::No),
                ("types", Arg::Required),
                ("lock", Arg::Optional),
                ("help", Arg::No),
                ("version", Arg::No),
            ],
            options_end_at_operand: false,
        },
        reads: &["-h", "--help", "-V", "--version"],
        neutral: &[
            "-f",
            "--force",
            "-p",
            "--parsable",
            "-i",
            "--noheadings",
            "-J",
            "--json",
            "-O",
            "--output",
            "-q",
            "--quiet",
            "-t",
            "--types",
            "-b",
            "--backup",
            "--lock",
        ],
        no_act: &["-n", "--no-act"],
        lists_by_default: true,
        writes_file: &[],
    },
    DiskTool {
        names: &["fdisk"],
        grammar: Grammar {
            short_values: "bCHSotwW",
            longs: &[
                ("list", Arg::No),
                ("list-details", Arg::No),
                ("sector-size", Arg::Required),
                ("output", Arg::Required),
                ("units", Arg::Optional),
                ("compatibility", Arg::Optional),
                ("color", Arg::Optional),
                ("lock", Arg::Optional),
                ("type", Arg::Required),
                ("wipe", Arg::Required),
                ("wipe-partitions", Arg::Required),
                ("protect-boot", Arg::No),
                ("noauto-pt", Arg::No),
                ("help", Arg::No),
                ("version", Arg::No),
                ("getsz", Arg::No),
            ],
            options_end_at_operand: false,
        },
        reads: &[
            "-l",
            "--list",
            "-x",
            "--list-details",
            "-s",
            "--getsz",
            "-h",
            "--help",
            "-V",
            "--version",
        ],
        neutral: &[
            "-b",
            "--sector-size",
            "-o",
            "--output",
            "-u",
            "--units",
            "--color",
            "--lock",
            "-t",
            "--type",
        ],
        no_act: &[],
        lists_by_default: false,
        writes_file: &[],
    },
    DiskTool {
        names: &["gdisk"],
        grammar: Grammar {
            short_values: "",
            longs: NO_LONGS,
            options_end_at_operand: false,
        },
        reads: &["-l"],
        neutral: &[],
        no_act: &[],
        lists_by_default: false,
        writes_file: &[],
    },
    DiskTool {
        names: &["mke2fs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4"],
        grammar: MKE2FS,
        reads: &[],
        neutral: &[],
        no_act: &["-n"],
        lists_by_default: false,
        writes_file: &[],
    },
    DiskTool {
        names: &["mkfs.xfs"],
        grammar: Grammar {
            short_values: "bmdilnprsLt",
            longs: NO_LONGS,
            options_end_at_operand: false,
        },
        reads: &[],
        neutral: &[],
        no_act: &["-N"],
        lists_by_default: false,
        writes_file: &[],
    },
];

/// parted: its own options, then a device, then commands. These commands only read; any other
/// word (`mklabel`, `mkpart`, `rm`, `resizepart`, `name`, `set`, `rescue` …) writes.
const PARTED: Grammar = Grammar {
    short_values: "a",
    longs: &[
        ("list", Arg::No),
        ("machine", Arg::No),
        ("script", Arg::No),
        ("json", Arg::No),
        ("fix", Arg::No),
        ("align", Arg::Required),
        ("help", Arg::No),
        ("version", Arg::No),
    ],
    options_end_at_operand: false,
};
const PARTED_NEUTRAL: &[&str] = &[
    "-m",
    "--machine",
    "-s",
    "--script",
    "-j",
    "--json",
    "-a",
    "--align",
];
const PARTED_READ_COMMANDS: &[&str] = &["print", "unit", "help", "version", "quit", "align-check"];
const PARTED_WRITE_COMMANDS: &[&str] = &[
    "disk_set",
    "disk_toggle",
    "mklabel",
    "mkpart",
    "mktable",
    "name",
    "rescue",
    "resizepart",
    "rm",
    "select",
    "set",
    "toggle",
    "type",
];
/// Arguments the read-only commands take (`print free`, `unit s`, `align-check opt 1`).
const PARTED_READ_ARGUMENTS: &[&str] = &[
    "free", "all", "devices", "list", "s", "B", "b", "kB", "MB", "MiB", "GB", "GiB", "TB", "TiB",
    "%", "cyl", "chs", "compact", "min", "minimal", "opt", "optimal",
];

/// How the tool `base` runs with these arguments, when it is a disk tool this table knows;
/// `None` for other programs (the caller's own rules apply).
pub fn classify<'c>(base: &str, cmd: &'c Command) -> Option<DiskRun<'c>> {
    if base == "parted" {
        return Some(parted(cmd));
    }
    let known = if base == "mkfs" {
        mkfs_type_tool(cmd)
    } else {
        TOOLS
            .iter()
            .find(|t| t.names.contains(&base))
            .map(|t| (t, &t.grammar))
    };
    if let Some((tool, grammar)) = known {
        return Some(judge(tool, &parse(&cmd.args, grammar)));
    }
    let generic = GENERIC_WRITERS.contains(&base) || base.starts_with("mkfs.");
    generic.then(|| DiskRun::Writes(targets(&parse(&cmd.args, &GENERIC))))
}

/// The operands a writing run writes: all but sizes, block counts and partition numbers.
fn targets<'c>(parsed: &Parsed<'c>) -> Vec<&'c Word> {
    parsed
        .operands
        .iter()
        .copied()
        .filter(|w| !w.value().is_some_and(is_size))
        .collect()
}

/// `512M`, `100000`, `4GiB`, `2048s`, `1`: a size or a number, not a path.
fn is_size(v: &str) -> bool {
    let digits = v.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.len() < v.len()
        && matches!(
            digits,
            "" | "s"
                | "k"
                | "K"
                | "M"
                | "G"
                | "T"
                | "P"
                | "KB"
                | "MB"
                | "GB"
                | "TB"
                | "KiB"
                | "MiB"
                | "GiB"
                | "TiB"
                | "b"
                | "B"
        )
}

/// `mkfs -t TYPE` runs `mkfs.TYPE` with the other options (ext2 when no type is given).
fn mkfs_type_tool(cmd: &Command) -> Option<(&'static DiskTool, &'static Grammar)> {
    let parsed = parse(&cmd.args, &MKE2FS);
    let fs_type = parsed
        .options
        .iter()
        .find(|o| o.spelling == "-t")
        .map_or(Some("ext2"), |o| o.value.as_deref())?;
    let name = format!("mkfs.{fs_type}");
    let tool = TOOLS.iter().find(|t| t.names.contains(&name.as_str()))?;
    Some((tool, &tool.grammar))
}

fn judge<'c>(tool: &DiskTool, parsed: &Parsed<'c>) -> DiskRun<'c> {
    let clobbers = parsed.options.iter().any(|o| {
        tool.writes_file.contains(&o.spelling.as_str())
            && !o.value.as_deref().is_some_and(is_ordinary_file)
    });
    if clobbers {
        return DiskRun::Writes(Vec::new());
    }
    if parsed.has_any(tool.no_act) {
        return DiskRun::DryRun;
    }
    let known = |s: &str| tool.reads.contains(&s) || tool.neutral.contains(&s);
    let all_known = parsed.options.iter().all(|o| known(&o.spelling));
    let reads = parsed.has_any(tool.reads) || tool.lists_by_default;
    if all_known && reads && !parsed.dynamic {
        DiskRun::ReadOnly
    } else {
        DiskRun::Writes(targets(parsed))
    }
}

fn parted(cmd: &Command) -> DiskRun<'_> {
    let parsed = parse(&cmd.args, &PARTED);
    let all_known = parsed.options.iter().all(|o| {
        PARTED_NEUTRAL.contains(&o.spelling.as_str())
            || matches!(
                o.spelling.as_str(),
                "-l" | "--list" | "-h" | "--help" | "-v" | "--version"
            )
    });
    let device = parsed.operands.first().copied();
    let commands = parsed.operands.get(1..).unwrap_or_default();
    let listing = parsed.has_any(&["-l", "--list", "-h", "--help", "-v", "--version"]);
    let reads_only = !commands.is_empty() && commands.iter().all(|w| parted_reads(w));
    if !parsed.dynamic && all_known && ((listing && commands.is_empty()) || reads_only) {
        DiskRun::ReadOnly
    } else {
        DiskRun::Writes(device.into_iter().collect())
    }
}

/// A word of a parted command line that only reads: a read-only command or an unambiguous
/// abbreviation of one (`p`), one of their arguments, or a number.
fn parted_reads(word: &Word) -> bool {
    let Some(w) = word.value() else { return false };
    if PARTED_READ_ARGUMENTS.contains(&w)
        || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
    {
        return true;
    }
    !w.is_empty()
        && PARTED_READ_COMMANDS.iter().any(|c| c.starts_with(w))
        && !PARTED_WRITE_COMMANDS.iter().any(|c| c.starts_with(w))
}

/// Directories whose files the system boots and runs from, or that are not files at all.
const PROTECTED_DIRS: &[&str] = &[
    "/dev", "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/proc", "/sys", "/run",
];

/// True when a write target is an ordinary file: static, not under `/dev` or a directory the
/// system runs from, not a directory the system needs as a whole, not a dotfile or inside a
/// dot directory (`~/.bashrc`, `/root/.ssh/…`). A relative name is judged from an unknown
/// directory (a session may stand in `/dev/mapper`): only a file name with an extension
/// (`disk.img`) that is not a device name (`sda1`) counts.
pub fn is_ordinary_file(path: &str) -> bool {
    let norm = normalize(path);
    let dotfile = norm.split('/').any(|p| p.starts_with('.') && p != "..");
    if norm.is_empty() || norm.starts_with('~') || dotfile || super::paths::is_system_path(path) {
        return false;
    }
    if norm.starts_with('/') {
        return !PROTECTED_DIRS
            .iter()
            .any(|d| norm == *d || norm.starts_with(&format!("{d}/")));
    }
    let name = norm.rsplit('/').next().unwrap_or(&norm);
    name.contains('.') && !norm.split('/').any(|p| p == "dev") && !is_device_name(name)
}

/// `sda`, `sdb1`, `vdc`, `xvda2`, `hdb`, `nvme0n1`, `nvme0n1p3`, `mmcblk0p1`, `md0`, `loop3`,
/// `dm-1`, `nbd0`, `zram0`, `sr0`.
fn is_device_name(name: &str) -> bool {
    let lettered = ["sd", "hd", "vd", "xvd"].iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            let letters = rest.trim_end_matches(|c: char| c.is_ascii_digit());
            !letters.is_empty() && letters.chars().all(|c| c.is_ascii_lowercase())
        })
    });
    let numbered = [
        "nvme", "mmcblk", "md", "loop", "dm-", "nbd", "zram", "sr", "zd", "rbd",
    ]
    .iter()
    .any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    });
    lettered || numbered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_file_table() {
        for p in [
            "/swapfile",
            "disk.img",
            "./disk.img",
            "/var/lib/images/x.img",
            "/srv/vm/root.img",
            "/tmp/fs.img",
            "/root/sda.gpt",
        ] {
            assert!(is_ordinary_file(p), "{p} should be an ordinary file");
        }
        for p in [
            "/dev/sda",
            "/dev/mapper/vg-root",
            "/dev/disk/by-id/x",
            "/etc/passwd",
            "/boot/vmlinuz",
            "/",
            "/var/lib",
            "~",
            "sda1",
            "nvme0n1p2",
            "../../dev/sda",
            "/tmp/../dev/sdb",
            "/root/.bashrc",
            "/home/u/.ssh/authorized_keys",
            "vg-data",
            "swap",
        ] {
            assert!(!is_ordinary_file(p), "{p} should not be an ordinary file");
        }
    }
}
