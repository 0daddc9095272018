//! The link of the guarded-sh binary reads build/symbol-order.txt (passed by build/static.sh):
//! a new layout must relink it, so the file is declared an input of the build.

fn main() {
    println!("cargo::rerun-if-changed=build/symbol-order.txt");
    println!("cargo::rerun-if-changed=build.rs");
}
