//! [`Abort`]: the zero-sized error of the field access
//! ([`Fields`](super::fields)) that [`visit_fields`](super::fields::visit_fields)
//! gives the `visit_seq` of a small plain struct (see there for which and
//! why), the `A::Error` its derived code returns; of a seq's access
//! (`seq.rs`: `SeqAccess`), and of a seq's plain element read through the
//! window (`window.rs`). The [`Error`] itself waits in a per-thread slot
//! until the access's caller takes it back; the latest one put there wins
//! (a visitor that catches a field's error, fails again and returns the
//! first gets the second reported). An error a visitor swallows stays in
//! the slot until the next one replaces it: every `Abort` is made by
//! putting its error there, so a stale one is never taken
//! (`tests/seq_errors.rs`). A visitor that hands the access to another
//! thread and gets an `Abort` back from there loses the error: MESSAGE.
//!
//! serde's `next_element` returns `Result<Option<T>, A::Error>`. With
//! kiln's 8-byte, 4-aligned [`Error`] there, the error sits on bytes 4..12
//! and a `u64` field on 8..16: LLVM split the `u64` in two 4-byte halves
//! and, across a later branch, reread it from memory wider than it stored
//! it (a failed store forward on every message).

use std::cell::Cell;
use std::fmt;

use crate::error::{Error, ErrorCode};

/// An error of a field access: the [`Error`] is in this thread's slot.
#[derive(Debug)]
pub(super) struct Abort;

thread_local! {
    static SLOT: Cell<Option<Error>> = const { Cell::new(None) };
}

impl Abort {
    /// Puts `e` in the slot (the latest error wins) and stands for it.
    #[cold]
    #[inline(never)]
    pub(super) fn stash(e: Error) -> Abort {
        // `try_with`: during a thread's teardown the slot may be gone; the
        // error is then lost and `take` reports MESSAGE, with no panic.
        let _ = SLOT.try_with(|s| s.set(Some(e)));
        Abort
    }

    /// The error this stands for, taken out of the slot.
    #[cold]
    #[inline(never)]
    pub(super) fn take(self) -> Error {
        SLOT.try_with(Cell::take).ok().flatten().unwrap_or_else(|| {
            Error::new(
                ErrorCode::Message,
                None,
                "a field access failed without an error",
            )
        })
    }
}

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = SLOT.try_with(|s| {
            let e = s.take();
            let r = e.as_ref().map(|e| fmt::Display::fmt(e, f));
            s.set(e);
            r
        });
        match shown {
            Ok(Some(r)) => r,
            _ => f.write_str("a field access failed"),
        }
    }
}

impl std::error::Error for Abort {}

impl serde::de::Error for Abort {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Abort::stash(<Error as serde::de::Error>::custom(msg))
    }

    #[cold]
    fn invalid_type(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Abort::stash(<Error as serde::de::Error>::invalid_type(unexp, exp))
    }

    #[cold]
    fn invalid_value(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Abort::stash(<Error as serde::de::Error>::invalid_value(unexp, exp))
    }

    #[cold]
    fn invalid_length(len: usize, exp: &dyn serde::de::Expected) -> Self {
        Abort::stash(<Error as serde::de::Error>::invalid_length(len, exp))
    }

    #[cold]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Abort::stash(<Error as serde::de::Error>::unknown_variant(
            variant, expected,
        ))
    }

    #[cold]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Abort::stash(<Error as serde::de::Error>::unknown_field(field, expected))
    }

    #[cold]
    fn missing_field(field: &'static str) -> Self {
        Abort::stash(<Error as serde::de::Error>::missing_field(field))
    }

    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        Abort::stash(<Error as serde::de::Error>::duplicate_field(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::Error as _;

    #[test]
    fn the_slot_gives_back_the_latest_error_once() {
        let _ = Abort::stash(Error::new(ErrorCode::Type, Some(3), "first"));
        let a = Abort::stash(Error::new(ErrorCode::Eof, Some(7), "second"));
        // Display reads the slot and leaves the error there.
        assert_eq!(a.to_string(), "EOF at byte 7: second");
        let e = a.take();
        assert_eq!(
            (e.code(), e.offset(), e.message()),
            (ErrorCode::Eof, Some(7), "second")
        );
        // Taken: an `Abort` without an error is MESSAGE, not a panic.
        let e = Abort.take();
        assert_eq!(e.code(), ErrorCode::Message);
        assert_eq!(Abort.to_string(), "a field access failed");
    }

    #[test]
    fn serde_constructors_are_errors_own() {
        use serde::de::Unexpected;
        let same = |a: Abort, e: Error| {
            let a = a.take();
            assert_eq!(
                (a.code(), a.offset(), a.message()),
                (e.code(), e.offset(), e.message())
            );
        };
        same(Abort::custom("boom"), Error::custom("boom"));
        same(
            Abort::invalid_type(Unexpected::Bool(true), &"a u8"),
            Error::invalid_type(Unexpected::Bool(true), &"a u8"),
        );
        same(
            Abort::invalid_value(Unexpected::Unsigned(7), &"0 or 1"),
            Error::invalid_value(Unexpected::Unsigned(7), &"0 or 1"),
        );
        same(
            Abort::invalid_length(2, &"3 fields"),
            Error::invalid_length(2, &"3 fields"),
        );
        same(
            Abort::unknown_variant("V", &["W"]),
            Error::unknown_variant("V", &["W"]),
        );
        same(
            Abort::unknown_field("f", &["g"]),
            Error::unknown_field("f", &["g"]),
        );
        same(Abort::missing_field("x"), Error::missing_field("x"));
        same(Abort::duplicate_field("x"), Error::duplicate_field("x"));
    }

    /// A decode in another thread-local's destructor, after the slot is
    /// gone: the error is lost (MESSAGE), the thread does not panic.
    #[test]
    fn a_field_error_in_a_thread_teardown_does_not_panic() {
        struct FailOnDrop;
        impl Drop for FailOnDrop {
            fn drop(&mut self) {
                let e = Abort::stash(Error::new(ErrorCode::Eof, None, "late")).take();
                assert!(matches!(e.code(), ErrorCode::Eof | ErrorCode::Message));
                let _ = Abort.to_string();
            }
        }
        thread_local! {
            static LATE: FailOnDrop = const { FailOnDrop };
        }
        std::thread::spawn(|| {
            LATE.with(|_| ());
            // The slot registers its destructor after `LATE`'s.
            let _ = Abort::stash(Error::new(ErrorCode::Type, None, "now")).take();
        })
        .join()
        .expect("no panic in the teardown");
    }

    #[test]
    fn each_thread_has_its_own_slot() {
        let _ = Abort::stash(Error::new(ErrorCode::Type, None, "main"));
        std::thread::spawn(|| {
            assert_eq!(
                Abort.take().message(),
                "a field access failed without an error"
            );
            let _ = Abort::stash(Error::new(ErrorCode::Eof, None, "other"));
        })
        .join()
        .unwrap();
        assert_eq!(Abort.take().message(), "main");
    }
}
