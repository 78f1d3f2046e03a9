//! Closed sets of names: the enums people choose by name (`--game othello`, `search=gumbel`,
//! `--openings all`). `named_enum!` declares one with its names and help once; the command
//! line lists them from [`Named`], and text parses through `FromStr`.

/// An enum chosen by name.
pub trait Named: Sized + Copy + 'static {
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];

    /// The name people type.
    fn name(self) -> &'static str;

    /// One line on what it is.
    fn help(self) -> &'static str;
}

/// A name that is none of an enum's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{got:?}: expected {expected}")]
pub struct UnknownName {
    got: String,
    expected: String,
}

/// The value `text` names (any case, spaces around ignored).
pub fn parse_name<T: Named>(text: &str) -> Result<T, UnknownName> {
    let wanted = text.trim();
    T::ALL
        .iter()
        .copied()
        .find(|v| v.name().eq_ignore_ascii_case(wanted))
        .ok_or_else(|| UnknownName {
            got: text.to_string(),
            expected: T::ALL
                .iter()
                .map(|v| v.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Declares an enum whose variants people choose by name, each with its doc line as help:
/// `named_enum! { /// doc  pub enum E { /// help  A = "a" (default), /// help  B = "b" } }`
/// (`(default)` marks the variant `#[derive(Default)]` picks). It derives Clone, Copy, Debug,
/// PartialEq and Eq, and implements [`Named`], `Display` and `FromStr`; further attributes
/// (serde's, Default) are passed on.
macro_rules! named_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $( $(#[doc = $doc:literal])+ $variant:ident = $text:literal $(($default:ident))? ),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $(#[$default])? $variant ),+
        }

        impl $name {
            /// Every name, in the order of the variants.
            $vis const NAMES: &'static [&'static str] = &[$($text),+];

            /// The name people type.
            $vis fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl $crate::names::Named for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn name(self) -> &'static str {
                $name::name(self)
            }

            fn help(self) -> &'static str {
                match self { $($name::$variant => concat!($($doc),+).trim_ascii()),+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::names::Named::name(*self))
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::names::UnknownName;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                $crate::names::parse_name(text)
            }
        }
    };
}
pub(crate) use named_enum;

/// Serialises a value as its text (`Display`) in config files and run states, and reads it
/// back through `FromStr`: a [`named_enum!`] whose names are not serde's spelling of its
/// variants, or a list kept on disk as the line people write.
macro_rules! serde_as_text {
    ($name:ty) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use serde_as_text;

#[cfg(test)]
mod tests {
    use super::*;

    named_enum! {
        /// A test enum.
        enum Colour {
            /// The colour of the sky.
            Blue = "blue",
            /// Two words.
            DarkRed = "dark-red",
        }
    }

    #[test]
    fn names_parse_print_and_explain() {
        assert_eq!(" Dark-Red ".parse::<Colour>(), Ok(Colour::DarkRed));
        assert_eq!(Colour::Blue.to_string(), "blue");
        assert_eq!(Colour::NAMES, ["blue", "dark-red"]);
        assert_eq!(Colour::Blue.help(), "The colour of the sky.");
        assert_eq!(
            "green".parse::<Colour>().unwrap_err().to_string(),
            "\"green\": expected blue, dark-red"
        );
    }
}
