//! Dates in the record: UTC `YYYY-MM-DDTHH:MM:SSZ` from the system clock, and ages in days,
//! with `jiff` doing the calendar arithmetic.

use jiff::civil::Date;
use jiff::Timestamp;

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now() -> String {
    format_unix(unix_now())
}

/// Seconds since the Unix epoch, from the system clock.
pub fn unix_now() -> i64 {
    Timestamp::now().as_second()
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (the epoch itself for a time jiff
/// cannot represent).
pub fn format_unix(secs: i64) -> String {
    Timestamp::from_second(secs)
        .unwrap_or(Timestamp::UNIX_EPOCH)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The calendar date of a `YYYY-MM-DD…` string.
fn parse_date(s: &str) -> Option<Date> {
    s.get(..10)?.parse().ok()
}

/// Days since 1970-01-01 of a `YYYY-MM-DD…` string.
pub fn parse_days(s: &str) -> Option<i64> {
    let span = Date::constant(1970, 1, 1).until(parse_date(s)?).ok()?;
    Some(i64::from(span.get_days()))
}

/// `3 days`, `today`, or `unknown` for an unreadable date.
pub fn age(date: &str) -> String {
    let today = jiff::tz::Offset::UTC.to_datetime(Timestamp::now()).date();
    match parse_date(date).and_then(|d| d.until(today).ok()) {
        None => "unknown".into(),
        Some(span) => match span.get_days() {
            n if n <= 0 => "today".into(),
            1 => "1 day".into(),
            n => format!("{n} days"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_dates() {
        assert_eq!(format_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(
            parse_days("2000-02-29T00:00:00Z"),
            Some(951_782_400 / 86_400)
        );
        assert_eq!(parse_days("nonsense"), None);
        assert_eq!(parse_days("2001-02-29"), None);
        assert_eq!(age(&now()), "today");
        assert_eq!(age("x"), "unknown");
        assert_eq!(
            age(&format_unix(Timestamp::now().as_second() - 3 * 86_400)),
            "3 days"
        );
    }
}
