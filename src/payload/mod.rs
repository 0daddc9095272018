//! Payloads automation hands an interpreter instead of a command line: an Ansible task arrives
//! as an AnsiballZ wrapper run by python (from a file, or on stdin with pipelining). `ansiballz`
//! decodes the wrapper; `task` says what the task does as shell command lines, which the gate
//! analyses like any other.

pub mod ansiballz;
pub mod task;
