#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use regorus::languages::rego::compiler::Compiler;
use regorus::rvm::RegoVM;
use regorus::{Engine, Value};

const P: &str = r#"package honey
import rego.v1
default allow := false
allow if count(deny_reasons) == 0
deny_reasons contains "x" if input.bad
requires contains "approval" if input.req
deny_reason := concat("; ", sort(deny_reasons))
"#;

#[test]
fn scratch() {
    let mut e = Engine::new();
    let pkg = e.add_policy("a.rego".into(), P.into()).unwrap();
    println!("pkg={pkg}");
    for r in ["allow", "decision", "requires", "deny_reason", "data.honey.allow", "deny_reasons"] {
        println!("{r}: {:?}", e.has_declared_rule_rooted_at("a.rego", r));
    }
    e.set_input(Value::from_json_str(r#"{"bad":true,"req":true}"#).unwrap());
    println!("interp requires {:?}", e.eval_rule("data.honey.requires".into()));
    println!("interp decision {:?}", e.eval_rule("data.honey.decision".into()));
    println!("interp allow {:?}", e.eval_rule("data.honey.allow".into()));
    let cp = e.compile_with_entrypoint(&"data.honey.allow".into()).unwrap();
    let prog = Compiler::compile_from_policy(&cp, &["data.honey.allow", "data.honey.requires", "data.honey.deny_reason"]).unwrap();
    let mut vm = RegoVM::new();
    vm.load_program(prog.clone());
    vm.set_data(Value::new_object()).unwrap();
    vm.set_input(Value::from_json_str(r#"{"bad":true,"req":true}"#).unwrap());
    for i in 0..3 { println!("rvm {i}: {:?}", vm.execute_entry_point_by_index(i)); }
    println!("missing ep: {:?}", Compiler::compile_from_policy(&cp, &["data.honey.decision"]).err().map(|e| e.to_string()));
    let bin = prog.serialize_binary().unwrap();
    println!("bin len {}", bin.len());
    // parse error
    let mut e2 = Engine::new();
    println!("parse err: {}", e2.add_policy("b.rego".into(), "package honey\nimport rego.v1\nallow if {\n  input.x ==\n}\n".into()).unwrap_err());
    let mut e3 = Engine::new();
    e3.add_policy("c.rego".into(), "package honey\nimport rego.v1\nallow := a\na := b\nb := a\n".into()).unwrap();
    println!("recursion: {:?}", e3.eval_rule("data.honey.allow".into()).map_err(|e| format!("{e:#}")));
    let mut e4 = Engine::new();
    e4.add_policy("d.rego".into(), "package honey\nimport rego.v1\ndeny_reason := \"a\" if input.x\n".into()).unwrap();
    e4.add_policy("e.rego".into(), "package honey\nimport rego.v1\ndeny_reason := \"b\" if input.x\nallow := true\n".into()).unwrap();
    e4.set_input(Value::from_json_str(r#"{"x":true}"#).unwrap());
    println!("conflict interp: {:?}", e4.eval_rule("data.honey.deny_reason".into()).map_err(|e| format!("{e:#}")));
    let cp4 = e4.compile_with_entrypoint(&"data.honey.allow".into()).unwrap();
    let prog4 = Compiler::compile_from_policy(&cp4, &["data.honey.allow", "data.honey.deny_reason"]).unwrap();
    let mut vm4 = RegoVM::new();
    vm4.load_program(prog4);
    vm4.set_input(Value::from_json_str(r#"{"x":true}"#).unwrap());
    println!("conflict rvm: {:?}", vm4.execute_entry_point_by_index(1));
    // with keyword
    let mut e5 = Engine::new();
    e5.add_policy("f.rego".into(), "package honey\nimport rego.v1\nallow if { x with input as {\"a\": 1} }\nx if input.a == 1\n".into()).unwrap();
    let cp5 = e5.compile_with_entrypoint(&"data.honey.allow".into()).unwrap();
    println!("with: {:?}", Compiler::compile_from_policy(&cp5, &["data.honey.allow"]).err().map(|e| e.to_string()));
    // interpreter timeout
    let mut e6 = Engine::new();
    e6.add_policy("g.rego".into(), "package honey\nimport rego.v1\nallow if { count([x | some i in numbers.range(1, 3000); some j in numbers.range(1, 3000); x := i * j]) > 0 }\n".into()).unwrap();
    e6.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig { limit: std::time::Duration::from_millis(20), check_interval: std::num::NonZeroU32::new(1).unwrap() });
    let t = std::time::Instant::now();
    let r = e6.eval_rule("data.honey.allow".into());
    println!("timeout: {:?} in {:?}", r.as_ref().map_err(|e| format!("{e:#}")), t.elapsed());
    if let Err(err) = &r { println!("downcast limit: {:?}", err.chain().find_map(|c| c.downcast_ref::<regorus::LimitError>())); }
}
