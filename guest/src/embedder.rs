//! The embedder port over the compiled-in model2vec model (`memcap-embed`):
//! no I/O, so the component stays one `.wasm` that any WASI host runs.

use memcap_core::search::embedder::Embedder;
use memcap_embed::StaticModel;

/// The compiled-in model, as the core's embedder.
pub struct CompiledModel(StaticModel);

impl CompiledModel {
    /// The model, unless the host turned vectors off (`MEMCAP_VECTORS=off`).
    pub fn unless_off(setting: Option<String>) -> Option<Self> {
        match setting.as_deref() {
            Some("off") => None,
            _ => Some(Self(StaticModel::load())),
        }
    }
}

impl Embedder for CompiledModel {
    fn model(&self) -> &str {
        memcap_embed::MODEL
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        self.0.embed(text)
    }
}
