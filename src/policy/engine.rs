//! Loading a policy directory and evaluating `data.honey` for one input, failing closed.
//! Enforcement runs the RVM program (cached or compiled in memory, the same either way); the
//! interpreter serves the checks that make the RVM safe to run (validation), the differential
//! tests, and one decision: `allow` true with a declared `decision` the RVM left undefined (a
//! conflict the RVM cannot report), bounded by the wall clock only.

use super::cache::{self, CacheMiss};
use super::decision::{PolicyDecision, ENTRY_COUNT, ENTRY_POINTS, REQUIRED_ONE_OF};
pub(crate) use super::directory::read_sources;
use super::directory::{digest, SourceFile, Sources};
use super::entry::{self, entry_path};
use super::error::{split_diagnostic, PolicyError};
use super::memory::AddressSpaceBound;
use super::rule_cycles::check_rule_cycles;
use regorus::languages::rego::compiler::Compiler;
use regorus::rvm::program::Program;
use regorus::rvm::vm::{RegoVM, VmError};
use regorus::utils::limits::ExecutionTimerConfig;
use regorus::{Engine, Value};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Where compiled programs are kept between processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// No cache: the RVM program is compiled in memory for this process.
    Off,
    /// Read and write `<key>.rvm` files in this existing directory, which the gated user must
    /// not be able to write.
    Dir(PathBuf),
}

/// Which regorus back end evaluates the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Enforcement's: the RVM program, read from the cache or compiled (and stored) now, or
    /// compiled in memory with no cache; a policy the RVM cannot compile is
    /// `policy.unsupported`, never handed to the other back end. The same as [`Backend::Rvm`].
    Auto,
    /// Always the interpreter (the differential tests' reference; never enforcement).
    Interpreter,
    /// The RVM, as [`Backend::Auto`].
    Rvm,
}

/// Enforcement modules one policy may have: a compiled program keeps one source per module and
/// regorus refuses more than `Program::MAX_SOURCES` (256); one is the generated entry point.
pub const MAX_MODULES: usize = Program::MAX_SOURCES - 1;

/// Per-evaluation resource limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// RVM instructions per evaluation (regorus's own default is 25,000).
    pub max_instructions: usize,
    /// Wall-clock limit per evaluation (per entry point with the interpreter).
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_instructions: 1_000_000,
            // A backstop only: the instruction budget is the real bound, and a short wall clock
            // denied ordinary commands on a loaded machine.
            timeout: Duration::from_secs(10),
        }
    }
}

/// Everything [`load_with`] can be told.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub cache: CacheMode,
    pub backend: Backend,
    pub limits: Limits,
}

/// The back end a loaded [`Policy`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Interpreter,
    Rvm,
}

/// What happened with the cache during [`load`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheStatus {
    /// No cache involved.
    Off,
    /// A verified program was read from the cache; no Rego was parsed.
    Hit,
    /// The program was compiled (`previous` says why the cache did not serve it) and stored
    /// if `stored` (a read-only cache directory is not an error).
    Compiled { previous: CacheMiss, stored: bool },
}

/// A loaded, validated policy directory, ready to evaluate inputs.
pub struct Policy {
    digest: String,
    files: Vec<PathBuf>,
    sources: Sources,
    entries: Vec<String>,
    limits: Limits,
    runner: Runner,
    cache_status: CacheStatus,
    interpreter: OnceLock<Engine>,
}

enum Runner {
    Interpreter(Box<Engine>),
    Rvm { program: Arc<Program>, data: Value },
}

/// Load `dir` with the default back end for `cache` and the default [`Limits`].
pub fn load(dir: &Path, cache: &CacheMode) -> Result<Policy, PolicyError> {
    load_with(
        dir,
        &LoadOptions {
            cache: cache.clone(),
            backend: Backend::Auto,
            limits: Limits::default(),
        },
    )
}

