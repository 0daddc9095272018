//! The link of the guarded-sh binary reads build/symbol-order.txt and build/rodata-order.ld
//! (passed by build/static.sh): a new layout must relink it, so both are inputs of the build.

fn main() {
    println!("cargo::rerun-if-changed=build/symbol-order.txt");
    println!("cargo::rerun-if-changed=build/rodata-order.ld");
    println!("cargo::rerun-if-changed=build.rs");
}
