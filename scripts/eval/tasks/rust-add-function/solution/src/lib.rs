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

/// The first letter of each word, upper case, each followed by a dot.
pub fn initials(name: &str) -> String {
    name.split_whitespace()
        .filter_map(|word| word.chars().next())
        .flat_map(|c| c.to_uppercase().chain(std::iter::once('.')))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalises_each_word() {
        assert_eq!(capitalise("ada lovelace"), "Ada Lovelace");
    }
}
