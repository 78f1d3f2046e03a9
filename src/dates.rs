//! Calendar dates of Unix times, in UTC: PDN's `Date` tag, the events' timestamps and the
//! games archive's.

use std::time::{SystemTime, UNIX_EPOCH};

/// Year, month (1-12) and day (1-31) of `time`, and the milliseconds into its day.
pub fn utc_date(time: SystemTime) -> ((i64, u32, u32), i64) {
    let ms = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis()) as i64;
    (civil(ms.div_euclid(86_400_000)), ms.rem_euclid(86_400_000))
}

/// `time` as RFC 3339 in UTC with milliseconds: `2026-12-02T01:05:09.042Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let ((y, m, d), ms) = utc_date(time);
    let s = ms / 1000;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// Now as [`rfc3339`] writes it.
pub fn rfc3339_now() -> String {
    rfc3339(SystemTime::now())
}

/// The proleptic Gregorian date of `days` since 1970-01-01, counted in 400-year eras of
/// 146,097 days whose years start on March 1 (so a leap day ends its year).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn days_and_milliseconds_of_known_times() {
        let at = |secs: u64, ms: u64| {
            utc_date(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(ms))
        };
        assert_eq!(at(0, 0), ((1970, 1, 1), 0));
        assert_eq!(at(951_868_799, 999), ((2000, 2, 29), 86_399_999));
        assert_eq!(at(951_868_800, 0), ((2000, 3, 1), 0));
        assert_eq!(at(4_107_542_399, 0), ((2100, 2, 28), 86_399_000));
        assert_eq!(at(4_107_542_400, 0), ((2100, 3, 1), 0));
    }

    #[test]
    fn every_day_of_four_centuries_follows_the_one_before() {
        let mut prev = civil(-1);
        assert_eq!(prev, (1969, 12, 31));
        for days in 0..146_097 {
            let (y, m, d) = civil(days);
            let next_day = (y, m, d) == (prev.0, prev.1, prev.2 + 1);
            let next_month = (y, m, d) == (prev.0, prev.1 + 1, 1);
            let next_year = (y, m, d) == (prev.0 + 1, 1, 1) && prev.1 == 12 && prev.2 == 31;
            assert!(next_day || next_month || next_year, "{prev:?} then {days}");
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
            let len = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            if next_month || next_year {
                assert_eq!(prev.2, len[prev.1 as usize - 1], "{prev:?} ends its month");
            }
            prev = (y, m, d);
        }
    }
}
