//! One way to declare a closed vocabulary (categories, statuses, phases, gates, decisions): a
//! single list of `Variant = "word"` pairs from which the enum, `ALL`, `as_str`, `parse`,
//! `Display` and the serde form are all generated, so a variant cannot be forgotten in one of
//! them. The words are contracts (JSON, SARIF, baselines, the migration record): add variants,
//! never rename words.

/// Declares a vocabulary enum. `parse` matches the words exactly (after trimming) unless the
/// declaration says `case_insensitive`.
///
/// ```ignore
/// vocabulary! {
///     /// Doc.
///     pub enum Colour [case_insensitive] { Red = "RED", Green = "GREEN" }
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident $([$ci:ident])? {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($word),+].len()] = [$($name::$variant),+];

            /// The contract word.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word ),+
                }
            }

            /// The variant a word names.
            pub fn parse(s: &str) -> Option<$name> {
                let s = s.trim();
                $name::ALL
                    .into_iter()
                    .find(|v| $crate::vocabulary!(@eq $($ci)? v.as_str(), s))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                $name::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| {
                        serde::de::Error::unknown_variant(&s, &[$($word),+])
                    })
            }
        }
    };
    (@eq case_insensitive $a:expr, $b:expr) => { $a.eq_ignore_ascii_case($b) };
    (@eq $a:expr, $b:expr) => { $a == $b };
}

#[cfg(test)]
mod tests {
    vocabulary! {
        /// A test vocabulary.
        enum Colour [case_insensitive] { Red = "RED", DarkGreen = "DARK-GREEN" }
    }
    vocabulary! {
        enum Exact { One = "one" }
    }

    #[test]
    fn one_list_gives_every_form() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkGreen]);
        assert_eq!(Colour::DarkGreen.to_string(), "DARK-GREEN");
        assert_eq!(Colour::parse(" dark-green "), Some(Colour::DarkGreen));
        assert_eq!(Exact::parse("ONE"), None);
        assert_eq!(Exact::parse("one"), Some(Exact::One));
        assert_eq!(serde_json::to_string(&Colour::Red).unwrap(), "\"RED\"");
        let c: Colour = serde_json::from_str("\"DARK-GREEN\"").unwrap();
        assert_eq!(c, Colour::DarkGreen);
        // serde is exact, as derived serde was.
        assert!(serde_json::from_str::<Colour>("\"red\"").is_err());
        let e = serde_json::from_str::<Colour>("\"BLUE\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("RED") && e.contains("DARK-GREEN"), "{e}");
    }
}
