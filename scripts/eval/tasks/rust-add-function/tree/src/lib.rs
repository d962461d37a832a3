//! Helpers for people's names.

/// The name with each word capitalised: "ada lovelace" -> "Ada Lovelace".
pub fn capitalise(name: &str) -> String {
    name.split_whitespace()
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalises_each_word() {
        assert_eq!(capitalise("ada lovelace"), "Ada Lovelace");
    }
}
