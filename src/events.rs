//! What long-running commands report as it happens (an iteration done, an actor playing, a
//! record rejected, Redis lost and back): one line per event on stdout, as text or as JSON
//! lines (`--log-format json`), so that `docker logs -f` and log collectors show a stalled
//! actor or a lost Redis at once. Progress bars stay on stderr, and only on a terminal.

use crate::dates::rfc3339;
use crate::names::named_enum;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

named_enum! {
    /// How events are written.
    #[derive(Default)]
    pub enum LogFormat {
        /// One sentence a line: `learner: published model version 3 (...)`.
        Text = "text" (default),
        /// One JSON object a line: time (RFC 3339, UTC), source, event, message and the
        /// event's own fields.
        Json = "json",
    }
}

static JSON: AtomicBool = AtomicBool::new(false);

/// Sets the format of every event from now on (the command line does, once).
pub fn set_format(format: LogFormat) {
    JSON.store(format == LogFormat::Json, Ordering::Relaxed);
}

/// An event from `source` (`learner`, `actor p1`, `train`) of the kind `event`
/// (`published`, `redis down`), written by [`Event::say`].
pub fn event(source: impl Into<String>, event: &'static str) -> Event {
    Event {
        source: source.into(),
        event,
        fields: Map::new(),
    }
}

/// An event being described; [`Event::say`] writes it.
#[must_use = "an event is written by say()"]
pub struct Event {
    source: String,
    event: &'static str,
    fields: Map<String, Value>,
}

impl Event {
    /// Adds a field to the JSON line (text lines carry only the message).
    pub fn with(mut self, key: &str, value: impl Serialize) -> Event {
        self.fields.insert(key.to_string(), to_value(value));
        self
    }

    /// Adds every field of `record` (a struct or map), as its serde form names them.
    pub fn fields(mut self, record: impl Serialize) -> Event {
        match to_value(record) {
            Value::Object(map) => self.fields.extend(map),
            other => {
                self.fields.insert("value".into(), other);
            }
        }
        self
    }

    /// Writes the event with its message as one line on stdout. A stdout that cannot be
    /// written (closed by a log collector) does not stop the command.
    pub fn say(self, message: impl std::fmt::Display) {
        let line = self.line(
            &message.to_string(),
            JSON.load(Ordering::Relaxed),
            SystemTime::now(),
        );
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|_| out.flush());
    }

    fn line(self, message: &str, json: bool, time: SystemTime) -> String {
        if !json {
            return format!("{}: {message}", self.source);
        }
        let mut object = Map::new();
        object.insert("time".into(), rfc3339(time).into());
        object.insert("source".into(), self.source.into());
        object.insert("event".into(), self.event.into());
        object.insert("message".into(), message.into());
        for (k, v) in self.fields {
            object.entry(k).or_insert(v);
        }
        Value::Object(object).to_string()
    }
}

fn to_value(value: impl Serialize) -> Value {
    // Plain data (numbers, strings, records of them): serde_json fails only on maps with
    // keys that are not strings, which no event has; such a field is written as null.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: u64, ms: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(ms)
    }

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(at(0, 0)), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a year divisible by 400) and the day after.
        assert_eq!(rfc3339(at(951_782_400, 5)), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(at(951_868_799, 999)), "2000-02-29T23:59:59.999Z");
        assert_eq!(rfc3339(at(951_868_800, 0)), "2000-03-01T00:00:00.000Z");
        // 2100 is not a leap year: February 28 is followed by March 1.
        assert_eq!(rfc3339(at(4_107_542_399, 0)), "2100-02-28T23:59:59.000Z");
        assert_eq!(rfc3339(at(4_107_542_400, 0)), "2100-03-01T00:00:00.000Z");
        assert_eq!(rfc3339(at(1_796_173_509, 42)), "2026-12-02T01:05:09.042Z");
    }

    #[test]
    fn a_json_line_carries_the_event_and_its_fields_and_keeps_its_own_keys() {
        #[derive(Serialize)]
        struct Record {
            iteration: u32,
            loss: f64,
            message: &'static str,
        }
        let e = event("learner", "iteration")
            .fields(Record {
                iteration: 3,
                loss: 0.5,
                message: "a field may not replace the message",
            })
            .with("actor", "p1");
        let line = e.line("iteration 3/4 \"done\"", true, at(0, 0));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["time"], "1970-01-01T00:00:00.000Z");
        assert_eq!(v["source"], "learner");
        assert_eq!(v["event"], "iteration");
        assert_eq!(v["message"], "iteration 3/4 \"done\"");
        assert_eq!(v["iteration"], 3);
        assert_eq!(v["loss"], 0.5);
        assert_eq!(v["actor"], "p1");
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_text_line_is_the_source_and_the_message() {
        let line = event("actor p1", "waiting")
            .with("n", 1)
            .line("waiting", false, at(0, 0));
        assert_eq!(line, "actor p1: waiting");
    }
}
