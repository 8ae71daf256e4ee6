//! Turns a model2vec model directory into what the embedder compiles in: the
//! WordPiece vocabulary as an FST (read in place at run time, so no
//! `tokenizer.json` is parsed on a cold call), the embedding rows quantized
//! to int8 with a scale per row, and the model's settings as constants.
//!
//! The model is `MEMCAP_MODEL_DIR` when set (any model2vec directory with a
//! WordPiece tokenizer), else potion-base-2M from the crate `embed/model`
//! names, unpacked by `cargo metadata`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use safetensors::{Dtype, SafeTensors};
use serde_json::Value;

fn main() {
    println!("cargo:rerun-if-env-changed=MEMCAP_MODEL_DIR");
    println!("cargo:rerun-if-changed=model/Cargo.toml");
    println!("cargo:rerun-if-changed=model/Cargo.lock");
    let dir = match std::env::var_os("MEMCAP_MODEL_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => default_model(),
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let tokenizer = read_tokenizer(&dir);
    let (rows, dims) = write_rows(&dir, &out);
    assert!(
        tokenizer.vocab.values().all(|&id| (id as usize) < rows),
        "{}: the vocabulary names rows the embeddings do not have",
        dir.display()
    );

    let mut vocab = fst::MapBuilder::memory();
    for (token, id) in &tokenizer.vocab {
        vocab.insert(token, u64::from(*id)).unwrap();
    }
    std::fs::write(out.join("vocab.fst"), vocab.into_inner().unwrap()).unwrap();

    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model2vec".into());
    let settings = format!(
        "/// The model's name (its directory's).\npub const MODEL: &str = {name:?};\n\
         /// Dimensions of a vector.\npub const DIMS: usize = {dims};\n\
         /// Rows of the embedding matrix.\npub const ROWS: usize = {rows};\n\
         /// The unknown token's id (dropped from the mean, as model2vec does).\npub const UNK: Option<u32> = {unk:?};\n\
         /// Whether text is lowercased and its accents stripped.\npub const LOWERCASE: bool = {lower};\n\
         /// Longer words are unknown.\npub const MAX_WORD_CHARS: usize = {max_chars};\n",
        unk = tokenizer.unk,
        lower = tokenizer.lowercase,
        max_chars = tokenizer.max_word_chars,
    );
    std::fs::write(out.join("model.rs"), settings).unwrap();
}

/// potion-base-2M, from the crate `yantrikdb` 0.23.4 that `model/` depends
/// on: `cargo metadata` downloads and unpacks it (checksum from its lock).
fn default_model() -> PathBuf {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("model")
        .join("Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .arg("--manifest-path")
        .arg(&manifest)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("running cargo metadata to fetch the embedding model");
    assert!(
        output.status.success(),
        "cargo metadata for {} failed (it fetches the embedding model; set MEMCAP_MODEL_DIR to a model2vec directory instead):\n{}",
        manifest.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let crate_manifest = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "yantrikdb")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("cargo metadata lists yantrikdb");
    Path::new(crate_manifest)
        .parent()
        .unwrap()
        .join("assets")
        .join("potion-base-2M")
}

struct Tokenizer {
    vocab: BTreeMap<String, u32>,
    unk: Option<u32>,
    lowercase: bool,
    max_word_chars: usize,
}

/// The parts of `tokenizer.json` the embedder follows, refusing any other
/// kind of tokenizer rather than embedding with the wrong one.
fn read_tokenizer(dir: &Path) -> Tokenizer {
    let path = dir.join("tokenizer.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let json: Value = serde_json::from_str(&text).unwrap();
    let model = &json["model"];
    let wanted = |what: &str, value: &Value, expected: &str| {
        assert!(
            value == expected,
            "{}: {what} is {value}; the embedder supports {expected} (a BERT-style model2vec model)",
            path.display()
        )
    };
    wanted("the model type", &model["type"], "WordPiece");
    wanted(
        "the normalizer",
        &json["normalizer"]["type"],
        "BertNormalizer",
    );
    wanted(
        "the pre-tokenizer",
        &json["pre_tokenizer"]["type"],
        "BertPreTokenizer",
    );
    wanted(
        "the subword prefix",
        &model["continuing_subword_prefix"],
        "##",
    );
    let vocab: BTreeMap<String, u32> = model["vocab"]
        .as_object()
        .expect("a WordPiece vocabulary")
        .iter()
        .map(|(token, id)| (token.clone(), id.as_u64().unwrap() as u32))
        .collect();
    let unk = model["unk_token"]
        .as_str()
        .and_then(|t| vocab.get(t).copied());
    Tokenizer {
        unk,
        lowercase: json["normalizer"]["lowercase"].as_bool().unwrap_or(true),
        max_word_chars: model["max_input_chars_per_word"].as_u64().unwrap_or(100) as usize,
        vocab,
    }
}

/// Writes `rows.i8` (each row scaled to ±127) and `scales.f32` (each row's
/// scale, little-endian); returns (rows, dims).
fn write_rows(dir: &Path, out: &Path) -> (usize, usize) {
    let path = dir.join("model.safetensors");
    println!("cargo:rerun-if-changed={}", path.display());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let tensors = SafeTensors::deserialize(&bytes).unwrap();
    let names = tensors.names();
    assert!(
        names.iter().all(|n| *n == "embeddings"),
        "{}: tensors {names:?}; the embedder supports a plain `embeddings` matrix (no weights or token mapping)",
        path.display()
    );
    let embeddings = tensors.tensor("embeddings").unwrap();
    assert_eq!(
        embeddings.dtype(),
        Dtype::F32,
        "{}: the embedder supports F32 embeddings",
        path.display()
    );
    let [rows, dims] = embeddings.shape() else {
        panic!("{}: embeddings are not a matrix", path.display())
    };
    let (rows, dims) = (*rows, *dims);
    let values: Vec<f32> = embeddings
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let mut quantized = Vec::with_capacity(rows * dims);
    let mut scales = Vec::with_capacity(rows * 4);
    for row in values.chunks_exact(dims) {
        let largest = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        quantized.extend(row.iter().map(|v| (v / scale).round() as i8 as u8));
        scales.extend_from_slice(&scale.to_le_bytes());
    }
    std::fs::write(out.join("rows.i8"), quantized).unwrap();
    std::fs::write(out.join("scales.f32"), scales).unwrap();
    (rows, dims)
}
