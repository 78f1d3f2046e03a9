//! Settings declared once: `settings!` declares a struct whose fields are keys, each with
//! its help and default. The command line makes a flag of each key from [`Keys::KEYS`]
//! (`--max-plies`, its help, its default) and reads the flags through serde, as a config
//! file's keys are read, so a default is written in one place only.

use crate::names::Named;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;

/// One key of a settings struct.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The field's name: `the_name` in a config file, `--the-name` as a flag.
    pub name: &'static str,
    /// The field's doc comment.
    pub help: &'static str,
    /// The values it takes with their help, where its type is a named enum (else none).
    pub choices: fn() -> Vec<(&'static str, &'static str)>,
    /// Whether the command line offers it as a flag: not where the value is fixed, or where
    /// the command line reads it its own way (a default that depends on the game).
    pub flag: bool,
}

/// A struct whose keys people set by name. It reads through serde from an object of the keys
/// given; a key left out takes its value in [`Default`] (`#[serde(default)]`), which is also
/// the default the command line shows (none where that is `None`).
pub trait Keys: Default + Serialize + DeserializeOwned {
    const KEYS: &'static [Key];
}

/// What a key's type tells the command line: the values of a named enum.
pub trait KeyType {
    fn choices() -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
}

impl<T: Named> KeyType for T {
    fn choices() -> Vec<(&'static str, &'static str)> {
        T::ALL.iter().map(|v| (v.name(), v.help())).collect()
    }
}

impl KeyType for bool {}
impl KeyType for u32 {}
impl KeyType for u64 {}
impl KeyType for usize {}
impl KeyType for f32 {}
impl KeyType for Vec<usize> {}
impl KeyType for Option<PathBuf> {}
impl KeyType for Option<String> {}

/// One [`Key`] of field `$field: $ty` with its doc lines, and `no_flag` where the command
/// line does not offer it.
#[doc(hidden)]
macro_rules! key {
    ($field:ident, $ty:ty, [$($doc:literal),+] $(, $no_flag:ident)?) => {
        $crate::keys::Key {
            name: stringify!($field),
            help: concat!($($doc),+),
            choices: <$ty as $crate::keys::KeyType>::choices,
            flag: $crate::keys::key!(@flag $($no_flag)?),
        }
    };
    (@flag) => { true };
    (@flag no_flag) => { false };
}
pub(crate) use key;

/// Declares a settings struct, each field a key with its doc comment (its help) and its
/// default: `settings! { /// doc  pub struct S { /// help  depth: u32 = 4, } }`. A field
/// marked `(no_flag)` before its name is not offered as a flag. It derives serde (missing
/// keys take their defaults, unknown ones are refused) and implements `Default` and
/// [`Keys`]; further attributes are passed on. The fields keep their order, which is what
/// run states encoded by position depend on.
macro_rules! settings {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $( $(#[doc = $doc:literal])+ $(($no_flag:ident))? $field:ident : $ty:ty = $default:expr, )+
    }) => {
        $(#[$meta])*
        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        $vis struct $name {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )+ }
            }
        }

        impl $crate::keys::Keys for $name {
            const KEYS: &'static [$crate::keys::Key] = &[
                $( $crate::keys::key!($field, $ty, [$($doc),+] $(, $no_flag)?), )+
            ];
        }
    };
}
pub(crate) use settings;

#[cfg(test)]
mod tests {
    use super::*;

    crate::names::named_enum! {
        /// A test enum.
        #[derive(Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        enum Shape {
            /// Round.
            Circle = "circle",
            /// Four sides.
            Square = "square",
        }
    }

    settings! {
        /// Test settings.
        #[derive(Clone, Debug, PartialEq)]
        struct Example {
            /// How deep,
            /// in plies.
            depth: u32 = 4,
            /// The shape.
            shape: Shape = Shape::Square,
            /// Fixed.
            (no_flag) fixed: f32 = 1.5,
        }
    }

    #[test]
    fn keys_carry_help_choices_and_defaults() {
        let keys = Example::KEYS;
        assert_eq!(
            keys.iter().map(|k| (k.name, k.flag)).collect::<Vec<_>>(),
            [("depth", true), ("shape", true), ("fixed", false)]
        );
        assert_eq!(keys[0].help, " How deep, in plies.");
        assert_eq!((keys[0].choices)(), []);
        let choices = (keys[1].choices)();
        assert_eq!(choices, [("circle", "Round."), ("square", "Four sides.")]);
        assert!(choices.iter().map(|c| c.0).eq(Shape::NAMES.iter().copied()));
        let read: Example = serde_json::from_str(r#"{"shape": "circle"}"#).unwrap();
        assert_eq!(
            read,
            Example {
                shape: Shape::Circle,
                ..Example::default()
            }
        );
        assert!(serde_json::from_str::<Example>(r#"{"width": 1}"#).is_err());
    }
}
