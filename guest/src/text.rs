//! Output formatting shared by the commands, byte for byte the SDK's.

/// Formats a size like the SDK's `_format_file_size`: `0B`, `1023B`, `1K`,
/// `1.5K`, capped at `G`, one decimal (round half to even) when not integral.
pub fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0B".to_owned();
    }
    let power = ((63 - bytes.leading_zeros()) / 10).min(3);
    let unit = ["B", "K", "M", "G"][power as usize];
    let value = bytes as f64 / 1024f64.powi(power as i32);
    if value.fract() == 0.0 {
        format!("{}{unit}", value as u64)
    } else {
        format!("{value:.1}{unit}")
    }
}

/// One numbered line: the number right-aligned in 6 columns, a TAB, the text.
pub fn push_numbered(out: &mut String, number: usize, line: &str) {
    use std::fmt::Write;
    let _ = write!(out, "{number:>6}\t{line}");
}

/// Numbers `lines`, the first being line `first`, joined by LF.
pub fn numbered<'a>(out: &mut String, first: usize, lines: impl IntoIterator<Item = &'a str>) {
    for (i, line) in lines.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_numbered(out, first + i, line);
    }
}

#[cfg(test)]
mod tests {
    use super::format_size;

    #[test]
    fn sizes_match_the_sdk_table() {
        let table = [
            (0, "0B"),
            (1, "1B"),
            (1023, "1023B"),
            (1024, "1K"),
            (1025, "1.0K"),
            (1126, "1.1K"),
            (1280, "1.2K"),
            (1331, "1.3K"),
            (1536, "1.5K"),
            (2048, "2K"),
            (3328, "3.2K"),
            (3840, "3.8K"),
            (4096, "4K"),
            (10240, "10K"),
            (1047552, "1023K"),
            (1048064, "1023.5K"),
            (1048575, "1024.0K"),
            (1048576, "1M"),
            (1572864, "1.5M"),
            (1073741823, "1024.0M"),
            (1073741824, "1G"),
            (1099511627776, "1024G"),
        ];
        for (bytes, shown) in table {
            assert_eq!(format_size(bytes), shown, "{bytes}");
        }
    }
}