/// Load `dir`: every non-hidden `*.rego` (except `*_test.rego`) and `*.json` file, not
/// recursively. Any doubt is an error; no error means the policy is ready to evaluate.
pub fn load_with(dir: &Path, options: &LoadOptions) -> Result<Policy, PolicyError> {
    let sources = read_sources(dir, false)?;
    let _bound = AddressSpaceBound::enter();
    if sources.modules.is_empty() {
        return Err(PolicyError::DirEmpty {
            dir: dir.to_path_buf(),
        });
    }
    if sources.modules.len() > MAX_MODULES {
        return Err(PolicyError::TooManyFiles {
            dir: dir.to_path_buf(),
            count: sources.modules.len(),
            limit: MAX_MODULES,
        });
    }
    let digest = digest(&sources);
    let files = sources
        .modules
        .iter()
        .chain(&sources.data)
        .map(|f| f.path.clone())
        .collect();
    let rvm_cache = match (&options.backend, &options.cache) {
        (Backend::Interpreter, _) => None,
        (_, CacheMode::Dir(cache_dir)) => Some(Some(cache_dir.as_path())),
        (_, CacheMode::Off) => Some(None),
    };
    let limits = options.limits;
    let key = cache::cache_key(&digest);
    let (entries, runner, cache_status) = prepare_runner(&sources, &limits, &key, rvm_cache)?;
    Ok(Policy {
        digest,
        files,
        sources,
        entries,
        limits,
        runner,
        cache_status,
        interpreter: OnceLock::new(),
    })
}

/// What evaluates the policy: the cached program (`rvm_cache` is `Some(Some(dir))` and `dir`
/// holds a verified one for `key`), else a program compiled now (and stored in the cache; one
/// process compiles while the others wait for its file, see [`cache::Compiling`]), else, with
/// `rvm_cache` `None` (only ever asked for by the differential tests), the interpreter. Also
/// returns the `data.honey` entry names and how the cache was used.
fn prepare_runner(
    sources: &Sources,
    limits: &Limits,
    key: &str,
    rvm_cache: Option<Option<&Path>>,
) -> Result<(Vec<String>, Runner, CacheStatus), PolicyError> {
    let mut previous = CacheMiss::Absent;
    let mut compiling = None;
    if let Some(Some(cache_dir)) = rvm_cache {
        match cache::read_or_lock(cache_dir, key) {
            Ok((program, entries)) => {
                let data = merged_data(sources)?;
                return Ok((entries, Runner::Rvm { program, data }, CacheStatus::Hit));
            }
            Err((miss, lock)) => {
                previous = miss;
                compiling = lock;
            }
        }
    }
    let mut engine = build_engine(sources, false, limits)?;
    super::lint::check(engine.get_modules())?;
    let entries = declared_entries(&engine, sources);
    prepare(&mut engine, &entries)?;
    check_rule_cycles(&mut engine)?;
    let Some(cache_dir) = rvm_cache else {
        return Ok((
            entries,
            Runner::Interpreter(Box::new(engine)),
            CacheStatus::Off,
        ));
    };
    validate(&engine)?;
    let program = compile_combined(&engine, &entries).map_err(|message| {
        let (_, message) = split_diagnostic(&message);
        PolicyError::Unsupported { message }
    })?;
    tracing::debug!(target: "guarded_sh::policy", key, "policy compiled");
    let stored = cache_dir.is_some_and(|d| cache::write(d, key, &program).is_ok());
    drop(compiling);
    let status = match cache_dir {
        Some(_) => CacheStatus::Compiled { previous, stored },
        None => CacheStatus::Off,
    };
    let data = engine.get_data();
    Ok((entries, Runner::Rvm { program, data }, status))
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("digest", &self.digest)
            .field("files", &self.files)
            .field("entries", &self.entries)
            .field("backend", &self.backend())
            .field("cache_status", &self.cache_status)
            .finish_non_exhaustive()
    }
}

