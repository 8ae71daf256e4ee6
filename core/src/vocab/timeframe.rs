//! A `timeframe` as agents write it: a span back from now (`7d`, `2 weeks`,
//! `24h`, `3 months ago`), `today`, `yesterday`, or a date or time from
//! which on (`2026-11-01`, `2026-11-01T09:00:00Z`). Checked when the input
//! is parsed; turned into a moment when the command runs.

use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, macros::format_description};

/// When a timeframe starts, before the clock is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeframe {
    /// This many seconds back from now.
    Span(u64),
    /// The start of the day this many days before today (0: today), UTC.
    Days(u64),
    /// A fixed moment: seconds since the epoch.
    Since(u64),
}

/// What `timeframe` takes, for messages.
pub const ACCEPTED: &str = "a span back from now such as \"7d\", \"2 weeks\", \"24h\" or \
                            \"1 month\", \"today\", \"yesterday\", or a date such as \
                            \"2026-11-01\" (UTC)";

const DAY: u64 = 86_400;

impl Timeframe {
    /// Reads a timeframe; `None` when it is none of the forms above.
    pub fn parse(text: &str) -> Option<Timeframe> {
        let text = text.trim().to_lowercase();
        let text = text.strip_suffix(" ago").unwrap_or(&text).trim();
        match text {
            "today" => return Some(Timeframe::Days(0)),
            "yesterday" => return Some(Timeframe::Days(1)),
            "last week" => return Some(Timeframe::Span(7 * DAY)),
            "last month" => return Some(Timeframe::Span(30 * DAY)),
            _ => {}
        }
        if let Some(moment) = moment(text) {
            return Some(Timeframe::Since(moment));
        }
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let count: u64 = text[..digits].parse().ok()?;
        let unit = match text[digits..].trim() {
            "s" | "sec" | "secs" | "second" | "seconds" => 1,
            "m" | "min" | "mins" | "minute" | "minutes" => 60,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600,
            "d" | "day" | "days" => DAY,
            "w" | "wk" | "wks" | "week" | "weeks" => 7 * DAY,
            "mo" | "month" | "months" => 30 * DAY,
            "y" | "yr" | "yrs" | "year" | "years" => 365 * DAY,
            _ => return None,
        };
        Some(Timeframe::Span(count.saturating_mul(unit)))
    }

    /// The moment it starts, in seconds since the epoch, when it is `now`.
    pub fn since(self, now: u64) -> u64 {
        match self {
            Timeframe::Span(seconds) => now.saturating_sub(seconds),
            Timeframe::Days(days) => (now - now % DAY).saturating_sub(days.saturating_mul(DAY)),
            Timeframe::Since(moment) => moment,
        }
    }
}

/// When a fact written `valid_until: TEXT` stops holding, in seconds since
/// the epoch: after the whole day of a date (UTC), at the moment of an RFC
/// 3339 time; `None` when `text` is neither.
pub fn until(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Ok(t) = OffsetDateTime::parse(text, &Rfc3339) {
        return Some(u64::try_from(t.unix_timestamp()).unwrap_or(0));
    }
    moment(text).map(|midnight| midnight.saturating_add(DAY))
}

/// A date (midnight UTC) or an RFC 3339 time, in seconds since the epoch
/// (times before 1970 count as 0).
fn moment(text: &str) -> Option<u64> {
    let seconds = if let Ok(t) = OffsetDateTime::parse(text, &Rfc3339) {
        t.unix_timestamp()
    } else {
        let date = Date::parse(text, format_description!("[year]-[month]-[day]")).ok()?;
        date.midnight().assume_utc().unix_timestamp()
    };
    Some(u64::try_from(seconds).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_days_and_dates() {
        let now = 1_795_000_000; // 2026-11-18T11:06:40Z
        let since = |t: &str| Timeframe::parse(t).map(|t| t.since(now));
        assert_eq!(since("7d"), Some(now - 7 * DAY));
        assert_eq!(since("2 weeks"), Some(now - 14 * DAY));
        assert_eq!(since("24h"), Some(now - 86_400));
        assert_eq!(since("3 Months ago"), Some(now - 90 * DAY));
        assert_eq!(since("today"), Some(1_794_960_000));
        assert_eq!(since("yesterday"), Some(1_794_960_000 - DAY));
        assert_eq!(since("2026-11-01"), Some(1_793_491_200));
        assert_eq!(
            since("2026-11-01T12:00:00+02:00"),
            Some(1_793_491_200 + 36_000)
        );
        assert_eq!(since("1900-01-01"), Some(0));
        assert_eq!(since("99999999999y"), Some(0));
        for bad in ["", "soon", "7 fortnights", "-3d", "d", "2026-13-01"] {
            assert_eq!(Timeframe::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_fact_holds_through_its_valid_until_day_or_up_to_its_moment() {
        assert_eq!(until("2026-11-01"), Some(1_793_491_200 + DAY));
        assert_eq!(
            until(" 2026-11-01T12:00:00Z "),
            Some(1_793_491_200 + 43_200)
        );
        for bad in ["", "soon", "7d", "2026-13-01"] {
            assert_eq!(until(bad), None, "{bad}");
        }
    }
}
