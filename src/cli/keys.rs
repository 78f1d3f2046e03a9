//! A flag for each key of a settings struct (part of the binary): `--max-plies 100` for the
//! key `max_plies`, with the key's help, its named values and its default, all from
//! [`Keys::KEYS`] and the struct's `Default`. The flags given are read as a config file's keys
//! are, through serde.

use checkers_zero::keys::Keys;
use checkers_zero::train::errors::TrainError;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::error::ErrorKind;
use serde_json::Value;

/// What the command line must know of a settings struct beyond its keys.
pub trait KeyRules: Keys {
    /// Whether a resumed run keeps the settings it started with, so that a flag given with
    /// `--resume` is refused (the classic learners), or takes the flags given (`train`).
    const KEEPS_ITS_OWN: bool;

    /// Why the settings cannot run, checked as the flags are read (`train` checks its keys
    /// once preset, file and flags are resolved).
    fn check(&self) -> Result<(), TrainError> {
        Ok(())
    }
}

/// The settings the flags give: the struct's defaults where a flag is left out.
#[derive(Clone, Debug, Default)]
pub struct KeyFlags<S>(pub S);

impl<S: KeyRules> KeyFlags<S> {
    fn flag(key: &str) -> String {
        key.replace('_', "-")
    }

    /// Each key's default as JSON (null where the struct leaves it unset).
    fn defaults() -> serde_json::Map<String, Value> {
        // Through text, so a float is the shortest decimal of its own type (0.15, not the
        // f64 nearest the f32).
        let text = serde_json::to_string(&S::default()).expect("settings are plain data");
        match serde_json::from_str(&text) {
            Ok(Value::Object(keys)) => keys,
            _ => unreachable!("a settings struct is a JSON object"),
        }
    }

    /// A key off by default is a switch (`--ballots`); every other takes a value.
    fn is_switch(default: Option<&Value>) -> bool {
        default == Some(&Value::Bool(false))
    }

    /// A default as people type it: `0.15`, `1`, `leaf`, `40,10`; none for null.
    fn shown(value: &Value) -> Option<String> {
        match value {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            Value::Number(n) if n.is_f64() => n.as_f64().map(|x| x.to_string()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(Self::shown)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            other => Some(other.to_string()),
        }
    }

    /// One key's value: a number or boolean where the key takes one, a list of numbers
    /// where it takes a list (`40,10`), else the text.
    fn value(key: &str, text: &str) -> Result<Value, clap::Error> {
        let typed = serde_json::from_str::<Value>(text)
            .ok()
            .filter(|v| v.is_number() || v.is_boolean());
        let numbers = text
            .split(',')
            .map(|item| {
                serde_json::from_str::<Value>(item.trim())
                    .ok()
                    .filter(Value::is_number)
            })
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
        let mut last = None;
        for value in typed.into_iter().chain(numbers).chain([Value::from(text)]) {
            let one = serde_json::json!({ key: value.clone() });
            match serde_json::from_value::<S>(one) {
                Ok(_) => return Ok(value),
                Err(e) => last = Some(e),
            }
        }
        let e = last.expect("at least the text was tried");
        Err(clap::Error::raw(
            ErrorKind::ValueValidation,
            format!("--{} {text:?}: {e}", Self::flag(key)),
        ))
    }
}

impl<S: KeyRules> clap::FromArgMatches for KeyFlags<S> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let defaults = Self::defaults();
        let mut keys = serde_json::Map::new();
        for key in S::KEYS.iter().filter(|k| k.flag) {
            let name = key.name;
            if Self::is_switch(defaults.get(name)) {
                keys.insert(name.into(), matches.get_flag(name).into());
            } else if let Some(text) = matches.get_one::<String>(name) {
                keys.insert(name.into(), Self::value(name, text)?);
            }
        }
        // clap's errors hold a message, not a source: the cause goes in as its text.
        let invalid =
            |e: &dyn std::fmt::Display| clap::Error::raw(ErrorKind::ValueValidation, e.to_string());
        let settings: S = serde_json::from_value(keys.into()).map_err(|e| invalid(&e))?;
        settings.check().map_err(|e| invalid(&e))?;
        Ok(KeyFlags(settings))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<S: KeyRules> clap::Args for KeyFlags<S> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let defaults = Self::defaults();
        S::KEYS.iter().filter(|k| k.flag).fold(cmd, |cmd, key| {
            // As clap's derive does: one sentence ends without its full stop.
            let help = key.help.trim();
            let help = help.strip_suffix('.').unwrap_or(help).to_string();
            let mut arg = clap::Arg::new(key.name)
                .long(Self::flag(key.name))
                .help(help);
            if S::KEEPS_ITS_OWN {
                arg = arg.conflicts_with("resume");
            }
            let default = defaults.get(key.name);
            if Self::is_switch(default) {
                return cmd.arg(arg.action(clap::ArgAction::SetTrue));
            }
            arg = arg.value_name(key.name.to_ascii_uppercase());
            let choices = (key.choices)();
            if !choices.is_empty() {
                let values = choices
                    .into_iter()
                    .map(|(name, help)| PossibleValue::new(name).help(help));
                arg = arg.value_parser(PossibleValuesParser::new(values));
            }
            if let Some(text) = default.and_then(Self::shown) {
                arg = arg.default_value(text);
            }
            cmd.arg(arg)
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}