impl Policy {
    /// Evaluate `data.honey` for `input` (schema version 1). Errors are verdicts: deny.
    pub fn evaluate(&self, input: &serde_json::Value) -> Result<PolicyDecision, PolicyError> {
        let _bound = AddressSpaceBound::enter();
        let input = super::rego_value::to_rego(input);
        match &self.runner {
            Runner::Interpreter(engine) => self.evaluate_interpreter(engine, input),
            Runner::Rvm { program, data } => {
                let values = self.evaluate_rvm(program, data, input.clone())?;
                // The RVM turns conflicting complete rules into undefined. An undefined
                // `decision` next to `allow == true` could hide a conflict between "deny" and
                // "require_approval", so the interpreter (which reports conflicts) decides.
                let decision_declared = self.entries.iter().any(|e| e == "decision");
                if values[0] == Value::Bool(true)
                    && values[2] == Value::Undefined
                    && decision_declared
                {
                    return self.evaluate_interpreter(self.interpreter()?, input);
                }
                PolicyDecision::from_entries(values, self.allow_declared())
            }
        }
    }

    /// Hex sha256 over the sorted (file name, contents) of the enforcement files.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The enforcement files (modules, then data), sorted by name; `*_test.rego` excluded.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The back end that evaluates this policy.
    pub fn backend(&self) -> BackendKind {
        match self.runner {
            Runner::Interpreter(_) => BackendKind::Interpreter,
            Runner::Rvm { .. } => BackendKind::Rvm,
        }
    }

    /// What the cache did while loading.
    pub fn cache_status(&self) -> &CacheStatus {
        &self.cache_status
    }

    /// The `data.honey` entry points the policy declares (`allow` first when declared).
    pub fn entry_points(&self) -> &[String] {
        &self.entries
    }

    fn interpreter(&self) -> Result<&Engine, PolicyError> {
        if let Some(engine) = self.interpreter.get() {
            return Ok(engine);
        }
        let mut engine = build_engine(&self.sources, false, &self.limits)?;
        prepare(&mut engine, &self.entries)?;
        Ok(self.interpreter.get_or_init(|| engine))
    }

    fn evaluate_interpreter(
        &self,
        engine: &Engine,
        input: Value,
    ) -> Result<PolicyDecision, PolicyError> {
        let mut engine = engine.clone();
        engine.set_input(input);
        let mut values = [const { Value::Undefined }; ENTRY_COUNT];
        for (slot, name) in values.iter_mut().zip(ENTRY_POINTS) {
            if self.entries.iter().any(|e| e == name) {
                *slot = engine
                    .eval_rule(entry_path(name))
                    .map_err(|e| interpreter_error(&e, &self.limits))?;
            }
        }
        PolicyDecision::from_entries(values, self.allow_declared())
    }

    /// Some module defines `allow` (else the sets decide alone).
    fn allow_declared(&self) -> bool {
        self.entries.iter().any(|e| e == "allow")
    }

    fn evaluate_rvm(
        &self,
        program: &Arc<Program>,
        data: &Value,
        input: Value,
    ) -> Result<[Value; ENTRY_COUNT], PolicyError> {
        let mut vm = RegoVM::new();
        vm.load_program(program.clone());
        vm.set_max_instructions(self.limits.max_instructions);
        vm.set_execution_timer_config(Some(timer(&self.limits)));
        vm.set_data(data.clone())
            .map_err(|e| vm_error(e, &self.limits))?;
        vm.set_input(input);
        // Entry point 0 is the combined rule (see `entry`): one execution, shared rules once.
        let combined = vm
            .execute_entry_point_by_index(0)
            .map_err(|e| vm_error(e, &self.limits))?;
        entry::split_combined(&combined).ok_or_else(|| PolicyError::Eval {
            location: String::new(),
            message: format!("the compiled program returned a malformed result: {combined}"),
        })
    }
}

