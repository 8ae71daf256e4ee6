//! The notes both graph benchmarks write (`core/benches/graph_update.rs`,
//! `host/benches/graph.rs`): three observations and five relations each,
//! to notes picked at random but the same on every run; every tenth note's
//! last relation is to a note nobody wrote.

pub const RELATION_TYPES: [&str; 5] =
    ["depends_on", "relates_to", "part_of", "owned_by", "follows"];

/// Note `i` of a store of `notes` (titled `Topic {i}`, permalink
/// `topics/topic-{i}`), its first relation of type `first_type`.
pub fn text(i: usize, notes: usize, first_type: &str) -> String {
    // xorshift, seeded by the note: the same note on every call.
    let mut state = 0x2545_f491_4f6c_dd1d ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut below = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut text = format!(
        "---\ntitle: Topic {i}\ntype: note\npermalink: topics/topic-{i}\n---\n\n\
         ## Observations\n- [fact] Topic {i} was measured on day {} #metrics\n\
         - [decision] Keep topic {i} in area {} #area{} (agreed)\n\
         - [idea] Link topic {i} to its neighbours\n\n## Relations\n",
        i % 365,
        i % 50,
        i % 50
    );
    for (r, kind) in RELATION_TYPES.iter().enumerate() {
        let kind = if r == 0 { first_type } else { kind };
        let target = if r == 4 && i.is_multiple_of(10) {
            format!("Missing {i}")
        } else {
            format!("Topic {}", below(notes))
        };
        text.push_str(&format!("- {kind} [[{target}]]\n"));
    }
    text
}
