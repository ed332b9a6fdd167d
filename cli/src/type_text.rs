//! A checker for canonical type text (spec section 4), for `kiln hash`.
//!
//! It accepts exactly the grammar of spec 4 in its canonical form: no
//! whitespace except the one space after `struct` and `enum`, known
//! primitive names, balanced brackets, a tuple of two or more elements that
//! are not all equal (those are written `[T;N]`), `[T;N]` with `N >= 2`
//! and no leading zero, and `@NAME` only inside the struct or enum `NAME`.
//! A fault is reported with its 1-based column (in characters).

use std::fmt;

/// The primitive type names.
pub const PRIMS: [&str; 16] = [
    "bool", "i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128", "f32", "f64",
    "char", "str", "unit",
];

/// Nesting deeper than this is refused (a bound on recursion).
pub const MAX_DEPTH: usize = 256;

/// Why a text is not canonical type text, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeTextError {
    /// 1-based column, in characters, of the fault.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TypeTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for TypeTextError {}

/// Checks that `text` is one canonical type text.
///
/// # Errors
///
/// The first fault, with its column.
pub fn check_type_text(text: &str) -> Result<(), TypeTextError> {
    let mut p = Parser {
        s: text,
        pos: 0,
        names: Vec::new(),
        depth: 0,
    };
    p.ty()?;
    if p.pos < text.len() {
        return Err(p.err(p.pos, "text after the end of the type"));
    }
    Ok(())
}

/// Characters that delimit names.
fn is_structural(c: char) -> bool {
    matches!(
        c,
        '<' | '>' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | ':' | '@'
    ) || c.is_whitespace()
}

