//! Session ids: `sess_` + base-36 milliseconds (fixed width, so ids sort by
//! creation time) + 7 base-36 random characters.

use crate::protocol::now_millis;

const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
/// 36^9 ms is about 3 000 years, so the time part never changes width.
const TIME_WIDTH: usize = 9;
const RANDOM_WIDTH: usize = 7;

/// A fresh session id, unique with overwhelming probability across
/// processes and ordered by creation time at millisecond resolution.
pub(super) fn new_session_id() -> String {
    let mut id = String::from("sess_");
    push_base36(&mut id, now_millis(), TIME_WIDTH);
    // fastrand's generator is seeded per thread from the OS's randomness.
    id.extend((0..RANDOM_WIDTH).map(|_| char::from(ALPHABET[fastrand::usize(..ALPHABET.len())])));
    id
}

/// Appends the lowest `width` base-36 digits of `value`, zero-padded.
fn push_base36(out: &mut String, mut value: u64, width: usize) {
    let mut digits = [b'0'; 16];
    for slot in digits[..width].iter_mut().rev() {
        *slot = ALPHABET[(value % 36) as usize];
        value /= 36;
    }
    out.extend(digits[..width].iter().map(|&b| char::from(b)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_have_the_documented_shape() {
        let id = new_session_id();
        let suffix = id.strip_prefix("sess_").unwrap();
        assert_eq!(suffix.len(), TIME_WIDTH + RANDOM_WIDTH, "{id}");
        assert!(suffix.bytes().all(|b| ALPHABET.contains(&b)), "{id}");
    }

    #[test]
    fn ids_made_in_a_burst_are_unique() {
        let ids: HashSet<String> = (0..20_000).map(|_| new_session_id()).collect();
        assert_eq!(ids.len(), 20_000);
    }

    #[test]
    fn time_part_sorts_like_the_number() {
        let encode = |v| {
            let mut s = String::new();
            push_base36(&mut s, v, TIME_WIDTH);
            s
        };
        assert_eq!(encode(0), "000000000");
        assert_eq!(encode(35), "00000000z");
        assert_eq!(encode(36), "000000010");
        let samples = [
            0u64,
            1,
            35,
            36,
            1_700_000_000_000,
            1_700_000_000_001,
            4_000_000_000_000,
        ];
        for pair in samples.windows(2) {
            assert!(encode(pair[0]) < encode(pair[1]), "{pair:?}");
        }
    }
}
