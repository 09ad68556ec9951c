//! Integer constant expressions as a preprocessor or a `constexpr` declaration writes them:
//! `(1U << LOG2_WARP_SIZE)`, `WARP_SIZE - 1`, `kIndexGroupSize`, `2 * 16`. The names are
//! looked up by the caller (the file's constants, then those of the headers it includes), so
//! `#define WARP_SIZE (1U << LOG2_WARP_SIZE)` after `#define LOG2_WARP_SIZE 5` is worth 32.
//!
//! Only what is certain evaluates: a name the lookup does not know, a cast, a call, a negative
//! intermediate, an overflow or a division by zero gives `None`, never a guess.

use super::project::Constant;

/// The value of `text` with `lookup` giving the names' values: [`super::cond::eval`] over the
/// text's tokens, with `defined` unknown and a negative value (`~0u`, `1 - 2`: the type decides)
/// not a constant here.
pub fn eval(text: &str, lookup: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
    let toks = tokens(text)?;
    let look = |name: &str, how: super::cond::Use| match how {
        super::cond::Use::Value => lookup(name).and_then(|v| i64::try_from(v).ok()),
        super::cond::Use::Defined => None,
    };
    let v = super::cond::eval(&toks, &look)?;
    u64::try_from(v).ok()
}

/// The operators, longest first.
const OPS: [&str; 25] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "+", "-", "*", "/", "%", "&", "|",
    "^", "~", "!", "<", ">", "?", ":", ",",
];

/// Numbers (with their suffixes), names and operators; `None` on anything else (a string, a
/// `.`, `::`, `[`).
fn tokens(text: &str) -> Option<Vec<&str>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let j = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            (i..b.len())
                .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_'))
                .unwrap_or(b.len())
        } else {
            let op = OPS.iter().find(|o| text[i..].starts_with(**o))?;
            if *op == ":" && b.get(i + 1) == Some(&b':') {
                return None;
            }
            i + op.len()
        };
        out.push(&text[i..j]);
        i = j;
    }
    let opens = out.iter().filter(|t| **t == "(").count();
    let balanced = opens == out.iter().filter(|t| **t == ")").count();
    (!out.is_empty() && balanced).then_some(out)
}

/// `const`/`constexpr` … NAME `=` integer `;` (or `,`) with NAME at `code[k]`.
/// Also a function that only returns an integer: NAME `( ) [const|noexcept] { return` integer
/// `; }` after a type word (`constexpr int WarpThreads() { return 32; }`).
pub(crate) fn declared(
    bytes: &[u8],
    lexed: &crate::lex::Lexed,
    code: &[usize],
    k: usize,
) -> Option<Constant> {
    let text = |n: usize| code.get(n).map(|&i| lexed.tokens[i].text(bytes));
    if text(k + 1)? == b"(" && text(k + 2)? == b")" {
        let typed = k
            .checked_sub(1)
            .is_some_and(|p| lexed.tokens[code[p]].kind == crate::lex::Tok::Ident);
        let mut n = k + 3;
        while matches!(text(n)?, b"const" | b"noexcept") {
            n += 1;
        }
        if !typed
            || text(n)? != b"{"
            || text(n + 1)? != b"return"
            || text(n + 3)? != b";"
            || text(n + 4)? != b"}"
        {
            return None;
        }
        let value = crate::model::syntax::int_value(std::str::from_utf8(text(n + 2)?).ok()?)?;
        return Some(Constant {
            name: String::from_utf8_lossy(text(k)?).into_owned(),
            line: 0,
            value,
        });
    }
    if text(k + 1)? != b"=" || !matches!(text(k + 3)?, b";" | b",") {
        return None;
    }
    let value = crate::model::syntax::int_value(std::str::from_utf8(text(k + 2)?).ok()?)?;
    let mut back = k;
    let mut qualified = false;
    for _ in 0..8 {
        let Some(b) = back.checked_sub(1) else { break };
        back = b;
        match text(back)? {
            b"const" | b"constexpr" => qualified = true,
            b";" | b"{" | b"}" | b"(" | b")" | b"=" => break,
            _ => {}
        }
    }
    let name = String::from_utf8_lossy(text(k)?).into_owned();
    qualified.then_some(Constant {
        name,
        line: 0,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::eval;

    fn known(n: &str) -> Option<u64> {
        match n {
            "LOG2_WARP_SIZE" => Some(5),
            "WARP_SIZE" => Some(32),
            _ => None,
        }
    }

    #[test]
    fn expressions_of_known_names_evaluate() {
        assert_eq!(eval("(1U << LOG2_WARP_SIZE)", &known), Some(32));
        assert_eq!(eval("WARP_SIZE - 1", &known), Some(31));
        assert_eq!(eval("(WARP_SIZE-1)", &known), Some(31));
        assert_eq!(eval("2 * 16 + 0x10", &known), Some(48));
        assert_eq!(eval("1 << 2 + 3", &known), Some(32));
        assert_eq!(eval("(1024 / WARP_SIZE) % 7", &known), Some(4));
        assert_eq!(eval("0xffffffffu", &known), Some(0xffff_ffff));
    }

    #[test]
    fn anything_uncertain_gives_none() {
        assert_eq!(eval("WARP_SIZE - UNKNOWN", &known), None);
        assert_eq!(eval("warpSize", &known), None);
        assert_eq!(eval("-1", &known), None);
        assert_eq!(eval("~0u", &known), None);
        assert_eq!(eval("1 - 2", &known), None);
        assert_eq!(eval("4 / 0", &known), None);
        assert_eq!(eval("(uint32_t)32", &known), None);
        assert_eq!(eval("f(32)", &known), None);
        assert_eq!(eval("ns::WARP_SIZE", &known), None);
        assert_eq!(eval("\"32\"", &known), None);
        assert_eq!(eval("(32", &known), None);
        assert_eq!(eval("", &known), None);
        assert_eq!(eval("1 << 70", &known), None);
        assert_eq!(eval("defined(WARP_SIZE)", &known), None);
    }
}