struct Parser<'a> {
    s: &'a str,
    /// Byte position.
    pos: usize,
    /// Enclosing struct/enum names (for `@NAME`).
    names: Vec<&'a str>,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, at: usize, msg: impl Into<String>) -> TypeTextError {
        let column = self.s.get(..at).map_or(at, |p| p.chars().count()) + 1;
        TypeTextError {
            column,
            message: msg.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.pos..).and_then(|r| r.chars().next())
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the text".to_string(),
            Some(c) if c.is_whitespace() => format!("whitespace {c:?}"),
            Some(c) => format!("{c:?}"),
        }
    }

    fn expect(&mut self, c: char) -> Result<(), TypeTextError> {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            Ok(())
        } else {
            Err(self.err(self.pos, format!("expected {c:?}, found {}", self.found())))
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// A run of name characters (possibly empty).
    fn word(&mut self) -> &'a str {
        let rest = self.s.get(self.pos..).unwrap_or("");
        let n = rest
            .char_indices()
            .find(|&(_, c)| is_structural(c))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += n;
        rest.get(..n).unwrap_or("")
    }

    fn name(&mut self, what: &str) -> Result<&'a str, TypeTextError> {
        let at = self.pos;
        let w = self.word();
        if w.is_empty() {
            return Err(self.err(at, format!("expected {what}, found {}", self.found())));
        }
        Ok(w)
    }

    /// The text of one type; returns its source slice (for equality).
    fn ty(&mut self) -> Result<&'a str, TypeTextError> {
        let start = self.pos;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(start, format!("nested deeper than {MAX_DEPTH}")));
        }
        match self.peek() {
            Some('(') => self.tuple()?,
            Some('[') => self.array()?,
            Some('@') => {
                self.pos += 1;
                let at = self.pos;
                let n = self.name("a struct or enum name after '@'")?;
                if !self.names.contains(&n) {
                    return Err(self.err(
                        at,
                        format!("@{n} does not name an enclosing struct or enum"),
                    ));
                }
            }
            _ => {
                let w = self.word();
                match w {
                    "option" | "list" => {
                        self.expect('<')?;
                        self.ty()?;
                        self.expect('>')?;
                    }
                    "map" => {
                        self.expect('<')?;
                        self.ty()?;
                        self.expect(',')?;
                        self.ty()?;
                        self.expect('>')?;
                    }
                    "struct" | "enum" => {
                        if !self.eat(' ') {
                            return Err(self.err(
                                self.pos,
                                format!("expected one space after `{w}`, found {}", self.found()),
                            ));
                        }
                        let name = self.name(&format!("a name after `{w} `"))?;
                        self.names.push(name);
                        if w == "struct" {
                            self.struct_body()?;
                        } else {
                            self.enum_body()?;
                        }
                        self.names.pop();
                    }
                    "tensors" => {}
                    p if PRIMS.contains(&p) => {}
                    "" => {
                        return Err(
                            self.err(start, format!("expected a type, found {}", self.found()))
                        )
                    }
                    other => return Err(self.err(start, format!("unknown type name {other:?}"))),
                }
            }
        }
        self.depth -= 1;
        Ok(self.s.get(start..self.pos).unwrap_or(""))
    }

    /// `(T)` or `(A,B,...)` with the elements not all equal.
    fn tuple(&mut self) -> Result<(), TypeTextError> {
        let open = self.pos;
        self.expect('(')?;
        let mut elems = vec![self.ty()?];
        while self.eat(',') {
            elems.push(self.ty()?);
        }
        self.expect(')')?;
        if elems.len() >= 2 && elems.iter().all(|e| *e == elems[0]) {
            return Err(self.err(
                open,
                format!(
                    "a tuple of {} equal elements is written [{};{}]",
                    elems.len(),
                    elems[0],
                    elems.len()
                ),
            ));
        }
        Ok(())
    }

    /// `[T;N]`, N >= 2, no leading zero.
    fn array(&mut self) -> Result<(), TypeTextError> {
        self.expect('[')?;
        self.ty()?;
        self.expect(';')?;
        let at = self.pos;
        let digits = self.word();
        let ok_digits = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !(digits.len() > 1 && digits.starts_with('0'));
        if !ok_digits {
            return Err(self.err(
                at,
                format!("expected a count N (decimal, no leading zero), found {digits:?}"),
            ));
        }
        match digits.parse::<u64>() {
            Ok(n) if n >= 2 => {}
            Ok(n) => {
                return Err(self.err(
                    at,
                    format!("[T;{n}] is not canonical: N must be 2 or more (one element is (T))"),
                ))
            }
            Err(_) => return Err(self.err(at, format!("count {digits} is too large"))),
        }
        self.expect(']')
    }

    /// After `struct NAME`: `{fields}`, `(types)` or nothing (unit).
    fn struct_body(&mut self) -> Result<(), TypeTextError> {
        match self.peek() {
            Some('{') => self.fields(),
            Some('(') => {
                self.pos += 1;
                self.ty()?;
                while self.eat(',') {
                    self.ty()?;
                }
                self.expect(')')
            }
            _ => Ok(()),
        }
    }

    /// `{}` or `{name:type,...}`.
    fn fields(&mut self) -> Result<(), TypeTextError> {
        self.expect('{')?;
        if self.eat('}') {
            return Ok(());
        }
        loop {
            self.name("a field name")?;
            self.expect(':')?;
            self.ty()?;
            if !self.eat(',') {
                return self.expect('}');
            }
        }
    }

    /// `{variant,...}`: at least one variant.
    fn enum_body(&mut self) -> Result<(), TypeTextError> {
        self.expect('{')?;
        loop {
            self.name("a variant name")?;
            match self.peek() {
                Some('(') => {
                    self.pos += 1;
                    self.ty()?;
                    while self.eat(',') {
                        self.ty()?;
                    }
                    self.expect(')')?;
                }
                Some('{') => self.fields()?,
                _ => {}
            }
            if !self.eat(',') {
                return self.expect('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_texts_pass() {
        for t in [
            "tensors",
            "u8",
            "struct Point{x:i32,y:i32}",
            "struct Checkpoint{metadata:map<str,str>,tensors:tensors}",
            "struct Tree{kids:list<@Tree>}",
            "enum Shape{Dot,Rect{w:f32,h:f32},Pair(u8,i8)}",
            "(u8,i8)",
            "(u8)",
            "[f32;3]",
            "[(u8,i8);10]",
            "struct Unit",
            "struct Empty{}",
            "option<struct Unit>",
            "struct Wrap(u64)",
            "map<str,list<option<(bool,char)>>>",
            "struct A{b:struct B{a:@A,b:@B}}",
        ] {
            assert_eq!(check_type_text(t), Ok(()), "{t}");
        }
    }

    #[test]
    fn faults_have_their_column() {
        let col = |t: &str| check_type_text(t).unwrap_err().column;
        let msg = |t: &str| check_type_text(t).unwrap_err().message;
        assert_eq!(col("struct Point{x:i32, y:i32}"), 20, "a space");
        assert_eq!(col("struct  Point"), 8, "two spaces");
        assert_eq!(col(" u8"), 1);
        assert_eq!(col("u8 "), 3);
        assert_eq!(col("i33"), 1);
        assert!(msg("i33").contains("unknown type name"));
        assert_eq!(col("list<u8"), 8, "unbalanced");
        assert_eq!(col("list<u8>>"), 9);
        assert_eq!(col("(u8,u8)"), 1);
        assert!(msg("(u8,u8)").contains("[u8;2]"));
        assert_eq!(col("[u8;1]"), 5);
        assert_eq!(col("[u8;0]"), 5);
        assert_eq!(col("[u8;02]"), 5);
        assert_eq!(col("[u8;x]"), 5);
        assert_eq!(col("struct Tree{kids:list<@Node>}"), 24);
        assert_eq!(col("@T"), 2);
        assert_eq!(col("enum E{}"), 8);
        assert_eq!(col(""), 1);
        assert_eq!(col("struct"), 7);
        assert_eq!(col("ä"), 1);
        assert_eq!(col("(ä)"), 2);
        assert_eq!(col("map<u8>"), 7);
        let deep = "list<".repeat(300) + "u8" + &">".repeat(300);
        assert!(msg(&deep).contains("deeper"));
    }
}
