//! The integration tests: one test binary (ripgrep's layout), one module per area, all running
//! against the library or the built binary. `setup` is the one shared helper: a temporary
//! directory with a configuration that keeps every run inside it, the binary, running it, and
//! reading its audit records. The case tables these modules read are data files under `tests/`.
//!
//! `cargo test` changes nothing outside its temporary directories. What needs the host (creating
//! users, installing, a real sshd) is root-only and runs from `tests/run.sh`: see `approval_flow`.

mod setup;

mod advisory_model;
mod analysis_budget;
mod approval_flow;
mod approval_tty;
mod audit_journald;
mod audit_schema;
mod audit_session;
mod audit_sinks;
mod audit_surfaces;
mod blind;
mod bounded_reads;
mod cases;
mod classes;
mod cli;
mod detection_surfaces;
mod fidelity;
mod hardening_backtrace;
mod hardening_bounds;
mod hardening_concurrency;
mod hardening_faults;
mod hardening_properties;
mod hardening_trust;
mod honey_check;
mod honey_reasons;
mod hook_rules;
mod interactive_lines;
mod interactive_server;
mod interp_robustness;
mod interp_scripts;
mod interrupts;
mod load;
mod parse_ir;
mod parse_limits;
mod parse_plain;
mod payload;
mod policy_builtins;
mod policy_cache;
mod policy_differential;
mod policy_examples;
mod policy_fail_closed;
mod policy_input;
mod policy_one_backend;
mod policy_rego_value;
mod policy_snapshot;
mod policy_tests_runner;
mod preflight;
mod readme_quick_start;
mod review_check_file;
mod robustness;
mod session_state;
mod session_terminal;
mod shell_surface;
mod shell_table;
mod strict_defaults;
mod supervise;
mod tools;