/// An interpreter holding the modules (and, with `with_tests`, the test modules) and data.
/// Enforcement modules must be `package honey`; test modules may use any package.
pub(crate) fn build_engine(
    sources: &Sources,
    with_tests: bool,
    limits: &Limits,
) -> Result<Engine, PolicyError> {
    let mut engine = Engine::new();
    engine.set_execution_timer_config(timer(limits));
    for file in &sources.modules {
        let package = add_module(&mut engine, file)?;
        if package != "data.honey" {
            return Err(PolicyError::Package {
                file: file.path.clone(),
                package: package.trim_start_matches("data.").to_string(),
            });
        }
    }
    if with_tests {
        for file in &sources.tests {
            add_module(&mut engine, file)?;
        }
    }
    for file in &sources.data {
        let invalid = |message: String| PolicyError::DataInvalid {
            file: file.path.clone(),
            message,
        };
        let value = Value::from_json_str(&file.text).map_err(|e| invalid(e.to_string()))?;
        let Value::Object(fields) = &value else {
            return Err(invalid("the top level must be an object".to_string()));
        };
        if fields.contains_key(&Value::from(entry::COMBINED_PACKAGE)) {
            return Err(invalid(format!(
                "the top-level key `{}` is reserved for guarded-sh",
                entry::COMBINED_PACKAGE
            )));
        }
        engine.add_data(value).map_err(|e| invalid(e.to_string()))?;
    }
    Ok(engine)
}

fn add_module(engine: &mut Engine, file: &SourceFile) -> Result<String, PolicyError> {
    let shown = file.path.display().to_string();
    engine
        .add_policy(shown.clone(), file.text.clone())
        .map_err(|e| {
            let (location, message) = split_diagnostic(&e.to_string());
            PolicyError::Parse {
                location: if location.is_empty() { shown } else { location },
                message,
            }
        })
}

fn merged_data(sources: &Sources) -> Result<Value, PolicyError> {
    if sources.data.is_empty() {
        return Ok(Value::new_object());
    }
    let data_only = Sources {
        data: sources.data.clone(),
        ..Sources::default()
    };
    Ok(build_engine(&data_only, false, &Limits::default())?.get_data())
}

/// The entry points some module declares, in [`ENTRY_POINTS`] order.
fn declared_entries(engine: &Engine, sources: &Sources) -> Vec<String> {
    ENTRY_POINTS
        .iter()
        .filter(|name| {
            sources.modules.iter().any(|file| {
                let path = file.path.display().to_string();
                engine
                    .has_declared_rule_rooted_at(&path, name)
                    .unwrap_or(false)
            })
        })
        .map(|name| (*name).to_string())
        .collect()
}

/// Require `allow` (or, without it, `deny_reasons` or `approval_reasons`) and run regorus's
/// analysis (unsafe variables, unknown functions, …).
fn prepare(engine: &mut Engine, entries: &[String]) -> Result<(), PolicyError> {
    let Some(first) = entries
        .iter()
        .find(|e| REQUIRED_ONE_OF.contains(&e.as_str()))
    else {
        return Err(PolicyError::Undefined {
            message: "no module defines data.honey.allow (or deny_reasons, approval_reasons)"
                .to_string(),
        });
    };
    engine
        .compile_with_entrypoint(&entry_path(first).into())
        .map(|_| ())
        .map_err(|e| {
            let (location, message) = split_diagnostic(&e.to_string());
            PolicyError::Compile { location, message }
        })
}

/// How long [`validate`] may run: a policy's rules on an empty input take microseconds; one that
/// takes longer is left to the RVM's instruction budget (the interpreter counts no work, so
/// its clock must not decide).
const VALIDATE_TIMEOUT: Duration = Duration::from_secs(1);

