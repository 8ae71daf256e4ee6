//! Never built: this package only names the crate that carries the model (see Cargo.toml).
