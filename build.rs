//! Names the build: the crate's version and the embedded international
//! network (its name from `src/engine/eval/nn.name`, the first 32 bits of
//! the FNV-1a checksum of `nn.bin`), so that `dammer --version` and the Hub
//! `id` line say which network plays. Uses nothing but std.

use std::fs;

fn main() {
    let net = "src/engine/eval/nn.bin";
    let name_file = "src/engine/eval/nn.name";
    println!("cargo:rerun-if-changed={net}");
    println!("cargo:rerun-if-changed={name_file}");
    let bytes = fs::read(net).unwrap_or_else(|e| panic!("{net}: {e}"));
    // base::checksum's FNV-1a (a build script cannot use the crate it
    // builds); engine::tests checks that the two agree.
    let sum =
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let raw = fs::read_to_string(name_file).unwrap_or_default();
    // Semver build metadata allows [0-9A-Za-z-] only.
    let name: String = raw.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let name = if name.is_empty() { "nn".to_string() } else { name };
    let network = format!("{name}.{:08x}", sum >> 32);
    println!("cargo:rustc-env=DAMMER_NETWORK={network}");
    println!("cargo:rustc-env=DAMMER_VERSION={}+{network}", env!("CARGO_PKG_VERSION"));
}