/// Evaluate every rule once on an empty input with the interpreter, which reports recursion
/// and unconditional conflicts that the RVM would turn into a crash or an undefined. Running out
/// of [`VALIDATE_TIMEOUT`] is not an error: the static rule-cycle check already excluded
/// recursion, and the RVM's own bounds decide.
fn validate(engine: &Engine) -> Result<(), PolicyError> {
    let mut engine = engine.clone();
    engine.set_input(Value::new_object());
    let limits = Limits {
        timeout: VALIDATE_TIMEOUT,
        ..Limits::default()
    };
    engine.set_execution_timer_config(timer(&limits));
    match engine.eval_modules(false) {
        Ok(_) => Ok(()),
        Err(e) => match interpreter_error(&e, &limits) {
            PolicyError::Timeout { .. } => Ok(()),
            other => Err(other),
        },
    }
}

/// Compile the RVM program: entry point 0 is the combined rule over the declared `entries`,
/// followed by the declared entries themselves (which record, in the cached program, what the
/// policy declares). An error is a policy the RVM cannot run: `policy.unsupported`.
fn compile_combined(engine: &Engine, entries: &[String]) -> Result<Arc<Program>, String> {
    let mut engine = engine.clone();
    engine
        .add_policy(
            entry::COMBINED_FILE.to_string(),
            entry::combined_module(entries),
        )
        .map_err(|e| e.to_string())?;
    let combined = entry::combined_path();
    let mut paths = vec![combined.clone()];
    paths.extend(entries.iter().map(|e| entry_path(e)));
    let path_refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let compiled = engine
        .compile_with_entrypoint(&combined.as_str().into())
        .map_err(|e| e.to_string())?;
    let mut program =
        Compiler::compile_from_policy(&compiled, &path_refs).map_err(|e| e.to_string())?;
    // The VM never reads the Rego sources a program carries, nor the source span of each
    // instruction (they serve listings and the recompiling of a partial program, which the cache
    // refuses): without them the cached file is a quarter of the size, and every command reads,
    // hashes and decodes it.
    if let Some(program) = Arc::get_mut(&mut program) {
        program.sources = Vec::new();
        program.instruction_spans = Vec::new();
    }
    Ok(program)
}

fn timer(limits: &Limits) -> ExecutionTimerConfig {
    ExecutionTimerConfig {
        limit: limits.timeout,
        check_interval: NonZeroU32::MIN.saturating_add(63),
    }
}

/// Classify an interpreter error (regorus's `anyhow::Error`, seen through its `Deref`).
fn interpreter_error<E>(error: &E, limits: &Limits) -> PolicyError
where
    E: std::ops::Deref<Target = dyn std::error::Error + Send + Sync + 'static>,
{
    let top: &(dyn std::error::Error + 'static) = &**error;
    let mut text = String::new();
    let mut timed_out = false;
    let mut cause = Some(top);
    while let Some(current) = cause {
        timed_out |= matches!(
            current.downcast_ref::<regorus::LimitError>(),
            Some(regorus::LimitError::TimeLimitExceeded { .. })
        );
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&current.to_string());
        cause = current.source();
    }
    if timed_out {
        return PolicyError::Timeout {
            limit_ms: limits.timeout.as_millis(),
        };
    }
    let (location, message) = split_diagnostic(&text);
    if text.contains("recursion detected") {
        PolicyError::Recursion { location, message }
    } else if text.contains("could not find function") || text.contains("unsafe") {
        PolicyError::Compile { location, message }
    } else if text.contains("conflicts with rule") || text.contains("multiple outputs") {
        PolicyError::Conflict { location, message }
    } else {
        PolicyError::Eval { location, message }
    }
}

fn vm_error(error: VmError, limits: &Limits) -> PolicyError {
    match error {
        VmError::InstructionLimitExceeded { limit, .. } => PolicyError::Budget { limit },
        VmError::TimeLimitExceeded { .. } => PolicyError::Timeout {
            limit_ms: limits.timeout.as_millis(),
        },
        VmError::RuleDataConflict { message, .. } => PolicyError::Conflict {
            location: String::new(),
            message,
        },
        other => PolicyError::Eval {
            location: String::new(),
            message: other.to_string(),
        },
    }
}
