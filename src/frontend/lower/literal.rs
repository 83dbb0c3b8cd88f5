//! Literals: integer constants (their type from value, base and suffix),
//! floating and character constants, and the text of string literals.

use lang_c::ast::*;
use lang_c::span::Span;

use super::Lowerer;
use crate::ir::{Expr, ExprKind, IntKind, Type};
use crate::Result;

impl<'a> Lowerer<'a> {
    pub(super) fn constant(&mut self, c: &Constant, span: &Span) -> Result<Expr> {
        Ok(match c {
            Constant::Integer(i) => {
                let radix = match i.base {
                    IntegerBase::Decimal => 10,
                    IntegerBase::Octal => 8,
                    IntegerBase::Hexadecimal => 16,
                    IntegerBase::Binary => 2,
                };
                let digits = i
                    .number
                    .trim_start_matches("0x")
                    .trim_start_matches("0X")
                    .trim_start_matches("0b");
                let digits = if digits.is_empty() { "0" } else { digits };
                let v = u128::from_str_radix(digits, radix).map_err(|_| {
                    self.unsupported(span, "integer constant out of range", "check the input")
                })?;
                let dec = matches!(i.base, IntegerBase::Decimal);
                let u = i.suffix.unsigned;
                use IntKind::{Int, Long, LongLong, UInt, ULong, ULongLong};
                // C11 6.4.4.1p5: the first type of the list that holds the
                // value, in the table's data model.
                let candidates: &[IntKind] = match (i.suffix.size, u, dec) {
                    (IntegerSize::Int, false, true) => &[Int, Long, LongLong],
                    (IntegerSize::Int, false, false) => {
                        &[Int, UInt, Long, ULong, LongLong, ULongLong]
                    }
                    (IntegerSize::Int, true, _) => &[UInt, ULong, ULongLong],
                    (IntegerSize::Long, false, true) => &[Long, LongLong],
                    (IntegerSize::Long, false, false) => &[Long, ULong, LongLong, ULongLong],
                    (IntegerSize::Long, true, _) => &[ULong, ULongLong],
                    (IntegerSize::LongLong, false, true) => &[LongLong],
                    (IntegerSize::LongLong, false, false) => &[LongLong, ULongLong],
                    (IntegerSize::LongLong, true, _) => &[ULongLong],
                };
                let model = self.p.types.model();
                let kind = candidates
                    .iter()
                    .map(|k| model.kind(*k))
                    .find(|k| {
                        let bits = k.bits() - k.signed() as u32;
                        v < (1u128 << bits)
                    })
                    .unwrap_or(ULongLong);
                Expr::int(v as i128, self.p.types.int(kind))
            }
            Constant::Float(f) => {
                let text = f.number.to_string();
                let v: f64 = text.parse().unwrap_or(0.0);
                let bits = match f.suffix.format {
                    FloatFormat::Float => 32,
                    FloatFormat::LongDouble => 128,
                    _ => 64,
                };
                Expr::new(
                    ExprKind::FloatConst(v.to_bits()),
                    self.p.types.intern(Type::Float(bits)),
                )
            }
            Constant::Character(s) => {
                let body = s.trim_start_matches(['L', 'u', 'U']).trim_matches('\'');
                let bytes = unescape(body);
                let v = bytes.first().map(|&b| b as i8 as i128).unwrap_or(0);
                Expr::int(v, self.int_ty())
            }
        })
    }
}

/// The contents of a string literal piece (`"..."` or `L"..."`), escapes kept.
pub(super) fn unquote(p: &str) -> String {
    let p = p.trim_start_matches(['L', 'u', 'U', '8']);
    p.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(p)
        .to_string()
}

/// Decodes C escape sequences.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            b'x' => digits(b, &mut i, 16, usize::MAX),
            b'0'..=b'7' => {
                i -= 1;
                digits(b, &mut i, 8, 3)
            }
            other => other,
        });
    }
    out
}

/// The value (as a byte) of up to `max` digits of `radix` at `b[*i..]`, advancing `*i`.
fn digits(b: &[u8], i: &mut usize, radix: u32, max: usize) -> u8 {
    let start = *i;
    while *i < b.len() && *i - start < max && (b[*i] as char).is_digit(radix) {
        *i += 1;
    }
    u32::from_str_radix(std::str::from_utf8(&b[start..*i]).unwrap_or("0"), radix).unwrap_or(0) as u8
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_decode_like_c() {
        assert_eq!(super::unescape(r"a\n\x41\101\0z"), b"a\nAA\0z".to_vec());
        assert_eq!(
            super::unescape(r"\1234"),
            vec![0o123, b'4'],
            "octal escapes stop after three digits"
        );
    }
}
